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
 * Layout (what `perf record -p` does): per existing thread, one event per
 * online CPU with inherit=1 + inherit_thread=1, so threads the target
 * creates during the window are sampled too (and forked processes are not).
 * An inherited per-task event cannot be mmapped with cpu == -1 (kernel
 * perf_mmap), hence per-CPU events; all events of one CPU write into one
 * ring through PERF_EVENT_IOC_SET_OUTPUT. The window is s->window_ms
 * (default SWC_DEFAULT_WINDOW_MS); each sample becomes an ASMSPY_EV_SAMPLE,
 * and one ASMSPY_EV_PROVENANCE (sampler "sw-clock") closes the window with
 * the kernel's own loss and throttle counts.
 *
 * Kernel ABI: include/uapi/linux/perf_event.h (record layouts),
 * kernel/events/core.c (perf_mmap, perf_event_set_output, inherit). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include "plugins/common/perf_probe.h"

#include <dirent.h>
#include <inttypes.h>
#include <poll.h>

#define SWC_PERIOD_NS 1000000ull    /* 1 ms of the thread's CPU time per sample */
#define SWC_DEFAULT_WINDOW_MS 300   /* the seed's --sample default */
#define SWC_RING_PAGES_LOG2 4       /* 16 data pages (64 KiB) per CPU: > 2500 samples */
#define SWC_DRAIN_SLICE_MS 25       /* drain at least this often */
#define SWC_MAX_CPUS 1024
#define SWC_PROBE_PERIOD_NS 100000ull /* 100 us: the probe wants many samples fast */
#define SWC_PROBE_CPU_MS 20         /* CPU time the probe's child burns */

struct swc_ring {
  int cpu;
  int fd; /* the event whose ring this is */
  struct pp_ring ring;
};

struct swc {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int cpus[SWC_MAX_CPUS];
  int ncpus;
  int *fds; /* every event */
  size_t nfds, fdcap;
  pid_t *tids; /* threads with events */
  size_t ntids, tidcap;
  struct swc_ring *rings; /* one per CPU that has events */
  size_t nrings;
  int inherit_thread; /* the kernel took inherit_thread (>= 5.13) */
  uint64_t seq, samples, foreign, lost, throttled;
  int sink_stop;
  uint8_t rec[1024]; /* one record */
};

/* ------------------------------------------------------------- CPUs -- */

/* /sys/devices/system/cpu/online: "0-3,5,7-8". Returns the count, or -errno. */
static int swc_online_cpus(int *cpus, int cap) {
  char buf[4096];
  int rc = pp_read_text("/sys/devices/system/cpu/online", buf, sizeof buf);
  if (rc < 0) return rc;
  int n = 0;
  for (char *p = buf; *p && n < cap;) {
    char *end;
    long lo = strtol(p, &end, 10), hi = lo;
    if (end == p) return -EINVAL;
    p = end;
    if (*p == '-') {
      hi = strtol(p + 1, &end, 10);
      if (end == p + 1 || hi < lo) return -EINVAL;
      p = end;
    }
    for (long c = lo; c <= hi && n < cap; c++) cpus[n++] = (int)c;
    if (*p == ',') p++;
    else if (*p) return -EINVAL;
  }
  return n;
}

/* ----------------------------------------------------------- events -- */

static void swc_attr(struct perf_event_attr *a, uint64_t period, int inherit, int inherit_thread) {
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  a->type = PERF_TYPE_SOFTWARE;
  a->config = PERF_COUNT_SW_TASK_CLOCK;
  a->sample_period = period;
  a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  a->disabled = 1;
  a->inherit = (unsigned)inherit;
  a->inherit_thread = (unsigned)inherit_thread;
  a->wakeup_events = 64;
}

static int swc_push_fd(struct swc *w, int fd) {
  if (w->nfds == w->fdcap) {
    size_t nc = w->fdcap ? w->fdcap * 2 : 64;
    int *n = realloc(w->fds, nc * sizeof *n);
    if (!n) return -ENOMEM;
    w->fds = n;
    w->fdcap = nc;
  }
  w->fds[w->nfds++] = fd;
  return 0;
}

