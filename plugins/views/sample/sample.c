/* sample: statistical hot edges / residency of a running process
 * (`asmspy --sample <pid> [ms] [--json] [--sampler=ibs|lbr|sw|ptrace]
 * [--top=<n>]`).
 *
 * The engine runs the sampler rung --sampler names (default ibs: AMD IBS-Op)
 * for a window of `ms` (default: the backend's, 300 ms). This view
 * aggregates what the rung delivers:
 *   - BRANCH events (IBS, LBR: taken branches with ASMSPY_EVF_BR_* flags)
 *     into a hot-edge histogram: count, from -> to, [misp N%], [ret];
 *   - SAMPLE events (sw-clock, ptrace: bare IPs) into a residency histogram,
 *     by function and by site — residency, NOT edges: the sampler never saw
 *     a branch, so the table must not pretend it did;
 *   - BRANCH events marked ASMSPY_EVF_BR_CALL but not TAKEN (the ptrace
 *     rung's decoded direct calls in the hottest functions) into a separate
 *     list of static call targets: candidates, not observations;
 *   - BRANCH events marked SAMPLED | BR_CALL but not TAKEN (the sw-clock
 *     rung's call stacks: a return address above the sampled callee) into
 *     caller -> callee call edges, checked and folded by stack_edges.c and
 *     titled as what they are: calls in progress seen on sampled stacks,
 *     not sampled branches;
 *   - the PROVENANCE event into the header (which sampler, samples, losses).
 * Every table is honest about what it proves: a sampled edge WAS taken, a
 * sampled site WAS running; absence proves nothing.
 *
 * finish() renders once at the end; snapshot() renders the same tables
 * mid-window (the TUI's periodic frame). Text rows are capped by --top
 * (default SP_TOP_DEFAULT, 0 = all); the JSON rows are always complete:
 * `provenance`, then `hot_edge` rows, or `call_edge` rows then
 * `hot_function` + `residency` rows, then `call_target` rows
 * (docs/asmtrace-schema.md).
 *
 * Which rung runs is the engine's choice (host/engine_choose.c): the named
 * --sampler, else the first usable rung of the ladder IBS -> LBR -> sw-clock
 * -> ptrace. The header names the rung it got. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include "common/hot_rank.h"
#include "common/strbuf.h"
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"
#include "plugins/views/sample/stack_edges.h"

/* Its records (the `sample_records` table at the end of this file). */
enum {
  SP_REC_PROVENANCE,
  SP_REC_HOT_EDGE,
  SP_REC_HOT_FUNCTION,
  SP_REC_RESIDENCY,
  SP_REC_CALL_TARGET,
  SP_REC_CALL_EDGE,
  SP_REC_N
};
static const struct asmspy_field call_edge_fields[] = {
    RF_INT("count", 1, 0, "stack frames showing this call in progress"),
    RF_HEX("from", ASMSPY_FIELDF_DRILL_ADDR, "the caller's return address (just after its call)"),
    RF_STR("from_sym", 0, "function+0xoff [module] of from"),
    RF_HEX("to", ASMSPY_FIELDF_DRILL_ADDR, "the callee's first byte"),
    RF_STR("to_sym", 0, "function [module] of to"),
    RF_BOOL("indirect", 0, "an indirect call (its target not checked against the callee)"),
    RF_END,
};

static const struct asmspy_record_schema sample_records[SP_REC_N + 1];

/* Its positionals, and the options this mode accepts after them: parsing,
 * --help, the man page, shell completion and serve's checks read the table
 * (the index enum keeps open() in step with it). */
#define POSITIONALS "<pid> [ms]"
enum { OPT_SAMPLER, OPT_TOP };
static const struct asmspy_option sample_options[] = {
    /* the engine picks the backend by it (a rung name, not a fixed list:
     * the sampler backends name their rungs) */
    [OPT_SAMPLER] = {"sampler", "<rung>",
                     "the sampler: ibs, lbr, sw, ptrace or event:<perf event> (default: the first "
                     "usable of ibs, lbr, sw, ptrace)"},
    [OPT_TOP] = {"top", "<n>", "rows in the table (default 40; 0 = all)"},
    {NULL, NULL, NULL},
};
#define SP_TOP_DEFAULT 40
#define SP_MAX_WINDOW_MS 3600000 /* an hour: anything longer is a typo */
#define SP_SITE_COLUMN 33        /* the from column of the seed's edge table */

