/* In-process single-step of the calling thread: the WEAK tier of scoped
 * tracing (docs/scope.md). No ptrace, no PMU: EFLAGS.TF plus a SIGTRAP
 * handler in the traced process itself (HARDWARE.md §5).
 *
 * Arming: begin() installs the handler (unless it is installed already),
 * allocates the whole recording buffer up front, publishes the
 * handle in a thread-local (initial-exec TLS: no allocation on access) and
 * sets TF with pushfq/orq/popfq. From then on every instruction of the
 * thread traps; the handler stores RIP (the instruction ABOUT to run) in the
 * buffer. No malloc, no locks, no stdio in the handler.
 *
 * Handler flags: SA_SIGINFO | SA_RESTART. Not SA_NODEFER: the kernel clears
 * TF for the handler, so no trap can arrive while SIGTRAP is blocked inside
 * it. Not SA_ONSTACK: the handler needs ~1 KiB of the thread's own stack; a
 * program's sigaltstack is left to the program's own handlers.
 *
 * What is recorded, and what is not:
 *   - IPs inside this plugin's own text (the tail of begin, the head of end)
 *     are dropped at trap time. The host drops libasmspy's own text (scope.c);
 *     what remains of asmspy is the caller's own `call asmspy_scope_end`
 *     sequence and its PLT stub: a small fixed overhead (docs/scope.md).
 *   - Stopping: the trap whose RIP is ss_inproc_end's entry with RDI == this
 *     handle clears TF in the ucontext (sigreturn then restores TF = 0).
 *   - `syscall` masks TF, so the instruction after it is never reported
 *     (HARDWARE.md §5.2.1): when the trapped instruction is a syscall we also
 *     record syscall+2 (except for rt_sigreturn/execve/exit/exit_group).
 *   - clone (56), fork (57), vfork (58), clone3 (435): a new task would
 *     inherit TF and die of the trap (HARDWARE.md §5.2.2). And
 *     rt_sigprocmask(SIG_BLOCK/SIG_SETMASK) of a set holding SIGTRAP: a
 *     trap while SIGTRAP is blocked kills the process (§5.2.3); glibc's
 *     pthread_create blocks every signal just before clone3, so this is
 *     where a thread creation is caught. Both are STEPPED OVER: TF is
 *     cleared before the syscall runs (the child starts without TF) and
 *     stepping resumes when the innermost live call frame returns. That
 *     frame comes from a shadow call stack kept while stepping (after each
 *     call the next trap sees the pushed return address at rsp); its return
 *     address on the stack is swapped for ss_resume_tramp, which puts the
 *     original back, and sets TF again unless this is a fork child (another
 *     pid) or SIGTRAP is still blocked (then recording ends, truncated).
 *     The instructions in between ran untraced: a "gap" note at that
 *     position in the stream says which, so the count is never presented as
 *     inclusive. This is the uretprobe / uftrace return-hook idea, done
 *     per thread on the thread's own stack: no code is patched, and the
 *     debug registers (which never fire in this VM) are not needed.
 *     Without a live frame to hook (the syscall sits in the scope's own
 *     function body) recording stops there instead (truncated).
 *   - max_insns reached: TF cleared, truncated.
 *   - end() on another thread (a thread hop): the capture is discarded and
 *     reported truncated. The arming thread still has TF set; it notices the
 *     hop at its next trap, clears TF and acknowledges; the handle is freed
 *     by a later begin()/end() (a thread blocked forever keeps it: bounded).
 * Refusals (begin returns an error, nothing armed): a scope is already open
 * on this thread (-ASMSPY_E_ATTACH_BUSY), the program installed its own
 * SIGTRAP handler (-ASMSPY_E_ATTACH_PERM: we would have to chain every trap),
 * SIGTRAP is blocked on this thread (-ASMSPY_E_PERM: the forced trap would
 * kill the process). A foreign SIGTRAP (int3, raise) gets the disposition
 * the program had before us, as it would have without us.
 *
 * The handler stays installed once the first scope installed it. TF can
 * outlive a scope where end() cannot clear it: in the context a signal
 * handler interrupted (sigreturn puts TF back after a handler that ended
 * the scope), in a frame still to return through, on a thread an orphaned
 * scope armed. Restoring SIG_DFL at the last end() turned any such trap into
 * the process's death ("Trace/breakpoint trap", nothing printed); a trap
 * that finds no scope on its thread only clears TF and returns.
 */
