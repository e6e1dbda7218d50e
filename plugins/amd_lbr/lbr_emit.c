/* amd_lbr: decoded branch-stack samples -> asmspy events (contract: lbr_emit.h). */
#include "plugins/amd_lbr/lbr_emit.h"
#include "plugins/common/sample_emit.h"

#include <stdio.h>
#include <string.h>

void lbr_emitter_init(struct lbr_emitter *em, asmspy_sink_fn sink, void *sink_ctx,
                      struct asmspy_target *target, pid_t pid, pid_t only_tid, uint64_t period) {
  memset(em, 0, sizeof *em);
  se_out_init(&em->out, sink, sink_ctx, target, pid);
  em->pid = pid;
  em->only_tid = only_tid;
  em->period = period;
  em->emit_samples = 1;
}

uint16_t lbr_entry_event_flags(const struct lbr_entry *e) {
  uint16_t f = ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_TAKEN;
  if (e->mispred) f |= ASMSPY_EVF_BR_MISP;
  switch (e->type) {
  case PERF_BR_RET:
  case PERF_BR_COND_RET: f |= ASMSPY_EVF_BR_RET; break;
  case PERF_BR_CALL:
  case PERF_BR_IND_CALL:
  case PERF_BR_COND_CALL: f |= ASMSPY_EVF_BR_CALL; break;
  default: break;
  }
  return f;
}

/* Whether entry e becomes an event; counts the reason when not. */
static int keep_entry(struct lbr_emitter *em, const struct lbr_entry *e) {
  if (e->spec == PERF_BR_SPEC_WRONG_PATH) {
    em->t.wrong_path++;
    return 0;
  }
  if (ps_is_kernel_ip(e->from) || ps_is_kernel_ip(e->to)) {
    em->t.kernel++;
    return 0;
  }
  if ((em->region_len &&
       (e->from < em->region_start || e->from - em->region_start >= em->region_len)) ||
      (e->from >= em->skip_lo && e->from < em->skip_hi)) {
    em->t.outside++;
    return 0;
  }
  if (em->max_branches && em->t.branches >= em->max_branches) {
    em->t.capped++;
    em->truncated = 1;
    return 0;
  }
  return 1;
}

int lbr_emit_sample(void *arg, const uint8_t *rec, size_t len) {
  struct lbr_emitter *em = arg;
  struct lbr_sample s;
  int v = lbr_decode_sample(rec, len, &s);
  if (v == LBR_BAD_RECORD) {
    em->t.verdict[v]++;
    return em->out.stopped;
  }
  if (!se_is_target(em->pid, em->only_tid, s.pid, s.tid)) {
    em->t.foreign++;
    return em->out.stopped;
  }
  em->t.samples++;
  if (v != LBR_OK) {
    em->t.verdict[v]++;
    return em->out.stopped;
  }
  if (em->emit_samples && se_emit_sample(&em->out, (int32_t)s.tid, s.ip, em->period)) return 1;
  struct asmspy_event ev;
  if (s.nr == 0) em->t.empty++;
  uint64_t emitted = 0;
  for (uint64_t i = 0; i < s.nr; i++) {
    struct lbr_entry e;
    lbr_entry_at(&s, i, &e);
    if (!keep_entry(em, &e)) continue;
    ps_event_init(&em->out, &ev, ASMSPY_EV_BRANCH, (int32_t)s.tid);
    ev.flags = lbr_entry_event_flags(&e);
    ev.ip = e.from;
    ev.u.branch.from = e.from;
    ev.u.branch.to = e.to;
    em->t.branches++;
    if (emitted++ == 0) em->t.branch_samples++;
    if (ps_emit_event(&em->out, &ev)) return 1;
  }
  return em->out.stopped;
}

int lbr_emit_lost(void *arg, uint64_t n) {
  struct lbr_emitter *em = arg;
  return ps_emit_lost(&em->out, n);
}

void lbr_emit_provenance(struct lbr_emitter *em, const struct ps_counts *n, uint64_t window_ns) {
  ps_emit_provenance(&em->out, em->t.samples, em->t.branch_samples, n, window_ns, "lbr");
}

void lbr_dropped_text(const struct lbr_tally *t, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t used = 0;
  const struct {
    uint64_t n;
    const char *what;
  } rows[] = {
      {t->wrong_path, "wrong-path"},
      {t->kernel, "kernel"},
      {t->outside, "outside the region"},
      {t->capped, "over the cap"},
      {t->verdict[LBR_BAD_RECORD], "bad-record"},
      {t->verdict[LBR_STACK_OVERRUN], "stack-overrun"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    se_count_text(buf, cap, &used, rows[i].n, rows[i].what);
}
