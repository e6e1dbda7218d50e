/* Live test of amd_ibs's perf window on this machine, which has no ibs_op
 * PMU: ibs_capture() — the function run() calls — is handed a software
 * task-clock event in place of ibs_op. Everything else is the real path:
 * per-thread perf_event_open on a running multi-threaded process, one ring
 * per thread, the poll/drain loop, threads born mid-window picked up,
 * the target exiting mid-window, a target that is already gone, --tid, the
 * stop flag, and the non-root path (a privilege-dropped tracer refused on a
 * root-owned target, accepted on its own child at perf_event_paranoid 2).
 *
 * A software event's RAW section is the 4-byte empty payload (kernel
 * perf_output_sample: {size 4, data 0}), so every sample must be counted as
 * an undecodable IBS payload ("raw-short") and produce no BRANCH/SAMPLE
 * event: the window's counts are checked against that. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "plugins/amd_ibs/ibs_capture.h"
#include "plugins/amd_ibs/ibs_emit.h"
#include "tests/amd_ibs/perf_fixture.h"
#include "tests/unit/check.h"

#define SW_PERIOD_NS 250000ull /* task-clock: 4000 samples/s of a busy thread */

static struct ibs_pmu sw_pmu(void) {
  struct ibs_pmu p;
  memset(&p, 0, sizeof p);
  p.name = "task-clock (software stand-in for ibs_op)";
  p.type = PERF_TYPE_SOFTWARE;
  p.config = PERF_COUNT_SW_TASK_CLOCK;
  p.swfilt = 1; /* exclude_kernel=1: what paranoid 2 requires of a task-clock event too */
  p.period = SW_PERIOD_NS;
  return p;
}

/* ---- a spinning multi-threaded target ------------------------------------- */

struct spinner {
  pid_t pid;
  int rfd;
  pid_t tids[8];
  int ntids;
};

static volatile unsigned long sink_counter;
static volatile int threads_started; /* spin threads that reported their tid */

static void spin_for_ms(long ms) {
  int64_t end = pp_now_ms() + ms;
  while (ms < 0 || pp_now_ms() < end)
    for (int i = 0; i < 10000; i++) sink_counter += (unsigned long)i;
}

static void *spin_thread(void *arg) {
  int fd = (int)(intptr_t)arg;
  pid_t t = (pid_t)syscall(SYS_gettid);
  if (write(fd, &t, sizeof t) != sizeof t) _exit(3);
  __atomic_add_fetch(&threads_started, 1, __ATOMIC_SEQ_CST);
  spin_for_ms(-1);
  return NULL;
}

/* A child with `threads` spinning threads (its main one included). With
 * late_ms > 0 it starts one more at that point; with exit_ms > 0 it exits
 * then. Every thread writes its tid to the pipe. */
static int spawn_spinner(struct spinner *sp, int threads, long late_ms, long exit_ms) {
  int p[2];
  if (pipe(p) < 0) return -1;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(2);
    close(p[0]);
    pid_t me = getpid();
    if (write(p[1], &me, sizeof me) != sizeof me) _exit(3);
    pthread_t th;
    for (int i = 1; i < threads; i++)
      pthread_create(&th, NULL, spin_thread, (void *)(intptr_t)p[1]);
    /* every thread has written its tid before the clock for exit_ms
     * starts: under load a thread may not run for a while (counts, not
     * timing luck, decide what the parent reads) */
    while (__atomic_load_n(&threads_started, __ATOMIC_SEQ_CST) < threads - 1) sched_yield();
    if (late_ms > 0) {
      spin_for_ms(late_ms);
      pthread_create(&th, NULL, spin_thread, (void *)(intptr_t)p[1]);
    }
    if (exit_ms > 0) {
      spin_for_ms(exit_ms - (late_ms > 0 ? late_ms : 0));
      _exit(0);
    }
    spin_for_ms(-1);
    _exit(0);
  }
  close(p[1]);
  sp->pid = pid;
  sp->rfd = p[0];
  sp->ntids = 0;
  while (sp->ntids < threads && read(p[0], &sp->tids[sp->ntids], sizeof(pid_t)) == sizeof(pid_t))
    sp->ntids++;
  return sp->ntids == threads ? 0 : -1;
}

