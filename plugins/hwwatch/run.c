/* The hwwatch run loop.
 *
 *   attach (the seam seizes every thread, all left stopped)
 *   -> arm the watchpoint in every thread (debug registers are per thread)
 *   -> resume everything with PTRACE_CONT: the target runs at native speed,
 *      no stepping, no code patching
 *   -> at each SIGTRAP whose status says OUR slot fired: read the value,
 *      report ASMSPY_EV_WATCH_HIT (ip = the instruction that touched it),
 *      acknowledge, resume. A new thread is armed at its first stop.
 *   -> on n hits, Ctrl-C, exec or the target's end: disarm every thread
 *      that still has the watchpoint (stopping the running ones first),
 *      then the seam's two-phase detach.
 *
 * x86 reports the hit AFTER the access (a trap): the value read at the stop
 * is the new one, the old one is the value seen at the previous hit (or at
 * arming), and the toucher is the instruction before rip (toucher.c).
 * AArch64 reports it BEFORE the access: the value read at the stop is the
 * old one and pc is the toucher itself; the loop takes the watchpoint off
 * that thread, single-steps the access, reads the new value, re-arms.
 */
#define _GNU_SOURCE
#include "plugins/common/stop_event.h"
#include "plugins/hwwatch/hwwatch.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long the final disarm waits for a running thread to stop after
 * PTRACE_INTERRUPT before it gives up on that thread. */
#define HW_DRAIN_TIMEOUT_MS 2000

/* ------------------------------------------------------------ threads -- */

static struct hw_thread *thread_find(struct hw_run *r, pid_t tid) {
  for (size_t i = 0; i < r->nthreads; i++)
    if (r->threads[i].tid == tid) return &r->threads[i];
  return NULL;
}

static struct hw_thread *thread_get(struct hw_run *r, pid_t tid) {
  struct hw_thread *t = thread_find(r, tid);
  if (t) return t;
  if (r->nthreads == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 16;
    struct hw_thread *n = realloc(r->threads, nc * sizeof *n);
    if (!n) return NULL;
    r->threads = n;
    r->cap = nc;
  }
  t = &r->threads[r->nthreads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->slot = -1;
  return t;
}

static void thread_drop(struct hw_run *r, pid_t tid) {
  for (size_t i = 0; i < r->nthreads; i++)
    if (r->threads[i].tid == tid) {
      r->threads[i] = r->threads[--r->nthreads];
      return;
    }
}

static struct asmspy_out *out_of(const struct hw_run *r) { return r->s->out; }

static void note(const struct hw_run *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(const struct hw_run *r, int level, const char *fmt, ...) {
  if (!r->host->note) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r->host->note(out_of(r), level, HW_NAME ": %s", buf);
}

static int status_for_errno(int e) {
  switch (e) {
  case ENODEV: return -ASMSPY_E_NO_HW;
  case EBUSY:
  case ENOSPC: return -ASMSPY_E_ATTACH_BUSY;
  case EPERM:
  case EACCES: return -ASMSPY_E_ATTACH_PERM;
  case ESRCH: return -ASMSPY_E_ATTACH_GONE;
  default: return -ASMSPY_E_NO_KERNEL; /* EINVAL, EIO: the kernel refused this setup */
  }
}

/* Arm one stopped thread; a refusal leaves it unwatched, and says so. */
static int arm_thread(struct hw_run *r, struct hw_thread *t, int quiet) {
  int rc = r->arch->arm(r, t);
  if (rc) {
    t->arm_failed = 1;
    if (!quiet && rc != -ESRCH)
      note(r, ASMSPY_NOTE_WARN, "tid %d runs unwatched: %s", (int)t->tid, r->why);
  }
  return rc;
}

/* ------------------------------------------------------------- values -- */

static int read_value(struct hw_run *r, struct asmspy_target *tg, uint64_t *v) {
  uint8_t buf[8] = {0};
  ssize_t n = r->host->read_mem(tg ? tg : r->s->target, r->addr, buf, r->len);
  if (n != (ssize_t)r->len) return -1;
  uint64_t x = 0;
  for (unsigned i = 0; i < r->len; i++) /* little-endian on both x86-64 and AArch64 Linux */
    x |= (uint64_t)buf[i] << (8 * i);
  *v = x;
  return 0;
}

static int current_ip(struct hw_run *r, pid_t tid, uint64_t *ip) {
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  if (r->seam->get_regs(r->sm, tid, &regs) != 0) return -1;
  *ip = regs.ip;
  return 0;
}

/* Is another armed thread of ours sitting in a trace stop we have not
 * collected yet (state 't' in /proc while we think it runs)? Then it may
 * have written the watched bytes after the thread being reported did. */
static int other_thread_trapped(const struct hw_run *r, pid_t self) {
  for (size_t i = 0; i < r->nthreads; i++) {
    const struct hw_thread *o = &r->threads[i];
    if (o->tid == self || o->stopped || !o->armed) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)o->tid);
    FILE *f = fopen(path, "re");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *paren = strrchr(buf, ')');
    if (paren && paren[1] == ' ' && paren[2] == 't') return 1;
  }
  return 0;
}

