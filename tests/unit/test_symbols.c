/* Unit test for host/symbols.c: the live-process symbol tables.
 *
 * Standalone program, exit 0 = pass. It symbolizes ITSELF (getpid()) and a
 * forked copy of itself, so no victim binary is needed:
 *   - its own functions (name, offset, module, kind INTERNAL), size-0 spans;
 *   - libc / the sanitizer runtime behind &puts (kind EXTERNAL);
 *   - PLT stubs, compared address by address with the `<x@plt>` labels of
 *     objdump -d for the executable and for libc.so.6 (skipped when objdump is
 *     not installed), and the stub bytes (`[endbr64] [bnd] jmp *GOT(%rip)`);
 *   - the JIT perf-map: found as kind JIT, re-read on a miss after the rate
 *     limit, ignored when it is a symlink, a directory, a FIFO or (as root)
 *     owned by another uid;
 *   - hostile ELF files (truncated, corrupted headers, fuzzed) mapped
 *     PROT_EXEC into the process: symtab_load must succeed without crashing;
 *   - ESRCH for a pid that does not exist, symtab_reload, the lookup cache;
 *   - a second mapping of its own text (above and below the executable):
 *     lookups in it name the function at that file offset;
 *   - a library dlopen()ed after the table was loaded is found on the first
 *     miss, and misses /proc/<pid>/maps cannot explain back off.
 *
 * Build: gcc -std=gnu11 -Wall -Wextra -Werror -O1 -g -I include -I . \
 *          -o test_symbols tests/unit/test_symbols.c host/symbols.c \
 *          $(pkg-config --cflags --libs libdw libelf)
 * Writes /tmp/perf-<pid>.map and a scratch directory under $TMPDIR (or /tmp);
 * removes both. Under valgrind set ASMSPY_TEST_NO_HOSTILE_ELF=1: valgrind's
 * own ELF reader asserts on the hostile files this test maps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* readlink, getline, mkfifo/mkdtemp, st_mtim, dladdr */
#endif
#include "host/symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                       \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

static void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("# ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

static const char *str_or_null(const char *s) { return s ? s : "(null)"; }

/* The function the test looks itself up by. noinline + used: it must exist as
 * a real, sized STT_FUNC in .symtab; the loop makes it longer than 5 bytes. */
__attribute__((noinline, used)) int victim_marker_fn(int n) {
  volatile int acc = 0;
  for (int i = 0; i < n; i++) acc += i * 3;
  return acc;
}

static const char *path_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static char self_exe[PATH_MAX];

/* ------------------------------------------------------------------------- */
/* Load bias of a loaded object, independently of the code under test.        */
/* ------------------------------------------------------------------------- */

struct bias_query {
  const char *name_contains; /* NULL = the main program */
  uint64_t bias;
  char path[PATH_MAX];
  bool found;
};

static int bias_callback(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct bias_query *q = arg;
  bool is_main = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
  if ((q->name_contains == NULL && is_main) ||
      (q->name_contains && !is_main && strstr(info->dlpi_name, q->name_contains))) {
    q->bias = info->dlpi_addr;
    snprintf(q->path, sizeof(q->path), "%s", is_main ? self_exe : info->dlpi_name);
    q->found = true;
    return 1;
  }
  return 0;
}

static bool find_bias(const char *name_contains, uint64_t *bias, char *path, size_t path_cap) {
  struct bias_query q = {.name_contains = name_contains};
  dl_iterate_phdr(bias_callback, &q);
  if (q.found) {
    *bias = q.bias;
    snprintf(path, path_cap, "%s", q.path);
  }
  return q.found;
}

/* ------------------------------------------------------------------------- */
/* Own functions                                                              */
/* ------------------------------------------------------------------------- */

static void test_own_function(struct asmspy_symtab *t) {
  const char *main_base = path_basename(self_exe);
  CHECK(strcmp(symtab_main_module(t), main_base) == 0, "main module %s, expected %s",
        symtab_main_module(t), main_base);

  uint64_t fn = (uint64_t)(uintptr_t)&victim_marker_fn;
  struct asmspy_symbol sym;
  symtab_lookup(t, fn, &sym);
  CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0, "name %s", str_or_null(sym.name));
  CHECK(sym.offset == 0 && sym.start == fn, "offset %" PRIu64, sym.offset);
  CHECK(sym.kind == ASMSPY_SYM_INTERNAL, "kind %u", sym.kind);
  CHECK(sym.module && strcmp(sym.module, main_base) == 0, "module %s", str_or_null(sym.module));
  CHECK(sym.module_path && strcmp(sym.module_path, self_exe) == 0, "module_path %s",
        str_or_null(sym.module_path));
  CHECK(sym.size > 5, "size %" PRIu64, sym.size);
  CHECK(sym.abi_version == ASMSPY_ABI_VERSION && sym.struct_size == sizeof(sym),
        "header not filled");

  symtab_lookup(t, fn + 5, &sym);
  CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0, "fn+5 name %s",
        str_or_null(sym.name));
  CHECK(sym.offset == 5, "fn+5 offset %" PRIu64, sym.offset);

  const struct symtab_entry *e = symtab_find_name(t, "victim_marker_fn");
  CHECK(e && e->start == fn, "find_name victim_marker_fn");

  /* Past the end of a sized function is not that function. */
  if (e && e->size) {
    symtab_lookup(t, fn + e->size, &sym);
    CHECK(!sym.name || strcmp(sym.name, "victim_marker_fn") != 0, "fn+size still covered");
  }

  /* A size-0 symbol (crt's _init) covers up to the next symbol. */
  const struct symtab_entry *init = symtab_find_name(t, "_init");
  if (init && init->size == 0 && init->kind == ASMSPY_SYM_INTERNAL) {
    size_t i = (size_t)(init - symtab_at(t, 0));
    const struct symtab_entry *next = symtab_at(t, i + 1);
    if (next && next->start > init->start + 4) {
      symtab_lookup(t, init->start + 4, &sym);
      CHECK(sym.name && strcmp(sym.name, "_init") == 0 && sym.offset == 4,
            "size-0 _init span: %s+%" PRIu64, str_or_null(sym.name), sym.offset);
    }
  } else {
    note("no size-0 _init in the executable; size-0 span not tested");
  }
}

