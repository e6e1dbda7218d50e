/* plugins/common/perf_sampling.h — the perf side shared by the sampling
 * backends (amd_ibs, amd_lbr, swclock): what happens between "the attr is built" and
 * "this SAMPLE record is the backend's to parse".
 *
 *   records   ps_ring_drain: walk one ring, hand every PERF_RECORD_SAMPLE to
 *             the consumer, count what perf says about loss (LOST,
 *             LOST_SAMPLES, THROTTLE, UNTHROTTLE) instead of dropping it
 *   event set ps_set_*: one sampling event + ring per thread of the target
 *             (or per online CPU where the PMU has no task context), new
 *             threads picked up at every drain tick, enable/disable as one
 *   window    ps_run_window: enable, poll + drain until the window ends, the
 *             stop flag rises, the consumer asks to stop or the target is
 *             gone; disable, final drain, the measured window length
 *   events    ps_emit_*: event headers, LOST and PROVENANCE events through
 *             the session sink with the per-session sequence number
 *   cursor    ps_take: bounds-checked reads out of a copied record
 *
 * Why one event per thread and no `inherit`: perf_mmap() refuses to map a
 * per-task (cpu == -1) event with attr.inherit (kernel/events/core.c: "Don't
 * allow mmap() of inherited per-task counters"), and PERF_EVENT_IOC_SET_OUTPUT
 * refuses to join per-task events of different tasks. So every thread gets
 * its own event and ring; threads born during the window are found by
 * rescanning /proc/<pid>/task at each drain tick (a thread born and dead
 * between two ticks is missed: documented, statistical anyway).
 *
 * The target is never ptraced or stopped: these are perf events on its
 * threads (perf_event_open's ptrace_may_access(PTRACE_MODE_READ_REALCREDS)
 * check, same uid and dumpable; Yama is not consulted).
 *
 * Header-only like perf_probe.h (plugins never link each other). Every
 * function returns 0 / a count or -errno; nothing outlives ps_set_close().
 */
#ifndef ASMSPY_PLUGINS_COMMON_PERF_SAMPLING_H
#define ASMSPY_PLUGINS_COMMON_PERF_SAMPLING_H

#include <dirent.h>
#include <poll.h>

#include "plugins/common/perf_probe.h"

#define PS_MAX_EVENTS 512 /* threads (or CPUs) sampled at once; more are counted, not opened */
#define PS_MAX_SKIPPED (4 * PS_MAX_EVENTS) /* threads never retried (refused, over the cap) */
#define PS_POLL_MS 20 /* drain tick: rings are drained and threads rescanned this often */

/* ------------------------------------------------------------------------- */
/* Bounds-checked reads from a copied record                                  */
/* ------------------------------------------------------------------------- */

struct ps_cursor {
  const uint8_t *p;
  size_t left;
};

/* Copy n bytes out and advance. Returns 0, or -1 (nothing consumed) when
 * fewer than n bytes are left. */
static inline int ps_take(struct ps_cursor *c, void *out, size_t n) {
  if (c->left < n) return -1;
  if (out) memcpy(out, c->p, n);
  c->p += n;
  c->left -= n;
  return 0;
}

/* The canonical upper half of the x86-64 address space is the kernel's. */
static inline int ps_is_kernel_ip(uint64_t ip) { return (ip >> 63) != 0; }

/* ------------------------------------------------------------------------- */
/* Walking a ring                                                             */
/* ------------------------------------------------------------------------- */

/* What the rings said besides samples (include/uapi/linux/perf_event.h). */
struct ps_counts {
  uint64_t sample_records; /* PERF_RECORD_SAMPLE records handed to the consumer */
  uint64_t lost;           /* records the kernel dropped: sum of LOST.lost and LOST_SAMPLES.lost */
  uint64_t lost_records;   /* how many LOST / LOST_SAMPLES records said so */
  uint64_t throttled;      /* PERF_RECORD_THROTTLE: the kernel cut the sampling rate */
  uint64_t unthrottled;    /* PERF_RECORD_UNTHROTTLE: and restored it */
  uint64_t other_records;  /* COMM, EXIT, ... (not requested; tolerated) */
  uint64_t oversized;      /* records larger than the copy buffer: skipped */
  uint64_t corrupt;        /* rings abandoned at a corrupt header (tail moved to head) */
};