static void reap_spinner(struct spinner *sp) {
  kill(sp->pid, SIGKILL);
  waitpid(sp->pid, NULL, 0);
  close(sp->rfd);
}

/* ---- a session over the fake host ---------------------------------------------- */

static struct asmspy_host_api host;

static struct asmspy_session session(pid_t pid, pid_t tid, int64_t window_ms, struct event_log *log,
                                     const volatile int *stop) {
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "sample";
  s.pid = pid;
  s.tid = tid;
  s.max = -1;
  s.stop = stop;
  s.sink = log_sink;
  s.sink_ctx = log;
  s.window_ms = window_ms;
  return s;
}

/* The closing PROVENANCE, checked for what a software stand-in must give:
 * samples, none of them a branch, every one counted as raw-short. */
static const struct asmspy_event *check_sw_window(const struct event_log *log, const char *what) {
  const struct asmspy_event *p = log_last(log, ASMSPY_EV_PROVENANCE);
  CHECK(log_count(log, ASMSPY_EV_PROVENANCE) == 1, "%s: %zu PROVENANCE events", what,
        log_count(log, ASMSPY_EV_PROVENANCE));
  CHECK(p && p == &log->ev[log->n - 1], "%s: PROVENANCE is the last event", what);
  CHECK(log_count(log, ASMSPY_EV_BRANCH) == 0 && log_count(log, ASMSPY_EV_SAMPLE) == 0,
        "%s: a software event's empty RAW must never become a branch or op sample", what);
  if (!p) return NULL;
  CHECK(p->u.prov.sampler && strcmp(p->u.prov.sampler, "ibs") == 0, "%s: sampler", what);
  CHECK(p->u.prov.samples > 0, "%s: no samples from a spinning target", what);
  CHECK(p->u.prov.branch_samples == 0, "%s: branch samples %llu", what,
        (unsigned long long)p->u.prov.branch_samples);
  char want[64];
  snprintf(want, sizeof want, "samples without an event: %llu raw-short",
           (unsigned long long)p->u.prov.samples);
  CHECK(fake_noted(want), "%s: note \"%s\" missing", what, want);
  fprintf(stderr, "%s: %llu samples, %llu lost, %llu throttled, window %.1f ms\n", what,
          (unsigned long long)p->u.prov.samples, (unsigned long long)p->u.prov.lost,
          (unsigned long long)p->u.prov.throttled, (double)p->u.prov.window_ns / 1e6);
  return p;
}

static void test_window_over_threads(void) {
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 4, 0, 0) == 0, "spawn");
  struct event_log log;
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  struct ibs_pmu pmu = sw_pmu();
  struct asmspy_session s = session(sp.pid, 0, 200, &log, NULL);
  int rc = ibs_capture(&host, &s, &pmu);
  CHECK(rc == 0, "ibs_capture: %d", rc);
  const struct asmspy_event *p = check_sw_window(&log, "4 threads");
  if (p) {
    CHECK(p->nthreads == 4, "nthreads %u, want 4 (one event per thread)", p->nthreads);
    CHECK(p->u.prov.window_ns >= 200000000ull, "window %llu ns < 200 ms",
          (unsigned long long)p->u.prov.window_ns);
    CHECK(p->pid == sp.pid, "provenance pid");
  }
  CHECK(ps_process_alive(sp.pid), "the target runs on (never stopped or traced)");
  char status[64];
  snprintf(status, sizeof status, "/proc/%d/status", (int)sp.pid);
  FILE *f = fopen(status, "r");
  char line[256];
  int tracer = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "TracerPid: %d", &tracer) == 1) break;
  if (f) fclose(f);
  CHECK(tracer == 0, "TracerPid %d: out of band means no ptrace", tracer);
  reap_spinner(&sp);
}

/* The shared window loop on its own: a thread born mid-window is found. */
struct tid_seen {
  pid_t tids[64];
  unsigned long hits[64];
  int n;
};

