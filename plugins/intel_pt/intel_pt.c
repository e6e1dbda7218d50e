/* intel_pt — capture backend: Intel Processor Trace through a perf AUX area.
 *
 * This file holds the probe: a functional self-test of the whole perf path
 * the capture will use. It reads the dynamic PMU type and the pt/branch/tsc
 * format bits from sysfs, opens a user-only per-task PT event on a forked
 * child, maps the data ring and a full-trace AUX area, runs a branchy loop in
 * the child and requires trace bytes containing a PSB packet. Every "no"
 * names the gate that said it, with the errno and the measured setting.
 *
 * Capture itself (AUX draining + libipt decode) lands with issue 6; until
 * then run() re-checks availability and says so.
 *
 * Kernel ABI: arch/x86/events/intel/pt.c (pt_event_valid, exclusivity),
 * kernel/events/core.c (perf_mmap: data ring first, then aux_offset/aux_size,
 * power-of-two pages; PROT_WRITE on AUX = full-trace mode).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"

#define IPT_NAME "intel_pt"
#ifndef IPT_SYSFS_ROOT /* tests may point the probe at a fake sysfs tree */
#define IPT_SYSFS_ROOT PP_SYSFS_PMU_ROOT
#endif
#define IPT_DIR IPT_SYSFS_ROOT "/intel_pt"
#define IPT_TYPE_PATH IPT_DIR "/type"
#define IPT_CAPS (ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_INPROCESS)

#define IPT_DATA_PAGES_LOG2 2u /* 4 data pages for sideband */
#define IPT_AUX_PAGES 16u      /* 64 KiB of trace: plenty for the loop, small for mlock */
#define IPT_LOOP_ITERS 200000ul
#define IPT_CHILD_TIMEOUT_MS 3000

/* PSB = 02 82 repeated 8 times (Intel SDM vol. 3 §33.4.2.17). */
static int ipt_has_psb(const uint8_t *buf, size_t len)
{
  for (size_t i = 0; i + 16 <= len; i++) {
    size_t k = 0;
    while (k < 16 && buf[i + k] == (k & 1 ? 0x82 : 0x02))
      k++;
    if (k == 16)
      return 1;
  }
  return 0;
}

/* Read one format term; on failure fill the verdict and return non-zero. */
static int ipt_format(struct asmspy_probe_result *res, const char *name, struct pp_format *f)
{
  char raw[64];
  int rc = pp_read_format_at(IPT_SYSFS_ROOT, "intel_pt", name, f, raw, sizeof raw);
  if (rc == -EINVAL)
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, EINVAL, 0,
                      "intel_pt PMU present but " IPT_DIR "/format/%s is unparsable: \"%s\"",
                      name, raw);
  if (rc < 0)
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, -rc, 0,
                      "intel_pt PMU present but " IPT_DIR "/format/%s: %s (kernel PT driver "
                      "lacks the '%s' term)",
                      name, pp_errno_name(-rc), name);
  if (f->field != PP_FMT_CONFIG)
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, 0, 0,
                      IPT_DIR "/format/%s is \"%s\", expected a config: term", name, raw);
  return 0;
}

