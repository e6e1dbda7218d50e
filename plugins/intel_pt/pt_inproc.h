/* pt_inproc — the STRONG tier of scoped tracing: Intel PT on the calling
 * thread (backend ops inproc_begin / inproc_end, ABI 1.4; docs/scope.md).
 *
 * begin opens a per-thread PT event on the caller (perf_event_open pid=0,
 * user space only), maps a full-trace AUX area and enables it with one
 * inlined `syscall` instruction; end disables it the same way as its first
 * act, then decodes the AUX bytes against the process's own image and hands
 * the instructions to the sink (target = NULL). The thread runs at full
 * speed in between: no signal, no trap, no single-step.
 *
 * pt_inproc_deliver() is the decode half on its own, so the offline tests
 * can hand it synthesized AUX bytes.
 */
#ifndef ASMSPY_INTEL_PT_INPROC_H
#define ASMSPY_INTEL_PT_INPROC_H

#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One finished in-process capture. */
struct pt_inproc_capture {
  const uint8_t *aux; /* the AUX area */
  size_t aux_size;
  uint64_t aux_head;                 /* bytes the kernel wrote (free-running) */
  uint64_t aux_flags;                /* PERF_AUX_FLAG_* of every PERF_RECORD_AUX, OR-ed */
  uint64_t sideband_lost;            /* PERF_RECORD_LOST: AUX records may be missing */
  pid_t pid, tid;                    /* stamped on the events */
  uint64_t region_start, region_len; /* keep only these ips (len 0: all) */
  uint64_t drop_start, drop_len;     /* never these (the plugin's own text) */
  uint64_t max_insns;                /* deliver at most this many (0: no limit) */
};

/* Decode the capture against this process's image (/proc/self/maps file
 * sections + its own memory) and deliver ASMSPY_EV_INSN events (target NULL)
 * to sink, then "truncated: ..." notes for a full or wrapped AUX area,
 * max_insns, or decode gaps. Returns 0 or -ASMSPY_E_NOMEM. */
int pt_inproc_deliver(const struct pt_inproc_capture *c, asmspy_sink_fn sink, void *sink_ctx);

#endif
