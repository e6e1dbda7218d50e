/* One traced process: its memory, its symbol table, and a per-address cache
 * of the rendered `function+0xoff [module]` description.
 *
 * Memory is read with process_vm_readv (one syscall, no ptrace stop needed)
 * and falls back to /proc/<pid>/mem, which can also read pages the target
 * mapped without PROT_READ (execute-only code) when we are its tracer. */
#define _GNU_SOURCE
#include "host/host.h"
#include "common/arch_insn.h"
#include "host/fdinfo.h"
#include "host/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define DESCRIBE_SLOTS 8192u /* power of two */

struct describe_slot {
  uint64_t addr;
  char text[112];
};

struct asmspy_target {
  pid_t pid;
  int mem_fd; /* /proc/<pid>/mem, opened lazily */
  struct asmspy_symtab *symtab;
  struct describe_slot *describe_cache;
  int symtab_stale;             /* exec replaced the image: reload on next use */
  uint64_t describe_generation; /* symtab_generation the describe cache reflects */
  uint64_t *bp_addrs;           /* where asmspy ever planted an int3 (detach rewinds) */
  size_t nbp, bpcap;
};

struct asmspy_target *target_open(pid_t pid, int *err) {
  struct asmspy_target *t = calloc(1, sizeof *t);
  if (!t) {
    if (err) *err = ENOMEM;
    return NULL;
  }
  t->pid = pid;
  t->mem_fd = -1;
  /* The symbol table is loaded on first use: the syscall log never needs
   * one, and loading every module (with libc's debug symbols when
   * installed) costs tens of milliseconds. The process must exist now. */
  char maps[64];
  snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
  if (access(maps, R_OK) != 0) {
    if (err) *err = errno == ENOENT ? ESRCH : errno;
    free(t);
    return NULL;
  }
  t->describe_cache = calloc(DESCRIBE_SLOTS, sizeof *t->describe_cache);
  return t;
}

/* The symbol table, loaded (or reloaded after an exec) on demand. A process
 * whose table cannot be loaded gets an empty lookup (every address unknown). */
static struct asmspy_symtab *symbols(struct asmspy_target *t) {
  if (!t->symtab)
    t->symtab = symtab_load(t->pid);
  else if (t->symtab_stale)
    symtab_reload(t->symtab);
  t->symtab_stale = 0;
  return t->symtab;
}

void target_close(struct asmspy_target *t) {
  if (!t) return;
  if (t->mem_fd >= 0) close(t->mem_fd);
  symtab_free(t->symtab);
  free(t->describe_cache);
  free(t->bp_addrs);
  free(t);
}

pid_t target_pid(const struct asmspy_target *t) { return t->pid; }
static struct asmspy_symtab *symbols(struct asmspy_target *t);
struct asmspy_symtab *target_symtab(struct asmspy_target *t) {
  return symbols(t);
}

void target_reload_symbols(struct asmspy_target *t) {
  t->symtab_stale = 1;
  if (t->describe_cache) memset(t->describe_cache, 0, DESCRIBE_SLOTS * sizeof *t->describe_cache);
  if (t->mem_fd >= 0) { /* exec replaced the address space: reopen lazily */
    close(t->mem_fd);
    t->mem_fd = -1;
  }
}

ssize_t target_read_mem(struct asmspy_target *t, uint64_t addr, void *buf, size_t len) {
  struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
  ssize_t n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
  if (n > 0) return n;
  /* A read straddling into an unmapped page fails whole with EFAULT; the
   * /proc/<pid>/mem path returns the readable prefix, and also reads
   * non-PROT_READ pages of a tracee. */
  if (t->mem_fd < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)t->pid);
    t->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->mem_fd < 0) return -errno;
  }
  n = pread(t->mem_fd, buf, len, (off_t)addr);
  if (n < 0) return -errno;
  if (n == 0) return -EIO;
  return n;
}

int target_symbolize(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out) {
  /* write only within the caller's struct_size (an older plugin's struct may be smaller) */
  uint32_t caller_size = out->struct_size;
  struct asmspy_symbol full;
  memset(&full, 0, sizeof full);
  ASMSPY_INIT_HEADER(&full);
  struct asmspy_symtab *st = symbols(t);
  int rc = st ? symtab_lookup(st, addr, &full) : 0;
  if (!st) full.kind = ASMSPY_SYM_UNKNOWN, full.module = "?";
  size_t n = caller_size < sizeof full ? caller_size : sizeof full;
  full.struct_size = (uint32_t)n;
  memcpy(out, &full, n);
  return rc;
}

/* 1.9: the function symbols by index, in address order (a call backend
 * choosing what to patch). -1 past the last one. */
