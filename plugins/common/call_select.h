/* plugins/common/call_select.h — the call views' options (--calls, --graph,
 * --tree), named like uftrace's:
 *   --filter=<globs>   (uftrace -F) only calls inside these functions: the
 *                      matching function and everything below it
 *   --notrace=<globs>  (uftrace -N) hide these functions and their callees
 *                      (--exclude is the same option under its old name)
 *   --depth=<d>        (uftrace -D) d levels below each --filter match
 *                      (from the top of each thread's stack without one)
 *   --patch=<globs>    (uftrace -P) the call backend patches only these
 *   --module=<globs>   the call backend also patches these modules' functions
 *   --max-funcs=<n>    the call backend patches at most n functions
 *   --demangle=simple|full  C++ names without (uftrace's default) or with
 *                      parameter lists and template arguments
 * Globs are comma-separated (fnmatch; a pattern without * ? [ is the whole
 * name). -F / -N / -D are applied by the view on the event stream, per
 * thread, exactly as `uftrace replay` applies them (call_filter.h); a call
 * backend also patches the -F / -N matches (session call_include /
 * call_exclude), -P and --module choose what else it patches. There are no
 * one-letter forms: the host's option parser takes long options only.
 * A view puts CALL_SELECT_OPTIONS in its options table (after its own, with
 * the matching CALL_SELECT_ENUM indexes) and calls call_select_apply() from
 * configure(). */
#ifndef ASMSPY_PLUGINS_COMMON_CALL_SELECT_H
#define ASMSPY_PLUGINS_COMMON_CALL_SELECT_H

#include <asmspy/plugin.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_SELECT_OPTIONS                                                                        \
  {"filter", "<globs>",                                                                            \
   "uftrace -F: only calls inside these functions (each match and everything below it)"},          \
      {"notrace", "<globs>", "uftrace -N: hide these functions and everything they call"},         \
      {"exclude", "<globs>", "the same as --notrace"},                                             \
      {"depth", "<d>", "uftrace -D: d levels below each --filter match (default: all)"},           \
      {"patch", "<globs>", "uftrace -P: the call backend patches only these functions"},           \
      {"module", "<globs>", "call backend: also patch the functions of these modules (a,b*)"},     \
      {"max-funcs", "<n>", "call backend: patch at most n functions (default 4096)"}, {            \
    "demangle", "simple|full",                                                                     \
        "C++ names: without parameter lists (simple, the default) or as demangled (full)"          \
  }
#define CALL_SELECT_NOPTS 8

/* The values, in CALL_SELECT_OPTIONS order, starting at ov->value[first]. */
struct call_select {
  const char *include, *exclude, *depth, *patch, *module, *demangle;
  unsigned long max_funcs;
  char *joined; /* --notrace and --exclude both given: the two lists */
};

/* Read them; -1 when --max-funcs is not a positive number. */
static inline int call_select_read(const struct asmspy_optval *ov, int first,
                                   struct call_select *out) {
  memset(out, 0, sizeof *out);
  out->include = ov->value[first];
  const char *notrace = ov->value[first + 1], *exclude = ov->value[first + 2];
  out->exclude = notrace ? notrace : exclude;
  if (notrace && exclude) {
    size_t n = strlen(notrace) + strlen(exclude) + 2;
    out->joined = (char *)malloc(n);
    if (out->joined) {
      snprintf(out->joined, n, "%s,%s", notrace, exclude);
      out->exclude = out->joined;
    }
  }
  out->depth = ov->value[first + 3];
  out->patch = ov->value[first + 4];
  out->module = ov->value[first + 5];
  out->demangle = ov->value[first + 7];
  const char *m = ov->value[first + 6];
  if (m) {
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(m, &end, 10);
    if (errno || !end || *end || v == 0 || v > 1000000) return -1;
    out->max_funcs = v;
  }
  return 0;
}

static inline void call_select_free(struct call_select *c) {
  free(c->joined);
  c->joined = NULL;
}

/* Into the session (ABI 1.9 / 1.12 fields), from configure(). */
static inline void call_select_apply(const struct call_select *c, struct asmspy_session *s) {
  if (!ASMSPY_HAS(s, call_max_funcs)) return;
  s->call_module = c->module;
  s->call_include = c->include;
  s->call_exclude = c->exclude;
  s->call_max_funcs = (uint32_t)c->max_funcs;
  if (ASMSPY_HAS(s, call_patch)) s->call_patch = c->patch;
}

#endif
