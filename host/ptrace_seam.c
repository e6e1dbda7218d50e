/* The ptrace seam: every ptrace call asmspy makes lives in this file.
 *
 * Model (strace / gdb style, PTRACE_SEIZE based):
 *   - attach seizes every thread of the target (re-listing /proc/<pid>/task
 *     until a pass finds no new thread), with PTRACE_O_TRACECLONE so threads
 *     born later are seized by the kernel; --tid seizes exactly one thread and
 *     follows nothing; ASMSPY_SESS_FOLLOW adds TRACEFORK/TRACEVFORK so forked
 *     children join with their own symbol table (strace -f).
 *   - one waitpid(-1, __WALL) loop drives all tasks, on ONE tracer thread
 *     (ptrace is per-thread). next_stop() classifies each stop; the caller
 *     (a backend) decides how to resume.
 *   - our own single-step traps are told apart from the target's int3 by
 *     si_code (TRAP_TRACE/TRAP_BRKPT vs SI_KERNEL), so a self-breakpointing
 *     target gets its SIGTRAP delivered back.
 *   - every SIGTRAP that is asmspy's own is recognised in EVERY wait (the
 *     backend's, attach's and detach's): a step we asked for (si_code
 *     TRAP_TRACE/TRAP_BRKPT with the step armed), an int3 we planted
 *     (SI_KERNEL one byte past an address target_write_mem planted: rip is
 *     rewound onto it, ASMSPY_STOP_BREAKPOINT), a debug-register hit in a
 *     thread whose debug registers we wrote (TRAP_HWBKPT,
 *     ASMSPY_STOP_WATCH). None of them is ever handed to the target as a
 *     signal: a stray SIGTRAP kills any program without a handler.
 *   - group-stops are honoured (strace / gdb): a thread in a job-control
 *     stop is resumed with PTRACE_LISTEN whatever the backend asked, so a
 *     stopped target stays stopped while traced and SIGCONT resumes it.
 *   - detach is two-phase: interrupt and stop every thread, drain a pending
 *     step trap (a step that completed across a blocking syscall queues its
 *     SIGTRAP until the syscall returns), then release them all. Releasing
 *     one at a time while siblings are frozen mid-step is what kills JIT
 *     runtimes; a leftover queued SIGTRAP kills anything — also one queued
 *     behind a job-control stop, which kills the target at SIGCONT: that
 *     one is drained too, and the thread stops again as the user left it
 *     (detach_drain_trap_stopped). Every wait of the detach is bounded; a
 *     task that is gone (ESRCH) is done.
 *   - the tracer thread's CPU (seam_cpu.h): every stop is handed to
 *     seam_cpu_stop(), which may pin the TRACER thread (never the target) to
 *     the CPU of the thread that stops most, when a per-session trial
 *     measures that faster; detach restores the tracer's own mask.
 *     ASMSPY_NO_PIN=1 turns it off, ASMSPY_PIN=1 pins without the trial.
 */
#define _GNU_SOURCE
#include "host/host.h"
#include "host/arch/arch.h"
#include "host/attach_diag.h"
#include "host/seam_cpu.h"
#include "host/fdinfo.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif
#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

enum task_state { TASK_RUNNING = 0, TASK_STOPPED = 1 };

struct seam_task {
  pid_t tid;
  pid_t tgid;
  enum task_state state;
  int step_armed;          /* last resume was PTRACE_SINGLESTEP */
  int step_plain;          /* ... through step_plain(): a SIGTRAP now is our step */
  int in_syscall;          /* fallback toggle when PTRACE_GET_SYSCALL_INFO is missing */
  int resumed_since_queue; /* resumed after a synthetic stop was queued for it */
  int64_t toggle_nr;
  uint64_t entry_args[6]; /* of the syscall in flight (the fd cache's exit check) */
  int pending_sig;        /* signal owed to the task if we detach it now */
  int hw_armed;           /* asmspy wrote its debug registers: TRAP_HWBKPT is ours */
  int group_stopped;      /* in a job-control stop: resumes become PTRACE_LISTEN */
  int owed_sig;           /* a signal that arrived during an injected syscall */
  int step_owed;          /* a step was armed and another stop came first (an
                     * interrupt inside a blocking syscall): its trap may
                     * still be queued and is ours when it comes */
  int tf_known;           /* own_tf was read (at its first resume, before any step) */
  int own_tf;             /* the program had the trap flag set itself */
  int ever_stepped;       /* single-stepped in this session (end_stepping) */
  struct asmspy_target *target;
};

struct seam_proc {
  pid_t tgid;
  struct asmspy_target *target;
  int owned; /* created by the seam (forked child); closed at detach */
  /* The target's own SIGTRAP action, read at attach when it catches SIGTRAP
   * (syscall injection, below): put back if one of our traps lands where
   * SIGTRAP is blocked and the kernel resets it to SIG_DFL. */
  int trap_act_saved;
  struct seam_ksigaction trap_act;
  uint64_t syscall_insn; /* a `syscall` instruction in the target, for injection */
};

#define STOP_QUEUE_MAX 256

struct asmspy_seam {
  const struct asmspy_session *session;
  int64_t deadline_ns; /* next_stop_timeout(): poll instead of blocking; 0 = none */
  long poll_ns;        /* seam_wait's current back-off */
  unsigned ptrace_options;
  struct seam_task *tasks;
  size_t ntasks, cap;
  struct seam_proc *procs;
  size_t nprocs, proc_cap;
  struct asmspy_stop queue[STOP_QUEUE_MAX]; /* synthetic stops (attach) */
  size_t qhead, qtail;
  /* tids whose exit was reaped: a fork/clone event reported after its
   * child already ran and exited must not re-add a task that will never
   * stop again (the detach would wait for it forever) */
  pid_t gone[64];
  unsigned ngone;
  int group_stop_noted;
  /* spawn_child(): the probe child this seam owns. Waits name it (never -1:
   * the caller's other children are not ours to reap) and detach kills it. */
  pid_t child;
  /* the tracer thread's CPU follows the stepped thread's (seam_cpu.h) */
  struct seam_cpu cpu;
  /* fd tables may change where no stop shows it (--tid traces one thread;
   * a process shares its fd table through CLONE_FILES): the fd description
   * cache (fdinfo.h) is flushed at every syscall stop */
  int fd_unseen;
};

static int64_t now_ns(void);

/* ---------------------------------------------------------------- tasks -- */

/* A traced process was killed by a signal: say so, once per process, with
 * what asmspy had armed in it — the honest end of a session is "the target
 * died of SIGTRAP while asmspy had a step armed", never "target exited". */
static void note_killed(struct asmspy_seam *sm, const struct seam_task *t, int sig) {
  if (t->tid != t->tgid || !sm->session || !sm->session->out) return;
  int stepping = 0, hw = 0;
  for (size_t i = 0; i < sm->ntasks; i++)
    if (sm->tasks[i].tgid == t->tgid) {
      stepping |= sm->tasks[i].step_armed;
      hw |= sm->tasks[i].hw_armed;
    }
  int bps = target_breakpoint_count(t->target);
  char armed[160];
  snprintf(armed, sizeof armed, "%s%s%s", stepping ? ", a single-step armed" : "",
           hw ? ", debug registers written" : "",
           bps > 0 ? ", int3 breakpoint(s) planted this session" : "");
  /* the signal by its name first (SIGSEGV), as strace's "+++ killed by
   * SIGSEGV +++", then its description */
  out_note(sm->session->out, ASMSPY_NOTE_WARN,
           "pid %d was KILLED by SIG%s (%s, signal %d) while traced%s%s", (int)t->tgid,
           sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig), sig,
           armed[0] ? "; asmspy had" : "", armed[0] ? armed + 1 : "");
  if ((pid_t)t->tgid == sm->session->pid) out_set_target_death(sm->session->out, sig);
}

/* A job-control stop signal: the PTRACE_EVENT_STOP it causes is a real
 * group-stop, where our PTRACE_INTERRUPT's says SIGTRAP. */
static int is_stop_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A PTRACE_EVENT_STOP with signal sig: a group-stop (the stop signal) or
 * our interrupt / a LISTEN wake-up after SIGCONT (SIGTRAP). Said once. */
static void note_group_stop(struct asmspy_seam *sm, struct seam_task *t, int sig) {
  t->group_stopped = is_stop_signal(sig);
  if (!t->group_stopped || sm->group_stop_noted || !sm->session || !sm->session->out) return;
  sm->group_stop_noted = 1;
  out_note(sm->session->out, ASMSPY_NOTE_INFO,
           "pid %d is stopped (%s, job control): it stays stopped while traced; the session "
           "goes on when SIGCONT resumes it",
           (int)t->tgid, strsignal(sig));
}

static struct seam_task *task_find(struct asmspy_seam *sm, pid_t tid) {
  for (size_t i = 0; i < sm->ntasks; i++)
    if (sm->tasks[i].tid == tid) return &sm->tasks[i];
  return NULL;
}

static struct asmspy_target *proc_target(struct asmspy_seam *sm, pid_t tgid) {
  for (size_t i = 0; i < sm->nprocs; i++)
    if (sm->procs[i].tgid == tgid) return sm->procs[i].target;
  return NULL;
}

static void proc_add(struct asmspy_seam *sm, pid_t tgid, struct asmspy_target *t, int owned) {
  if (sm->nprocs == sm->proc_cap) {
    size_t nc = sm->proc_cap ? sm->proc_cap * 2 : 4;
    struct seam_proc *np = realloc(sm->procs, nc * sizeof *np);
    if (!np) return;
    sm->procs = np;
    sm->proc_cap = nc;
  }
  sm->procs[sm->nprocs++] = (struct seam_proc){.tgid = tgid, .target = t, .owned = owned};
}

static int task_gone(const struct asmspy_seam *sm, pid_t tid) {
  unsigned n = sm->ngone < 64 ? sm->ngone : 64;
  for (unsigned i = 0; i < n; i++)
    if (sm->gone[i] == tid) return 1;
  return 0;
}

/* A new task named by a clone/fork event: unless it already exited. */
static struct seam_task *task_add(struct asmspy_seam *sm, pid_t tid, pid_t tgid);
static struct seam_task *task_add_born(struct asmspy_seam *sm, pid_t tid, pid_t tgid) {
  if (task_gone(sm, tid)) return NULL;
  return task_add(sm, tid, tgid);
}

static struct seam_task *task_add(struct asmspy_seam *sm, pid_t tid, pid_t tgid) {
  struct seam_task *t = task_find(sm, tid);
  if (t) return t;
  if (sm->ntasks == sm->cap) {
    size_t nc = sm->cap ? sm->cap * 2 : 16;
    struct seam_task *nt = realloc(sm->tasks, nc * sizeof *nt);
    if (!nt) return NULL;
    sm->tasks = nt;
    sm->cap = nc;
  }
  t = &sm->tasks[sm->ntasks++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->tgid = tgid;
  t->state = TASK_RUNNING;
  t->toggle_nr = -1; /* unknown until an entry stop is seen */
  t->target = proc_target(sm, tgid);
  return t;
}

static void task_remove(struct asmspy_seam *sm, pid_t tid) {
  sm->gone[sm->ngone++ % 64] = tid;
  for (size_t i = 0; i < sm->ntasks; i++)
    if (sm->tasks[i].tid == tid) {
      sm->tasks[i] = sm->tasks[--sm->ntasks];
      return;
    }
}

/* Thread group of a tid we have never seen (Tgid: line of its status). */
static pid_t tgid_of(pid_t tid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE *f = fopen(path, "re");
  if (!f) return tid;
  pid_t tgid = tid;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "Tgid:", 5) == 0) {
      tgid = (pid_t)atoi(line + 5);
      break;
    }
  fclose(f);
  return tgid;
}