#define _GNU_SOURCE
/* Reasons are one line, truncation of an over-long one is intended. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "common/exec_segment.h"
#include "plugins/common/x86_calltarget.h"
#include "plugins/singlestep/inproc.h"
#include "plugins/singlestep/lost_trap.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#define TF_BIT 0x100ull

enum {
  WHY_NONE = 0,
  WHY_MAX = 1,
  WHY_CLONE = 2,
  WHY_MASK = 3,
  WHY_STILL_BLOCKED = 4,
  WHY_NOT_RETURNED = 5
};

/* A gap in the recording is stored inline in ips[]: GAP_MARK, then the
 * syscall's ip, the return address where stepping resumed, the syscall nr. */
#define GAP_MARK 0ull
#define GAP_WORDS 4u
/* An instruction that ran without its own trap (lost_trap.h) is stored
 * inline as LOST_MARK, then its ip: the end renders it with a note. */
#define LOST_MARK 1ull
#define LOST_WORDS 2u
#define SHADOW_MAX 256u

struct ss_frame {
  uint64_t slot; /* where the return address lives on the stack */
  uint64_t ret;  /* the return address the call pushed */
};

struct ss_handle {
  uint64_t *ips;
  uint64_t cap, n;
  struct ss_frame shadow[SHADOW_MAX]; /* live calls made while stepping */
  uint32_t depth;
  int prev_call;        /* the instruction recorded last was a call */
  uint64_t after_cpuid; /* the fall-through of the cpuid recorded last, else 0 */
  uint64_t gaps;
  uint64_t region_start, region_len;
  uint64_t end_entry, end_arg; /* the host's end entry and its argument (ABI 1.12) */
  uint64_t traps;              /* every trap taken (ASMSPY_SCOPE_DEBUG) */
  pid_t tid;
  volatile sig_atomic_t stopped;  /* TF cleared by the handler */
  volatile sig_atomic_t orphaned; /* end() ran on another thread */
  volatile sig_atomic_t acked;    /* the arming thread let go of an orphan */
  pid_t pid;
  int why;
  long why_nr;
  uint64_t why_ip;
  struct ss_handle *next_orphan;
};

static __thread struct ss_handle *tl_cur __attribute__((tls_model("initial-exec")));
/* The pending resume hook of this thread (read by ss_resume_tramp). */
__thread uint64_t ss_tl_resume_ret __attribute__((tls_model("initial-exec"), visibility("hidden")));
__thread uint64_t ss_tl_resume_slot
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
__thread int32_t ss_tl_resume_pid __attribute__((tls_model("initial-exec"), visibility("hidden")));
__thread int32_t ss_tl_resume_blocked
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* ss_resume_tramp: where a hooked frame returns to. Registers and flags are
 * the returning function's (rax/rdx/xmm0-1 may hold its result): everything
 * touched is saved, only raw syscalls are made (no libc, no stack beyond a
 * few words). Sets TF in the flags it pops unless this process is not the
 * one that armed (a fork child returns through the same frame) or SIGTRAP
 * is still blocked (stepping then would kill the process). */
void ss_resume_tramp(void) __attribute__((visibility("hidden")));
/* clang-format off */
__asm__(".text\n"
        ".type ss_resume_tramp, @function\n"
        "ss_resume_tramp:\n"
        "  subq $8, %rsp\n"            /* the slot ret will use */
        "  pushq %rax\n pushq %rcx\n pushq %rdx\n pushq %rsi\n pushq %rdi\n"
        "  pushq %r10\n pushq %r11\n"
        "  pushfq\n"                   /* slot is now at 64(%rsp) */
        "  movq ss_tl_resume_ret@gottpoff(%rip), %rax\n"
        "  movq %fs:(%rax), %rcx\n"
        "  movq %rcx, 64(%rsp)\n"
        "  movq $0, %fs:(%rax)\n"
        "  movl $39, %eax\n syscall\n"   /* getpid */
        "  movq ss_tl_resume_pid@gottpoff(%rip), %rcx\n"
        "  cmpl %eax, %fs:(%rcx)\n"
        "  jne 1f\n"
        "  subq $8, %rsp\n"              /* rt_sigprocmask(SIG_BLOCK, NULL, &cur, 8) */
        "  movl $14, %eax\n xorl %edi, %edi\n xorl %esi, %esi\n movq %rsp, %rdx\n"
        "  movl $8, %r10d\n syscall\n"
        "  movq (%rsp), %rcx\n addq $8, %rsp\n"
        "  testq $0x10, %rcx\n"          /* bit SIGTRAP-1 */
        "  jnz 2f\n"
        "  orq $0x100, (%rsp)\n"         /* TF on in the flags popfq restores */
        "  jmp 1f\n"
        "2:movq ss_tl_resume_blocked@gottpoff(%rip), %rax\n"
        "  movl $1, %fs:(%rax)\n"
        "1:popfq\n"
        "  popq %r11\n popq %r10\n popq %rdi\n popq %rsi\n popq %rdx\n popq %rcx\n"
        "  popq %rax\n"
        "  ret\n"
        ".size ss_resume_tramp, .-ss_resume_tramp\n");
