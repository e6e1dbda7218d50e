/* reader.c: draining the agent's rings into CALL events (see reader.h).
 *
 * Cheap by construction: a drain touches each ring's head line only to
 * publish its tail once per chunk (EP_DRAIN_CHUNK records), reads records
 * by their own seq (no look at head), keeps the next record's timestamp of
 * each ring in a local array for the merge, and makes no system call per
 * record (a futex wake per chunk, and only when a thread sleeps). Thread
 * ends are polled every 10 ms (one process_vm_readv per process, one
 * tgkill per ring). */
#define _GNU_SOURCE
#include "plugins/entrypatch/reader.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rdtsc_now(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

static int debug_on(void) {
  static int on = -1;
  if (on < 0) on = getenv("ASMSPY_ENTRYPATCH_DEBUG") != NULL;
  return on;
}

void ep_reader_init(struct ep_reader *r, struct ring_area *ring, const struct agent_func *funcs,
                    uint32_t nfuncs, const struct asmspy_session *s, uint64_t state) {
  memset(r, 0, sizeof *r);
  r->ring = ring;
  r->funcs = funcs;
  r->nfuncs = nfuncs;
  r->s = s;
  r->state = state;
  memset(&r->ev, 0, sizeof r->ev);
  ASMSPY_INIT_HEADER(&r->ev);
  r->ev.type = ASMSPY_EV_CALL;
  r->ev.pid = s->pid;
  r->ev.target = s->target;
  r->tsc0 = rdtsc_now();
  r->ns0 = mono_ns();
  /* a first rate over 2 ms; refined by every later calibrate() */
  struct timespec d = {0, 2000000};
  nanosleep(&d, NULL);
  ep_reader_calibrate(r);
  ep_reader_beat(r);
}

void ep_reader_calibrate(struct ep_reader *r) {
  uint64_t t = rdtsc_now(), n = mono_ns();
  if (t > r->tsc0 && n > r->ns0) r->ns_per_tick = (double)(n - r->ns0) / (double)(t - r->tsc0);
  uint64_t ticks = r->ns_per_tick > 0 ? (uint64_t)(EP_DEAD_NS / r->ns_per_tick) : 0;
  __atomic_store_n(&r->ring->dead_ticks, ticks, __ATOMIC_RELAXED);
  r->poll_ticks = r->ns_per_tick > 0 ? (uint64_t)(10e6 / r->ns_per_tick) : 0;
}

void ep_reader_beat(struct ep_reader *r) {
  __atomic_store_n(&r->ring->reader_beat, rdtsc_now(), __ATOMIC_RELEASE);
}

/* Threads asleep in a full ring: wake them (after the tails were published). */
static void wake_waiters(struct ep_reader *r) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the tails before the look at waiters */
  if (!__atomic_load_n(&r->ring->waiters, __ATOMIC_RELAXED)) return;
  __atomic_fetch_add(&r->ring->wake, 1u, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &r->ring->wake, 1 /* FUTEX_WAKE, shared */, INT_MAX, NULL, NULL, 0);
}

void ep_reader_close(struct ep_reader *r) {
  __atomic_store_n(&r->ring->closing, 1u, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&r->ring->wake, 1u, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &r->ring->wake, 1, INT_MAX, NULL, NULL, 0);
}

static uint64_t to_ns(const struct ep_reader *r, uint64_t tsc) {
  double d = ((double)(int64_t)(tsc - r->tsc0)) * r->ns_per_tick;
  return r->ns0 + (uint64_t)(int64_t)d;
}

/* The next written record of ring k, or NULL. */
static const struct ring_rec *peek(struct ep_reader *r, uint32_t k, int final) {
  for (;;) {
    uint64_t tail = r->tail[k];
    const struct ring_rec *rec = &r->ring->recs[k][tail & (AGENT_RING - 1)];
    /* the record's own seq says it is written: no look at head needed */
    if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) == (uint32_t)(tail + 1)) return rec;
    if (!final || tail >= __atomic_load_n(&r->ring->heads[k].head, __ATOMIC_ACQUIRE)) return NULL;
    r->tail[k] = tail + 1; /* final: claimed but never written (a thread died): skip */
  }
}