/* Is `sig` set in the thread's signal mask line `field` ("SigPnd:" = its
 * private pending queue, "SigBlk:" = blocked) of /proc/<tid>/status? */
static int thread_sigmask_has(pid_t tid, const char *field, int sig) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  int set = 0;
  size_t flen = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, flen) == 0) {
      unsigned long long mask = strtoull(line + flen, NULL, 16);
      set = (mask >> (sig - 1)) & 1;
      break;
    }
  fclose(f);
  return set;
}

static int thread_signal_pending(pid_t tid, int sig) {
  return thread_sigmask_has(tid, "SigPnd:", sig);
}

static int seam_signal_blocked(struct asmspy_seam *sm, pid_t tid, int sig) {
  (void)sm;
  return thread_sigmask_has(tid, "SigBlk:", sig);
}

static struct seam_task *task_find(struct asmspy_seam *sm, pid_t tid);

static void queue_push(struct asmspy_seam *sm, const struct asmspy_stop *st) {
  if (sm->qtail - sm->qhead >= STOP_QUEUE_MAX) return;
  sm->queue[sm->qtail++ % STOP_QUEUE_MAX] = *st;
  struct seam_task *t = task_find(sm, st->tid);
  if (t) t->resumed_since_queue = 0;
}

static void stop_init(struct asmspy_stop *st, uint32_t kind, const struct seam_task *t) {
  memset(st, 0, sizeof *st);
  ASMSPY_INIT_HEADER(st);
  st->kind = kind;
  if (t) {
    st->tid = t->tid;
    st->pid = t->tgid;
    st->target = t->target;
  }
}

static int errno_to_status(int e) {
  switch (e) {
  case EPERM:
  case EACCES: return -ASMSPY_E_ATTACH_PERM;
  case ESRCH: return -ASMSPY_E_ATTACH_GONE;
  case EBUSY: return -ASMSPY_E_ATTACH_BUSY;
  case ENOMEM: return -ASMSPY_E_NOMEM;
  default: return -ASMSPY_E_INTERNAL;
  }
}

/* --------------------------------------------------------------- attach -- */

static int seize_one(struct asmspy_seam *sm, pid_t tid, pid_t tgid) {
  if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(uintptr_t)sm->ptrace_options) != 0) return -errno;
  struct seam_task *t = task_add(sm, tid, tgid);
  if (!t) return -ENOMEM;
  if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0 && errno != ESRCH) return -errno;
  return 0;
}

/* Seize every thread of pid; loop until a listing pass finds nothing new
 * (threads may be born while we seize, before TRACECLONE covers them). */
static int seize_all_threads(struct asmspy_seam *sm, pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  for (int pass = 0; pass < 64; pass++) {
    DIR *d = opendir(path);
    if (!d) return -ESRCH;
    int added = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
      pid_t tid = (pid_t)atoi(de->d_name);
      if (tid <= 0 || task_find(sm, tid)) continue;
      int rc = seize_one(sm, tid, pid);
      /* a thread that exited meanwhile: gone (ESRCH), or a zombie not yet
       * released, which PTRACE_SEIZE refuses with EPERM (its exit_state) */
      if ((rc == -ESRCH || rc == -EPERM) && tid != pid && thread_has_exited(pid, tid)) continue;
      if (rc == -EPERM && tid != pid && tracer_pid_of(tid) == getpid()) {
        /* born meanwhile from a thread seized already: TRACECLONE made it
         * ours (its clone event is still queued); its first stop comes */
        if (!task_add(sm, tid, pid))
          rc = -ENOMEM;
        else
          rc = 0;
      }
      if (rc) {
        closedir(d);
        return rc;
      }
      added++;
    }
    closedir(d);
    if (!added) return 0;
  }
  return 0;
}

/* Wait until every seized task has reported a stop. Stops other than our
 * interrupt (a signal arriving first, a clone) are kept as queued stops so
 * the backend sees them; the interrupt then fires later as a GROUP stop. */
static int wait_all_stopped(struct asmspy_seam *sm) {
  for (;;) {
    size_t running = 0;
    for (size_t i = 0; i < sm->ntasks; i++) running += sm->tasks[i].state == TASK_RUNNING;
    if (!running) return 0;
    int status;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      return 0; /* ECHILD: nothing left */
    }
    struct seam_task *t = task_find(sm, tid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      launch_reaped(tid, status); /* --launch exits with it */
      if (t) task_remove(sm, tid);
      continue;
    }
    if (!t) t = task_add(sm, tid, tgid_of(tid)); /* auto-attached clone */
    if (!t) return -ENOMEM;
    t->state = TASK_STOPPED;
    int sig = WSTOPSIG(status), event = status >> 16;
    struct asmspy_stop st;
    if (event == PTRACE_EVENT_STOP) {
      note_group_stop(sm, t, sig); /* seized while job-control stopped? */
      stop_init(&st, ASMSPY_STOP_GROUP, t);
    } else if (event == PTRACE_EVENT_CLONE) {
      unsigned long msg = 0;
      ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
      task_add_born(sm, (pid_t)msg, t->tgid);
      stop_init(&st, ASMSPY_STOP_GROUP, t);
    } else if (event) {
      stop_init(&st, ASMSPY_STOP_GROUP, t);
    } else {
      stop_init(&st, ASMSPY_STOP_SIGNAL, t);
      st.sig = sig;
      t->pending_sig = sig;
    }
    queue_push(sm, &st);
  }
}

/* --launch: the child was forked and stopped itself before exec. Let it run
 * to its PTRACE_EVENT_EXEC stop, so tracing starts at the new program's very
 * first instruction, not inside our fork glue. */
static int run_to_exec(struct asmspy_seam *sm, pid_t pid) {
  kill(pid, SIGCONT);
  for (;;) {
    int status;
    if (waitpid(pid, &status, __WALL) < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) return -ESRCH;
    int sig = WSTOPSIG(status), event = status >> 16;
    if (event == PTRACE_EVENT_EXEC) {
      struct seam_task *t = task_find(sm, pid);
      if (t->target) target_reload_symbols(t->target);
      t->state = TASK_STOPPED;
      t->toggle_nr = SYS_execve;
      t->in_syscall = 1;
      struct asmspy_stop st;
      stop_init(&st, ASMSPY_STOP_GROUP, t);
      queue_push(sm, &st);
      return 0;
    }
    int deliver = (event || sig == SIGSTOP || sig == SIGTRAP) ? 0 : sig;
    ptrace(PTRACE_CONT, pid, 0, (void *)(uintptr_t)deliver);
  }
}

static void trap_guard_arm(struct asmspy_seam *sm, pid_t tgid);
static int run_to_entry(pid_t pid);

static int seam_attach(const struct asmspy_session *s, struct asmspy_seam **out) {
  struct asmspy_seam *sm = calloc(1, sizeof *sm);
  if (!sm) return -ASMSPY_E_NOMEM;
  sm->session = s;
  sm->fd_unseen = s->tid != 0;
  fdinfo_cache_forget_all(); /* a pid seen by an earlier session may be reused */
  sm->ptrace_options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC;
  if (!s->tid) sm->ptrace_options |= PTRACE_O_TRACECLONE;
  if (s->flags & ASMSPY_SESS_FOLLOW) sm->ptrace_options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
  if (s->flags & ASMSPY_SESS_LAUNCHED) sm->ptrace_options |= PTRACE_O_EXITKILL;
  proc_add(sm, s->pid, s->target, 0);

  int rc;
  if (s->flags & ASMSPY_SESS_LAUNCHED) {
    if (ptrace(PTRACE_SEIZE, s->pid, 0, (void *)(uintptr_t)sm->ptrace_options) != 0) {
      rc = -errno;
    } else {
      task_add(sm, s->pid, s->pid);
      rc = run_to_exec(sm, s->pid);
      /* 1.9: on through ld.so to the entry point, still stopped there */
      if (!rc && (s->flags & ASMSPY_SESS_TO_ENTRY) && run_to_entry(s->pid) == 0) {
        struct seam_task *t = task_find(sm, s->pid);
        if (t && t->target) target_reload_symbols(t->target);
        if (t) t->in_syscall = 0;
      }
    }
  } else if (s->tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d", (int)s->pid, (int)s->tid);
    if (access(path, F_OK) != 0) {
      free(sm->procs);
      free(sm);
      return -ASMSPY_E_ATTACH_GONE;
    }
    rc = seize_one(sm, s->tid, s->pid);
    if (!rc) rc = wait_all_stopped(sm);
  } else {
    rc = seize_all_threads(sm, s->pid);
    if (!rc) rc = wait_all_stopped(sm);
  }
  if (rc) {
    int status = errno_to_status(-rc);
    seam_api.detach(sm);
    return status;
  }
  if (sm->ntasks == 0) {
    seam_api.detach(sm);
    return -ASMSPY_E_ATTACH_GONE;
  }
  if (!(s->flags & ASMSPY_SESS_LAUNCHED)) trap_guard_arm(sm, s->pid);
  seam_cpu_init(&sm->cpu);
  *out = sm;
  return 0;
}

/* ----------------------------------------------------------- registers -- */

/* A thread's general registers, whole: the NT_PRSTATUS regset on every
 * arch (host/arch says what the bytes mean). */
static int regs_get(pid_t tid, struct arch_regs *r) {
  memset(r, 0, sizeof *r);
  struct iovec iov = {r->w, arch_gregs_size};
  return ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) == 0 ? 0 : -errno;
}

static int regs_set(pid_t tid, const struct arch_regs *r) {
  struct iovec iov = {(void *)r->w, arch_gregs_size};
  return ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) == 0 ? 0 : -errno;
}

/* The trap flag the kernel leaves behind. Stepping a popf (or iret) makes
 * the kernel forget that the trap flag is the tracer's (step.c's
 * is_setting_trap_flag clears TIF_FORCED_TF), and every later step then
 * sets TF as if the program had; and a pushf stepped by us pushes TF, which
 * the program's popf later puts back. Either way the thread may carry TF
 * when nobody steps it any more (after a resume that does not step, or the
 * detach): the next instruction traps and the program receives a SIGTRAP it
 * never asked for (Go's runtime.asyncPreempt is pushf ... popf: every Go
 * program died in the first session of any stepping mode, issue 24).
 * So a thread that did not have TF set itself when we first met it, and
 * that we have stepped, has a TF still visible in its flags cleared
 * whenever stepping ends (ptrace's set_flags with TF clear), and a trace
 * trap it takes with no step of ours armed is ours (tf_phantom). */