/* ------------------------------------------------------------------------- */
/* Shared library symbols and PLT stubs                                       */
/* ------------------------------------------------------------------------- */

static void test_external_function(struct asmspy_symtab *t) {
  /* Through a volatile pointer so the compiler does not fold &puts. In a PIE
   * &puts is the real function (libc's, or the sanitizer's interceptor); in a
   * non-PIE it may be the executable's canonical PLT stub. */
  int (*volatile puts_ptr)(const char *) = puts;
  uint64_t addr = (uint64_t)(uintptr_t)puts_ptr;
  Dl_info info;
  memset(&info, 0, sizeof(info));
  CHECK(dladdr((void *)(uintptr_t)addr, &info) != 0, "dladdr(&puts) failed");
  struct asmspy_symbol sym;
  symtab_lookup(t, addr, &sym);
  bool via_plt =
      info.dli_fname && strcmp(path_basename(info.dli_fname), path_basename(self_exe)) == 0;
  if (via_plt) {
    CHECK(sym.name && strcmp(sym.name, "puts@plt") == 0, "&puts name %s", str_or_null(sym.name));
  } else {
    CHECK(sym.name && strcmp(sym.name, "puts") == 0, "&puts name %s", str_or_null(sym.name));
    CHECK(sym.kind == ASMSPY_SYM_EXTERNAL, "&puts kind %u", sym.kind);
    /* /proc/<pid>/maps (and so the table) names the file behind the soname
     * symlink: libasan.so.8 -> libasan.so.8.0.0. */
    char real[PATH_MAX];
    const char *expected = info.dli_fname && realpath(info.dli_fname, real)
                               ? path_basename(real)
                               : str_or_null(info.dli_fname);
    CHECK(sym.module && strcmp(sym.module, expected) == 0, "&puts module %s, dladdr says %s",
          str_or_null(sym.module), expected);
  }
  CHECK(sym.offset == 0, "&puts offset %" PRIu64, sym.offset);
  puts("# called puts so the executable has a puts@plt stub");
}

/* Decode the GOT slot a stub jumps through, as the CPU would see it. */
static bool stub_is_indirect_jump(const uint8_t *stub) {
  size_t off = 0;
  if (stub[0] == 0xf3 && stub[1] == 0x0f && stub[2] == 0x1e && stub[3] == 0xfa) off = 4;
  if (stub[off] == 0xf2) off++;
  return stub[off] == 0xff && stub[off + 1] == 0x25;
}

/* Every `<name@plt>` label objdump prints for the file at `path` (loaded with
 * `bias`) must be in the table at the same runtime address with that name.
 * objdump names IRELATIVE stubs "*ABS*+0x...@plt"; the table names them after
 * the ifunc, so for those only "some @plt entry there" is checked. Returns the
 * number of labels compared, or -1 when objdump could not run. */
