/* plugins/common/call_filter.h — what the call views (--calls, --graph,
 * --tree) share on a call backend's event stream, in one implementation:
 *
 *   1. uftrace's filters, applied per thread exactly as `uftrace replay`
 *      applies them (its fstack_entry / fstack_exit):
 *        --filter=<globs>  (-F) only calls inside these: the matching
 *                          function and everything below it;
 *        --notrace=<globs> (-N) hide these and everything below them;
 *        --depth=<d>       (-D) d levels below each -F match (from the top
 *                          of the stack without -F); a nested -F match
 *                          starts its own d levels, and the outer count
 *                          comes back when it returns.
 *      Per thread: in = active -F matches, out = active -N matches, depth =
 *      levels left. An entry is shown when out == 0, (in > 0 or no -F at
 *      all) and depth > 0; a shown entry takes one level. Each frame keeps
 *      the depth it found (restored when it ends) and whether it matched.
 *      The printed depth is the number of shown frames open below it
 *      (uftrace's display depth), so -F output starts at column 0.
 *   2. names as users read them: the host's demangled C++ name without its
 *      parameter list, template arguments and return type by default
 *      (uftrace's --demangle=simple: `ns::C::f`, `std::vector::push_back`),
 *      or as the host gives it (--demangle=full); `name@plt` for a PLT
 *      entry in every view. Each (target, address) is symbolized, named and
 *      matched against the globs once per session (a small hash cache).
 *   3. ASMSPY_CALL_REFUSED: the functions the backend selected but could
 *      not trace, with the reason, kept for the views' "not traced" lists.
 */
#ifndef ASMSPY_PLUGINS_COMMON_CALL_FILTER_H
#define ASMSPY_PLUGINS_COMMON_CALL_FILTER_H

#include <asmspy/plugin.h>

#include <stddef.h>
#include <stdint.h>

/* comma-separated globs (fnmatch); a pattern without * ? [ matches the
 * whole name exactly (uftrace: a pattern without regex characters) */
struct cf_globs {
  char *buf;
  const char **pat;
  size_t n;
};

enum cf_match { CF_MATCH_NONE = 0, CF_MATCH_IN = 1, CF_MATCH_OUT = 2 };

struct call_filter {
  struct cf_globs in, out; /* -F, -N */
  long depth;              /* -D; 0 = unlimited */
  int full_names;          /* --demangle=full */
};

/* per frame */
struct cf_mark {
  int32_t orig_depth; /* the thread's depth when it was entered (restored at its end) */
  int32_t disp;       /* its printed depth (shown frames below it) */
  uint8_t flags;      /* CF_F_* */
};
#define CF_F_IN 1u    /* matched -F: counted in in */
#define CF_F_OUT 2u   /* matched -N: counted in out */
#define CF_F_SHOWN 4u /* printed */

/* per thread */
struct cf_tstate {
  int32_t in, out, depth, nshown;
  int init;
};

/* Parse the filter options; -1 with err filled on a bad value. */
int cf_init(struct call_filter *cf, const char *in, const char *out, const char *focus,
            const char *depth, const char *demangle, char *err, size_t errcap);
void cf_free(struct call_filter *cf);
int cf_globs_parse(struct cf_globs *g, const char *list);
void cf_globs_free(struct cf_globs *g);
/* Does name (or name without "@plt", or the full name) match one of g? */
int cf_globs_match(const struct cf_globs *g, const char *name);
int cf_active(const struct call_filter *cf); /* any of -F / -N / -D */

/* An entry: returns 1 when it is shown; m->disp is its printed depth. */
int cf_enter(const struct call_filter *cf, struct cf_tstate *t, struct cf_mark *m, int match);
/* The frame m ends (return, unwind, exit, ...): undo what cf_enter did. */
void cf_leave(struct cf_tstate *t, const struct cf_mark *m);

/* ---- names ---- */
struct cf_name {
  uint64_t addr;
  const struct asmspy_target *target;
  char *name;     /* as printed (simple or full), or "0x..." when unnamed */
  char *full;     /* the host's name (NULL when unnamed) */
  char *module;   /* basename, "?" */
  char *why;      /* REFUSED: why it is not traced; NULL = traced (or not refused) */
  uint64_t start; /* the symbol's start (addr when unnamed) */
  uint32_t name_len;
  uint32_t kind; /* enum asmspy_sym_kind */
  uint8_t named;
  uint8_t match;            /* enum cf_match */
  struct cf_name *all_next; /* every entry ever made (freed at the end) */
};

struct cf_names {
  const struct asmspy_host_api *host;
  const struct call_filter *cf;
  struct cf_name **slots; /* open addressing, power-of-two */
  struct cf_name *all;    /* every entry: an exec empties the table, frames keep theirs */
  size_t cap, n;
  struct cf_name unnamed; /* scratch for an address no symbol covers (not cached) */
  char unnamed_buf[32];
  /* ASMSPY_CALL_REFUSED, in arrival order */
  struct cf_name **refused;
  size_t nrefused, rcap;
};

void cf_names_init(struct cf_names *c, const struct asmspy_host_api *host,
                   const struct call_filter *cf);
void cf_names_free(struct cf_names *c);
/* after an exec: addresses mean something else (entries stay valid) */
void cf_names_clear(struct cf_names *c);
/* The name of the function at addr (an entry address, or any address in it
 * with by_start: keyed by the symbol's start). Never NULL (out of memory:
 * the uncached scratch entry). */
const struct cf_name *cf_name_of(struct cf_names *c, struct asmspy_target *t, uint64_t addr);
/* ASMSPY_CALL_REFUSED: remember it (once per function). Returns the entry. */
const struct cf_name *cf_refused(struct cf_names *c, const struct asmspy_event *ev);
/* Is the function at addr (its entry) refused? Its reason, or NULL. */
const char *cf_refused_why(struct cf_names *c, struct asmspy_target *t, uint64_t addr);

/* The record a stream view (calls, tree) writes per refused function:
 * `not_traced`, text "not traced: f (why)". */
extern const struct asmspy_field cf_not_traced_fields[];
int cf_emit_not_traced(const struct asmspy_host_api *h, struct asmspy_out *out,
                       const struct asmspy_record_schema *schema, const struct cf_name *n);

/* Every refused function: one text line each when there are at most
 * CF_NOT_TRACED_TEXT_MAX, else each as a record without text (the JSON output
 * keeps them all) and one note per kind of reason with its count. */
#define CF_NOT_TRACED_TEXT_MAX 8
int cf_emit_not_traced_all(const struct asmspy_host_api *h, struct asmspy_out *out,
                           const struct asmspy_record_schema *schema, const struct cf_names *c);

#define CF_NOT_TRACED_SCHEMA                                                                       \
  {                                                                                                \
    "not_traced", "a function the call backend selected but could not trace, and why",             \
        cf_not_traced_fields, "not traced: {name} ({why})"                                         \
  }

#endif
