/* plugins/common/call_filter.c — see call_filter.h. Compiled into each call
 * view (calls, graph, tree). */
#define _GNU_SOURCE
#include "plugins/common/call_filter.h"
#include "plugins/common/record_emit.h"
#include "host/demangle.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ globs -- */

int cf_globs_parse(struct cf_globs *g, const char *list) {
  memset(g, 0, sizeof *g);
  if (!list || !*list) return 0;
  g->buf = strdup(list);
  size_t n = 1;
  for (const char *p = list; *p; p++) n += *p == ',';
  g->pat = calloc(n, sizeof *g->pat);
  if (!g->buf || !g->pat) {
    cf_globs_free(g);
    return -1;
  }
  char *save = NULL;
  for (char *tok = strtok_r(g->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (*tok) g->pat[g->n++] = tok;
  return 0;
}

void cf_globs_free(struct cf_globs *g) {
  free(g->buf);
  free(g->pat);
  memset(g, 0, sizeof *g);
}

static int one_match(const char *pat, const char *name) {
  if (strpbrk(pat, "*?[")) return fnmatch(pat, name, 0) == 0;
  return strcmp(pat, name) == 0;
}

int cf_globs_match(const struct cf_globs *g, const char *name) {
  if (!name) return 0;
  char base[512];
  const char *plain = NULL;
  size_t len = strlen(name);
  if (len > 4 && len - 4 < sizeof base &&
      (strcmp(name + len - 4, "@plt") == 0 || strcmp(name + len - 4, "@got") == 0)) {
    memcpy(base, name, len - 4);
    base[len - 4] = 0;
    plain = base; /* -N malloc covers malloc@plt and malloc@got */
  }
  for (size_t i = 0; i < g->n; i++)
    if (one_match(g->pat[i], name) || (plain && one_match(g->pat[i], plain))) return 1;
  return 0;
}

/* ----------------------------------------------------------- filter -- */

int cf_init(struct call_filter *cf, const char *in, const char *out, const char *focus,
            const char *depth, const char *demangle, char *err, size_t errcap) {
  memset(cf, 0, sizeof *cf);
  if (depth) {
    char *end = NULL;
    errno = 0;
    long d = strtol(depth, &end, 10);
    if (errno || !end || *end || d <= 0 || d > INT_MAX / 2) {
      snprintf(err, errcap, "--depth must be a positive number of levels, got '%s'", depth);
      return -1;
    }
    cf->depth = d;
  }
  /* --focus=<sym>: one more -F, matching names that contain sym */
  char *joined = NULL;
  if (focus && *focus) {
    if (asprintf(&joined, "%s%s*%s*", in ? in : "", in ? "," : "", focus) < 0) joined = NULL;
    if (!joined) {
      snprintf(err, errcap, "out of memory");
      return -1;
    }
    in = joined;
  }
  int rc = cf_globs_parse(&cf->in, in) | cf_globs_parse(&cf->out, out);
  free(joined);
  if (rc) {
    cf_free(cf);
    snprintf(err, errcap, "out of memory");
    return -1;
  }
  cf->full_names = demangle && strcmp(demangle, "full") == 0;
  return 0;
}

void cf_free(struct call_filter *cf) {
  cf_globs_free(&cf->in);
  cf_globs_free(&cf->out);
}

int cf_active(const struct call_filter *cf) { return cf->in.n || cf->out.n || cf->depth; }

int cf_enter(const struct call_filter *cf, struct cf_tstate *t, struct cf_mark *m, int match) {
  if (!t->init) {
    t->init = 1;
    t->depth = cf->depth ? (int32_t)cf->depth : INT32_MAX;
  }
  m->orig_depth = t->depth;
  m->flags = 0;
  if (match == CF_MATCH_IN) {
    t->in++;
    m->flags |= CF_F_IN;
    t->depth = cf->depth ? (int32_t)cf->depth : INT32_MAX; /* -D counts from this match */
  } else if (match == CF_MATCH_OUT) {
    t->out++;
    m->flags |= CF_F_OUT;
  }
  m->disp = t->nshown;
  if (t->out > 0 || (cf->in.n && t->in == 0) || t->depth <= 0) return 0;
  t->depth--;
  t->nshown++;
  m->flags |= CF_F_SHOWN;
  return 1;
}

void cf_leave(struct cf_tstate *t, const struct cf_mark *m) {
  if (m->flags & CF_F_IN) t->in--;
  if (m->flags & CF_F_OUT) t->out--;
  if (m->flags & CF_F_SHOWN) t->nshown--;
  t->depth = m->orig_depth;
}

/* ------------------------------------------------------------ names -- */

void cf_names_init(struct cf_names *c, const struct asmspy_host_api *host,
                   const struct call_filter *cf) {
  memset(c, 0, sizeof *c);
  c->host = host;
  c->cf = cf;
}

static void name_free(struct cf_name *n) {
  if (!n) return;
  free(n->name);
  free(n->full);
  free(n->module);
  free(n->why);
  free(n);
}

void cf_names_clear(struct cf_names *c) {
  free(c->slots);
  c->slots = NULL;
  c->cap = c->n = 0;
}

void cf_names_free(struct cf_names *c) {
  cf_names_clear(c);
  for (struct cf_name *n = c->all, *next; n; n = next) {
    next = n->all_next;
    name_free(n);
  }
  c->all = NULL;
  free(c->refused);
  c->refused = NULL;
  c->nrefused = c->rcap = 0;
}

static size_t hash_of(const struct asmspy_target *t, uint64_t addr) {
  uint64_t h = (addr ^ (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  return (size_t)(h ^ (h >> 29));
}

static int names_grow(struct cf_names *c) {
  size_t nc = c->cap ? c->cap * 2 : 512;
  struct cf_name **ns = calloc(nc, sizeof *ns);
  if (!ns) return -1;
  for (size_t i = 0; i < c->cap; i++) {
    struct cf_name *n = c->slots[i];
    if (!n) continue;
    size_t j = hash_of(n->target, n->addr) & (nc - 1);
    while (ns[j]) j = (j + 1) & (nc - 1);
    ns[j] = n;
  }
  free(c->slots);
  c->slots = ns;
  c->cap = nc;
  return 0;
}

/* the display name of sym (simple unless --demangle=full) */
static char *display(const struct call_filter *cf, const char *name) {
  if (cf && cf->full_names) return strdup(name);
  char buf[1024];
  demangle_simplify(name, buf, sizeof buf);
  return strdup(buf);
}

static uint8_t classify(const struct call_filter *cf, const struct cf_name *n) {
  if (!cf || !n->named) return CF_MATCH_NONE;
  /* -N wins over -F, as in uftrace (a function matching both is hidden) */
  if (cf_globs_match(&cf->out, n->name) || cf_globs_match(&cf->out, n->full)) return CF_MATCH_OUT;
  if (cf_globs_match(&cf->in, n->name) || cf_globs_match(&cf->in, n->full)) return CF_MATCH_IN;
  return CF_MATCH_NONE;
}

static struct cf_name *lookup(struct cf_names *c, struct asmspy_target *t, uint64_t addr,
                              int *created) {
  *created = 0;
  if (c->cap) {
    size_t j = hash_of(t, addr) & (c->cap - 1);
    for (struct cf_name *n; (n = c->slots[j]) != NULL; j = (j + 1) & (c->cap - 1))
      if (n->addr == addr && n->target == t) return n;
  }
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  c->host->symbolize(t, addr, &sym);
  /* an address no symbol covers is cached as "0x..." too: code that ran
   * was mapped, and its symbols (a stripped module) do not come later */
  int named = sym.name && sym.kind != ASMSPY_SYM_UNKNOWN;
  if ((c->n + 1) * 2 > c->cap && names_grow(c) != 0) return NULL;
  struct cf_name *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->addr = addr;
  n->target = t;
  char hex[32];
  snprintf(hex, sizeof hex, "0x%" PRIx64, addr);
  n->full = named ? strdup(sym.name) : NULL;
  n->name = named ? display(c->cf, sym.name) : strdup(hex);
  n->module = strdup(sym.module ? sym.module : "?");
  n->start = named ? sym.start : addr;
  n->kind = named ? sym.kind : ASMSPY_SYM_UNKNOWN;
  n->named = (uint8_t)named;
  if ((named && !n->full) || !n->name || !n->module) {
    name_free(n);
    return NULL;
  }
  n->name_len = (uint32_t)strlen(n->name);
  n->match = classify(c->cf, n);
  n->all_next = c->all;
  c->all = n;
  size_t j = hash_of(t, addr) & (c->cap - 1);
  while (c->slots[j]) j = (j + 1) & (c->cap - 1);
  c->slots[j] = n;
  c->n++;
  *created = 1;
  return n;
}

const struct cf_name *cf_name_of(struct cf_names *c, struct asmspy_target *t, uint64_t addr) {
  int created;
  struct cf_name *n = lookup(c, t, addr, &created);
  if (n) return n;
  /* out of memory: an uncached "0x..." */
  struct cf_name *u = &c->unnamed;
  snprintf(c->unnamed_buf, sizeof c->unnamed_buf, "0x%" PRIx64, addr);
  memset(u, 0, sizeof *u);
  u->addr = u->start = addr;
  u->target = t;
  u->name = c->unnamed_buf;
  u->name_len = (uint32_t)strlen(u->name);
  u->module = (char *)"?";
  return u;
}

const struct cf_name *cf_refused(struct cf_names *c, const struct asmspy_event *ev) {
  int created;
  struct cf_name *n = lookup(c, ev->target, ev->u.call.func, &created);
  const char *why = ev->u.call.why ? ev->u.call.why : "refused";
  if (!n) return NULL;
  if (n->why) {
    return n; /* already listed */
  }
  n->why = strdup(why);
  if (c->nrefused == c->rcap) {
    size_t nc = c->rcap ? c->rcap * 2 : 16;
    struct cf_name **nr = realloc(c->refused, nc * sizeof *nr);
    if (!nr) return n;
    c->refused = nr;
    c->rcap = nc;
  }
  c->refused[c->nrefused++] = n;
  return n;
}

const char *cf_refused_why(struct cf_names *c, struct asmspy_target *t, uint64_t addr) {
  if (!c->nrefused) return NULL;
  for (size_t k = 0; k < c->nrefused; k++)
    if (c->refused[k]->target == t && (c->refused[k]->addr == addr || c->refused[k]->start == addr))
      return c->refused[k]->why;
  return NULL;
}

const struct asmspy_field cf_not_traced_fields[] = {
    RF_STR("name", 0, "the function"),
    RF_STR("module", 0, "its module"),
    RF_HEX("addr", 0, "its entry address"),
    RF_BOOL("traced", 0, "always false: the backend could not trace it"),
    RF_STR("why", 0, "why it is not traced (e.g. a call in its first 5 bytes)"),
    RF_END,
};

int cf_emit_not_traced(const struct asmspy_host_api *h, struct asmspy_out *out,
                       const struct asmspy_record_schema *schema, const struct cf_name *n) {
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(out);
  char text[1024];
  snprintf(text, sizeof text, "not traced: %s (%s)", n->name, n->why ? n->why : "refused");
  const struct asmspy_value v[] = {rv_str(n->name), rv_str(n->module), rv_hex(n->addr), rv_bool(0),
                                   rv_str(n->why ? n->why : "refused")};
  return rec_emit(h, out, schema, v, want_text ? text : NULL);
}

/* The reason's kind: its text up to the first " (" (the details differ per
 * function: "too short (3 bytes, ...)"). */
static size_t why_kind_len(const char *why) {
  const char *p = strstr(why, " (");
  return p ? (size_t)(p - why) : strlen(why);
}

int cf_emit_not_traced_all(const struct asmspy_host_api *h, struct asmspy_out *out,
                           const struct asmspy_record_schema *schema, const struct cf_names *c) {
  int rc = 0;
  if (c->nrefused <= CF_NOT_TRACED_TEXT_MAX) {
    for (size_t k = 0; k < c->nrefused && !rc; k++)
      rc = cf_emit_not_traced(h, out, schema, c->refused[k]);
    return rc;
  }
  /* Many (a library under --module): each one in the structured output, and
   * one line per kind of reason in the text, with the count and an example. */
  for (size_t k = 0; k < c->nrefused && !rc; k++) {
    const struct cf_name *n = c->refused[k];
    const struct asmspy_value v[] = {rv_str(n->name), rv_str(n->module), rv_hex(n->addr),
                                     rv_bool(0), rv_str(n->why ? n->why : "refused")};
    rc = rec_emit(h, out, schema, v, NULL);
  }
  for (size_t k = 0; k < c->nrefused; k++) {
    const char *why = c->refused[k]->why ? c->refused[k]->why : "refused";
    size_t len = why_kind_len(why), count = 0, first = 1;
    for (size_t j = 0; j < c->nrefused; j++) {
      const char *w = c->refused[j]->why ? c->refused[j]->why : "refused";
      if (why_kind_len(w) != len || strncmp(w, why, len) != 0) continue;
      if (j < k) first = 0;
      count++;
    }
    if (!first) continue; /* this kind was said at its first function */
    h->note(out, ASMSPY_NOTE_INFO, "not traced: %zu function%s: %.*s (e.g. %s)%s", count,
            count == 1 ? "" : "s", (int)len, why, c->refused[k]->name,
            k == 0 ? "; the JSON output lists each" : "");
  }
  return rc;
}