struct sp_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t window_ms; /* 0 = the rung's default */
  long top;
  struct hr_table edges;     /* (from, to): sampled taken branches */
  struct hr_table sites;     /* (ip, 0): residency */
  struct hr_table calls;     /* (site, target): static call targets */
  struct hr_table stack_raw; /* (return address, callee site): sampled call stacks */
  struct se_result stack;    /* stack_raw checked and folded, at render time */
  struct strbuf pending;     /* text headings waiting for the next shown row */
  uint64_t branch_events, sample_events, lost_events;
  int have_prov;
  struct {
    uint64_t samples, branch_samples, lost, throttled, window_ns;
    char sampler[32];
  } prov;
};

/* ------------------------------------------------------------- naming -- */

/* How the header names each rung: what it measured and how. */
static const char *sp_rung_text(const char *sampler) {
  if (!strcmp(sampler, "ibs")) return "AMD IBS-Op, out of band";
  if (!strcmp(sampler, "lbr")) return "AMD LBR branch stacks, out of band";
  if (!strcmp(sampler, "sw-clock")) return "software task-clock, out of band";
  if (!strcmp(sampler, "sw-clock+stacks")) return "software task-clock call stacks, out of band";
  if (!strcmp(sampler, "ptrace")) return "ptrace attach-and-sample probes";
  return sampler;
}

/* The two values naming one address: "<key>":"0x..","<key>_sym":"fn+0x.. [m]"
 * (sym is the caller's buffer for the name). */
static void sp_addr_values(struct sp_state *st, uint64_t addr, char sym[400],
                           struct asmspy_value out[2]) {
  hr_site_text(st->host, st->s->target, addr, sym, 400);
  out[0] = rv_hex(addr);
  out[1] = rv_str(sym);
}

/* ------------------------------------------------------------ render -- */

/* Section headings are text only: they ride along with the next row's
 * emit (one record per row in JSON, no heading records). */
static void sp_heading(struct sp_state *st, const char *text) {
  strbuf_addf(&st->pending, "%s%s", st->pending.len ? "\n" : "", text);
}

/* One record of sample_records[rec]: the row's values v, its text t (shown:
 * in the text table) after any pending headings. A row beyond --top goes to
 * JSON only. */
static void sp_emit(struct sp_state *st, int rec, const struct asmspy_value *v, struct strbuf *t,
                    int shown) {
  const struct asmspy_host_api *h = st->host;
  int json_on = !ASMSPY_HAS(h, wants_json) || !h->wants_json || h->wants_json(st->s->out);
  if (shown || json_on) {
    struct strbuf text = {0};
    if (shown && st->pending.len) strbuf_addf(&text, "%s%s", st->pending.s, t->len ? "\n" : "");
    if (shown && t->len) strbuf_addf(&text, "%s", t->s);
    rec_emit(h, st->s->out, &sample_records[rec], v, text.len ? text.s : NULL);
    if (shown) strbuf_clear(&st->pending);
    free(text.s);
  }
  strbuf_clear(t);
}

static int sp_show(const struct sp_state *st, size_t i) {
  return st->top == 0 || i < (size_t)st->top;
}

/* The width of the "from" column: the widest site text shown, at least
 * SP_SITE_COLUMN (edge and call-edge tables line their arrows up on it). */
static int sp_from_width(struct sp_state *st, const struct hr_row **rows, size_t n) {
  int width = SP_SITE_COLUMN;
  for (size_t i = 0; i < n && sp_show(st, i); i++) {
    char from[400];
    hr_site_text(st->host, st->s->target, rows[i]->a, from, sizeof from);
    int w = (int)strlen(from);
    if (w > width) width = w;
  }
  return width;
}

