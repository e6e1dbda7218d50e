/* ptsampler: the perf-free sampler rung (--sampler=ptrace), for hosts where
 * perf_event_open is refused outright (Docker's default seccomp profile,
 * perf_event_paranoid > 2 without CAP_PERFMON) but ptrace is allowed.
 *
 * Residency probes: the window (s->window_ms, default PTS_DEFAULT_WINDOW_MS)
 * is cut into N equal slots (one per PTS_SLOT_MS, within PTS_MIN/MAX_PROBES)
 * and one probe fires at a random moment inside each slot (stratified, so a
 * target with a periodic rhythm cannot alias with a fixed probe clock). A
 * probe is a brief attach through the host seam: seize every thread, read
 * each one's registers, detach (the seam's two-phase detach hands back any
 * signal that arrived meanwhile). Between probes the target is not traced
 * at all. A thread stopped inside a syscall (orig_rax != -1: sleeping,
 * blocked) was not running user code, so it is no residency sample — the
 * same statement the sw-clock rung makes with exclude_kernel.
 *
 * Call-target expansion: a few dozen probes can miss a short hot callee
 * entirely, while its caller — a loop — dominates. So the bodies of the
 * PTS_EXPAND_FUNCS functions with the most residency are decoded
 * (host->disasm, a linear sweep over the symbol's extent) and every direct
 * `call <target>` becomes an ASMSPY_EV_BRANCH with ASMSPY_EVF_BR_CALL: a
 * static candidate edge, never marked TAKEN or SAMPLED (it was not observed
 * running). Confirming a candidate with real entry evidence is the entry
 * breakpoint of the region capture that follows (--dataflow --auto: the
 * singlestep backend's bounded entry wait), not this backend's job.
 *
 * Budget: every probe stops every thread, so its cost grows with the thread
 * count. Before each probe after the first, if the target has already been
 * stopped for more than PTS_STOP_BUDGET_PCT of the elapsed window
 * ($ASMSPY_PTRACE_SAMPLER_BUDGET overrides the percentage), that slot is
 * skipped; the closing note counts the skipped probes.
 *
 * Events: ASMSPY_EV_SAMPLE per on-CPU thread per probe, the BR_CALL edges,
 * a NOTE with the probe costs, then one ASMSPY_EV_PROVENANCE ("ptrace"). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "common/arch_insn.h"

#include "common/hot_rank.h"
#include "plugins/common/insn_class.h" /* pi_class, pi_call_rel_target */
#include "plugins/common/perf_probe.h" /* pp_child_*, pp_verdict, pp_note, timing */

#include <sys/wait.h>

#define PTS_DEFAULT_WINDOW_MS 300
#define PTS_SLOT_MS 10 /* one probe per 10 ms of window */
#define PTS_MIN_PROBES 4
#define PTS_MAX_PROBES 200
#define PTS_MAX_THREADS 1024 /* threads read per probe */
#define PTS_EXPAND_FUNCS 3   /* hottest functions whose calls are decoded */
#define PTS_MAX_FUNC_BYTES (64 * 1024)
#define PTS_MAX_CALLS_PER_FUNC 256
#define PTS_STOP_BUDGET_PCT 10.0 /* of the elapsed window the target may spend stopped */

/* The system call tid is stopped inside, or -1 when it was interrupted in
 * user code: x86-64's orig_rax (user_regs_struct index 15); AArch64 keeps
 * it out of the general registers, in the NT_ARM_SYSTEM_CALL regset. */
static int64_t pts_syscall_of(const struct asmspy_host_api *host, struct asmspy_seam *sm, pid_t tid,
                              const struct asmspy_regs *r) {
#if defined(__x86_64__)
  (void)host, (void)sm, (void)tid;
  return r->ngpr > 15 ? (int64_t)r->gpr[15] : -1;
#else
  (void)r;
  int no = -1;
  size_t len = sizeof no;
  if (host->seam->get_regset(sm, tid, 0x404 /* NT_ARM_SYSTEM_CALL */, &no, &len) != 0) return -1;
  return no;
#endif
}

struct pts {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  uint64_t seq;
  int sink_stop;
  uint64_t probes, on_cpu, in_syscall, skipped;
  int64_t stopped_ns; /* attach -> detach, summed over the probes */
  uint64_t rng;
  struct hr_table sites; /* ip -> samples, for the expansion */
};

