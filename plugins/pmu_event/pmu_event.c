/* pmu_event: the named-event sampler rung, `--sampler=event:<name>`. Out of
 * band like sw-clock: perf sampling events on every thread of the target,
 * no ptrace, the target runs unperturbed; but the event is the user's, named
 * the way perf and libpfm4 name events ("cpu-clock", "perf::TASK-CLOCK",
 * "CYCLES:u", "INST_RETIRED:ANY_P", "r01c4", with ":period=N" / ":freq=N").
 *
 * The name reaches the backend as session.sampler_arg (ABI 1.8) and libpfm4
 * encodes it (pe_encode.c). Each sample (IP, TID, PERIOD) becomes an
 * ASMSPY_EV_SAMPLE weighted 1 with its period, the kernel's LOST records
 * ASMSPY_EV_LOST, and one ASMSPY_EV_PROVENANCE (sampler "event:<name>")
 * closes the window. The per-thread rings, new-thread pickup, the window
 * loop and its notes are the samplers' shared machinery
 * (plugins/common/perf_sampling.h); this file only builds the attr from the
 * name and turns records into events.
 *
 * Refusals are one line each: a name libpfm4 cannot encode is a usage error
 * (exit 2) before any event opens; an event the kernel refuses (a hardware
 * event on a guest without a vPMU: ENOENT) carries the errno, perf's gate,
 * and what the silicon has against what the kernel registered (pmu_model).
 *
 * Kernel ABI: include/uapi/linux/perf_event.h (PERF_RECORD_SAMPLE layout in
 * sample_type bit order: IP, TID, PERIOD), kernel/events/core.c. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include "plugins/common/perf_probe.h"
#include "plugins/common/perf_sampling.h"
#include "plugins/common/pmu_model.h"
#include "plugins/common/sampler_run.h"
#include "plugins/pmu_event/pe_encode.h"

#define PE_NAME "pmu_event"
#define PE_CAPS (ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_OUT_OF_BAND | ASMSPY_CAP_ATTACH_PID)
#define PE_DEFAULT_WINDOW_MS 300
#define PE_RING_PAGES_LOG2 4 /* 16 data pages per thread: > 2000 samples of 32 bytes */
/* The probe's event: software, so it opens wherever perf_event_open works */
#define PE_PROBE_EVENT "perf::PERF_COUNT_SW_TASK_CLOCK"

/* ------------------------------------------------------------ capture -- */

/* PE_SAMPLE_TYPE: { header; u64 ip; u32 pid, tid; u64 period; } */
static int pe_on_sample(void *arg, const uint8_t *rec, size_t len) {
  struct sr_window *w = arg;
  struct ps_cursor c = {rec, len};
  struct perf_event_header h;
  uint64_t ip, period;
  uint32_t pid, tid;
  if (ps_take(&c, &h, sizeof h) || ps_take(&c, &ip, 8) || ps_take(&c, &pid, 4) ||
      ps_take(&c, &tid, 4) || ps_take(&c, &period, 8))
    return 0;                             /* a short record: nothing to name */
  if ((pid_t)pid != w->out.pid) return 0; /* per-thread events, no inherit: cannot happen */
  w->samples++;
  struct asmspy_event ev;
  ps_event_init(&w->out, &ev, ASMSPY_EV_SAMPLE, (int32_t)tid);
  ev.flags = ASMSPY_EVF_SAMPLED;
  ev.ip = ip;
  ev.u.sample.weight = 1;
  ev.u.sample.period = period;
  return ps_emit_event(&w->out, &ev);
}

static int pe_on_lost(void *arg, uint64_t n) {
  return ps_emit_lost(&((struct sr_window *)arg)->out, n);
}