/* clang-format on */

/* ss_arm_tail: the host's begin jumps here instead of returning (ABI 1.12
 * arm_tail), rsp at its caller's return address, rax its result. popfq sets
 * TF; the trap comes after the instruction that follows it, the ret, so the
 * first trap is at the caller's next instruction. The flags word is pushed
 * below the return address, where the returned-from frame was: not the
 * caller's red zone (a function that calls keeps nothing below its rsp). */
void ss_arm_tail(void) __attribute__((visibility("hidden")));
/* clang-format off */
__asm__(".text\n"
        ".type ss_arm_tail, @function\n"
        "ss_arm_tail:\n"
        "  pushfq\n"
        "  orq $0x100, (%rsp)\n"
        "  popfq\n"
        "  ret\n"
        ".size ss_arm_tail, .-ss_arm_tail\n");
/* clang-format on */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction g_old;        /* the disposition before us (SIG_DFL/SIG_IGN) */
static uint64_t g_self_lo, g_self_hi; /* this plugin's executable segment */
static struct ss_handle *g_orphans;

static pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

static void clear_tf(greg_t *g) { g[REG_EFL] &= ~(greg_t)TF_BIT; }

/* A near call (E8 rel32, FF /2), after legacy and REX prefixes. Only the
 * shape matters: the next trap confirms it by finding the return address
 * just past this instruction at rsp. */
static int is_call(const uint8_t *p) {
  int k = 0;
  while (k < 4 && (p[k] == 0x66 || p[k] == 0x67 || p[k] == 0xf2 || p[k] == 0xf3 || p[k] == 0x2e ||
                   p[k] == 0x3e || p[k] == 0x26 || p[k] == 0x36 || p[k] == 0x64 || p[k] == 0x65))
    k++;
  if ((p[k] & 0xf0) == 0x40) k++; /* REX */
  return p[k] == 0xe8 || (p[k] == 0xff && ((p[k + 1] >> 3) & 7) == 2);
}

/* Where the call at p (about to run, registers g) goes, seen through a PLT
 * stub or a GOT slot: e8 rel32 (to the function or its PLT stub: `jmp
 * *slot(%rip)`, after an optional endbr64 / bnd prefix), ff 15 (`call
 * *slot(%rip)`, -fno-plt), ff /2 with a register (a call through a function
 * pointer: ctypes, ffi). 0 when the shape is none of these. Every address
 * read comes from an instruction about to run: its code and its GOT slot
 * are mapped. */
static uint64_t call_target(const uint8_t *p, const greg_t *g) {
  uint64_t ip = (uint64_t)(uintptr_t)p;
  int rexb = 0;
  if ((p[0] & 0xf0) == 0x40) { /* REX */
    rexb = p[0] & 1;
    p++;
    ip++;
  }
  uint64_t direct = x86_direct_call_target(p, ip);
  if (direct) return direct;
  if (p[0] == 0xff && (p[1] & 0xf8) == 0xd0) { /* call *%reg */
    static const int regs[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                 REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                 REG_R12, REG_R13, REG_R14, REG_R15};
    return (uint64_t)g[regs[(p[1] & 7) | (rexb << 3)]];
  }
  return 0;
}

/* The trap after a call: the return address is at rsp. Frames at or below
 * this slot are dead (a new call reuses their stack). */
