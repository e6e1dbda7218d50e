/* common/hot_rank.h — statistical hot-spot tables and the --auto
 * ranking rules, shared by the sample view (--sample), the dataflow view's
 * --auto and, later, the TUI.
 *
 * Plugins are separate shared modules that export one symbol and never link
 * each other, so the shared pieces live here as static inline functions: each
 * plugin compiles its own private copy of what it uses.
 *
 *   tables    hr_table: (a, b) -> count, mispredicts, OR of event flags;
 *             an edge is (from, to), a residency site is (ip, 0)
 *   order     hr_sorted: the rows by count, highest first (ties by address,
 *             so a table always renders the same)
 *   naming    hr_symbolize, hr_site_text: "fn+0xoff [module]", and "fn
 *             [module]" at a function's first byte (the seed's tables)
 *   grouping  hr_functions: residency sites summed per function (samples,
 *             distinct offsets), highest first
 *   ranking   hr_rank_entries (IBS / LBR: entry edges), hr_rank_residency
 *             (sw-clock / ptrace: residency, plus the call targets the
 *             ptrace sampler decoded in the hottest functions); both keep the
 *             best HR_MAX_CANDIDATES functions with a known extent, filtered
 *             by module
 *
 * Why entries and residency are ranked differently: a taken branch landing
 * on a function's first byte is a direct observation of the very event an
 * entry breakpoint waits for; an IP histogram only says where time is spent,
 * and its winner is often a loop entered once, long ago (main, an event
 * loop). Residency candidates are therefore a list to walk, not a verdict.
 */
#ifndef ASMSPY_PLUGINS_COMMON_HOT_RANK_H
#define ASMSPY_PLUGINS_COMMON_HOT_RANK_H

#include <asmspy/plugin.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HR_MAX_CANDIDATES 3

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */
/* ------------------------------------------------------------------------- */

struct hr_row {
  uint64_t a, b;  /* edge: from, to; residency site: ip, 0 */
  uint64_t count; /* samples (weights summed) */
  uint64_t misp;  /* of which mispredicted (ASMSPY_EVF_BR_MISP) */
  uint32_t flags; /* OR of the events' ASMSPY_EVF_* flags */
  uint32_t used;
};

struct hr_table {
  struct hr_row *rows; /* open addressing, cap a power of two */
  size_t cap, n;
  uint64_t total; /* sum of counts */
};

static inline size_t hr__slot(const struct hr_table *t, uint64_t a, uint64_t b) {
  uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);
  h ^= h >> 29;
  return (size_t)h & (t->cap - 1);
}

static inline int hr__grow(struct hr_table *t) {
  size_t nc = t->cap ? t->cap * 2 : 256;
  struct hr_row *rows = calloc(nc, sizeof *rows);
  if (!rows) return -1;
  struct hr_table n = {rows, nc, 0, t->total};
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->rows[i].used) continue;
    size_t j = hr__slot(&n, t->rows[i].a, t->rows[i].b);
    while (n.rows[j].used) j = (j + 1) & (nc - 1);
    n.rows[j] = t->rows[i];
    n.n++;
  }
  free(t->rows);
  *t = n;
  return 0;
}

/* Add `weight` samples to the row (a, b). Returns the row, or NULL when out
 * of memory (the sample is dropped; the table stays consistent). */
static inline struct hr_row *hr_add(struct hr_table *t, uint64_t a, uint64_t b, uint64_t weight,
                                    uint32_t flags) {
  if ((t->n + 1) * 4 > t->cap * 3 && hr__grow(t) != 0) return NULL;
  size_t j = hr__slot(t, a, b);
  while (t->rows[j].used && !(t->rows[j].a == a && t->rows[j].b == b)) j = (j + 1) & (t->cap - 1);
  struct hr_row *r = &t->rows[j];
  if (!r->used) {
    r->used = 1;
    r->a = a;
    r->b = b;
    t->n++;
  }
  r->count += weight;
  if (flags & ASMSPY_EVF_BR_MISP) r->misp += weight;
  r->flags |= flags;
  t->total += weight;
  return r;
}

static inline const struct hr_row *hr_find(const struct hr_table *t, uint64_t a, uint64_t b) {
  if (!t->cap) return NULL;
  size_t j = hr__slot(t, a, b);
  while (t->rows[j].used) {
    if (t->rows[j].a == a && t->rows[j].b == b) return &t->rows[j];
    j = (j + 1) & (t->cap - 1);
  }
  return NULL;
}

