/* amd_lbr — capture backend: AMD branch stacks (Zen 4 LbrExtV2, Zen 3 BRS)
 * through perf's PERF_SAMPLE_BRANCH_STACK on the core `cpu` PMU.
 *
 * This file holds the probe: it reads the branch-stack depth the core PMU
 * exposes (cpu/caps/branches; absent when the depth is 0), opens a real
 * user-only sampling event with a branch stack on a forked child, maps the
 * ring, runs a loop and requires samples whose stacks are non-empty. Every
 * "no" names the gate that said it, with the errno and the measured setting.
 *
 * Kernel ABI: arch/x86/events/amd/{lbr,brs}.c, kernel/events/core.c
 * (has_branch_stack() without lbr_nr -> EOPNOTSUPP). BRS needs the raw event
 * 0xc4 (retired taken branches), a fixed period > 16 and branch type ANY;
 * LbrExtV2 accepts any sampling event. Debian kernels build without
 * CONFIG_PERF_EVENTS_AMD_BRS.
 *
 * Capture itself (branch-stack decode into edges) lands with issue 6; until
 * then run() re-checks availability and says so.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"

#define LBR_NAME "amd_lbr"
#ifndef LBR_SYSFS_ROOT /* tests may point the probe at a fake sysfs tree */
#define LBR_SYSFS_ROOT PP_SYSFS_PMU_ROOT
#endif
#define LBR_CPU_DIR LBR_SYSFS_ROOT "/cpu"
#define LBR_DEPTH_PATH LBR_CPU_DIR "/caps/branches"
#define LBR_CAPS (ASMSPY_CAP_BRANCH_SAMPLES | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_INPROCESS)

#define LBR_PERIOD 50000ull /* fixed (BRS refuses freq) and > 16 */
#define LBR_LOOP_ITERS 2000000ul
#define LBR_CHILD_TIMEOUT_MS 3000
#define LBR_RING_PAGES_LOG2 4u
#define LBR_RAW_RETIRED_TAKEN_BRANCHES 0xc4ull

/* Samples long enough to hold a branch-stack count, how many carry a
 * non-empty stack, and the deepest stack seen. */
struct lbr_tally {
  unsigned long samples, with_stack;
  uint64_t max_nr;
};

/* IP|TID|TIME|BRANCH_STACK: hdr(8) ip(8) pid,tid(8) time(8) nr(8) entries[nr](24) */
static void lbr_tally_sample(const uint8_t *rec, size_t len, void *arg)
{
  struct lbr_tally *t = arg;
  if (len < 40)
    return;
  t->samples++;
  uint64_t nr;
  memcpy(&nr, rec + 32, sizeof nr);
  if (nr > 0 && 40 + nr * 24 <= (uint64_t)len) {
    t->with_stack++;
    if (nr > t->max_nr)
      t->max_nr = nr;
  }
}

