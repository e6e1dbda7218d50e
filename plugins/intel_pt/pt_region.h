/* pt_region — invocations of a region out of a decoded Intel PT stream, for
 * the region views (--trace) on intel_pt.
 *
 * singlestep captures an invocation by planting an int3 at the entry and
 * stepping until the entry frame's sp rises; PT has no registers, so the
 * invocation is segmented from control flow alone. The decoder keeps only
 * instructions inside the region (the kernel filter does the same in
 * hardware); per thread this layer turns that stream into the region
 * protocol the views read:
 *   ASMSPY_EV_REGION_ENTER  the region's first instruction at its entry,
 *                           outside an invocation (sample = 1, 2, ...)
 *   ASMSPY_EV_INSN          forwarded while an invocation is open; before
 *                           the first entry a thread's instructions are
 *                           dropped (the capture began mid-invocation)
 *   ASMSPY_EV_CALLOUT       a call from inside to outside the region (direct:
 *                           its target; indirect: known only as it returns,
 *                           to = 0), the callee having run unrecorded
 *   ASMSPY_EV_REGION_EXIT   a ret at depth 0 (a call from inside the region to
 *                           its own entry is recursion: depth + 1, its ret
 *                           depth - 1). retval is unknown: the event carries
 *                           ASMSPY_EVF_SP_UNKNOWN (no registers). A LOST
 *                           event, the thread's exit, a re-entry without an
 *                           exit (a tail jump out) or the end of the capture
 *                           close an open invocation with truncated = 1.
 * Everything else passes through unchanged. */
#ifndef ASMSPY_INTEL_PT_REGION_H
#define ASMSPY_INTEL_PT_REGION_H

#include <asmspy/plugin.h>
#include <stdint.h>

struct ptr_seg;

struct ptr_seg_opts {
  const struct asmspy_host_api *host; /* disasm */
  uint64_t start, len;                /* the region */
  asmspy_sink_fn sink;                /* the session's sink */
  void *sink_ctx;
  uint64_t *seq; /* the session's event counter: every event passed on is
                  * restamped from it (NULL: seq left as is) */
};

struct ptr_seg *ptr_seg_new(const struct ptr_seg_opts *o);
/* One event of the decoded stream; returns the sink's verdict (1 = stop). */
int ptr_seg_event(struct ptr_seg *g, const struct asmspy_event *ev);
/* The capture ended: close every open invocation (truncated). */
void ptr_seg_finish(struct ptr_seg *g);
/* Invocations entered so far (REGION_ENTER events). */
uint64_t ptr_seg_entered(const struct ptr_seg *g);
void ptr_seg_free(struct ptr_seg *g);

#endif
