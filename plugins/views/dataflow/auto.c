/* dataflow --auto: trace what the process is doing, no symbol needed.
 *
 * configure() first samples the target through host->run_sampler (the rung
 * --sampler names, or the ladder ibs > lbr > sw > ptrace: each refused rung
 * is noted with its probe's reason), for --window ms (default
 * DF_AUTO_WINDOW_MS), into a sink of its own. Then it ranks
 * (common/hot_rank.h):
 *   - a rung that delivers taken branches (IBS, LBR): ENTRY edges — a branch
 *     landing on a function's first byte from outside it is a direct
 *     observation of the very event the capture's entry breakpoint waits
 *     for; the best entered function first;
 *   - a rung that delivers bare IPs (sw-clock, ptrace): RESIDENCY — where
 *     time is spent, which is NOT entry evidence: its winner is often a loop
 *     entered once, before we came (main, an event loop). So up to
 *     HR_MAX_CANDIDATES functions are ranked (the ptrace rung's decoded call
 *     targets of the hottest function join the list) and walked.
 * The first candidate becomes the session's region, with a bounded entry
 * wait (DF_AUTO_ENTRY_WAIT_MS unless the environment sets one). A candidate
 * never seen entering is reported as exactly that (a true statement about
 * that candidate), and retry() moves the session to the next one; the
 * engine runs the capture backend again. The breakpoint that fires is the
 * real entry evidence — for a residency pick, the only evidence there is.
 *
 * An idle target gets a refusal (no function observed), not a guess; a host
 * where every rung refused gets "# SKIP" with the measured reasons. */
#define _GNU_SOURCE
#include "plugins/views/dataflow/auto.h"

#include "common/hot_rank.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

#define DF_AUTO_WINDOW_MS 400 /* the seed's ~400 ms */
#define DF_AUTO_MAX_WINDOW_MS 60000
#define DF_AUTO_ENTRY_WAIT_MS 2000 /* per candidate: it was running moments ago */

struct df_auto {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct df_auto_opts o;
  /* what the sampler delivered */
  struct hr_table edges, sites, calls;
  uint64_t sample_events, branch_events;
  int have_prov;
  uint64_t prov_samples, prov_window_ns;
  char sampler[32]; /* provenance name: "ibs", "sw-clock", "ptrace", ... */
  char rung[16];    /* the --sampler rung the ladder used */
  /* the walk */
  struct hr_ranking rk;
  int entries; /* ranked by entry edges (else residency) */
  size_t cur;  /* index of the candidate being captured */
  int missed;  /* the current candidate's entry wait ran out */
  int64_t wait_ms, window_ms;
};

/* --------------------------------------------------------------- open -- */

static int auto_usage(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      const char *msg, const char *arg) {
  host->note(NULL, ASMSPY_NOTE_WARN, "--%s: %s%s%s (usage: --%s <pid> %s)", s->mode, msg,
             arg ? " " : "", arg ? arg : "", s->mode, DF_AUTO_USAGE);
  return -ASMSPY_E_USAGE;
}

int df_auto_take_opts(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      const struct asmspy_optval *ov, struct df_auto_opts *o) {
  o->on = ov->value[DF_OPT_AUTO] != NULL;
  o->module = ov->value[DF_OPT_MODULE];
  o->sampler = ov->value[DF_OPT_SAMPLER];
  const char *w = ov->value[DF_OPT_WINDOW];
  if (w) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(w, &end, 10);
    if (errno || *end || v <= 0 || v > DF_AUTO_MAX_WINDOW_MS)
      return auto_usage(host, s, "invalid --window: milliseconds, 1..60000, got", w);
    o->window_ms = v;
  }
  /* the first of them given, for "this option only goes with --auto" */
  o->stray = o->module ? "--module" : o->sampler ? "--sampler" : w ? "--window" : NULL;
  return 0;
}

int df_auto_check(const struct asmspy_host_api *host, const struct asmspy_session *s,
                  const struct df_auto_opts *o, const struct rv_region *rv) {
  if (!o->on) {
    if (o->stray) return auto_usage(host, s, "this option only goes with --auto:", o->stray);
    return 0;
  }
  if (s->tid)
    return auto_usage(host, s,
                      "--auto cannot combine with --tid: the sampler carries no thread id, so "
                      "pinning could only arm a breakpoint on a thread that may never arrive",
                      NULL);
  if (rv->spec) return auto_usage(host, s, "--auto replaces the region argument; got", rv->spec);
  if (!ASMSPY_HAS(host, run_sampler) || !host->run_sampler) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s --auto needs a host with run_sampler() (ABI 1.5)",
               s->mode);
    return -ASMSPY_E_ABI;
  }
  return 0;
}

