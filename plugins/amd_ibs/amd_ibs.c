/* amd_ibs — capture backend: AMD IBS-Op samples (precise IPs and sampled
 * branch edges) through perf, out of band: the target is never ptraced,
 * stopped or stepped.
 *
 * This file holds the descriptor, the probe and run(). The probe reads the
 * dynamic ibs_op PMU type, checks for the swfilt format term, opens a real
 * sampling event with the very attr capture uses (ibs_attr_init) on a forked
 * child (CPU-wide as the fallback older kernels need), maps the ring, runs a
 * loop in the child and requires samples. Every "no" names the gate that
 * said it, with the errno and the measured setting.
 *
 * The exclude rules differ by kernel version (arch/x86/events/amd/ibs.c):
 *   - before v6.14 IBS carries PERF_PMU_CAP_NO_EXCLUDE: any exclude_* bit is
 *     EINVAL, so the event samples the kernel too and perf_event_open() asks
 *     perf_allow_kernel(): perf_event_paranoid <= 1 or CAP_PERFMON;
 *   - v6.14 adds "swfilt" (config2:0): with it exclude_kernel=1 is accepted
 *     and a same-uid per-task event works at paranoid 2;
 *   - before v6.2 IBS has no task context: per-task is EINVAL, CPU-wide only
 *     (perf_allow_cpu: paranoid <= 0 or CAP_PERFMON).
 *
 * The rest of the backend: ibs_capture.c (the perf window), ibs_emit.c
 * (records -> events), ibs_record.c (the RAW payload layout).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/amd_ibs/ibs_capture.h"
#include "plugins/amd_ibs/ibs_record.h"
#include "plugins/common/perf_probe.h"
#include "plugins/common/pmu_model.h"

#define IBS_NAME "amd_ibs"
#ifndef IBS_SYSFS_ROOT /* tests may point the probe at a fake sysfs tree */
#define IBS_SYSFS_ROOT PP_SYSFS_PMU_ROOT
#endif
#define IBS_DIR IBS_SYSFS_ROOT "/ibs_op"
#define IBS_TYPE_PATH IBS_DIR "/type"
#define IBS_CAPS                                                                                   \
  (ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_BRANCH_SAMPLES | ASMSPY_CAP_OUT_OF_BAND |                    \
   ASMSPY_CAP_ATTACH_PID)

/* The probe samples denser than a window (IBS_MAX_PERIOD) so a short loop
 * yields samples: a multiple of 16; MaxCnt = period >> 4 fits 16 bits. */
#define IBS_PROBE_PERIOD 0x10000ull
#define IBS_LOOP_ITERS 2000000ul
#define IBS_CHILD_TIMEOUT_MS 3000
#define IBS_RING_PAGES_LOG2 3u

struct ibs_work {
  unsigned long iters;
  int cpu; /* pin to this CPU first (CPU-wide fallback), or -1 */
};

static void ibs_child_work(void *arg) {
  struct ibs_work *w = arg;
  if (w->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((size_t)w->cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);
  }
  pp_spin_branches(&w->iters);
}

/* Fork a sleeping child and open the event on it (pid) or on its CPU
 * (cpu_wide). Returns the fd, or -errno with the child reaped. */
static int ibs_open(struct perf_event_attr *attr, int cpu_wide, struct ibs_work *work,
                    struct pp_child *child) {
  work->cpu = cpu_wide ? 0 : -1;
  int rc = pp_child_fork(child, ibs_child_work, work);
  if (rc < 0) return rc;
  int fd = cpu_wide ? pp_perf_event_open(attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC)
                    : pp_perf_event_open(attr, child->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    pp_child_reap(child);
    return -e;
  }
  return fd;
}

/* The probe decodes what it samples with the capture's decoder: a sample
 * that does not parse as an IBS-Op payload is not a usable sampler. */
struct ibs_probe_tally {
  unsigned long decoded, first_verdict;
};

static void ibs_probe_decode(const uint8_t *rec, size_t len, void *arg) {
  struct ibs_probe_tally *t = arg;
  struct ibs_op op;
  int v = ibs_decode_sample(rec, len, &op);
  if (v == IBS_OK)
    t->decoded++;
  else if (!t->first_verdict)
    t->first_verdict = (unsigned long)v;
}

