/* remote.c — codecache's session on a running process (remote.h): the
 * process's threads run translated code that records every block; asmspy
 * stays attached (ptrace) and turns the records into instruction events.
 *
 *   attach      every thread stopped; the data mapping and the dispatcher
 *               injected (plain syscalls in a stopped thread: no library,
 *               no decoder in the target); each thread entered.
 *   run         the target runs at cache speed. A thread stops (ptrace)
 *               only for a request (a block to translate, a full record
 *               buffer, an rt_sigreturn), a signal with a handler (brought
 *               out first so the handler's frame holds original addresses,
 *               then stepped into the handler and entered there), a new
 *               thread, or the periodic sweep that brings back in threads
 *               that ran out natively (a fork, an untranslatable
 *               instruction).
 *   leave       every thread stopped and brought out to its exact original
 *               state, every mapping unmapped, then detached. A thread
 *               that cannot be brought out leaves the mappings in place
 *               (said in a note): it leaves them by itself at its next
 *               request, which no one answers.
 *
 * If asmspy dies, no thread is ever stuck: a request is a tgkill of a
 * signal the program ignores, so with no tracer the thread reads no answer
 * and continues natively (rdispatch.S); a full buffer is such a request. */
#define _GNU_SOURCE
#include "plugins/codecache/remote.h"

#include "plugins/common/stop_event.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SWEEP_MS 100
#define TICK_MS 50
#define F(off) ((off) / 8)

static uint64_t mask_of(pid_t pid, pid_t tid, const char *key) {
  char path[64], line[256];
  snprintf(path, sizeof path, tid ? "/proc/%d/task/%d/status" : "/proc/%d/status", (int)pid,
           (int)tid);
  FILE *f = fopen(path, "re");
  uint64_t m = 0;
  size_t k = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, k)) m = strtoull(line + k, NULL, 16);
  if (f) fclose(f);
  return m;
}

/* The request signal: one whose default action is to ignore it, that the
 * program neither handles nor blocks, so a request nobody answers (asmspy
 * gone) changes nothing in the program. */
static int pick_signal(pid_t pid, const pid_t *tids, uint32_t n) {
  /* SIGWINCH before SIGURG when the program handles them all: Go's
   * runtime sends itself SIGURG (preemption), never SIGWINCH */
  static const int cands[] = {SIGURG, SIGWINCH, SIGCHLD};
  static const int handled_all[] = {SIGWINCH, SIGURG, SIGCHLD};
  uint64_t caught = mask_of(pid, 0, "SigCgt:"), blocked = 0;
  for (uint32_t i = 0; i < n; i++) blocked |= mask_of(pid, tids[i], "SigBlk:");
  for (unsigned i = 0; i < sizeof cands / sizeof *cands; i++)
    if (!((caught | blocked) >> (cands[i] - 1) & 1)) return cands[i];
  for (unsigned i = 0; i < sizeof handled_all / sizeof *handled_all; i++)
    if (!(blocked >> (handled_all[i] - 1) & 1)) return handled_all[i];
  return SIGWINCH;
}

