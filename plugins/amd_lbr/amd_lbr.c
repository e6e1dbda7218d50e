/* amd_lbr — capture backend: AMD branch stacks (Zen 4 LbrExtV2, Zen 3 BRS)
 * through perf's PERF_SAMPLE_BRANCH_STACK on the core `cpu` PMU, out of
 * band (the target is never ptraced), plus an in-process mode for scopes.
 *
 * This file holds the descriptor and the probe: it reads the branch-stack
 * depth the core PMU exposes (cpu/caps/branches; absent when the depth is
 * 0), opens the very attr capture uses (lbr_attr_init) on a forked child,
 * maps the ring, runs a loop and requires samples whose stacks are
 * non-empty. Every "no" names the gate that said it, with the errno and the
 * measured setting.
 *
 * Kernel ABI: arch/x86/events/amd/{lbr,brs}.c, kernel/events/core.c
 * (has_branch_stack() without lbr_nr -> EOPNOTSUPP). BRS needs the raw event
 * 0xc4 (retired taken branches), a fixed period > 16 and branch type ANY;
 * LbrExtV2 accepts any sampling event. Debian kernels build without
 * CONFIG_PERF_EVENTS_AMD_BRS.
 *
 * The rest of the backend: lbr_capture.c (the perf window), lbr_inproc.c
 * (scopes), lbr_emit.c (records -> events), lbr_record.c (the layout).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/amd_lbr/lbr_capture.h"
#include "plugins/amd_lbr/lbr_inproc.h"
#include "plugins/amd_lbr/lbr_record.h"
#include "plugins/common/perf_probe.h"
#include "plugins/common/pmu_model.h"

#define LBR_NAME "amd_lbr"
#ifndef LBR_SYSFS_ROOT /* tests may point the probe at a fake sysfs tree */
#define LBR_SYSFS_ROOT PP_SYSFS_PMU_ROOT
#endif
#define LBR_CPU_DIR LBR_SYSFS_ROOT "/cpu"
#define LBR_DEPTH_PATH LBR_CPU_DIR "/caps/branches"
#define LBR_CAPS                                                                                   \
  (ASMSPY_CAP_BRANCH_SAMPLES | ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_OUT_OF_BAND |                    \
   ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_INPROCESS)

#define LBR_PROBE_PERIOD 50000ull /* denser than a window: a short loop must yield samples */
#define LBR_LOOP_ITERS 2000000ul
#define LBR_CHILD_TIMEOUT_MS 3000
#define LBR_RING_PAGES_LOG2 4u

/* Samples long enough to hold a branch-stack count, how many carry a
 * non-empty stack, and the deepest stack seen. */
struct lbr_probe_tally {
  unsigned long samples, with_stack;
  uint64_t max_nr;
};

/* Decoded with the capture's own decoder (lbr_record.c). */
static void lbr_tally_sample(const uint8_t *rec, size_t len, void *arg) {
  struct lbr_probe_tally *t = arg;
  struct lbr_sample s;
  if (lbr_decode_sample(rec, len, &s) != LBR_OK) return;
  t->samples++;
  if (s.nr > 0) {
    t->with_stack++;
    if (s.nr > t->max_nr) t->max_nr = s.nr;
  }
}

static int lbr_probe_impl(struct asmspy_probe_result *res) {
  /* 1. a core PMU with a branch-stack depth */
  long long depth = 0;
  int rc = pp_read_sysfs_int(LBR_DEPTH_PATH, 10, &depth);
  if (rc == -ENOENT || (rc == 0 && depth <= 0)) {
    /* what the silicon has (CPUID LbrExtV2/BRS/Arch LBR, libpfm4's model)
     * against what the kernel registered (a core cpu PMU or not) */
    char why[256];
    int st = pmu_model_explain_missing(PMU_FEAT_BRANCH_STACK, LBR_SYSFS_ROOT,
                                       "no branch-stack depth: " LBR_DEPTH_PATH " missing", why,
                                       sizeof why);
    return pp_verdict(res, st, ENOENT, 0, "%s", why);
  }
  if (rc < 0) return pp_verdict_unreadable(res, LBR_DEPTH_PATH, rc);

  /* 2. a user-only branch-stack sampling event on a forked child: the attr
   * capture opens (lbr_attr_init), at the probe's period */
  char why[256];
  struct lbr_pmu pmu;
  rc =
      lbr_pmu_from_sysfs(LBR_SYSFS_ROOT, LBR_PROBE_PERIOD, LBR_PROBE_PERIOD, &pmu, why, sizeof why);
  if (rc < 0) return pp_verdict(res, -rc, 0, 0, "%s", why);
  int brs = pmu.brs;
  struct perf_event_attr attr;
  lbr_attr_init(&attr, &pmu);
  const char *ev = pmu.event;

  unsigned long iters = LBR_LOOP_ITERS;
  struct pp_child child;
  struct pp_ring ring = {0};
  int status = ASMSPY_USABLE;
  rc = pp_probe_child_fork(res, LBR_NAME, &child, pp_spin_branches, &iters);
  if (rc != 0) return rc;
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
                        "perf_event_open(%s, branch_sample_type=USER|ANY%s, per-task, user-only): "
                        "%s (%s)",
                        ev, brs ? "" : "|TYPE_SAVE", pp_errno_name(e), hint);
    goto out;
  }

  status = pp_probe_ring_map(res, "amd_lbr: mmap of the perf ring", fd, LBR_RING_PAGES_LOG2, &ring);
  if (status != 0) goto out;

  /* 3. functional: sample a known loop, require non-empty branch stacks */
  status = pp_probe_run_child(res, LBR_NAME, "sampled", fd, &child, LBR_CHILD_TIMEOUT_MS);
  if (status != 0) goto out;
  struct lbr_probe_tally t = {0, 0, 0};
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

static int lbr_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host; /* the probe needs no host service */
  return lbr_probe_impl(res);
}

/* One window over s->pid: the engine ran the probe (isolated) before
 * choosing this backend; what the kernel refuses now is about this target. */
static int lbr_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  char why[256];
  struct lbr_pmu pmu;
  int rc =
      lbr_pmu_from_sysfs(LBR_SYSFS_ROOT, LBR_PERIOD_CYCLES, LBR_PERIOD_BRS, &pmu, why, sizeof why);
  if (rc < 0) {
    pp_note(host, pp_session_out(s), ASMSPY_NOTE_SKIP, LBR_NAME ": %s", why);
    return rc;
  }
  return lbr_capture(host, s, &pmu);
}

static const struct asmspy_backend_ops lbr_backend_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_backend_ops),
    .run = lbr_run,
    .inproc_begin = lbr_inproc_begin,
    .inproc_end = lbr_inproc_end,
    /* 1.8: the ladder's second rung (branch records, no per-op sampling) */
    .sampler_rung = "lbr",
    .sampler_order = 20,
    /* sampled branch edges in-process: a ceiling on what ran, never
     * chosen by the scope ladder unless asked for */
    .inproc_tier = ASMSPY_TIER_CEILING,
    .inproc_order = 10,
};

static const struct asmspy_plugin lbr_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = LBR_NAME,
    .description = "AMD branch stacks (Zen 4 LbrExtV2 / Zen 3 BRS) via perf, out of band: "
                   "sampled branch edges; in-process for scopes",
    .caps = LBR_CAPS,
    .probe = lbr_probe,
    .backend = &lbr_backend_ops,
    .view = NULL,
    .plugin_version = "0.2.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(lbr_plugin)
