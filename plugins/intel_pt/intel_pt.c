/* intel_pt — capture backend: Intel Processor Trace through a perf AUX area,
 * decoded with libipt. This file: the descriptor and the probe.
 *
 * The probe is a functional self-test of the whole path the capture uses,
 * and of the decode the scope tier relies on: it reads the dynamic PMU type
 * and the format bits from sysfs, opens a user-only per-task PT event on a
 * forked child, maps the data ring and a full-trace AUX area, runs a branchy
 * loop in the child, requires trace bytes with a PSB packet, and then
 * decodes them (pt_decode.c against this process's own image: the child is
 * a fork, its code is ours) and requires the loop's own instructions. Every
 * "no" names the gate that said it, with the errno and the measured setting.
 *
 * Kernel ABI: arch/x86/events/intel/pt.c (pt_event_valid, exclusivity),
 * kernel/events/core.c (perf_mmap: data ring first, then aux_offset/aux_size,
 * power-of-two pages; PROT_WRITE on AUX = full-trace mode).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"
#include "plugins/common/pmu_model.h"
#include "plugins/intel_pt/intel_pt.h"
#include "plugins/intel_pt/pt_capture.h"
#include "plugins/intel_pt/pt_decode.h"
#include "plugins/intel_pt/pt_image.h"
#include "plugins/intel_pt/pt_maps.h"

#define IPT_NAME "intel_pt"
#define IPT_CAPS                                                                                   \
  (ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_INPROCESS |                         \
   ASMSPY_CAP_OUT_OF_BAND | ASMSPY_CAP_REGION)

#define IPT_DATA_PAGES_LOG2 2u    /* 4 data pages for sideband */
#define IPT_AUX_BYTES (64u << 10) /* plenty for the loop's start, small for mlock */
#define IPT_LOOP_ITERS 200000ul
#define IPT_CHILD_TIMEOUT_MS 3000
#define IPT_LOOP_SPAN 512u  /* the loop function lies within this many bytes of its entry */
#define IPT_LOOP_WANT 1000u /* decoded instructions inside it that prove the decode */

/* Decoded instructions of the probe child's loop. */
struct loop_count {
  uint64_t entry;
  uint64_t inside, total;
  int entry_seen;
};

static int count_loop(void *ctx, const struct asmspy_event *ev) {
  struct loop_count *c = ctx;
  if (ev->type != ASMSPY_EV_INSN) return 0;
  c->total++;
  if (ev->ip == c->entry) c->entry_seen = 1;
  if (ev->ip >= c->entry && ev->ip - c->entry < IPT_LOOP_SPAN) c->inside++;
  return c->entry_seen && c->inside >= IPT_LOOP_WANT; /* proven: stop decoding */
}

/* Decode the child's trace; 0 when the loop's instructions came out. */
static int probe_decode(const uint8_t *aux, size_t len, struct loop_count *c,
                        struct ptd_stats *stats) {
  struct ptm_maps maps;
  if (ptm_read("/proc/self/maps", &maps) != 0) memset(&maps, 0, sizeof maps);
  struct pti_image *im = pti_new("probe", pti_read_self, NULL);
  if (!im) {
    ptm_free(&maps);
    return -1;
  }
  (void)pti_add_maps(im, &maps);
  ptm_free(&maps);
  struct pt_image *img = pti_clone(im);
  struct ptd_opts o = {
      .image = img, .sink = count_loop, .sink_ctx = c, .tid = 0, .nthreads = 1, .cpu_is_host = 1};
  struct ptd *d = img ? ptd_new(&o) : NULL;
  if (d) {
    if (ptd_feed(d, aux, len) == 0) (void)ptd_finish(d);
    *stats = *ptd_get_stats(d);
  }
  ptd_free(d);
  pti_release(img);
  pti_free(im);
  return c->entry_seen && c->inside >= IPT_LOOP_WANT ? 0 : -1;
}

