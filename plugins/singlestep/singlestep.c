/* singlestep: the capture backend that single-steps the target through the
 * host's ptrace seam (EFLAGS.TF), emitting one ASMSPY_EV_INSN per executed
 * instruction.
 * It works wherever ptrace works — no PMU, no privilege beyond ptrace —
 * which is why it is the default backend. Everything ptrace-shaped lives in
 * the host seam; this file is only the stepping policy.
 *
 * Truthfulness: an instruction is emitted only once its step completed (the
 * instruction recorded at stop k is emitted at stop k+1), so the stream never
 * claims an instruction that did not run. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/user.h>
#include <unistd.h>

#include "plugins/common/stop_event.h"
#include "plugins/singlestep/inproc.h"
#include "plugins/singlestep/lost_trap.h"
#include "plugins/singlestep/pushf_trap.h"
#include "plugins/singlestep/region.h"

/* ------------------------------------------------------------- probe -- */

/* A tight loop the probe child runs while we step it. */
static void __attribute__((noinline)) probe_spin(void) {
  for (volatile unsigned long i = 0;; i++) {
  }
}

#define PROBE_STEPS 16
#define PROBE_SPAWN_MS 3000

/* The probe child (spawn_child runs it right after its self-stop). */
static int probe_child(void *arg) {
  (void)arg;
  probe_spin();
  return 0;
}

#if defined(__x86_64__)
/* rcx among the seam's raw registers (user_regs_struct order): a `rep`
 * string instruction counts it down with rip unchanged. */
#define PROBE_GPR_RCX (offsetof(struct user_regs_struct, rcx) / sizeof(uint64_t))
#else
#define PROBE_GPR_RCX 0 /* AArch64 has no repeated instruction: rip alone must move */
#endif

static int singlestep_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  /* The seam's child stops itself before it runs probe_child, so we do not
   * step the kernel's and libc's post-fork work. Runtime code can still run
   * on the way to the loop (ASan sets up its fake stack with a `rep stosb`
   * of ~6.7 KB): the step judgement below counts rep iterations as
   * progress. */
  const struct asmspy_seam_api *seam = host->seam;
  if (!ASMSPY_HAS(seam, spawn_child)) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_ABI, 0, "the host's seam cannot spawn a probe child");
    return 0;
  }
  struct asmspy_seam *sm = NULL;
  pid_t child = 0;
  int rc = seam->spawn_child(probe_child, NULL, PROBE_SPAWN_MS, &sm, &child);
  if (rc && !child) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, -rc, "fork: %s", strerror(-rc));
    return 0;
  }
  if (rc == -ECHILD || rc == -ETIMEDOUT) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, 0, "the probe child died before reaching its loop");
    return 0;
  }
  if (rc) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_PERM, -rc,
                     "PTRACE_TRACEME in a forked child: %s (seccomp or Yama?)", strerror(-rc));
    return 0;
  }
  uint64_t prev_ip = 0, prev_cx = 0;
  int advanced = 0, steps = 0;
  /* Under load a stop other than our step trap may come first (a late
   * group stop): such stops are resumed with a step too and not counted,
   * so only real single-step traps are judged. */
  for (int stops = 0; steps < PROBE_STEPS && stops < 4 * PROBE_STEPS; stops++) {
    struct asmspy_regs r;
    memset(&r, 0, sizeof r);
    ASMSPY_INIT_HEADER(&r);
    if (seam->get_regs(sm, child, &r) != 0) break;
    /* A `rep` string instruction traps once per iteration with rip
     * unchanged and rcx counting down: that is progress too. */
    uint64_t cx = r.gpr[PROBE_GPR_RCX];
    if (steps && (r.ip != prev_ip || cx != prev_cx)) advanced++;
    prev_ip = r.ip;
    prev_cx = cx;
    if (seam->step(sm, child, 0) != 0) break;
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    if (seam->next_stop(sm, &stop) != 0 || stop.kind == ASMSPY_STOP_EXITED ||
        stop.kind == ASMSPY_STOP_NONE)
      break;
    if (stop.kind == ASMSPY_STOP_STEP) steps++;
  }
  seam->detach(sm); /* kills and reaps the child */
  /* A loop's rip moves on every step; demand that nearly every step moved
   * it (or ran one more iteration of a rep instruction). */
  if (steps == PROBE_STEPS && advanced >= PROBE_STEPS / 2) {
    ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0, "single-stepped a forked child: %d/%d steps advanced",
                     advanced, PROBE_STEPS - 1);
    res->caps_available = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_TASKS;
  } else {
    ASMSPY_PROBE_SET(res, ASMSPY_E_VIRT, 0,
                     "PTRACE_SINGLESTEP did not advance a forked child (%d steps, %d advanced)",
                     steps, advanced);
  }
  return 0;
}