static inline void hr_free(struct hr_table *t) {
  free(t->rows);
  memset(t, 0, sizeof *t);
}

static inline int hr__cmp_rows(const void *x, const void *y) {
  const struct hr_row *a = *(const struct hr_row *const *)x, *b = *(const struct hr_row *const *)y;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  if (a->b != b->b) return a->b < b->b ? -1 : 1;
  return 0;
}

/* The rows, highest count first, in a malloc'd array of t->n pointers (the
 * caller frees it; NULL for an empty table or out of memory). The pointers
 * stay valid until the next hr_add. */
static inline const struct hr_row **hr_sorted(const struct hr_table *t) {
  if (!t->n) return NULL;
  const struct hr_row **v = malloc(t->n * sizeof *v);
  if (!v) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < t->cap; i++)
    if (t->rows[i].used) v[k++] = &t->rows[i];
  qsort(v, k, sizeof *v, hr__cmp_rows);
  return v;
}

/* ------------------------------------------------------------------------- */
/* Naming                                                                     */
/* ------------------------------------------------------------------------- */

static inline void hr_symbolize(const struct asmspy_host_api *host, struct asmspy_target *t,
                                uint64_t addr, struct asmspy_symbol *sym) {
  memset(sym, 0, sizeof *sym);
  ASMSPY_INIT_HEADER(sym);
  sym->kind = ASMSPY_SYM_UNKNOWN;
  if (t) host->symbolize(t, addr, sym);
}

/* "fn+0xoff [module]"; "fn [module]" at offset 0 (the first byte IS the
 * function, as in the seed's tables); "0xADDR [module]" with no symbol. */
static inline const char *hr_site_text(const struct asmspy_host_api *host, struct asmspy_target *t,
                                       uint64_t addr, char *buf, size_t cap) {
  struct asmspy_symbol sym;
  hr_symbolize(host, t, addr, &sym);
  const char *mod = sym.kind == ASMSPY_SYM_JIT ? "jit" : sym.module ? sym.module : "?";
  if (sym.name && sym.offset == 0)
    snprintf(buf, cap, "%s [%s]", sym.name, mod);
  else if (sym.name)
    snprintf(buf, cap, "%s+0x%" PRIx64 " [%s]", sym.name, sym.offset, mod);
  else
    snprintf(buf, cap, "0x%" PRIx64 " [%s]", addr, mod);
  return buf;
}

/* Does a module name pass a --module filter (substring; NULL = all)? */
static inline int hr_module_ok(const char *module, const char *filter) {
  if (!filter || !*filter) return 1;
  return module && strstr(module, filter) != NULL;
}

/* ------------------------------------------------------------------------- */
/* Functions                                                                  */
/* ------------------------------------------------------------------------- */

struct hr_func {
  uint64_t start, size;
  char name[128];
  char module[64];
  uint64_t samples; /* residency or entry samples */
  uint32_t spread;  /* distinct offsets (residency) / call sites (entries) */
  uint32_t kind;    /* enum asmspy_sym_kind */
};

/* One sample's function, for grouping: addr/key pairs sorted by function. */
struct hr__keyed {
  uint64_t fstart, fsize, key, count;
  const char *name, *module;
  uint32_t kind;
};

static inline int hr__cmp_keyed(const void *x, const void *y) {
  const struct hr__keyed *a = x, *b = y;
  if (a->fstart != b->fstart) return a->fstart < b->fstart ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return 0;
}