/* ---------------------------------------------------------- sampling -- */

static int auto_sink(void *ctx, const struct asmspy_event *ev) {
  struct df_auto *a = ctx;
  switch (ev->type) {
  case ASMSPY_EV_SAMPLE:
    a->sample_events++;
    hr_add(&a->sites, ev->ip, 0, ev->u.sample.weight ? ev->u.sample.weight : 1, ev->flags);
    break;
  case ASMSPY_EV_BRANCH:
    if ((ev->flags & ASMSPY_EVF_BR_CALL) &&
        !(ev->flags & (ASMSPY_EVF_BR_TAKEN | ASMSPY_EVF_SAMPLED)))
      hr_add(&a->calls, ev->u.branch.from, ev->u.branch.to, 1, ev->flags); /* static */
    else if (ev->flags & ASMSPY_EVF_BR_TAKEN) {
      a->branch_events++;
      hr_add(&a->edges, ev->u.branch.from, ev->u.branch.to, 1, ev->flags);
    }
    break;
  case ASMSPY_EV_PROVENANCE:
    a->have_prov = 1;
    a->prov_samples = ev->u.prov.samples;
    a->prov_window_ns = ev->u.prov.window_ns;
    snprintf(a->sampler, sizeof a->sampler, "%s", ev->u.prov.sampler ? ev->u.prov.sampler : "?");
    break;
  case ASMSPY_EV_NOTE:
    if (ev->u.note.text) a->host->note(a->s->out, ASMSPY_NOTE_INFO, "%s", ev->u.note.text);
    break;
  default: break;
  }
  return 0;
}

/* "--auto" for the entry-edge rung the seed describes (IBS); the rung's name
 * in brackets for the weaker ones, so a reader knows what the pick rests on. */
static void auto_prefix(const struct df_auto *a, char *buf, size_t cap) {
  const char *name = a->sampler[0] ? a->sampler : a->rung;
  if (!strcmp(name, "ibs"))
    snprintf(buf, cap, "--auto");
  else
    snprintf(buf, cap, "--auto[%s]", name);
}

static const char *evidence_name(int e) {
  return e == HR_ENTRY ? "entry" : e == HR_CALL_TARGET ? "call_target" : "residency";
}

/* The `auto` record (dataflow_records lists it with the view's others). */
const struct asmspy_field df_auto_fields[] = {
    RF_ENUM("event", "pick|retry|refused|exhausted", 0,
            "pick (the winner), retry (a later candidate), refused, exhausted"),
    RF_STR("sampler", 0, "the rung that answered (ibs, lbr, sw-clock, ptrace)"),
    RF_ENUM("rank", "entry|residency", OPT, "what was ranked"),
    RF_INT("candidates", 0, 0, "candidates kept"),
    RF_INT("observed", 0, OPT, "functions observed"),
    RF_INT("window_ms", ANY_INT, OPT, "the sampling window"),
    RF_INT("candidate", 1, OPT, "which candidate this is (1-based)"),
    RF_STR("name", OPT, "the candidate region's function"),
    RF_STR("module", OPT, "its module"),
    RF_HEX("start", OPT, "its start"),
    RF_INT("len", 0, OPT, "its length"),
    RF_INT("samples", 0, OPT, "its samples"),
    RF_INT("spread", 0, OPT, "distinct sampled offsets"),
    RF_ENUM("evidence", "entry|call_target|residency", OPT,
            "entry, call_target (a decoded call reaches it) or residency (NOT entry evidence)"),
    RF_END,
};
static const struct asmspy_record_schema auto_schema = {"auto", NULL, df_auto_fields, NULL};

/* One `auto` record: text as given, JSON with the event, the candidate (if
 * any) and the walk's position. */
static void auto_emit(struct df_auto *a, const char *event, const struct hr_candidate *c,
                      const char *text) {
  const struct asmspy_host_api *h = a->host;
  const char *sampler = a->sampler[0] ? a->sampler : a->rung;
  struct asmspy_value v[] = {
      rv_str(event),
      rv_str(sampler),
      rv_str(a->entries ? "entry" : "residency"),
      rv_int((int64_t)a->rk.n),
      rv_int((int64_t)a->rk.observed),
      rv_int(a->window_ms),
      rv_absent(),
      rv_absent(),
      rv_absent(),
      rv_absent(),
      rv_absent(),
      rv_absent(),
      rv_absent(),
      rv_absent(),
  };
  if (c) {
    v[6] = rv_int((int64_t)(c - a->rk.c) + 1);
    v[7] = rv_str(c->fn.name);
    v[8] = rv_str(c->fn.module);
    v[9] = rv_hex(c->fn.start);
    v[10] = rv_int((int64_t)c->fn.size);
    v[11] = rv_int((int64_t)c->fn.samples);
    v[12] = rv_int(c->fn.spread);
    v[13] = rv_str(evidence_name(c->evidence));
  }
  rec_emit(h, a->s->out, &auto_schema, v, text);
}