static void note_call(struct ss_handle *h, uint64_t rsp, uint64_t target) {
  (void)target;
  uint64_t ret = *(const uint64_t *)(uintptr_t)rsp;
  while (h->depth && h->shadow[h->depth - 1].slot <= rsp) h->depth--;
  if (h->depth < SHADOW_MAX) h->shadow[h->depth++] = (struct ss_frame){rsp, ret};
}

/* Clear-TF step over a dangerous syscall at ip: hook the innermost live
 * frame's return so stepping resumes there. Returns 0 when no frame can be
 * hooked (the caller then ends the recording). */
static int step_over(struct ss_handle *h, uint64_t rsp, uint64_t ip, long nr) {
  if (ss_tl_resume_ret) return 0; /* a hook is already pending (cannot happen while stepping) */
  while (h->depth) {
    const struct ss_frame *f = &h->shadow[h->depth - 1];
    if (f->slot >= rsp && *(const uint64_t *)(uintptr_t)f->slot == f->ret) break;
    h->depth--; /* returned (or longjmp'd over) */
  }
  if (!h->depth || h->n + GAP_WORDS > h->cap) return 0;
  const struct ss_frame *f = &h->shadow[--h->depth];
  ss_tl_resume_ret = f->ret;
  ss_tl_resume_slot = f->slot;
  ss_tl_resume_pid = h->pid;
  ss_tl_resume_blocked = 0;
  *(uint64_t *)(uintptr_t)f->slot = (uint64_t)(uintptr_t)&ss_resume_tramp;
  h->ips[h->n++] = GAP_MARK;
  h->ips[h->n++] = ip;
  h->ips[h->n++] = f->ret;
  h->ips[h->n++] = (uint64_t)nr;
  h->gaps++;
  return 1;
}

static void on_trap(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  greg_t *g = uc->uc_mcontext.gregs;
  if (si->si_code != TRAP_TRACE) {
    /* Not ours (int3, raise): what would have happened without us. */
    if (g_old.sa_handler == SIG_IGN) return;
    signal(sig, SIG_DFL);
    raise(sig); /* pending until sigreturn unblocks it: default action */
    return;
  }
  struct ss_handle *h = tl_cur;
  if (!h) { /* TF that outlived its scope (see the top of this file): stop */
    clear_tf(g);
    return;
  }
  if (h->orphaned) {
    clear_tf(g);
    h->stopped = 1;
    tl_cur = NULL;
    h->acked = 1;
    return;
  }
  uint64_t ip = (uint64_t)g[REG_RIP];
  h->traps++;
  if (h->after_cpuid) {
    /* lost_trap.h: no trap came after the cpuid, so the instruction after
     * it ran unobserved; this trap is the one after that instruction. */
    uint64_t skipped = h->after_cpuid;
    h->after_cpuid = 0;
    if (ip != skipped && h->n + LOST_WORDS <= h->cap) {
      h->ips[h->n++] = LOST_MARK;
      h->ips[h->n++] = skipped;
      h->prev_call = is_call((const uint8_t *)(uintptr_t)skipped);
    }
  }
  if (h->prev_call) {
    note_call(h, (uint64_t)g[REG_RSP], ip);
    h->prev_call = 0;
  }
  /* The end: the caller's call of the host's end entry for this scope, or
   * that entry itself (ABI 1.12: neither the call, its PLT stub nor any host
   * code is stepped), or our own entry (an older host). */
  if ((h->end_entry && (uint64_t)g[REG_RDI] == h->end_arg &&
       (ip == h->end_entry || call_target((const uint8_t *)(uintptr_t)ip, g) == h->end_entry)) ||
      (ip == (uint64_t)(uintptr_t)&ss_inproc_end &&
       (uint64_t)g[REG_RDI] == (uint64_t)(uintptr_t)h)) {
    clear_tf(g);
    h->stopped = 1;
    return;
  }
  if (ip >= g_self_lo && ip < g_self_hi) return; /* our own begin/end code */
  if (h->n >= h->cap) {
    clear_tf(g);
    h->stopped = 1;
    h->why = WHY_MAX;
    return;
  }
  const uint8_t *p = (const uint8_t *)(uintptr_t)ip;
  h->prev_call = 0;
  if (p[0] == 0x0f && p[1] == 0x05) { /* syscall */
    long nr = (long)g[REG_RAX];
    h->ips[h->n++] = ip;
    int why = WHY_NONE;
    if (nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == 435 /* clone3 */)
      why = WHY_CLONE;
    /* rt_sigprocmask blocking SIGTRAP (pthread_create does it around clone):
     * the next trap would arrive blocked and kill the process. */
    else if (nr == SYS_rt_sigprocmask &&
             ((long)g[REG_RDI] == SIG_BLOCK || (long)g[REG_RDI] == SIG_SETMASK) && g[REG_RSI] &&
             (*(const uint64_t *)(uintptr_t)g[REG_RSI] & (1ull << (SIGTRAP - 1))))
      why = WHY_MASK;
    if (why != WHY_NONE) {
      clear_tf(g);
      if (step_over(h, (uint64_t)g[REG_RSP], ip, nr)) return;
      h->stopped = 1;
      h->why = why;
      h->why_nr = nr;
      h->why_ip = ip;
      return;
    }
    /* The instruction after a syscall is never reported: it runs, record it. */
    if (nr != SYS_rt_sigreturn && nr != SYS_execve && nr != SYS_exit && nr != SYS_exit_group &&
        h->n < h->cap)
      h->ips[h->n++] = ip + 2;
    return;
  }
  h->ips[h->n++] = ip;
  h->prev_call = is_call(p);
  if (ss_is_cpuid(p, 2)) h->after_cpuid = ip + 2;
}