static int handled(pid_t pid, int sig) {
  return (int)(mask_of(pid, 0, "SigCgt:") >> (sig - 1) & 1);
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---------------------------------------------------------------- attach -- */

/* A launched command is stopped inside its execve (its syscall-exit): no
 * system call can be injected there. Its first instruction is stepped
 * (and reported, as the stepping backend reports it); the thread is then
 * at an ordinary stop. 0, or -1: it is gone. */
static int step_out_of_exec(struct cc_remote *rm, struct rthread *t) {
  struct user_regs_struct u;
  if (rm_get_regs(rm, t->tid, &u)) return -1;
  if (u.orig_rax != 59 /* execve */ && u.orig_rax != 322 /* execveat */) return 0;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  char text[96];
  ssize_t got = rm->host->read_mem(rm->s->target, u.rip, ev.u.insn.bytes, sizeof ev.u.insn.bytes);
  int len = got > 0 ? rm->host->disasm(u.rip, ev.u.insn.bytes, (size_t)got, text, sizeof text) : 0;
  if (rm_step(rm, t, 0)) return -1;
  struct user_regs_struct after;
  /* a step begun inside the syscall may only finish it (no instruction ran) */
  if (len <= 0 || rm_get_regs(rm, t->tid, &after) || after.rip == u.rip) return 0;
  ev.type = ASMSPY_EV_INSN;
  ev.pid = rm->s->pid;
  ev.tid = t->tid;
  ev.nthreads = 1;
  ev.ip = u.rip;
  ev.target = rm->s->target;
  ev.flags = ASMSPY_EVF_SP_UNKNOWN;
  ev.u.insn.len = (uint8_t)len;
  ev.seq = ++rm->seq;
  rm->emitted++;
  if (rm->s->sink(rm->s->sink_ctx, &ev)) rm->sink_stop = 1;
  return 0;
}

/* The earlier session's mappings (rm->old_*) go, once no thread runs in
 * them, and every gs base still pointing into them is cleared. 0, or -1:
 * a thread is still inside (they stay). */
static int remove_leftovers(struct cc_remote *rm, const pid_t *tids, uint32_t n) {
  unsigned k = rm->nold;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < n; i++) {
      struct user_regs_struct u;
      if (rm_get_regs(rm, tids[i], &u)) continue;
      if (!pass && rm_in_old_cache(rm, u.rip)) return -1;
      if (pass && rm_in_old_cache(rm, u.gs_base)) {
        u.gs_base = 0;
        rm_set_regs(rm, tids[i], &u);
      }
    }
  for (unsigned j = 0; j < k; j++)
    ep_remote_call(&rm->rem, SYS_munmap, rm->old_lo[j], rm->old_hi[j] - rm->old_lo[j], 0, 0, 0, 0);
  rm->nold = 0;
  if (k)
    rm_note(rm, ASMSPY_NOTE_INFO,
            "codecache: removed the %u mapping(s) an earlier asmspy's session left in this process",
            k);
  return 0;
}

/* What an earlier asmspy that died mid-session left: its shared mappings
 * (rm->old_*). Its threads leave that cache by themselves at their next
 * request, which nobody answers; one still inside (foreign) is entered once
 * out. With none inside (every thread is stopped now) they go at once. */
static int clear_leftovers(struct cc_remote *rm, const pid_t *tids, uint32_t n) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)rm->s->pid);
  FILE *f = fopen(path, "re");
  uint64_t lo[64], hi[64];
  unsigned k = 0;
  while (f && k < 64 && fgets(line, sizeof line, f)) {
    unsigned long long a, b;
    if (strstr(line, "asmspy-codecache") && sscanf(line, "%llx-%llx", &a, &b) == 2)
      lo[k] = a, hi[k++] = b;
  }
  if (f) fclose(f);
  memcpy(rm->old_lo, lo, k * sizeof lo[0]);
  memcpy(rm->old_hi, hi, k * sizeof hi[0]);
  rm->nold = k;
  /* a thread still inside runs on there (foreign) until its next block
   * lookup, which nobody answers, sends it out; it is entered then */
  unsigned inside = 0;
  pid_t one = 0;
  for (uint32_t i = 0; i < n; i++) {
    struct user_regs_struct u;
    struct rthread *t = rm_thread(rm, tids[i], 0);
    if (!t || rm_get_regs(rm, tids[i], &u)) continue;
    if (rm_in_old_cache(rm, u.rip)) {
      t->foreign = 1, inside++, one = tids[i];
    } else if (rm_in_old_cache(rm, u.gs_base)) { /* out already: its gs base is stale */
      u.gs_base = 0;
      rm_set_regs(rm, tids[i], &u);
    }
  }
  if (inside) {
    rm_note(rm, ASMSPY_NOTE_INFO,
            "codecache: %u thread(s) still run in the code cache an earlier asmspy left (thread "
            "%d): each is traced once it leaves it, at its next block lookup (within a second of "
            "running); the mappings go once none is inside",
            inside, (int)one);
    return 0;
  }
  return remove_leftovers(rm, tids, n);
}