static int swc_has_tid(const struct swc *w, pid_t tid) {
  for (size_t i = 0; i < w->ntids; i++)
    if (w->tids[i] == tid) return 1;
  return 0;
}

static struct swc_ring *swc_ring_for(struct swc *w, int cpu) {
  for (size_t i = 0; i < w->nrings; i++)
    if (w->rings[i].cpu == cpu) return &w->rings[i];
  return NULL;
}

/* Open one thread's events (one per CPU). Returns 0 or -errno of the first
 * failure; the events already opened for it stay (they are valid). */
static int swc_open_thread(struct swc *w, pid_t tid) {
  int inherit = w->s->tid == 0; /* --tid: exactly that thread */
  for (int i = 0; i < w->ncpus; i++) {
    struct perf_event_attr a;
    swc_attr(&a, SWC_PERIOD_NS, inherit, inherit && w->inherit_thread);
    int fd = pp_perf_event_open(&a, tid, w->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && errno == EINVAL && a.inherit_thread) {
      /* a kernel older than inherit_thread (5.13): forked children would be
       * sampled too; their samples are dropped by pid below */
      w->inherit_thread = 0;
      a.inherit_thread = 0;
      fd = pp_perf_event_open(&a, tid, w->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
      if (errno == ENODEV) continue; /* a CPU went offline */
      return -errno;
    }
    if (swc_push_fd(w, fd) != 0) {
      close(fd);
      return -ENOMEM;
    }
    struct swc_ring *r = swc_ring_for(w, w->cpus[i]);
    if (r) {
      if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) != 0) return -errno;
      continue;
    }
    r = &w->rings[w->nrings];
    int mrc = pp_ring_map(fd, SWC_RING_PAGES_LOG2, &r->ring);
    if (mrc) return mrc;
    r->cpu = w->cpus[i];
    r->fd = fd;
    w->nrings++;
  }
  if (w->ntids == w->tidcap) {
    size_t nc = w->tidcap ? w->tidcap * 2 : 16;
    pid_t *n = realloc(w->tids, nc * sizeof *n);
    if (!n) return -ENOMEM;
    w->tids = n;
    w->tidcap = nc;
  }
  w->tids[w->ntids++] = tid;
  return 0;
}

/* Events for every thread of the target; repeat the listing until a pass
 * finds no new thread (one born between listing and opening its creator's
 * events is not inherited). A thread that exits meanwhile (ESRCH) is fine. */
static int swc_open_all(struct swc *w) {
  const struct asmspy_session *s = w->s;
  if (s->tid) return swc_open_thread(w, s->tid);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)s->pid);
  for (int pass = 0; pass < 16; pass++) {
    DIR *d = opendir(path);
    if (!d) return w->ntids ? 0 : -ESRCH;
    int added = 0, rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
      pid_t tid = (pid_t)atoi(de->d_name);
      if (tid <= 0 || swc_has_tid(w, tid)) continue;
      rc = swc_open_thread(w, tid);
      if (rc == -ESRCH && tid != s->pid) {
        rc = 0;
        continue;
      }
      if (rc) break;
      added++;
    }
    closedir(d);
    if (rc == -EMFILE && w->ntids) {
      pp_note(w->host, s->out, ASMSPY_NOTE_WARN,
              "sw-clock: out of file descriptors after %zu threads (%zu events); the rest are not "
              "sampled (raise RLIMIT_NOFILE)",
              w->ntids, w->nfds);
      return 0;
    }
    if (rc) return rc;
    if (!added) return 0;
  }
  return 0;
}

static void swc_close_all(struct swc *w) {
  for (size_t i = 0; i < w->nrings; i++) pp_ring_unmap(&w->rings[i].ring);
  for (size_t i = 0; i < w->nfds; i++) close(w->fds[i]);
  free(w->fds);
  free(w->tids);
  free(w->rings);
  w->fds = NULL;
  w->tids = NULL;
  w->rings = NULL;
  w->nfds = w->ntids = w->nrings = 0;
}