static void sp_render_edges(struct sp_state *st, struct strbuf *t) {
  const struct hr_row **rows = hr_sorted(&st->edges);
  size_t n = rows ? st->edges.n : 0;
  int width = sp_from_width(st, rows, n);
  for (size_t i = 0; i < n; i++) {
    const struct hr_row *r = rows[i];
    int shown = sp_show(st, i);
    char from[400], to[400];
    hr_site_text(st->host, st->s->target, r->a, from, sizeof from);
    hr_site_text(st->host, st->s->target, r->b, to, sizeof to);
    unsigned misp_pct = r->count ? (unsigned)((r->misp * 100 + r->count / 2) / r->count) : 0;
    if (shown) {
      strbuf_addf(t, "%8" PRIu64 "  %-*s -> %s", r->count, width, from, to);
      if (r->misp) strbuf_addf(t, "  [misp %u%%]", misp_pct);
      if (r->flags & ASMSPY_EVF_BR_RET) strbuf_addf(t, "  [ret]");
      if (r->flags & ASMSPY_EVF_BR_CALL) strbuf_addf(t, "  [call]");
      if (st->top && i + 1 == (size_t)st->top && n > (size_t)st->top)
        strbuf_addf(t, "\n     ... %zu more edges (--top=0 shows all; --json has all)",
                    n - (size_t)st->top);
    }
    char from_sym[400], to_sym[400];
    struct asmspy_value v[8];
    v[0] = rv_int((int64_t)r->count);
    sp_addr_values(st, r->a, from_sym, &v[1]);
    sp_addr_values(st, r->b, to_sym, &v[3]);
    v[5] = rv_int((int64_t)r->misp);
    v[6] = rv_bool(r->flags & ASMSPY_EVF_BR_RET);
    v[7] = rv_bool(r->flags & ASMSPY_EVF_BR_CALL);
    sp_emit(st, SP_REC_HOT_EDGE, v, t, shown);
  }
  free(rows);
}

/* Caller -> callee edges from the sampled call stacks (stack_edges.h): the
 * caller's return site -> the callee's first byte. */
static void sp_render_call_edges(struct sp_state *st, struct strbuf *t) {
  const struct hr_row **rows = hr_sorted(&st->stack.edges);
  size_t n = rows ? st->stack.edges.n : 0;
  int width = sp_from_width(st, rows, n);
  for (size_t i = 0; i < n; i++) {
    const struct hr_row *r = rows[i];
    int shown = sp_show(st, i), indirect = (r->flags & SE_INDIRECT) != 0;
    char from[400], to[400];
    if (shown) {
      hr_site_text(st->host, st->s->target, r->a, from, sizeof from);
      hr_site_text(st->host, st->s->target, r->b, to, sizeof to);
      strbuf_addf(t, "%8" PRIu64 "  %-*s -> %s%s", r->count, width, from, to,
                  indirect ? "  [indirect]" : "");
      if (st->top && i + 1 == (size_t)st->top && n > (size_t)st->top)
        strbuf_addf(t, "\n     ... %zu more call edges (--top=0 shows all; --json has all)",
                    n - (size_t)st->top);
    }
    char from_sym[400], to_sym[400];
    struct asmspy_value v[6];
    v[0] = rv_int((int64_t)r->count);
    sp_addr_values(st, r->a, from_sym, &v[1]);
    sp_addr_values(st, r->b, to_sym, &v[3]);
    v[5] = rv_bool(indirect);
    sp_emit(st, SP_REC_CALL_EDGE, v, t, shown);
  }
  free(rows);
}