static int record_tid(void *arg, const uint8_t *rec, size_t len) {
  struct tid_seen *t = arg;
  struct ps_cursor c = {rec + sizeof(struct perf_event_header),
                        len - sizeof(struct perf_event_header)};
  uint64_t ip;
  uint32_t pid, tid;
  if (ps_take(&c, &ip, 8) < 0 || ps_take(&c, &pid, 4) < 0 || ps_take(&c, &tid, 4) < 0) return 0;
  for (int i = 0; i < t->n; i++)
    if (t->tids[i] == (pid_t)tid) {
      t->hits[i]++;
      return 0;
    }
  if (t->n < 64) {
    t->tids[t->n] = (pid_t)tid;
    t->hits[t->n++] = 1;
  }
  return 0;
}

static void test_late_thread(void) {
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 2, 60, 0) == 0, "spawn");
  struct ibs_pmu pmu = sw_pmu();
  struct perf_event_attr attr;
  ibs_attr_init(&attr, &pmu);
  struct ps_set set;
  CHECK(ps_set_init(&set, &attr, sp.pid, 0, 0, IBS_RING_PAGES_LOG2_RUN) == 0, "init");
  CHECK(ps_set_scan(&set) == 2, "two threads at the start");
  struct tid_seen seen = {.n = 0};
  struct ps_consumer c = {record_tid, NULL, &seen};
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_window_result w;
  uint8_t buf[4096] __attribute__((aligned(8)));
  ps_run_window(&set, 400, NULL, buf, sizeof buf, &c, &n, &w);
  pid_t late = 0;
  CHECK(read(sp.rfd, &late, sizeof late) == sizeof late, "the late thread's tid");
  CHECK(set.n == 3, "%zu events: the thread born at ~60 ms was picked up", set.n);
  int found = 0;
  for (int i = 0; i < seen.n; i++) found |= seen.tids[i] == late;
  CHECK(found, "no sample from the late thread %d", (int)late);
  CHECK(n.sample_records > 0 && !w.target_exited && !w.interrupted, "window result");
  ps_set_close(&set);
  reap_spinner(&sp);
}

/* A thread that exits mid-window leaves an event that polls POLLHUP for
 * good: the window must stop polling it, not spin on it. Bounded by the
 * tracer's own CPU time (a busy loop would burn the whole window). */
static void *short_thread(void *arg) {
  (void)arg;
  spin_for_ms(30);
  return NULL;
}

static void test_exited_thread_no_busy_loop(void) {
  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pthread_t th;
    pthread_create(&th, NULL, short_thread, NULL);
    char go = 'g';
    if (write(p[1], &go, 1) != 1) _exit(3);
    spin_for_ms(-1);
  }
  char go;
  CHECK(read(p[0], &go, 1) == 1, "child up");
  struct ibs_pmu pmu = sw_pmu();
  struct perf_event_attr attr;
  ibs_attr_init(&attr, &pmu);
  struct ps_set set;
  CHECK(ps_set_init(&set, &attr, pid, 0, 0, IBS_RING_PAGES_LOG2_RUN) == 0, "init");
  int added = ps_set_scan(&set);
  struct tid_seen seen = {.n = 0};
  struct ps_consumer c = {record_tid, NULL, &seen};
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_window_result w;
  uint8_t buf[4096] __attribute__((aligned(8)));
  ps_run_window(&set, 400, NULL, buf, sizeof buf, &c, &n, &w);
  fprintf(stderr,
          "exited thread: %d events, %d threads sampled, %llu poll rounds in a %.0f ms "
          "window\n",
          added, seen.n, (unsigned long long)w.ticks, (double)w.window_ns / 1e6);
  CHECK(added == 2, "both threads found at the start (%d)", added);
  /* 400 ms / 20 ms = 20 rounds; a ring passing its watermark may add some,
   * a HUP event polled on would make it thousands */
  CHECK(w.ticks <= 400 / PS_POLL_MS * 3, "%llu poll rounds: polling a HUP event busy-loops",
        (unsigned long long)w.ticks);
  CHECK(n.sample_records > 0 && !w.target_exited, "the rest of the process was sampled");
  ps_set_close(&set);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  close(p[0]);
  close(p[1]);
}