static int compare_plt_with_objdump(struct asmspy_symtab *t, const char *path, uint64_t bias) {
  if (strchr(path, '\'')) {
    note("path %s has a quote; objdump comparison skipped", path);
    return -1;
  }
  char cmd[PATH_MAX + 128];
  snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  int labels = 0;
  while (fgets(line, sizeof(line), p)) {
    unsigned long long link_addr;
    char label[512];
    if (sscanf(line, "%llx <%511[^>]>:", &link_addr, label) != 2) continue;
    size_t len = strlen(label);
    if (len < 5 || strcmp(label + len - 4, "@plt") != 0)
      continue; /* "<.plt>" or "<*ABS*+0x...@plt-0x10>" (the resolver stub) */
    labels++;
    struct asmspy_symbol sym;
    uint64_t runtime = link_addr + bias;
    symtab_lookup(t, runtime, &sym);
    CHECK(sym.start == runtime && sym.offset == 0 && sym.name && strlen(sym.name) > 4 &&
              strcmp(sym.name + strlen(sym.name) - 4, "@plt") == 0,
          "%s: objdump <%s> at 0x%llx, table has %s+%" PRIu64, path_basename(path), label,
          link_addr, str_or_null(sym.name), sym.offset);
    if (strncmp(label, "*ABS*", 5) != 0)
      CHECK(sym.name && strcmp(sym.name, label) == 0, "%s: objdump <%s>, table %s",
            path_basename(path), label, str_or_null(sym.name));
    CHECK(sym.kind == ASMSPY_SYM_EXTERNAL, "%s kind %u", label, sym.kind);
  }
  int status = pclose(p);
  if (labels == 0 && (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) return -1;
  return labels;
}

/* The entry named `name` whose module is `module` (symtab_find_name returns
 * the first by address, which may be another library's stub). */
static const struct symtab_entry *find_in_module(struct asmspy_symtab *t, const char *name,
                                                 const char *module) {
  for (size_t i = 0; i < symtab_count(t); i++) {
    const struct symtab_entry *e = symtab_at(t, i);
    if (strcmp(e->name, name) == 0 && strcmp(e->module, module) == 0) return e;
  }
  return NULL;
}

static void test_plt(struct asmspy_symtab *t) {
  const struct symtab_entry *stub = find_in_module(t, "puts@plt", path_basename(self_exe));
  if (stub) {
    CHECK(stub->kind == ASMSPY_SYM_EXTERNAL, "puts@plt kind %u", stub->kind);
    CHECK(stub->size == 16 || stub->size == 8, "puts@plt size %" PRIu64, stub->size);
    CHECK(stub_is_indirect_jump((const uint8_t *)(uintptr_t)stub->start),
          "bytes at puts@plt are not [endbr64] [bnd] jmp *disp(%%rip)");
    struct asmspy_symbol sym;
    symtab_lookup(t, stub->start + 3, &sym);
    CHECK(sym.name && strcmp(sym.name, "puts@plt") == 0 && sym.offset == 3,
          "puts@plt+3 -> %s+%" PRIu64, str_or_null(sym.name), sym.offset);
  }

  uint64_t bias;
  char path[PATH_MAX];
  int labels = -1;
  if (find_bias(NULL, &bias, path, sizeof(path))) {
    labels = compare_plt_with_objdump(t, path, bias);
    if (labels < 0)
      note("SKIP objdump comparison (objdump not available)");
    else
      note("executable: %d objdump @plt labels match", labels);
  }
  /* Without objdump the stub itself is the evidence; with objdump, a missing
   * stub is only fine when objdump agrees there is none (-fno-plt builds). */
  if (!stub && labels < 0)
    CHECK(0, "no puts@plt in the executable's module (built with -fno-plt?)");
  else if (!stub)
    note("executable has no puts@plt (objdump agrees: %d other stubs)", labels);
  if (find_bias("/libc.so.6", &bias, path, sizeof(path))) {
    int n = compare_plt_with_objdump(t, path, bias);
    if (n >= 0) note("libc.so.6: %d objdump @plt labels match", n);
  }
}

/* ------------------------------------------------------------------------- */
/* Whole-table invariants and the lookup cache                                */
/* ------------------------------------------------------------------------- */

static void test_table_invariants(struct asmspy_symtab *t) {
  size_t n = symtab_count(t);
  CHECK(n > 100, "only %zu symbols", n);
  size_t bad_order = 0, bad_strings = 0, default_versions = 0;
  for (size_t i = 0; i < n; i++) {
    const struct symtab_entry *e = symtab_at(t, i);
    if (!e->name || !e->module || !e->module_path || !e->name[0]) bad_strings++;
    /* "fclose@@GLIBC_2.2.5" (a debug .symtab's default version) is "fclose". */
    else if (strstr(e->name, "@@"))
      default_versions++;
    if (i && symtab_at(t, i - 1)->start >= e->start && e->kind != ASMSPY_SYM_JIT &&
        symtab_at(t, i - 1)->kind != ASMSPY_SYM_JIT)
      bad_order++;
  }
  CHECK(bad_order == 0, "%zu entries out of order or duplicated", bad_order);
  CHECK(bad_strings == 0, "%zu entries with missing strings", bad_strings);
  CHECK(default_versions == 0, "%zu names keep a @@VERSION suffix", default_versions);
  CHECK(symtab_at(t, n) == NULL, "symtab_at past the end");

  /* The cache must never change an answer: look up many addresses (far more
   * than the cache has slots, so slots get evicted and reused) forwards, then
   * again backwards, and compare with the first answers. */
  size_t samples = n < 20000 ? n : 20000;
  struct asmspy_symbol *first = calloc(samples, sizeof(*first));
  if (!first) {
    CHECK(0, "out of memory");
    return;
  }
  for (size_t i = 0; i < samples; i++)
    symtab_lookup(t, symtab_at(t, i * (n / samples))->start + 1, &first[i]);
  size_t mismatches = 0;
  for (size_t k = samples; k-- > 0;) {
    struct asmspy_symbol again;
    symtab_lookup(t, symtab_at(t, k * (n / samples))->start + 1, &again);
    if (again.name != first[k].name || again.offset != first[k].offset ||
        again.kind != first[k].kind)
      mismatches++;
  }
  CHECK(mismatches == 0, "%zu cached answers differ", mismatches);
  free(first);

  struct asmspy_symbol sym;
  symtab_lookup(t, 0x10, &sym);
  CHECK(sym.kind == ASMSPY_SYM_UNKNOWN && sym.name == NULL && strcmp(sym.module, "?") == 0,
        "address 0x10: kind %u name %s module %s", sym.kind, str_or_null(sym.name),
        str_or_null(sym.module));
  CHECK(symtab_find_name(t, "no_such_function_anywhere_42") == NULL, "found a ghost");
}

/* ------------------------------------------------------------------------- */
/* Perf-map                                                                   */
/* ------------------------------------------------------------------------- */

static char perfmap_path[64];

static bool write_perfmap(const char *path, const char *body) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  fputs(body, f);
  return fclose(f) == 0;
}

static void expect_jit_ignored(struct asmspy_symtab *t, uint64_t jit_page, const char *why) {
  CHECK(symtab_reload(t) == 0, "reload (%s): %s", why, strerror(errno));
  struct asmspy_symbol sym;
  symtab_lookup(t, jit_page + 3, &sym);
  CHECK(sym.kind == ASMSPY_SYM_UNKNOWN && sym.name == NULL,
        "perf-map that is %s was used: %s kind %u", why, str_or_null(sym.name), sym.kind);
}