static void swc_ioctl_all(struct swc *w, unsigned long req) {
  for (size_t i = 0; i < w->nfds; i++) (void)ioctl(w->fds[i], req, 0);
}

/* ------------------------------------------------------------ drain -- */

static void swc_emit(struct swc *w, struct asmspy_event *ev) {
  ev->abi_version = ASMSPY_ABI_VERSION;
  ev->struct_size = sizeof *ev;
  ev->seq = ++w->seq;
  if (!w->sink_stop && w->s->sink(w->s->sink_ctx, ev)) w->sink_stop = 1;
}

static void swc_on_sample(struct swc *w, const uint8_t *rec, size_t len) {
  /* PERF_SAMPLE_IP | PERF_SAMPLE_TID: { header; u64 ip; u32 pid, tid; } */
  if (len < sizeof(struct perf_event_header) + 16) return;
  uint64_t ip;
  uint32_t pid, tid;
  memcpy(&ip, rec + 8, 8);
  memcpy(&pid, rec + 16, 4);
  memcpy(&tid, rec + 20, 4);
  if ((pid_t)pid != w->s->pid) { /* a forked child (no inherit_thread) */
    w->foreign++;
    return;
  }
  w->samples++;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = ASMSPY_EV_SAMPLE;
  ev.flags = ASMSPY_EVF_SAMPLED;
  ev.pid = (int32_t)pid;
  ev.tid = (int32_t)tid;
  ev.nthreads = (uint32_t)w->ntids;
  ev.ip = ip;
  ev.target = w->s->target;
  ev.u.sample.weight = 1;
  ev.u.sample.period = SWC_PERIOD_NS;
  swc_emit(w, &ev);
}

/* Every record of every ring up to its head. */
static void swc_drain(struct swc *w) {
  for (size_t i = 0; i < w->nrings; i++) {
    struct pp_ring *r = &w->rings[i].ring;
    uint64_t tail = r->pc->data_tail;
    for (;;) {
      int n = pp_ring_next(r, &tail, w->rec, sizeof w->rec);
      if (n == -EMSGSIZE) continue;
      if (n == -EPROTO) { /* a torn header: skip what is there, count it */
        tail = pp_ring_head(r);
        w->lost++;
        break;
      }
      if (n <= 0) break;
      struct perf_event_header h;
      memcpy(&h, w->rec, sizeof h);
      uint64_t v;
      switch (h.type) {
      case PERF_RECORD_SAMPLE: swc_on_sample(w, w->rec, (size_t)n); break;
      case PERF_RECORD_LOST: /* { header; u64 id; u64 lost; } */
        if (n >= 24) {
          memcpy(&v, w->rec + 16, 8);
          w->lost += v;
        }
        break;
      case PERF_RECORD_LOST_SAMPLES: /* { header; u64 lost; } */
        if (n >= 16) {
          memcpy(&v, w->rec + 8, 8);
          w->lost += v;
        }
        break;
      case PERF_RECORD_THROTTLE: w->throttled++; break;
      default: break;
      }
    }
    pp_ring_consume(r, tail);
  }
}

/* ----------------------------------------------------------- window -- */

