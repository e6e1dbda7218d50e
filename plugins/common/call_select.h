/* plugins/common/call_select.h — the options that choose which functions a
 * call backend (ASMSPY_CAP_CALLS: entrypatch) patches, shared by the views
 * that run on one (--calls, --graph):
 *   --module=<m>       also the functions of modules whose name contains m
 *                      (always: the main executable and its PLT entries)
 *   --filter=<globs>   only functions matching these comma-separated globs
 *                      (uftrace -F)
 *   --exclude=<globs>  never these (uftrace -N)
 *   --max-funcs=<n>    patch at most n functions
 * A view puts CALL_SELECT_OPTIONS in its options table (after its own, with
 * the matching CALL_SELECT_ENUM indexes) and calls call_select_apply() from
 * configure(). On an instruction backend they choose nothing (every call
 * is seen anyway); --calls and --graph say so in their help. */
#ifndef ASMSPY_PLUGINS_COMMON_CALL_SELECT_H
#define ASMSPY_PLUGINS_COMMON_CALL_SELECT_H

#include <asmspy/plugin.h>
#include <errno.h>
#include <stdlib.h>

#define CALL_SELECT_OPTIONS                                                                 \
  {"module", "<m>", "call backend: also patch the modules whose name contains m"},          \
      {"filter", "<globs>", "call backend: only functions matching these globs (a,b*)"},    \
      {"exclude", "<globs>", "call backend: never functions matching these globs"},         \
      {"max-funcs", "<n>", "call backend: patch at most n functions (default 4096)"}

/* The four values, in CALL_SELECT_OPTIONS order, starting at ov->value[first]. */
struct call_select {
  const char *module, *include, *exclude;
  unsigned long max_funcs;
};

/* Read them; -1 when --max-funcs is not a positive number. */
static inline int call_select_read(const struct asmspy_optval *ov, int first,
                                   struct call_select *out) {
  out->module = ov->value[first];
  out->include = ov->value[first + 1];
  out->exclude = ov->value[first + 2];
  out->max_funcs = 0;
  const char *m = ov->value[first + 3];
  if (m) {
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(m, &end, 10);
    if (errno || !end || *end || v == 0 || v > 1000000) return -1;
    out->max_funcs = v;
  }
  return 0;
}

/* Into the session (ABI 1.9 fields), from configure(). */
static inline void call_select_apply(const struct call_select *c, struct asmspy_session *s) {
  if (!ASMSPY_HAS(s, call_max_funcs)) return;
  s->call_module = c->module;
  s->call_include = c->include;
  s->call_exclude = c->exclude;
  s->call_max_funcs = (uint32_t)c->max_funcs;
}

#endif
