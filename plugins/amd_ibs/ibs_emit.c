/* amd_ibs: decoded IBS-Op samples -> asmspy events (contract: ibs_emit.h). */
#include "plugins/amd_ibs/ibs_emit.h"
#include "plugins/common/sample_emit.h"

#include <stdio.h>
#include <string.h>

void ibs_emitter_init(struct ibs_emitter *em, asmspy_sink_fn sink, void *sink_ctx,
                      struct asmspy_target *target, pid_t pid, pid_t only_tid, uint64_t period,
                      int drop_kernel) {
  memset(em, 0, sizeof *em);
  se_out_init(&em->out, sink, sink_ctx, target, pid);
  em->pid = pid;
  em->only_tid = only_tid;
  em->period = period;
  em->drop_kernel = drop_kernel;
}

static int insn_len(const struct ibs_emitter *em, uint64_t ip) {
  return em->insn_len ? em->insn_len(em->insn_len_ctx, ip) : 0;
}

/* A retired branch op -> BRANCH. */
static int emit_branch(struct ibs_emitter *em, const struct ibs_op *op) {
  struct asmspy_event ev;
  ps_event_init(&em->out, &ev, ASMSPY_EV_BRANCH, (int32_t)op->tid);
  uint64_t from = ibs_op_rip(op);
  /* OpBrnFuse: the op is a cmp/test fused with the following jcc, and
   * IbsOpRip names the first of the pair; the branch is the next
   * instruction. */
  if (ibs_op_fused(op)) {
    int n = insn_len(em, from);
    if (n > 0)
      from += (uint64_t)n;
    else
      em->t.fuse_unresolved++;
  }
  uint16_t flags = ASMSPY_EVF_SAMPLED;
  uint64_t to = 0;
  if (ibs_op_taken(op)) {
    flags |= ASMSPY_EVF_BR_TAKEN;
    if (op->has_br_target)
      to = op->br_target;
    else
      em->t.no_target++;
  } else {
    int n = insn_len(em, from);
    if (n > 0)
      to = from + (uint64_t)n;
    else
      em->t.no_fallthrough++;
  }
  if (ibs_op_mispredicted(op)) flags |= ASMSPY_EVF_BR_MISP;
  if (ibs_op_return(op)) flags |= ASMSPY_EVF_BR_RET;
  ev.flags = flags;
  ev.ip = from;
  ev.u.branch.from = from;
  ev.u.branch.to = to;
  em->t.branch_samples++;
  return ps_emit_event(&em->out, &ev);
}

/* Any other op -> SAMPLE. */
static int emit_op(struct ibs_emitter *em, const struct ibs_op *op) {
  em->t.op_samples++;
  return se_emit_sample(&em->out, (int32_t)op->tid, ibs_op_rip(op), em->period);
}

int ibs_emit_sample(void *arg, const uint8_t *rec, size_t len) {
  struct ibs_emitter *em = arg;
  struct ibs_op op;
  int v = ibs_decode_sample(rec, len, &op);
  if (v == IBS_BAD_RECORD) { /* no pid to attribute it by: counted, not a sample */
    em->t.verdict[v]++;
    return em->out.stopped;
  }
  /* CPU-wide events (kernels without per-task IBS) see every process. */
  if (!se_is_target(em->pid, em->only_tid, op.pid, op.tid)) {
    em->t.foreign++;
    return em->out.stopped;
  }
  /* Without swfilt the kernel half is sampled too; the user asked for the
   * target's own code. Judged by the precise op address when there is one. */
  uint64_t where = v == IBS_OK ? ibs_op_rip(&op) : op.sample_ip;
  if (em->drop_kernel && ps_is_kernel_ip(where)) {
    em->t.kernel++;
    return em->out.stopped;
  }
  em->t.samples++;
  if (v != IBS_OK) {
    em->t.verdict[v]++;
    return em->out.stopped;
  }
  return ibs_op_is_branch(&op) ? emit_branch(em, &op) : emit_op(em, &op);
}

int ibs_emit_lost(void *arg, uint64_t n) {
  struct ibs_emitter *em = arg;
  return ps_emit_lost(&em->out, n);
}

void ibs_emit_provenance(struct ibs_emitter *em, const struct ps_counts *n, uint64_t window_ns) {
  ps_emit_provenance(&em->out, em->t.samples, em->t.branch_samples, n, window_ns, "ibs");
}

void ibs_unusable_text(const struct ibs_tally *t, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t used = 0;
  for (int v = IBS_OK + 1; v < IBS_VERDICT_COUNT; v++)
    se_count_text(buf, cap, &used, t->verdict[v], ibs_verdict_name(v));
}