static void sp_render_residency(struct sp_state *st, struct strbuf *t) {
  const struct asmspy_host_api *h = st->host;
  size_t nf = 0;
  struct hr_func *f = hr_functions(h, st->s->target, &st->sites, 0, NULL, &nf);
  uint64_t named = 0;
  for (size_t i = 0; i < nf; i++) named += f[i].samples;
  sp_heading(st, "  by function:");
  if (!nf) sp_heading(st, "     (no sample fell in a named function)");
  int width = 0;
  for (size_t i = 0; i < nf && sp_show(st, i); i++) {
    int w = (int)(strlen(f[i].name) + strlen(f[i].module) + 3);
    if (w > width) width = w;
  }
  for (size_t i = 0; i < nf; i++) {
    int shown = sp_show(st, i);
    char label[260];
    snprintf(label, sizeof label, "%s [%s]", f[i].name, f[i].module);
    if (shown) {
      strbuf_addf(t, "%8" PRIu64 "  %-*s  %u offset%s", f[i].samples, width, label, f[i].spread,
                  f[i].spread == 1 ? "" : "s");
      if (st->top && i + 1 == (size_t)st->top && nf > (size_t)st->top)
        strbuf_addf(t, "\n     ... %zu more functions", nf - (size_t)st->top);
    }
    const struct asmspy_value v[] = {
        rv_str(f[i].name),          rv_str(f[i].module),           rv_hex(f[i].start),
        rv_int((int64_t)f[i].size), rv_int((int64_t)f[i].samples), rv_int(f[i].spread),
    };
    sp_emit(st, SP_REC_HOT_FUNCTION, v, t, shown);
  }
  free(f);
  if (st->sites.total > named) {
    char line[64];
    snprintf(line, sizeof line, "%8" PRIu64 "  (no symbol)", st->sites.total - named);
    sp_heading(st, line);
  }
  sp_heading(st, "  by site:");
  const struct hr_row **rows = hr_sorted(&st->sites);
  size_t n = rows ? st->sites.n : 0;
  for (size_t i = 0; i < n; i++) {
    int shown = sp_show(st, i);
    char site[400];
    if (shown) {
      strbuf_addf(t, "%8" PRIu64 "  %s", rows[i]->count,
                  hr_site_text(h, st->s->target, rows[i]->a, site, sizeof site));
      if (st->top && i + 1 == (size_t)st->top && n > (size_t)st->top)
        strbuf_addf(t, "\n     ... %zu more sites (--top=0 shows all; --json has all)",
                    n - (size_t)st->top);
    }
    char ip_sym[400];
    struct asmspy_value v[3];
    v[0] = rv_int((int64_t)rows[i]->count);
    sp_addr_values(st, rows[i]->a, ip_sym, &v[1]);
    sp_emit(st, SP_REC_RESIDENCY, v, t, shown);
  }
  free(rows);
}

static void sp_render_calls(struct sp_state *st, struct strbuf *t) {
  const struct hr_row **rows = hr_sorted(&st->calls);
  size_t n = rows ? st->calls.n : 0;
  if (!n) return;
  /* call-site order reads like the function's body */
  for (size_t a = 1; a < n; a++)
    for (size_t b = a; b > 0 && rows[b - 1]->a > rows[b]->a; b--) {
      const struct hr_row *tmp = rows[b];
      rows[b] = rows[b - 1];
      rows[b - 1] = tmp;
    }
  sp_heading(st, "  call targets decoded in the hottest functions (static: candidates, not "
                 "observations):");
  for (size_t i = 0; i < n; i++) {
    int shown = sp_show(st, i);
    char from[400], to[400];
    if (shown)
      strbuf_addf(t, "          %s -> %s",
                  hr_site_text(st->host, st->s->target, rows[i]->a, from, sizeof from),
                  hr_site_text(st->host, st->s->target, rows[i]->b, to, sizeof to));
    char from_sym[400], to_sym[400];
    struct asmspy_value v[4];
    sp_addr_values(st, rows[i]->a, from_sym, &v[0]);
    sp_addr_values(st, rows[i]->b, to_sym, &v[2]);
    sp_emit(st, SP_REC_CALL_TARGET, v, t, shown);
  }
  free(rows);
}

/* The whole table through host->emit, as it stands: finish() at the end,
 * snapshot() mid-window. The state is not changed. */