/* Event types that need a hardware PMU the kernel registered. */
static int pe_needs_core_pmu(unsigned type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/* The reason an event opened on no thread, with the silicon-versus-kernel
 * clause when a hardware event met a kernel without the PMU. */
static void pe_refusal(const struct ps_set *set, const char *name, char *buf, size_t cap) {
  char why[400];
  ps_set_open_reason(set, name, why, sizeof why);
  int e = set->first_errno;
  if (set->refused && pe_needs_core_pmu(set->attr.type) &&
      (e == ENOENT || e == EOPNOTSUPP || e == ENODEV) && !pp_pmu_exists("cpu")) {
    struct pmu_model m;
    pmu_model_read(&m);
    char cpu[128], tbuf[32];
    pmu_model_cpu_text(&m, cpu, sizeof cpu);
    snprintf(buf, cap, "%s; the kernel registered no core PMU for this %s event (%s%s)", why,
             pe_type_name(set->attr.type, tbuf, sizeof tbuf),
             m.guest ? "a guest without a vPMU: " : "", cpu);
    return;
  }
  snprintf(buf, cap, "%s", why);
}

static int pe_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  struct asmspy_out *out = pp_session_out(s);
  int st = sr_check_session(host, s, "pmu_event");
  if (st) return st;
  const char *name = ASMSPY_HAS(s, sampler_arg) ? s->sampler_arg : NULL;
  struct perf_event_attr attr;
  char canon[256], why[300];
  if (pe_encode(name, &attr, canon, sizeof canon, why, sizeof why) != 0) {
    pp_note(host, out, ASMSPY_NOTE_WARN, "pmu_event: %s", why);
    return -ASMSPY_E_USAGE;
  }
  char tbuf[32];
  if (attr.freq)
    pp_note(host, out, ASMSPY_NOTE_INFO, "pmu_event: %s = %s (%s, config %#llx), %llu Hz", name,
            canon, pe_type_name(attr.type, tbuf, sizeof tbuf), (unsigned long long)attr.config,
            (unsigned long long)attr.sample_freq);
  else
    pp_note(host, out, ASMSPY_NOTE_INFO, "pmu_event: %s = %s (%s, config %#llx), period %llu", name,
            canon, pe_type_name(attr.type, tbuf, sizeof tbuf), (unsigned long long)attr.config,
            (unsigned long long)attr.sample_period);

  struct ps_set set;
  st = sr_open_set(host, s, &set, &attr, PE_RING_PAGES_LOG2, "pmu_event", name, pe_refusal);
  if (st) return st;
  char sampler[96];
  snprintf(sampler, sizeof sampler, "event:%s", name);
  struct sr_window w;
  sr_window_init(&w, s, &set);
  struct ps_consumer consumer = {.sample = pe_on_sample, .lost = pe_on_lost, .arg = &w};
  return sr_run_window(host, s, &set, &w, &consumer, PE_DEFAULT_WINDOW_MS, sampler);
}

/* ------------------------------------------------------------ probe -- */

/* The probe's child only has to exist: the event is opened on it, never
 * enabled, and the child is reaped without being told to run. */
static void pe_probe_idle(void *arg) { (void)arg; }

/* Usable where libpfm4 encodes events and perf_event_open opens a sampling
 * event on a forked child at all: which event is the session's to name, and
 * run() refuses one the kernel does not have. The reason says what libpfm4
 * makes of this CPU and whether the kernel registered a core PMU, so the
 * user knows before naming one whether hardware events can work. */
static int pe_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  struct perf_event_attr attr;
  char canon[256], why[300];
  if (pe_encode(PE_PROBE_EVENT, &attr, canon, sizeof canon, why, sizeof why) != 0)
    return pp_verdict(res, ASMSPY_E_NO_LIB, 0, 0, "%s", why);
  struct pp_child c = {-1, -1};
  int st = pp_probe_child_fork(res, PE_NAME, &c, pe_probe_idle, NULL);
  if (st) return st;
  int fd = pp_perf_event_open(&attr, c.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  int e = errno;
  if (fd >= 0) close(fd);
  pp_child_reap(&c);
  if (fd < 0) {
    char hint[200];
    pp_perf_errno_hint(e, hint, sizeof hint);
    return pp_verdict(res, pp_perf_errno_status(e), e, 0,
                      "perf_event_open(%s, sampling) on a forked child: %s (%s)", PE_PROBE_EVENT,
                      pp_errno_name(e), hint);
  }
  struct pmu_model m;
  pmu_model_read(&m);
  char cpu[128];
  pmu_model_cpu_text(&m, cpu, sizeof cpu);
  return pp_verdict(res, ASMSPY_USABLE, 0, PE_CAPS,
                    "--sampler=event:<name>: libpfm4 encodes, a sampling %s opened on a forked "
                    "child; %s; kernel core PMU: %s",
                    PE_PROBE_EVENT, cpu,
                    pp_pmu_exists("cpu") ? "yes" : "none (hardware events will be refused)");
}

static const struct asmspy_backend_ops pe_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = pe_run,
    .sampler_rung = "event", /* --sampler=event:<name> */
    .sampler_order = 0,      /* only when named: the event is the user's choice */
};

static const struct asmspy_plugin pe_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = PE_NAME,
    .description = "sampler rung event:<name>: IP samples of any perf event libpfm4 can encode",
    .caps = PE_CAPS,
    .probe = pe_probe,
    .backend = &pe_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(pe_plugin)