/* A thread perf refuses is refused once: rescans neither retry it nor
 * count it again, and the status says what perf said. */
static void test_refusals_counted_once(void) {
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 3, 0, 0) == 0, "spawn");
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = 0x7fff0000u; /* no such PMU: ENOENT */
  attr.sample_period = 1000;
  struct ps_set set;
  CHECK(ps_set_init(&set, &attr, sp.pid, 0, 0, 1) == 0, "init");
  CHECK(ps_set_scan(&set) == 0 && ps_set_scan(&set) == 0 && ps_set_scan(&set) == 0, "scans");
  CHECK(set.n == 0 && set.refused == 3, "3 threads refused once each, not %zu", set.refused);
  CHECK(ps_set_open_status(&set) == -ASMSPY_E_NO_KERNEL, "ENOENT -> NO_KERNEL");
  char text[300];
  ps_set_gaps(&set, text, sizeof text);
  CHECK(strncmp(text, "3 refused (first: perf_event_open on tid ", 41) == 0 &&
            strstr(text, ": ENOENT)"),
        "gaps \"%s\"", text);
  ps_set_close(&set);
  reap_spinner(&sp);
}

static void test_target_exits(void) {
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 2, 0, 80) == 0, "spawn");
  struct event_log log;
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  struct ibs_pmu pmu = sw_pmu();
  struct asmspy_session s = session(sp.pid, 0, 5000, &log, NULL);
  /* the child exits ~80 ms in but stays a zombie until reaped: the window
   * must notice the zombie, not wait the 5 s out */
  int rc = ibs_capture(&host, &s, &pmu);
  CHECK(rc == ASMSPY_FACT_EXITED, "rc %d, want ASMSPY_FACT_EXITED", rc);
  const struct asmspy_event *p = check_sw_window(&log, "exits mid-window");
  if (p)
    CHECK(p->u.prov.window_ns < 4000000000ull, "window %llu ns: the exit ended it",
          (unsigned long long)p->u.prov.window_ns);
  CHECK(fake_noted("exited"), "the exit is noted");
  reap_spinner(&sp);
}

static void test_target_gone(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, NULL, 0);
  struct event_log log;
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  struct ibs_pmu pmu = sw_pmu();
  struct asmspy_session s = session(pid, 0, 100, &log, NULL);
  int rc = ibs_capture(&host, &s, &pmu);
  CHECK(rc == -ASMSPY_E_ATTACH_GONE, "rc %d, want -ASMSPY_E_ATTACH_GONE", rc);
  CHECK(log.n == 0, "nothing emitted for a gone target (%zu events)", log.n);
  CHECK(fake_noted("amd_ibs: pid"), "the reason is noted");
}

static void test_tid_and_stop(void) {
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 3, 0, 0) == 0, "spawn");
  struct event_log log;
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  struct ibs_pmu pmu = sw_pmu();
  struct asmspy_session s = session(sp.pid, sp.tids[2], 150, &log, NULL);
  CHECK(ibs_capture(&host, &s, &pmu) == 0, "--tid window");
  const struct asmspy_event *p = check_sw_window(&log, "--tid");
  if (p) CHECK(p->nthreads == 1, "--tid samples one thread: nthreads %u", p->nthreads);

  /* --tid of a thread that is not the target's: refused, not sampled */
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  s = session(sp.pid, getpid(), 150, &log, NULL);
  CHECK(ibs_capture(&host, &s, &pmu) == -ASMSPY_E_ATTACH_GONE && log.n == 0,
        "a foreign --tid is refused");
  CHECK(fake_noted("is not a thread of pid"), "and the note says why");

  /* the stop flag is already up: one drain tick, then out */
  memset(&log, 0, sizeof log);
  fake_nnotes = 0;
  static volatile int stop = 1;
  s = session(sp.pid, 0, 60000, &log, &stop);
  CHECK(ibs_capture(&host, &s, &pmu) == 0, "stopped window");
  p = log_last(&log, ASMSPY_EV_PROVENANCE);
  CHECK(p && p->u.prov.window_ns < 10000000000ull, "the stop flag ended a 60 s window");
  CHECK(log_count(&log, ASMSPY_EV_PROVENANCE) == 1, "still one PROVENANCE");
  reap_spinner(&sp);
}