static int sp_render(struct sp_state *st, int final) {
  const struct asmspy_host_api *h = st->host;
  struct strbuf t = {0};
  int edges = st->edges.n > 0;
  /* an ip-only rung's call stacks: caller -> callee edges (never branches) */
  if (!edges && st->stack_raw.n) se_fold(h, st->s->target, &st->stack_raw, &st->stack);
  int call_edges = !edges && st->stack.edges.n > 0;
  const char *sampler = st->have_prov ? st->prov.sampler : NULL;
  uint64_t samples = st->have_prov ? st->prov.samples : st->sample_events + st->branch_events;
  uint64_t branch = st->have_prov ? st->prov.branch_samples : st->branch_events;
  char rung[96];
  if (sampler && call_edges && !strcmp(sampler, "sw-clock"))
    snprintf(rung, sizeof rung, "%s", sp_rung_text("sw-clock+stacks"));
  else if (sampler)
    snprintf(rung, sizeof rung, "%s", sp_rung_text(sampler));
  else
    snprintf(rung, sizeof rung, "%s", final ? "sampler unknown" : "sampling");
  if (edges) {
    strbuf_addf(&t,
                "statistical hot edges (%s) \u2014 %zu edge%s, %" PRIu64 "/%" PRIu64
                " branch/total samples (pid %d)",
                rung, st->edges.n, st->edges.n == 1 ? "" : "s", branch, samples, (int)st->s->pid);
  } else if (call_edges) {
    strbuf_addf(&t,
                "statistical call edges (%s) \u2014 %zu caller -> callee edge%s from %" PRIu64
                " stack frames, %" PRIu64 " samples (pid %d)",
                rung, st->stack.edges.n, st->stack.edges.n == 1 ? "" : "s", st->stack.kept, samples,
                (int)st->s->pid);
  } else {
    size_t nf = 0;
    struct hr_func *f = hr_functions(h, st->s->target, &st->sites, 0, NULL, &nf);
    free(f);
    strbuf_addf(&t,
                "statistical residency (%s) \u2014 %zu site%s in %zu function%s, %" PRIu64
                " samples (pid %d)",
                rung, st->sites.n, st->sites.n == 1 ? "" : "s", nf, nf == 1 ? "" : "s", samples,
                (int)st->s->pid);
  }
  if (st->have_prov && (st->prov.lost || st->prov.throttled))
    strbuf_addf(&t, "; %" PRIu64 " lost, %" PRIu64 " throttled", st->prov.lost, st->prov.throttled);
  if (edges)
    strbuf_addf(&t, "\nstatistical, not exact: an edge here WAS taken; absence proves nothing.");
  else if (call_edges)
    strbuf_addf(&t, "\nsampled call stacks, not branches: caller -> callee means the callee was "
                    "running inside a call made at that site; absence proves nothing.");
  else
    strbuf_addf(&t, "\nstatistical, not exact: code here WAS running; absence proves nothing, and "
                    "residency is not entry evidence.");
  if (!edges && !st->sites.n)
    strbuf_addf(&t, "\nno samples: no thread of pid %d ran user code in the window (idle?)",
                (int)st->s->pid);
  const struct asmspy_value v[] = {
      rv_str(sampler), /* NULL: null */
      rv_str(edges ? "edges" : "residency"),
      rv_int((int64_t)samples),
      rv_int((int64_t)branch),
      rv_int((int64_t)(st->have_prov ? st->prov.lost : st->lost_events)),
      rv_int((int64_t)(st->have_prov ? st->prov.throttled : 0)),
      rv_int((int64_t)(st->have_prov ? st->prov.window_ns : 0)),
      rv_int(st->s->pid),
      rv_int((int64_t)st->edges.n),
      rv_int((int64_t)st->sites.n),
      rv_bool(final),
      rv_int((int64_t)(call_edges ? st->stack.edges.n : 0)),
  };
  strbuf_clear(&st->pending);
  sp_emit(st, SP_REC_PROVENANCE, v, &t, 1);
  if (edges) {
    sp_render_edges(st, &t);
  } else if (st->sites.n) {
    if (call_edges) {
      sp_render_call_edges(st, &t);
      sp_heading(st, "  residency (where the samples ran; not entry evidence):");
    }
    sp_render_residency(st, &t);
  }
  sp_render_calls(st, &t);
  free(t.s);
  return 0;
}

/* ------------------------------------------------------------ view ops -- */

