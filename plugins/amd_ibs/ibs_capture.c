/* amd_ibs: one out-of-band sampling window over a target (ibs_capture.h).
 *
 * How the event is opened decides what the kernel allows
 * (arch/x86/events/amd/ibs.c, kernel/events/core.c):
 *   - v6.14+ (ibs_op/format/swfilt, config2:0): exclude_kernel=1 is honoured
 *     in software by the NMI handler, so user-only sampling of a same-uid
 *     task opens at perf_event_paranoid 2;
 *   - before: IBS carries PERF_PMU_CAP_NO_EXCLUDE (any exclude bit is EINVAL),
 *     the event samples the kernel too (perf_allow_kernel: paranoid <= 1 or
 *     CAP_PERFMON), and the kernel-mode samples are dropped here;
 *   - before v6.2 IBS has no task context: per-task is EINVAL, so the window
 *     falls back to one event per CPU (perf_allow_cpu: paranoid <= 0 or
 *     CAP_PERFMON) and keeps the target's samples by pid.
 * cnt_ctl (config:19, when offered) makes the period count dispatched ops,
 * so a sample is one op in `period`, not one op per `period` cycles.
 * The period is the largest MaxCnt every IBS generation holds (0xFFFF0 ops,
 * a few thousand samples per second of a busy thread): the kernel throttles
 * denser sampling anyway, and a longer window beats a denser one.
 */
#define _GNU_SOURCE
#include "plugins/amd_ibs/ibs_capture.h"

#include <stdio.h>
#include <string.h>

#include "plugins/amd_ibs/ibs_emit.h"
#include "plugins/common/perf_sampling.h"

int ibs_pmu_from_sysfs(const char *root, uint64_t period, struct ibs_pmu *pmu, char *why,
                       size_t cap) {
  memset(pmu, 0, sizeof *pmu);
  pmu->name = "ibs_op";
  pmu->period = period;
  char path[512];
  snprintf(path, sizeof path, "%s/ibs_op/type", root);
  long long type = -1;
  int rc = pp_read_sysfs_int(path, 10, &type);
  if (rc < 0 || type < 0 || type > UINT32_MAX) {
    snprintf(why, cap, "no ibs_op PMU: %s: %s", path, rc < 0 ? pp_errno_name(-rc) : "bad value");
    return rc == -ENOENT ? -ASMSPY_E_NO_HW : -ASMSPY_E_NO_KERNEL;
  }
  pmu->type = (uint32_t)type;

  struct perf_event_attr scratch;
  struct pp_format f;
  char raw[64];
  rc = pp_read_format_at(root, "ibs_op", "swfilt", &f, raw, sizeof raw);
  if (rc == 0) {
    memset(&scratch, 0, sizeof scratch);
    if (pp_attr_apply_format(&scratch, &f, 1) < 0) {
      snprintf(why, cap, "%s/ibs_op/format/swfilt is \"%s\": a config word this build cannot set",
               root, raw);
      return -ASMSPY_E_NO_KERNEL;
    }
    pmu->config |= scratch.config;
    pmu->config2 |= scratch.config2;
    pmu->swfilt = 1;
  } else if (rc != -ENOENT) {
    snprintf(why, cap, "%s/ibs_op/format/swfilt unusable: %s \"%s\"", root, pp_errno_name(-rc),
             raw);
    return -ASMSPY_E_NO_KERNEL;
  }
  /* cnt_ctl is visible iff the CPU has IBS_CAPS_OPCNT; without it the
   * period counts cycles, which is still a valid (coarser) op sampler. */
  if (pp_read_format_at(root, "ibs_op", "cnt_ctl", &f, raw, sizeof raw) == 0) {
    memset(&scratch, 0, sizeof scratch);
    if (pp_attr_apply_format(&scratch, &f, 1) == 0) {
      pmu->config |= scratch.config;
      pmu->config2 |= scratch.config2;
      pmu->cnt_ctl = 1;
    }
  }
  return 0;
}

void ibs_attr_init(struct perf_event_attr *attr, const struct ibs_pmu *pmu) {
  memset(attr, 0, sizeof *attr);
  attr->size = sizeof *attr;
  attr->type = pmu->type;
  attr->config = pmu->config;
  attr->config2 = pmu->config2;
  attr->sample_period = pmu->period;
  attr->sample_type = IBS_SAMPLE_TYPE;
  attr->disabled = 1;
  if (pmu->swfilt) {
    attr->exclude_kernel = 1;
    attr->exclude_hv = 1;
  }
}

/* The instruction length at ip, through the host's memory reader and
 * disassembler: where a fused branch really is, where a not-taken one
 * falls through to. Reading /proc/<pid>/mem does not stop the target. */
struct insn_len_ctx {
  const struct asmspy_host_api *host;
  struct asmspy_target *target;
};

static int target_insn_len(void *arg, uint64_t ip) {
  struct insn_len_ctx *c = arg;
  uint8_t bytes[16];
  ssize_t n = c->host->read_mem(c->target, ip, bytes, sizeof bytes);
  if (n <= 0) return 0;
  char text[128];
  return c->host->disasm(ip, bytes, (size_t)n, text, sizeof text);
}

