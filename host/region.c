/* Region arguments of --trace / --dataflow (host service resolve_region):
 *   sym            the symbol's extent (a sized function symbol, or name@plt)
 *   0xADDR         the extent of the sized symbol that covers ADDR
 *   0xADDR:LEN     explicit range, no symbol needed (stripped code, JIT)
 *   0xADDR+LEN     the same
 * LEN is base 0 (0x40 or 64). One place, so every mode and --serve agree. */
#include "host/host.h"
#include "host/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int target_resolve_region(struct asmspy_target *t, const char *spec, uint64_t *start, uint64_t *len,
                          char *err, size_t errcap) {
  if (!spec || !*spec) {
    snprintf(err, errcap, "empty region (give a symbol, 0xADDR, 0xADDR:LEN or 0xADDR+LEN)");
    return -ASMSPY_E_USAGE;
  }
  if (strncmp(spec, "0x", 2) == 0 || strncmp(spec, "0X", 2) == 0) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    char *sep = strpbrk(buf, ":+");
    if (sep) {
      *sep = 0;
      uint64_t a, l;
      if (parse_u64(buf, &a) || parse_u64(sep + 1, &l) || l == 0 || a + l < a) {
        snprintf(err, errcap, "bad range '%s': want 0xADDR:LEN or 0xADDR+LEN with LEN > 0", spec);
        return -ASMSPY_E_USAGE;
      }
      *start = a;
      *len = l;
      return 0;
    }
    uint64_t a;
    if (parse_u64(buf, &a)) {
      snprintf(err, errcap, "bad address '%s'", spec);
      return -ASMSPY_E_USAGE;
    }
    struct asmspy_symbol sym;
    memset(&sym, 0, sizeof sym);
    ASMSPY_INIT_HEADER(&sym);
    target_symbolize(t, a, &sym);
    if (!sym.name || !sym.size || sym.kind == ASMSPY_SYM_UNKNOWN) {
      snprintf(err, errcap,
               "no sized symbol covers 0x%" PRIx64 ": give the range explicitly (0xADDR:LEN)", a);
      return -ASMSPY_E_USAGE;
    }
    *start = sym.start;
    *len = sym.size;
    return 0;
  }
  struct asmspy_symtab *st = target_symtab(t);
  const struct symtab_entry *e = st ? symtab_find_name(st, spec) : NULL;
  if (!e) {
    snprintf(err, errcap, "no function named '%s' in pid %d (see asmspy --syms)", spec,
             (int)target_pid(t));
    return -ASMSPY_E_USAGE;
  }
  if (!e->size) {
    snprintf(err, errcap, "'%s' has no size in the symbol table: give 0x%" PRIx64 ":LEN", spec,
             e->start);
    return -ASMSPY_E_USAGE;
  }
  *start = e->start;
  *len = e->size;
  return 0;
}
