/* amd_lbr: decoded branch-stack samples -> asmspy events.
 *
 * One emitter per window (or per in-process scope). It is the ps_consumer of
 * the rings: each SAMPLE record is decoded (lbr_record.h) and becomes
 *   - ASMSPY_EV_SAMPLE for the record's ip (capture windows only:
 *     emit_samples), u.sample.weight 1, u.sample.period = the cycle period;
 *   - one ASMSPY_EV_BRANCH per stack entry, most recent first:
 *     u.branch.from/to as recorded, ip = from, flags SAMPLED | BR_TAKEN (a
 *     branch record is a taken branch) | BR_MISP (mispred) | BR_RET (type
 *     RET / COND_RET) | BR_CALL (type CALL / IND_CALL / COND_CALL).
 * Entries are dropped, counted per reason, when they were recorded on a
 * wrong speculative path (spec = PERF_BR_SPEC_WRONG_PATH: never retired),
 * touch the kernel half, fall outside the region / inside the skipped range
 * (in-process: the plugin's own code), or come after max_branches.
 * PERF_RECORD_LOST becomes ASMSPY_EV_LOST; lbr_emit_provenance() sends the
 * one PROVENANCE event that closes the window (sampler "lbr"):
 * branch_samples = samples whose stack yielded at least one BRANCH.
 */
#ifndef ASMSPY_AMD_LBR_EMIT_H
#define ASMSPY_AMD_LBR_EMIT_H

#include "plugins/amd_lbr/lbr_record.h"
#include "plugins/common/perf_sampling.h"

struct lbr_tally {
  uint64_t samples;                    /* the target's samples the kernel delivered */
  uint64_t branch_samples;             /* of which yielded at least one BRANCH */
  uint64_t branches;                   /* BRANCH events */
  uint64_t empty;                      /* samples whose stack was empty */
  uint64_t wrong_path;                 /* entries on a wrong speculative path */
  uint64_t kernel;                     /* entries touching the kernel half */
  uint64_t outside;                    /* entries outside the region or inside the skipped range */
  uint64_t capped;                     /* entries past max_branches */
  uint64_t foreign;                    /* other processes' / threads' samples */
  uint64_t verdict[LBR_VERDICT_COUNT]; /* [LBR_OK] unused: undecodable records */
};

struct lbr_emitter {
  struct ps_emit out;
  pid_t pid;             /* only this thread group's samples count */
  pid_t only_tid;        /* > 0: only that thread's */
  uint64_t period;       /* cycles per sample: u.sample.period */
  int emit_samples;      /* 1: a SAMPLE event per record (capture windows) */
  uint64_t region_start; /* region_len > 0: keep entries whose from is inside */
  uint64_t region_len;
  uint64_t skip_lo, skip_hi; /* drop entries whose from is in [skip_lo, skip_hi) */
  uint64_t max_branches;     /* 0 = unbounded; beyond it: counted in capped, truncated */
  int truncated;
  struct lbr_tally t;
};

void lbr_emitter_init(struct lbr_emitter *em, asmspy_sink_fn sink, void *sink_ctx,
                      struct asmspy_target *target, pid_t pid, pid_t only_tid, uint64_t period);

/* ps_consumer callbacks (arg = the emitter). Non-zero: the sink asked to stop. */
int lbr_emit_sample(void *em, const uint8_t *rec, size_t len);
int lbr_emit_lost(void *em, uint64_t n);

static inline struct ps_consumer lbr_consumer(struct lbr_emitter *em) {
  struct ps_consumer c = {lbr_emit_sample, lbr_emit_lost, em};
  return c;
}

/* The asmspy flags of one branch record. */
uint16_t lbr_entry_event_flags(const struct lbr_entry *e);

void lbr_emit_provenance(struct lbr_emitter *em, const struct ps_counts *n, uint64_t window_ns);

/* "12 wrong-path, 3 kernel" for the entries that produced no event, or "". */
void lbr_dropped_text(const struct lbr_tally *t, char *buf, size_t cap);

#endif /* ASMSPY_AMD_LBR_EMIT_H */
