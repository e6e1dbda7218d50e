/* amd_ibs: the perf side of a sampling window — which PMU and config bits,
 * one event per thread of the target, the window, and what it all means for
 * the run's status. The records themselves go to ibs_emit.c.
 */
#ifndef ASMSPY_AMD_IBS_CAPTURE_H
#define ASMSPY_AMD_IBS_CAPTURE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "asmspy/plugin.h"

/* The event source of a window: ibs_op as sysfs describes it. (The live
 * plumbing test substitutes a software event here; nothing else differs.) */
struct ibs_pmu {
  const char *name; /* for notes: "ibs_op" */
  uint32_t type;    /* dynamic PMU type (ibs_op/type) */
  uint64_t config;  /* cnt_ctl when the PMU offers it */
  uint64_t config2; /* swfilt when the PMU offers it */
  int swfilt;       /* 1: the kernel filters by exclude_* (v6.14+): user-only sampling */
  int cnt_ctl;      /* 1: the period counts dispatched ops, not cycles */
  uint64_t period;  /* ops (or cycles) per sample; a multiple of 16 */
};

/* Read ibs_op's type and its format terms (swfilt, cnt_ctl) under root
 * (/sys/bus/event_source/devices, or a test tree). Returns 0, or a
 * negative -ASMSPY_E_* status with the reason in why. */
int ibs_pmu_from_sysfs(const char *root, uint64_t period, struct ibs_pmu *pmu, char *why,
                       size_t cap);

/* The attr every amd_ibs event uses (the probe's too): IP | TID | RAW,
 * the period, the config words; exclude_kernel/hv only with swfilt (before
 * v6.14 any exclude bit is EINVAL for IBS). Opened disabled. */
void ibs_attr_init(struct perf_event_attr *attr, const struct ibs_pmu *pmu);

/* One sampling window over s->pid (s->tid only, when set) for
 * s->window_ms (0: IBS_DEFAULT_WINDOW_MS), emitting through s->sink.
 * Returns 0, ASMSPY_FACT_EXITED (the target exited during the window; the
 * events of the part that ran were delivered), or -ASMSPY_E_* with the
 * reason noted. */
int ibs_capture(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct ibs_pmu *pmu);

#define IBS_DEFAULT_WINDOW_MS 300
#define IBS_RING_PAGES_LOG2_RUN 3u /* 32 KiB per thread: ~300 samples between 20 ms drains */

#endif /* ASMSPY_AMD_IBS_CAPTURE_H */