/* --------------------------------------------------------------- run -- */

/* What each thread was about to execute at its last stop. */
struct pending_insn {
  pid_t tid;
  int valid;
  /* The thread runs its own SIGTRAP handler with SIGTRAP blocked: it runs
   * syscall-to-syscall (PTRACE_SYSCALL) until its mask unblocks SIGTRAP
   * (rt_sigreturn, or sigprocmask after a siglongjmp), then stepping resumes.
   * Stepping it meanwhile would make the kernel reset its handler. */
  int in_trap_handler;
  int seen; /* its first stop was looked at (attach may land in that handler) */
  uint64_t ip, sp;
  uint8_t bytes[16];
  uint8_t len;
  struct asmspy_target *target;
  /* Code prefetch: 64 bytes read at the last jump target. Straight-line
   * steps (ip == previous ip + length) inside the window reuse it instead of
   * a process_vm_readv per step; any other ip re-reads. Code rewritten in the
   * 64 bytes ahead of a thread by that same straight line is the one case it
   * would miss; JITs write code elsewhere and jump to it, which re-reads. */
  uint8_t window[64];
  uint64_t win_base;
  uint32_t win_len;
  uint64_t fallthrough; /* ip + length of the recorded instruction */
  int can_trap;         /* see classify() */
  int straight;
  int sp_known;            /* sp was read (not predicted past) */
  struct asmspy_regs regs; /* as read at the stop, when sp_known */
};

struct step_state {
  const struct asmspy_host_api *host;
  struct asmspy_seam *seam;
  const struct asmspy_session *s;
  struct pending_insn *threads;
  size_t nthreads, cap;
  uint64_t seq;
  int sink_stop;
  int predict;         /* fall-through prediction enabled (see predict_next) */
  uint64_t predicted;  /* predicted steps so far */
  int lost_trap_noted; /* lost_trap.h: said once per session */
};

static struct pending_insn *pending_for(struct step_state *st, pid_t tid) {
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) return &st->threads[i];
  if (st->nthreads == st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 16;
    struct pending_insn *np = realloc(st->threads, nc * sizeof *np);
    if (!np) return NULL;
    st->threads = np;
    st->cap = nc;
  }
  struct pending_insn *p = &st->threads[st->nthreads++];
  memset(p, 0, sizeof *p);
  p->tid = tid;
  return p;
}

static void forget_thread(struct step_state *st, pid_t tid) {
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) {
      st->threads[i] = st->threads[--st->nthreads];
      return;
    }
}

static int emit_event(struct step_state *st, struct asmspy_event *ev) {
  ev->seq = ++st->seq;
  if (st->s->sink(st->s->sink_ctx, ev)) st->sink_stop = 1;
  return st->sink_stop;
}

/* The thread's step completed: the instruction we recorded ran. */
static void emit_completed(struct step_state *st, struct pending_insn *p, pid_t pid,
                           uint32_t nthreads) {
  if (!p->valid) return;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_INSN;
  ev.pid = pid;
  ev.tid = p->tid;
  ev.nthreads = nthreads;
  ev.ip = p->ip;
  ev.target = p->target;
  memcpy(ev.u.insn.bytes, p->bytes, sizeof p->bytes);
  ev.u.insn.len = p->len;
  ev.u.insn.sp = p->sp_known ? p->sp : 0;
  if (!p->sp_known) ev.flags |= ASMSPY_EVF_SP_UNKNOWN;
  ev.regs = p->sp_known ? &p->regs : NULL;
  p->valid = 0;
  emit_event(st, &ev);
}

/* What kind of instruction is pending, from its (cached) disassembly. */
struct insn_class {
  int can_trap; /* may raise SIGTRAP itself / report at syscall exit */
  int straight; /* the next ip is exactly ip + length (no control flow) */
};

static int starts_with_any(const char *text, const char *const *words, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strncmp(text, words[i], strlen(words[i])) == 0) return 1;
  return 0;
}