static int sp_usage(const struct asmspy_host_api *host, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int sp_usage(const struct asmspy_host_api *host, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const struct asmspy_session s = {.mode = "sample"};
  return vo_refuse(host, &s, sample_options, POSITIONALS, "%s", msg);
}

static int sp_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                   void **state) {
  long top = SP_TOP_DEFAULT;
  if (s->max < 0 || s->max > SP_MAX_WINDOW_MS) {
    return sp_usage(host, "invalid window '%lld': milliseconds, 1..%d", (long long)s->max,
                    SP_MAX_WINDOW_MS);
  }
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, sample_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.value[OPT_TOP]) { /* --sampler: the engine chose the rung by it */
    const char *a = ov.value[OPT_TOP];
    char *end = NULL;
    errno = 0;
    long v = strtol(a, &end, 10);
    if (errno || *end || v < 0)
      return sp_usage(host, "invalid --top '%s': a row count (0 = all)", a);
    top = v;
  }
  if (ov.npos)
    return sp_usage(host, "invalid window '%s': not a number of milliseconds", ov.pos[0]);
  struct sp_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->window_ms = s->max; /* the CLI parses the second positional as a count */
  st->top = top;
  *state = st;
  return 0;
}

static int sp_configure(void *state, const struct asmspy_host_api *host, struct asmspy_session *s) {
  (void)host;
  struct sp_state *st = state;
  s->window_ms = st->window_ms;
  st->s = s;
  return 0;
}

static int sp_consume(void *state, const struct asmspy_event *ev) {
  struct sp_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_BRANCH:
    if (se_is_stack_pair(ev)) { /* a call in progress on a sampled stack */
      hr_add(&st->stack_raw, ev->u.branch.from, ev->u.branch.to, 1, ev->flags);
      break;
    }
    if ((ev->flags & ASMSPY_EVF_BR_CALL) &&
        !(ev->flags & (ASMSPY_EVF_BR_TAKEN | ASMSPY_EVF_SAMPLED))) {
      hr_add(&st->calls, ev->u.branch.from, ev->u.branch.to, 1, ev->flags);
      break;
    }
    st->branch_events++;
    hr_add(&st->edges, ev->u.branch.from, ev->u.branch.to, 1, ev->flags);
    break;
  case ASMSPY_EV_SAMPLE:
    st->sample_events++;
    hr_add(&st->sites, ev->ip, 0, ev->u.sample.weight ? ev->u.sample.weight : 1, ev->flags);
    break;
  case ASMSPY_EV_PROVENANCE:
    st->have_prov = 1;
    st->prov.samples = ev->u.prov.samples;
    st->prov.branch_samples = ev->u.prov.branch_samples;
    st->prov.lost = ev->u.prov.lost;
    st->prov.throttled = ev->u.prov.throttled;
    st->prov.window_ns = ev->u.prov.window_ns;
    snprintf(st->prov.sampler, sizeof st->prov.sampler, "%s",
             ev->u.prov.sampler ? ev->u.prov.sampler : "?");
    break;
  case ASMSPY_EV_LOST: st->lost_events += ev->u.lost.count; break;
  case ASMSPY_EV_NOTE:
    if (ev->u.note.text) st->host->note(st->s->out, ASMSPY_NOTE_INFO, "%s", ev->u.note.text);
    break;
  default: break;
  }
  return ASMSPY_CONSUME_MORE;
}

static int sp_finish(void *state, int end_status) {
  struct sp_state *st = state;
  /* the sampler failed before a single sample (no PMU, refused): the
   * engine says the real error; an empty table would add a wrong guess
   * ("idle?") beside it */
  if (end_status < 0 && st && !st->sites.n && !st->edges.n && !st->stack.edges.n) return 0;
  return sp_render(state, 1);
}

static int sp_snapshot(void *state) { return sp_render(state, 0); }