static void learn_own_tf(struct seam_task *t) {
  if (t->tf_known) return;
  struct arch_regs r;
  t->tf_known = 1;
  t->own_tf = regs_get(t->tid, &r) == 0 && arch_own_trap_flag(&r);
}

static void end_stepping(struct seam_task *t) {
  if (!t->ever_stepped || t->own_tf) return;
  struct arch_regs r;
  if (regs_get(t->tid, &r) != 0 || !arch_own_trap_flag(&r)) return;
  arch_clear_trap_flag(&r);
  regs_set(t->tid, &r);
}

/* ------------------------------------------------------ trap ownership -- */

enum trap_owner { TRAP_NOT_OURS = 0, TRAP_OUR_STEP, TRAP_OUR_BREAKPOINT, TRAP_OUR_WATCH };

/* An int3 asmspy planted at ip-1 (live or already restored): put rip back
 * on it. The thread then re-executes whatever byte is there: the int3 again
 * while it is planted (its arrival is held, never lost), the original
 * instruction once it is restored. Returns 1 and the address when it was
 * ours. A target's own int3 (asmspy never planted one there) is left. */
static int rewind_planted_breakpoint(struct seam_task *t, uint64_t *addr) {
  if (!t->target) return 0;
  struct arch_regs r;
  if (regs_get(t->tid, &r) != 0) return 0;
  uint64_t at = arch_break_addr(arch_ip(&r));
  if (!target_planted_breakpoint(t->target, at)) return 0;
  if (at != arch_ip(&r)) {
    arch_set_ip(&r, at);
    if (regs_set(t->tid, &r) != 0) return 0;
  }
  *addr = at;
  return 1;
}

/* Whose SIGTRAP is this (t is stopped in its signal-delivery stop)?
 *   our step:        the step was armed and si_code says a step completed:
 *                    TRAP_TRACE (DR6.BS), TRAP_BRKPT (x86-64's step report at
 *                    syscall exit), SI_USER from pid 0 (AArch64's),
 *                    SIGTRAP=5 (a handler frame was set up);
 *   our breakpoint:  SI_KERNEL (an int3) one byte past an int3 we planted —
 *                    rewound here, *bp_addr says where;
 *   our watchpoint:  TRAP_HWBKPT in a thread whose debug registers we wrote.
 * Anything else is the target's own (its int3, a raise(SIGTRAP)). */
static enum trap_owner sigtrap_owner(struct seam_task *t, const siginfo_t *si, uint64_t *bp_addr) {
  /* a planted trap first: on AArch64 `brk` raises TRAP_BRKPT, which a step
   * report also uses (x86-64's int3 is SI_KERNEL, no step's code) */
  if (si->si_code == arch_break_si_code && rewind_planted_breakpoint(t, bp_addr)) {
    if (t->step_armed) t->step_owed = 0;
    return TRAP_OUR_BREAKPOINT;
  }
  /* the kernel's generic user_single_step_report (AArch64: the step report
   * at a syscall exit) sends SI_USER from pid 0, which no process can */
  int kernel_step_report = si->si_code == SI_USER && si->si_pid == 0;
  if ((t->step_armed || t->step_owed) && (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT ||
                                          si->si_code == SIGTRAP || kernel_step_report)) {
    t->step_owed = 0;
    return TRAP_OUR_STEP;
  }
  if (si->si_code == TRAP_HWBKPT && t->hw_armed) return TRAP_OUR_WATCH;
  /* a trace trap with no step armed, in a thread we stepped that never set
   * TF itself: the trap flag the kernel left (end_stepping) */
  if (si->si_code == TRAP_TRACE && t->ever_stepped && !t->own_tf) {
    end_stepping(t);
    return TRAP_OUR_STEP;
  }
  return TRAP_NOT_OURS;
}

static struct seam_proc *proc_find(struct asmspy_seam *sm, pid_t tgid) {
  for (size_t i = 0; i < sm->nprocs; i++)
    if (sm->procs[i].tgid == tgid) return &sm->procs[i];
  return NULL;
}

/* At attach, every thread stopped: when the target catches SIGTRAP, read
 * its action (the syscall injection section at the end says why). */
static void trap_guard_arm(struct asmspy_seam *sm, pid_t tgid) {
  struct seam_proc *p = proc_find(sm, tgid);
  struct seam_task *t = NULL;
  for (size_t i = 0; i < sm->ntasks && !t; i++)
    if (sm->tasks[i].tgid == tgid && sm->tasks[i].state == TASK_STOPPED) t = &sm->tasks[i];
  if (!p || !t || !p->target || !thread_sigmask_has(t->tid, "SigCgt:", SIGTRAP)) return;
  if (!p->syscall_insn) p->syscall_insn = seam_find_syscall_insn(p->target, tgid);
  int owed = 0;
  if (seam_read_sigaction(p->target, t->tid, p->syscall_insn, SIGTRAP, &p->trap_act, &owed) == 0)
    p->trap_act_saved = 1;
  if (owed) t->owed_sig = owed;
  /* Our own injection must never cost the target its handler (it steps
   * with SIGTRAP unblocked for that); should a kernel reset it anyway, put
   * it back now: in a mode that plants no breakpoint nothing else would. */
  if (p->trap_act_saved && !thread_sigmask_has(t->tid, "SigCgt:", SIGTRAP)) {
    owed = 0;
    seam_write_sigaction(p->target, t->tid, p->syscall_insn, SIGTRAP, &p->trap_act, &owed);
    if (owed && !t->owed_sig) t->owed_sig = owed;
  }
}

/* Is t executing the target's own SIGTRAP handler (its ip in the function
 * the saved action names)? Only there was SIGTRAP blocked by the kernel when
 * one of our traps reset the action; anywhere else, blocking it would make
 * the target's next int3 fatal. */
static int thread_in_trap_handler(struct seam_proc *p, struct seam_task *t) {
  struct arch_regs r;
  if (!p->target || !p->trap_act.handler || regs_get(t->tid, &r) != 0) return 0;
  struct asmspy_symbol at, h;
  memset(&at, 0, sizeof at);
  memset(&h, 0, sizeof h);
  ASMSPY_INIT_HEADER(&at);
  ASMSPY_INIT_HEADER(&h);
  if (target_symbolize(p->target, arch_ip(&r), &at) != 0 ||
      target_symbolize(p->target, p->trap_act.handler, &h) != 0)
    return 0;
  return at.kind != ASMSPY_SYM_UNKNOWN && h.kind != ASMSPY_SYM_UNKNOWN && at.start == h.start;
}

/* After one of our traps (breakpoint, watchpoint) in t: if the target
 * caught SIGTRAP at attach and no longer does, a trap landed where SIGTRAP
 * was blocked and the kernel reset the handler (and unblocked SIGTRAP in
 * that thread). Put the action back; block SIGTRAP again only when t is
 * inside that handler — the reset may have come from another thread, and
 * main-line code with SIGTRAP blocked dies at its next int3 (issue 24).
 * Returns ASMSPY_STOPF_IN_TRAP_HANDLER then. */
static uint32_t trap_guard_check(struct asmspy_seam *sm, struct seam_task *t) {
  struct seam_proc *p = proc_find(sm, t->tgid);
  if (t->group_stopped) return 0; /* no injection from a group-stop */
  if (!p || !p->trap_act_saved || thread_sigmask_has(t->tid, "SigCgt:", SIGTRAP)) return 0;
  int owed = 0;
  int rc = seam_write_sigaction(p->target, t->tid, p->syscall_insn, SIGTRAP, &p->trap_act, &owed);
  if (owed) t->owed_sig = owed;
  uint64_t mask = 0;
  if (thread_in_trap_handler(p, t) &&
      ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof mask, &mask) == 0) {
    mask |= 1ull << (SIGTRAP - 1);
    ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof mask, &mask);
  }
  if (sm->session && sm->session->out)
    out_note(sm->session->out, ASMSPY_NOTE_WARN,
             "tid %d took one of asmspy's traps with SIGTRAP blocked (inside the target's own "
             "SIGTRAP handler): the kernel reset that handler to SIG_DFL; %s",
             (int)t->tid,
             rc == 0 ? "asmspy put the handler and the signal mask back"
                     : "asmspy could NOT put the handler back (the target's next int3 will kill "
                       "it)");
  return ASMSPY_STOPF_IN_TRAP_HANDLER;
}

/* ------------------------------------------------------------ next_stop -- */

/* ASMSPY_DEBUG_STOPS=1 traces every classified stop to stderr. */
static void debug_stop(const struct asmspy_stop *st, int status) {
  static int enabled = -1;
  if (enabled < 0) enabled = getenv("ASMSPY_DEBUG_STOPS") != NULL;
  if (!enabled) return;
  static const char *kinds[] = {"?",      "STEP",  "SIGNAL",      "SYSCALL", "NEW_TASK",   "EXEC",
                                "EXITED", "GROUP", "TARGET_TRAP", "NONE",    "INTERRUPTED"};
  fprintf(stderr, "[seam] tid %d %s sig %d si_code %d status 0x%x\n", st->tid,
          st->kind < sizeof kinds / sizeof *kinds ? kinds[st->kind] : "?", st->sig, st->si_code,
          status);
}

/* A SIGTRAP that is no ptrace event: our step, our breakpoint or
 * watchpoint, or the target's own (an int3 it ran, SI_KERNEL: TARGET_TRAP;
 * anything else: a signal), which is kept to be delivered at resume. */
static void sigtrap_stop(struct asmspy_seam *sm, struct seam_task *t, pid_t tid,
                         struct asmspy_stop *stop) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) != 0) si.si_code = 0;
  uint64_t bp = 0;
  enum trap_owner owner = sigtrap_owner(t, &si, &bp);
  stop->si_code = si.si_code;
  if (owner == TRAP_OUR_STEP) {
    stop->kind = ASMSPY_STOP_STEP;
  } else if (owner == TRAP_OUR_BREAKPOINT) {
    stop->kind = ASMSPY_STOP_BREAKPOINT;
    stop->addr = bp;
    stop->flags = trap_guard_check(sm, t);
  } else if (owner == TRAP_OUR_WATCH) {
    stop->kind = ASMSPY_STOP_WATCH;
    stop->flags = trap_guard_check(sm, t);
  } else if (si.si_code == SI_KERNEL) {
    memcpy(stop->siginfo, &si, sizeof stop->siginfo); /* 1.12 */
    stop->flags |= ASMSPY_STOPF_SIGINFO;
    stop->kind = ASMSPY_STOP_TARGET_TRAP;
    stop->sig = SIGTRAP;
    t->pending_sig = SIGTRAP;
  } else {
    memcpy(stop->siginfo, &si, sizeof stop->siginfo); /* 1.12 */
    stop->flags |= ASMSPY_STOPF_SIGINFO;
    stop->kind = ASMSPY_STOP_SIGNAL;
    stop->sig = SIGTRAP;
    t->pending_sig = SIGTRAP;
  }
}

/* Any other signal-delivery stop: reported with its whole siginfo, and
 * kept to be delivered at resume. */