struct ps_consumer {
  /* One whole PERF_RECORD_SAMPLE, header included, copied out of the ring
   * (8-byte aligned copy). Non-zero asks the walk to stop. */
  int (*sample)(void *arg, const uint8_t *rec, size_t len);
  /* The kernel says it dropped n records (optional). Non-zero = stop. */
  int (*lost)(void *arg, uint64_t n);
  void *arg;
};

/* Walk r from data_tail to data_head: count every record by type, hand the
 * samples (and losses) to c, publish the new data_tail. buf[cap] is the copy
 * buffer (a record that straddles the ring's end is reassembled there).
 * Returns 0 when the ring is empty, 1 when the consumer asked to stop (the
 * records after the one it stopped at stay in the ring), -EPROTO when a
 * header was corrupt: the ring is skipped to data_head (its remaining bytes
 * cannot be framed) and n->corrupt counts it. */
static inline int ps_ring_drain(struct pp_ring *r, uint8_t *buf, size_t cap,
                                const struct ps_consumer *c, struct ps_counts *n) {
  uint64_t tail = r->pc->data_tail;
  int rc = 0;
  for (;;) {
    int len = pp_ring_next(r, &tail, buf, cap);
    if (len == -EMSGSIZE) {
      n->oversized++;
      continue;
    }
    if (len == -EPROTO) {
      n->corrupt++;
      tail = pp_ring_head(r);
      rc = -EPROTO;
      break;
    }
    if (len <= 0) break;
    struct perf_event_header h;
    memcpy(&h, buf, sizeof h);
    struct ps_cursor cur = {buf + sizeof h, (size_t)len - sizeof h};
    uint64_t id = 0, lost = 0;
    int stop = 0;
    switch (h.type) {
    case PERF_RECORD_SAMPLE:
      n->sample_records++;
      if (c && c->sample) stop = c->sample(c->arg, buf, (size_t)len);
      break;
    case PERF_RECORD_LOST: /* u64 id; u64 lost; */
      n->lost_records++;
      if (ps_take(&cur, &id, 8) == 0 && ps_take(&cur, &lost, 8) == 0) {
        n->lost += lost;
        if (c && c->lost) stop = c->lost(c->arg, lost);
      }
      break;
    case PERF_RECORD_LOST_SAMPLES: /* u64 lost; */
      n->lost_records++;
      if (ps_take(&cur, &lost, 8) == 0) {
        n->lost += lost;
        if (c && c->lost) stop = c->lost(c->arg, lost);
      }
      break;
    case PERF_RECORD_THROTTLE: n->throttled++; break;
    case PERF_RECORD_UNTHROTTLE: n->unthrottled++; break;
    default: n->other_records++; break;
    }
    if (stop) {
      rc = 1;
      break;
    }
  }
  pp_ring_consume(r, tail);
  return rc;
}

/* ------------------------------------------------------------------------- */
/* The event set: one event and ring per thread (or per CPU)                  */
/* ------------------------------------------------------------------------- */

struct ps_event {
  pid_t tid; /* the thread it samples, or -1 (CPU-wide) */
  int cpu;   /* the CPU it samples, or -1 (per-task) */
  int fd;
  struct pp_ring ring;
};