static int ibs_probe_impl(struct asmspy_probe_result *res) {
  /* 1. the PMU; without one, what the silicon has (CPUID, libpfm4) against
   * what the kernel registered */
  long long type = -1;
  int rc = pp_read_sysfs_int(IBS_TYPE_PATH, 10, &type);
  if (rc == -ENOENT) {
    char why[256];
    int st = pmu_model_explain_missing(PMU_FEAT_AMD_IBS, IBS_SYSFS_ROOT,
                                       "no ibs_op PMU: " IBS_TYPE_PATH " missing", why, sizeof why);
    return pp_verdict(res, st, ENOENT, 0, "%s", why);
  }
  if (rc < 0) return pp_verdict_unreadable(res, IBS_TYPE_PATH, rc);

  /* 2. swfilt (v6.14+) decides whether exclude_kernel is allowed; the attr
   * is the one capture opens (ibs_attr_init), at the probe's period. */
  char why[256];
  struct ibs_pmu pmu;
  rc = ibs_pmu_from_sysfs(IBS_SYSFS_ROOT, IBS_PROBE_PERIOD, &pmu, why, sizeof why);
  if (rc < 0) return pp_verdict(res, -rc, 0, 0, "%s", why);
  int have_swfilt = pmu.swfilt;
  struct perf_event_attr attr;
  ibs_attr_init(&attr, &pmu);
  const char *mode = have_swfilt ? "swfilt, exclude_kernel=1" : "no swfilt, exclude_kernel=0";
  int par = -99;
  int have_par = pp_read_paranoid(&par) == 0;

  /* 3. per-task on a forked child; CPU-wide when per-task is EINVAL (< 6.2) */
  struct ibs_work work = {IBS_LOOP_ITERS, -1};
  struct pp_child child = {-1, -1};
  struct pp_ring ring = {0};
  int status = ASMSPY_USABLE;
  int cpu_wide = 0;
  char pertask_fail[96] = "";
  int fd = ibs_open(&attr, 0, &work, &child);
  if (fd == -EINVAL && !have_swfilt) {
    snprintf(pertask_fail, sizeof pertask_fail,
             "per-task: EINVAL (kernel < 6.2 has CPU-wide IBS only); ");
    cpu_wide = 1;
    fd = ibs_open(&attr, 1, &work, &child);
  }
  if (fd < 0) {
    int e = -fd;
    char hint[200];
    if (e == EACCES && !have_swfilt)
      snprintf(hint, sizeof hint,
               "no ibs_op/format/swfilt (kernel < 6.14): IBS cannot exclude the kernel, which "
               "needs perf_event_paranoid <= %d (now %d) or CAP_PERFMON",
               cpu_wide ? 0 : 1, have_par ? par : -99);
    else if (e == EINVAL)
      snprintf(hint, sizeof hint, "the kernel rejected period, config or exclude bits");
    else
      pp_perf_errno_hint(e, hint, sizeof hint);
    status = pp_verdict(
        res, pp_perf_errno_status(e), e, 0, "perf_event_open(ibs_op type=%lld, %s, %s): %s%s (%s)",
        type, mode, cpu_wide ? "CPU-wide cpu 0" : "per-task", pertask_fail, pp_errno_name(e), hint);
    goto out;
  }

  status = pp_probe_ring_map(res, "amd_ibs: mmap of the perf ring", fd, IBS_RING_PAGES_LOG2, &ring);
  if (status != 0) goto out;

  /* 4. functional: sample a known loop, require at least one sample */
  status = pp_probe_run_child(res, IBS_NAME, "sampled", fd, &child, IBS_CHILD_TIMEOUT_MS);
  if (status != 0) goto out;
  uint8_t rec[512] __attribute__((aligned(8)));
  struct ibs_probe_tally tally = {0, 0};
  unsigned long samples = pp_ring_drain_samples(&ring, rec, sizeof rec, ibs_probe_decode, &tally);
  if (samples == 0) {
    status = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                        "ibs_op event opened (%s, %s) but took 0 samples over a %lu-iteration "
                        "loop: IBS is not delivering here",
                        mode, cpu_wide ? "CPU-wide" : "per-task", work.iters);
    goto out;
  }
  if (tally.decoded == 0) {
    status = pp_verdict(res, ASMSPY_E_NO_KERNEL, 0, 0,
                        "ibs_op took %lu samples but none decodes as an IBS-Op RAW payload "
                        "(first: %s): an unknown layout",
                        samples, ibs_verdict_name((int)tally.first_verdict));
    goto out;
  }
  status = pp_verdict(res, ASMSPY_USABLE, 0, IBS_CAPS,
                      "ibs_op type=%lld (%s): %s%s event took %lu samples (%lu decoded) over a "
                      "%lu-iteration loop",
                      type, mode, pertask_fail, cpu_wide ? "a CPU-wide" : "a per-task", samples,
                      tally.decoded, work.iters);

out:
  pp_probe_release(&ring, fd, &child);
  return status;
}

static int ibs_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host; /* the probe needs no host service */
  return ibs_probe_impl(res);
}

/* One window over s->pid: the engine ran the probe (isolated) before
 * choosing this backend, so run() goes straight to the events; what the
 * kernel refuses now is about this target, and is noted as such. */
static int ibs_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  char why[256];
  struct ibs_pmu pmu;
  int rc = ibs_pmu_from_sysfs(IBS_SYSFS_ROOT, IBS_MAX_PERIOD, &pmu, why, sizeof why);
  if (rc < 0) {
    pp_note(host, pp_session_out(s), ASMSPY_NOTE_SKIP, IBS_NAME ": %s", why);
    return rc;
  }
  return ibs_capture(host, s, &pmu);
}

static const struct asmspy_backend_ops ibs_backend_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_backend_ops),
    .run = ibs_run,
    /* 1.8: the --sampler ladder's first rung: taken-branch entry edges */
    .sampler_rung = "ibs",
    .sampler_order = 10,
};

static const struct asmspy_plugin ibs_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = IBS_NAME,
    .description = "AMD IBS-Op sampling via perf, out of band: precise IP samples and sampled "
                   "branch edges",
    .caps = IBS_CAPS,
    .probe = ibs_probe,
    .backend = &ibs_backend_ops,
    .view = NULL,
    .plugin_version = "0.2.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(ibs_plugin)