static int64_t pts_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pts_sleep_until(int64_t t_ns) {
  struct timespec ts = {(time_t)(t_ns / 1000000000), (long)(t_ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

static uint64_t pts_rand(struct pts *p) { /* xorshift64 */
  p->rng ^= p->rng << 13;
  p->rng ^= p->rng >> 7;
  p->rng ^= p->rng << 17;
  return p->rng;
}

static void pts_emit(struct pts *p, struct asmspy_event *ev) {
  ev->abi_version = ASMSPY_ABI_VERSION;
  ev->struct_size = sizeof *ev;
  ev->seq = ++p->seq;
  if (!p->sink_stop && p->s->sink(p->s->sink_ctx, ev)) p->sink_stop = 1;
}

/* One probe: attach, one register read per thread, detach. Returns 0 or the
 * seam's negative status. */
static int pts_probe_once(struct pts *p, uint64_t period_ns) {
  const struct asmspy_seam_api *seam = p->host->seam;
  const struct asmspy_session *s = p->s;
  struct asmspy_session sub = *s;
  sub.flags &= ~(ASMSPY_SESS_FOLLOW | ASMSPY_SESS_LAUNCHED);
  struct asmspy_seam *sm = NULL;
  int64_t t0 = pts_now_ns();
  int rc = seam->attach(&sub, &sm);
  if (rc) return rc;
  pid_t tids[PTS_MAX_THREADS];
  uint32_t n = seam->list_threads(sm, tids, PTS_MAX_THREADS);
  struct asmspy_event *evs = calloc(n ? n : 1, sizeof *evs);
  size_t nev = 0;
  for (uint32_t i = 0; i < n; i++) {
    struct asmspy_regs r;
    memset(&r, 0, sizeof r);
    ASMSPY_INIT_HEADER(&r);
    if (seam->get_regs(sm, tids[i], &r) != 0) continue;
    if (pts_syscall_of(p->host, sm, tids[i], &r) != -1) {
      p->in_syscall++;
      continue;
    }
    p->on_cpu++;
    hr_add(&p->sites, r.ip, 0, 1, 0);
    if (evs) {
      struct asmspy_event *ev = &evs[nev++];
      memset(ev, 0, sizeof *ev);
      ev->type = ASMSPY_EV_SAMPLE;
      ev->flags = ASMSPY_EVF_SAMPLED;
      ev->pid = s->pid;
      ev->tid = tids[i];
      ev->nthreads = n;
      ev->ip = r.ip;
      ev->target = s->target;
      ev->u.sample.weight = 1;
      ev->u.sample.period = period_ns;
    }
  }
  seam->detach(sm);
  p->stopped_ns += pts_now_ns() - t0;
  p->probes++;
  /* delivered after the detach: a view's work never lengthens the stop */
  for (size_t i = 0; i < nev; i++) pts_emit(p, &evs[i]);
  free(evs);
  return 0;
}

/* Decode the hottest functions' bodies; emit each direct call edge once. */
static void pts_expand_calls(struct pts *p) {
  const struct asmspy_host_api *h = p->host;
  struct asmspy_target *t = p->s->target;
  size_t nf = 0;
  struct hr_func *f = hr_functions(h, t, &p->sites, 0, NULL, &nf);
  uint8_t *code = malloc(PTS_MAX_FUNC_BYTES);
  struct hr_table seen = {0};
  for (size_t i = 0; code && i < nf && i < PTS_EXPAND_FUNCS; i++) {
    size_t len = f[i].size < PTS_MAX_FUNC_BYTES ? (size_t)f[i].size : PTS_MAX_FUNC_BYTES;
    ssize_t got = h->read_mem(t, f[i].start, code, len);
    if (got <= 0) continue;
    unsigned calls = 0;
    for (size_t off = 0; off < (size_t)got && calls < PTS_MAX_CALLS_PER_FUNC;) {
      uint64_t site = f[i].start + off;
      uint32_t c = pi_class(h, site, code + off, (size_t)got - off);
      if (!c) { /* undecodable (padding, data): resynchronise one byte on */
        off++;
        continue;
      }
      uint64_t to = pi_call_rel_target(c, site, code + off); /* a direct call's target, else 0 */
      off += ASMSPY_INSN_LEN(c);
      if (!to || hr_find(&seen, site, to)) continue;
      hr_add(&seen, site, to, 1, 0);
      calls++;
      struct asmspy_event ev;
      memset(&ev, 0, sizeof ev);
      ev.type = ASMSPY_EV_BRANCH;
      ev.flags = ASMSPY_EVF_BR_CALL; /* static: not TAKEN, not SAMPLED */
      ev.pid = p->s->pid;
      ev.ip = site;
      ev.target = t;
      ev.u.branch.from = site;
      ev.u.branch.to = to;
      pts_emit(p, &ev);
    }
  }
  hr_free(&seen);
  free(code);
  free(f);
}

static int pts_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  if (s->flags & ASMSPY_SESS_LAUNCHED) {
    /* as in swclock: the host lets a --launch'ed command go first */
    pp_note(host, s->out, ASMSPY_NOTE_WARN,
            "the ptrace sampler probes a running pid; this host hands it a command stopped "
            "before its exec");
    return -ASMSPY_E_USAGE;
  }
  if (!ASMSPY_HAS(host->seam, list_threads) || !host->seam->list_threads) return -ASMSPY_E_ABI;
  struct pts p = {.host = host, .s = s};
  p.rng = (uint64_t)pts_now_ns() ^ ((uint64_t)s->pid << 32) ^ 0x9e3779b97f4a7c15ull;
  int64_t window_ms = s->window_ms > 0 ? s->window_ms : PTS_DEFAULT_WINDOW_MS;
  int64_t nprobes = window_ms / PTS_SLOT_MS;
  if (nprobes < PTS_MIN_PROBES) nprobes = PTS_MIN_PROBES;
  if (nprobes > PTS_MAX_PROBES) nprobes = PTS_MAX_PROBES;
  int64_t slot_ns = window_ms * 1000000 / nprobes;
  const char *b = getenv("ASMSPY_PTRACE_SAMPLER_BUDGET");
  double budget = b ? strtod(b, NULL) : PTS_STOP_BUDGET_PCT;
  if (!(budget > 0 && budget <= 100)) budget = PTS_STOP_BUDGET_PCT;
  int64_t t0 = pts_now_ns();
  int result = 0;
  for (int64_t i = 0; i < nprobes && !p.sink_stop && !(s->stop && *s->stop); i++) {
    pts_sleep_until(t0 + i * slot_ns + (int64_t)(pts_rand(&p) % (uint64_t)slot_ns));
    if (p.probes && (double)p.stopped_ns > budget / 100.0 * (double)(pts_now_ns() - t0)) {
      p.skipped++; /* over the stop budget: let the target run this slot */
      continue;
    }
    int rc = pts_probe_once(&p, (uint64_t)slot_ns);
    if (rc == -ASMSPY_E_ATTACH_GONE) {
      result = p.probes ? ASMSPY_FACT_EXITED : rc;
      break;
    }
    if (rc) { /* the first probe says whether we may attach at all */
      if (!p.probes) {
        hr_free(&p.sites);
        return rc;
      }
      pp_note(host, s->out, ASMSPY_NOTE_WARN, "ptrace sampler: probe %lld failed: %s; stopping",
              (long long)i + 1, host->strerror(rc));
      break;
    }
  }
  pts_sleep_until(t0 + window_ms * 1000000); /* the window is what was asked for */
  int64_t t1 = pts_now_ns();
  if (result == 0) pts_expand_calls(&p);
  if (p.probes)
    pp_note(host, s->out, ASMSPY_NOTE_INFO,
            "ptrace sampler: %" PRIu64 " probes over %lld ms: %" PRIu64 " on-CPU samples, %" PRIu64
            " threads found in a syscall (not residency); the target was stopped %.3f ms per "
            "probe (%.2f%% of the window)",
            p.probes, (long long)((t1 - t0) / 1000000), p.on_cpu, p.in_syscall,
            (double)p.stopped_ns / 1e6 / (double)p.probes,
            100.0 * (double)p.stopped_ns / (double)(t1 - t0));
  if (p.skipped)
    pp_note(host, s->out, ASMSPY_NOTE_WARN,
            "ptrace sampler: %" PRIu64 " of %lld probes skipped to keep the target stopped under "
            "%.3g%% of the window (each probe stops every thread)",
            p.skipped, (long long)nprobes, budget);
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = ASMSPY_EV_PROVENANCE;
  ev.pid = s->pid;
  ev.target = s->target;
  ev.u.prov.samples = p.on_cpu;
  ev.u.prov.window_ns = (uint64_t)(t1 - t0);
  ev.u.prov.sampler = "ptrace";
  p.sink_stop = 0; /* the summary is delivered even to a view that is done */
  pts_emit(&p, &ev);
  hr_free(&p.sites);
  return result;
}

/* ------------------------------------------------------------ probe -- */

static void pts_probe_spin(void *arg) {
  (void)arg;
  volatile unsigned long acc = 0;
  for (;;) acc = acc * 33 + 1; /* until the probe kills it */
}

/* Functional: attach to a forked busy child through the host seam the way a
 * residency probe does, read its registers (it must have been running user
 * code: orig_rax == -1), detach, and require that it keeps running
 * untraced. */
static int pts_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  const uint64_t caps = ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_ATTACH_PID;
  if (!host || !ASMSPY_HAS(host, seam) || !host->seam || !ASMSPY_HAS(host->seam, list_threads))
    return pp_verdict(res, ASMSPY_E_ABI, 0, 0, "the host has no ABI 1.5 ptrace seam");
  struct pp_child c = {-1, -1};
  int st = pp_probe_child_fork(res, "ptrace sampler", &c, pts_probe_spin, NULL);
  if (st) return st;
  if (pp_child_go(&c) != 0) {
    pp_child_reap(&c);
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0, "ptrace sampler probe: cannot start the child");
  }
  pp_sleep_us(20000); /* let it reach its loop */
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "probe";
  s.pid = c.pid;
  struct asmspy_seam *sm = NULL;
  int rc = host->seam->attach(&s, &sm);
  if (rc) {
    pp_child_reap(&c);
    return pp_verdict(res, rc == -ASMSPY_E_ATTACH_PERM ? ASMSPY_E_PERM : ASMSPY_E_INTERNAL, 0, 0,
                      "ptrace sampler: cannot seize a forked child of our own: %s",
                      host->strerror(rc));
  }
  struct asmspy_regs r;
  memset(&r, 0, sizeof r);
  ASMSPY_INIT_HEADER(&r);
  int grc = host->seam->get_regs(sm, c.pid, &r);
  int64_t in_sys = grc == 0 ? pts_syscall_of(host, sm, c.pid, &r) : -1;
  host->seam->detach(sm);
  int user = grc == 0 && in_sys == -1 && r.ip && r.ip < ARCH_USER_VA_END;
  /* still alive and running untraced after the detach? */
  pp_sleep_us(10000);
  char path[64], stat[512], status[4096];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)c.pid);
  int alive = pp_read_text(path, stat, sizeof stat) > 0;
  const char *paren = alive ? strrchr(stat, ')') : NULL;
  char state = paren && paren[1] == ' ' ? paren[2] : '?';
  snprintf(path, sizeof path, "/proc/%d/status", (int)c.pid);
  const char *tp =
      pp_read_text(path, status, sizeof status) > 0 ? strstr(status, "TracerPid:") : NULL;
  int untraced = tp && atoi(tp + 10) == 0;
  pp_child_reap(&c);
  if (grc != 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -grc, 0,
                      "ptrace sampler: seized a forked child but could not read its registers: %s",
                      pp_errno_name(-grc));
  if (!user)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "ptrace sampler: a busy child read ip=0x%" PRIx64 " in syscall %" PRId64
                      " (expected user code outside a syscall)",
                      r.ip, in_sys);
  if (!(state == 'R' || state == 'S') || !untraced)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "ptrace sampler: after the detach the child is in state '%c'%s", state,
                      untraced ? "" : " and still traced");
  return pp_verdict(res, ASMSPY_USABLE, 0, caps,
                    "seized a forked busy child, read its ip in user code (0x%" PRIx64
                    "), detached; it kept running untraced",
                    r.ip);
}

static const struct asmspy_backend_ops pts_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = pts_run,
    /* 1.8: the ladder's last rung: interrupts the target, works everywhere */
    .sampler_rung = "ptrace",
    .sampler_order = 40,
};

static const struct asmspy_plugin pts_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "ptsampler",
    .description =
        "sampler rung ptrace: perf-free attach-and-sample residency probes + call targets",
    .caps = ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_ATTACH_PID,
    .probe = pts_probe,
    .backend = &pts_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(pts_plugin)