static int ipt_probe_impl(struct asmspy_probe_result *res)
{
  /* 1. the PMU */
  long long type = -1;
  int rc = pp_probe_pmu_type(res, IPT_SYSFS_ROOT, IPT_TYPE_PATH, "intel_pt",
                             "CPU flag intel_pt is set but " IPT_TYPE_PATH " is missing: the PT "
                             "driver did not bind (PT on at boot, no ToPA, or kernel config); "
                             "PMUs: %s",
                             "no intel_pt PMU: " IPT_TYPE_PATH " missing (CPU or hypervisor "
                             "lacks Intel PT; PMUs here: %s)",
                             &type);
  if (rc != 0)
    return rc;

  /* 2. the config bits: pt|branch|tsc is the minimum decodable user trace */
  struct pp_format f_pt = {0, 0, 0, 0}, f_branch = f_pt, f_tsc = f_pt;
  int fst;
  if ((fst = ipt_format(res, "pt", &f_pt)) != 0 || (fst = ipt_format(res, "branch", &f_branch)) != 0 ||
      (fst = ipt_format(res, "tsc", &f_tsc)) != 0)
    return fst;
  uint64_t config = pp_format_value(&f_pt, 1) | pp_format_value(&f_branch, 1) |
                    pp_format_value(&f_tsc, 1);

  /* 3. a user-only per-task event on a forked, sleeping child */
  unsigned long iters = IPT_LOOP_ITERS;
  struct pp_child child;
  rc = pp_probe_child_fork(res, IPT_NAME, &child, pp_spin_branches, &iters);
  if (rc != 0)
    return rc;

  long pg = sysconf(_SC_PAGESIZE);
  size_t page = pg > 0 ? (size_t)pg : 4096u;
  size_t aux_size = (size_t)IPT_AUX_PAGES * page;

  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = (uint32_t)type;
  attr.config = config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  attr.sample_id_all = 1;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.task = 1;
  attr.aux_watermark = (uint32_t)(aux_size / 2);

  int status = ASMSPY_USABLE;
  struct pp_ring ring = {0};
  void *aux = MAP_FAILED;
  int fd = pp_perf_event_open(&attr, child.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    char hint[160];
    pp_perf_errno_hint(e, hint, sizeof hint);
    if (e == EBUSY)
      snprintf(hint, sizeof hint,
               "another PT user holds the PMU (PT is exclusive: CPU-wide vs per-task, and "
               "with LBR/BTS on CPUs without lbr_pt_coexist)");
    else if (e == EINVAL)
      snprintf(hint, sizeof hint, "pt_event_valid() rejected config bits or exclude flags");
    status = pp_verdict(res, pp_perf_errno_status(e), e, 0,
                        "perf_event_open(intel_pt type=%lld config=%#llx, child pid, "
                        "user-only): %s (%s)",
                        type, (unsigned long long)config, pp_errno_name(e), hint);
    goto out;
  }

  /* 4. data ring first, then the AUX area at aux_offset (read-write = full trace) */
  status = pp_probe_ring_map(res, "intel_pt: mmap of the perf data ring", fd,
                             IPT_DATA_PAGES_LOG2, &ring);
  if (status != 0)
    goto out;
  ring.pc->aux_offset = ring.len;
  ring.pc->aux_size = aux_size;
  aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)ring.len);
  if (aux == MAP_FAILED) {
    int e = errno;
    char hint[200];
    if (e == ENOMEM) {
      long long multi = -1;
      (void)pp_read_sysfs_int(IPT_DIR "/caps/topa_multiple_entries", 16, &multi);
      snprintf(hint, sizeof hint,
               "caps/topa_multiple_entries=%lld: without multi-entry ToPA the AUX area must "
               "be physically contiguous",
               multi);
    } else {
      pp_mmap_hint(e, hint, sizeof hint);
    }
    status = pp_verdict(res, pp_mmap_status(e), e, 0,
                        "intel_pt: mmap of a %zu KiB AUX area: %s (%s)", aux_size / 1024,
                        pp_errno_name(e), hint);
    goto out;
  }

  /* 5. functional: trace a known loop, require bytes and a PSB */
  status = pp_probe_run_child(res, IPT_NAME, "traced", fd, &child, IPT_CHILD_TIMEOUT_MS);
  if (status != 0)
    goto out;
  uint64_t head = __atomic_load_n(&ring.pc->aux_head, __ATOMIC_ACQUIRE);
  if (head == 0) {
    status = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                        "intel_pt event opened and AUX mapped, but 0 trace bytes arrived over a "
                        "%lu-iteration user loop (tracing blocked: hypervisor, or VMX root "
                        "without PT-in-VMX)",
                        iters);
    goto out;
  }
  size_t have = head < aux_size ? (size_t)head : aux_size;
  if (!ipt_has_psb((const uint8_t *)aux, have)) {
    status = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                        "intel_pt traced %llu bytes over a %lu-iteration loop but they hold no "
                        "PSB packet: the trace is not decodable here",
                        (unsigned long long)head, iters);
    goto out;
  }
  status = pp_verdict(res, ASMSPY_USABLE, 0, IPT_CAPS,
                      "intel_pt type=%lld config=%#llx (pt|branch|tsc): a user-only per-task "
                      "event traced %llu bytes with PSB over a %lu-iteration loop",
                      type, (unsigned long long)config, (unsigned long long)head, iters);

out:
  if (aux != MAP_FAILED)
    munmap(aux, aux_size);
  pp_probe_release(&ring, fd, &child);
  return status;
}

PP_PROBE_ONLY_BACKEND(IPT_NAME, IPT_CAPS,
                      "Intel Processor Trace via perf AUX: every executed user instruction",
                      ipt_probe_impl)