static void signal_stop(struct seam_task *t, pid_t tid, int sig, struct asmspy_stop *stop) {
  siginfo_t si;
  if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0) {
    stop->si_code = si.si_code;
    _Static_assert(sizeof si == sizeof stop->siginfo, "siginfo_t is 128 bytes");
    memcpy(stop->siginfo, &si, sizeof stop->siginfo); /* 1.12: the whole siginfo */
    stop->flags |= ASMSPY_STOPF_SIGINFO;
  }
  stop->kind = ASMSPY_STOP_SIGNAL;
  stop->sig = sig;
  t->pending_sig = sig;
}

static int seam_next_stop_impl(struct asmspy_seam *sm, struct asmspy_stop *stop, int *raw);

static int seam_next_stop(struct asmspy_seam *sm, struct asmspy_stop *stop) {
  /* Fill a host-sized stop, hand back only what the caller's struct holds:
   * a backend built against an older, smaller asmspy_stop is never written
   * past its struct_size. */
  uint32_t caller_size = stop->struct_size;
  struct asmspy_stop full;
  int raw = -1;
  int rc = seam_next_stop_impl(sm, &full, &raw);
  if (rc == 0) debug_stop(&full, raw);
  if (rc == 0 && full.tid > 0 && full.kind != ASMSPY_STOP_EXITED)
    seam_cpu_stop(&sm->cpu, full.pid, full.tid);
  size_t n = caller_size < sizeof full ? caller_size : sizeof full;
  full.struct_size = (uint32_t)n;
  memcpy(stop, &full, n);
  return rc;
}

/* The oldest queued stop still true; 1 when *stop holds one. */
static int pop_queued_stop(struct asmspy_seam *sm, struct asmspy_stop *stop) {
  while (sm->qhead != sm->qtail) {
    *stop = sm->queue[sm->qhead++ % STOP_QUEUE_MAX];
    struct seam_task *t = task_find(sm, stop->tid);
    stop->nthreads = (uint32_t)sm->ntasks;
    /* A queued stop is only true while its task is still sitting in it. A
     * task resumed since (resume_all) may already be stopped again in a
     * newer, not yet reaped stop: answering the stale one would make the
     * caller resume it blindly and swallow that newer stop's signal. */
    if (t && t->state == TASK_STOPPED && !t->resumed_since_queue) return 1;
  }
  return 0;
}

/* One waitpid over the traced tasks. With a deadline it does not block:
 * 0 back means nothing yet (poll again) or, with *timed_out set, the
 * deadline passed. The polls back off from 4 us to 1 ms: a backend that
 * waits with a deadline while its target stops often (codecache: a
 * request per new block) must not pay a millisecond per stop. */
static pid_t seam_wait(struct asmspy_seam *sm, int *status, int *timed_out) {
  *timed_out = 0;
  if (!sm->deadline_ns) return waitpid(sm->child ? sm->child : -1, status, __WALL);
  pid_t tid = waitpid(sm->child ? sm->child : -1, status, __WALL | WNOHANG);
  if (tid == 0) {
    if (now_ns() >= sm->deadline_ns) {
      *timed_out = 1;
      return 0;
    }
    sm->poll_ns = sm->poll_ns ? sm->poll_ns * 2 : 4000;
    if (sm->poll_ns > 1000000) sm->poll_ns = 1000000;
    struct timespec ts = {0, sm->poll_ns};
    nanosleep(&ts, NULL);
  } else {
    sm->poll_ns = 0;
  }
  return tid;
}

/* An exit or a death reaped: 1 when *stop reports it, 0 when the task was
 * not ours yet (its birth event may still come). */
static int reaped_stop(struct asmspy_seam *sm, struct seam_task *t, pid_t tid, int status,
                       struct asmspy_stop *stop) {
  launch_reaped(tid, status); /* --launch exits with it */
  if (!t) {
    sm->gone[sm->ngone++ % 64] = tid; /* its birth event may still come */
    return 0;
  }
  if (WIFSIGNALED(status)) note_killed(sm, t, WTERMSIG(status));
  fdinfo_cache_forget_all(); /* its pid may be reused */
  stop_init(stop, ASMSPY_STOP_EXITED, t);
  stop->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  task_remove(sm, tid);
  stop->nthreads = (uint32_t)sm->ntasks;
  return 1;
}

/* PTRACE_EVENT_CLONE/FORK/VFORK: adopt the new task (and, for a process,
 * its target) and report it. */
static void new_task_stop(struct asmspy_seam *sm, struct seam_task *t, pid_t tid, int event,
                          struct asmspy_stop *stop) {
  unsigned long msg = 0;
  ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
  pid_t child = (pid_t)msg;
  int is_process = event != PTRACE_EVENT_CLONE;
  if (is_process && !proc_target(sm, child)) {
    int err = 0;
    struct asmspy_target *ct = target_open(child, &err);
    if (ct) proc_add(sm, child, ct, 1);
  }
  struct seam_task *ctask = task_add_born(sm, child, is_process ? child : t->tgid);
  if (ctask && !ctask->target) ctask->target = proc_target(sm, ctask->tgid);
  t = task_find(sm, tid); /* task_add may have moved the array */
  stop_init(stop, ASMSPY_STOP_NEW_TASK, t);
  stop->new_tid = child;
  stop->is_process = (uint32_t)is_process;
}

/* PTRACE_EVENT_EXEC: drop the threads exec killed, reload symbols. */
static void exec_stop(struct asmspy_seam *sm, struct seam_task *t, pid_t tid,
                      struct asmspy_stop *stop) {
  unsigned long former = 0;
  ptrace(PTRACE_GETEVENTMSG, tid, 0, &former);
  /* exec in a multi-threaded process kills every other thread; the
   * leader takes over (former may be a different tid) */
  for (size_t i = 0; i < sm->ntasks;) {
    if (sm->tasks[i].tgid == t->tgid && sm->tasks[i].tid != tid) {
      sm->tasks[i] = sm->tasks[--sm->ntasks];
      continue;
    }
    i++;
  }
  t = task_find(sm, tid);
  if (t->target) target_reload_symbols(t->target);
  struct seam_proc *p = proc_find(sm, t->tgid);
  if (p) p->syscall_insn = 0; /* it was in the old image: inject_syscall looks again */
  fdinfo_cache_forget_all();  /* O_CLOEXEC fds are gone */
  t->toggle_nr = SYS_execve;  /* the exit stop still to come is execve's */
  t->in_syscall = 1;
  stop_init(stop, ASMSPY_STOP_EXEC, t);
}

static int seam_next_stop_impl(struct asmspy_seam *sm, struct asmspy_stop *stop, int *raw) {
  if (pop_queued_stop(sm, stop)) return 0;
  for (;;) {
    if (sm->session && sm->session->stop && *sm->session->stop) {
      stop_init(stop, ASMSPY_STOP_INTERRUPTED, NULL);
      return 0;
    }
    if (sm->ntasks == 0) {
      stop_init(stop, ASMSPY_STOP_NONE, NULL);
      return 0;
    }
    int status, timed_out;
    pid_t tid = seam_wait(sm, &status, &timed_out);
    if (timed_out) {
      stop_init(stop, ASMSPY_STOP_TIMEOUT, NULL);
      return 0;
    }
    if (tid == 0 && sm->deadline_ns) continue; /* nothing yet: poll again */
    *raw = status;
    if (tid < 0) {
      if (errno == EINTR) continue;
      sm->ntasks = 0; /* ECHILD: every task is gone */
      stop_init(stop, ASMSPY_STOP_NONE, NULL);
      return 0;
    }
    struct seam_task *t = task_find(sm, tid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (reaped_stop(sm, t, tid, status, stop)) return 0;
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    if (!t) { /* a new task whose first stop beat its parent's clone event */
      t = task_add(sm, tid, tgid_of(tid));
      if (!t) continue;
    }
    t->state = TASK_STOPPED;
    int armed = t->step_armed;
    int sig = WSTOPSIG(status), event = status >> 16;
    t->pending_sig = 0;
    stop_init(stop, ASMSPY_STOP_GROUP, t);

    if (sig == (SIGTRAP | 0x80)) {
      stop->kind = ASMSPY_STOP_SYSCALL;
    } else if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
               event == PTRACE_EVENT_VFORK) {
      new_task_stop(sm, t, tid, event, stop);
      t = task_find(sm, tid); /* task_add may have moved the array */
    } else if (event == PTRACE_EVENT_EXEC) {
      exec_stop(sm, t, tid, stop);
      t = task_find(sm, tid);
    } else if (event == PTRACE_EVENT_STOP) {
      /* a job-control group-stop (the stop signal) or our interrupt /
       * a LISTEN wake-up after SIGCONT (SIGTRAP) */
      note_group_stop(sm, t, sig);
      stop->kind = ASMSPY_STOP_GROUP;
      if (is_stop_signal(sig)) stop->group_sig = sig; /* 1.12: strace's "stopped by" */
    } else if (event) {
      stop->kind = ASMSPY_STOP_GROUP;
    } else if (sig == SIGTRAP && t->step_plain) {
      stop->kind = ASMSPY_STOP_STEP; /* see step_plain() in plugin.h */
      stop->si_code = TRAP_TRACE;
    } else if (sig == SIGTRAP) {
      sigtrap_stop(sm, t, tid, stop);
    } else {
      signal_stop(t, tid, sig, stop);
    }
    if (armed && stop->kind != ASMSPY_STOP_STEP) t->step_owed = 1;
    t->step_armed = 0;
    t->step_plain = 0;
    stop->nthreads = (uint32_t)sm->ntasks;
    return 0;
  }
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int seam_next_stop_timeout(struct asmspy_seam *sm, struct asmspy_stop *stop,
                                  int64_t timeout_ms) {
  sm->deadline_ns = timeout_ms > 0 ? now_ns() + timeout_ms * 1000000 : 0;
  int rc = seam_next_stop(sm, stop);
  sm->deadline_ns = 0;
  return rc;
}

static int seam_set_ip(struct asmspy_seam *sm, pid_t tid, uint64_t ip) {
  (void)sm;
  struct arch_regs r;
  int rc = regs_get(tid, &r);
  if (rc) return rc;
  arch_set_ip(&r, ip);
  return regs_set(tid, &r);
}

static int seam_interrupt_all(struct asmspy_seam *sm, pid_t except) {
  for (size_t i = 0; i < sm->ntasks; i++)
    if (sm->tasks[i].tid != except && sm->tasks[i].state == TASK_RUNNING)
      ptrace(PTRACE_INTERRUPT, sm->tasks[i].tid, 0, 0);
  return 0;
}

/* ------------------------------------------------------ debug registers -- */
/* hwwatch's window into the tracee's struct user and regsets. Kept
 * arch-neutral: the plugin computes offsets / note types for its arch. */

static int seam_peek_user(struct asmspy_seam *sm, pid_t tid, uint64_t offset, uint64_t *value) {
  if (!task_find(sm, tid)) return -ESRCH;
  errno = 0;
  long v = ptrace(PTRACE_PEEKUSER, tid, (void *)(uintptr_t)offset, 0);
  if (errno != 0) return -errno;
  *value = (uint64_t)v;
  return 0;
}

static int seam_poke_user(struct asmspy_seam *sm, pid_t tid, uint64_t offset, uint64_t value) {
  struct seam_task *t = task_find(sm, tid);
  if (!t) return -ESRCH;
  t->hw_armed = 1; /* hwwatch's debug registers: TRAP_HWBKPT is ours from now on */
  if (ptrace(PTRACE_POKEUSER, tid, (void *)(uintptr_t)offset, (void *)(uintptr_t)value) != 0)
    return -errno;
  return 0;
}

static int seam_get_regset(struct asmspy_seam *sm, pid_t tid, uint32_t nt, void *buf, size_t *len) {
  if (!task_find(sm, tid)) return -ESRCH;
  struct iovec iov = {buf, *len};
  if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)nt, &iov) != 0) return -errno;
  *len = iov.iov_len;
  return 0;
}