static int lbr_probe_impl(struct asmspy_probe_result *res)
{
  /* 1. a core PMU with a branch-stack depth */
  long long depth = 0;
  int rc = pp_read_sysfs_int(LBR_DEPTH_PATH, 10, &depth);
  if (rc == -ENOENT || (rc == 0 && depth <= 0)) {
    char pmus[160];
    pp_pmu_list_text(LBR_SYSFS_ROOT, pmus, sizeof pmus);
    if (access(LBR_CPU_DIR, F_OK) != 0)
      return pp_verdict(res, ASMSPY_E_NO_HW, ENOENT, 0,
                        "no branch-stack depth: " LBR_DEPTH_PATH " missing (no LbrExtV2/BRS PMU "
                        "exposed); not even a core cpu PMU (no vPMU; PMUs here: %s)",
                        pmus);
    if (pp_cpu_has_flag("brs") == 1)
      return pp_verdict(res, ASMSPY_E_NO_KERNEL, ENOENT, 0,
                        "CPU flag brs (Zen 3 BRS) is set but " LBR_DEPTH_PATH " is missing: "
                        "kernel built without CONFIG_PERF_EVENTS_AMD_BRS");
    if (pp_cpu_has_flag("amd_lbr_v2") == 1)
      return pp_verdict(res, ASMSPY_E_NO_KERNEL, ENOENT, 0,
                        "CPU flag amd_lbr_v2 is set but " LBR_DEPTH_PATH " is missing: kernel "
                        "older than 6.1 or PerfMonV2 not exposed");
    return pp_verdict(res, ASMSPY_E_NO_HW, ENOENT, 0,
                      "no branch-stack depth: " LBR_DEPTH_PATH " missing (no LbrExtV2/BRS PMU "
                      "exposed; the cpu PMU exists without branch records)");
  }
  if (rc < 0)
    return pp_verdict_unreadable(res, LBR_DEPTH_PATH, rc);

  /* 2. a user-only branch-stack sampling event on a forked child */
  int brs = pp_cpu_has_flag("brs") == 1 && pp_cpu_has_flag("amd_lbr_v2") != 1;
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  if (brs) {
    attr.type = PERF_TYPE_RAW;
    attr.config = LBR_RAW_RETIRED_TAKEN_BRANCHES;
  } else {
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
  }
  attr.sample_period = LBR_PERIOD;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK;
  attr.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  const char *ev = brs ? "raw 0xc4" : "cycles";

  unsigned long iters = LBR_LOOP_ITERS;
  struct pp_child child;
  struct pp_ring ring = {0};
  int status = ASMSPY_USABLE;
  rc = pp_probe_child_fork(res, LBR_NAME, &child, pp_spin_branches, &iters);
  if (rc != 0)
    return rc;
  int fd = pp_perf_event_open(&attr, child.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    char hint[200];
    if (e == EOPNOTSUPP)
      snprintf(hint, sizeof hint,
               "the PMU has no branch stack for this event or filter (depth %lld)", depth);
    else if (e == EINVAL && brs)
      snprintf(hint, sizeof hint, "BRS needs event 0xc4, a fixed period > 16 and type ANY");
    else
      pp_perf_errno_hint(e, hint, sizeof hint);
    status = pp_verdict(res, pp_perf_errno_status(e), e, 0,
                        "perf_event_open(%s, branch_sample_type=USER|ANY, per-task, user-only): "
                        "%s (%s)",
                        ev, pp_errno_name(e), hint);
    goto out;
  }

  status = pp_probe_ring_map(res, "amd_lbr: mmap of the perf ring", fd, LBR_RING_PAGES_LOG2,
                             &ring);
  if (status != 0)
    goto out;

  /* 3. functional: sample a known loop, require non-empty branch stacks */
  status = pp_probe_run_child(res, LBR_NAME, "sampled", fd, &child, LBR_CHILD_TIMEOUT_MS);
  if (status != 0)
    goto out;
  struct lbr_tally t = {0, 0, 0};
  uint8_t rec[4096];
  (void)pp_ring_drain_samples(&ring, rec, sizeof rec, lbr_tally_sample, &t);
  if (t.samples == 0 || t.with_stack == 0) {
    status = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                        "%s event with a branch stack opened (depth %lld) but %lu samples, %lu "
                        "with branch records, over a %lu-iteration loop: branch records are not "
                        "delivered here",
                        ev, depth, t.samples, t.with_stack, iters);
    goto out;
  }
  status = pp_verdict(res, ASMSPY_USABLE, 0, LBR_CAPS,
                      "%s (depth %lld, %s): %lu user-only samples, %lu with branch stacks (up to "
                      "%llu entries) over a %lu-iteration loop",
                      brs ? "Zen 3 BRS" : "branch stack", depth, ev, t.samples, t.with_stack,
                      (unsigned long long)t.max_nr, iters);

out:
  pp_probe_release(&ring, fd, &child);
  return status;
}

PP_PROBE_ONLY_BACKEND(LBR_NAME, LBR_CAPS,
                      "AMD branch stacks (Zen 4 LbrExtV2 / Zen 3 BRS) via perf: sampled branch edges",
                      lbr_probe_impl)

