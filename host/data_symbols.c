/* Data address arguments of --watch (host service resolve_data):
 *   sym        a data symbol (STT_OBJECT / STT_COMMON) of any mapped module
 *   sym+off    bytes inside it (off base 0: +8 or +0x8)
 *   0xADDR     a raw address (must be mapped in the target)
 *   0xADDR+off the same, offset
 *
 * The function symbol table (symbols.c) keeps functions only, so data
 * symbols are looked up here, on demand, through libdwfl's view of the
 * process (every ELF mapped into the pid at its load bias, .symtab or
 * .dynsym): one lookup per --watch, nothing cached.
 *
 * Which definition wins when several modules define the name: the main
 * executable's (a copy relocation puts a library's exported variable there,
 * and the library's own code then uses that copy), then a global over a
 * weak over a local one.
 *
 * Refused with a one-line reason (-ASMSPY_E_USAGE): a function ("main is a
 * function, not data"); a thread-local variable (STT_TLS: its value is an
 * offset in each thread's TLS block, so there is no one address to watch);
 * an offset past the end of the symbol; an address that is not mapped.
 */
#define _GNU_SOURCE
#include "host/host.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-' || *s == '+') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* 1 when addr lies in one of pid's mappings (/proc/<pid>/maps). */
static int address_mapped(pid_t pid, uint64_t addr) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long long lo, hi;
    if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi) found = 1;
  }
  fclose(f);
  return found;
}

struct data_lookup {
  const char *name;
  char exe[PATH_MAX];
  /* the best data definition so far */
  int have_data, data_rank, data_tls;
  uint64_t data_addr, data_size;
  char data_module[128];
  /* a function of that name exists (for the "is a function" message) */
  int have_func;
};

static int rank_of(int in_exe, unsigned bind) {
  int r = in_exe ? 4 : 0;
  if (bind == STB_GLOBAL)
    r += 2;
  else if (bind == STB_WEAK)
    r += 1;
  return r;
}

static int module_cb(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr start,
                     void *arg) {
  (void)userdata;
  (void)start;
  struct data_lookup *q = arg;
  int in_exe = modname && q->exe[0] && strcmp(modname, q->exe) == 0;
  int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
    if (!name || strcmp(name, q->name) != 0 || shndx == SHN_UNDEF) continue;
    unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
    if (type == STT_FUNC || type == STT_GNU_IFUNC) {
      q->have_func = 1;
      continue;
    }
    if (type != STT_OBJECT && type != STT_COMMON && type != STT_TLS) continue;
    int rank = rank_of(in_exe, bind);
    if (q->have_data && rank <= q->data_rank) continue;
    q->have_data = 1;
    q->data_rank = rank;
    q->data_tls = type == STT_TLS;
    q->data_addr = addr;
    q->data_size = sym.st_size;
    const char *base = modname ? strrchr(modname, '/') : NULL;
    snprintf(q->data_module, sizeof q->data_module, "%s",
             base      ? base + 1
             : modname ? modname
                       : "?");
  }
  return DWARF_CB_OK;
}

static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

/* Every module of pid through cb (libdwfl's view of the process). 0, or
 * -errno when the process's modules cannot be read. */
static int each_module(pid_t pid,
                       int (*cb)(Dwfl_Module *, void **, const char *, Dwarf_Addr, void *),
                       void *arg) {
  Dwfl *dwfl = dwfl_begin(&proc_callbacks);
  if (!dwfl) return -ENOMEM;
  int rc = dwfl_linux_proc_report(dwfl, pid);
  if (rc != 0) {
    dwfl_end(dwfl);
    return rc > 0 ? -rc : -ESRCH;
  }
  if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
    dwfl_end(dwfl);
    return -EIO;
  }
  dwfl_getmodules(dwfl, cb, arg, 0);
  dwfl_end(dwfl);
  return 0;
}

/* Look `name` up in every module of pid. 0, or -errno. */
static int lookup_data(pid_t pid, struct data_lookup *q) {
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(link, q->exe, sizeof q->exe - 1);
  q->exe[n > 0 ? n : 0] = 0;
  return each_module(pid, module_cb, q);
}

struct data_listing {
  data_symbol_fn fn;
  void *ctx;
};