struct ps_set {
  /* set up by the caller before the first add */
  struct perf_event_attr attr; /* the template; disabled is forced on at open */
  pid_t pid;                   /* the target's thread group */
  pid_t only_tid;              /* > 0: sample only that thread (--tid) */
  int cpu_wide;                /* one event per online CPU (pid -1) instead of per thread */
  unsigned ring_pages_log2;    /* data pages per ring */
  /* state */
  int enabled;
  struct ps_event *ev;
  struct pollfd *pfd;
  size_t n;
  pid_t *skipped; /* tids refused once: a rescan does not retry (and recount) them */
  size_t nskipped;
  /* why threads went unsampled: for the notes */
  size_t gone;     /* the thread exited before its event opened (ESRCH) */
  size_t refused;  /* perf_event_open or mmap said no (first_* has the first) */
  size_t over_cap; /* more than PS_MAX_EVENTS threads */
  int first_errno;
  const char *first_step; /* "perf_event_open" or "mmap" */
  pid_t first_tid;
  int first_cpu;
};

/* Zero the set and allocate its tables. Returns 0 or -ENOMEM. */
static inline int ps_set_init(struct ps_set *set, const struct perf_event_attr *attr, pid_t pid,
                              pid_t only_tid, int cpu_wide, unsigned ring_pages_log2) {
  memset(set, 0, sizeof *set);
  set->attr = *attr;
  set->attr.disabled = 1;
  set->pid = pid;
  set->only_tid = only_tid;
  set->cpu_wide = cpu_wide;
  set->ring_pages_log2 = ring_pages_log2;
  set->ev = calloc(PS_MAX_EVENTS, sizeof *set->ev);
  set->pfd = calloc(PS_MAX_EVENTS, sizeof *set->pfd);
  set->skipped = calloc(PS_MAX_SKIPPED, sizeof *set->skipped);
  if (!set->ev || !set->pfd || !set->skipped) {
    free(set->ev);
    free(set->pfd);
    free(set->skipped);
    set->ev = NULL;
    set->pfd = NULL;
    set->skipped = NULL;
    return -ENOMEM;
  }
  return 0;
}

/* 1 when tid is sampled already, or was refused once (not retried). */
static inline int ps_set_has_tid(const struct ps_set *set, pid_t tid) {
  for (size_t i = 0; i < set->n; i++)
    if (set->ev[i].tid == tid) return 1;
  for (size_t i = 0; i < set->nskipped; i++)
    if (set->skipped[i] == tid) return 1;
  return 0;
}

static inline void ps__skip_tid(struct ps_set *set, pid_t tid) {
  if (tid > 0 && set->nskipped < PS_MAX_SKIPPED) set->skipped[set->nskipped++] = tid;
}

static inline void ps__note_refusal(struct ps_set *set, const char *step, int err, pid_t tid,
                                    int cpu) {
  ps__skip_tid(set, tid);
  if (err == ESRCH) { /* raced with the thread's exit: not a refusal */
    set->gone++;
    return;
  }
  if (set->refused++ == 0) {
    set->first_errno = err;
    set->first_step = step;
    set->first_tid = tid;
    set->first_cpu = cpu;
  }
}

/* Open, map (and, when the set is already running, enable) one event on
 * thread tid (cpu -1) or on cpu (tid -1). Returns 0 or -errno (recorded in
 * the set's refusal accounting). */
static inline int ps_set_add(struct ps_set *set, pid_t tid, int cpu) {
  if (set->n >= PS_MAX_EVENTS) {
    set->over_cap++;
    ps__skip_tid(set, tid);
    return -ENOSPC;
  }
  struct perf_event_attr attr = set->attr;
  int fd = pp_perf_event_open(&attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    ps__note_refusal(set, "perf_event_open", e, tid, cpu);
    return -e;
  }
  struct ps_event *ev = &set->ev[set->n];
  int rc = pp_ring_map(fd, set->ring_pages_log2, &ev->ring);
  if (rc < 0) {
    close(fd);
    ps__note_refusal(set, "mmap", -rc, tid, cpu);
    return rc;
  }
  if (set->enabled && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
    int e = errno;
    pp_ring_unmap(&ev->ring);
    close(fd);
    ps__note_refusal(set, "PERF_EVENT_IOC_ENABLE", e, tid, cpu);
    return -e;
  }
  ev->tid = tid;
  ev->cpu = cpu;
  ev->fd = fd;
  set->pfd[set->n].fd = fd;
  set->pfd[set->n].events = POLLIN;
  set->n++;
  return 0;
}