static int setup(struct cc_remote *rm, char *why, size_t whycap) {
  const struct asmspy_seam_api *seam = rm->host->seam;
  pid_t tids[RT_MAX_THREADS];
  uint32_t n = seam->list_threads(rm->sm, tids, RT_MAX_THREADS);
  if (!n) {
    snprintf(why, whycap, "no thread to trace");
    return -ASMSPY_E_ATTACH_GONE;
  }
  uint32_t mine = 0; /* the seam also holds followed children: this process's threads only */
  for (uint32_t i = 0; i < n; i++) {
    char task[64];
    snprintf(task, sizeof task, "/proc/%d/task/%d", (int)rm->s->pid, (int)tids[i]);
    if (access(task, F_OK) == 0) tids[mine++] = tids[i];
  }
  n = mine;
  if (!n) {
    snprintf(why, whycap, "no thread to trace");
    return -ASMSPY_E_ATTACH_GONE;
  }
  rm->rem = (struct ep_remote){rm->host, rm->sm, rm->s->target, rm->s->pid, tids[0]};
  for (uint32_t i = 0; i < n; i++) rm_thread(rm, tids[i], 1);
  /* (a thread met at a clone's event stop is stepped out of that call by
   * the seam before a call is injected in it: seam_inject_syscall) */
  if (step_out_of_exec(rm, &rm->th[0])) {
    snprintf(why, whycap, "the launched command died at its first instruction");
    return -ASMSPY_E_ATTACH_GONE;
  }
  clear_leftovers(rm, tids, n);
  rm->signo = pick_signal(rm->s->pid, tids, n);
  rm->nslots = 4 * n < RT_MIN_SLOTS     ? RT_MIN_SLOTS
               : 4 * n > RT_MAX_THREADS ? RT_MAX_THREADS
                                        : 4 * n;
  rm->c.seg = (struct cc_seg){0x65, 0};
  rm->c.remote = rm;
  rm->c.read_code = rm_read_code;
  rm->c.code_volatile = rm_code_volatile;
  rm->c.map_chunk = rm_map_chunk;
  rm->c.probe_lo = rm->s->region_start; /* --trace: its rets report the return value */
  rm->c.probe_len = rm->s->region_len;
  if (cc_cache_init(&rm->c)) {
    snprintf(why, whycap, "out of memory (translator tables, Capstone)");
    return -ASMSPY_E_NOMEM;
  }
  struct cc_stub reserved = {CC_STUB_IBL, 0, 0, 0}; /* CC_RSTUB_FLUSH .. CC_RSTUB_LAST */
  while (rm->c.nstubs <= CC_RSTUB_LAST) cc_stub_add(&rm->c, &reserved);
  if (rm_map_data(rm, why, whycap)) return -ASMSPY_E_NO_KERNEL;
  struct user_regs_struct u;
  if (rm_get_regs(rm, tids[0], &u) || rm_place_dispatcher(rm, u.rip)) {
    snprintf(why, whycap, "no code memory for the dispatcher");
    return -ASMSPY_E_NOMEM;
  }
  for (size_t i = 0; i < rm->nth; i++) rm_enter(rm, &rm->th[i]);
  return 0;
}

/* ------------------------------------------------------------------ stops -- */

static void flush_all(struct cc_remote *rm, struct rthread *req); /* below, with the leave */

/* A task event, as the stepping backend reports it (the views print it). */
static void emit_task(struct cc_remote *rm, const struct asmspy_stop *st, uint32_t what, int child,
                      int code) {
  struct asmspy_event ev;
  stop_task_event(&ev, st, what, child, code);
  ev.seq = ++rm->seq;
  if (!rm->sink_stop && rm->s->sink(rm->s->sink_ctx, &ev)) rm->sink_stop = 1;
}

static void resume(struct cc_remote *rm, pid_t tid, int sig) {
  rm->host->seam->resume(rm->sm, tid, sig);
}

/* A signal bound for a handler: the thread out of the cache first (the
 * handler's frame holds the original state, as if untraced), stepped with
 * the signal into the handler's first instruction, entered there. */
static void into_handler(struct cc_remote *rm, struct rthread *t, int sig) {
  rm->signals_in++;
  if (rm_leave(rm, t) || !(t = rm_thread(rm, t->tid, 0))) {
    if (t) resume(rm, t->tid, sig); /* stuck inside: delivered where it is */
    return;
  }
  pid_t tid = t->tid;
  if (rm_step(rm, t, sig)) return; /* gone */
  t = rm_thread(rm, tid, 0);
  if (!t) return;
  int entered = rm_enter(rm, t);
  if (rm->debug > 1) {
    struct user_regs_struct u;
    rm_get_regs(rm, tid, &u);
    fprintf(stderr, "codecache: signal %d into its handler: tid %d rip 0x%llx entered %d owed %d\n",
            sig, (int)tid, (unsigned long long)u.rip, entered, t->owed_sig);
  }
  int owed = t->owed_sig;
  t->owed_sig = 0;
  resume(rm, tid, owed);
}