static void report(struct hw_run *r, const struct asmspy_stop *stop, const struct hw_thread *t,
                   uint64_t ip, uint64_t old_value, uint64_t new_value, uint32_t flags) {
  struct asmspy_event ev;
  stop_event_init(&ev, ASMSPY_EV_WATCH_HIT, stop);
  ev.seq = ++r->seq;
  ev.ip = ip;
  ev.target = stop->target ? stop->target : r->s->target;
  ev.u.watch.addr = r->addr;
  ev.u.watch.old_value = old_value;
  ev.u.watch.new_value = new_value;
  ev.u.watch.len = r->len;
  ev.u.watch.slot = (uint32_t)(t->slot < 0 ? 0 : t->slot);
  ev.flags |= flags;
  /* Neither architecture says whether a read/write watchpoint fired on the
   * read or the write; an unchanged value is reported as a read (a write of
   * the same value looks the same). */
  if ((r->access & ASMSPY_WATCH_READ) && old_value == new_value) ev.flags |= ASMSPY_EVF_WATCH_READ;
  r->hits++;
  if (r->s->sink(r->s->sink_ctx, &ev)) r->done = 1;
  if (r->s->max > 0 && r->hits >= (uint64_t)r->s->max) r->done = 1;
}

/* ---------------------------------------------------------------- hits -- */

/* x86: the hit stop is after the access. */
static void hit_after_access(struct hw_run *r, const struct asmspy_stop *stop,
                             struct hw_thread *t) {
  uint64_t rip = 0, ip = 0, now = r->last_value;
  if (read_value(r, stop->target, &now) != 0)
    note(r, ASMSPY_NOTE_WARN, "tid %d: cannot read the watched bytes at the hit", (int)t->tid);
  (void)current_ip(r, t->tid, &rip);
  if (!hw_toucher_before(r->host, stop->target ? stop->target : r->s->target, rip, &ip)) {
    ip = rip;
    if (!r->toucher_warned++)
      note(r, ASMSPY_NOTE_WARN,
           "hit at 0x%" PRIx64 ": the instruction before it could not be decoded (no symbol, "
           "or the start of a function: a call's push); showing the next instruction",
           rip);
  }
  /* the stored value itself when the toucher is a plain store: exact even
   * if another thread wrote since; otherwise the bytes as read now */
  uint32_t flags = 0;
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  uint64_t stored = 0;
  struct asmspy_target *tg = stop->target ? stop->target : r->s->target;
  if (ip != rip && r->seam->get_regs(r->sm, t->tid, &regs) == 0 &&
      hw_stored_value(r->host, tg, ip, &regs, r->addr, r->len, &stored))
    now = stored;
  else if (other_thread_trapped(r, t->tid))
    flags = ASMSPY_EVF_WATCH_CONCURRENT;
  uint64_t old = r->last_value;
  r->last_value = now;
  report(r, stop, t, ip, old, now, flags);
}