int seam_read_regset(pid_t tid, uint32_t nt, void *buf, size_t *len) {
  struct iovec iov = {buf, *len};
  if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)nt, &iov) != 0) return -errno;
  *len = iov.iov_len;
  return 0;
}

static int seam_set_regset(struct asmspy_seam *sm, pid_t tid, uint32_t nt, const void *buf,
                           size_t len) {
  struct seam_task *t = task_find(sm, tid);
  if (!t) return -ESRCH;
  t->hw_armed = 1; /* NT_ARM_HW_WATCH and friends: TRAP_HWBKPT is ours */
  struct iovec iov = {(void *)buf, len};
  if (ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)nt, &iov) != 0) return -errno;
  return 0;
}

static uint32_t seam_list_threads(struct asmspy_seam *sm, pid_t *tids, uint32_t cap) {
  uint32_t n = 0;
  for (size_t i = 0; i < sm->ntasks && n < cap; i++) tids[n++] = sm->tasks[i].tid;
  return n;
}

/* --------------------------------------------------------------- resume -- */

static int do_resume(struct asmspy_seam *sm, pid_t tid, int request, int sig) {
  struct seam_task *t = task_find(sm, tid);
  if (!t) return -ESRCH;
  if (!sig && t->owed_sig) sig = t->owed_sig;
  t->owed_sig = 0;
  if (t->group_stopped) {
    /* job-control stopped: stay stopped, but keep reporting (SIGCONT, a
     * PTRACE_INTERRUPT). A signal cannot be injected here: keep it owed. */
    t->owed_sig = sig;
    request = PTRACE_LISTEN;
    sig = 0;
  }
  learn_own_tf(t);
  if (request == PTRACE_SINGLESTEP)
    t->ever_stepped = 1;
  else
    end_stepping(t);
  if (ptrace(request, tid, 0, (void *)(uintptr_t)sig) != 0) return -errno;
  t->state = TASK_RUNNING;
  t->resumed_since_queue = 1;
  t->step_armed = request == PTRACE_SINGLESTEP;
  t->step_plain = 0;
  t->pending_sig = 0;
  return 0;
}

static int seam_step_plain(struct asmspy_seam *sm, pid_t tid) {
  int rc = do_resume(sm, tid, PTRACE_SINGLESTEP, 0);
  if (rc == 0) task_find(sm, tid)->step_plain = 1;
  return rc;
}

static int seam_step(struct asmspy_seam *sm, pid_t tid, int sig) {
  return do_resume(sm, tid, PTRACE_SINGLESTEP, sig);
}
static int seam_resume(struct asmspy_seam *sm, pid_t tid, int sig) {
  return do_resume(sm, tid, PTRACE_CONT, sig);
}
static int seam_resume_syscall(struct asmspy_seam *sm, pid_t tid, int sig) {
  return do_resume(sm, tid, PTRACE_SYSCALL, sig);
}

static int seam_resume_all(struct asmspy_seam *sm, int how_step) {
  for (size_t i = 0; i < sm->ntasks; i++) {
    struct seam_task *t = &sm->tasks[i];
    if (t->state != TASK_STOPPED) continue;
    do_resume(sm, t->tid, how_step ? PTRACE_SINGLESTEP : PTRACE_CONT, t->pending_sig);
  }
  return 0;
}

static int seam_get_regs(struct asmspy_seam *sm, pid_t tid, struct asmspy_regs *regs) {
  (void)sm;
  struct arch_regs r;
  int rc = regs_get(tid, &r);
  if (rc) return rc;
  size_t want = regs->struct_size;
  struct asmspy_regs tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.abi_version = regs->abi_version;
  tmp.struct_size = regs->struct_size;
  arch_export(&r, &tmp);
  memcpy(regs, &tmp, want < sizeof tmp ? want : sizeof tmp);
  return 0;
}

static uint32_t seam_thread_count(struct asmspy_seam *sm) { return (uint32_t)sm->ntasks; }

/* PTRACE_GET_SYSCALL_INFO (Linux 5.3) says entry or exit by itself, so
 * seizing a thread mid-syscall cannot desync the pairing. Older kernels (or
 * ASMSPY_NO_SYSCALL_INFO=1, which tests use to cover this path) get the
 * strace-classic toggle: stops alternate entry/exit per thread. */
static int syscall_info_supported = -1;

/* The fd description cache (fdinfo.h) at a syscall stop, before the event
 * reaches the view: an exit of anything that may change an fd table
 * flushes it (so the view's describe_fd at this exit, e.g. open's returned
 * fd, and at every later stop reads the new link). A clone sharing the fd
 * table with a new process (CLONE_FILES without CLONE_THREAD) makes every
 * stop flush from then on: that process may be untraced. */
static void fd_cache_stop(struct asmspy_seam *sm, struct seam_task *t,
                          const struct asmspy_syscall_info *info) {
  if (sm->fd_unseen) {
    fdinfo_cache_forget_all();
    return;
  }
  if (info->op != ASMSPY_SYSCALL_EXIT) return;
  fdinfo_cache_syscall_exit(info->nr, t->entry_args, info->rval);
  if (info->is_error || (info->nr != SYS_clone
#ifdef SYS_clone3
                         && info->nr != SYS_clone3
#endif
                         ))
    return;
  uint64_t flags = t->entry_args[0]; /* clone(flags, ...) */
  if (info->nr != SYS_clone &&
      (!t->target ||
       target_read_mem(t->target, t->entry_args[0], &flags, sizeof flags) != (ssize_t)sizeof flags))
    flags = CLONE_FILES; /* clone3's clone_args unreadable: assume the worst */
  if ((flags & CLONE_FILES) && !(flags & CLONE_THREAD)) sm->fd_unseen = 1;
}

static int seam_syscall_info(struct asmspy_seam *sm, pid_t tid, struct asmspy_syscall_info *out) {
  struct seam_task *t = task_find(sm, tid);
  if (!t) return -ESRCH;
  struct asmspy_syscall_info info;
  memset(&info, 0, sizeof info);
  ASMSPY_INIT_HEADER(&info);
  if (syscall_info_supported < 0) syscall_info_supported = getenv("ASMSPY_NO_SYSCALL_INFO") ? 0 : 1;
#if defined(PTRACE_GET_SYSCALL_INFO)
  if (syscall_info_supported) {
    struct __ptrace_syscall_info k;
    memset(&k, 0, sizeof k);
    long n = ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof k, &k);
    if (n < 0 && (errno == EIO || errno == EINVAL)) {
      syscall_info_supported = 0; /* kernel too old: fall back below */
    } else if (n < 0) {
      return -errno;
    } else {
      info.ip = k.instruction_pointer;
      info.sp = k.stack_pointer;
      if (k.op == PTRACE_SYSCALL_INFO_ENTRY || k.op == PTRACE_SYSCALL_INFO_SECCOMP) {
        info.op = ASMSPY_SYSCALL_ENTRY;
        info.nr = (int64_t)k.entry.nr;
        memcpy(info.args, k.entry.args, sizeof info.args);
        t->toggle_nr = info.nr;
        memcpy(t->entry_args, info.args, sizeof t->entry_args);
      } else if (k.op == PTRACE_SYSCALL_INFO_EXIT) {
        info.op = ASMSPY_SYSCALL_EXIT;
        info.rval = k.exit.rval;
        info.is_error = k.exit.is_error;
        info.nr = t->toggle_nr;
      }
      goto done;
    }
  }
#endif
  {
    struct arch_regs r;
    int rc = regs_get(tid, &r);
    if (rc) return rc;
    info.from_toggle = 1;
    info.ip = arch_ip(&r);
    info.sp = arch_sp(&r);
    /* x86-64's rax == -ENOSYS marks an entry stop (the kernel presets it),
     * which re-synchronises the toggle when we attached mid-syscall. */
    int hint = 0;
    int64_t nr = 0, rval = 0;
    uint64_t args[6];
    arch_syscall_regs(&r, &hint, &nr, args, &rval);
    int entry = !t->in_syscall || hint;
    t->in_syscall = entry;
    if (entry) {
      info.op = ASMSPY_SYSCALL_ENTRY;
      info.nr = nr;
      memcpy(info.args, args, sizeof info.args);
      t->toggle_nr = info.nr;
      memcpy(t->entry_args, info.args, sizeof t->entry_args);
    } else {
      info.op = ASMSPY_SYSCALL_EXIT;
      info.nr = t->toggle_nr;
      info.rval = rval;
      info.is_error = info.rval < 0 && info.rval >= -4095;
    }
  }
  goto done;
done:
  fd_cache_stop(sm, t, &info);
  uint32_t caller = out->struct_size;
  size_t n = caller < sizeof info ? caller : sizeof info;
  info.struct_size = (uint32_t)n;
  memcpy(out, &info, n);
  return 0;
}

/* --------------------------------------------------------------- detach -- */

/* How long the detach waits for every thread to report its stop, and for
 * one thread to settle before its release is retried. A thread that does
 * not stop in that time (stuck in D state) is released when asmspy exits:
 * the kernel detaches every tracee of an exiting tracer. */
#define DETACH_WAIT_MS 3000

/* Is tid still a task traced by us (alive, TracerPid == our pid)? */
static int still_traced_by_us(pid_t tid) { return tracer_pid_of(tid) == getpid(); }

/* Fold one wait status into the detach: a stop is recorded (with the
 * signal owed, unless the SIGTRAP is ours: a step, our int3 — rewound —, a
 * watchpoint hit), an exit removes the task. */
static void detach_fold_status(struct asmspy_seam *sm, pid_t tid, int status) {
  struct seam_task *t = task_find(sm, tid);
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    launch_reaped(tid, status); /* --launch exits with it */
    if (t && WIFSIGNALED(status)) note_killed(sm, t, WTERMSIG(status));
    if (t) task_remove(sm, tid);
    return;
  }
  if (!WIFSTOPPED(status)) return;
  if (!t) { /* a clone born during detach: it is attached, so release it too */
    t = task_add(sm, tid, tgid_of(tid));
    if (!t) return;
  }
  int sig = WSTOPSIG(status), event = status >> 16;
  t->state = TASK_STOPPED;
  if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
    task_add_born(sm, (pid_t)msg, event == PTRACE_EVENT_CLONE ? t->tgid : (pid_t)msg);
    return;
  }
  if (event == PTRACE_EVENT_STOP) {
    t->group_stopped = is_stop_signal(sig); /* detach leaves a group-stop in place */
    return;
  }
  if (event || sig == (SIGTRAP | 0x80)) return;
  if (sig == SIGTRAP) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    uint64_t bp = 0;
    if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 &&
        sigtrap_owner(t, &si, &bp) != TRAP_NOT_OURS) {
      t->step_armed = 0;
      return; /* ours: swallowed (an int3 of ours is rewound onto its byte) */
    }
  }
  t->step_armed = 0;
  t->pending_sig = sig; /* a real signal: hand it back at detach */
}