/* The request a stopped thread raised, answered, and the thread resumed:
 * syscall to syscall when its call runs natively (caught at the exit). */
static void answer_request(struct cc_remote *rm, pid_t tid) {
  struct rthread *t = rm_thread(rm, tid, 0);
  if (!t) return;
  rm_answer(rm, t);
  if (rm->flush_req) {
    flush_all(rm, t); /* other threads may have gone meanwhile: t is looked up again */
    if (!(t = rm_thread(rm, tid, 0))) return;
  }
  if (t->catch_nr)
    rm->host->seam->resume_syscall(rm->sm, tid, 0);
  else
    resume(rm, tid, 0);
}

static void on_signal(struct cc_remote *rm, const struct asmspy_stop *st) {
  struct rthread *t = st->pid == rm->s->pid ? rm_thread(rm, st->tid, 0) : NULL;
  if (!t) {
    resume(rm, st->tid, st->sig);
    return;
  }
  if (st->sig == rm->signo && t->slot >= 0 && rm_block(rm, t)[F(CC_RT_REQ)]) {
    answer_request(rm, st->tid);
    return;
  }
  if (st->sig == rm->signo && (st->flags & ASMSPY_STOPF_SIGINFO) && t->slot >= 0 &&
      t->late < rm_block(rm, t)[F(CC_RT_UNANSWERED)]) {
    siginfo_t si; /* a request that went native because the signal was blocked: it comes late */
    memcpy(&si, st->siginfo, sizeof si);
    if (si.si_code == SI_TKILL && si.si_pid == rm->s->pid) {
      t->late++;
      resume(rm, t->tid, 0);
      return;
    }
  }
  if (t->slot >= 0 && handled(rm->s->pid, st->sig)) {
    into_handler(rm, t, st->sig);
    return;
  }
  resume(rm, t->tid, st->sig); /* no frame to build: it stays where it is */
}

/* A syscall runs natively, the thread resumed syscall stop to syscall stop
 * (rt_sigreturn; a munmap after which the cache was emptied) and caught at
 * that call's exit, where it goes back in. rt_sigreturn's exit is the stop
 * whose orig_rax is -1 (restore_sigcontext clears it); another call's exit
 * is the stop with its number in orig_rax and no longer -ENOSYS in rax
 * (the end of the futex wait that asked, and the call's entry, are not). */
static void on_syscall(struct cc_remote *rm, const struct asmspy_stop *st) {
  struct rthread *t = rm_thread(rm, st->tid, 0);
  struct user_regs_struct u;
  if (t && t->catch_nr && !rm_get_regs(rm, t->tid, &u)) {
    int at_exit = t->catch_nr == SYS_rt_sigreturn
                      ? (int64_t)u.orig_rax == -1
                      : (int64_t)u.orig_rax == t->catch_nr && (int64_t)u.rax != -ENOSYS;
    if (rm->debug > 1)
      fprintf(stderr, "codecache: syscall stop tid %d orig_rax %lld rax %lld: %s\n", (int)t->tid,
              (long long)u.orig_rax, (long long)u.rax, at_exit ? "its exit" : "not yet");
    if (!at_exit) {
      rm->host->seam->resume_syscall(rm->sm, t->tid, 0);
      return;
    }
    rm_map_call_done(rm, t);
    t->catch_nr = 0;
    rm_enter(rm, t);
  }
  resume(rm, st->tid, 0);
}