/* AArch64: the hit stop is before the access: step it with the watchpoint
 * off in this thread, report at the step's stop (step_over_done). */
static int hit_before_access(struct hw_run *r, const struct asmspy_stop *stop,
                             struct hw_thread *t) {
  uint64_t pc = 0, old = r->last_value;
  (void)current_ip(r, t->tid, &pc);
  (void)read_value(r, stop->target, &old);
  t->hit_ip = pc;
  t->hit_old = old;
  if (r->arch->disarm(r, t) != 0) {
    note(r, ASMSPY_NOTE_WARN, "tid %d: %s", (int)t->tid, r->why);
    return -1;
  }
  if (r->seam->step(r->sm, t->tid, 0) != 0) return -1;
  t->stepping = 1;
  t->stopped = 0;
  return 0;
}

static void step_over_done(struct hw_run *r, const struct asmspy_stop *stop, struct hw_thread *t) {
  t->stepping = 0;
  uint64_t now = t->hit_old;
  (void)read_value(r, stop->target, &now);
  r->last_value = now;
  report(r, stop, t, t->hit_ip, t->hit_old, now, 0); /* AArch64: stepped with the others running: */
  if (!r->done) arm_thread(r, t, 0);
}

/* A stop that may be our watchpoint's: the seam's WATCH (TRAP_HWBKPT in a
 * thread whose debug registers we wrote), or — from a seam older than ABI
 * 1.7 or a test's fake seam — a plain SIGTRAP. arch->hit() then reads
 * DR6 / the fault address to tell whether OUR slot fired. */
static int is_trap_stop(const struct asmspy_stop *stop) {
  return stop->kind == ASMSPY_STOP_WATCH ||
         ((stop->kind == ASMSPY_STOP_SIGNAL || stop->kind == ASMSPY_STOP_TARGET_TRAP) &&
          stop->sig == SIGTRAP);
}

/* ------------------------------------------------------------- disarm -- */

static size_t armed_running(const struct hw_run *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->nthreads; i++)
    n += !r->threads[i].stopped && (r->threads[i].armed || r->threads[i].stepping);
  return n;
}

/* Take the watchpoint out of every thread before the seam detaches: a
 * watchpoint left armed in a detached thread kills it with SIGTRAP at the
 * next access. Stopped threads are disarmed directly; running ones are
 * interrupted and disarmed at their stop. Our own trap caught here is
 * swallowed (resumed without the signal): the seam would otherwise hand the
 * SIGTRAP back to the target at detach. */
static void disarm_all(struct hw_run *r, struct asmspy_session *local) {
  static const int never = 0;
  local->stop = &never; /* next_stop must wait for real stops now, even after Ctrl-C */
  for (size_t i = 0; i < r->nthreads; i++)
    if (r->threads[i].stopped) (void)r->arch->disarm(r, &r->threads[i]);
  if (!armed_running(r)) return;
  (void)r->seam->interrupt_all(r->sm, 0);
  for (size_t guard = 64 + 8 * r->nthreads; guard > 0 && armed_running(r); guard--) {
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    if (r->seam->next_stop_timeout(r->sm, &stop, HW_DRAIN_TIMEOUT_MS) != 0 ||
        stop.kind == ASMSPY_STOP_NONE)
      return;
    if (stop.kind == ASMSPY_STOP_TIMEOUT) {
      note(r, ASMSPY_NOTE_WARN,
           "%zu thread(s) did not stop within %d ms to be disarmed; their watchpoint goes "
           "with them at detach or exit",
           armed_running(r), HW_DRAIN_TIMEOUT_MS);
      return;
    }
    if (stop.kind == ASMSPY_STOP_EXITED) {
      thread_drop(r, stop.tid);
      continue;
    }
    struct hw_thread *t = thread_get(r, stop.tid);
    if (!t) return;
    t->stopped = 1;
    int ours = is_trap_stop(&stop) && r->arch->hit(r, t, &stop);
    (void)r->arch->disarm(r, t);
    t->stepping = 0;
    if (ours && r->seam->resume(r->sm, t->tid, 0) == 0)
      t->stopped = 0; /* disarmed now: it cannot trap on the address again */
  }
}