/* Why this stays a list of mnemonics and does not use host->insn_class:
 * `straight` lets the step loop predict the next ip without reading
 * registers, so it must be false for every instruction that might not fall
 * through — and most of that list is no branch class at all (rep string
 * ops, mov/pop ss, cpuid's lost trap, ud*, RTM, SGX, hlt). The host's
 * classes answer "is it a call / ret / jump", the questions the views ask;
 * a wrong "straight" here would corrupt the stream, so the conservative
 * x86 list is kept whole. */
static struct insn_class classify(const char *text) {
  /* int, int3, int1, into, syscall, sysenter, icebp */
  static const char *const trapping[] = {"int", "syscall", "sysenter", "icebp"};
  /* Anything that may not fall through: branches (j*, loop*, call, ret,
   * iret, sysret/exit), the trapping ones above, rep-prefixed string ops
   * (one iteration per step, same ip), prefixed branches (bnd/notrack),
   * ud2 and friends, hlt, RTM, mov/pop ss (which suppresses the next trap so one
   * step covers two instructions), and cpuid (its trap is lost here: see
   * lost_trap.h; the stop after it must be read, not predicted). */
  static const char *const flow[] = {"j",     "loop",   "call",  "ret",       "iret",    "sys",
                                     "int",   "icebp",  "rep",   "bnd",       "notrack", "ud",
                                     "hlt",   "xbegin", "xend",  "xabort",    "mov ss",  "pop ss",
                                     "lcall", "ljmp",   "enclu", "xresldtrk", "cpuid"};
  struct insn_class c;
  c.can_trap = starts_with_any(text, trapping, sizeof trapping / sizeof *trapping);
  c.straight = text[0] && !starts_with_any(text, flow, sizeof flow / sizeof *flow);
  return c;
}

/* Fill the pending instruction's bytes for p->ip: reuse the prefetch window
 * on a straight-line step, else read 64 bytes at ip. Then classify it. */
static void load_pending_bytes(struct step_state *st, struct pending_insn *p,
                               struct asmspy_target *target, int after_step) {
  int sequential = after_step && p->ip == p->fallthrough && p->win_len && p->ip >= p->win_base &&
                   p->ip + sizeof p->bytes <= p->win_base + p->win_len && p->target == target;
  if (!sequential) {
    ssize_t n = target ? st->host->read_mem(target, p->ip, p->window, sizeof p->window) : -1;
    p->win_base = p->ip;
    p->win_len = n > 0 ? (uint32_t)n : 0;
  }
  size_t avail = p->win_len > p->ip - p->win_base ? p->win_len - (p->ip - p->win_base) : 0;
  if (avail > sizeof p->bytes) avail = sizeof p->bytes;
  memcpy(p->bytes, p->window + (p->ip - p->win_base), avail);
  p->len = (uint8_t)avail;
  p->valid = avail > 0;
  p->target = target;
  char text[64];
  int ilen = p->valid ? st->host->disasm(p->ip, p->bytes, p->len, text, sizeof text) : 0;
  p->fallthrough = ilen > 0 ? p->ip + (uint64_t)ilen : 0;
  struct insn_class c = ilen > 0 ? classify(text) : (struct insn_class){1, 0};
  p->can_trap = c.can_trap;
  p->straight = c.straight;
}

