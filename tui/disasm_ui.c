/* disasm_ui: Capstone on the UI thread (see disasm_ui.h). */
#define _GNU_SOURCE
#include "tui/disasm_ui.h"

#include "common/strbuf.h"
#include "asmspy-internal/app_api.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static csh handle;
static int ready = -1;
static struct asmspy_symtab *table; /* the UI thread's own, for one pid */
static pid_t table_pid;

static int cs_ready(void) {
  if (ready >= 0) return ready;
#if defined(__x86_64__)
  ready = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK;
  if (ready) cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
#elif defined(__aarch64__)
  ready = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &handle) == CS_ERR_OK;
#else
  ready = 0;
#endif
  return ready;
}

void tui_disasm_close(void) {
  if (ready == 1) cs_close(&handle);
  ready = -1;
  if (table) symtab_free(table);
  table = NULL;
}

static ssize_t read_target(pid_t pid, uint64_t addr, uint8_t *buf, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = pread(fd, buf, len, (off_t)addr);
  int e = errno;
  close(fd);
  return n < 0 ? -e : n;
}

/* The bytes the file mapped at addr holds there: what the code was before
 * anyone wrote into it (asmspy's own entry patches: the call backend's
 * `jmp stub` at each patched function while a call mode runs). Read
 * through /proc/<pid>/map_files (the very file mapped, even when replaced
 * on disk), else its path under /proc/<pid>/root. The length read, 0 when
 * addr is not in an executable file mapping, -errno. */
static ssize_t read_original(pid_t pid, uint64_t addr, uint8_t *buf, size_t len) {
  char path[96];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -errno;
  char line[1024], file[600] = "";
  uint64_t lo = 0, hi = 0, off = 0;
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char perms[8];
    int at = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms, &off,
               &at) < 4 ||
        !at)
      continue;
    if (addr < lo || addr >= hi || !strchr(perms, 'x')) continue;
    char *p = line + at;
    p[strcspn(p, "\n")] = '\0';
    if (p[0] != '/') break; /* anonymous or JIT code: only memory has it */
    snprintf(file, sizeof file, "%s", p);
    found = 1;
  }
  fclose(f);
  if (!found) return 0;
  if (addr + len > hi) len = (size_t)(hi - addr);
  snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, lo, hi);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    char alt[700];
    snprintf(alt, sizeof alt, "/proc/%d/root%s", (int)pid, file);
    fd = open(alt, O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return -errno;
  ssize_t n = pread(fd, buf, len, (off_t)(addr - lo + off));
  int e = errno;
  close(fd);
  return n < 0 ? -e : n;
}

static void lookup(pid_t pid, uint64_t addr, struct asmspy_symbol *sym) {
  if (!table || table_pid != pid) {
    if (table) symtab_free(table);
    table = symtab_load(pid);
    table_pid = pid;
  }
  memset(sym, 0, sizeof *sym);
  ASMSPY_INIT_HEADER(sym);
  if (table) symtab_lookup(table, addr, sym);
}

int tui_function_at(pid_t pid, uint64_t addr, uint64_t *start, const char **name) {
  struct asmspy_symbol sym;
  lookup(pid, addr, &sym);
  if (!sym.name || !sym.size || sym.kind == ASMSPY_SYM_UNKNOWN) return 0;
  *start = sym.start;
  *name = sym.name;
  return 1;
}

char *tui_disasm_function(pid_t pid, uint64_t addr) {
  struct strbuf b = {0};
  struct asmspy_symbol sym;
  lookup(pid, addr, &sym);
  uint64_t start = sym.name ? sym.start : addr;
  uint64_t size = sym.name && sym.size ? sym.size : 64; /* unsized: a first look */
  if (size > TUI_DISASM_MAX_BYTES) size = TUI_DISASM_MAX_BYTES;
  strbuf_addf(&b, "%s [%s] @ 0x%" PRIx64 ", %" PRIu64 " bytes (read live from pid %d)",
              sym.name ? sym.name : "?", sym.module ? sym.module : "?", start, size, (int)pid);
  uint8_t *bytes = malloc(size), *orig = malloc(size);
  ssize_t got = bytes ? read_target(pid, start, bytes, size) : -ENOMEM;
  /* memory may hold asmspy's own patches (a call mode's entry jumps): the
   * file's bytes are the program's code; where they differ, they are shown */
  ssize_t ogot = orig && got > 0 ? read_original(pid, start, orig, (size_t)got) : 0;
  if (ogot == got && got > 0 && memcmp(orig, bytes, (size_t)got) != 0) {
    size_t diff = 0;
    for (ssize_t i = 0; i < got; i++) diff += orig[i] != bytes[i];
    strbuf_addf(&b,
                "\n  original code (%zu byte%s differ in memory: a patch; these are the file's)",
                diff, diff == 1 ? "" : "s");
    memcpy(bytes, orig, (size_t)got);
  }
  free(orig);
  if (got <= 0) {
    strbuf_addf(&b, "\n  cannot read the target's memory: %s", strerror(got < 0 ? (int)-got : EIO));
  } else if (!cs_ready()) {
    strbuf_addf(&b, "\n  no disassembler for this architecture");
  } else {
    const uint8_t *code = bytes;
    size_t left = (size_t)got;
    uint64_t at = start;
    cs_insn *insn = cs_malloc(handle);
    while (insn && left && cs_disasm_iter(handle, &code, &left, &at, insn))
      strbuf_addf(&b, "\n  +0x%-5" PRIx64 " %s %s", insn->address - start, insn->mnemonic,
                  insn->op_str);
    if (left) strbuf_addf(&b, "\n  (%zu bytes do not decode)", left);
    if (insn) cs_free(insn, 1);
  }
  free(bytes);
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s ? b.s : strdup("");
}