/* The non-root path: drop to nobody in a child. perf checks
 * ptrace_may_access(READ_REALCREDS) on the target: a root-owned target is
 * refused (ATTACH_PERM, not "no hardware"), the child's own is sampled. */
static int unprivileged_run(pid_t root_target) {
  struct passwd *pw = getpwnam("nobody");
  uid_t uid = pw ? pw->pw_uid : 65534;
  gid_t gid = pw ? pw->pw_gid : 65534;
  if (setgid(gid) < 0 || setuid(uid) < 0) return 10;
  /* setuid() cleared "dumpable", and fork() would pass that on to the
   * child below, making it non-dumpable (unsampleable by its own uid). A
   * real unprivileged asmspy starts from execve(), which sets it again. */
  prctl(PR_SET_DUMPABLE, 1);
  struct event_log *log = calloc(1, sizeof *log);
  struct ibs_pmu pmu = sw_pmu();
  struct asmspy_session s = session(root_target, 0, 50, log, NULL);
  int rc = ibs_capture(&host, &s, &pmu);
  if (rc != -ASMSPY_E_ATTACH_PERM) return 11;
  if (!fake_noted("EACCES") || !fake_noted("ptrace_may_access") || log->n != 0) return 12;
  struct spinner own;
  if (spawn_spinner(&own, 2, 0, 0) < 0) return 13;
  memset(log, 0, sizeof *log);
  s = session(own.pid, 0, 150, log, NULL);
  rc = ibs_capture(&host, &s, &pmu);
  const struct asmspy_event *p = log_last(log, ASMSPY_EV_PROVENANCE);
  if (rc != 0 || !p || p->u.prov.samples == 0) {
    reap_spinner(&own);
    return 14;
  }
  /* a kernel without swfilt: the event includes the kernel, which paranoid
   * 2 refuses to an unprivileged user whatever the target: host policy */
  struct ibs_pmu no_swfilt = pmu;
  no_swfilt.swfilt = 0;
  memset(log, 0, sizeof *log);
  rc = ibs_capture(&host, &s, &no_swfilt);
  reap_spinner(&own);
  int par = 99;
  (void)pp_read_paranoid(&par);
  if (par == 2 &&
      (rc != -ASMSPY_E_PERM || !fake_noted("perf_event_paranoid <= 1 (now 2)") || log->n != 0))
    return 15;
  if (par < 2 && rc != 0) /* a lower level lets the kernel be sampled */
    return 15;
  free(log);
  return 0;
}

static void test_unprivileged(void) {
  if (geteuid() != 0) {
    fprintf(stderr, "not root: the privilege-drop case needs root to drop from\n");
    return;
  }
  int par = 99;
  if (pp_read_paranoid(&par) < 0 || par > 2) {
    fprintf(stderr,
            "perf_event_paranoid=%d: an unprivileged tracer cannot open perf at all "
            "here; the privilege-drop case needs <= 2\n",
            par);
    return;
  }
  struct spinner sp;
  CHECK(spawn_spinner(&sp, 1, 0, 0) == 0, "spawn");
  pid_t pid = fork();
  if (pid == 0) _exit(unprivileged_run(sp.pid));
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "unprivileged tracer: exit %d (11: root target not refused as ATTACH_PERM, 12: no "
        "reason noted, 14: own child not sampled, 15: kernel-including event not refused as "
        "host policy)",
        WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
  reap_spinner(&sp);
}

int main(void) {
  fake_host_init(&host);
  test_window_over_threads();
  test_late_thread();
  test_exited_thread_no_busy_loop();
  test_refusals_counted_once();
  test_target_exits();
  test_target_gone();
  test_tid_and_stop();
  test_unprivileged();
  return check_summary("ibs_window");
}