static inline int hr__cmp_funcs(const void *x, const void *y) {
  const struct hr_func *a = x, *b = y;
  if (a->samples != b->samples) return a->samples > b->samples ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* Sum rows per function. by_target: group an edge table by the function its
 * `to` STARTS (entry edges: to must be a function's first byte, reached from
 * outside that function; spread = distinct call sites); else group residency
 * sites by the function containing the ip (spread = distinct offsets).
 * Rows with no sized symbol, or outside `module`, are left out (no extent:
 * nothing a region capture could arm). Returns a malloc'd array, highest
 * first, *n its length (NULL/0 when none). */
static inline struct hr_func *hr_functions(const struct asmspy_host_api *host,
                                           struct asmspy_target *t, const struct hr_table *tab,
                                           int by_target, const char *module, size_t *n) {
  *n = 0;
  if (!tab->n) return NULL;
  struct hr__keyed *k = calloc(tab->n, sizeof *k);
  if (!k) return NULL;
  size_t nk = 0;
  for (size_t i = 0; i < tab->cap; i++) {
    const struct hr_row *r = &tab->rows[i];
    if (!r->used || !r->count) continue;
    uint64_t addr = by_target ? r->b : r->a;
    struct asmspy_symbol sym;
    hr_symbolize(host, t, addr, &sym);
    if (!sym.name || !sym.size || sym.kind == ASMSPY_SYM_UNKNOWN) continue;
    if (!hr_module_ok(sym.kind == ASMSPY_SYM_JIT ? "jit" : sym.module, module)) continue;
    if (by_target) {
      if (!(r->flags & ASMSPY_EVF_BR_TAKEN)) continue;                /* never seen landing there */
      if (sym.offset != 0) continue;                                  /* not a first byte */
      if (r->flags & ASMSPY_EVF_BR_RET) continue;                     /* a return is no entry */
      if (r->a >= sym.start && r->a < sym.start + sym.size) continue; /* a loop back-edge */
    }
    k[nk++] =
        (struct hr__keyed){sym.start,  sym.size, by_target ? r->a : sym.offset, r->count, sym.name,
                           sym.module, sym.kind};
  }
  qsort(k, nk, sizeof *k, hr__cmp_keyed);
  struct hr_func *f = nk ? calloc(nk, sizeof *f) : NULL;
  size_t nf = 0;
  for (size_t i = 0; f && i < nk; i++) {
    if (nf == 0 || f[nf - 1].start != k[i].fstart) {
      struct hr_func *g = &f[nf++];
      g->start = k[i].fstart;
      g->size = k[i].fsize;
      g->kind = k[i].kind;
      snprintf(g->name, sizeof g->name, "%s", k[i].name);
      snprintf(g->module, sizeof g->module, "%s",
               k[i].kind == ASMSPY_SYM_JIT ? "jit"
               : k[i].module               ? k[i].module
                                           : "?");
    }
    struct hr_func *g = &f[nf - 1];
    g->samples += k[i].count;
    if (i == 0 || k[i - 1].fstart != k[i].fstart || k[i - 1].key != k[i].key) g->spread++;
  }
  free(k);
  if (f) qsort(f, nf, sizeof *f, hr__cmp_funcs);
  *n = nf;
  return f;
}

/* ------------------------------------------------------------------------- */
/* Ranking                                                                    */
/* ------------------------------------------------------------------------- */

enum hr_evidence {
  HR_ENTRY = 1,       /* sampled taken branches landed on its first byte */
  HR_RESIDENCY = 2,   /* sampled IPs inside it */
  HR_CALL_TARGET = 3, /* a direct call in a hot function names it */
};

struct hr_candidate {
  struct hr_func fn;
  int evidence;  /* enum hr_evidence */
  char via[128]; /* HR_CALL_TARGET: the hot function whose call names it */
};

struct hr_ranking {
  struct hr_candidate c[HR_MAX_CANDIDATES];
  size_t n;
  size_t observed; /* functions with evidence (after the module filter) */
};

static inline int hr__ranked(const struct hr_ranking *rk, uint64_t start) {
  for (size_t i = 0; i < rk->n; i++)
    if (rk->c[i].fn.start == start) return 1;
  return 0;
}

static inline void hr__push(struct hr_ranking *rk, const struct hr_func *f, int evidence,
                            const char *via) {
  if (rk->n >= HR_MAX_CANDIDATES || hr__ranked(rk, f->start)) return;
  struct hr_candidate *c = &rk->c[rk->n++];
  memset(c, 0, sizeof *c);
  c->fn = *f;
  c->evidence = evidence;
  if (via) snprintf(c->via, sizeof c->via, "%s", via);
}

/* Entry edges (IBS, LBR): taken branches into a function's first byte, from
 * outside it, summed per entered function; the best first. */
static inline void hr_rank_entries(const struct asmspy_host_api *host, struct asmspy_target *t,
                                   const struct hr_table *edges, const char *module,
                                   struct hr_ranking *rk) {
  memset(rk, 0, sizeof *rk);
  size_t nf = 0;
  struct hr_func *f = hr_functions(host, t, edges, 1, module, &nf);
  rk->observed = nf;
  for (size_t i = 0; i < nf; i++) hr__push(rk, &f[i], HR_ENTRY, NULL);
  free(f);
}

struct hr__callee {
  struct hr_func fn;
  uint64_t site; /* the call instruction */
};

static inline int hr__cmp_callees(const void *x, const void *y) {
  const struct hr__callee *a = x, *b = y;
  if (a->fn.samples != b->fn.samples) return a->fn.samples > b->fn.samples ? -1 : 1;
  return a->site < b->site ? -1 : a->site > b->site;
}

/* The call targets named by direct calls inside `caller` (calls: a table of
 * (call site, target) rows), each with its own residency from funcs; the
 * hottest first, then in call-site order. Returns a malloc'd array. */
static inline struct hr__callee *
hr__callees_of(const struct asmspy_host_api *host, struct asmspy_target *t,
               const struct hr_func *caller, const struct hr_table *calls,
               const struct hr_func *funcs, size_t nfuncs, const char *module, size_t *n) {
  *n = 0;
  if (!calls || !calls->n) return NULL;
  struct hr__callee *v = calloc(calls->n, sizeof *v);
  if (!v) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < calls->cap; i++) {
    const struct hr_row *r = &calls->rows[i];
    if (!r->used || r->a < caller->start || r->a >= caller->start + caller->size) continue;
    struct asmspy_symbol sym;
    hr_symbolize(host, t, r->b, &sym);
    if (!sym.name || !sym.size || sym.offset != 0 || sym.kind == ASMSPY_SYM_UNKNOWN) continue;
    const char *mod = sym.kind == ASMSPY_SYM_JIT ? "jit" : sym.module ? sym.module : "?";
    if (!hr_module_ok(mod, module)) continue;
    int dup = 0;
    for (size_t j = 0; j < k && !dup; j++) dup = v[j].fn.start == sym.start;
    if (dup) continue;
    struct hr__callee *c = &v[k++];
    c->site = r->a;
    c->fn.start = sym.start;
    c->fn.size = sym.size;
    c->fn.kind = sym.kind;
    snprintf(c->fn.name, sizeof c->fn.name, "%s", sym.name);
    snprintf(c->fn.module, sizeof c->fn.module, "%s", mod);
    for (size_t j = 0; j < nfuncs; j++)
      if (funcs[j].start == sym.start) {
        c->fn.samples = funcs[j].samples;
        c->fn.spread = funcs[j].spread;
      }
  }
  qsort(v, k, sizeof *v, hr__cmp_callees);
  *n = k;
  return v;
}