static void publish_tails(struct ep_reader *r, const uint32_t *live, uint32_t nlive) {
  for (uint32_t i = 0; i < nlive; i++)
    __atomic_store_n(&r->ring->heads[live[i]].tail, r->tail[live[i]], __ATOMIC_RELEASE);
}

static int32_t pid_of(const struct ep_reader *r, uint32_t k) {
  return r->pid[k] ? r->pid[k] : r->s->pid;
}

static int task_event(struct ep_reader *r, int32_t pid, int32_t tid, uint32_t what, int32_t code) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_TASK;
  ev.pid = pid;
  ev.tid = tid;
  ev.nthreads = r->threads;
  ev.seq = ++r->seq;
  ev.target = r->s->target;
  ev.u.task.what = what;
  ev.u.task.code = code;
  if (debug_on())
    fprintf(stderr, "entrypatch: task %s pid %d tid %d code %d\n",
            what == ASMSPY_TASK_EXEC ? "exec" : "exit", (int)pid, (int)tid, (int)code);
  return r->s->sink(r->s->sink_ctx, &ev) ? -1 : 0;
}

/* Ring k's thread ended (its records before the end are delivered). */
static int deliver_end(struct ep_reader *r, uint32_t k) {
  uint8_t kind = r->end_kind[k];
  r->end_kind[k] = EP_END_NONE;
  if (r->ended[k]) return 0;
  r->ended[k] = 1;
  int32_t pid = pid_of(r, k), tid = r->tid[k] ? r->tid[k] : pid;
  if (kind == EP_END_EXEC) { /* a thread that is not the leader exec'd: its tid ends */
    if (tid != pid && task_event(r, pid, tid, ASMSPY_TASK_EXIT, 0) < 0) return -1;
    return task_event(r, pid, pid, ASMSPY_TASK_EXEC, 0);
  }
  return task_event(r, pid, tid, ASMSPY_TASK_EXIT, r->end_code[k]);
}

static int deliver(struct ep_reader *r, uint32_t k, const struct ring_rec *rec) {
  uint32_t what = REC_WHAT(rec->word), flags = REC_FLAGS(rec->word), fn = REC_FUNC(rec->word);
  if (what == REC_TID) { /* the slot belongs to a new thread now: the old one is gone */
    int rc = 0;
    if (r->tid[k] && !r->ended[k]) {
      r->end_kind[k] = EP_END_EXIT;
      r->end_code[k] = 0;
      rc = deliver_end(r, k);
    }
    r->end_kind[k] = EP_END_NONE;
    r->ended[k] = 0;
    r->tid[k] = (int32_t)rec->ret;
    if (rec->slot) r->pid[k] = (int32_t)rec->slot;
    r->depth[k] = 0;
    return rc;
  }
  if ((what != REC_ENTRY && what != REC_EXIT) || fn >= r->nfuncs) return 0;
  /* one event reused: only what differs per record is written */
  struct asmspy_event *evp = &r->ev;
#define ev (*evp)
  ev.flags = 0;
  ev.pid = pid_of(r, k);
  ev.tid = r->tid[k] ? r->tid[k] : ev.pid;
  ev.nthreads = r->threads;
  ev.seq = ++r->seq;
  ev.ip = r->funcs[fn].addr;
  ev.u.call.func = ev.ip;
  ev.u.call.ret = rec->ret;
  ev.u.call.slot = rec->slot;
  ev.u.call.ts_ns = to_ns(r, rec->tsc);
  if (what == REC_ENTRY) {
    ev.u.call.what = ASMSPY_CALL_ENTRY;
    ev.u.call.depth = r->depth[k];
    if (!(flags & REC_F_NOEXIT)) r->depth[k]++;
    if (!(flags & REC_F_INHERIT)) r->calls++; /* an inherited frame is no call */
  } else {
    ev.u.call.what = ASMSPY_CALL_EXIT;
    if (r->depth[k]) r->depth[k]--;
    ev.u.call.depth = r->depth[k];
  }
  if (flags & REC_F_UNWOUND) ev.flags |= ASMSPY_EVF_CALL_UNWOUND;
  if (flags & REC_F_TAIL) ev.flags |= ASMSPY_EVF_CALL_TAIL;
  if (flags & REC_F_NOEXIT) ev.flags |= ASMSPY_EVF_CALL_NOEXIT;
  if ((flags & REC_F_INHERIT) && what == REC_ENTRY) ev.flags |= ASMSPY_EVF_CALL_INHERITED;
#undef ev
  return r->s->sink(r->s->sink_ctx, evp) ? -1 : 0;
}