static void test_perfmap(struct asmspy_symtab *t) {
  snprintf(perfmap_path, sizeof(perfmap_path), "/tmp/perf-%d.map", (int)getpid());
  unlink(perfmap_path);
  /* Anonymous executable memory: what a JIT hands out. */
  void *page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    note("SKIP perf-map tests: anonymous PROT_EXEC mmap failed: %s", strerror(errno));
    return;
  }
  uint64_t jit_page = (uint64_t)(uintptr_t)page;

  CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));
  struct asmspy_symbol sym;
  symtab_lookup(t, jit_page + 3, &sym);
  CHECK(sym.kind == ASMSPY_SYM_UNKNOWN && sym.name == NULL && strcmp(sym.module, "?") == 0,
        "anonymous page without perf-map: %s kind %u module %s", str_or_null(sym.name), sym.kind,
        str_or_null(sym.module));

  char body[512];
  snprintf(body, sizeof(body),
           "%" PRIx64 " 40 jit_fn_one\n"
           "0x%" PRIx64 " 20 Lambda with spaces (x, y)\n"
           "garbage line\n"
           "%" PRIx64 " 0 zero_sized_ignored\n",
           jit_page, jit_page + 0x40, jit_page + 0x80);
  CHECK(write_perfmap(perfmap_path, body), "write %s", perfmap_path);
  CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));

  symtab_lookup(t, jit_page + 3, &sym);
  CHECK(sym.kind == ASMSPY_SYM_JIT && sym.name && strcmp(sym.name, "jit_fn_one") == 0 &&
            sym.offset == 3 && strcmp(sym.module, "[jit]") == 0,
        "perf-map entry: %s+%" PRIu64 " kind %u module %s", str_or_null(sym.name), sym.offset,
        sym.kind, str_or_null(sym.module));
  const char *first_name = sym.name;
  symtab_lookup(t, jit_page + 0x45, &sym);
  CHECK(sym.kind == ASMSPY_SYM_JIT && sym.name &&
            strcmp(sym.name, "Lambda with spaces (x, y)") == 0 && sym.offset == 5,
        "name with spaces: %s+%" PRIu64, str_or_null(sym.name), sym.offset);
  symtab_lookup(t, jit_page + 0x80, &sym);
  CHECK(sym.kind == ASMSPY_SYM_UNKNOWN, "size-0 perf-map entry used: %s", str_or_null(sym.name));
  const struct symtab_entry *e = symtab_find_name(t, "jit_fn_one");
  CHECK(e && e->start == jit_page && e->kind == ASMSPY_SYM_JIT, "find_name jit_fn_one");

  /* A running JIT appends: a miss re-reads the file, but at most once per
   * second. Wait out the rate limit, then the new entry must be found. */
  snprintf(body, sizeof(body),
           "%" PRIx64 " 40 jit_fn_one\n"
           "%" PRIx64 " 20 Lambda with spaces (x, y)\n"
           "%" PRIx64 " 10 jit_fn_late\n",
           jit_page, jit_page + 0x40, jit_page + 0x100);
  CHECK(write_perfmap(perfmap_path, body), "rewrite %s", perfmap_path);
  usleep(1100 * 1000);
  symtab_lookup(t, jit_page + 0x104, &sym);
  CHECK(sym.kind == ASMSPY_SYM_JIT && sym.name && strcmp(sym.name, "jit_fn_late") == 0,
        "re-read on miss: %s kind %u", str_or_null(sym.name), sym.kind);
  /* Names handed out before the re-read must still be readable. */
  CHECK(strcmp(first_name, "jit_fn_one") == 0, "old JIT name pointer clobbered");
  symtab_lookup(t, jit_page + 3, &sym);
  CHECK(sym.name && strcmp(sym.name, "jit_fn_one") == 0, "after re-read: %s",
        str_or_null(sym.name));

  /* An ELF symbol always wins over a perf-map entry at the same address. */
  uint64_t fn = (uint64_t)(uintptr_t)&victim_marker_fn;
  snprintf(body, sizeof(body), "%" PRIx64 " 10 fake_over_elf\n", fn);
  CHECK(write_perfmap(perfmap_path, body), "rewrite %s", perfmap_path);
  CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));
  symtab_lookup(t, fn, &sym);
  CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0, "perf-map overrode ELF: %s",
        str_or_null(sym.name));

  /* Untrusted forms of the file are ignored. */
  char real_path[128];
  snprintf(real_path, sizeof(real_path), "/tmp/asmspy-test-perfmap-%d.real", (int)getpid());
  snprintf(body, sizeof(body), "%" PRIx64 " 40 jit_via_symlink\n", jit_page);
  CHECK(write_perfmap(real_path, body), "write %s", real_path);
  unlink(perfmap_path);
  if (symlink(real_path, perfmap_path) == 0)
    expect_jit_ignored(t, jit_page, "a symlink");
  else
    CHECK(0, "symlink: %s", strerror(errno));
  unlink(perfmap_path);
  unlink(real_path);

  if (mkdir(perfmap_path, 0700) == 0) {
    expect_jit_ignored(t, jit_page, "a directory");
    rmdir(perfmap_path);
  }
  if (mkfifo(perfmap_path, 0600) == 0) {
    expect_jit_ignored(t, jit_page, "a FIFO"); /* and must not block */
    unlink(perfmap_path);
  }
  if (geteuid() == 0) {
    snprintf(body, sizeof(body), "%" PRIx64 " 40 jit_foreign_owner\n", jit_page);
    CHECK(write_perfmap(perfmap_path, body), "write %s", perfmap_path);
    if (chown(perfmap_path, 65534, 65534) == 0)
      expect_jit_ignored(t, jit_page, "owned by another uid");
    unlink(perfmap_path);
  } else {
    note("not root: foreign-owner perf-map not tested");
  }
  unlink(perfmap_path);
  munmap(page, 4096);
  CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));
}

/* ------------------------------------------------------------------------- */
/* Hostile ELF files                                                          */
/* ------------------------------------------------------------------------- */

struct mapped_file {
  char path[PATH_MAX];
  void *addr;
  size_t len;
};

static unsigned char *read_whole_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      unsigned char *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  fclose(f);
  *len = n;
  return buf;
}

static bool write_file(const char *path, const void *buf, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = write(fd, buf, len) == (ssize_t)len;
  return close(fd) == 0 && ok;
}

static uint64_t xorshift_state;
static uint64_t next_random(void) {
  xorshift_state ^= xorshift_state << 13;
  xorshift_state ^= xorshift_state >> 7;
  xorshift_state ^= xorshift_state << 17;
  return xorshift_state;
}

/* Section header i of an ELF64 image, or NULL when it is not inside len. */
static Elf64_Shdr *section_header(unsigned char *image, size_t len, size_t i) {
  Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
  if (eh->e_shoff >= len || i >= eh->e_shnum || (len - eh->e_shoff) / sizeof(Elf64_Shdr) <= i)
    return NULL;
  return (Elf64_Shdr *)(image + eh->e_shoff) + i;
}