/* Every defined data symbol a name lookup above could answer with an
 * address (TLS has none: left out). */
static int list_cb(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr start,
                   void *arg) {
  (void)userdata;
  (void)start;
  struct data_listing *l = arg;
  const char *base = modname ? strrchr(modname, '/') : NULL;
  base = base ? base + 1 : modname ? modname : "?";
  int n = dwfl_module_getsymtab(mod);
  for (int i = 1; i < n; i++) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
    unsigned type = GELF_ST_TYPE(sym.st_info);
    /* SHN_ABS: version markers (GLIBC_2.2.5), not storage */
    if (!name || !name[0] || shndx == SHN_UNDEF || shndx == SHN_ABS || !addr ||
        (type != STT_OBJECT && type != STT_COMMON))
      continue;
    if (l->fn(l->ctx, name, addr, sym.st_size, base)) return DWARF_CB_ABORT;
  }
  return DWARF_CB_OK;
}

int target_data_symbols(pid_t pid, data_symbol_fn fn, void *ctx) {
  struct data_listing l = {fn, ctx};
  return each_module(pid, list_cb, &l);
}

int target_resolve_data(struct asmspy_target *t, const char *spec, uint64_t *addr, uint64_t *size,
                        char *err, size_t errcap) {
  if (!spec || !*spec) {
    snprintf(err, errcap, "empty address (give a data symbol, sym+off or 0xADDR)");
    return -ASMSPY_E_USAGE;
  }
  pid_t pid = target_pid(t);
  char base[256];
  if (strlen(spec) >= sizeof base) {
    snprintf(err, errcap, "address argument too long");
    return -ASMSPY_E_USAGE;
  }
  snprintf(base, sizeof base, "%s", spec);
  uint64_t off = 0;
  char *plus = strchr(base, '+');
  if (plus) {
    *plus = 0;
    if (!*base || parse_u64(plus + 1, &off) != 0) {
      snprintf(err, errcap, "bad offset in '%s': want sym+OFF or 0xADDR+OFF (OFF like 8 or 0x8)",
               spec);
      return -ASMSPY_E_USAGE;
    }
  }

  if (strncmp(base, "0x", 2) == 0 || strncmp(base, "0X", 2) == 0) {
    uint64_t a;
    if (parse_u64(base, &a) != 0 || a + off < a) {
      snprintf(err, errcap, "bad address '%s'", spec);
      return -ASMSPY_E_USAGE;
    }
    if (!address_mapped(pid, a + off)) {
      snprintf(err, errcap, "0x%" PRIx64 " is not mapped in pid %d (see /proc/%d/maps)", a + off,
               (int)pid, (int)pid);
      return -ASMSPY_E_USAGE;
    }
    *addr = a + off;
    *size = 0;
    return 0;
  }

  struct data_lookup q;
  memset(&q, 0, sizeof q);
  q.name = base;
  int rc = lookup_data(pid, &q);
  if (rc) {
    snprintf(err, errcap, "pid %d: cannot read its modules: %s", (int)pid, strerror(-rc));
    return rc == -ESRCH || rc == -ENOENT ? -ASMSPY_E_ATTACH_GONE : -ASMSPY_E_USAGE;
  }
  if (!q.have_data) {
    if (q.have_func)
      snprintf(err, errcap,
               "%s is a function, not data (watch a variable: a data symbol, "
               "sym+off or 0xADDR)",
               base);
    else
      snprintf(err, errcap, "no data symbol named '%s' in pid %d", base, (int)pid);
    return -ASMSPY_E_USAGE;
  }
  if (q.data_tls) {
    snprintf(err, errcap,
             "%s is thread-local (STT_TLS in %s): every thread has its own copy at its own "
             "address; watch one copy by its 0xADDR",
             base, q.data_module);
    return -ASMSPY_E_USAGE;
  }
  if (q.data_size && off >= q.data_size) {
    snprintf(err, errcap, "%s is past the end of %s (%" PRIu64 " bytes in %s)", spec, base,
             q.data_size, q.data_module);
    return -ASMSPY_E_USAGE;
  }
  *addr = q.data_addr + off;
  *size = q.data_size ? q.data_size - off : 0;
  return 0;
}