/* Open the window's events: per thread; CPU-wide when this kernel's IBS has
 * no task context. Returns 0 with set filled, or -ASMSPY_E_* (noted). */
static int open_events(const struct asmspy_host_api *host, struct asmspy_out *out,
                       const struct asmspy_session *s, const struct ibs_pmu *pmu,
                       const struct perf_event_attr *attr, struct ps_set *set) {
  pid_t only_tid = s->tid > 0 ? s->tid : 0;
  if (ps_set_init(set, attr, s->pid, only_tid, 0, IBS_RING_PAGES_LOG2_RUN) < 0)
    return -ASMSPY_E_NOMEM;
  int rc = ps_set_scan(set);
  if (set->n > 0) return 0;
  /* < v6.2: task_ctx_nr = perf_invalid_context makes every per-task IBS
   * event EINVAL, while the same attr opens CPU-wide. */
  if (rc != -ESRCH && set->refused && set->first_errno == EINVAL && !pmu->swfilt &&
      strcmp(set->first_step, "perf_event_open") == 0) {
    ps_set_close(set);
    if (ps_set_init(set, attr, s->pid, only_tid, 1, IBS_RING_PAGES_LOG2_RUN) < 0)
      return -ASMSPY_E_NOMEM;
    (void)ps_set_open_cpus(set);
    if (set->n > 0) {
      pp_note(host, out, ASMSPY_NOTE_INFO,
              "amd_ibs: per-task %s events are EINVAL here (kernel < 6.2: IBS has no task "
              "context); sampling CPU-wide on %zu CPUs and keeping pid %d's samples",
              pmu->name, set->n, (int)s->pid);
      return 0;
    }
  }
  char why[400];
  ps_set_open_reason(set, pmu->name, why, sizeof why);
  int st = rc == -ESRCH && !set->refused ? -ASMSPY_E_ATTACH_GONE : ps_set_open_status(set);
  pp_note(host, out, ASMSPY_NOTE_WARN, "amd_ibs: pid %d: %s", (int)s->pid, why);
  ps_set_close(set);
  return st;
}

/* The notes that make the window's numbers honest. */
static void note_window(const struct asmspy_host_api *host, struct asmspy_out *out,
                        const struct ps_set *set, const struct ibs_emitter *em,
                        const struct ps_counts *n, const struct ps_window_result *w) {
  ps_note_window(host, out, "amd_ibs", em->pid, set, n, w);
  char text[300];
  ibs_unusable_text(&em->t, text, sizeof text);
  if (text[0]) pp_note(host, out, ASMSPY_NOTE_WARN, "amd_ibs: samples without an event: %s", text);
  if (em->t.kernel)
    pp_note(host, out, ASMSPY_NOTE_INFO,
            "amd_ibs: %llu kernel-mode samples dropped (no swfilt: IBS sampled the kernel too)",
            (unsigned long long)em->t.kernel);
}

int ibs_capture(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct ibs_pmu *pmu) {
  struct asmspy_out *out = pp_session_out(s);
  if (!s->sink || s->pid <= 0) return -ASMSPY_E_USAGE;
  int64_t window_ms =
      ASMSPY_HAS(s, window_ms) && s->window_ms > 0 ? s->window_ms : IBS_DEFAULT_WINDOW_MS;
  struct perf_event_attr attr;
  ibs_attr_init(&attr, pmu);
  struct ps_set set;
  int rc = open_events(host, out, s, pmu, &attr, &set);
  if (rc < 0) return rc;
  if (!pmu->swfilt)
    pp_note(host, out, ASMSPY_NOTE_INFO,
            "amd_ibs: the kernel lacks %s/format/swfilt (< 6.14): user-only sampling is not "
            "available, so IBS samples the kernel too and kernel-mode samples are dropped here",
            pmu->name);

  struct ibs_emitter em;
  ibs_emitter_init(&em, s->sink, s->sink_ctx, s->target, s->pid, s->tid > 0 ? s->tid : 0,
                   pmu->period, !pmu->swfilt);
  em.out.nthreads = set.cpu_wide ? 1 : (uint32_t)set.n;
  struct insn_len_ctx ilc = {host, s->target};
  if (host && s->target && ASMSPY_HAS(host, disasm) && host->read_mem && host->disasm) {
    em.insn_len = target_insn_len;
    em.insn_len_ctx = &ilc;
  }

  uint8_t buf[8192] __attribute__((aligned(8))); /* one record at a time */
  struct ps_counts counts;
  memset(&counts, 0, sizeof counts);
  struct ps_consumer consumer = ibs_consumer(&em);
  struct ps_window_result w;
  ps_run_window(&set, window_ms, s->stop, buf, sizeof buf, &consumer, &counts, &w);

  note_window(host, out, &set, &em, &counts, &w);
  ibs_emit_provenance(&em, &counts, w.window_ns);
  ps_set_close(&set);
  return w.target_exited ? ASMSPY_FACT_EXITED : 0;
}