static const char *section_name(unsigned char *image, size_t len, const Elf64_Shdr *sh) {
  Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
  Elf64_Shdr *strtab = section_header(image, len, eh->e_shstrndx);
  if (!strtab || strtab->sh_offset >= len || sh->sh_name >= len - strtab->sh_offset) return "";
  const char *name = (const char *)image + strtab->sh_offset + sh->sh_name;
  return memchr(name, '\0', len - strtab->sh_offset - sh->sh_name) ? name : "";
}

/* Variants of a valid ELF, each aimed at a check in symbols.c or libelf. */
enum corruption {
  CORRUPT_TRUNCATE_HALF,
  CORRUPT_SHOFF_NEAR_END,
  CORRUPT_SHOFF_HUGE,
  CORRUPT_SHNUM_SHSTRNDX,
  CORRUPT_RELA_LINKS,    /* .rela.* sh_link out of range */
  CORRUPT_RELA_SYMBOLS,  /* every relocation's symbol index huge */
  CORRUPT_SECTION_SIZES, /* every sh_size huge, sh_offset past the end */
  CORRUPT_SYMBOL_TABLES, /* .symtab/.dynsym: st_name huge, wild st_value/st_size */
  CORRUPT_PLT_ADDRESSES, /* PLT sections at addresses that overflow with the bias */
  CORRUPT_COUNT
};

static const char *corruption_name[CORRUPT_COUNT] = {
    "truncated_half", "shoff_near_end", "shoff_huge",    "shnum_shstrndx", "rela_links",
    "rela_symbols",   "section_sizes",  "symbol_tables", "plt_addresses"};

static size_t corrupt(unsigned char *image, size_t len, enum corruption what) {
  Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
  size_t shnum = eh->e_shnum;
  switch (what) {
  case CORRUPT_TRUNCATE_HALF: return len / 2;
  case CORRUPT_SHOFF_NEAR_END: eh->e_shoff = len - 10; return len;
  case CORRUPT_SHOFF_HUGE: eh->e_shoff = 0xfffffffffffff000ull; return len;
  case CORRUPT_SHNUM_SHSTRNDX:
    eh->e_shnum = 0xffff;
    eh->e_shstrndx = 0xfffe;
    return len;
  default: break;
  }
  /* Collect names first: corrupting a header may break name lookups. */
  for (size_t i = 0; i < shnum; i++) {
    Elf64_Shdr *sh = section_header(image, len, i);
    if (!sh) break;
    const char *name = section_name(image, len, sh);
    bool in_file =
        sh->sh_type != SHT_NOBITS && sh->sh_offset < len && sh->sh_size <= len - sh->sh_offset;
    switch (what) {
    case CORRUPT_RELA_LINKS:
      if (sh->sh_type == SHT_RELA) sh->sh_link = 0x7fff;
      break;
    case CORRUPT_RELA_SYMBOLS:
      if (sh->sh_type == SHT_RELA && in_file)
        for (size_t off = 0; off + sizeof(Elf64_Rela) <= sh->sh_size; off += sizeof(Elf64_Rela)) {
          Elf64_Rela *r = (Elf64_Rela *)(image + sh->sh_offset + off);
          r->r_info = ELF64_R_INFO(0xfffffffu, ELF64_R_TYPE(r->r_info));
        }
      break;
    case CORRUPT_SECTION_SIZES:
      if (i) {
        sh->sh_size = 0x7fffffffffffull;
        sh->sh_offset = len + 4096;
      }
      break;
    case CORRUPT_SYMBOL_TABLES:
      if ((sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM) && in_file) {
        for (size_t off = sizeof(Elf64_Sym); off + sizeof(Elf64_Sym) <= sh->sh_size;
             off += sizeof(Elf64_Sym)) {
          Elf64_Sym *s = (Elf64_Sym *)(image + sh->sh_offset + off);
          if ((off / sizeof(Elf64_Sym)) % 2) s->st_name = 0xfffffff0u;
          s->st_value = next_random();
          s->st_size = next_random();
        }
        sh->sh_link = (Elf64_Word)i; /* strtab = itself */
      }
      break;
    case CORRUPT_PLT_ADDRESSES:
      if (strncmp(name, ".plt", 4) == 0) {
        sh->sh_addr = 0xffffffffffffff00ull;
        sh->sh_entsize = 3;
      }
      break;
    default: break;
    }
  }
  return len;
}

static void fuzz(unsigned char *image, size_t len, unsigned seed) {
  xorshift_state = 0x9E3779B97F4A7C15ull * (seed + 1);
  Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
  size_t flips = 16 + next_random() % 64;
  for (size_t k = 0; k < flips; k++) {
    size_t where;
    uint64_t r = next_random();
    if (r % 3 == 0 && eh->e_shoff < len) /* section header table */
      where = eh->e_shoff + (next_random() % (len - eh->e_shoff));
    else if (r % 3 == 1) /* ELF and program headers */
      where = next_random() % (len < 4096 ? len : 4096);
    else
      where = next_random() % len;
    image[where] ^= (unsigned char)(1u << (next_random() % 8));
  }
}