/* waitpid(pid, __WALL) polled every millisecond until deadline_ns: the
 * pid reaped (> 0), 0 when the deadline passed, -1 with errno (ECHILD). */
static pid_t wait_until(pid_t pid, int *status, int64_t deadline_ns) {
  for (;;) {
    pid_t w = waitpid(pid, status, __WALL | WNOHANG);
    if (w > 0 || (w < 0 && errno != EINTR)) return w;
    if (w == 0 && now_ns() >= deadline_ns) return 0;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

/* Wait (bounded by deadline_ns) for one status of any task and fold it in.
 * Returns 0 when the deadline passed with nothing to reap. */
static int detach_collect_one(struct asmspy_seam *sm, int64_t deadline_ns) {
  int status;
  pid_t tid = wait_until(-1, &status, deadline_ns);
  if (tid == 0) return 0;
  if (tid > 0)
    detach_fold_status(sm, tid, status);
  else /* ECHILD: every task is gone */
    while (sm->ntasks) task_remove(sm, sm->tasks[0].tid);
  return 1;
}

/* Phase 2 for one stopped thread: a SIGTRAP still queued in its private
 * pending set (a step that completed across a blocking syscall, our int3
 * or watchpoint hit whose stop never came) is dequeued — that happens
 * before any user instruction runs — and swallowed when it is ours. */
static void detach_drain_trap(struct seam_task *t) {
  end_stepping(t);
  for (int tries = 0; tries < 4 && !t->group_stopped && thread_signal_pending(t->tid, SIGTRAP);
       tries++) {
    int owed = t->pending_sig;
    if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(uintptr_t)owed) != 0) break;
    int status;
    pid_t w = wait_until(t->tid, &status, now_ns() + (int64_t)DETACH_WAIT_MS * 1000000);
    if (w != t->tid || !WIFSTOPPED(status)) break;
    int sig = WSTOPSIG(status);
    t->pending_sig = 0;
    if (sig == SIGTRAP && !(status >> 16)) {
      siginfo_t si;
      memset(&si, 0, sizeof si);
      uint64_t bp = 0;
      t->step_armed = 1; /* a queued step trap is ours even though no step is armed now */
      if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0 ||
          sigtrap_owner(t, &si, &bp) == TRAP_NOT_OURS)
        t->pending_sig = SIGTRAP; /* the target's own: deliver it */
      t->step_armed = 0;
    } else if (!(status >> 16)) {
      t->pending_sig = sig;
    }
  }
}

/* Is the SIGTRAP queued in t's private set asmspy's, by the rules the
 * detach applies (detach_drain_trap)? Read in place (PTRACE_PEEKSIGINFO),
 * nothing dequeued or rewound: a step report (a step was armed before the
 * stop came), an int3 of ours just behind ip, a debug-register hit in a
 * thread whose registers we wrote. */
static int queued_trap_is_ours(struct seam_task *t) {
  siginfo_t q[32];
  struct __ptrace_peeksiginfo_args a = {.off = 0, .flags = 0, .nr = 32};
  long n = ptrace(PTRACE_PEEKSIGINFO, t->tid, &a, q);
  for (long i = 0; i < n; i++) {
    const siginfo_t *si = &q[i];
    if (si->si_signo != SIGTRAP) continue;
    struct arch_regs r;
    if (si->si_code == arch_break_si_code && t->target && regs_get(t->tid, &r) == 0 &&
        target_planted_breakpoint(t->target, arch_break_addr(arch_ip(&r))))
      return 1;
    if (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT || si->si_code == SIGTRAP ||
        (si->si_code == SI_USER && si->si_pid == 0))
      return 1;
    return si->si_code == TRAP_HWBKPT && t->hw_armed;
  }
  return 0;
}

/* Phase 2 for a thread in a job-control stop (someone SIGSTOPped the
 * target) with a SIGTRAP of ours queued behind that stop: a step that
 * completed just as the stop came (the kernel takes the stop before it
 * dequeues signals), an int3 or watchpoint hit of ours. Detached so, the
 * thread stays stopped, and dies of that SIGTRAP at SIGCONT (issue 24).
 * Only the thread can dequeue it: resumed out of the group-stop, it takes
 * the SIGTRAP first (a synchronous signal, dequeued before any other and
 * before any user instruction runs) and stops for its delivery, where it
 * is swallowed. Detached from there, the thread does not run on: while the
 * group-stop is in effect the kernel's detach sets its stop pending again
 * (__ptrace_unlink), so it stops as the user left it, and a SIGCONT that
 * came meanwhile lets it run, as it should. A SIGTRAP that is the
 * target's own stays queued, as it would untraced. */
static void detach_drain_trap_stopped(struct seam_task *t) {
  if (!thread_signal_pending(t->tid, SIGTRAP) || !queued_trap_is_ours(t)) return;
  if (ptrace(PTRACE_CONT, t->tid, 0, 0) != 0) return;
  int status;
  pid_t w = wait_until(t->tid, &status, now_ns() + (int64_t)DETACH_WAIT_MS * 1000000);
  if (w != t->tid || !WIFSTOPPED(status)) return;
  int sig = WSTOPSIG(status), event = status >> 16;
  if (event == PTRACE_EVENT_STOP) { /* stopped again before dequeuing */
    t->group_stopped = is_stop_signal(sig);
    return;
  }
  t->group_stopped = 0; /* in a signal-delivery stop now */
  if (event) return;
  if (sig == SIGTRAP) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    uint64_t bp = 0;
    t->step_armed = 1; /* as detach_drain_trap: a queued step trap is ours */
    if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) != 0 ||
        sigtrap_owner(t, &si, &bp) == TRAP_NOT_OURS)
      t->pending_sig = SIGTRAP;
    t->step_armed = 0;
  } else {
    t->pending_sig = sig; /* handed on at detach; the pending stop comes first */
  }
}

/* Phase 3 for one thread: PTRACE_DETACH (which also clears TF). ESRCH
 * means it is not in a ptrace-stop: gone (done), or running again — then
 * stop it, fold its stop in, and try once more. */
static void detach_release(struct asmspy_seam *sm, struct seam_task *t) {
  int sig = t->pending_sig ? t->pending_sig : t->owed_sig;
  end_stepping(t);
  if (ptrace(PTRACE_DETACH, t->tid, 0, (void *)(uintptr_t)sig) == 0 || errno != ESRCH) return;
  if (!still_traced_by_us(t->tid)) return;
  pid_t tid = t->tid;
  if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0) return;
  int status;
  if (wait_until(tid, &status, now_ns() + (int64_t)DETACH_WAIT_MS * 1000000) != tid) return;
  detach_fold_status(sm, tid, status);
  t = task_find(sm, tid);
  if (!t) return; /* it exited */
  sig = t->pending_sig ? t->pending_sig : t->owed_sig;
  ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
}

static int child_kill_reap(struct asmspy_seam *sm);

static int seam_detach(struct asmspy_seam *sm) {
  if (!sm) return 0;
  if (sm->child) return child_kill_reap(sm);
  seam_cpu_restore(&sm->cpu);
  if (getenv("ASMSPY_DEBUG_FD_CACHE")) {
    struct fdinfo_cache_stats fs = fdinfo_cache_stats();
    fprintf(stderr, "[fdcache] %llu hits, %llu misses, %llu flushes\n", (unsigned long long)fs.hits,
            (unsigned long long)fs.misses, (unsigned long long)fs.flushes);
  }
  /* Phase 1: stop everything. A task PTRACE_INTERRUPT cannot reach (ESRCH)
   * is gone (or was never really ours): nothing to wait for. */
  for (size_t i = 0; i < sm->ntasks;) {
    struct seam_task *t = &sm->tasks[i];
    if (t->state == TASK_RUNNING && ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) != 0 && errno == ESRCH &&
        !still_traced_by_us(t->tid)) {
      task_remove(sm, t->tid);
      continue;
    }
    i++;
  }
  int64_t deadline = now_ns() + (int64_t)DETACH_WAIT_MS * 1000000;
  for (;;) {
    size_t running = 0;
    for (size_t i = 0; i < sm->ntasks; i++) running += sm->tasks[i].state == TASK_RUNNING;
    if (!running || !detach_collect_one(sm, deadline)) break;
  }
  /* A task that never reported is dropped if it no longer exists; one that
   * is alive but would not stop is released when asmspy exits. */
  for (size_t i = 0; i < sm->ntasks;) {
    if (sm->tasks[i].state == TASK_RUNNING && !still_traced_by_us(sm->tasks[i].tid)) {
      task_remove(sm, sm->tasks[i].tid);
      continue;
    }
    i++;
  }
  /* Phase 2: drain a trap of ours still queued behind a stop. */
  for (size_t i = 0; i < sm->ntasks; i++) {
    struct seam_task *t = &sm->tasks[i];
    if (t->state != TASK_STOPPED) continue;
    if (t->group_stopped)
      detach_drain_trap_stopped(t);
    else
      detach_drain_trap(t);
  }
  /* A trap of ours swallowed just above (a watchpoint hit inside the
   * target's SIGTRAP handler as the session ended) cost the target its
   * handler the moment the kernel sent it: put it back before leaving, or
   * the target's next int3 kills it. */
  for (size_t i = 0; i < sm->ntasks; i++)
    if (sm->tasks[i].state == TASK_STOPPED) trap_guard_check(sm, &sm->tasks[i]);
  /* Phase 3: release all at once. */
  /* (by tid: a release that has to re-stop a thread may add or drop tasks) */
  size_t n = sm->ntasks;
  pid_t *tids = n ? malloc(n * sizeof *tids) : NULL;
  for (size_t i = 0; tids && i < n; i++) tids[i] = sm->tasks[i].tid;
  for (size_t i = 0; i < n; i++) {
    struct seam_task *t = tids ? task_find(sm, tids[i]) : &sm->tasks[i];
    if (t) detach_release(sm, t);
  }
  free(tids);
  for (size_t i = 0; i < sm->nprocs; i++)
    if (sm->procs[i].owned) target_close(sm->procs[i].target);
  free(sm->procs);
  free(sm->tasks);
  free(sm);
  return 0;
}

/* ---------------------------------------------------------- probe child -- */
/* spawn_child(): a backend's probe tests ptrace on a child of its own. The
 * child is traced from its first instruction after fork glue (TRACEME, then
 * a self-stop), so nothing in it runs untraced once the probe starts
 * driving it, and it is the seam's to kill: PR_SET_PDEATHSIG and
 * PTRACE_O_EXITKILL cover a probe process that dies itself. */