static int lost_event(struct ep_reader *r, int32_t pid, int32_t tid, uint64_t count) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_LOST;
  ev.pid = pid;
  ev.tid = tid;
  ev.seq = ++r->seq;
  ev.target = r->s->target;
  ev.u.lost.count = count;
  r->lost += count;
  return r->s->sink(r->s->sink_ctx, &ev) ? -1 : 0;
}

static int report_loss(struct ep_reader *r, uint32_t k) {
  uint64_t lost = __atomic_load_n(&r->ring->heads[k].lost, __ATOMIC_RELAXED);
  if (lost <= r->lost_seen[k]) return 0;
  uint64_t n = lost - r->lost_seen[k];
  r->lost_seen[k] = lost;
  return lost_event(r, pid_of(r, k), r->tid[k], n);
}

/* ---------------------------------------------------- thread ends -- */

enum { PROC_ALIVE = 0, PROC_GONE = 1, PROC_EXECD = 2 };

/* Does process pid still run the image the agent is in? Its state's magic
 * tells (an exec unmaps it); a zombie or a reaped process is gone. */
static int proc_state(const struct ep_reader *r, int32_t pid, int allow_exec) {
  uint64_t magic = 0;
  struct iovec l = {&magic, 8}, rm = {(void *)(uintptr_t)r->state, 8};
  int check = allow_exec && r->state;
  ssize_t n = check ? process_vm_readv(pid, &l, 1, &rm, 1, 0) : -1;
  int err = errno;
  if (n == 8) return magic == AGENT_MAGIC ? PROC_ALIVE : PROC_EXECD;
  if (check && err == ESRCH) return PROC_GONE; /* gone, or a zombie */
  if (kill(pid, 0) != 0 && errno == ESRCH) return PROC_GONE;
  /* a zombie (its mm gone) counts as gone */
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return PROC_GONE;
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = '\0';
  const char *p = strrchr(buf, ')');
  if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X')) return PROC_GONE;
  if (check && (err == EFAULT || err == EIO)) return PROC_EXECD;
  return PROC_ALIVE;
}

/* The exit status of process pid while it is a zombie (field 52 of its
 * stat, as waitpid reports it): the status, or -signal; 0 if unknown. */
