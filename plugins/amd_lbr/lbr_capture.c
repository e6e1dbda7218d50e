/* amd_lbr: one out-of-band branch-stack window over a target
 * (lbr_capture.h).
 *
 * Kernel ABI (arch/x86/events/amd/{lbr,brs}.c, kernel/events/core.c):
 *   - the stack rides on a core-PMU sampling event; has_branch_stack()
 *     without x86_pmu.lbr_nr is EOPNOTSUPP, and cpu/caps/branches (the
 *     depth) is absent exactly then;
 *   - LbrExtV2 (Zen 4+, v6.1) takes any sampling event and filters in
 *     hardware through LBR_SELECT: USER | ANY are supported, TYPE_SAVE maps
 *     to no hardware bit and makes the kernel decode each branch's type
 *     (amd_pmu_lbr_filter: common_branch_type); CALL_STACK, NO_FLAGS,
 *     NO_CYCLES and the TX bits are EOPNOTSUPP;
 *   - Zen 3 BRS needs raw event 0xc4, a fixed period > 16 and
 *     branch_sample_type exactly ANY (+ privilege bits): no TYPE_SAVE;
 *   - user-only branches of a same-uid task open at perf_event_paranoid 2
 *     (the privilege bits are derived from exclude_kernel).
 */
#define _GNU_SOURCE
#include "plugins/amd_lbr/lbr_capture.h"

#include <stdio.h>
#include <string.h>

#include "plugins/amd_lbr/lbr_emit.h"
#include "plugins/common/perf_sampling.h"

int lbr_pmu_from_sysfs(const char *root, uint64_t period_cycles, uint64_t period_brs,
                       struct lbr_pmu *pmu, char *why, size_t cap) {
  memset(pmu, 0, sizeof *pmu);
  char path[512];
  snprintf(path, sizeof path, "%s/cpu/caps/branches", root);
  int rc = pp_read_sysfs_int(path, 10, &pmu->depth);
  if (rc < 0 || pmu->depth <= 0) {
    snprintf(why, cap, "no branch-stack depth: %s: %s", path, rc < 0 ? pp_errno_name(-rc) : "0");
    return rc == -ENOENT || rc == 0 ? -ASMSPY_E_NO_HW : -ASMSPY_E_NO_KERNEL;
  }
  /* LbrExtV2 wins where both exist (the kernel initializes it instead). */
  pmu->brs = pp_cpu_has_flag("brs") == 1 && pp_cpu_has_flag("amd_lbr_v2") != 1;
  pmu->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
  if (pmu->brs) {
    pmu->event = "raw 0xc4";
    pmu->type = PERF_TYPE_RAW;
    pmu->config = LBR_RAW_RETIRED_TAKEN_BRANCHES;
    pmu->period = period_brs;
  } else {
    pmu->event = "cycles";
    pmu->type = PERF_TYPE_HARDWARE;
    pmu->config = PERF_COUNT_HW_CPU_CYCLES;
    pmu->period = period_cycles;
    pmu->branch_sample_type |= PERF_SAMPLE_BRANCH_TYPE_SAVE;
  }
  return 0;
}

void lbr_attr_init(struct perf_event_attr *attr, const struct lbr_pmu *pmu) {
  memset(attr, 0, sizeof *attr);
  attr->size = sizeof *attr;
  attr->type = pmu->type;
  attr->config = pmu->config;
  attr->sample_period = pmu->period;
  attr->sample_type = LBR_SAMPLE_TYPE;
  attr->branch_sample_type = pmu->branch_sample_type;
  attr->exclude_kernel = 1;
  attr->exclude_hv = 1;
  attr->disabled = 1;
}

static void note_window(const struct asmspy_host_api *host, struct asmspy_out *out,
                        const struct ps_set *set, const struct lbr_emitter *em,
                        const struct ps_counts *n, const struct ps_window_result *w) {
  ps_note_window(host, out, "amd_lbr", em->pid, set, n, w);
  char text[300];
  lbr_dropped_text(&em->t, text, sizeof text);
  if (text[0])
    pp_note(host, out, ASMSPY_NOTE_INFO, "amd_lbr: branch records without an event: %s", text);
}

int lbr_capture(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct lbr_pmu *pmu) {
  struct asmspy_out *out = pp_session_out(s);
  if (!s->sink || s->pid <= 0) return -ASMSPY_E_USAGE;
  int64_t window_ms =
      ASMSPY_HAS(s, window_ms) && s->window_ms > 0 ? s->window_ms : LBR_DEFAULT_WINDOW_MS;
  struct perf_event_attr attr;
  lbr_attr_init(&attr, pmu);
  struct ps_set set;
  pid_t only_tid = s->tid > 0 ? s->tid : 0;
  if (ps_set_init(&set, &attr, s->pid, only_tid, 0, LBR_RING_PAGES_LOG2_RUN) < 0)
    return -ASMSPY_E_NOMEM;
  int rc = ps_set_scan(&set);
  if (set.n == 0) {
    char why[400], what[64];
    snprintf(what, sizeof what, "%s with a branch stack", pmu->event);
    ps_set_open_reason(&set, what, why, sizeof why);
    int st = rc == -ESRCH && !set.refused ? -ASMSPY_E_ATTACH_GONE : ps_set_open_status(&set);
    pp_note(host, out, ASMSPY_NOTE_WARN, "amd_lbr: pid %d: %s", (int)s->pid, why);
    ps_set_close(&set);
    return st;
  }

  struct lbr_emitter em;
  lbr_emitter_init(&em, s->sink, s->sink_ctx, s->target, s->pid, only_tid, pmu->period);
  em.out.nthreads = (uint32_t)set.n;
  uint8_t buf[8192] __attribute__((aligned(8))); /* one record: a 32-deep stack is 0.8 KiB */
  struct ps_counts counts;
  memset(&counts, 0, sizeof counts);
  struct ps_consumer consumer = lbr_consumer(&em);
  struct ps_window_result w;
  ps_run_window(&set, window_ms, s->stop, buf, sizeof buf, &consumer, &counts, &w);

  note_window(host, out, &set, &em, &counts, &w);
  lbr_emit_provenance(&em, &counts, w.window_ns);
  ps_set_close(&set);
  return w.target_exited ? ASMSPY_FACT_EXITED : 0;
}