/* Our interrupt (the sweep), a new thread's first stop, a job-control stop. */
static void on_group(struct cc_remote *rm, const struct asmspy_stop *st) {
  if (st->pid != rm->s->pid) { /* a forked child (followed): it runs natively, gs base cleared */
    struct user_regs_struct u;
    if (!rm_get_regs(rm, st->tid, &u) && u.gs_base && !(u.gs_base = 0))
      rm_set_regs(rm, st->tid, &u);
    resume(rm, st->tid, 0);
    return;
  }
  struct rthread *t = rm_thread(rm, st->tid, 1);
  if (t && t->slot >= 0 && rm_block(rm, t)[F(CC_RT_REQ)] == 2) {
    answer_request(rm, st->tid); /* a request whose signal was blocked, waiting (run_loop) */
    return;
  } else if (t && !t->in && !st->group_sig && !t->catch_nr) {
    rm_enter(rm, t);
  }
  resume(rm, st->tid, 0);
}

/* clone / fork / vfork ran natively (translate.c): the parent goes back in. */
static void on_new_task(struct cc_remote *rm, const struct asmspy_stop *st) {
  struct rthread *t = rm_thread(rm, st->tid, 0);
  if (t) { /* the clone/fork syscall ran (its block's record counts it): say so after it */
    rm_drain(rm, t, 0, -1);
    emit_task(rm, st, st->is_process ? ASMSPY_TASK_FORK : ASMSPY_TASK_CLONE, st->new_tid, 0);
  }
  if (t && st->pid == rm->s->pid) rm_enter(rm, t);
  resume(rm, st->tid, 0);
}

#define DRAIN_TURN 512 /* blocks a thread's turn in the live drain takes at most */

static void drain_all(struct cc_remote *rm, int live) {
  if (!live) {
    for (size_t i = 0; i < rm->nth && !rm->sink_stop; i++) rm_drain(rm, &rm->th[i], 0, -1);
    return;
  }
  for (uint64_t got = 1; got && !rm->sink_stop;) { /* threads in turns */
    got = 0;
    for (size_t i = 0; i < rm->nth && !rm->sink_stop; i++)
      got += rm_drain_some(rm, &rm->th[i], DRAIN_TURN);
  }
}

/* The process exec'd: the kernel dropped the old image with everything of
 * ours in it (mappings; exec clears the gs base). The old records are still
 * readable here (our side of the memfds); then a new cache is set up on
 * the new image, as at attach. 0, or -1: not traced any further (a note). */
static int restart_after_exec(struct cc_remote *rm, const struct asmspy_stop *st) {
  drain_all(rm, 0);
  emit_task(rm, st, ASMSPY_TASK_EXEC, 0, 0);
  rm_forget_maps(rm);
  cc_cache_fini(&rm->c);
  memset(&rm->c, 0, sizeof rm->c);
  free(rm->waiting), free(rm->wkeys), free(rm->whead);
  rm->waiting = NULL, rm->wkeys = NULL, rm->whead = NULL;
  rm->wmask = rm->wcount = rm->capwait = rm->hcount = 0;
  rm->nth = 0;
  memset(rm->slot_used, 0, sizeof rm->slot_used);
  /* the old image's mappings are gone: what is code, and which of it may
   * change, is read anew; an earlier session's leftovers went too */
  rm->xmaps_stale = 1, rm->maps_changing = 0, rm->nold = 0;
  char why[512] = "";
  int rc = setup(rm, why, sizeof why);
  if (rc) {
    rm_note(rm, ASMSPY_NOTE_WARN, "codecache: after the exec: %s; not traced further", why);
    return -1;
  }
  for (size_t i = 0; i < rm->nth; i++) resume(rm, rm->th[i].tid, 0);
  return 0;
}

static int natives(const struct cc_remote *rm) {
  int n = 0;
  for (size_t i = 0; i < rm->nth; i++) n += !rm->th[i].in && !rm->th[i].catch_nr;
  return n;
}

/* Threads waiting with a request whose signal they block (rdispatch.S). */
static int waiting(struct cc_remote *rm) {
  int n = 0;
  for (size_t i = 0; i < rm->nth; i++)
    if (rm->th[i].slot >= 0)
      n += __atomic_load_n(&rm_block(rm, &rm->th[i])[F(CC_RT_REQ)], __ATOMIC_ACQUIRE) == 2;
  return n;
}

