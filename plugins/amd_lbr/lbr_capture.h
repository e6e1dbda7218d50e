/* amd_lbr: the perf side — which event carries the branch stack, one event
 * per thread of the target, the window, and what it all means for the run's
 * status. The records themselves go to lbr_emit.c.
 */
#ifndef ASMSPY_AMD_LBR_CAPTURE_H
#define ASMSPY_AMD_LBR_CAPTURE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "asmspy/plugin.h"

/* The sampling event that carries the stack. */
struct lbr_pmu {
  const char *event;           /* for notes: "cycles" or "raw 0xc4" */
  int brs;                     /* Zen 3 BRS (no LbrExtV2): its own constraints */
  long long depth;             /* cpu/caps/branches */
  uint32_t type;               /* PERF_TYPE_HARDWARE / PERF_TYPE_RAW */
  uint64_t config;             /* cycles / 0xc4 retired taken branches */
  uint64_t period;             /* fixed (BRS refuses freq) and > 16 */
  uint64_t branch_sample_type; /* USER | ANY (| TYPE_SAVE on LbrExtV2) */
};

#define LBR_RAW_RETIRED_TAKEN_BRANCHES 0xc4ull
/* Window periods: a few thousand samples per second of a busy thread (the
 * kernel throttles denser sampling). Odd, so the sampling point does not
 * lock step with a loop. */
#define LBR_PERIOD_CYCLES 1000003ull
#define LBR_PERIOD_BRS 100003ull /* BRS counts retired taken branches */
#define LBR_DEFAULT_WINDOW_MS 300
#define LBR_RING_PAGES_LOG2_RUN 4u /* 64 KiB per thread: ~150 16-deep samples per 20 ms drain */

/* Read the branch-stack depth under root (/sys/bus/event_source/devices or
 * a test tree) and pick the event: LbrExtV2 (any sampling event: cycles,
 * with the software branch-type decode) or Zen 3 BRS (raw 0xc4, type ANY
 * only). Returns 0, or -ASMSPY_E_* with the reason in why. */
int lbr_pmu_from_sysfs(const char *root, uint64_t period_cycles, uint64_t period_brs,
                       struct lbr_pmu *pmu, char *why, size_t cap);

/* The attr every amd_lbr event uses (the probe's too): LBR_SAMPLE_TYPE,
 * user-only branches of any type, exclude_kernel/hv, opened disabled. */
void lbr_attr_init(struct perf_event_attr *attr, const struct lbr_pmu *pmu);

/* One sampling window over s->pid (s->tid only, when set) for
 * s->window_ms (0: LBR_DEFAULT_WINDOW_MS), emitting through s->sink.
 * Returns 0, ASMSPY_FACT_EXITED, or -ASMSPY_E_* with the reason noted. */
int lbr_capture(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct lbr_pmu *pmu);

#endif /* ASMSPY_AMD_LBR_CAPTURE_H */