/* In the forked child: only async-signal-safe calls until child() runs. */
__attribute__((noreturn)) static void child_start(int (*child)(void *), void *arg, int errfd,
                                                  pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(125); /* the parent is already gone */
  if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
    int e = errno;
    if (write(errfd, &e, sizeof e) < 0) {
    }
    _exit(126);
  }
  close(errfd);
  raise(SIGSTOP);
  _exit(child(arg));
}

/* SIGKILL the child and reap it (EINTR-proof) unless a wait already
 * reaped it (its task is gone then: its pid may be someone else's now);
 * frees the seam. */
static int child_kill_reap(struct asmspy_seam *sm) {
  if (task_find(sm, sm->child)) {
    kill(sm->child, SIGKILL);
    while (waitpid(sm->child, NULL, __WALL) < 0 && errno == EINTR) {
    }
  }
  free(sm->procs);
  free(sm->tasks);
  free(sm);
  return 0;
}

static int seam_spawn_child(int (*child)(void *), void *arg, int64_t timeout_ms,
                            struct asmspy_seam **out, pid_t *pid_out) {
  *pid_out = 0;
  *out = NULL;
  struct asmspy_seam *sm = calloc(1, sizeof *sm);
  if (!sm) return -ENOMEM;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    int e = errno;
    free(sm);
    return -e;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    free(sm);
    return -e;
  }
  if (pid == 0) {
    close(p[0]);
    child_start(child, arg, p[1], parent);
  }
  close(p[1]);
  *pid_out = pid;
  sm->child = pid;
  struct seam_task *t = task_add(sm, pid, pid);
  if (!t) {
    close(p[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
    free(sm);
    return -ENOMEM;
  }
  int64_t deadline = now_ns() + (timeout_ms > 0 ? timeout_ms : 1) * 1000000;
  int rc = 0;
  for (;;) {
    int status;
    pid_t w = wait_until(pid, &status, deadline);
    if (w == 0) {
      rc = -ETIMEDOUT;
      break;
    }
    if (w < 0) {
      rc = -errno;
      break;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      int e = 0; /* PTRACE_TRACEME's errno, when that is what ended it */
      rc = read(p[0], &e, sizeof e) == (ssize_t)sizeof e && e ? -e : -ECHILD;
      close(p[0]);
      task_remove(sm, pid); /* reaped already */
      child_kill_reap(sm);
      return rc;
    }
    if (!WIFSTOPPED(status)) continue;
    if (WSTOPSIG(status) == SIGSTOP) break; /* its self-stop */
    /* another signal beat it (a terminal's SIGINT...): hand it on */
    ptrace(PTRACE_CONT, pid, 0, (void *)(uintptr_t)WSTOPSIG(status));
  }
  close(p[0]);
  if (!rc && ptrace(PTRACE_SETOPTIONS, pid, 0,
                    (void *)(uintptr_t)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) != 0)
    rc = -errno;
  if (rc) {
    child_kill_reap(sm);
    return rc;
  }
  t->state = TASK_STOPPED;
  *out = sm;
  return 0;
}

/* ---------------------------------------------------------------- spawn -- */

/* execvp's lookup, done before fork so a missing command is reported as
 * such instead of as a child that died before exec. */
static int command_resolvable(const char *cmd) {
  if (strchr(cmd, '/')) return access(cmd, X_OK) == 0 ? 0 : -errno;
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  int err = -ENOENT;
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    char full[4096];
    snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? path : ".", cmd);
    if (access(full, X_OK) == 0) return 0;
    if (errno == EACCES) err = -EACCES;
    path += n + (colon ? 1 : 0);
    if (!colon) break;
  }
  return err;
}

/* Signals the application ignores for itself that a launched command gets
 * back at their default (launch_child_default_signal). */
static sigset_t g_child_default;
static int g_child_default_init;

void launch_child_default_signal(int sig) {
  if (!g_child_default_init) {
    sigemptyset(&g_child_default);
    g_child_default_init = 1;
  }
  sigaddset(&g_child_default, sig);
}

pid_t seam_spawn_stopped(char *const *argv) {
  if (!argv || !argv[0]) return -EINVAL;
  int rc = command_resolvable(argv[0]);
  if (rc) return rc;
  pid_t pid = fork();
  if (pid < 0) return -errno;
  if (pid == 0) {
    if (g_child_default_init)
      for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&g_child_default, sig) == 1) signal(sig, SIG_DFL);
    raise(SIGSTOP); /* the tracer seizes us here, then lets us run to exec */
    execvp(argv[0], argv);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, WUNTRACED) < 0)
    if (errno != EINTR) return -errno;
  if (!WIFSTOPPED(status)) return -ECHILD;
  return pid;
}

/* The program's entry point (AT_ENTRY) from /proc/<pid>/auxv, or 0. */
static uint64_t auxv_entry(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint64_t kv[2], entry = 0;
  while (read(fd, kv, sizeof kv) == (ssize_t)sizeof kv && kv[0] != AT_NULL)
    if (kv[0] == AT_ENTRY) entry = kv[1];
  close(fd);
  return entry;
}

/* Run a tracee stopped just after its exec to the program's entry point
 * (gdb's `start`, one step earlier): by then ld.so has mapped every library
 * the program needs. An int3 at AT_ENTRY, continue (signals delivered),
 * restore the byte, rewind rip. Returns 0, or -1 (the program is left
 * where it is: still correct, only its libraries may not be mapped yet). */
static int run_to_entry(pid_t pid) {
  uint64_t entry = auxv_entry(pid);
  if (!entry) return -1;
  errno = 0;
  long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, 0);
  if (errno) return -1;
  long trap = word; /* the trap instruction over the entry's first bytes */
  memcpy(&trap, arch_break_insn, arch_break_len);
  if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)trap) != 0) return -1;
  int deliver = 0, rc = -1;
  for (;;) {
    if (ptrace(PTRACE_CONT, pid, 0, (void *)(uintptr_t)deliver) != 0) break;
    int status;
    if (waitpid(pid, &status, __WALL) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!WIFSTOPPED(status)) return -1; /* it died before its entry point */
    struct arch_regs r;
    if (WSTOPSIG(status) == SIGTRAP && (status >> 16) == 0 && regs_get(pid, &r) == 0 &&
        arch_break_addr(arch_ip(&r)) == entry) {
      arch_set_ip(&r, entry);
      rc = regs_set(pid, &r) == 0 ? 0 : -1;
      break;
    }
    int sig = WSTOPSIG(status);
    deliver = ((status >> 16) || sig == SIGSTOP || sig == SIGTRAP) ? 0 : sig;
  }
  ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry, (void *)word);
  return rc;
}

/* Let a --launch'ed command (stopped before its exec) run through the exec
 * and ld.so to its entry point under ptrace, then let it go: from then on
 * it is a running pid with its own image and libraries, for the modes that
 * observe from outside (samplers). Returns 0 or a -ASMSPY_E_* status. */
int seam_release_after_exec(const struct asmspy_session *s) {
  struct asmspy_session launch = *s;
  launch.flags |= ASMSPY_SESS_LAUNCHED;
  launch.tid = 0;
  struct asmspy_seam *sm = NULL;
  int rc = seam_api.attach(&launch, &sm);
  if (rc) return rc;
  (void)run_to_entry(s->pid);
  seam_api.detach(sm);
  return 0;
}

/* 1.11: emulate the instruction at ip instead of stepping it, where the
 * kernel's step would harm the program (arch_flag_pop: x86-64's popf; see
 * learn_own_tf above for what a stepped popf leaves behind). The thread stays
 * stopped; a STEP stop is queued for it as if the step had run. */
static int seam_emulate_step(struct asmspy_seam *sm, pid_t tid, uint64_t ip, const uint8_t *bytes,
                             size_t len) {
  struct seam_task *t = task_find(sm, tid);
  int width;
  size_t ilen;
  if (!t || t->state != TASK_STOPPED || t->group_stopped || t->owed_sig || !t->target ||
      !arch_flag_pop(bytes, len, &width, &ilen))
    return 0;
  struct arch_regs r;
  uint64_t word = 0;
  if (regs_get(tid, &r) != 0 || arch_ip(&r) != ip ||
      target_read_mem(t->target, arch_sp(&r), &word, (size_t)width) != width ||
      !arch_apply_flag_pop(&r, word, width, ilen) || regs_set(tid, &r) != 0)
    return 0;
  learn_own_tf(t);
  t->ever_stepped = 1;
  struct asmspy_stop st;
  stop_init(&st, ASMSPY_STOP_STEP, t);
  st.si_code = TRAP_TRACE;
  queue_push(sm, &st);
  return 1;
}

/* 1.9: one system call inside a stopped thread of the session, at a
 * `syscall` instruction found once per process (syscall injection, below). */
static int seam_inject_syscall_api(struct asmspy_seam *sm, pid_t tid, long nr,
                                   const uint64_t args[6], int64_t *ret) {
  struct seam_task *t = task_find(sm, tid);
  if (!t || t->state == TASK_RUNNING) return -ESRCH;
  struct seam_proc *p = proc_find(sm, t->tgid);
  if (!p) return -ESRCH;
  if (!p->syscall_insn) p->syscall_insn = seam_find_syscall_insn(p->target, t->tgid);
  int owed = 0;
  int rc = seam_inject_syscall(tid, p->syscall_insn, nr, args, ret, &owed);
  if (owed && !t->owed_sig) t->owed_sig = owed;
  return rc;
}

const struct asmspy_seam_api seam_api = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_seam_api),
    .attach = seam_attach,
    .next_stop = seam_next_stop,
    .step = seam_step,
    .resume = seam_resume,
    .resume_syscall = seam_resume_syscall,
    .get_regs = seam_get_regs,
    .detach = seam_detach,
    .resume_all = seam_resume_all,
    .thread_count = seam_thread_count,
    .signal_blocked = seam_signal_blocked,
    .step_plain = seam_step_plain,
    .syscall_info = seam_syscall_info,
    .next_stop_timeout = seam_next_stop_timeout,
    .set_ip = seam_set_ip,
    .interrupt_all = seam_interrupt_all,
    .peek_user = seam_peek_user,
    .poke_user = seam_poke_user,
    .get_regset = seam_get_regset,
    .set_regset = seam_set_regset,
    .list_threads = seam_list_threads,
    .spawn_child = seam_spawn_child,
    .inject_syscall = seam_inject_syscall_api,
    .emulate_step = seam_emulate_step,
};

/* ------------------------------------------------------ attach probe -- */

/* A fresh PTRACE_SEIZE of pid from a short-lived child: its errno, 0 when
 * it succeeded (the child's exit then detaches; a seize stops nothing), -1
 * when the probe itself could not run. (attach_diag.c: which gate refused.) */
int seam_seize_errno(pid_t pid) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t c = fork();
  if (c < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (c == 0) {
    int e = ptrace(PTRACE_SEIZE, pid, 0, 0) == 0 ? 0 : errno;
    ssize_t w = write(fds[1], &e, sizeof e);
    _exit(w == (ssize_t)sizeof e ? 0 : 1);
  }
  close(fds[1]);
  int e = -1;
  ssize_t r;
  do r = read(fds[0], &e, sizeof e);
  while (r < 0 && errno == EINTR);
  close(fds[0]);
  while (waitpid(c, NULL, 0) < 0 && errno == EINTR) {
  }
  return r == (ssize_t)sizeof e ? e : -1;
}