/* ---------------------------------------------------------------- run -- */

static int arm_all_initial(struct hw_run *r) {
  uint32_t cap = 256, n;
  pid_t *tids = NULL;
  for (;;) {
    pid_t *nt = realloc(tids, cap * sizeof *tids);
    if (!nt) {
      free(tids);
      return -ENOMEM;
    }
    tids = nt;
    n = r->seam->list_threads(r->sm, tids, cap);
    if (n < cap) break;
    cap *= 2;
  }
  int first_err = 0;
  size_t armed = 0;
  for (uint32_t i = 0; i < n; i++) {
    struct hw_thread *t = thread_get(r, tids[i]);
    if (!t) continue;
    t->stopped = 1; /* the seam leaves every thread stopped after attach */
    int rc = arm_thread(r, t, 1);
    if (rc == 0)
      armed++;
    else if (rc != -ESRCH && !first_err)
      first_err = rc;
    if (rc && rc != -ESRCH && armed == 0)
      break; /* the first refusal is the verdict for the process */
  }
  free(tids);
  if (armed == 0) return first_err ? first_err : -ESRCH;
  for (size_t i = 0; i < r->nthreads; i++)
    if (r->threads[i].arm_failed)
      note(r, ASMSPY_NOTE_WARN, "tid %d runs unwatched", (int)r->threads[i].tid);
  return 0;
}

static int session_ok(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  return host && host->seam && ASMSPY_HAS(host->seam, list_threads) && ASMSPY_HAS(host, read_mem) &&
         s && ASMSPY_HAS(s, watch_access);
}

/* Fill r from the session and check the request before anything touches
 * the target: no address, or one the hardware cannot watch, is a usage
 * error, not a run. */
static int run_setup(struct hw_run *r, const struct asmspy_host_api *host,
                     const struct asmspy_session *s, const struct hw_arch_ops *arch) {
  memset(r, 0, sizeof *r);
  r->host = host;
  r->seam = host->seam;
  r->s = s;
  r->arch = arch;
  r->addr = s->watch_addr;
  r->len = s->watch_len;
  r->access = s->watch_access ? s->watch_access : ASMSPY_WATCH_WRITE;
  if (r->len == 0) {
    note(r, ASMSPY_NOTE_WARN, "the session names no address to watch");
    return -ASMSPY_E_USAGE;
  }
  if (arch->validate(r->addr, r->len, r->access, r->why, sizeof r->why) != 0) {
    note(r, ASMSPY_NOTE_WARN, "%s", r->why);
    return -ASMSPY_E_USAGE;
  }
  return 0;
}

/* Arm every thread the attach stopped and take the first value (the "old"
 * of the first hit). Returns 0, or the run's status when nothing could be
 * armed. */
static int arm_and_announce(struct hw_run *r) {
  int rc = arm_all_initial(r);
  if (rc) {
    note(r, ASMSPY_NOTE_WARN, "cannot arm the watchpoint: %s", r->why);
    return status_for_errno(-rc);
  }
  if (read_value(r, r->s->target, &r->last_value) != 0)
    note(r, ASMSPY_NOTE_WARN, "0x%" PRIx64 " is not readable in pid %d: old values unknown",
         r->addr, (int)r->s->pid);
  note(r, ASMSPY_NOTE_INFO, "%s: %u-byte %s watchpoint on 0x%" PRIx64 " armed in %zu thread(s)",
       r->arch->name, r->len, (r->access & ASMSPY_WATCH_READ) ? "read/write" : "write", r->addr,
       r->nthreads);
  return 0;
}

/* What one stop of thread t means for the watch. Returns the signal to
 * deliver when t resumes, or -1 when t is already running again (stepped
 * over an access, AArch64). */