static int map_hostile(const char *dir, const char *name, const unsigned char *buf, size_t len,
                       struct mapped_file *out) {
  snprintf(out->path, sizeof(out->path), "%s/%s", dir, name);
  if (!write_file(out->path, buf, len)) return -1;
  int fd = open(out->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  /* PROT_EXEC so /proc/self/maps lists it as code and libdw reports it. */
  out->addr = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (out->addr == MAP_FAILED) {
    errno = saved;
    return -1;
  }
  out->len = len;
  return 0;
}

#ifndef FUZZ_VARIANTS
#define FUZZ_VARIANTS 32 /* more: -DFUZZ_VARIANTS=1000 for a longer stress run */
#endif

static void test_hostile_elf(void) {
  /* valgrind (3.19) reads debug info of every PROT_EXEC file mapping itself
   * and asserts on these files, so it cannot run this part. */
  if (getenv("ASMSPY_TEST_NO_HOSTILE_ELF")) {
    note("SKIP hostile ELF tests (ASMSPY_TEST_NO_HOSTILE_ELF set)");
    return;
  }
  size_t len;
  unsigned char *original = read_whole_file(self_exe, &len);
  if (!original || len < sizeof(Elf64_Ehdr) || memcmp(original, ELFMAG, SELFMAG) != 0 ||
      original[EI_CLASS] != ELFCLASS64) {
    CHECK(0, "cannot read own executable %s as ELF64", self_exe);
    free(original);
    return;
  }
  unsigned char *image = malloc(len);
  if (!image) {
    free(original);
    CHECK(0, "out of memory");
    return;
  }

  /* A scratch dir where PROT_EXEC mappings are allowed: /tmp may be noexec. */
  const char *candidates[] = {getenv("TMPDIR"), "/tmp", "/var/tmp", "."};
  char dir[PATH_MAX] = "";
  struct mapped_file *files = calloc(CORRUPT_COUNT + FUZZ_VARIANTS + 1, sizeof(*files));
  size_t n_files = 0;
  if (!files) {
    CHECK(0, "out of memory");
    free(image);
    free(original);
    return;
  }
  for (size_t c = 0; c < sizeof(candidates) / sizeof(candidates[0]) && n_files == 0; c++) {
    if (!candidates[c]) continue;
    snprintf(dir, sizeof(dir), "%s/asmspy-test-symbols-XXXXXX", candidates[c]);
    if (!mkdtemp(dir)) continue;
    memcpy(image, original, len);
    if (map_hostile(dir, "probe.elf", image, len, &files[0]) == 0) {
      n_files = 1;
      break;
    }
    unlink(files[0].path);
    rmdir(dir);
  }
  if (n_files == 0) {
    note("SKIP hostile ELF tests: no directory allows PROT_EXEC file mappings");
    free(files);
    free(image);
    free(original);
    return;
  }

  /* A table loaded before the hostile files are mapped meets them through
   * the maps re-read a miss triggers (the late-module path). */
  struct asmspy_symtab *early = symtab_load(getpid());
  CHECK(early != NULL, "symtab_load before the hostile ELFs: %s", strerror(errno));

  for (int what = 0; what < CORRUPT_COUNT; what++) {
    memcpy(image, original, len);
    xorshift_state = 0x1234567 + (uint64_t)what;
    size_t out_len = corrupt(image, len, (enum corruption)what);
    char name[64];
    snprintf(name, sizeof(name), "%s.elf", corruption_name[what]);
    if (map_hostile(dir, name, image, out_len, &files[n_files]) == 0)
      n_files++;
    else
      CHECK(0, "map %s: %s", name, strerror(errno));
  }
  for (unsigned seed = 0; seed < FUZZ_VARIANTS; seed++) {
    memcpy(image, original, len);
    fuzz(image, len, seed);
    char name[64];
    snprintf(name, sizeof(name), "fuzz_%02u.elf", seed);
    if (map_hostile(dir, name, image, len, &files[n_files]) == 0)
      n_files++;
    else
      CHECK(0, "map %s: %s", name, strerror(errno));
  }

  struct asmspy_symtab *loaded = symtab_load(getpid());
  CHECK(loaded != NULL, "symtab_load with hostile ELFs mapped: %s", strerror(errno));
  struct asmspy_symtab *tables[2] = {loaded, early};
  for (int which = 0; which < 2; which++) {
    struct asmspy_symtab *t = tables[which];
    if (!t) continue;
    /* Every lookup inside a hostile mapping names that file (a symbol of its
     * own, or UNKNOWN with the mapping's basename) — never another module. */
    size_t wrong_module = 0;
    for (size_t i = 0; i < n_files; i++) {
      for (size_t off = 0; off < files[i].len; off += 97) {
        struct asmspy_symbol sym;
        symtab_lookup(t, (uint64_t)(uintptr_t)files[i].addr + off, &sym);
        if (!sym.module || strcmp(sym.module, path_basename(files[i].path)) != 0) {
          if (wrong_module++ < 5)
            printf("# %s+0x%zx -> %s in %s\n", path_basename(files[i].path), off,
                   str_or_null(sym.name), str_or_null(sym.module));
        }
      }
    }
    CHECK(wrong_module == 0, "%zu lookups in hostile mappings named another module (%s)",
          wrong_module, which ? "table loaded before" : "table loaded after");
    /* The real executable is still symbolized correctly next to them. */
    struct asmspy_symbol sym;
    symtab_lookup(t, (uint64_t)(uintptr_t)&victim_marker_fn, &sym);
    CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0, "own symbol lost: %s",
          str_or_null(sym.name));
    CHECK(symtab_reload(t) == 0, "reload with hostile ELFs: %s", strerror(errno));
    symtab_free(t);
  }
  note("%zu hostile ELF mappings survived", n_files);

  for (size_t i = 0; i < n_files; i++) {
    munmap(files[i].addr, files[i].len);
    unlink(files[i].path);
  }
  rmdir(dir);
  free(files);
  free(image);
  free(original);
}

/* ------------------------------------------------------------------------- */
/* Modules mapped after the load, second mappings of a file                   */
/* ------------------------------------------------------------------------- */

/* The executable mapping of our own file that holds addr: start, file offset. */
static bool own_text_mapping(uint64_t addr, uint64_t *start, uint64_t *end, uint64_t *offset,
                             uint64_t *lowest) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return false;
  char line[PATH_MAX + 128];
  bool found = false;
  *lowest = UINT64_MAX;
  while (fgets(line, sizeof(line), f)) {
    unsigned long long s, e, o;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &o, &name_at) < 4) continue;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = '\0';
    if (strcmp(name, self_exe) != 0) continue;
    if (s < *lowest) *lowest = s;
    if (!found && addr >= s && addr < e && strchr(perms, 'x')) {
      *start = s;
      *end = e;
      *offset = o;
      found = true;
    }
  }
  fclose(f);
  return found;
}