/* Residency (sw-clock, ptrace). The order, best first:
 *   1. the residency winner;
 *   2. the winner's call targets that also hold residency (hot callees: the
 *      loop that never re-enters usually calls them over and over);
 *   3. the other residency functions, by samples;
 *   4. call targets with no residency of their own (the ptrace sampler's
 *      few probes can miss a short callee entirely; the call is still there).
 * calls may be NULL (sw-clock decodes no calls). */
static inline void hr_rank_residency(const struct asmspy_host_api *host, struct asmspy_target *t,
                                     const struct hr_table *sites, const struct hr_table *calls,
                                     const char *module, struct hr_ranking *rk) {
  memset(rk, 0, sizeof *rk);
  size_t nf = 0;
  struct hr_func *f = hr_functions(host, t, sites, 0, module, &nf);
  rk->observed = nf;
  if (!nf) {
    free(f);
    return;
  }
  hr__push(rk, &f[0], HR_RESIDENCY, NULL);
  size_t nc = 0;
  struct hr__callee *callees = hr__callees_of(host, t, &f[0], calls, f, nf, module, &nc);
  for (size_t i = 0; i < nc; i++)
    if (callees[i].fn.samples) hr__push(rk, &callees[i].fn, HR_CALL_TARGET, f[0].name);
  for (size_t i = 1; i < nf; i++) hr__push(rk, &f[i], HR_RESIDENCY, NULL);
  for (size_t i = 0; i < nc; i++)
    if (!callees[i].fn.samples) hr__push(rk, &callees[i].fn, HR_CALL_TARGET, f[0].name);
  free(callees);
  /* call targets of the other hot functions, last */
  for (size_t i = 1; i < nf && rk->n < HR_MAX_CANDIDATES; i++) {
    size_t m = 0;
    struct hr__callee *cv = hr__callees_of(host, t, &f[i], calls, f, nf, module, &m);
    for (size_t j = 0; j < m; j++) hr__push(rk, &cv[j].fn, HR_CALL_TARGET, f[i].name);
    free(cv);
  }
  free(f);
}

#endif /* ASMSPY_PLUGINS_COMMON_HOT_RANK_H */