static int32_t exit_code_of(int32_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = '\0';
  char *p = strrchr(buf, ')');
  if (!p) return 0;
  /* field 3 is right after ") "; field 52 is 49 fields further */
  p += 2;
  for (int field = 3; field < 52 && p; field++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  if (!p) return 0;
  int st = atoi(p);
  if (st & 0x7f) return -(st & 0x7f);
  return (st >> 8) & 0xff;
}

/* Look for threads and processes that ended: their rings get an end,
 * delivered after their last record. allow_exec: the state is still mapped
 * where the agent runs (not after the leave). */
static void poll_tasks(struct ep_reader *r, const uint32_t *live, uint32_t nlive, int allow_exec) {
  struct {
    int32_t pid;
    int st;
    int32_t code;
    int leader_ring;
  } procs[64];
  uint32_t nprocs = 0;
  for (uint32_t i = 0; i < nlive; i++) {
    uint32_t k = live[i];
    if (r->ended[k] || r->end_kind[k]) continue;
    int32_t pid = pid_of(r, k), tid = r->tid[k] ? r->tid[k] : pid;
    uint32_t p;
    for (p = 0; p < nprocs && procs[p].pid != pid; p++) {
    }
    if (p == nprocs) {
      if (nprocs == sizeof procs / sizeof procs[0]) continue; /* next poll */
      procs[p].pid = pid;
      procs[p].st = proc_state(r, pid, allow_exec);
      procs[p].code = procs[p].st == PROC_GONE ? exit_code_of(pid) : 0;
      procs[p].leader_ring = 0;
      nprocs++;
    }
    uint8_t kind = EP_END_NONE;
    int32_t code = 0;
    if (procs[p].st == PROC_GONE) {
      kind = EP_END_EXIT, code = procs[p].code;
    } else if (procs[p].st == PROC_EXECD) {
      kind = tid == pid ? EP_END_EXEC : EP_END_EXIT;
      if (tid == pid) procs[p].leader_ring = 1;
      if (kind == EP_END_EXEC) r->execs++;
    } else if (syscall(SYS_tgkill, pid, tid, 0) != 0 && errno == ESRCH) {
      kind = EP_END_EXIT;
    }
    if (kind == EP_END_NONE) continue;
    r->end_at[k] = __atomic_load_n(&r->ring->heads[k].head, __ATOMIC_ACQUIRE);
    r->end_kind[k] = kind;
    r->end_code[k] = code;
  }
  /* an exec by a thread other than the leader: no ring of the leader's, so
   * the EXEC goes with the first ring of that process */
  for (uint32_t p = 0; p < nprocs; p++) {
    if (procs[p].st != PROC_EXECD || procs[p].leader_ring) continue;
    r->execs++;
    for (uint32_t i = 0; i < nlive; i++)
      if (pid_of(r, live[i]) == procs[p].pid && r->end_kind[live[i]] == EP_END_EXIT) {
        r->pid[live[i]] = procs[p].pid;
        r->end_kind[live[i]] = EP_END_EXEC; /* delivered as the EXIT of its tid (see below) */
        break;
      }
  }
}

/* A followed process's ring whose state's process is gone is nobody's:
 * free for another child. */
static void recycle(struct ep_reader *r, uint32_t k) {
  struct ring_head *h = &r->ring->heads[k];
  int32_t owner = h->state_pid;
  if (!r->ended[k] || owner <= 0 || owner == r->s->pid || r->end_kind[k]) return;
  if (r->tail[k] != __atomic_load_n(&h->head, __ATOMIC_ACQUIRE)) return;
  if (!(kill(owner, 0) != 0 && errno == ESRCH)) return;
  r->tid[k] = 0, r->pid[k] = 0, r->depth[k] = 0, r->ended[k] = 0;
  __atomic_store_n(&h->tail, r->tail[k], __ATOMIC_RELEASE);
  __atomic_store_n(&h->used, 0u, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ drain -- */

static uint32_t live_rings(struct ep_reader *r, uint32_t *live) {
  uint32_t nlive = 0;
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    if (__atomic_load_n(&r->ring->heads[k].used, __ATOMIC_ACQUIRE) != 1) continue;
    if (!r->tid[k]) {
      r->tid[k] = r->ring->heads[k].tid;
      r->pid[k] = r->ring->heads[k].pid;
      if (r->pid[k] && r->pid[k] != r->s->pid) r->children++;
    }
    live[nlive++] = k;
  }
  return nlive;
}

int64_t ep_reader_drain(struct ep_reader *r, int final) {
  if (!final) ep_reader_beat(r);
  uint32_t live[AGENT_THREADS];
  uint32_t nlive = live_rings(r, live);
  r->threads = nlive;
  uint64_t now = rdtsc_now();
  if (!final && (int64_t)(now - r->next_poll) >= 0) {
    poll_tasks(r, live, nlive, 1);
    r->next_poll = now + r->poll_ticks;
  }
  /* ends whose records are all delivered already */
  for (uint32_t i = 0; i < nlive; i++)
    if (r->end_kind[live[i]] && r->tail[live[i]] >= r->end_at[live[i]] &&
        deliver_end(r, live[i]) < 0)
      return -1;
  /* merge the rings by timestamp: the oldest ready record first; each
   * ring's next record is peeked once and its tsc kept here. A batch at
   * most: a target that writes as fast as we read must not keep the
   * caller from checking its stop flag. */
  const struct ring_rec *next[AGENT_THREADS];
  uint64_t next_tsc[AGENT_THREADS];
  uint32_t nready = 0;
  for (uint32_t i = 0; i < nlive; i++) {
    next[i] = peek(r, live[i], final);
    if (next[i]) next_tsc[i] = next[i]->tsc, nready++;
  }
  int64_t n = 0;
  int rc = 0;
  while (nready && (n < EP_DRAIN_BATCH || final)) {
    uint32_t bi = 0;
    if (nlive > 1) {
      int found = 0;
      for (uint32_t i = 0; i < nlive; i++)
        if (next[i] && (!found || (int64_t)(next_tsc[i] - next_tsc[bi]) < 0)) bi = i, found = 1;
    }
    uint32_t bk = live[bi];
    struct ring_rec copy = *next[bi];
    r->tail[bk]++;
    /* the lines the agent wrote on another CPU: asked for a few records ahead */
    __builtin_prefetch(&r->ring->recs[bk][(r->tail[bk] + 8) & (AGENT_RING - 1)]);
    n++;
    if (deliver(r, bk, &copy) < 0 ||
        (r->end_kind[bk] && r->tail[bk] >= r->end_at[bk] && deliver_end(r, bk) < 0)) {
      rc = -1;
      break;
    }
    next[bi] = peek(r, bk, final);
    if (next[bi])
      next_tsc[bi] = next[bi]->tsc;
    else
      nready--;
    if ((n & (EP_DRAIN_CHUNK - 1)) == 0) { /* room for the agent, now and then */
      publish_tails(r, live, nlive);
      if (!final) ep_reader_beat(r);
      wake_waiters(r);
    }
  }
  publish_tails(r, live, nlive);
  wake_waiters(r);
  if (rc < 0) return -1;
  for (uint32_t i = 0; i < nlive; i++) {
    if (report_loss(r, live[i]) < 0) return -1;
    if (!final) recycle(r, live[i]);
  }
  uint64_t nr = __atomic_load_n(&r->ring->no_ring, __ATOMIC_RELAXED);
  if (nr > r->no_ring_seen) {
    uint64_t d = nr - r->no_ring_seen;
    r->no_ring_seen = nr;
    if (lost_event(r, r->s->pid, 0, d) < 0) return -1;
  }
  return n;
}

int ep_reader_finish(struct ep_reader *r) {
  uint32_t live[AGENT_THREADS];
  uint32_t nlive = live_rings(r, live);
  poll_tasks(r, live, nlive, 0);
  for (uint32_t i = 0; i < nlive; i++) {
    r->late += __atomic_load_n(&r->ring->heads[live[i]].late, __ATOMIC_RELAXED);
    if (r->end_kind[live[i]] && deliver_end(r, live[i]) < 0) return -1;
  }
  return 0;
}

uint32_t ep_reader_children_alive(struct ep_reader *r) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < AGENT_THREADS; k++)
    if (r->tid[k] && !r->ended[k] && r->pid[k] && r->pid[k] != r->s->pid &&
        __atomic_load_n(&r->ring->heads[k].used, __ATOMIC_ACQUIRE) == 1)
      n++;
  return n;
}
