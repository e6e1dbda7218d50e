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

static int lbr_probe_impl(struct asmspy_probe_result *res)
{
  /* 1. a core PMU with a branch-stack depth */
  long long depth = 0;
  int rc = pp_read_sysfs_int(LBR_DEPTH_PATH, 10, &depth);
  if (rc == -ENOENT || (rc == 0 && depth <= 0)) {
    char pmus[160];
    if (pp_list_pmus_at(LBR_SYSFS_ROOT, pmus, sizeof pmus) < 0)
      snprintf(pmus, sizeof pmus, "unreadable");
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
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, -rc, 0, "cannot read " LBR_DEPTH_PATH ": %s",
                      pp_errno_name(-rc));

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
  rc = pp_child_fork(&child, pp_spin_branches, &iters);
  if (rc < 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0, "amd_lbr probe: fork: %s",
                      pp_errno_name(-rc));
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

  rc = pp_ring_map(fd, LBR_RING_PAGES_LOG2, &ring);
  if (rc < 0) {
    char hint[200];
    if (rc == -EPERM)
      pp_mlock_hint(hint, sizeof hint);
    else
      snprintf(hint, sizeof hint, "%s", strerror(-rc));
    status = pp_verdict(res, rc == -EPERM ? ASMSPY_E_PERM : pp_perf_errno_status(-rc), -rc, 0,
                        "amd_lbr: mmap of the perf ring: %s (%s)", pp_errno_name(-rc), hint);
    goto out;
  }

  /* 3. functional: sample a known loop, require non-empty branch stacks */
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
    int e = errno;
    status = pp_verdict(res, pp_perf_errno_status(e), e, 0, "amd_lbr: PERF_EVENT_IOC_ENABLE: %s",
                        pp_errno_name(e));
    goto out;
  }
  rc = pp_child_go(&child);
  if (rc == 0)
    rc = pp_child_wait(&child, LBR_CHILD_TIMEOUT_MS, NULL);
  (void)ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  if (rc < 0) {
    status = pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                        "amd_lbr probe: the sampled child did not finish its loop: %s",
                        pp_errno_name(-rc));
    goto out;
  }
  /* IP|TID|TIME|BRANCH_STACK: hdr(8) ip(8) pid,tid(8) time(8) nr(8) entries[nr](24) */
  unsigned long samples = 0, with_stack = 0;
  uint64_t max_nr = 0, tail = 0;
  uint8_t rec[4096];
  for (;;) {
    int n = pp_ring_next(&ring, &tail, rec, sizeof rec);
    if (n == -EMSGSIZE)
      continue;
    if (n <= 0)
      break;
    const struct perf_event_header *h = (const struct perf_event_header *)rec;
    if (h->type != PERF_RECORD_SAMPLE || n < 40)
      continue;
    samples++;
    uint64_t nr;
    memcpy(&nr, rec + 32, sizeof nr);
    if (nr > 0 && 40 + nr * 24 <= (uint64_t)n) {
      with_stack++;
      if (nr > max_nr)
        max_nr = nr;
    }
  }
  pp_ring_consume(&ring, tail);
  if (samples == 0 || with_stack == 0) {
    status = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                        "%s event with a branch stack opened (depth %lld) but %lu samples, %lu "
                        "with branch records, over a %lu-iteration loop: branch records are not "
                        "delivered here",
                        ev, depth, samples, with_stack, iters);
    goto out;
  }
  status = pp_verdict(res, ASMSPY_USABLE, 0, LBR_CAPS,
                      "%s (depth %lld, %s): %lu user-only samples, %lu with branch stacks (up to "
                      "%llu entries) over a %lu-iteration loop",
                      brs ? "Zen 3 BRS" : "branch stack", depth, ev, samples, with_stack,
                      (unsigned long long)max_nr, iters);

out:
  pp_ring_unmap(&ring);
  if (fd >= 0)
    close(fd);
  pp_child_reap(&child);
  return status;
}

PP_PROBE_ONLY_BACKEND(LBR_NAME, LBR_CAPS,
                      "AMD branch stacks (Zen 4 LbrExtV2 / Zen 3 BRS) via perf: sampled branch edges",
                      lbr_probe_impl)