/* The stop loop. Returns the session's result; *gone: nothing to leave. */
static int run_loop(struct cc_remote *rm, int *gone) {
  const struct asmspy_seam_api *seam = rm->host->seam;
  uint64_t last_sweep = now_ms(), last_wait = 0, started = now_ms();
  for (;;) {
    drain_all(rm, 1);
    if (rm->sink_stop || (rm->s->stop && *rm->s->stop)) return 0;
    /* a waiting request is answered at its thread's interrupt stop
     * (on_group); the ticks stay short while requests wait */
    if (rm->s->region_len && !rm->rg.sample && rm->s->entry_wait_ms > 0 &&
        now_ms() - started >= (uint64_t)rm->s->entry_wait_ms) {
      rm_region_not_reached(rm); /* --trace: nobody entered the region in time */
      return ASMSPY_FACT_NOT_REACHED;
    }
    int waits = waiting(rm);
    if (waits) last_wait = now_ms();
    if (waits || (natives(rm) && now_ms() - last_sweep >= SWEEP_MS)) {
      seam->interrupt_all(rm->sm, 0);
      last_sweep = now_ms();
    }
    struct asmspy_stop st;
    memset(&st, 0, sizeof st);
    ASMSPY_INIT_HEADER(&st);
    if (rm->ndeferred) {
      st = rm->deferred[0];
      memmove(rm->deferred, rm->deferred + 1, --rm->ndeferred * sizeof *rm->deferred);
    } else if (seam->next_stop_timeout(rm->sm, &st, now_ms() - last_wait < 200 ? 1 : TICK_MS)) {
      return -ASMSPY_E_INTERNAL;
    }
    if (rm->debug > 1)
      fprintf(stderr, "codecache: stop kind %u tid %d pid %d sig %d new %d\n", st.kind, (int)st.tid,
              (int)st.pid, st.sig, (int)st.new_tid);
    switch (st.kind) {
    case ASMSPY_STOP_INTERRUPTED: return 0;
    case ASMSPY_STOP_NONE: *gone = 1; return ASMSPY_FACT_EXITED;
    case ASMSPY_STOP_TIMEOUT: break;
    case ASMSPY_STOP_EXITED: {
      struct rthread *t = rm_thread(rm, st.tid, 0);
      if (t) rm_drain(rm, t, 0, -1), rm_forget(rm, st.tid);
      if (st.pid == rm->s->pid) emit_task(rm, &st, ASMSPY_TASK_EXIT, 0, st.exit_code);
      break;
    }
    case ASMSPY_STOP_EXEC:
      if (st.pid != rm->s->pid) {
        resume(rm, st.tid, 0);
        break;
      }
      if (restart_after_exec(rm, &st)) {
        *gone = 1;
        return 0;
      }
      break;
    case ASMSPY_STOP_NEW_TASK: on_new_task(rm, &st); break;
    case ASMSPY_STOP_SIGNAL: on_signal(rm, &st); break;
    case ASMSPY_STOP_SYSCALL: on_syscall(rm, &st); break;
    case ASMSPY_STOP_GROUP: on_group(rm, &st); break;
    default: resume(rm, st.tid, st.sig); break;
    }
  }
}

/* ------------------------------------------------------------------ leave -- */

/* Every thread stopped (our interrupt), a request on the way answered
 * "native". 0, or the count of threads that never reported. */