/* ------------------------------------------------- syscall injection -- */
/* Running one system call inside a stopped tracee
 * (gdb's `call`, strace's nothing: strace never needs it). The seam uses it
 * for one job only: keeping the target's own SIGTRAP handler alive.
 *
 * Why it is needed: when a thread executes a trap (our int3, a debug-register
 * hit) while it has SIGTRAP blocked — it is running inside the target's own
 * SIGTRAP handler — the kernel's force_sig_info() resets the SIGTRAP action
 * to SIG_DFL and unblocks SIGTRAP before the tracer even sees the stop.
 * Swallowing the trap is then not enough: the target's next int3 of its own
 * kills it. ptrace can put the mask back (PTRACE_SETSIGMASK) but has no call
 * for another process's sigaction, so the seam reads the action once at
 * attach (rt_sigaction(SIGTRAP, NULL, &old) in the tracee) and, after such a
 * trap, writes it back (rt_sigaction(SIGTRAP, &old, NULL)).
 *
 * How: save the registers, point rip at a `syscall` instruction that already
 * exists in an executable mapping of the target (never patch code: other
 * threads are running), load the syscall number and arguments, single-step
 * that one instruction, read rax, restore the registers. The stack below
 * the red zone is the scratch memory for the struct. Only this thread is
 * waited for (waitpid(tid)); a signal that arrives meanwhile is kept and
 * owed to the thread. */
/* Scan the target's executable mappings for the system call instruction
 * (arch_syscall_insn: `syscall` 0f 05, `svc #0` on AArch64, 4-aligned);
 * the vdso first (it is small and always has one), then the rest, with a
 * read budget so a huge JIT heap is never walked. 0 when none is found. */
uint64_t seam_find_syscall_insn(struct asmspy_target *tg, pid_t pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  uint64_t found = 0;
  size_t budget = 4u << 20;
  for (int pass = 0; pass < 2 && !found; pass++) {
    rewind(f);
    while (!found && budget > 0 && fgets(line, sizeof line, f)) {
      unsigned long long lo, hi;
      char perms[8] = "";
      if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x') continue;
      int is_vdso = strstr(line, "[vdso]") != NULL;
      if ((pass == 0) != is_vdso) continue;
      uint8_t buf[4096];
      for (uint64_t a = lo; a < hi && budget > 0 && !found; a += sizeof buf - 1) {
        size_t want = hi - a < sizeof buf ? (size_t)(hi - a) : sizeof buf;
        ssize_t n = target_read_mem(tg, a, buf, want);
        if (n < 2) break;
        budget = budget > (size_t)n ? budget - (size_t)n : 0;
        ssize_t len = (ssize_t)arch_syscall_len;
        for (ssize_t i = 0; i + len <= n; i++)
          if (((a + (uint64_t)i) % arch_insn_align) == 0 && /* AArch64: whole instructions */
              memcmp(buf + i, arch_syscall_insn, arch_syscall_len) == 0) {
            found = a + (uint64_t)i;
            break;
          }
      }
    }
  }
  fclose(f);
  return found;
}

/* A thread at a fork, clone or exec event stop is inside that system call:
 * its return value is written when the stop is left. A call injected there
 * ran with the clone's return value (a tid) as its number, and the thread,
 * restored, saw -ENOSYS from clone3: glibc fell back to clone and started
 * the new thread twice (harm_threads churn died, CI). Such a thread is
 * first stepped out of its call: the step ends at the call's return, before
 * any instruction of the program runs. A vfork parent is refused instead:
 * it returns only once its child has exec'd or exited, and an injected
 * call would act on the memory it shares with the child. 0, -EAGAIN (a
 * vfork), -ESRCH (it died). */
static int finish_unfinished_syscall(pid_t tid) {
  siginfo_t si;
  if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) != 0 || si.si_signo != SIGTRAP) return 0;
  int event = si.si_code >> 8;
  if (event == PTRACE_EVENT_VFORK) return -EAGAIN;
  if (event != PTRACE_EVENT_CLONE && event != PTRACE_EVENT_FORK && event != PTRACE_EVENT_EXEC &&
      event != PTRACE_EVENT_VFORK_DONE)
    return 0;
  uint64_t mask = 0, only_trap = ~(1ull << (SIGTRAP - 1));
  int mask_saved = ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof mask, &mask) == 0 &&
                   ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof only_trap, &only_trap) == 0;
  int rc = -EIO, stop_again = 0;
  for (int tries = 0; tries < 4 && rc == -EIO; tries++) {
    int status;
    pid_t w;
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) != 0) return -errno;
    while ((w = waitpid(tid, &status, __WALL)) < 0 && errno == EINTR) {
    }
    if (w != tid || !WIFSTOPPED(status)) return -ESRCH;
    if (WSTOPSIG(status) == SIGTRAP && !(status >> 16))
      rc = 0;
    else if (WSTOPSIG(status) == SIGSTOP && !(status >> 16))
      stop_again = 1; /* someone stopped the target: it ends up stopped (below) */
  }
  if (mask_saved) ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof mask, &mask);
  if (stop_again) syscall(SYS_tkill, tid, SIGSTOP);
  return rc;
}

/* Run syscall nr(args) in the stopped thread tid; *ret gets rax. Returns 0,
 * or -errno when the thread could not be driven (it is then left with its
 * registers restored where possible). *owed_sig receives a signal that
 * arrived during the injection (0 if none): the caller delivers it later. */
int seam_inject_syscall(pid_t tid, uint64_t syscall_insn, long nr, const uint64_t args[6],
                        int64_t *ret, int *owed_sig) {
  struct arch_regs saved, r;
  *owed_sig = 0;
  if (!syscall_insn) return -ENOENT;
  int rc = finish_unfinished_syscall(tid);
  if (rc) return rc;
  rc = regs_get(tid, &saved);
  if (rc) return rc;
  r = saved;
  arch_syscall_setup(&r, syscall_insn, nr, args);
  if ((rc = regs_set(tid, &r)) != 0) return rc;
  uint32_t nt = 0;
  uint64_t nobuf[2];
  size_t nolen = sizeof nobuf;
  if (arch_syscall_norestart(&nt, nobuf, &nolen)) { /* AArch64: no restart of our call */
    struct iovec iov = {nobuf, nolen};
    if (ptrace(PTRACE_SETREGSET, tid, (void *)(uintptr_t)nt, &iov) != 0) {
      rc = -errno;
      regs_set(tid, &saved);
      return rc;
    }
  }
  /* The thread's mask for the one step: every signal blocked but SIGTRAP.
   *  - SIGTRAP open: the step's own trap must not land with SIGTRAP blocked
   *    (the thread may sit in the target's SIGTRAP handler):
   *    force_sig_info_to_task would reset the target's SIGTRAP action to
   *    SIG_DFL (issue 24).
   *  - the rest blocked: a signal pending now (a 20 kHz itimer's SIGALRM)
   *    would otherwise stop the thread before the instruction on every
   *    try; blocked, it stays pending and is delivered once the mask is
   *    back, exactly as if it had come a moment later.
   * The thread's own mask is put back after. */
  uint64_t mask = 0;
  int mask_saved = ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof mask, &mask) == 0;
  uint64_t trap_bit = 1ull << (SIGTRAP - 1);
  if (mask_saved) {
    uint64_t step_mask = ~trap_bit;
    if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof step_mask, &step_mask) != 0) mask_saved = 0;
  }
  int stop_again = 0;
  rc = -EIO;
  for (int tries = 0; tries < 16; tries++) {
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) != 0) {
      rc = -errno;
      break;
    }
    int status;
    pid_t w;
    while ((w = waitpid(tid, &status, __WALL)) < 0 && errno == EINTR) {
    }
    if (w != tid) {
      rc = -ECHILD;
      break;
    }
    if (!WIFSTOPPED(status)) return -ESRCH; /* it died: nothing to restore */
    int sig = WSTOPSIG(status);
    if (sig == SIGTRAP && !(status >> 16)) {
      struct arch_regs now;
      if ((rc = regs_get(tid, &now)) != 0) break;
      if (arch_ip(&now) != syscall_insn) { /* the syscall ran */
        *ret = arch_syscall_result(&now);
        rc = 0;
        break;
      }
      /* a SIGTRAP of the target's own (queued while it was blocked) came
       * before the instruction ran: it is owed, not ours */
      siginfo_t si;
      if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0 && si.si_code != TRAP_TRACE &&
          si.si_code != TRAP_BRKPT && !*owed_sig)
        *owed_sig = SIGTRAP;
      rc = -EIO;
      continue;
    }
    /* a signal (or an event) came before the instruction ran: keep the
     * signal for later, step again. A SIGSTOP (someone stopped the target
     * while we drove it: it must end up stopped, issue 24) is queued again
     * below, so its own delivery stop reaches the backend, which passes it
     * on like any signal; the interrupt stop the thread sits in would
     * ignore a signal handed to its resume. */
    if (!(status >> 16) && sig == SIGSTOP)
      stop_again = 1;
    else if (!(status >> 16) && sig != SIGTRAP)
      *owed_sig = sig;
  }
  if (mask_saved) ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof mask, &mask);
  if (stop_again) syscall(SYS_tkill, tid, SIGSTOP);
  int restored = regs_set(tid, &saved);
  if (restored != 0 && rc == 0) rc = restored;
  return rc;
}

/* Scratch memory for a struct the injected call reads or writes: under the
 * red zone of the thread's stack, 16-byte aligned. */
static uint64_t scratch_below_sp(pid_t tid) {
  struct arch_regs r;
  if (regs_get(tid, &r) != 0) return 0;
  return (arch_sp(&r) - 1024) & ~(uint64_t)15;
}

int seam_read_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                        struct seam_ksigaction *out, int *owed_sig) {
  uint64_t mem = scratch_below_sp(tid);
  if (!mem) return -EIO;
  uint64_t args[6] = {(uint64_t)sig, 0, mem, 8, 0, 0};
  int64_t ret = -1;
  int rc = seam_inject_syscall(tid, syscall_insn, SYS_rt_sigaction, args, &ret, owed_sig);
  if (rc) return rc;
  if (ret != 0) return (int)ret;
  return target_read_mem(tg, mem, out, sizeof *out) == (ssize_t)sizeof *out ? 0 : -EIO;
}

int seam_write_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                         const struct seam_ksigaction *act, int *owed_sig) {
  uint64_t mem = scratch_below_sp(tid);
  if (!mem) return -EIO;
  if (target_write_mem(tg, mem, act, sizeof *act) != (ssize_t)sizeof *act) return -EIO;
  uint64_t args[6] = {(uint64_t)sig, mem, 0, 8, 0, 0};
  int64_t ret = -1;
  int rc = seam_inject_syscall(tid, syscall_insn, SYS_rt_sigaction, args, &ret, owed_sig);
  if (rc) return rc;
  return (int)ret;
}
