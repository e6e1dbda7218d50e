/* Region capture for the singlestep backend (--trace, --dataflow): whole
 * invocations of one code region [start, start+len).
 *
 * Per sample:
 *   1. an int3 at the region's entry; every thread runs at native speed until
 *      one arrives (bounded wait: session entry_wait_ms);
 *   2. the entry byte is restored; the other threads run on (a sampled
 *      thread blocked in a syscall must not freeze the target);
 *   3. the sampled thread is single-stepped; every instruction inside the
 *      region becomes an INSN event carrying the registers before it ran;
 *   4. a verified call out of the region (sp dropped one slot, the return
 *      address on the stack is the call's fall-through) is stepped over at
 *      native speed: int3 at the return address, continue, and accept the hit
 *      only when sp is back at the caller's level — a recursive call or a
 *      callback into the region hitting the same address deeper in the stack
 *      is stepped past, so it cannot hijack the resume; another thread
 *      that meets that breakpoint is never held there (it may own a lock
 *      the sampled thread waits for inside the call): the sampled thread is
 *      stopped, the other stepped past with the breakpoint out, the
 *      breakpoint put back, and both run on (step_over_call);
 *   5. the sample ends when sp rises above the entry frame (ret, tail call
 *      then ret, longjmp), with the return register as the result.
 * Breakpoint bytes are always restored before detaching.
 *
 * Threads racing into the region: the seam names every int3 of ours
 * (ASMSPY_STOP_BREAKPOINT) and has already rewound the thread onto it, so
 * an arrival that is not sampled now is stepped past the original
 * instruction or resumed onto the breakpoint again: it comes back, it is
 * never lost and never handed a SIGTRAP. No thread other than the sampled
 * one is ever left stopped for the length of a sample (issue 24: it may
 * hold what the sampled thread needs). An arrival inside the target's own SIGTRAP
 * handler (SIGTRAP blocked: the kernel resets the handler at any trap
 * there; the seam puts it back) is refused with that reason: stepping it
 * would reset the handler at every step. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugins/common/insn_class.h"
#include "plugins/singlestep/lost_trap.h"
#include "plugins/singlestep/pushf_trap.h"
#include "plugins/singlestep/region.h"
#include "common/arch_insn.h"

/* the trap planted at the entry and at a call-out's return (int3; brk #0) */
static const uint8_t BREAK_INSN[] = ARCH_BREAK_INSN;

struct region_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct asmspy_seam *sm;
  uint64_t seq;
  int sink_stop;
  /* breakpoints currently planted: address -> original bytes */
  struct {
    uint64_t addr;
    uint8_t orig[ARCH_BREAK_LEN];
    int live;
  } bp[2]; /* [0] entry, [1] step-over return */
  struct asmspy_target *target;
  int lost_trap_noted; /* lost_trap.h: said once per session */
  int blocked_noted;   /* a sample cut in a blocking syscall: said once */
};

static int emit(struct region_state *rs, struct asmspy_event *ev) {
  ev->abi_version = ASMSPY_ABI_VERSION;
  ev->struct_size = sizeof *ev;
  ev->seq = ++rs->seq;
  if (rs->s->sink(rs->s->sink_ctx, ev)) rs->sink_stop = 1;
  return rs->sink_stop;
}

static int bp_plant(struct region_state *rs, int slot, uint64_t addr) {
  uint8_t orig[ARCH_BREAK_LEN];
  if (rs->host->read_mem(rs->target, addr, orig, ARCH_BREAK_LEN) != ARCH_BREAK_LEN) return -1;
  if (rs->host->write_mem(rs->target, addr, BREAK_INSN, ARCH_BREAK_LEN) != ARCH_BREAK_LEN)
    return -1;
  rs->bp[slot].addr = addr;
  memcpy(rs->bp[slot].orig, orig, ARCH_BREAK_LEN);
  rs->bp[slot].live = 1;
  return 0;
}

