/* plugins/common/sampler_run.h — the run() preamble and window the
 * per-thread samplers (pmu_event, swclock) share: refuse what a sampler
 * cannot observe, open the event on every thread of the session's pid (or
 * its --tid) with the reason when it opened on none, then run the window,
 * note it, emit the provenance and close.
 *
 * Header-only like perf_sampling.h (plugins never link each other). */
#ifndef ASMSPY_PLUGINS_COMMON_SAMPLER_RUN_H
#define ASMSPY_PLUGINS_COMMON_SAMPLER_RUN_H

#include <asmspy/plugin.h>

#include "plugins/common/perf_probe.h"
#include "plugins/common/perf_sampling.h"

/* A sampler observes a running pid: a session still marked launched is a
 * host that did not let the --launch'ed command go before its exec
 * (seam_release_after_exec). who names the sampler in the note. 0 or
 * -ASMSPY_E_USAGE. */
static inline int sr_check_session(const struct asmspy_host_api *host,
                                   const struct asmspy_session *s, const char *who) {
  if (s->flags & ASMSPY_SESS_LAUNCHED) {
    pp_note(host, pp_session_out(s), ASMSPY_NOTE_WARN,
            "%s samples a running pid; this host hands it a command stopped before its exec", who);
    return -ASMSPY_E_USAGE;
  }
  if (!s->sink || s->pid <= 0) return -ASMSPY_E_USAGE;
  return 0;
}

/* Why the event opened on no thread, into buf[cap] (the default:
 * ps_set_open_reason). */
typedef void (*sr_reason_fn)(const struct ps_set *set, const char *event, char *buf, size_t cap);

/* The event on every thread of the session's pid (only its --tid when
 * given). 0: open on at least one thread (close it with sr_run_window).
 * Else the status run() returns, the reason noted as "who: pid N: why" and
 * the set closed. */
static inline int sr_open_set(const struct asmspy_host_api *host, const struct asmspy_session *s,
                              struct ps_set *set, const struct perf_event_attr *attr,
                              unsigned ring_pages_log2, const char *who, const char *event,
                              sr_reason_fn reason) {
  if (ps_set_init(set, attr, s->pid, s->tid > 0 ? s->tid : 0, 0, ring_pages_log2) < 0)
    return -ASMSPY_E_NOMEM;
  int rc = ps_set_scan(set);
  if (set->n > 0) return 0;
  char why[800];
  if (reason)
    reason(set, event, why, sizeof why);
  else
    ps_set_open_reason(set, event, why, sizeof why);
  int st = rc == -ESRCH && !set->refused ? -ASMSPY_E_ATTACH_GONE : ps_set_open_status(set);
  pp_note(host, pp_session_out(s), ASMSPY_NOTE_WARN, "%s: pid %d: %s", who, (int)s->pid, why);
  ps_set_close(set);
  return st;
}

/* A window's consumer state: the session sink's event headers and the
 * samples it emitted (the consumer's arg, or the first member of it). */
struct sr_window {
  struct ps_emit out;
  uint64_t samples;
};

/* A zeroed window on the session's sink, one thread per event of set. */
static inline void sr_window_init(struct sr_window *w, const struct asmspy_session *s,
                                  const struct ps_set *set) {
  memset(w, 0, sizeof *w);
  w->out = (struct ps_emit){.sink = s->sink,
                            .sink_ctx = s->sink_ctx,
                            .target = s->target,
                            .pid = s->pid,
                            .nthreads = (uint32_t)set->n};
}

/* The window (the session's --window, else default_ms) through consumer
 * into w, its notes and provenance as `sampler`; closes the set. Returns
 * what run() returns. */
static inline int sr_run_window(const struct asmspy_host_api *host, const struct asmspy_session *s,
                                struct ps_set *set, struct sr_window *w,
                                const struct ps_consumer *consumer, int64_t default_ms,
                                const char *sampler) {
  struct ps_counts counts;
  memset(&counts, 0, sizeof counts);
  struct ps_window_result res;
  /* one record: a few dozen bytes, plus a callchain (8 + 8 per frame) */
  uint8_t buf[1024] __attribute__((aligned(8)));
  int64_t window_ms = ASMSPY_HAS(s, window_ms) && s->window_ms > 0 ? s->window_ms : default_ms;
  ps_run_window(set, window_ms, s->stop, buf, sizeof buf, consumer, &counts, &res);
  ps_note_window(host, pp_session_out(s), sampler, s->pid, set, &counts, &res);
  ps_emit_provenance(&w->out, w->samples, 0, &counts, res.window_ns, sampler);
  ps_set_close(set);
  return res.target_exited ? ASMSPY_FACT_EXITED : 0;
}

#endif
