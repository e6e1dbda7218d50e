/* plugins/common/probe_wait.h — a probe's drive loop over its traced
 * child (host->seam->spawn_child): resume (or step) it, take each stop
 * before a deadline, deliver the signals that are not the probe's, count
 * the trap stops and hand each to the probe, until the child exits. The
 * hwwatch probes (x86 debug registers, AArch64 NT_ARM_HW_WATCH) share it;
 * every ptrace call stays in the seam. Header-only. */
#ifndef ASMSPY_PLUGINS_COMMON_PROBE_WAIT_H
#define ASMSPY_PLUGINS_COMMON_PROBE_WAIT_H

#include <asmspy/plugin.h>

#include <string.h>

#include "plugins/common/perf_probe.h"

enum pw_end {
  PW_EXITED = 0,  /* the child exited: exit_code / term_sig */
  PW_RESUME = 1,  /* resume/step failed: err */
  PW_TIMEOUT = 2, /* no stop before the deadline */
  PW_STORM = 3    /* more than max_stops stops */
};

struct pw_run {
  int traps, stops;
  int exit_code; /* -1 unless it exited */
  int term_sig;  /* the signal it died on, 0 */
  int err;       /* PW_RESUME: errno */
};

/* is_trap: the probe's own trap stops (the rest are delivered back);
 * on_trap: one of them — returns 1 to single-step the next resume instead
 * of continuing. */
static inline int pw_drive(const struct asmspy_seam_api *seam, struct asmspy_seam *sm, pid_t pid,
                           int64_t deadline, int max_stops,
                           int (*is_trap)(const struct asmspy_stop *stop),
                           int (*on_trap)(void *ctx, const struct asmspy_stop *stop), void *ctx,
                           struct pw_run *r) {
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  int sig = 0, stepping = 0;
  for (;;) {
    int rc = stepping ? seam->step(sm, pid, sig) : seam->resume(sm, pid, sig);
    if (rc < 0) {
      r->err = -rc;
      return PW_RESUME;
    }
    sig = 0;
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    int64_t left = deadline - pp_now_ms();
    if (left <= 0 || seam->next_stop_timeout(sm, &stop, left) != 0 ||
        stop.kind == ASMSPY_STOP_TIMEOUT || stop.kind == ASMSPY_STOP_NONE)
      return PW_TIMEOUT;
    if (stop.kind == ASMSPY_STOP_EXITED) {
      if (stop.exit_code < 0)
        r->term_sig = -stop.exit_code;
      else
        r->exit_code = stop.exit_code;
      return PW_EXITED;
    }
    if (++r->stops > max_stops) return PW_STORM;
    if (!is_trap(&stop)) {
      sig = stop.kind == ASMSPY_STOP_SIGNAL ? stop.sig : 0; /* not ours: deliver it */
      stepping = 0;
      continue;
    }
    r->traps++;
    stepping = on_trap(ctx, &stop);
  }
}

#endif