static void bp_remove(struct region_state *rs, int slot) {
  if (!rs->bp[slot].live) return;
  rs->host->write_mem(rs->target, rs->bp[slot].addr, rs->bp[slot].orig, ARCH_BREAK_LEN);
  rs->bp[slot].live = 0;
}

static int get_regs(struct region_state *rs, pid_t tid, struct asmspy_regs *r) {
  memset(r, 0, sizeof *r);
  ASMSPY_INIT_HEADER(r);
  return rs->host->seam->get_regs(rs->sm, tid, r);
}

/* Did this stop come from our int3 at slot? (The seam rewound ip onto it.) */
static int hit_bp(struct region_state *rs, int slot, const struct asmspy_stop *st) {
  return rs->bp[slot].live && st->kind == ASMSPY_STOP_BREAKPOINT && st->addr == rs->bp[slot].addr;
}

/* An executed instruction at ip; r holds the registers before it, or is
 * NULL when it ran unobserved (lost_trap.h). */
static void emit_insn(struct region_state *rs, pid_t tid, pid_t pid, uint64_t ip,
                      const struct asmspy_regs *r) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = ASMSPY_EV_INSN;
  ev.tid = tid;
  ev.pid = pid;
  ev.nthreads = 1; /* one thread is sampled at a time: no [tid] prefix */
  ev.ip = ip;
  ev.target = rs->target;
  ssize_t n = rs->host->read_mem(rs->target, ip, ev.u.insn.bytes, sizeof ev.u.insn.bytes);
  ev.u.insn.len = n > 0 ? (uint8_t)n : 0;
  ev.u.insn.sp = r ? r->sp : 0;
  if (!r) ev.flags |= ASMSPY_EVF_SP_UNKNOWN;
  ev.regs = r;
  emit(rs, &ev);
}

static void emit_region(struct region_state *rs, uint16_t type, pid_t tid, uint64_t sample,
                        uint64_t retval, int truncated, int reached, uint64_t ip) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = type;
  ev.tid = tid;
  ev.pid = rs->s->pid;
  ev.nthreads = 1;
  ev.ip = ip;
  ev.target = rs->target;
  ev.u.region.start = rs->s->region_start;
  ev.u.region.len = rs->s->region_len;
  ev.u.region.retval = retval;
  ev.u.region.sample = sample;
  ev.u.region.truncated = (uint32_t)truncated;
  ev.u.region.reached = (uint32_t)reached;
  emit(rs, &ev);
}

/* Resume a stopped thread the way its stop asks (signals delivered). */
static void resume_for(struct region_state *rs, const struct asmspy_stop *st) {
  int sig = (st->kind == ASMSPY_STOP_SIGNAL || st->kind == ASMSPY_STOP_TARGET_TRAP) ? st->sig : 0;
  rs->host->seam->resume(rs->sm, st->tid, sig);
}

static int in_region(const struct asmspy_session *s, uint64_t ip) {
  return ip >= s->region_start && ip < s->region_start + s->region_len;
}

/* The step over the cpuid at cpuid_ip stopped at now_ip, not at its
 * fall-through: report the instruction that ran unobserved (lost_trap.h). */
static void emit_unobserved(struct region_state *rs, pid_t tid, uint64_t cpuid_ip,
                            uint64_t now_ip) {
  uint64_t ip = cpuid_ip + 2;
  uint8_t b[16];
  ssize_t n = rs->host->read_mem(rs->target, ip, b, sizeof b);
  if (n <= 0 || !ss_lost_trap_explains(rs->host, ip, b, (size_t)n, now_ip)) {
    rs->host->note(rs->s->out, ASMSPY_NOTE_WARN, SS_LOST_TRAP_GAP_NOTE,
                   (unsigned long long)cpuid_ip, (unsigned long long)now_ip,
                   (unsigned long long)ip);
    return;
  }
  if (!rs->lost_trap_noted) {
    rs->lost_trap_noted = 1;
    rs->host->note(rs->s->out, ASMSPY_NOTE_WARN, SS_LOST_TRAP_NOTE, (unsigned long long)cpuid_ip,
                   (unsigned long long)ip);
  }
  if (in_region(rs->s, ip)) emit_insn(rs, tid, rs->s->pid, ip, NULL);
}

