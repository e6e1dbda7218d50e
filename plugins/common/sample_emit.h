/* plugins/common/sample_emit.h — what the per-record emitters of the
 * sampling backends (amd_ibs ibs_emit.c, amd_lbr lbr_emit.c) share: the
 * sink side of an emitter, whose samples count (the target's thread group,
 * only its --tid when given), a SAMPLE event, and the "N what, N what" text
 * of the counts a window dropped.
 *
 * Header-only like perf_sampling.h (plugins never link each other). */
#ifndef ASMSPY_PLUGINS_COMMON_SAMPLE_EMIT_H
#define ASMSPY_PLUGINS_COMMON_SAMPLE_EMIT_H

#include "plugins/common/perf_sampling.h"

#include <stdio.h>
#include <sys/types.h>

/* An emitter's sink side for one window: one thread until told otherwise.
 * target may be NULL (offline). */
static inline void se_out_init(struct ps_emit *out, asmspy_sink_fn sink, void *sink_ctx,
                               struct asmspy_target *target, pid_t pid) {
  out->sink = sink;
  out->sink_ctx = sink_ctx;
  out->target = target;
  out->pid = pid;
  out->nthreads = 1;
}

/* Whether a sample of (pid, tid) is the target's: its thread group and,
 * when only_tid > 0, that thread (CPU-wide events see every process). */
static inline int se_is_target(pid_t want_pid, pid_t only_tid, uint32_t pid, uint32_t tid) {
  return (pid_t)pid == want_pid && (only_tid <= 0 || (pid_t)tid == only_tid);
}

/* One SAMPLE event at ip: weight 1, `period` units per sample. Non-zero:
 * the sink asked to stop. */
static inline int se_emit_sample(struct ps_emit *out, int32_t tid, uint64_t ip, uint64_t period) {
  struct asmspy_event ev;
  ps_event_init(out, &ev, ASMSPY_EV_SAMPLE, tid);
  ev.flags = ASMSPY_EVF_SAMPLED;
  ev.ip = ip;
  ev.u.sample.weight = 1;
  ev.u.sample.period = period;
  return ps_emit_event(out, &ev);
}

/* Append "N what" (", "-separated) to buf[cap] when n is not 0; *used is
 * the text's length so far (start with buf[0] = 0, *used = 0). */
static inline void se_count_text(char *buf, size_t cap, size_t *used, uint64_t n,
                                 const char *what) {
  if (!n || *used >= cap) return;
  int w = snprintf(buf + *used, cap - *used, "%s%llu %s", *used ? ", " : "", (unsigned long long)n,
                   what);
  if (w > 0) *used += (size_t)w;
}

#endif