/* Record what tid is about to execute, reading its registers. */
static void record_next(struct step_state *st, struct pending_insn *p,
                        const struct asmspy_stop *stop) {
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  p->valid = 0;
  if (st->host->seam->get_regs(st->seam, stop->tid, &regs) != 0) return;
  p->ip = regs.ip;
  p->sp = regs.sp;
  p->sp_known = 1;
  p->regs = regs;
#if defined(__x86_64__)
  /* Stopped inside an interrupted syscall (our attach INTERRUPT, or a signal):
   * rax holds -ERESTART* and, on resume, the kernel rewinds rip by 2 to run
   * the `syscall` instruction again. That instruction — not the one at rip —
   * is what the next step executes. gpr[10] = rax, gpr[15] = orig_rax. */
  if (stop->kind == ASMSPY_STOP_GROUP || stop->kind == ASMSPY_STOP_SIGNAL) {
    int64_t rax = (int64_t)regs.gpr[10], orig_rax = (int64_t)regs.gpr[15];
    uint8_t prev[2];
    if (orig_rax >= 0 && rax >= -516 && rax <= -512 && stop->target &&
        st->host->read_mem(stop->target, regs.ip - 2, prev, 2) == 2 && prev[0] == 0x0f &&
        prev[1] == 0x05)
      p->ip = regs.ip - 2;
  }
#elif defined(__aarch64__)
  /* The same on AArch64: x0 holds -ERESTART*, and the kernel rewinds pc by 4
   * onto the `svc #0` when the call number (NT_ARM_SYSTEM_CALL) is one. */
  if (stop->kind == ASMSPY_STOP_GROUP || stop->kind == ASMSPY_STOP_SIGNAL) {
    int64_t x0 = (int64_t)regs.gpr[0];
    int no = -1;
    size_t nlen = sizeof no;
    uint8_t prev[4];
    static const uint8_t svc0[4] = {0x01, 0x00, 0x00, 0xd4};
    /* the regset that holds the call a restart re-runs: the arch shim's */
    uint32_t nt = ASMSPY_HAS(st->host, arch) && st->host->arch ? st->host->arch->syscall_regset : 0;
    if (x0 >= -516 && x0 <= -512 && stop->target && nt &&
        st->host->seam->get_regset(st->seam, stop->tid, nt, &no, &nlen) == 0 && no >= 0 &&
        st->host->read_mem(stop->target, regs.ip - 4, prev, 4) == 4 && memcmp(prev, svc0, 4) == 0)
      p->ip = regs.ip - 4;
  }
#endif
  load_pending_bytes(st, p, stop->target, stop->kind == ASMSPY_STOP_STEP);
}

/* After a plain step of a straight-line instruction the next ip is known
 * without asking the kernel: ip + length (the ISA's definition of falling
 * through). Saves the PTRACE_GETREGS round trip on most steps; sp is then
 * not known for that event (ASMSPY_EVF_SP_UNKNOWN). Every VERIFY_EVERY-th
 * predicted step is checked against the registers; a mismatch turns
 * prediction off for the session with a note. */
#define VERIFY_EVERY 64
static int predict_next(struct step_state *st, struct pending_insn *p,
                        const struct asmspy_stop *stop) {
  if (!st->predict || !p->straight || !p->fallthrough) return 0;
  uint64_t predicted = p->fallthrough;
  if (++st->predicted % VERIFY_EVERY == 0) {
    record_next(st, p, stop);
    if (p->valid && p->ip != predicted) {
      st->predict = 0;
      st->host->note(st->s->out, ASMSPY_NOTE_WARN,
                     "singlestep: fall-through prediction was wrong at 0x%llx (predicted 0x%llx); "
                     "reading registers on every step from now on",
                     (unsigned long long)p->ip, (unsigned long long)predicted);
    }
    return 1;
  }
  p->ip = predicted;
  p->sp_known = 0;
  load_pending_bytes(st, p, stop->target, 1);
  return 1;
}

static void emit_task(struct step_state *st, const struct asmspy_stop *stop, uint32_t what,
                      int child, int code) {
  struct asmspy_event ev;
  stop_task_event(&ev, stop, what, child, code);
  emit_event(st, &ev);
}

/* Did the step that just completed execute the pending instruction? */
static int step_executed_pending(const struct pending_insn *p, const struct asmspy_stop *stop) {
  if (!ASMSPY_HAS(stop, si_code)) return 1;
  switch (stop->si_code) {
  case 5: /* SIGTRAP via ptrace_notify: a handler frame was set up */ return 0;
  case 1: /* TRAP_BRKPT: reported at syscall exit. Only a `syscall` we
           * stepped into ran; a step begun inside a syscall (exec / attach
           * stop) reports here without running any user instruction. */
    return p->valid && p->len >= 2 && p->bytes[0] == 0x0f && p->bytes[1] == 0x05;
  default: /* TRAP_TRACE */ return 1;
  }
}

/* The step over a cpuid at lost_after - 2 stopped elsewhere than its
 * fall-through lost_after: the trap after cpuid was lost (lost_trap.h) and
 * the instruction at lost_after ran unobserved. Report it, from its bytes and
 * without registers, when it is the one instruction that leads to where the
 * thread now is; otherwise say what ran unobserved. */