/* How long one stepped `syscall` may block before the sample is cut and
 * its thread let go (an idle worker parked in epoll_pwait must not hold
 * the session, nor be reported as a sample that never ends). */
#define REGION_SYSCALL_BLOCK_MS 500

static int is_live_bp(const struct region_state *rs, const struct asmspy_stop *st) {
  for (int i = 0; i < 2; i++)
    if (rs->bp[i].live && st->kind == ASMSPY_STOP_BREAKPOINT && st->addr == rs->bp[i].addr)
      return 1;
  return 0;
}

/* Wait for tid's own next stop (into *out when given). Another thread
 * that sits on a breakpoint still planted is held there (rewound by the
 * seam, it arrives again when released); any other stop of another thread
 * is resumed at once, its signal delivered — a thread that reached the
 * entry while it was out runs on unobserved, never frozen for the length
 * of a sample. timeout_ms > 0 bounds the wait: 1 = it ran out. Returns -1
 * when tid is gone or the session must stop. */
static int wait_for_tid_within(struct region_state *rs, pid_t tid, struct asmspy_stop *out,
                               int64_t timeout_ms) {
  struct asmspy_stop st;
  for (;;) {
    memset(&st, 0, sizeof st);
    ASMSPY_INIT_HEADER(&st);
    int rc = timeout_ms > 0 ? rs->host->seam->next_stop_timeout(rs->sm, &st, timeout_ms)
                            : rs->host->seam->next_stop(rs->sm, &st);
    if (rc != 0) return -1;
    if (st.kind == ASMSPY_STOP_TIMEOUT) return 1;
    if (st.kind == ASMSPY_STOP_INTERRUPTED || st.kind == ASMSPY_STOP_NONE) return -1;
    if (st.tid != tid) {
      if (st.kind != ASMSPY_STOP_EXITED && !is_live_bp(rs, &st)) resume_for(rs, &st);
      continue;
    }
    if (st.kind == ASMSPY_STOP_EXITED) return -1;
    if (out) *out = st;
    return 0;
  }
}

/* How many interrupt stops in a row one step may meet before its stop is
 * taken as it is (each is a real stop of the thread; this only bounds the
 * loop). */
#define STEP_GROUP_RETRIES 64

/* Single-step tid once (sig delivered) and wait for its stop, as
 * wait_for_tid_within. An ASMSPY_STOP_GROUP stop before the step's own is
 * no step: an interrupt (interrupt_all, below) still pending when the step
 * was asked for, or a job-control stop and its SIGCONT wake-up, each taken
 * before any instruction ran (or, for a step whose trap was already queued,
 * reported ahead of that trap). Stepping again then executes the one
 * instruction, or collects the queued trap, so the caller never sees the
 * same instruction as stepped twice. */
static int step_tid(struct region_state *rs, pid_t tid, int sig, struct asmspy_stop *out,
                    int64_t timeout_ms) {
  for (int tries = 0;; tries++) {
    if (rs->host->seam->step(rs->sm, tid, sig) != 0) return -1;
    sig = 0;
    int w = wait_for_tid_within(rs, tid, out, timeout_ms);
    if (w != 0 || out->kind != ASMSPY_STOP_GROUP || tries >= STEP_GROUP_RETRIES) return w;
  }
}

/* The next stop of any thread while tid runs natively: -1 when the session
 * must end (stopped, nothing left to trace, or tid itself exited); another
 * thread's exit comes back as an EXITED stop for the caller to pass over. */
static int next_stop_while(struct region_state *rs, pid_t tid, struct asmspy_stop *st) {
  memset(st, 0, sizeof *st);
  ASMSPY_INIT_HEADER(st);
  if (rs->host->seam->next_stop(rs->sm, st) != 0) return -1;
  if (st->kind == ASMSPY_STOP_INTERRUPTED || st->kind == ASMSPY_STOP_NONE) return -1;
  if (st->kind == ASMSPY_STOP_EXITED && st->tid == tid) return -1;
  return 0;
}