int target_symbol_at(struct asmspy_target *t, size_t i, struct asmspy_symbol *out) {
  struct asmspy_symtab *st = symbols(t);
  if (!st || i >= symtab_count(st)) return -1;
  const struct symtab_entry *e = symtab_at(st, i);
  uint32_t caller_size = out->struct_size;
  struct asmspy_symbol full;
  memset(&full, 0, sizeof full);
  ASMSPY_INIT_HEADER(&full);
  full.name = e->name;
  full.module = e->module;
  full.module_path = e->module_path;
  full.start = e->start;
  full.size = e->size;
  full.kind = e->kind;
  size_t n = caller_size < sizeof full ? caller_size : sizeof full;
  full.struct_size = (uint32_t)n;
  memcpy(out, &full, n);
  return 0;
}

/* `function+0xoff [module]`, or `0xaddr [module]` when no symbol covers it.
 * Only named addresses are cached, and the cache is dropped whenever the
 * symbol table changed (a library mapped since, a perf-map re-read): a miss
 * always reaches symtab_lookup, which may find the code named by then. */
const char *target_describe(struct asmspy_target *t, uint64_t addr, char *buf, size_t cap) {
  struct describe_slot *slot = NULL;
  uint64_t generation = symtab_generation(symbols(t));
  if (t->describe_cache && generation != t->describe_generation) {
    memset(t->describe_cache, 0, DESCRIBE_SLOTS * sizeof *t->describe_cache);
    t->describe_generation = generation;
  }
  if (t->describe_cache) {
    slot = &t->describe_cache[(addr ^ (addr >> 13)) & (DESCRIBE_SLOTS - 1)];
    if (slot->addr == addr && slot->text[0]) {
      snprintf(buf, cap, "%s", slot->text);
      return buf;
    }
  }
  struct asmspy_symbol sym;
  ASMSPY_INIT_HEADER(&sym);
  target_symbolize(t, addr, &sym);
  const char *module = sym.module ? sym.module : "?";
  if (sym.kind == ASMSPY_SYM_JIT)
    snprintf(buf, cap, "%s+0x%" PRIx64 " [jit]", sym.name ? sym.name : "?", sym.offset);
  else if (sym.name)
    snprintf(buf, cap, "%s+0x%" PRIx64 " [%s]", sym.name, sym.offset, module);
  else
    snprintf(buf, cap, "0x%" PRIx64 " [%s]", addr, module);
  /* the lookup itself may have changed the table (a maps re-read) */
  uint64_t after = symtab_generation(symbols(t));
  if (t->describe_cache && after != generation) {
    memset(t->describe_cache, 0, DESCRIBE_SLOTS * sizeof *t->describe_cache);
    t->describe_generation = after;
  }
  /* only what fits: a cut text (a long C++ name) would be served for every
   * later lookup of addr, different from the first one */
  if (slot && sym.kind != ASMSPY_SYM_UNKNOWN && strlen(buf) < sizeof slot->text) {
    slot->addr = addr;
    snprintf(slot->text, sizeof slot->text, "%s", buf);
  }
  return buf;
}

const char *target_describe_fd(struct asmspy_target *t, int fd, char *buf, size_t cap) {
  return fdinfo_describe_cached(t->pid, fd, buf, cap); /* seam-invalidated cache */
}

/* Breakpoint writes: /proc/<pid>/mem honours FOLL_FORCE for a tracer, so
 * read-only text pages can be patched (copy-on-write, like PTRACE_POKETEXT)
 * in one pwrite instead of a word-at-a-time poke loop. */
/* Remember an int3 we plant: a thread that hit it but whose stop the tracer
 * never collected (the session was stopped first) must be rewound at
 * detach, after the original byte is back (ptrace_seam.c). */
static void note_breakpoint(struct asmspy_target *t, uint64_t addr) {
  for (size_t i = 0; i < t->nbp; i++)
    if (t->bp_addrs[i] == addr) return;
  if (t->nbp == t->bpcap) {
    size_t nc = t->bpcap ? t->bpcap * 2 : 16;
    uint64_t *n = realloc(t->bp_addrs, nc * sizeof *n);
    if (!n) return;
    t->bp_addrs = n;
    t->bpcap = nc;
  }
  t->bp_addrs[t->nbp++] = addr;
}

int target_planted_breakpoint(const struct asmspy_target *t, uint64_t addr) {
  if (!t) return 0;
  for (size_t i = 0; i < t->nbp; i++)
    if (t->bp_addrs[i] == addr) return 1;
  return 0;
}

int target_breakpoint_count(const struct asmspy_target *t) { return t ? (int)t->nbp : 0; }

ssize_t target_write_mem(struct asmspy_target *t, uint64_t addr, const void *buf, size_t len) {
  static const uint8_t brk[] = ARCH_BREAK_INSN;
  if (len == ARCH_BREAK_LEN && memcmp(buf, brk, ARCH_BREAK_LEN) == 0) note_breakpoint(t, addr);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)t->pid);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = pwrite(fd, buf, len, (off_t)addr);
  int e = errno;
  close(fd);
  return n < 0 ? -e : n;
}