/* Free orphans whose arming thread let go. Under g_lock. */
static void reclaim_orphans_locked(void) {
  for (struct ss_handle **pp = &g_orphans; *pp;) {
    struct ss_handle *h = *pp;
    if (h->acked) {
      *pp = h->next_orphan;
      free(h->ips);
      free(h);
    } else {
      pp = &h->next_orphan;
    }
  }
}

int ss_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                    void **handle) {
  (void)host;
  if (!handle) return -ASMSPY_E_USAGE;
  *handle = NULL;
#if !defined(__x86_64__)
  return -ASMSPY_E_NO_HW;
#else
  if (tl_cur) {
    if (!tl_cur->orphaned) return -ASMSPY_E_ATTACH_BUSY; /* nested scope on this thread */
    tl_cur->acked = 1; /* an orphan stopped earlier (never trapped again): let go */
    tl_cur = NULL;
  }
  sigset_t blocked;
  if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) == 0 && sigismember(&blocked, SIGTRAP))
    return -ASMSPY_E_PERM;
  uint64_t cap = 1u << 20;
  uint64_t rs = 0, rl = 0;
  if (req && ASMSPY_HAS(req, max_insns) && req->max_insns) cap = req->max_insns;
  if (req && ASMSPY_HAS(req, region_len)) {
    rs = req->region_start;
    rl = req->region_len;
  }
  struct ss_handle *h = calloc(1, sizeof *h);
  if (!h) return -ASMSPY_E_NOMEM;
  h->ips = malloc(cap * sizeof *h->ips);
  if (!h->ips) {
    free(h);
    return -ASMSPY_E_NOMEM;
  }
  h->cap = cap;
  h->region_start = rs;
  h->region_len = rl;
  h->tid = my_tid();
  h->pid = getpid();

  pthread_mutex_lock(&g_lock);
  reclaim_orphans_locked();
  if (!g_self_hi) exec_segment_of((const void *)(uintptr_t)&on_trap, &g_self_lo, &g_self_hi);
  struct sigaction old;
  sigaction(SIGTRAP, NULL, &old);
  if (!((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_trap)) {
    /* not installed yet, or the program changed SIGTRAP since */
    if ((old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)) {
      pthread_mutex_unlock(&g_lock);
      free(h->ips);
      free(h);
      return -ASMSPY_E_ATTACH_PERM; /* the program owns SIGTRAP */
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, NULL) != 0) {
      pthread_mutex_unlock(&g_lock);
      free(h->ips);
      free(h);
      return -ASMSPY_E_INTERNAL;
    }
    g_old = old;
  }
  pthread_mutex_unlock(&g_lock);

  tl_cur = h;
  *handle = h;
  if (req && ASMSPY_HAS(req, arm_tail)) {
    h->end_entry = req->end_entry;
    h->end_arg = req->end_arg;
    if (req->arm_tail) {
      /* The host jumps to ss_arm_tail in place of its return: TF goes on
       * as control returns to the scope's caller, so no instruction of the
       * host's begin is stepped. */
      *req->arm_tail = ss_arm_tail;
      return 0;
    }
  }
  /* Step over the red zone: pushfq would clobber a leaf's locals there. The
   * first trap comes after the instruction following popfq (still ours). */
  __asm__ volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::
                       : "memory", "cc");
  return 0;