static int ipt_probe_impl(struct asmspy_probe_result *res) {
  /* 0. no PMU at all: say what the silicon has (CPUID, libpfm4) against
   * what the kernel registered, so "hypervisor hides it" and "the CPU has
   * none" read differently */
  if (access(IPT_SYSFS_ROOT "/intel_pt/type", F_OK) != 0 && errno == ENOENT) {
    char why[256];
    int st = pmu_model_explain_missing(PMU_FEAT_INTEL_PT, IPT_SYSFS_ROOT,
                                       "no intel_pt PMU: " IPT_SYSFS_ROOT "/intel_pt/type missing",
                                       why, sizeof why);
    return pp_verdict(res, st, ENOENT, 0, "%s", why);
  }
  /* 1. the PMU and its config bits */
  struct ptc_pmu pmu;
  int st = ptc_pmu_read(IPT_SYSFS_ROOT, &pmu, res);
  if (st != 0) return st;

  /* 2. a user-only per-task event on a forked, sleeping child */
  unsigned long iters = IPT_LOOP_ITERS;
  struct pp_child child;
  st = pp_probe_child_fork(res, IPT_NAME, &child, pp_spin_branches, &iters);
  if (st != 0) return st;
  struct ptc_event ev;
  struct ptc_open_opts oo = {.tid = child.pid,
                             .sideband = 1,
                             .aux_bytes = IPT_AUX_BYTES,
                             .aux_min = IPT_AUX_BYTES,
                             .data_pages_log2 = IPT_DATA_PAGES_LOG2};
  char why[256];
  st = ptc_open(&ev, &pmu, &oo, why, sizeof why);
  if (st != 0) {
    pp_child_reap(&child);
    return pp_verdict(res, st, 0, 0, "%s", why);
  }

  /* 3. trace a known loop, require bytes and a PSB */
  st = pp_probe_run_child(res, IPT_NAME, "traced", ev.fd, &child, IPT_CHILD_TIMEOUT_MS);
  if (st != 0) goto out;
  uint64_t head = __atomic_load_n(&ev.ring.pc->aux_head, __ATOMIC_ACQUIRE);
  if (head == 0) {
    st = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                    "intel_pt event opened and AUX mapped, but 0 trace bytes arrived over a "
                    "%lu-iteration user loop (tracing blocked: hypervisor, or VMX root without "
                    "PT-in-VMX)",
                    iters);
    goto out;
  }
  size_t have = head < ev.aux_size ? (size_t)head : ev.aux_size;
  if (ptd_find_psb(ev.aux, have, 0) < 0) {
    st = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                    "intel_pt traced %llu bytes over a %lu-iteration loop but they hold no PSB "
                    "packet: the trace is not decodable here",
                    (unsigned long long)head, iters);
    goto out;
  }

  /* 4. decode it: the loop's own instructions must come out */
  struct loop_count lc = {.entry = (uint64_t)(uintptr_t)&pp_spin_branches};
  struct ptd_stats ds;
  memset(&ds, 0, sizeof ds);
  if (probe_decode(ev.aux, have, &lc, &ds) != 0) {
    st = pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                    "intel_pt traced %llu bytes with PSB, but libipt decoding found %llu of the "
                    "loop's instructions (entry 0x%llx %s; %llu decoded, %llu errors%s%s)",
                    (unsigned long long)head, (unsigned long long)lc.inside,
                    (unsigned long long)lc.entry, lc.entry_seen ? "seen" : "never seen",
                    (unsigned long long)lc.total, (unsigned long long)ds.errors,
                    ds.first_error[0] ? ", first: " : "", ds.first_error);
    goto out;
  }
  st = pp_verdict(res, ASMSPY_USABLE, 0, IPT_CAPS,
                  "intel_pt type=%u config=%#llx: a user-only per-task event traced %llu bytes "
                  "over a %lu-iteration loop; libipt decoded %llu of the loop's instructions",
                  pmu.type, (unsigned long long)pmu.config, (unsigned long long)head, iters,
                  (unsigned long long)lc.inside);
out:
  ptc_close(&ev);
  pp_child_reap(&child);
  return st;
}

static int ipt_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host; /* the probe needs no host service */
  return ipt_probe_impl(res);
}

static const struct asmspy_backend_ops ipt_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_backend_ops),
    .run = ipt_run,                   /* pt_run.c */
    .inproc_begin = ipt_inproc_begin, /* pt_inproc.c: the STRONG scope tier */
    .inproc_end = ipt_inproc_end,
    /* 1.8: every branch in hardware: the scope ladder's first choice */
    .inproc_tier = ASMSPY_TIER_STRONG,
    .inproc_order = 10,
};

static const struct asmspy_plugin ipt_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = IPT_NAME,
    .description = "Intel Processor Trace via perf AUX + libipt: every executed user instruction",
    .caps = IPT_CAPS,
    .probe = ipt_probe,
    .backend = &ipt_ops,
    .view = NULL,
    .plugin_version = "0.2.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(ipt_plugin)