/* How many threads met at the step-over breakpoint are passed in one go;
 * more arrive at it again (they are resumed onto it) and go in the next. */
#define HELD_MAX 64

/* Step a thread sitting on the step-over return address (bp[1] out) past
 * the original instruction. *last gets its final stop, which the caller
 * resumes it from: a signal that came before the instruction ran is then
 * delivered and the thread meets the breakpoint again later. */
static void pass_over(struct region_state *rs, pid_t tid, struct asmspy_stop *last) {
  memset(last, 0, sizeof *last);
  ASMSPY_INIT_HEADER(last);
  last->tid = tid;
  last->kind = ASMSPY_STOP_GROUP; /* resumed without a signal unless one came */
  if (step_tid(rs, tid, 0, last, 0) != 0) last->tid = 0; /* gone */
}

/* Another thread, held, sits on the step-over breakpoint while the sampled
 * thread tid runs the call natively. It must not stay there: it may own
 * what tid waits for inside the call (a lock taken in the callee and held
 * across its return: issue 24's freeze). Stepping it past with the
 * breakpoint out would open a window in which tid returns unseen, so tid
 * is stopped first (interrupt_all); every thread that reaches the
 * breakpoint meanwhile is passed with it, then the breakpoint goes back and
 * they all run on. *tid_stop receives tid's first stop since the interrupt:
 * the interrupt's own (ASMSPY_STOP_GROUP), or one that beat it (its return
 * to the breakpoint, a signal) — then the interrupt stays pending and is
 * reported at tid's next resume (step_tid absorbs it). 0, or -1 when tid
 * is gone or the session must stop. */
static int release_held(struct region_state *rs, pid_t tid, pid_t held,
                        struct asmspy_stop *tid_stop) {
  const struct asmspy_seam_api *seam = rs->host->seam;
  pid_t hold[HELD_MAX];
  struct asmspy_stop last[HELD_MAX];
  int n = 0;
  hold[n++] = held;
  seam->interrupt_all(rs->sm, held);
  for (;;) {
    struct asmspy_stop st;
    if (next_stop_while(rs, tid, &st) != 0) return -1;
    if (st.kind == ASMSPY_STOP_EXITED) continue; /* another thread's */
    if (st.tid == tid) {
      *tid_stop = st;
      break;
    }
    if (hit_bp(rs, 1, &st) && n < HELD_MAX)
      hold[n++] = st.tid;
    else
      resume_for(rs, &st); /* onto the breakpoint again, if that is where it was */
  }
  bp_remove(rs, 1);
  for (int i = 0; i < n; i++) pass_over(rs, hold[i], &last[i]);
  int rc = bp_plant(rs, 1, rs->bp[1].addr) == 0 ? 0 : -1;
  for (int i = 0; i < n; i++)
    if (last[i].tid) resume_for(rs, &last[i]);
  return rc;
}

/* Run the sampled thread natively until it returns from a call out of the
 * region: the return breakpoint hit with sp back at call_sp + 8. Other
 * threads run on throughout; one that meets the return breakpoint is
 * passed over it (release_held), never kept. */
static int step_over_call(struct region_state *rs, pid_t tid, uint64_t ret_addr,
                          uint64_t sp_after_ret) {
  const struct asmspy_seam_api *seam = rs->host->seam;
  if (bp_plant(rs, 1, ret_addr) != 0) return -1;
  seam->resume(rs->sm, tid, 0);
  for (;;) {
    struct asmspy_stop st;
    if (next_stop_while(rs, tid, &st) != 0) return -1;
    if (st.kind == ASMSPY_STOP_EXITED) continue; /* another thread's */
    if (st.tid != tid) {
      if (!hit_bp(rs, 1, &st)) {
        resume_for(rs, &st); /* a signal, a clone, an interrupt: it runs on */
        continue;
      }
      struct asmspy_stop mine;
      if (release_held(rs, tid, st.tid, &mine) != 0) return -1;
      st = mine; /* tid is stopped now: go on from its stop */
    }
    if (hit_bp(rs, 1, &st)) {
      struct asmspy_regs r;
      if (get_regs(rs, tid, &r) != 0) return -1;
      bp_remove(rs, 1);
      if (r.sp == sp_after_ret) return 0; /* our frame's return */
      /* the same address reached deeper (recursion, a callback): step the
       * original instruction once, re-plant, keep running (a signal that
       * came before it ran is delivered: the thread comes back here) */
      struct asmspy_stop after;
      if (step_tid(rs, tid, 0, &after, 0) != 0) return -1;
      if (bp_plant(rs, 1, ret_addr) != 0) return -1;
      resume_for(rs, &after);
      continue;
    }
    resume_for(rs, &st);
  }
}

