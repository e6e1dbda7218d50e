/* swclock: the portable sampler rung (--sampler=sw). Out of band: perf
 * software events only, no PMU, no ptrace, the target runs unperturbed.
 *
 * Every thread of the target gets PERF_COUNT_SW_TASK_CLOCK sampling events
 * with PERF_SAMPLE_IP | PERF_SAMPLE_TID, user space only (exclude_kernel:
 * required at perf_event_paranoid=2, and kernel IPs could not be named
 * anyway), one sample per SWC_PERIOD_NS of the thread's own CPU time. The
 * task clock only advances while the thread runs, so a sample is a statement
 * about residency: "this thread was executing this user instruction", and an
 * idle thread yields nothing.
 *
 * Layout: the samplers' shared machinery (plugins/common/perf_sampling.h):
 * one event and ring per thread of the target, threads born during the
 * window picked up at every drain tick, the window loop, loss and throttle
 * accounting and the closing notes, exactly as amd_ibs / amd_lbr use it;
 * this file only builds the attr and turns IP+TID records into events.
 * Each sample becomes an ASMSPY_EV_SAMPLE, the kernel's LOST records
 * ASMSPY_EV_LOST, and one ASMSPY_EV_PROVENANCE (sampler "sw-clock") closes
 * the window (s->window_ms, default SWC_DEFAULT_WINDOW_MS).
 *
 * Each sample also carries the thread's user call stack as the kernel walks
 * it (PERF_SAMPLE_CALLCHAIN: frame pointers, at most SWC_MAX_STACK frames).
 * Every adjacent pair (return address r in the caller, the callee's site
 * below it) becomes an ASMSPY_EV_BRANCH flagged SAMPLED | BR_CALL and NOT
 * BR_TAKEN: u.branch.from = r, u.branch.to = the callee's sampled site. It
 * is a call in progress seen on the stack, never a sampled branch; code
 * built without frame pointers yields garbage frames, so a consumer checks
 * that the bytes before r are a call (the sample view does). --auto ignores
 * these (it counts only TAKEN branches and unflagged call targets).
 *
 * Kernel ABI: include/uapi/linux/perf_event.h (record layouts),
 * kernel/events/core.c (perf_mmap, perf_event_set_output, inherit). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "common/arch_insn.h"

#include "plugins/common/perf_probe.h"
#include "plugins/common/perf_sampling.h"
#include "plugins/common/sampler_run.h"

#define SWC_PERIOD_NS 1000000ull      /* 1 ms of the thread's CPU time per sample */
#define SWC_DEFAULT_WINDOW_MS 300     /* the seed's --sample default */
#define SWC_RING_PAGES_LOG2 4         /* 16 data pages (64 KiB) per thread: > 2500 samples */
#define SWC_PROBE_PERIOD_NS 100000ull /* 100 us: the probe wants many samples fast */
#define SWC_PROBE_CPU_MS 20           /* CPU time the probe's child burns */
#define SWC_MAX_STACK 16              /* user frames per sample's call chain */

static void swc_attr(struct perf_event_attr *a, uint64_t period) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_SOFTWARE;
  a->config = PERF_COUNT_SW_TASK_CLOCK;
  a->sample_period = period;
  a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
  a->exclude_callchain_kernel = 1; /* user frames only, like the IPs */
  a->sample_max_stack = SWC_MAX_STACK;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  a->disabled = 1;
  a->wakeup_events = 64;
}

/* ------------------------------------------------------------ capture -- */

/* The call chain after IP and TID: { u64 nr; u64 ips[nr]; }, the user
 * context marker first, then the sampled ip, then return addresses. One
 * BRANCH (SAMPLED | BR_CALL, not TAKEN) per caller frame: from = the
 * return address, to = the site below it. */
static int swc_callchain(struct sr_window *w, struct ps_cursor *c, uint32_t tid) {
  uint64_t nr = 0, prev = 0;
  if (ps_take(c, &nr, 8)) return 0;
  for (uint64_t i = 0; i < nr; i++) {
    uint64_t at;
    if (ps_take(c, &at, 8)) return 0;
    if (at >= (uint64_t)PERF_CONTEXT_MAX) continue; /* a context marker */
    if (ps_is_kernel_ip(at) || !at) break;
    if (prev) {
      struct asmspy_event ev;
      ps_event_init(&w->out, &ev, ASMSPY_EV_BRANCH, (int32_t)tid);
      ev.flags = ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_CALL;
      ev.ip = at;
      ev.u.branch.from = at;
      ev.u.branch.to = prev;
      if (ps_emit_event(&w->out, &ev)) return 1;
    }
    prev = at;
  }
  return 0;
}

/* PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN:
 * { header; u64 ip; u32 pid, tid; u64 nr; u64 ips[nr]; } */
static int swc_on_sample(void *arg, const uint8_t *rec, size_t len) {
  struct sr_window *w = arg;
  struct ps_cursor c = {rec, len};
  struct perf_event_header h;
  uint64_t ip;
  uint32_t pid, tid;
  if (ps_take(&c, &h, sizeof h) || ps_take(&c, &ip, 8) || ps_take(&c, &pid, 4) ||
      ps_take(&c, &tid, 4))
    return 0;                             /* a short record: nothing to name */
  if ((pid_t)pid != w->out.pid) return 0; /* per-thread events, no inherit: cannot happen */
  w->samples++;
  struct asmspy_event ev;
  ps_event_init(&w->out, &ev, ASMSPY_EV_SAMPLE, (int32_t)tid);
  ev.flags = ASMSPY_EVF_SAMPLED;
  ev.ip = ip;
  ev.u.sample.weight = 1;
  ev.u.sample.period = SWC_PERIOD_NS;
  if (ps_emit_event(&w->out, &ev)) return 1;
  return swc_callchain(w, &c, tid);
}