#endif
}

static void emit_note(asmspy_sink_fn sink, void *ctx, struct asmspy_event *ev, const char *text) {
  if (!sink) return;
  ev->type = ASMSPY_EV_NOTE;
  ev->ip = 0;
  memset(&ev->u, 0, sizeof ev->u);
  ev->u.note.text = text;
  sink(ctx, ev);
  ev->seq++;
}

/* Thread hop: the scope ended on another thread than the one that armed
 * it, so the capture followed the arming thread, not the work. The handle
 * is orphaned (its thread may still trap into it), not freed, and the
 * capture is discarded with a note. */
static void end_on_other_thread(struct ss_handle *h, pid_t me, asmspy_sink_fn sink, void *sink_ctx,
                                struct asmspy_event *ev) {
  char note[256];
  snprintf(note, sizeof note,
           "truncated: thread hop: the scope began on tid %d and ended on tid %d; the capture "
           "followed the arming thread and is discarded",
           (int)h->tid, (int)me);
  h->orphaned = 1;
  pthread_mutex_lock(&g_lock);
  h->next_orphan = g_orphans;
  g_orphans = h;
  reclaim_orphans_locked();
  pthread_mutex_unlock(&g_lock);
  emit_note(sink, sink_ctx, ev, note);
}

/* Undo the resume hook left over from a gap, and remember why stepping
 * never resumed (the truncation note says it). */
static void unhook_resume(struct ss_handle *h) {
  if (ss_tl_resume_ret) {
    /* The hooked frame has not returned (the scope ended inside it): put
     * its return address back before anything can unwind through it. */
    uint64_t *slot = (uint64_t *)(uintptr_t)ss_tl_resume_slot;
    if (*slot == (uint64_t)(uintptr_t)&ss_resume_tramp) *slot = ss_tl_resume_ret;
    h->why = WHY_NOT_RETURNED;
    h->why_ip = ss_tl_resume_ret;
    ss_tl_resume_ret = 0;
  } else if (ss_tl_resume_blocked) {
    h->why = WHY_STILL_BLOCKED;
    ss_tl_resume_blocked = 0;
  }
}

/* The note for a gap record (GAP_MARK, ip, return address, syscall nr). */
static void emit_gap_note(const uint64_t *gap, asmspy_sink_fn sink, void *sink_ctx,
                          struct asmspy_event *ev) {
  char note[256];
  snprintf(note, sizeof note,
           "gap: syscall %llu at 0x%llx %s; stepped over with TF cleared, the code until "
           "the return to 0x%llx ran untraced",
           (unsigned long long)gap[3], (unsigned long long)gap[1],
           gap[3] == SYS_rt_sigprocmask ? "blocks SIGTRAP (pthread_create around clone)"
                                        : "creates a task that would inherit TF",
           (unsigned long long)gap[2]);
  emit_note(sink, sink_ctx, ev, note);
}

/* The instruction's bytes as they are now, read through
 * process_vm_readv so an unmapped ip cannot fault in the target. */
static void read_insn_bytes(struct asmspy_event *ev, uint64_t ip) {
  struct iovec local = {ev->u.insn.bytes, sizeof ev->u.insn.bytes};
  struct iovec remote = {(void *)(uintptr_t)ip, sizeof ev->u.insn.bytes};
  ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (got <= 0) { /* e.g. a page boundary: fall back to the bytes up to it */
    size_t room = 4096 - (ip & 4095);
    remote.iov_len = local.iov_len = room < 16 ? room : 16;
    got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  }
  ev->u.insn.len = got > 0 ? (uint8_t)got : 0;
}

/* Replay the recorded ips to the sink: one INSN event each (inside the
 * region when there is one), a note at each gap and at the first lost
 * trap. Stops when the sink says so. */