/* Capture one invocation on tid, which sits at the region entry. Returns 0,
 * or -1 when the thread is gone or the session must stop. */
static int capture_sample(struct region_state *rs, pid_t tid, uint64_t sample) {
  const struct asmspy_seam_api *seam = rs->host->seam;
  const struct asmspy_session *s = rs->s;
  struct asmspy_regs r;
  if (get_regs(rs, tid, &r) != 0) return -1;
  uint64_t entry_sp = r.sp; /* x86-64: the return address sits here */
#if ARCH_LINK_GPR >= 0
  uint64_t entry_ret = r.gpr[ARCH_LINK_GPR]; /* AArch64: the caller's return address is in x30 */
#endif
  emit_region(rs, ASMSPY_EV_REGION_ENTER, tid, sample, 0, 0, 1, r.ip);
  int64_t steps = 0;
  for (;;) {
    if (s->max_steps > 0 && steps >= s->max_steps) {
      emit_region(rs, ASMSPY_EV_REGION_EXIT, tid, sample, 0, 1, 1, r.ip);
      return 0;
    }
    uint8_t bytes[16];
    ssize_t nb = rs->host->read_mem(rs->target, r.ip, bytes, sizeof bytes);
    uint32_t cls = nb > 0 ? pi_class(rs->host, r.ip, bytes, (size_t)nb) : 0;
    int call = (cls & ASMSPY_INSN_CALL) != 0;
    int ilen = (int)ASMSPY_INSN_LEN(cls);
    if (in_region(s, r.ip)) {
      emit_insn(rs, tid, s->pid, r.ip, &r);
      steps++;
    }
    uint64_t call_ip = r.ip, call_sp = r.sp;
#if defined(__x86_64__)
    int cpuid = nb > 0 && ss_is_cpuid(bytes, (size_t)nb);
#else
    int cpuid = 0; /* only x86's cpuid can swallow a trap under a hypervisor */
#endif
    int syscall_insn = (cls & ASMSPY_INSN_SYSCALL) != 0;
    int pushf_width = 0, pushf = nb > 0 && ss_is_pushf(bytes, (size_t)nb, &pushf_width);
    struct asmspy_stop st;
    /* the seam emulates what the kernel must not step (x86 popf, 1.11) */
    const struct asmspy_seam_api *sa = rs->host->seam;
    int w = nb > 0 && ASMSPY_HAS(sa, emulate_step) &&
                    sa->emulate_step(rs->sm, tid, r.ip, bytes, (size_t)nb) == 1
                ? wait_for_tid_within(rs, tid, &st, 0)
                : step_tid(rs, tid, 0, &st, syscall_insn ? REGION_SYSCALL_BLOCK_MS : 0);
    if (w == 1) {
      /* blocked in the kernel: cut the sample here and let the thread go
       * (interrupted, its syscall restarts when the next round resumes it) */
      if (!rs->blocked_noted++)
        rs->host->note(s->out, ASMSPY_NOTE_WARN,
                       "tid %d blocked in a syscall inside the region for more than %d ms: its "
                       "sample is cut there and the thread let go (its syscall restarts)",
                       (int)tid, REGION_SYSCALL_BLOCK_MS);
      emit_region(rs, ASMSPY_EV_REGION_EXIT, tid, sample, 0, 1, 1, call_ip);
      seam->interrupt_all(rs->sm, 0);
      return 0;
    }
    if (w != 0) return -1;
    if (st.kind == ASMSPY_STOP_SIGNAL || st.kind == ASMSPY_STOP_TARGET_TRAP) {
      /* hand the signal back; the handler runs stepped, like any code */
      cpuid = 0; /* the stop came before the cpuid ran: no trap was lost */
      pushf = 0; /* nor the pushf */
      if (step_tid(rs, tid, st.sig, &st, 0) != 0) return -1;
    }
    if (pushf) ss_unleak_pushf(rs->host, rs->sm, rs->target, tid, pushf_width);
    if (get_regs(rs, tid, &r) != 0) return -1;
    if (cpuid && r.ip != call_ip + 2) emit_unobserved(rs, tid, call_ip, r.ip);
    int returned = r.sp > entry_sp; /* the entry frame is gone */
#if ARCH_LINK_GPR >= 0
    /* a `ret` to the caller's x30 with the stack as it was at entry (a leaf
     * never moves sp) */
    returned = returned || ((cls & ASMSPY_INSN_RET) && r.ip == entry_ret && r.sp >= entry_sp);
#endif
    if (returned) { /* the invocation returned */
      emit_region(rs, ASMSPY_EV_REGION_EXIT, tid, sample, r.retval, 0, 1, r.ip);
      return 0;
    }
    if (call && in_region(s, call_ip) && !in_region(s, r.ip)) {
      uint64_t ret_addr = call_ip + (uint64_t)ilen;
#if ARCH_LINK_GPR >= 0
      int called = r.sp == call_sp && r.gpr[ARCH_LINK_GPR] == ret_addr; /* bl/blr set x30 */
#else
      uint64_t on_stack = 0;
      int called = r.sp == call_sp - 8 && rs->host->read_mem(rs->target, r.sp, &on_stack, 8) == 8 &&
                   on_stack == ret_addr; /* call pushed the return address */
#endif
      if (called) {
        struct asmspy_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = ASMSPY_EV_CALLOUT;
        ev.tid = tid;
        ev.pid = s->pid;
        ev.nthreads = 1;
        ev.ip = call_ip;
        ev.target = rs->target;
        ev.u.branch.from = call_ip;
        ev.u.branch.to = r.ip;
        emit(rs, &ev);
        if (step_over_call(rs, tid, ret_addr, call_sp) != 0) return -1;
        if (get_regs(rs, tid, &r) != 0) return -1;
      }
    }
  }
  return 0;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A thread that is not the --tid one arrived at the entry (it sits on the
 * breakpoint): step it past the original instruction with the breakpoint
 * out, then put the breakpoint back and let every held thread go. */
static int step_past_entry(struct region_state *rs, pid_t tid) {
  const struct asmspy_seam_api *seam = rs->host->seam;
  bp_remove(rs, 0);
  struct asmspy_stop st;
  int rc = step_tid(rs, tid, 0, &st, 0);
  if (bp_plant(rs, 0, rs->s->region_start) != 0) return -1;
  seam->resume_all(rs->sm, 0);
  return rc;
}

/* Wait for the next arrival at the entry breakpoint that is ours to
 * sample. Returns its tid, or 0 with *result set (never reached within the
 * session's entry wait, the target gone, Ctrl-C, a refusal). The wait is
 * one deadline for the whole search: arrivals of other threads (--tid)
 * never extend it. */
static pid_t wait_for_entry(struct region_state *rs, uint64_t sample, int *result) {
  const struct asmspy_seam_api *seam = rs->host->seam;
  const struct asmspy_session *s = rs->s;
  int64_t deadline = s->entry_wait_ms > 0 ? now_ms() + s->entry_wait_ms : 0;
  for (;;) {
    int64_t left = 0;
    if (deadline) {
      left = deadline - now_ms();
      if (left < 1) left = 1;
    }
    struct asmspy_stop st;
    memset(&st, 0, sizeof st);
    ASMSPY_INIT_HEADER(&st);
    if (seam->next_stop_timeout(rs->sm, &st, left) != 0) {
      *result = -ASMSPY_E_INTERNAL;
      return 0;
    }
    if (st.kind == ASMSPY_STOP_TIMEOUT) {
      emit_region(rs, ASMSPY_EV_REGION_EXIT, 0, sample + 1, 0, 0, 0, s->region_start);
      *result = ASMSPY_FACT_NOT_REACHED;
      return 0;
    }
    if (st.kind == ASMSPY_STOP_INTERRUPTED) return 0;
    if (st.kind == ASMSPY_STOP_NONE) {
      *result = ASMSPY_FACT_EXITED;
      return 0;
    }
    if (st.kind == ASMSPY_STOP_EXITED) continue;
    if (!hit_bp(rs, 0, &st)) {
      resume_for(rs, &st);
      continue;
    }
    if (ASMSPY_HAS(&st, flags) && (st.flags & ASMSPY_STOPF_IN_TRAP_HANDLER)) {
      rs->host->note(s->out, ASMSPY_NOTE_WARN,
                     "0x%llx was entered by tid %d inside the target's own SIGTRAP handler "
                     "(SIGTRAP blocked): every breakpoint or single-step there makes the kernel "
                     "reset that handler to SIG_DFL, so asmspy does not trace this region "
                     "(the handler and mask were put back; the target runs on)",
                     (unsigned long long)s->region_start, (int)st.tid);
      *result = ASMSPY_FACT_NO_EVENTS;
      return 0;
    }
    if (s->tid && st.tid != s->tid) {
      if (step_past_entry(rs, st.tid) != 0) return 0;
      continue;
    }
    return st.tid;
  }
}

int region_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  if (!ASMSPY_HAS(host, write_mem) || !ASMSPY_HAS(host->seam, interrupt_all)) return -ASMSPY_E_ABI;
  const struct asmspy_seam_api *seam = host->seam;
  /* Every thread is seized even with --tid: the entry int3 is visible to all
   * of them, and an untraced thread hitting it would die of SIGTRAP. --tid
   * then only chooses which arrival is sampled (others are stepped past). */
  struct asmspy_session all = *s;
  all.tid = 0;
  struct region_state rs = {.host = host, .s = s, .target = s->target};
  int rc = seam->attach(&all, &rs.sm);
  if (rc) return rc;
  int result = 0;
  uint64_t sample = 0;
  uint8_t first[ARCH_BREAK_LEN] = {0};
  if (host->read_mem(s->target, s->region_start, first, ARCH_BREAK_LEN) == ARCH_BREAK_LEN &&
      memcmp(first, BREAK_INSN, ARCH_BREAK_LEN) == 0) {
    /* the target's own int3 sits there: a breakpoint of ours would be
     * indistinguishable from it */
    host->note(s->out, ASMSPY_NOTE_WARN,
               "0x%llx already holds an int3 (a breakpoint of the target's own or of another "
               "debugger): not planting over it",
               (unsigned long long)s->region_start);
    result = -ASMSPY_E_ATTACH_BUSY;
    goto out;
  }
  while (!rs.sink_stop && !(s->stop && *s->stop)) {
    if (bp_plant(&rs, 0, s->region_start) != 0) {
      host->note(s->out, ASMSPY_NOTE_WARN,
                 "cannot plant the entry breakpoint at 0x%llx (not writable: a W^X JIT page?)",
                 (unsigned long long)s->region_start);
      result = -ASMSPY_E_INTERNAL;
      break;
    }
    seam->resume_all(rs.sm, 0);
    pid_t entered = wait_for_entry(&rs, sample, &result);
    if (!entered) break;
    bp_remove(&rs, 0);
    /* The other threads run on while one invocation is stepped: when it
     * blocks in a syscall (epoll_pwait, a futex), the target is not frozen
     * with it. A thread that reaches the step-over breakpoint meanwhile is
     * held there (the seam rewinds it) until the sample ends. */
    if (capture_sample(&rs, entered, ++sample) != 0) break;
  }
out:
  bp_remove(&rs, 1);
  bp_remove(&rs, 0);
  seam->detach(rs.sm);
  return result;
}