static int stop_everyone(struct cc_remote *rm, pid_t except) {
  const struct asmspy_seam_api *seam = rm->host->seam;
  for (size_t i = 0; i < rm->nth; i++) rm->th[i].stopped = rm->th[i].tid == except;
  for (unsigned i = 0; i < rm->ndeferred; i++) { /* stopped already */
    struct rthread *t = rm_thread(rm, rm->deferred[i].tid, 0);
    if (t)
      t->stopped = 1,
      t->owed_sig = rm->deferred[i].kind == ASMSPY_STOP_SIGNAL ? rm->deferred[i].sig : 0;
  }
  rm->ndeferred = 0;
  seam->interrupt_all(rm->sm, except);
  for (;;) {
    size_t waiting = 0;
    for (size_t i = 0; i < rm->nth; i++) waiting += !rm->th[i].stopped;
    if (!waiting) return 0;
    struct asmspy_stop st;
    memset(&st, 0, sizeof st);
    ASMSPY_INIT_HEADER(&st);
    if (seam->next_stop_timeout(rm->sm, &st, 2000) || st.kind == ASMSPY_STOP_TIMEOUT)
      return (int)waiting;
    if (st.kind == ASMSPY_STOP_NONE) return 0;
    if (st.kind == ASMSPY_STOP_INTERRUPTED) continue;
    struct rthread *t =
        st.pid == rm->s->pid ? rm_thread(rm, st.tid, st.kind != ASMSPY_STOP_EXITED) : NULL;
    if (st.kind == ASMSPY_STOP_EXITED) {
      if (t) rm_drain(rm, t, 0, -1), rm_forget(rm, st.tid);
      continue;
    }
    if (!t) { /* a followed child process: it runs natively */
      resume(rm, st.tid, st.kind == ASMSPY_STOP_SIGNAL ? st.sig : 0);
      continue;
    }
    if (st.kind == ASMSPY_STOP_SIGNAL && st.sig == rm->signo && t->slot >= 0 &&
        rm_block(rm, t)[F(CC_RT_REQ)]) {
      rm_answer(rm, t);      /* "native" (rm->leaving) */
      resume(rm, st.tid, 0); /* our interrupt stops it again */
      continue;
    }
    if (st.kind == ASMSPY_STOP_NEW_TASK || st.kind == ASMSPY_STOP_SYSCALL ||
        st.kind == ASMSPY_STOP_EXEC) {
      /* inside a system call (a fork's event stop, a caught syscall): let
       * it finish; our interrupt stops the thread right after. Left here,
       * the fork would return ENOSYS once detached (measured). */
      if (t->catch_nr) t->catch_nr = 0;
      resume(rm, st.tid, 0);
      continue;
    }
    if (st.kind == ASMSPY_STOP_SIGNAL) t->owed_sig = st.sig;
    t->stopped = 1;
  }
}

/* At the leave: the mappings an earlier session left go too, unless a
 * thread still runs in them (then they stay, said). */
static void leave_leftovers(struct cc_remote *rm, pid_t any) {
  pid_t tids[RT_MAX_THREADS];
  uint32_t n = 0;
  for (size_t i = 0; i < rm->nth && n < RT_MAX_THREADS; i++)
    if (rm->th[i].stopped) tids[n++] = rm->th[i].tid;
  rm->rem.tid = any;
  if (remove_leftovers(rm, tids, n))
    rm_note(rm, ASMSPY_NOTE_WARN,
            "codecache: a thread still runs in the code cache an earlier asmspy left: its "
            "mappings stay (the next session removes them)");
}

static void leave(struct cc_remote *rm) {
  rm->leaving = 1;
  int unreported = stop_everyone(rm, 0);
  int stuck = unreported;
  pid_t any = 0;
  for (size_t i = 0; i < rm->nth; i++) {
    struct rthread *t = &rm->th[i];
    if (!t->stopped) continue;
    if (rm_leave(rm, t)) {
      stuck++;
      continue;
    }
    struct user_regs_struct u; /* (one still in an earlier session's cache keeps its own) */
    if (!rm_get_regs(rm, t->tid, &u) && u.gs_base && !rm_in_old_cache(rm, u.rip)) {
      u.gs_base = 0;
      rm_set_regs(rm, t->tid, &u);
    }
    if (!t->foreign) any = t->tid;
  }
  drain_all(rm, 0);
  if (rm->nold && any) leave_leftovers(rm, any);
  if (!stuck && any) {
    rm->rem.tid = any;
    rm_unmap_all(rm);
  } else if (stuck) {
    rm_note(rm, ASMSPY_NOTE_WARN,
            "codecache: %d thread(s) could not be brought out of the code cache; its mappings "
            "stay in the process (each thread leaves them at its next block lookup)",
            stuck);
  }
  for (size_t i = 0; i < rm->nth; i++)
    if (rm->th[i].stopped && rm->th[i].owed_sig) resume(rm, rm->th[i].tid, rm->th[i].owed_sig);
}

/* Every translation goes (remote_thread.c found a munmap/mremap taking away
 * code that was translated): the code at those addresses may be other
 * code next. req, stopped at its request, waits in the dispatcher (which
 * stays); every other thread is stopped and brought out, the tables, the
 * shared hash and the code chunks are emptied (the chunks stay mapped),
 * and the threads go back in, translated afresh on demand. A thread that
 * cannot be stopped keeps the old translations in place (a note). */