static int swc_on_lost(void *arg, uint64_t n) {
  return ps_emit_lost(&((struct sr_window *)arg)->out, n);
}

static int swc_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  int st = sr_check_session(host, s, "sw-clock");
  if (st) return st;
  struct perf_event_attr attr;
  swc_attr(&attr, SWC_PERIOD_NS);
  struct ps_set set;
  st = sr_open_set(host, s, &set, &attr, SWC_RING_PAGES_LOG2, "sw-clock", "task-clock", NULL);
  if (st) return st;
  struct sr_window w;
  sr_window_init(&w, s, &set);
  struct ps_consumer consumer = {.sample = swc_on_sample, .lost = swc_on_lost, .arg = &w};
  return sr_run_window(host, s, &set, &w, &consumer, SWC_DEFAULT_WINDOW_MS, "sw-clock");
}

/* ------------------------------------------------------------ probe -- */

/* The probe's child: burn SWC_PROBE_CPU_MS of its own CPU time in user
 * space (CPU time, not wall time: a loaded host still yields the samples). */
static void swc_probe_burn(void *arg) {
  (void)arg;
  struct timespec ts;
  volatile unsigned long acc = 0;
  for (;;) {
    for (int i = 0; i < 100000; i++) acc = acc * 33 + (unsigned long)i;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    if (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= SWC_PROBE_CPU_MS) break;
  }
}

struct swc_probe_count {
  pid_t child;
  unsigned long own, user;
};

static void swc_probe_sample(const uint8_t *rec, size_t len, void *arg) {
  struct swc_probe_count *c = arg;
  if (len < 24) return;
  uint64_t ip;
  uint32_t pid;
  memcpy(&ip, rec + 8, 8);
  memcpy(&pid, rec + 16, 4);
  if ((pid_t)pid != c->child) return;
  c->own++;
  if (ip < ARCH_USER_VA_END) c->user++; /* the user half of the address space */
}

/* Functional: sample a forked busy child the way run() samples a target
 * (a per-task task-clock event, user only, IP + TID, a mapped ring) and
 * require user-space samples from it. */
static int swc_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  const uint64_t caps = ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_OUT_OF_BAND | ASMSPY_CAP_ATTACH_PID;
  struct pp_child c = {-1, -1};
  struct pp_ring ring;
  memset(&ring, 0, sizeof ring);
  int fd = -1;
  int st = pp_probe_child_fork(res, "sw-clock", &c, swc_probe_burn, NULL);
  if (st) return st;
  struct perf_event_attr a;
  swc_attr(&a, SWC_PROBE_PERIOD_NS);
  fd = pp_perf_event_open(&a, c.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    char hint[200];
    pp_perf_errno_hint(e, hint, sizeof hint);
    pp_probe_release(&ring, -1, &c);
    return pp_verdict(res, pp_perf_errno_status(e), e, 0,
                      "perf_event_open(PERF_TYPE_SOFTWARE, TASK_CLOCK, sample IP) on a forked "
                      "child: %s (%s)",
                      pp_errno_name(e), hint);
  }
  st = pp_probe_ring_map(res, "sw-clock: mmap of the sample ring", fd, SWC_RING_PAGES_LOG2, &ring);
  if (st) {
    pp_probe_release(&ring, fd, &c);
    return st;
  }
  struct swc_probe_count cnt = {c.pid, 0, 0}; /* run_child reaps the child: keep its pid */
  st = pp_probe_run_child(res, "sw-clock", "sampled", fd, &c, 5000);
  if (st) {
    pp_probe_release(&ring, fd, &c);
    return st;
  }
  uint8_t buf[512]; /* a record with its call chain: < 200 bytes */
  unsigned long records = pp_ring_drain_samples(&ring, buf, sizeof buf, swc_probe_sample, &cnt);
  pp_probe_release(&ring, fd, &c);
  if (cnt.user == 0)
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, 0, 0,
                      "sw-clock: task-clock sampling opened on a forked child, but %lu samples "
                      "(%lu from the child, 0 in user space) after %d ms of its CPU time",
                      records, cnt.own, SWC_PROBE_CPU_MS);
  return pp_verdict(res, ASMSPY_USABLE, 0, caps,
                    "sampled a forked busy child: %lu user-space task-clock samples (IP+TID, "
                    "period %llu us) in %d ms of its CPU time",
                    cnt.user, (unsigned long long)(SWC_PROBE_PERIOD_NS / 1000), SWC_PROBE_CPU_MS);
}

static const struct asmspy_backend_ops swc_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = swc_run,
    /* 1.8: the ladder's third rung: residency (where time went), not edges */
    .sampler_rung = "sw",
    .sampler_order = 30,
};

static const struct asmspy_plugin swc_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "swclock",
    .description =
        "sampler rung sw: perf task-clock IP samples of every thread (no PMU, no ptrace)",
    .caps = ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_OUT_OF_BAND | ASMSPY_CAP_ATTACH_PID,
    .probe = swc_probe,
    .backend = &swc_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(swc_plugin)
