/* amd_lbr in-process mode (ABI 1.4 inproc_begin/inproc_end): branch-stack
 * samples of the CALLING thread between begin and end, delivered as
 * ASMSPY_EV_BRANCH events (target NULL) when the scope ends. Chosen only by
 * an explicit ASMSPY_SCOPE_AMD_LBR (host/scope.c): a sampled branch survey
 * is statistical, never the exact instruction listing of the WEAK tier. */
#ifndef ASMSPY_AMD_LBR_INPROC_H
#define ASMSPY_AMD_LBR_INPROC_H

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"

int lbr_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                     void **handle);
int lbr_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx);

/* What end() delivers from, once the event is disabled: the thread's ring
 * and the scope's filters. Separate from the handle so the offline tests
 * can deliver from a ring they wrote. */
struct lbr_inproc_capture {
  struct pp_ring ring;
  pid_t pid, tid;
  uint64_t period;
  uint64_t region_start, region_len; /* region_len 0: the whole window */
  uint64_t max_branches;             /* req->max_insns; 0 = unbounded */
  uint64_t skip_lo, skip_hi;         /* this plugin's own text: never the caller's branches */
  uint64_t window_ns;
};

/* Drain c->ring into BRANCH events (target NULL), then a "truncated: ..."
 * NOTE when records were lost or the cap was hit, then the PROVENANCE
 * event. Returns 0. */
int lbr_inproc_deliver(struct lbr_inproc_capture *c, asmspy_sink_fn sink, void *sink_ctx);

#endif /* ASMSPY_AMD_LBR_INPROC_H */