static void flush_all(struct cc_remote *rm, struct rthread *req) {
  pid_t rtid = req->tid;
  rm->flush_req = 0;
  rm->leaving = 1;
  int unreported = stop_everyone(rm, rtid);
  int stuck = unreported;
  for (size_t i = 0; i < rm->nth; i++)
    if (rm->th[i].tid != rtid && rm->th[i].stopped && rm_leave(rm, &rm->th[i])) stuck++;
  drain_all(rm, 0);
  if (stuck)
    rm_note(rm, ASMSPY_NOTE_WARN,
            "codecache: code that was translated is being unmapped, and %d thread(s) could not be "
            "brought out of the cache: its translations stay",
            stuck);
  else
    rm_reset_translations(rm);
  rm->flushes++;
  rm->leaving = 0;
  for (size_t i = 0; i < rm->nth; i++) {
    struct rthread *t = &rm->th[i];
    if (t->tid == rtid || !t->stopped) continue;
    rm_enter(rm, t);
    int owed = t->owed_sig;
    t->owed_sig = 0;
    resume(rm, t->tid, owed);
  }
}

static void report(struct cc_remote *rm) {
  if (rm->untranslated)
    rm_note(rm, ASMSPY_NOTE_WARN,
            "codecache: %llu time(s) a thread ran on natively, untraced, until the next sweep: "
            "the code at 0x%llx could not be translated (%s)",
            (unsigned long long)rm->untranslated, (unsigned long long)rm->last_why_ip,
            rm->last_why ? rm->last_why : "?");
  if (rm->debug)
    fprintf(stderr,
            "codecache: %llu instructions, %llu block records flushed, %llu blocks translated "
            "(last cache), %llu caches dropped for an unmap, %llu requests, %llu signals into "
            "handlers, request signal %d, %llu changed blocks translated again\n",
            (unsigned long long)rm->emitted, (unsigned long long)rm->flushed_blocks,
            (unsigned long long)rm->c.nblocks, (unsigned long long)rm->flushes,
            (unsigned long long)rm->requests, (unsigned long long)rm->signals_in, rm->signo,
            (unsigned long long)rm->stale_hits);
}

int cc_remote_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  if (!ASMSPY_HAS(host->seam, inject_syscall) || !ASMSPY_HAS(host->seam, set_regset))
    return -ASMSPY_E_ABI;
  char why[512] = "";
  struct cc_remote *rm = calloc(1, sizeof *rm);
  if (!rm) return -ASMSPY_E_NOMEM;
  rm->host = host;
  rm->s = s;
  rm->discard = getenv("ASMSPY_CODECACHE_DISCARD") && atoi(getenv("ASMSPY_CODECACHE_DISCARD"));
  rm->debug = getenv("ASMSPY_CODECACHE_DEBUG") ? atoi(getenv("ASMSPY_CODECACHE_DEBUG")) : 0;
  struct asmspy_session first = *s;
  /* forks are seen (their parent comes back into the cache at once); a
   * child the user did not ask to follow runs natively */
  first.flags |= ASMSPY_SESS_FOLLOW;
  /* the stop flag is ours to poll (run_loop, every TICK_MS): the seam
   * would answer every wait with INTERRUPTED once it is raised, and the
   * leave must still wait for the threads' stops */
  first.stop = NULL;
  int rc = host->seam->attach(&first, &rm->sm);
  if (rc) {
    free(rm);
    return rc;
  }
  rc = setup(rm, why, sizeof why);
  int gone = 0;
  if (rc) {
    rm_note(rm, ASMSPY_NOTE_WARN, "codecache: %s", why);
    rm->leaving = 1;
    for (size_t i = 0; i < rm->nth; i++) rm_leave(rm, &rm->th[i]);
    rm_unmap_all(rm);
  } else {
    for (size_t i = 0; i < rm->nth; i++) resume(rm, rm->th[i].tid, 0);
    rc = run_loop(rm, &gone);
    if (!gone) leave(rm);
    rm_region_end(rm, 0, 1); /* a sample still open is cut short by the session's end */
  }
  report(rm);
  host->seam->detach(rm->sm);
  cc_cache_fini(&rm->c);
  free(rm->th);
  free(rm->waiting);
  free(rm->wkeys);
  free(rm->whead);
  free(rm);
  return rc;
}