static void sp_close(void *state) {
  struct sp_state *st = state;
  if (!st) return;
  hr_free(&st->edges);
  hr_free(&st->sites);
  hr_free(&st->calls);
  hr_free(&st->stack_raw);
  hr_free(&st->stack.edges);
  free(st->pending.s);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field provenance_fields[] = {
    RF_STR("sampler", NUL, "the rung (ibs, lbr, sw-clock, ptrace)"),
    RF_ENUM("kind", "edges|residency", 0, "edges (branches) or residency (bare IPs)"),
    RF_INT("samples", 0, 0, "samples delivered"),
    RF_INT("branch_samples", 0, 0, "those carrying a branch"),
    RF_INT("lost", 0, 0, "perf LOST records"),
    RF_INT("throttled", 0, 0, "perf THROTTLE records"),
    RF_INT("window_ns", 0, 0, "the window actually sampled"),
    RF_INT("pid", 0, OPT, "the target"),
    RF_INT("edges", 0, OPT, "rows in the edge table"),
    RF_INT("sites", 0, OPT, "rows in the site table"),
    RF_BOOL("final", OPT, "the end-of-window table (not a periodic TUI frame)"),
    RF_INT("call_edges", 0, OPT, "rows in the call-edge table (sampled call stacks)"),
    RF_END,
};
static const struct asmspy_field hot_edge_fields[] = {
    RF_INT("count", 1, 0, "samples of this edge"),
    RF_HEX("from", ASMSPY_FIELDF_DRILL_ADDR, "the branch's source"),
    RF_STR("from_sym", 0, "function+0xoff [module] of from"),
    RF_HEX("to", ASMSPY_FIELDF_DRILL_ADDR, "the branch's target"),
    RF_STR("to_sym", 0, "function+0xoff [module] of to"),
    RF_INT("misp", 0, 0, "mispredicted samples of the edge"),
    RF_BOOL("ret", 0, "the edge is a return"),
    RF_BOOL("call", OPT, "the edge is a call"),
    RF_END,
};
static const struct asmspy_field hot_function_fields[] = {
    RF_STR("name", 0, "the function"),
    RF_STR("module", 0, "its module"),
    RF_HEX("start", ASMSPY_FIELDF_DRILL_FUNC, "its start"),
    RF_INT("size", 0, OPT, "its size"),
    RF_INT("count", 1, 0, "samples in it"),
    RF_INT("offsets", 1, 0, "distinct sampled offsets in it"),
    RF_END,
};
static const struct asmspy_field residency_fields[] = {
    RF_INT("count", 1, 0, "samples at the site"),
    RF_HEX("ip", ASMSPY_FIELDF_DRILL_ADDR, "the sampled site"),
    RF_STR("ip_sym", 0, "function+0xoff [module] of ip"),
    RF_END,
};
static const struct asmspy_field call_target_fields[] = {
    RF_HEX("from", ASMSPY_FIELDF_DRILL_ADDR, "the call site"),
    RF_STR("from_sym", 0, "function+0xoff [module] of from"),
    RF_HEX("to", ASMSPY_FIELDF_DRILL_ADDR, "the decoded target"),
    RF_STR("to_sym", 0, "function+0xoff [module] of to"),
    RF_END,
};

static const struct asmspy_record_schema sample_records[SP_REC_N + 1] = {
    [SP_REC_PROVENANCE] = {"provenance", "the window's sampler, once before the tables",
                           provenance_fields, NULL},
    [SP_REC_HOT_EDGE] = {"hot_edge", "one sampled taken edge", hot_edge_fields, NULL},
    [SP_REC_HOT_FUNCTION] = {"hot_function", "samples per function", hot_function_fields, NULL},
    [SP_REC_RESIDENCY] = {"residency", "samples per site (bare IPs)", residency_fields, NULL},
    [SP_REC_CALL_TARGET] = {"call_target",
                            "a direct call decoded in the hottest functions (static: a candidate)",
                            call_target_fields, NULL},
    [SP_REC_CALL_EDGE] = {"call_edge",
                          "caller -> callee seen on sampled call stacks (a call in progress, "
                          "not a branch)",
                          call_edge_fields, NULL},
    [SP_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry sample_tui = {'7', ASMSPY_TUI_EDGES, 0, "hot edges (sampler)"};

static const struct asmspy_view_ops sp_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "sample",
    .caps_required = ASMSPY_CAP_IP_SAMPLES,
    .usage = POSITIONALS,
    .open = sp_open,
    .consume = sp_consume,
    .finish = sp_finish,
    .close = sp_close,
    .configure = sp_configure,
    .snapshot = sp_snapshot,
    .options = sample_options,
    .option_caps = NULL,
    .records = sample_records,
    .tui = &sample_tui,
};

static const struct asmspy_plugin sp_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "sample",
    .description = "statistical hot edges (IBS/LBR), call edges + residency (sw-clock) or "
                   "residency (ptrace) over a window",
    .caps = ASMSPY_CAP_IP_SAMPLES,
    .view = &sp_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(sp_plugin)