static void emit_recorded(const struct ss_handle *h, asmspy_sink_fn sink, void *sink_ctx,
                          struct asmspy_event *ev) {
  char note[256];
  int lost_noted = 0;
  for (uint64_t i = 0; i < h->n && sink; i++) {
    uint64_t ip = h->ips[i];
    if (ip == GAP_MARK && i + GAP_WORDS <= h->n) {
      emit_gap_note(&h->ips[i], sink, sink_ctx, ev);
      i += GAP_WORDS - 1;
      continue;
    }
    if (ip == LOST_MARK && i + LOST_WORDS <= h->n) {
      ip = h->ips[++i];
      if (!lost_noted) {
        lost_noted = 1;
        snprintf(note, sizeof note, SS_LOST_TRAP_NOTE, (unsigned long long)(ip - 2),
                 (unsigned long long)ip);
        emit_note(sink, sink_ctx, ev, note);
      }
    }
    ev->type = ASMSPY_EV_INSN;
    if (h->region_len && (ip < h->region_start || ip - h->region_start >= h->region_len)) continue;
    ev->ip = ip;
    memset(&ev->u, 0, sizeof ev->u);
    read_insn_bytes(ev, ip);
    if (sink(sink_ctx, ev)) break;
    ev->seq++;
  }
}

/* After the instructions: the debug count (ASMSPY_SCOPE_DEBUG) and, when
 * the capture stopped early, why. */
static void emit_end_notes(const struct ss_handle *h, asmspy_sink_fn sink, void *sink_ctx,
                           struct asmspy_event *ev) {
  char note[256];
  if (getenv("ASMSPY_SCOPE_DEBUG")) {
    snprintf(note, sizeof note, "debug: singlestep: %llu traps, %llu instructions recorded",
             (unsigned long long)h->traps, (unsigned long long)h->n);
    emit_note(sink, sink_ctx, ev, note);
  }
  if (h->why == WHY_MAX) {
    snprintf(note, sizeof note, "truncated: max_insns (%llu) reached; recording stopped there",
             (unsigned long long)h->cap);
    emit_note(sink, sink_ctx, ev, note);
  } else if (h->why == WHY_CLONE) {
    snprintf(note, sizeof note,
             "truncated: stopped at clone: a new thread would inherit TF (syscall %ld at 0x%llx); "
             "the rest of the scope ran untraced",
             h->why_nr, (unsigned long long)h->why_ip);
    emit_note(sink, sink_ctx, ev, note);
  } else if (h->why == WHY_NOT_RETURNED) {
    snprintf(note, sizeof note,
             "truncated: the scope ended before the frame hooked to resume stepping returned "
             "(to 0x%llx); the code after the last gap ran untraced",
             (unsigned long long)h->why_ip);
    emit_note(sink, sink_ctx, ev, note);
  } else if (h->why == WHY_STILL_BLOCKED) {
    snprintf(note, sizeof note,
             "truncated: SIGTRAP was still blocked when the hooked frame returned; stepping "
             "could not resume and the rest of the scope ran untraced");
    emit_note(sink, sink_ctx, ev, note);
  } else if (h->why == WHY_MASK) {
    snprintf(note, sizeof note,
             "truncated: stopped at clone: rt_sigprocmask at 0x%llx blocks SIGTRAP (pthread_create "
             "blocks every signal around clone; a trap while blocked would kill the process, and "
             "a new thread would inherit TF); the rest of the scope ran untraced",
             (unsigned long long)h->why_ip);
    emit_note(sink, sink_ctx, ev, note);
  }
}

int ss_inproc_end(void *hv, asmspy_sink_fn sink, void *sink_ctx) {
  /* The trap at this entry (RDI == the handle) cleared TF already; clear
   * it here too for the paths that never trapped (belt and braces). */
  __asm__ volatile(
      "sub $128, %%rsp\n\tpushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::
          : "memory", "cc");
  struct ss_handle *h = hv;
  if (!h) return -ASMSPY_E_USAGE;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.pid = (int32_t)getpid();
  ev.tid = (int32_t)h->tid;
  ev.nthreads = 1;
  pid_t me = my_tid();
  if (me != h->tid) {
    end_on_other_thread(h, me, sink, sink_ctx, &ev);
    return 0;
  }
  if (tl_cur == h) tl_cur = NULL;
  unhook_resume(h);
  emit_recorded(h, sink, sink_ctx, &ev);
  emit_end_notes(h, sink, sink_ctx, &ev);
  free(h->ips);
  free(h);
  pthread_mutex_lock(&g_lock); /* the handler stays: TF may outlive this scope */
  reclaim_orphans_locked();
  pthread_mutex_unlock(&g_lock);
  return 0;
}