static void emit_unobserved(struct step_state *st, const struct pending_insn *p,
                            uint64_t lost_after, const struct asmspy_stop *stop) {
  struct pending_insn q = *p;
  q.ip = lost_after;
  q.win_len = 0;
  load_pending_bytes(st, &q, stop->target, 0);
  if (!q.valid || !ss_lost_trap_explains(st->host, q.ip, q.bytes, q.len, p->ip)) {
    st->host->note(st->s->out, ASMSPY_NOTE_WARN, SS_LOST_TRAP_GAP_NOTE,
                   (unsigned long long)(lost_after - 2), (unsigned long long)p->ip,
                   (unsigned long long)lost_after);
    return;
  }
  if (!st->lost_trap_noted) {
    st->lost_trap_noted = 1;
    st->host->note(st->s->out, ASMSPY_NOTE_WARN, SS_LOST_TRAP_NOTE,
                   (unsigned long long)(lost_after - 2), (unsigned long long)lost_after);
  }
  q.sp_known = 0;
  emit_completed(st, &q, stop->pid, stop->nthreads);
}

/* A thread left the target: its last instruction (exit/exit_group) ran.
 * Returns nonzero when the sink asked to stop. */
static int on_thread_exit(struct step_state *st, const struct asmspy_stop *stop) {
  struct pending_insn *p = pending_for(st, stop->tid);
  /* exit_group/exit was the last instruction: it ran */
  if (p) emit_completed(st, p, stop->pid, stop->nthreads);
  forget_thread(st, stop->tid);
  if (!st->sink_stop) emit_task(st, stop, ASMSPY_TASK_EXIT, 0, stop->exit_code);
  return st->sink_stop;
}

/* What a stop says about the thread's pending instruction: emit it when it
 * ran, report task events. Returns the signal to hand back to the thread;
 * sets *lost_after to the fall-through of a cpuid that just ran. */
static int account_stop(struct step_state *st, struct pending_insn *p,
                        const struct asmspy_stop *stop, uint64_t *lost_after) {
  const struct asmspy_seam_api *seam = st->host->seam;
  switch (stop->kind) {
  case ASMSPY_STOP_STEP:
    if (step_executed_pending(p, stop)) {
      int width;
      if (p->valid && ss_is_cpuid(p->bytes, p->len)) *lost_after = p->fallthrough;
      if (p->valid && p->target && ss_is_pushf(p->bytes, p->len, &width))
        ss_unleak_pushf(st->host, st->seam, p->target, stop->tid, width);
      emit_completed(st, p, stop->pid, stop->nthreads);
    }
    /* si_code 5: a handler frame was just set up. If the handler runs with
     * SIGTRAP blocked, do not step it (see in_trap_handler). */
    if (ASMSPY_HAS(stop, si_code) && stop->si_code == 5 && ASMSPY_HAS(seam, signal_blocked) &&
        seam->signal_blocked(st->seam, stop->tid, SIGTRAP))
      p->in_trap_handler = 1;
    return 0;
  case ASMSPY_STOP_SYSCALL:
    if (p->in_trap_handler && !seam->signal_blocked(st->seam, stop->tid, SIGTRAP))
      p->in_trap_handler = 0; /* mask restored: step again from here */
    return 0;
  case ASMSPY_STOP_TARGET_TRAP:
    /* the pending int3 retired and trapped: it ran; hand the trap back so
     * the target's own handler runs (stepping continues into it) */
    emit_completed(st, p, stop->pid, stop->nthreads);
    return stop->sig;
  case ASMSPY_STOP_SIGNAL:
    /* an asynchronous signal (or a fault) stops the thread BEFORE the
     * pending instruction runs (or retires): nothing to emit; deliver it */
    return stop->sig;
  case ASMSPY_STOP_NEW_TASK:
    emit_completed(st, p, stop->pid, stop->nthreads); /* the clone/fork syscall ran */
    if (!st->sink_stop)
      emit_task(st, stop, stop->is_process ? ASMSPY_TASK_FORK : ASMSPY_TASK_CLONE, stop->new_tid,
                0);
    return 0;
  case ASMSPY_STOP_EXEC:
    p->valid = 0; /* the old image is gone */
    emit_task(st, stop, ASMSPY_TASK_EXEC, 0, 0);
    return 0;
  default: /* GROUP / SYSCALL: nothing executed since the last stop */ return 0;
  }
}