static void expect_copy_named(struct asmspy_symtab *t, uint64_t copy_fn, const char *where) {
  struct asmspy_symbol sym;
  symtab_lookup(t, copy_fn + 2, &sym);
  CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0 && sym.offset == 2 &&
            sym.start == copy_fn && sym.kind == ASMSPY_SYM_INTERNAL && sym.module &&
            strcmp(sym.module, path_basename(self_exe)) == 0,
        "%s: copy of victim_marker_fn+2 -> %s+%" PRIu64 " start 0x%" PRIx64 " (want 0x%" PRIx64
        ") module %s",
        where, str_or_null(sym.name), sym.offset, sym.start, copy_fn, str_or_null(sym.module));
  /* the original is unaffected */
  uint64_t fn = (uint64_t)(uintptr_t)&victim_marker_fn;
  symtab_lookup(t, fn + 2, &sym);
  CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0 && sym.start == fn,
        "%s: original -> %s start 0x%" PRIx64, where, str_or_null(sym.name), sym.start);
}

/* Map our own text a second time (high: where mmap likes; low: below every
 * mapping of the executable, so the copy is the file's first line in maps). */
static void test_second_mapping(void) {
  uint64_t fn = (uint64_t)(uintptr_t)&victim_marker_fn;
  uint64_t start, end, offset, lowest;
  if (!own_text_mapping(fn, &start, &end, &offset, &lowest)) {
    CHECK(0, "no executable mapping of %s holds victim_marker_fn", self_exe);
    return;
  }
  int fd = open(self_exe, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    CHECK(0, "open %s: %s", self_exe, strerror(errno));
    return;
  }
  size_t len = (size_t)(end - start);
  for (int low = 0; low < 2; low++) {
    const char *where = low ? "copy below the executable" : "copy in the mmap area";
    struct asmspy_symtab *t = symtab_load(getpid());
    CHECK(t != NULL, "load: %s", strerror(errno));
    if (!t) break;
    void *hint = low ? (void *)(uintptr_t)((lowest - (1ull << 30)) & ~0xfffull) : NULL;
    void *copy = mmap(hint, len, PROT_READ | PROT_EXEC,
                      MAP_PRIVATE | (low ? MAP_FIXED_NOREPLACE : 0), fd, (off_t)offset);
    if (copy == MAP_FAILED) {
      note("SKIP %s: mmap: %s", where, strerror(errno));
      symtab_free(t);
      continue;
    }
    uint64_t copy_fn = (uint64_t)(uintptr_t)copy + (fn - start);
    /* Mapped after the load: found through the re-read on the miss. */
    struct symtab_stats before, after;
    symtab_get_stats(t, &before);
    uint64_t generation = symtab_generation(t);
    expect_copy_named(t, copy_fn, where);
    symtab_get_stats(t, &after);
    CHECK(after.maps_reads == before.maps_reads + 1, "%s: %" PRIu64 " maps re-reads, want 1", where,
          after.maps_reads - before.maps_reads);
    CHECK(symtab_generation(t) != generation, "%s: generation did not move", where);
    /* Present at load time. */
    CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));
    expect_copy_named(t, copy_fn, where);
    test_own_function(t);
    symtab_free(t);
    munmap(copy, len);
  }
  close(fd);
}

/* A library that is not loaded yet, and a function it exports (not an
 * ifunc: its address must be a symbol of the file's .dynsym). */
static void *open_new_library(const char **lib_name, const char **fn_name, void **fn) {
  static const char *const candidates[][2] = {{"libm.so.6", "cbrt"},
                                              {"libcrypt.so.1", "crypt"},
                                              {"libutil.so.1", "openpty"},
                                              {"libgmp.so.10", "__gmpz_init"}};
  for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
    void *already = dlopen(candidates[i][0], RTLD_NOW | RTLD_NOLOAD);
    if (already) {
      dlclose(already);
      continue;
    }
    void *lib = dlopen(candidates[i][0], RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    *fn = dlsym(lib, candidates[i][1]);
    if (*fn) {
      *lib_name = candidates[i][0];
      *fn_name = candidates[i][1];
      return lib;
    }
    dlclose(lib);
  }
  return NULL;
}

