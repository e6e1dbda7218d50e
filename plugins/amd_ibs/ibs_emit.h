/* amd_ibs: decoded IBS-Op samples -> asmspy events.
 *
 * One emitter per window. It is the ps_consumer of the window's rings: each
 * SAMPLE record is decoded (ibs_record.h) and becomes
 *   - ASMSPY_EV_BRANCH for a retired branch op (OpBrnRet):
 *       u.branch.from = the op's address (IBS_OP_RIP; for a fused cmp+jcc
 *                       the jcc, one instruction on, when decodable),
 *       u.branch.to   = taken: IBS_BR_TARGET (0 when the CPU has no
 *                       BrnTrgt MSR); not taken: the fall-through (the next
 *                       instruction) when decodable, else 0,
 *       flags SAMPLED | BR_TAKEN (OpBrnTaken) | BR_MISP (OpBrnMisp) |
 *             BR_RET (OpReturn);
 *   - ASMSPY_EV_SAMPLE for any other op: ip = IBS_OP_RIP, u.sample.weight 1,
 *     u.sample.period = the op period, flags SAMPLED;
 *   - nothing for an op that cannot be trusted (see struct ibs_tally),
 *     counted per reason.
 * PERF_RECORD_LOST becomes ASMSPY_EV_LOST; ibs_emit_provenance() sends the
 * one PROVENANCE event that closes the window (sampler "ibs").
 */
#ifndef ASMSPY_AMD_IBS_EMIT_H
#define ASMSPY_AMD_IBS_EMIT_H

#include "plugins/amd_ibs/ibs_record.h"
#include "plugins/common/perf_sampling.h"

/* Length of the instruction at ip in the target, 0 when unknown. */
typedef int (*ibs_insn_len_fn)(void *ctx, uint64_t ip);

struct ibs_tally {
  uint64_t samples;        /* the target's user-space samples the kernel delivered */
  uint64_t branch_samples; /* of which retired branch ops (BRANCH events) */
  uint64_t op_samples;     /* of which other ops (SAMPLE events) */
  uint64_t foreign;   /* other processes' (or, with --tid, threads') samples: CPU-wide events */
  uint64_t kernel;    /* kernel-mode samples dropped here (a kernel without swfilt) */
  uint64_t no_target; /* taken branches without IBS_BR_TARGET (to = 0) */
  uint64_t no_fallthrough;  /* not-taken branches whose next instruction was not decodable */
  uint64_t fuse_unresolved; /* fused branches left at the cmp's address */
  uint64_t verdict[IBS_VERDICT_COUNT]; /* [IBS_OK] unused: undecodable / unusable records */
};

struct ibs_emitter {
  struct ps_emit out;
  pid_t pid;                /* only this thread group's samples count (CPU-wide events see all) */
  pid_t only_tid;           /* > 0: only that thread's */
  uint64_t period;          /* ops per sample: u.sample.period */
  int drop_kernel;          /* 1: kernel-mode samples arrive (no swfilt) and are dropped here */
  ibs_insn_len_fn insn_len; /* may be NULL */
  void *insn_len_ctx;
  struct ibs_tally t;
};

/* Fill em for one window. target may be NULL (offline). */
void ibs_emitter_init(struct ibs_emitter *em, asmspy_sink_fn sink, void *sink_ctx,
                      struct asmspy_target *target, pid_t pid, pid_t only_tid, uint64_t period,
                      int drop_kernel);

/* ps_consumer callbacks (arg = the emitter). Non-zero: the sink asked to stop. */
int ibs_emit_sample(void *em, const uint8_t *rec, size_t len);
int ibs_emit_lost(void *em, uint64_t n);

/* The consumer for ps_ring_drain / ps_run_window. */
static inline struct ps_consumer ibs_consumer(struct ibs_emitter *em) {
  struct ps_consumer c = {ibs_emit_sample, ibs_emit_lost, em};
  return c;
}

/* The closing PROVENANCE event: samples, branch_samples from the tally,
 * lost and throttled from the ring counts. */
void ibs_emit_provenance(struct ibs_emitter *em, const struct ps_counts *n, uint64_t window_ns);

/* "3 raw-short, 1 rip-invalid" for the records that produced no event, or
 * "" when there were none. */
void ibs_unusable_text(const struct ibs_tally *t, char *buf, size_t cap);

#endif /* ASMSPY_AMD_IBS_EMIT_H */