/* The target is gone or a zombie (its threads can run nothing more). */
static int swc_target_gone(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  if (pp_read_text(path, buf, sizeof buf) < 0) return 1;
  const char *p = strrchr(buf, ')');
  return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

static int64_t swc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* perf_event_open refused for THIS target after the probe proved perf works
 * here: EACCES/EPERM is the per-target check (ptrace_may_access: same uid,
 * dumpable), not host policy. */
static int swc_open_status(int err) {
  switch (err) {
  case EACCES:
  case EPERM: return -ASMSPY_E_ATTACH_PERM;
  case ESRCH: return -ASMSPY_E_ATTACH_GONE;
  default: return -pp_perf_errno_status(err);
  }
}

static int swc_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  if (s->flags & ASMSPY_SESS_LAUNCHED) {
    pp_note(host, s->out, ASMSPY_NOTE_WARN,
            "sw-clock samples a running pid; --launch is not supported by the sampler rungs");
    return -ASMSPY_E_USAGE;
  }
  struct swc *w = calloc(1, sizeof *w);
  if (!w) return -ASMSPY_E_NOMEM;
  w->host = host;
  w->s = s;
  w->inherit_thread = 1;
  w->ncpus = swc_online_cpus(w->cpus, SWC_MAX_CPUS);
  if (w->ncpus <= 0) {
    pp_note(host, s->out, ASMSPY_NOTE_WARN, "sw-clock: cannot read the online CPUs: %s",
            pp_errno_name(-w->ncpus));
    free(w);
    return -ASMSPY_E_INTERNAL;
  }
  w->rings = calloc((size_t)w->ncpus, sizeof *w->rings);
  if (!w->rings) {
    free(w);
    return -ASMSPY_E_NOMEM;
  }
  int rc = swc_open_all(w);
  if (rc) {
    char hint[200];
    pp_perf_errno_hint(-rc, hint, sizeof hint);
    pp_note(host, s->out, ASMSPY_NOTE_WARN, "sw-clock: perf_event_open on pid %d: %s (%s)",
            (int)s->pid, pp_errno_name(-rc), hint);
    swc_close_all(w);
    free(w);
    return swc_open_status(-rc);
  }
  int64_t window_ms = s->window_ms > 0 ? s->window_ms : SWC_DEFAULT_WINDOW_MS;
  int64_t t0 = swc_now_ns(), end = t0 + window_ms * 1000000;
  swc_ioctl_all(w, PERF_EVENT_IOC_ENABLE);
  int exited = 0;
  struct pollfd *pf = calloc(w->nrings ? w->nrings : 1, sizeof *pf);
  for (size_t i = 0; pf && i < w->nrings; i++) pf[i] = (struct pollfd){w->rings[i].fd, POLLIN, 0};
  for (;;) {
    int64_t now = swc_now_ns();
    if (now >= end || w->sink_stop || (s->stop && *s->stop)) break;
    if (swc_target_gone(s->pid)) {
      exited = 1;
      break;
    }
    int64_t left_ms = (end - now + 999999) / 1000000;
    int slice = (int)(left_ms < SWC_DRAIN_SLICE_MS ? left_ms : SWC_DRAIN_SLICE_MS);
    if (pf)
      (void)poll(pf, w->nrings, slice);
    else
      pp_sleep_us(slice * 1000L);
    swc_drain(w);
  }
  swc_ioctl_all(w, PERF_EVENT_IOC_DISABLE);
  int64_t t1 = swc_now_ns();
  swc_drain(w);
  free(pf);
  if (w->foreign)
    pp_note(host, s->out, ASMSPY_NOTE_INFO,
            "sw-clock: %" PRIu64 " samples from forked children were dropped (no inherit_thread)",
            w->foreign);
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = ASMSPY_EV_PROVENANCE;
  ev.pid = s->pid;
  ev.nthreads = (uint32_t)w->ntids;
  ev.target = s->target;
  ev.u.prov.samples = w->samples;
  ev.u.prov.branch_samples = 0;
  ev.u.prov.lost = w->lost;
  ev.u.prov.throttled = w->throttled;
  ev.u.prov.window_ns = (uint64_t)(t1 - t0);
  ev.u.prov.sampler = "sw-clock";
  w->sink_stop = 0; /* the summary is delivered even to a view that is done */
  swc_emit(w, &ev);
  swc_close_all(w);
  free(w);
  return exited ? ASMSPY_FACT_EXITED : 0;
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
  if (ip < 0x800000000000ull) c->user++; /* x86-64 user half */
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
  swc_attr(&a, SWC_PROBE_PERIOD_NS, 0, 0);
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
  uint8_t buf[256];
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
};

static const struct asmspy_plugin swc_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "swclock",
    .description = "sampler rung sw: perf task-clock IP samples of every thread (no PMU, no ptrace)",
    .caps = ASMSPY_CAP_IP_SAMPLES | ASMSPY_CAP_OUT_OF_BAND | ASMSPY_CAP_ATTACH_PID,
    .probe = swc_probe,
    .backend = &swc_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(swc_plugin)