static int handle_stop(struct hw_run *r, const struct asmspy_stop *stop, struct hw_thread *t) {
  switch (stop->kind) {
  case ASMSPY_STOP_NEW_TASK:
    if (!stop->is_process)
      (void)thread_get(r, stop->new_tid); /* armed when its own first stop arrives */
    return 0;
  case ASMSPY_STOP_EXEC:
    /* exec replaced the program (and the kernel flushed the debug
     * registers): the address means nothing in the new image */
    for (size_t i = 0; i < r->nthreads; i++) r->threads[i].armed = 0;
    note(r, ASMSPY_NOTE_INFO,
         "pid %d exec'd: the watched address belonged to the old "
         "program; stopping",
         (int)stop->pid);
    r->done = 1;
    return 0;
  case ASMSPY_STOP_WATCH:
  case ASMSPY_STOP_SIGNAL:
  case ASMSPY_STOP_TARGET_TRAP:
    /* (while stepping over a hit the watchpoint is off in t: not ours) */
    if (!t->stepping && is_trap_stop(stop) && r->arch->hit(r, t, stop)) {
      if (!r->arch->trap_before_access) {
        hit_after_access(r, stop, t);
      } else if (hit_before_access(r, stop, t) == 0) {
        return -1; /* resumed by the step */
      }
      return 0;
    }
    return stop->sig;
  case ASMSPY_STOP_STEP:
    if (t->stepping) step_over_done(r, stop, t);
    return 0;
  default: /* GROUP (attach, interrupts), SYSCALL: nothing of ours */ return 0;
  }
}

/* Wait for stops until n hits, Ctrl-C, exec or the target's end, and
 * resume each stopped thread before the next wait. Returns the run's
 * status. */
static int watch_loop(struct hw_run *r) {
  const struct asmspy_session *s = r->s;
  while (!r->done) {
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    int rc = r->seam->next_stop(r->sm, &stop);
    if (rc) return rc < 0 ? rc : -ASMSPY_E_INTERNAL;
    if (stop.kind == ASMSPY_STOP_INTERRUPTED) return 0;
    if (stop.kind == ASMSPY_STOP_NONE) return ASMSPY_FACT_EXITED;
    if (stop.kind == ASMSPY_STOP_EXITED) {
      thread_drop(r, stop.tid);
      continue;
    }
    struct hw_thread *t = thread_get(r, stop.tid);
    if (!t) return -ASMSPY_E_NOMEM;
    t->stopped = 1;
    /* A thread born after attach is armed at its first stop. */
    if (!t->armed && !t->arm_failed && !t->stepping && stop.kind != ASMSPY_STOP_EXEC)
      arm_thread(r, t, 0);

    int deliver = handle_stop(r, &stop, t);
    if (deliver < 0) continue;
    if (r->done || (s->stop && *s->stop)) break; /* t stays stopped: disarm_all handles it */
    /* A thread still owed its step over an access (a signal or an
     * interrupt came first) is stepped again, never let run unwatched. */
    rc = t->stepping ? r->seam->step(r->sm, t->tid, deliver)
                     : r->seam->resume(r->sm, t->tid, deliver);
    if (rc == 0) t->stopped = 0;
  }
  return 0;
}

int hw_run_with(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct hw_arch_ops *arch) {
  if (!session_ok(host, s)) return -ASMSPY_E_ABI;
  struct hw_run r;
  int rc = run_setup(&r, host, s, arch);
  if (rc) return rc;

  /* The seam keeps a pointer to the session it attached with: attach with
   * our own copy so the final disarm can wait for stops after Ctrl-C. */
  struct asmspy_session local;
  memset(&local, 0, sizeof local);
  memcpy(&local, s, s->struct_size < sizeof local ? s->struct_size : sizeof local);
  rc = r.seam->attach(&local, &r.sm);
  if (rc) return rc;

  int result = arm_and_announce(&r);
  if (result == 0) result = watch_loop(&r);

  disarm_all(&r, &local);
  r.seam->detach(r.sm);
  free(r.threads);
  return result;
}

int hw_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
#if defined(__aarch64__)
  return hw_run_with(host, s, &hw_arm64_ops);
#else
  return hw_run_with(host, s, &hw_x86_ops);
#endif
}