/* "(203 samples)", "(0 samples; called from grind_forever)" */
static void candidate_note(const struct df_auto *a, const struct hr_candidate *c, char *buf,
                           size_t cap) {
  const char *unit = a->entries ? " entry" : "";
  if (c->evidence == HR_CALL_TARGET)
    snprintf(buf, cap, "(%" PRIu64 "%s samples; called from %s)", c->fn.samples, unit, c->via);
  else
    snprintf(buf, cap, "(%" PRIu64 "%s samples)", c->fn.samples, unit);
}

static void auto_set_candidate(struct df_auto *a, struct asmspy_session *s, struct rv_region *rv) {
  const struct hr_candidate *c = &a->rk.c[a->cur];
  rv->start = s->region_start = c->fn.start;
  rv->len = s->region_len = c->fn.size;
  snprintf(rv->name, sizeof rv->name, "%s", c->fn.name);
  s->entry_wait_ms = rv->wait_ms = a->wait_ms;
}

static int64_t auto_entry_wait_ms(void) {
  if (getenv("ASMTEST_DF_ENTRY_WAIT_MS") || getenv("ASMSPY_ENTRY_WAIT_MS"))
    return rv_entry_wait_ms();
  return DF_AUTO_ENTRY_WAIT_MS;
}

int df_auto_configure(struct df_auto **out, const struct df_auto_opts *o,
                      const struct asmspy_host_api *host, struct asmspy_session *s,
                      struct rv_region *rv, const char *what) {
  *out = NULL;
  struct df_auto *a = calloc(1, sizeof *a);
  if (!a) return -ASMSPY_E_NOMEM;
  a->host = host;
  a->s = s;
  a->o = *o;
  a->window_ms = o->window_ms > 0 ? o->window_ms : DF_AUTO_WINDOW_MS;
  a->wait_ms = auto_entry_wait_ms();
  *out = a;
  int rc = host->run_sampler(s, o->sampler, a->window_ms, auto_sink, a, a->rung, sizeof a->rung);
  if (rc == -ASMSPY_E_USAGE) return rc; /* unknown rung: the ladder noted it */
  if (rc < 0) {
    if (ASMSPY_STATUS_CLASS(rc) == 3) {
      /* every rung asked for refused on this host: the question cannot be
       * asked here (the reasons were noted rung by rung) */
      host->note(s->out, ASMSPY_NOTE_SKIP,
                 "--auto: %s refused on this host (%s); see the reasons above",
                 o->sampler ? "the requested sampler" : "every sampler rung (ibs, lbr, sw, ptrace)",
                 host->strerror(rc));
      return rc;
    }
    host->note(s->out, ASMSPY_NOTE_WARN, "--auto: sampling pid %d failed: %s", (int)s->pid,
               host->strerror(rc));
    return rc;
  }
  if (rc == ASMSPY_FACT_EXITED) {
    host->note(s->out, ASMSPY_NOTE_WARN, "--auto: pid %d exited while it was sampled", (int)s->pid);
    return rc;
  }
  a->entries = a->edges.n > 0;
  if (a->entries)
    hr_rank_entries(host, s->target, &a->edges, o->module, &a->rk);
  else
    hr_rank_residency(host, s->target, &a->sites, &a->calls, o->module, &a->rk);

  char prefix[48], text[1024];
  auto_prefix(a, prefix, sizeof prefix);
  if (!a->rk.n) {
    uint64_t seen = a->entries ? a->branch_events : a->sample_events;
    char scope[160] = "";
    if (o->module) snprintf(scope, sizeof scope, " in a module matching '%s'", o->module);
    if (a->entries)
      snprintf(text, sizeof text,
               "%s: no function%s was observed being ENTERED in pid %d (%" PRIu64
               " taken-branch samples in %" PRId64 " ms): nothing to trace, and no guess is made",
               prefix, scope, (int)s->pid, seen, a->window_ms);
    else if (seen)
      snprintf(text, sizeof text,
               "%s: no function%s was observed running in pid %d (%" PRIu64 " samples in %" PRId64
               " ms, none in a function with a known extent%s): nothing to trace, and no guess "
               "is made",
               prefix, scope, (int)s->pid, seen, a->window_ms, o->module ? " there" : "");
    else
      snprintf(text, sizeof text,
               "%s: no function was observed running in pid %d (0 samples in %" PRId64
               " ms): an idle target gets a refusal, not a guess",
               prefix, (int)s->pid, a->window_ms);
    auto_emit(a, "refused", NULL, text);
    return ASMSPY_FACT_NO_EVENTS;
  }
  const struct hr_candidate *c = &a->rk.c[0];
  if (a->entries)
    snprintf(text, sizeof text,
             "%s: %s [%s] \u2014 %" PRIu64 " entry samples from %u call site%s (of %zu candidate%s "
             "in %" PRId64 " ms)",
             prefix, c->fn.name, c->fn.module, c->fn.samples, c->fn.spread,
             c->fn.spread == 1 ? "" : "s", a->rk.n, a->rk.n == 1 ? "" : "s", a->window_ms);
  else
    snprintf(text, sizeof text,
             "%s: %s [%s] \u2014 %" PRIu64 " residency samples at %u offset%s (of %zu candidate%s "
             "in %" PRId64 " ms%s). Residency is NOT entry evidence; up to %zu candidate%s will be "
             "tried",
             prefix, c->fn.name, c->fn.module, c->fn.samples, c->fn.spread,
             c->fn.spread == 1 ? "" : "s", a->rk.n, a->rk.n == 1 ? "" : "s", a->window_ms,
             a->calls.n ? "; call targets of the hottest functions included" : "", a->rk.n,
             a->rk.n == 1 ? "" : "s");
  auto_emit(a, "pick", c, text);
  /* the region line ("data-flow capture of ..."), through the shared path */
  char spec[64];
  snprintf(spec, sizeof spec, "0x%" PRIx64 ":%" PRIu64, c->fn.start, c->fn.size);
  rv->spec = spec;
  rc = rv_configure(rv, host, s, what);
  rv->spec = NULL; /* spec was a local; --auto never needs it again */
  if (rc) return rc;
  auto_set_candidate(a, s, rv);
  return 0;
}