/* Set the thread going again: natively while it is inside the target's own
 * SIGTRAP handler; otherwise record the next pending instruction and step
 * it (plain when it cannot trap, emulated when the seam must). */
static void step_again(struct step_state *st, struct pending_insn *p,
                       const struct asmspy_stop *stop, int deliver, uint64_t lost_after) {
  const struct asmspy_seam_api *seam = st->host->seam;
  struct asmspy_seam *sm = st->seam;
  if (p->in_trap_handler) {
    p->valid = 0;
    seam->resume_syscall(sm, stop->tid, deliver);
    return;
  }
  int plain_stop = stop->kind == ASMSPY_STOP_STEP && stop->si_code == 2 /* TRAP_TRACE */;
  if (!(plain_stop && !deliver && predict_next(st, p, stop))) record_next(st, p, stop);
  if (lost_after && p->valid && p->ip != lost_after) emit_unobserved(st, p, lost_after, stop);
  int plain = !deliver && plain_stop && p->valid && !p->can_trap && ASMSPY_HAS(seam, step_plain);
  /* the seam emulates what the kernel must not step (x86 popf, 1.11) */
  if (!deliver && p->valid && ASMSPY_HAS(seam, emulate_step) &&
      seam->emulate_step(sm, stop->tid, p->ip, p->bytes, p->len) == 1)
    return;
  if ((plain ? seam->step_plain(sm, stop->tid) : seam->step(sm, stop->tid, deliver)) != 0) {
    /* the thread died under us: its exit arrives via next_stop */
    p->valid = 0;
  }
}

static int singlestep_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  if (ASMSPY_HAS(s, region_len) && s->region_len) return region_run(host, s); /* --trace etc. */
  const struct asmspy_seam_api *seam = host->seam;
  struct asmspy_seam *sm = NULL;
  int rc = seam->attach(s, &sm);
  if (rc) return rc;
  /* a view that needs exact sp/regs on every step turns prediction off */
  struct step_state st = {
      .host = host, .seam = sm, .s = s, .predict = !(s->flags & ASMSPY_SESS_EXACT_SP)};
  int result = 0;
  for (;;) {
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    if (seam->next_stop(sm, &stop) != 0) {
      result = -ASMSPY_E_INTERNAL;
      break;
    }
    if (stop.kind == ASMSPY_STOP_INTERRUPTED) break;
    if (stop.kind == ASMSPY_STOP_NONE) {
      result = ASMSPY_FACT_EXITED;
      break;
    }
    if (stop.kind == ASMSPY_STOP_EXITED) {
      if (on_thread_exit(&st, &stop)) break;
      continue;
    }
    struct pending_insn *p = pending_for(&st, stop.tid);
    if (!p) {
      result = -ASMSPY_E_NOMEM;
      break;
    }
    uint64_t lost_after = 0; /* the fall-through of a cpuid that just ran */
    /* A thread first met with SIGTRAP blocked is inside the target's own
     * SIGTRAP handler (attach landed there, issue 24): run it natively like
     * one entered under our eyes, or its first step resets the handler. */
    if (!p->seen) {
      p->seen = 1;
      if (ASMSPY_HAS(seam, signal_blocked) && seam->signal_blocked(sm, stop.tid, SIGTRAP))
        p->in_trap_handler = 1;
    }
    int deliver = account_stop(&st, p, &stop, &lost_after);
    if (st.sink_stop || (s->stop && *s->stop)) break;
    step_again(&st, p, &stop, deliver, lost_after);
  }
  seam->detach(sm);
  free(st.threads);
  return result;
}

static const struct asmspy_backend_ops singlestep_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = singlestep_run,
    .inproc_begin = ss_inproc_begin, /* 1.4: scopes (inproc.c) */
    .inproc_end = ss_inproc_end,
    /* 1.8: every instruction by EFLAGS.TF: the scope ladder's fallback */
    .inproc_tier = ASMSPY_TIER_WEAK,
    .inproc_order = 10,
};

static const struct asmspy_plugin singlestep_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "singlestep",
    .description = "ptrace single-step (EFLAGS.TF): every executed instruction, no PMU needed",
    .caps = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_TASKS |
            ASMSPY_CAP_EXACT_SP | ASMSPY_CAP_REGION | ASMSPY_CAP_INPROCESS,
    .probe = singlestep_probe,
    .backend = &singlestep_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(singlestep_plugin)