/* Add every thread of set->pid not sampled yet (only set->only_tid when
 * given). Returns how many were added, or -ESRCH when the process is gone
 * (its /proc/<pid>/task directory vanished). */
static inline int ps_set_scan(struct ps_set *set) {
  char path[64];
  if (set->only_tid > 0) {
    if (ps_set_has_tid(set, set->only_tid)) return 0;
    /* perf would happily open a tid of another process: it must be one of
     * the target's threads */
    snprintf(path, sizeof path, "/proc/%d/task/%d", (int)set->pid, (int)set->only_tid);
    if (access(path, F_OK) != 0) {
      set->gone++;
      ps__skip_tid(set, set->only_tid);
      return 0;
    }
    return ps_set_add(set, set->only_tid, -1) == 0 ? 1 : 0;
  }
  snprintf(path, sizeof path, "/proc/%d/task", (int)set->pid);
  DIR *d = opendir(path);
  if (!d) return errno == ENOENT ? -ESRCH : -errno;
  int added = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    char *end = NULL;
    long tid = strtol(de->d_name, &end, 10);
    if (end == de->d_name || *end != '\0' || tid <= 0) continue;
    if (ps_set_has_tid(set, (pid_t)tid)) continue;
    if (ps_set_add(set, (pid_t)tid, -1) == 0) added++;
  }
  closedir(d);
  return added;
}

/* The online CPUs ("0-3,8-11" from /sys/devices/system/cpu/online) into
 * cpus[cap]. Returns the count, or -errno. */
static inline int ps_online_cpus(int *cpus, int cap) {
  char buf[256];
  int rc = pp_read_text("/sys/devices/system/cpu/online", buf, sizeof buf);
  if (rc < 0) return rc;
  int n = 0;
  const char *p = buf;
  while (*p) {
    char *end;
    long lo = strtol(p, &end, 10);
    if (end == p) return -EINVAL;
    long hi = lo;
    p = end;
    if (*p == '-') {
      hi = strtol(p + 1, &end, 10);
      if (end == p + 1 || hi < lo) return -EINVAL;
      p = end;
    }
    for (long c = lo; c <= hi && n < cap; c++) cpus[n++] = (int)c;
    if (*p == ',')
      p++;
    else if (*p)
      return -EINVAL;
  }
  return n;
}

/* CPU-wide sets: one event per online CPU. Returns how many opened, or
 * -errno when the CPU list is unreadable. */
static inline int ps_set_open_cpus(struct ps_set *set) {
  int cpus[PS_MAX_EVENTS];
  int n = ps_online_cpus(cpus, PS_MAX_EVENTS);
  if (n < 0) return n;
  int added = 0;
  for (int i = 0; i < n; i++)
    if (ps_set_add(set, -1, cpus[i]) == 0) added++;
  return added;
}

/* Enable (on = 1) or disable every event. Events whose thread already
 * exited answer ESRCH/ENODEV and are left as they are. */