/* ------------------------------------------------------------- the walk -- */

int df_auto_missed(struct df_auto *a) {
  if (!a || a->cur + 1 >= a->rk.n) return 0;
  a->missed = 1;
  return 1;
}

void df_auto_exhausted(struct df_auto *a) {
  if (!a) return;
  char prefix[48], who[160], text[512];
  auto_prefix(a, prefix, sizeof prefix);
  if (a->rk.n == 1)
    snprintf(who, sizeof who, "the only candidate, %s, was not", a->rk.c[0].fn.name);
  else
    snprintf(who, sizeof who, "none of the %zu candidates was", a->rk.n);
  snprintf(text, sizeof text, "%s: %s seen %s within %" PRId64 " ms; nothing was captured", prefix,
           who, a->entries ? "entering again" : "ENTERING", a->wait_ms);
  auto_emit(a, "exhausted", NULL, text);
}

int df_auto_retry(struct df_auto *a, int status, struct asmspy_session *s, struct rv_region *rv) {
  if (!a || !a->missed || status != ASMSPY_FACT_NOT_REACHED || a->cur + 1 >= a->rk.n) return 0;
  a->missed = 0;
  const struct hr_candidate *was = &a->rk.c[a->cur];
  const struct hr_candidate *next = &a->rk.c[a->cur + 1];
  char prefix[48], why[256], note[256], text[1024];
  auto_prefix(a, prefix, sizeof prefix);
  if (a->entries)
    snprintf(why, sizeof why, "was not seen entering again within %" PRId64 " ms", a->wait_ms);
  else if (a->cur == 0)
    snprintf(why, sizeof why,
             "was not seen ENTERING \u2014 a residency winner that never re-enters is the rule's "
             "known failure shape");
  else
    snprintf(why, sizeof why, "was not seen ENTERING within %" PRId64 " ms", a->wait_ms);
  candidate_note(a, next, note, sizeof note);
  snprintf(text, sizeof text, "%s: %s %s; trying candidate %zu/%zu: %s %s", prefix, was->fn.name,
           why, a->cur + 2, a->rk.n, next->fn.name, note);
  a->cur++;
  auto_emit(a, "retry", next, text);
  auto_set_candidate(a, s, rv);
  return 1;
}

void df_auto_free(struct df_auto *a) {
  if (!a) return;
  hr_free(&a->edges);
  hr_free(&a->sites);
  hr_free(&a->calls);
  free(a);
}