static void test_late_library(void) {
  struct asmspy_symtab *t = symtab_load(getpid());
  CHECK(t != NULL, "load: %s", strerror(errno));
  if (!t) return;

  /* Misses /proc/<pid>/maps cannot explain back off: after 1, 2, 4, ...,
   * 256 (symbols.c's MAPS_BACKOFF_MAX) further misses, so 10000 lookups of
   * unmapped addresses re-read it ~46 times, not 10000. */
  struct symtab_stats s0, s1;
  symtab_get_stats(t, &s0);
  for (uint64_t i = 0; i < 10000; i++) {
    struct asmspy_symbol sym;
    symtab_lookup(t, 0x1000 + (i % 50) * 16, &sym);
    if (sym.kind != ASMSPY_SYM_UNKNOWN) {
      CHECK(0, "unmapped 0x%" PRIx64 " named %s", 0x1000 + (i % 50) * 16, str_or_null(sym.name));
      break;
    }
  }
  symtab_get_stats(t, &s1);
  CHECK(s1.maps_reads - s0.maps_reads >= 1 && s1.maps_reads - s0.maps_reads <= 10000 / 128,
        "%" PRIu64 " maps re-reads for 10000 unexplained misses", s1.maps_reads - s0.maps_reads);
  CHECK(s1.module_syncs == s0.module_syncs, "modules re-synced %" PRIu64 " times, maps unchanged",
        s1.module_syncs - s0.module_syncs);
  note("10000 unexplained misses: %" PRIu64 " maps re-reads", s1.maps_reads - s0.maps_reads);

  const char *lib_name = NULL, *fn_name = NULL;
  void *fn = NULL;
  void *lib = open_new_library(&lib_name, &fn_name, &fn);
  if (!lib) {
    note("SKIP late library: no candidate library is both absent and loadable");
    symtab_free(t);
    return;
  }
  /* Right after that run of misses the backoff is at its maximum: the new
   * library is found within MAPS_BACKOFF_MAX (256) misses in it. */
  Dl_info info;
  memset(&info, 0, sizeof(info));
  CHECK(dladdr(fn, &info) != 0, "dladdr on the new library's function");
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof(sym));
  int tries = 0;
  for (; tries <= 5000; tries++) {
    symtab_lookup(t, (uint64_t)(uintptr_t)fn, &sym);
    if (sym.kind != ASMSPY_SYM_UNKNOWN) break;
  }
  char real[PATH_MAX];
  const char *want_module = info.dli_fname && realpath(info.dli_fname, real)
                                ? path_basename(real)
                                : str_or_null(info.dli_fname);
  /* the name asked for, or the alias dladdr picks (cbrtf64 for cbrt) */
  CHECK(sym.name &&
            (strcmp(sym.name, fn_name) == 0 ||
             (info.dli_sname && strcmp(sym.name, info.dli_sname) == 0)) &&
            sym.offset == 0 && sym.module && strcmp(sym.module, want_module) == 0 &&
            sym.kind == ASMSPY_SYM_EXTERNAL,
        "%s after dlopen: %s+%" PRIu64 " [%s] kind %u, want %s [%s]", lib_name,
        str_or_null(sym.name), sym.offset, str_or_null(sym.module), sym.kind, fn_name, want_module);
  CHECK(tries <= 256, "found only after %d lookups", tries + 1);
  note("%s: %s found after %d lookup(s)", lib_name, str_or_null(sym.name), tries + 1);

  /* A fresh table whose backoff is untouched finds a library mapped after its
   * load on the very first miss. */
  dlclose(lib);
  symtab_free(t);
  t = symtab_load(getpid());
  lib = open_new_library(&lib_name, &fn_name, &fn);
  if (t && lib) {
    symtab_lookup(t, (uint64_t)(uintptr_t)fn + 1, &sym);
    CHECK(sym.name && sym.offset == 1 && sym.kind == ASMSPY_SYM_EXTERNAL,
          "first miss after dlopen(%s): %s+%" PRIu64 " kind %u", lib_name, str_or_null(sym.name),
          sym.offset, sym.kind);
  }
  if (lib) dlclose(lib);
  symtab_free(t);
}

/* ------------------------------------------------------------------------- */
/* Other processes                                                            */
/* ------------------------------------------------------------------------- */

static void test_missing_pid(void) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  CHECK(child > 0, "fork: %s", strerror(errno));
  if (child <= 0) return;
  waitpid(child, NULL, 0);
  errno = 0;
  struct asmspy_symtab *t = symtab_load(child); /* reaped: no such process */
  CHECK(t == NULL && errno == ESRCH, "dead pid: table %p errno %d", (void *)t, errno);
  symtab_free(t);
  errno = 0;
  t = symtab_load(-1);
  CHECK(t == NULL && errno == ESRCH, "pid -1: errno %d", errno);
  symtab_free(t);
}

/* A forked copy has the same layout: its table must agree with ours. */
static void test_other_process(void) {
  int ready[2];
  if (pipe(ready) != 0) {
    CHECK(0, "pipe: %s", strerror(errno));
    return;
  }
  pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  CHECK(child > 0, "fork: %s", strerror(errno));
  if (child <= 0) {
    close(ready[0]);
    return;
  }
  char c;
  (void)!read(ready[0], &c, 1);
  close(ready[0]);

  struct asmspy_symtab *t = symtab_load(child);
  CHECK(t != NULL, "load child %d: %s", (int)child, strerror(errno));
  if (t) {
    struct asmspy_symbol sym;
    symtab_lookup(t, (uint64_t)(uintptr_t)&victim_marker_fn + 2, &sym);
    CHECK(sym.name && strcmp(sym.name, "victim_marker_fn") == 0 && sym.offset == 2,
          "child: %s+%" PRIu64, str_or_null(sym.name), sym.offset);
    /* INTERNAL means "in the module /proc/<pid>/exe names". Under valgrind the
     * child's exe is the valgrind tool, not this program. */
    char exe_link[64], child_exe[PATH_MAX];
    snprintf(exe_link, sizeof(exe_link), "/proc/%d/exe", (int)child);
    ssize_t len = readlink(exe_link, child_exe, sizeof(child_exe) - 1);
    child_exe[len > 0 ? len : 0] = '\0';
    bool child_exe_is_us = strcmp(child_exe, self_exe) == 0;
    CHECK(sym.kind == (child_exe_is_us ? ASMSPY_SYM_INTERNAL : ASMSPY_SYM_EXTERNAL),
          "child: kind %u (child exe %s)", sym.kind, child_exe);
    CHECK(strcmp(symtab_main_module(t), path_basename(child_exe)) == 0,
          "child: main module %s, exe %s", symtab_main_module(t), child_exe);
    CHECK(symtab_find_name(t, "puts@plt") != NULL, "child: no puts@plt");
    symtab_free(t);
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
}

int main(void) {
  ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
  if (n <= 0) {
    printf("FAIL cannot readlink /proc/self/exe: %s\n", strerror(errno));
    return 1;
  }
  self_exe[n] = '\0';
  setvbuf(stdout, NULL, _IOLBF, 0);

  struct asmspy_symtab *t = symtab_load(getpid());
  if (!t) {
    printf("FAIL symtab_load(self): %s\n", strerror(errno));
    return 1;
  }
  note("%zu symbols; main module %s", symtab_count(t), symtab_main_module(t));
  test_own_function(t);
  test_external_function(t);
  test_plt(t);
  test_table_invariants(t);
  test_perfmap(t);
  CHECK(symtab_reload(t) == 0, "reload: %s", strerror(errno));
  test_own_function(t);
  symtab_free(t);

  test_hostile_elf();
  test_second_mapping();
  test_late_library();
  test_missing_pid();
  test_other_process();

  if (failures) {
    printf("%d check(s) FAILED\n", failures);
    return 1;
  }
  printf("all symbol checks passed\n");
  return victim_marker_fn(0);
}