static inline void ps_set_enable(struct ps_set *set, int on) {
  for (size_t i = 0; i < set->n; i++)
    (void)ioctl(set->ev[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
  set->enabled = on;
}

/* Drain every ring. Returns 1 when the consumer asked to stop, else 0. */
static inline int ps_set_drain(struct ps_set *set, uint8_t *buf, size_t cap,
                               const struct ps_consumer *c, struct ps_counts *n) {
  for (size_t i = 0; i < set->n; i++)
    if (ps_ring_drain(&set->ev[i].ring, buf, cap, c, n) == 1) return 1;
  return 0;
}

static inline void ps_set_close(struct ps_set *set) {
  for (size_t i = 0; set->ev && i < set->n; i++) {
    pp_ring_unmap(&set->ev[i].ring);
    close(set->ev[i].fd);
  }
  free(set->ev);
  free(set->pfd);
  free(set->skipped);
  set->ev = NULL;
  set->pfd = NULL;
  set->skipped = NULL;
  set->n = 0;
}

/* One clause for a note: why some threads (or CPUs) were not sampled. Empty
 * when every one was. */
static inline void ps_set_gaps(const struct ps_set *set, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t used = 0;
  if (set->refused) {
    char who[32];
    if (set->first_tid > 0)
      snprintf(who, sizeof who, "tid %d", (int)set->first_tid);
    else
      snprintf(who, sizeof who, "cpu %d", set->first_cpu);
    int w = snprintf(buf, cap, "%zu refused (first: %s on %s: %s)", set->refused,
                     set->first_step ? set->first_step : "?", who, pp_errno_name(set->first_errno));
    used = w > 0 ? (size_t)w : 0;
  }
  if (set->over_cap && used < cap) {
    int w = snprintf(buf + used, cap - used, "%s%zu over the %d-event cap", used ? "; " : "",
                     set->over_cap, PS_MAX_EVENTS);
    used += w > 0 ? (size_t)w : 0;
  }
}

/* The run status when a set opened nothing: every thread gone -> the target
 * is gone; EACCES/EPERM on a per-task event -> this target (the probe
 * already opened the same event on its own child: ptrace_may_access, uid,
 * dumpable); a refused mmap -> the locked-memory budget; anything else as
 * perf_event_open's errno says. */
static inline int ps_set_open_status(const struct ps_set *set) {
  if (set->refused == 0) return -ASMSPY_E_ATTACH_GONE;
  int e = set->first_errno;
  if (set->first_step && strcmp(set->first_step, "mmap") == 0) return -pp_mmap_status(e);
  if ((e == EACCES || e == EPERM) && !set->cpu_wide) {
    /* an event that includes the kernel meets perf_allow_kernel first: at
     * paranoid >= 2 that is host policy, whatever the target */
    int par = -99;
    if (!set->attr.exclude_kernel && pp_read_paranoid(&par) == 0 && par > 1) return -ASMSPY_E_PERM;
    return -ASMSPY_E_ATTACH_PERM;
  }
  return -pp_perf_errno_status(e);
}

/* "perf_event_open(<what>, tid 123): EACCES (hint)" for the first refusal
 * of a set that opened nothing. */
static inline void ps_set_open_reason(const struct ps_set *set, const char *what, char *buf,
                                      size_t cap) {
  if (set->refused == 0) {
    if (set->only_tid > 0)
      snprintf(buf, cap, "tid %d is not a thread of pid %d (or it exited)", (int)set->only_tid,
               (int)set->pid);
    else
      snprintf(buf, cap, "every thread exited before its %s event opened", what);
    return;
  }
  char hint[200];
  int e = set->first_errno;
  int is_mmap = set->first_step && strcmp(set->first_step, "mmap") == 0;
  if (is_mmap)
    pp_mmap_hint(e, hint, sizeof hint);
  else if ((e == EACCES || e == EPERM) && !set->cpu_wide && set->attr.exclude_kernel)
    snprintf(hint, sizeof hint,
             "perf checks ptrace_may_access(READ) on the target: same uid and dumpable, or "
             "CAP_PERFMON");
  else if ((e == EACCES || e == EPERM) && !set->cpu_wide) {
    int par = -99;
    (void)pp_read_paranoid(&par);
    snprintf(hint, sizeof hint,
             "the event includes the kernel: perf_event_paranoid <= 1 (now %d) or CAP_PERFMON, "
             "and ptrace_may_access(READ) on the target",
             par);
  } else
    pp_perf_errno_hint(e, hint, sizeof hint);
  char who[32];
  if (set->first_tid > 0)
    snprintf(who, sizeof who, "tid %d", (int)set->first_tid);
  else
    snprintf(who, sizeof who, "cpu %d", set->first_cpu);
  snprintf(buf, cap, "%s(%s, %s): %s (%s)", set->first_step ? set->first_step : "?", what, who,
           pp_errno_name(e), hint);
}

/* ------------------------------------------------------------------------- */
/* The window                                                                 */
/* ------------------------------------------------------------------------- */

/* 1 while the process exists and is not a zombie (a zombie's threads are
 * gone: nothing is left to sample). */
static inline int ps_process_alive(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  if (pp_read_text(path, buf, sizeof buf) < 0) return 0;
  const char *rp = strrchr(buf, ')'); /* comm may hold spaces and parens */
  if (!rp || rp[1] != ' ') return 1;
  return rp[2] != 'Z' && rp[2] != 'X';
}

static inline uint64_t ps_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct ps_window_result {
  uint64_t window_ns;   /* enable to disable, measured */
  int target_exited;    /* the process was gone before the window ended */
  int consumer_stopped; /* the consumer (the session sink) asked to stop */
  int interrupted;      /* *stop rose */
  uint64_t ticks;       /* poll rounds: about window / PS_POLL_MS unless rings fill faster */
};

/* The window notes every sampler owes its reader, so the numbers stay
 * honest: threads not sampled, kernel drops and throttling, corrupt or
 * oversized records, a target that exited mid-window. `who` prefixes them
 * ("amd_ibs"). A backend adds its own (undecodable samples) around it. */
static inline void ps_note_window(const struct asmspy_host_api *host, struct asmspy_out *out,
                                  const char *who, pid_t pid, const struct ps_set *set,
                                  const struct ps_counts *n, const struct ps_window_result *w) {
  char text[300];
  ps_set_gaps(set, text, sizeof text);
  if (text[0]) pp_note(host, out, ASMSPY_NOTE_WARN, "%s: threads not sampled: %s", who, text);
  if (n->lost || n->throttled)
    pp_note(host, out, ASMSPY_NOTE_INFO,
            "%s: the kernel dropped %llu samples and throttled the rate %llu times", who,
            (unsigned long long)n->lost, (unsigned long long)n->throttled);
  if (n->corrupt || n->oversized)
    pp_note(host, out, ASMSPY_NOTE_WARN,
            "%s: %llu rings abandoned at a corrupt header, %llu oversized records skipped", who,
            (unsigned long long)n->corrupt, (unsigned long long)n->oversized);
  if (w->target_exited)
    pp_note(host, out, ASMSPY_NOTE_INFO, "%s: pid %d exited %.0f ms into the window", who, (int)pid,
            (double)w->window_ns / 1e6);
}

/* Enable the set, then every PS_POLL_MS (or sooner, when a ring passes its
 * wakeup watermark): drain every ring, pick up new threads, check the
 * target; until window_ms passed, *stop rose, the consumer asked to stop or
 * the target is gone. Then disable and drain what is left. buf[cap] is the
 * record copy buffer. */
static inline void ps_run_window(struct ps_set *set, int64_t window_ms, const volatile int *stop,
                                 uint8_t *buf, size_t cap, const struct ps_consumer *c,
                                 struct ps_counts *n, struct ps_window_result *res) {
  memset(res, 0, sizeof *res);
  uint64_t t0 = ps_now_ns();
  uint64_t deadline = t0 + (uint64_t)(window_ms > 0 ? window_ms : 0) * 1000000ull;
  ps_set_enable(set, 1);
  for (;;) {
    uint64_t now = ps_now_ns();
    if (now >= deadline) break;
    uint64_t left_ms = (deadline - now + 999999ull) / 1000000ull;
    int timeout = left_ms < PS_POLL_MS ? (int)left_ms : PS_POLL_MS;
    (void)poll(set->pfd, (nfds_t)set->n, timeout);
    res->ticks++;
    /* A per-task event whose thread exited reports POLLHUP for good
     * (perf_poll: is_event_hup): stop polling it, or every later poll
     * returns at once and the window turns into a busy loop. Its ring is
     * still drained (ps_set_drain walks the events, not the poll set). */
    for (size_t i = 0; i < set->n; i++)
      if (set->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) set->pfd[i].fd = -1;
    if (ps_set_drain(set, buf, cap, c, n)) {
      res->consumer_stopped = 1;
      break;
    }
    if (stop && *stop) {
      res->interrupted = 1;
      break;
    }
    if (!set->cpu_wide) (void)ps_set_scan(set);
    if (!ps_process_alive(set->pid)) {
      res->target_exited = 1;
      break;
    }
  }
  ps_set_enable(set, 0);
  res->window_ns = ps_now_ns() - t0;
  if (!res->consumer_stopped && ps_set_drain(set, buf, cap, c, n)) res->consumer_stopped = 1;
}

/* ------------------------------------------------------------------------- */
/* Events through the session sink                                            */
/* ------------------------------------------------------------------------- */

struct ps_emit {
  asmspy_sink_fn sink;
  void *sink_ctx;
  struct asmspy_target *target; /* NULL for in-process capture */
  int32_t pid;                  /* thread group the events belong to */
  uint32_t nthreads;            /* threads sampled (views prefix [tid] when > 1) */
  uint64_t seq;                 /* next sequence number */
  int stopped;                  /* the sink asked to stop */
};

static inline void ps_event_init(const struct ps_emit *e, struct asmspy_event *ev, uint16_t type,
                                 int32_t tid) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = e->pid;
  ev->tid = tid;
  ev->nthreads = e->nthreads;
  ev->target = e->target;
}

/* Number the event and hand it to the sink. Returns non-zero once the sink
 * asked to stop; from then on nothing more reaches it (but the closing
 * PROVENANCE, ps_emit_provenance). */
static inline int ps_emit_event(struct ps_emit *e, struct asmspy_event *ev) {
  if (e->stopped) return 1;
  ev->seq = e->seq++;
  if (e->sink && e->sink(e->sink_ctx, ev)) e->stopped = 1;
  return e->stopped;
}

/* Data loss as a first-class event: the kernel dropped n records. */
static inline int ps_emit_lost(struct ps_emit *e, uint64_t n) {
  struct asmspy_event ev;
  ps_event_init(e, &ev, ASMSPY_EV_LOST, 0);
  ev.u.lost.count = n;
  return ps_emit_event(e, &ev);
}

/* A NOTE event (in-process capture has no host writer: notes travel as
 * events). */
static inline int ps_emit_note(struct ps_emit *e, const char *text) {
  struct asmspy_event ev;
  ps_event_init(e, &ev, ASMSPY_EV_NOTE, 0);
  ev.u.note.text = text;
  return ps_emit_event(e, &ev);
}

/* The one PROVENANCE event that closes a window. Sent even after the sink
 * asked to stop: the summary belongs to whatever was delivered. */
static inline void ps_emit_provenance(struct ps_emit *e, uint64_t samples, uint64_t branch_samples,
                                      const struct ps_counts *n, uint64_t window_ns,
                                      const char *sampler) {
  struct asmspy_event ev;
  ps_event_init(e, &ev, ASMSPY_EV_PROVENANCE, 0);
  ev.u.prov.samples = samples;
  ev.u.prov.branch_samples = branch_samples;
  ev.u.prov.lost = n->lost;
  ev.u.prov.throttled = n->throttled;
  ev.u.prov.window_ns = window_ns;
  ev.u.prov.sampler = sampler;
  ev.seq = e->seq++;
  if (e->sink && e->sink(e->sink_ctx, &ev)) e->stopped = 1;
}

#endif /* ASMSPY_PLUGINS_COMMON_PERF_SAMPLING_H */
