/* agent.c: the code entrypatch copies into the target. It never runs in
 * asmspy.
 *
 * Everything here lives in one section, `asmspy_agent`, and is copied as one
 * blob ([__start_asmspy_agent, __stop_asmspy_agent)) into a code region of
 * the target near the functions it serves. So the code may reference nothing
 * outside that section: no globals, no string constants, no libc, no jump
 * tables, no stack protector, no sanitizer hooks (meson.build compiles this
 * file alone with the flags that guarantee it, and entrypatch's probe
 * disassembles the blob and refuses it if any branch or rip-relative operand
 * leaves it). The blob starts with AGENT_CODE_MAGIC (how a later session
 * recognises an agent left in a process) and the state's address
 * (asmspy_agent_ctx), which asmspy writes after the copy.
 *
 * The flow, per patched function f (uftrace's mcount return hook, moved to
 * the function's first bytes so that no recompilation is needed):
 *   f:       jmp stub_f                      (5 bytes written over f's prologue)
 *   stub_f:  push $<index of f>; jmp asmspy_agent_entry
 *   entry:   save every register; on_entry() records ENTRY in the
 *            thread's ring, pushes {slot, real return address} on the
 *            thread's shadow stack and puts asmspy_agent_return in the
 *            slot; restore; jump to f's relocated prologue, which jumps
 *            back into f after the patched bytes
 *   f's ret lands in asmspy_agent_return: on_return() pops the frame,
 *            records EXIT and hands back the real return address.
 *
 * Signals: a handler may run between any two instructions here and call a
 * patched function itself, on the same thread. Every shadow-stack change
 * therefore claims before it writes (depth first), every ring record is
 * claimed by one cmpxchg and published by its seq, written last, and a
 * thread waiting for room reads the ring again each time it looks
 * (ring_state). */
#include "plugins/entrypatch/agent_layout.h"

#include <stddef.h>

#define AGENT_FN __attribute__((section("asmspy_agent"), visibility("hidden"), noinline, used))
#define INL static inline __attribute__((always_inline))
#define AGENT_STR(x) #x
#define AGENT_XSTR(x) AGENT_STR(x)

/* The thunks: the only way in. Hand-written because they run between a
 * call and a function's first instruction (or a ret and the caller), where
 * the program may keep live values in ANY register: gcc's -fipa-ra lets a
 * caller keep values in call-clobbered registers across a call to a local
 * function it knows does not touch them, and hand-written assembly callers
 * assume even more. So nothing is scratch here: every general register and
 * the flags are saved and restored, the stub passes the function's index on
 * the stack (push imm32), and the thunk leaves by an indirect jump through
 * the stack word it has just popped (`lea 8(%rsp), %rsp; jmp *-8(%rsp)`):
 * no register is needed, and unlike a `ret` it leaves the CPU's return
 * stack buffer in step with the program's calls, so the program's own
 * returns stay predicted. The word is below rsp for one instruction, inside
 * the red zone, which the kernel never overwrites when it delivers a signal
 * (it places the signal frame 128 bytes further down). The agent's C code is
 * compiled with -mgeneral-regs-only, so vector and x87 registers are never
 * touched at all.
 *
 * Entry, from stub_f (push $index; jmp asmspy_agent_entry):
 *     [rsp] = index, [rsp+8] = f's return slot
 *   the index word becomes the address of f's relocated prologue, and the
 *   final jump goes there with rsp back at the return slot, every register
 *   as the caller left it.
 * Return, when a hooked f returns: rsp = slot + 8. The slot receives the
 *   real return address and the final jump goes there, rsp = slot + 8. */
/* clang-format off */
__asm__(".pushsection asmspy_agent,\"ax\",@progbits\n"
        ".balign 16\n"
        ".globl asmspy_agent_header\n"
        ".hidden asmspy_agent_header\n"
        "asmspy_agent_header: .quad " AGENT_XSTR(AGENT_CODE_MAGIC_HEX) "\n"
        ".globl asmspy_agent_ctx\n"
        ".hidden asmspy_agent_ctx\n"
        "asmspy_agent_ctx: .quad 0\n"
        ".balign 16\n"
        ".globl asmspy_agent_entry\n"
        ".hidden asmspy_agent_entry\n"
        "asmspy_agent_entry:\n"
        "  pushfq\n"               /* [rsp]=flags [+8]=index [+16]=slot */
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"        /* [rbp+8]=flags [rbp+16]=index [rbp+24]=slot */
        "  and $-16, %rsp\n"
        "  push %rax\n  push %rcx\n  push %rdx\n  push %rsi\n  push %rdi\n"
        "  push %r8\n  push %r9\n  push %r10\n  push %r11\n"
        "  sub $8, %rsp\n"          /* 16-byte aligned at the call */
        "  cld\n"
        "  mov asmspy_agent_ctx(%rip), %rdi\n"
        "  mov 16(%rbp), %rsi\n"
        "  lea 24(%rbp), %rdx\n"
        "  call asmspy_agent_on_entry\n"
        "  mov %rax, 16(%rbp)\n"    /* the index word: where the final jump goes */
        "  add $8, %rsp\n"
        "  pop %r11\n  pop %r10\n  pop %r9\n  pop %r8\n  pop %rdi\n"
        "  pop %rsi\n  pop %rdx\n  pop %rcx\n  pop %rax\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  popfq\n"
        "  lea 8(%rsp), %rsp\n"   /* lea: the flags stay restored */
        "  jmp *-8(%rsp)\n"
        ".balign 16\n"
        ".globl asmspy_agent_return\n"
        ".hidden asmspy_agent_return\n"
        "asmspy_agent_return:\n"
        "  lea -8(%rsp), %rsp\n"    /* back onto the slot (lea: the flags are the callee's) */
        "  pushfq\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"        /* [rbp+8]=flags [rbp+16]=slot */
        "  and $-16, %rsp\n"
        "  push %rax\n  push %rcx\n  push %rdx\n  push %rsi\n  push %rdi\n"
        "  push %r8\n  push %r9\n  push %r10\n  push %r11\n"
        "  sub $8, %rsp\n"
        "  cld\n"
        "  mov asmspy_agent_ctx(%rip), %rdi\n"
        "  lea 16(%rbp), %rsi\n"
        "  call asmspy_agent_on_return\n"
        "  mov %rax, 16(%rbp)\n"    /* the real return address into the slot */
        "  add $8, %rsp\n"
        "  pop %r11\n  pop %r10\n  pop %r9\n  pop %r8\n  pop %rdi\n"
        "  pop %rsi\n  pop %rdx\n  pop %rcx\n  pop %rax\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  popfq\n"
        "  lea 8(%rsp), %rsp\n"   /* lea: the flags stay restored */
        "  jmp *-8(%rsp)\n"
        ".popsection\n");
/* clang-format on */

INL uint64_t rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

/* The thread pointer: glibc and musl keep the TCB's own address at fs:0
 * (the session refuses a thread whose fs base is 0). */
INL uint64_t thread_pointer(void) {
  uint64_t p;
  __asm__ volatile("mov %%fs:0, %0" : "=r"(p));
  return p;
}

INL long agent_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  register long r10 __asm__("r10") = a3;
  register long r8 __asm__("r8") = a4;
  register long r9 __asm__("r9") = a5;
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return r;
}
#define SYS_GETPID 39L
#define SYS_FUTEX 202L
#define FUTEX_WAIT_SHARED 0L /* not FUTEX_PRIVATE_FLAG: the ring is a memfd shared with asmspy */
#define SYS_SCHED_YIELD 24L
#define SYS_GETTID 186L
#define SYS_TGKILL 234L
#define SYS_PROCESS_VM_READV 310L
#define SYS_PROCESS_VM_WRITEV 311L
#define AGENT_ESRCH 3L

INL int32_t current_tid(const struct agent_state *st) {
  if (st->tid_offset) {
    int32_t t;
    __asm__ volatile("movl %%fs:(%1), %0" : "=r"(t) : "r"((uint64_t)st->tid_offset));
    return t;
  }
  return (int32_t)agent_syscall(SYS_GETTID, 0, 0, 0, 0, 0, 0);
}

/* Is thread `tid` of this process gone? (tgkill with signal 0 only checks;
 * a tid of another process, as in a forked child's copy of its parent's
 * slots, is gone too.) */
INL int thread_gone(int32_t tid) {
  long pid = agent_syscall(SYS_GETPID, 0, 0, 0, 0, 0, 0);
  return agent_syscall(SYS_TGKILL, pid, tid, 0, 0, 0, 0) == -AGENT_ESRCH;
}

/* 8 bytes of our own memory that may be unmapped (a coroutine's freed
 * stack): through process_vm_readv/writev on ourselves, which fail with
 * EFAULT instead of faulting. */
struct agent_iovec {
  uint64_t base, len;
};
INL int self_copy(long nr, uint64_t local, uint64_t remote) {
  struct agent_iovec l, r;
  l.base = local, l.len = 8;
  r.base = remote, r.len = 8;
  long pid = agent_syscall(SYS_GETPID, 0, 0, 0, 0, 0, 0);
  return agent_syscall(nr, pid, (long)&l, 1, (long)&r, 1, 0) == 8;
}

#define VOLATILE(x) (*(volatile __typeof__(x) *)&(x))

/* Field by field: a struct assignment may become a memcpy call, and there
 * is no memcpy in here. */
INL void frame_copy(struct agent_frame *dst, const struct agent_frame *src) {
  dst->slot = src->slot;
  dst->ret = src->ret;
  dst->seq = src->seq;
  dst->func = src->func;
  dst->flags = src->flags;
}

/* ------------------------------------------------------------ rings -- *
 * A slot writes the ring it claimed (heads[k].used 0 -> 2 -> 1 by
 * compare-and-swap) in its process's generation. The target is generation
 * 1; a forked child's gate is wiped, so under --follow (st->follow) it
 * joins with a generation of its own at its first record and its slots
 * (copies of its parent's) claim rings of their own. */

/* The process that owns slot t: a vfork child's slot is keyed by its pid. */
INL int32_t slot_pid(const struct agent_state *st, const struct agent_thread *t) {
  uint64_t key = VOLATILE(t->key);
  if (key >> 62 == 1) return (int32_t)(uint32_t)key;
  return VOLATILE(st->gate->pid);
}

/* A forked child under --follow joins the capture: a new generation, then
 * armed. NULL: not following, the capture is over, or another thread of
 * this child is joining right now (its record is dropped). */
INL struct ring_area *join(struct agent_state *st, struct agent_gate *g) {
  if (!VOLATILE(st->follow) || VOLATILE(g->gen)) return NULL;
  struct ring_area *ra = (struct ring_area *)VOLATILE(st->ring_map.base);
  if (!ra || VOLATILE(ra->closing) || VOLATILE(ra->dead)) return NULL;
  uint64_t gen = __atomic_add_fetch(&ra->next_gen, 1, __ATOMIC_ACQ_REL) + 1;
  uint64_t zero = 0;
  if (!__atomic_compare_exchange_n(&g->gen, &zero, gen, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return NULL;
  g->pid = (int32_t)agent_syscall(SYS_GETPID, 0, 0, 0, 0, 0, 0);
  g->ring = ra;
  __atomic_store_n(&g->armed, 1ull, __ATOMIC_RELEASE);
  return ra;
}

INL struct ring_area *claim_ring(struct agent_state *st, struct agent_thread *t,
                                 struct ring_area *ra, uint32_t gen, uint32_t *k) {
  uint32_t hint = (uint32_t)(t - st->threads);
  int32_t tid = (int32_t)agent_syscall(SYS_GETTID, 0, 0, 0, 0, 0, 0);
  int32_t pid = slot_pid(st, t);
  for (uint32_t i = 0; i < AGENT_THREADS; i++) {
    uint32_t j = (hint + i) & (AGENT_THREADS - 1);
    struct ring_head *h = &ra->heads[j];
    uint32_t free_ = 0;
    if (VOLATILE(h->used) ||
        !__atomic_compare_exchange_n(&h->used, &free_, 2u, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      continue;
    h->tid = tid;
    h->pid = pid;
    h->state_pid = VOLATILE(st->gate->pid);
    h->tail_seen = VOLATILE(h->tail);
    __atomic_store_n(&h->used, 1u, __ATOMIC_RELEASE);
    t->ring = j + 1;
    t->ring_gen = gen;
    *k = j;
    return ra;
  }
  __atomic_fetch_add(&ra->no_ring, 1, __ATOMIC_RELAXED);
  return NULL;
}

INL void inherit_frames(struct agent_state *st, struct agent_thread *t, struct ring_area *ra,
                        uint32_t k, uint32_t word);

/* The ring slot t writes, claimed on its first record in this generation
 * (then first the frames the slot holds without having entered them). */
INL struct ring_area *slot_ring(struct agent_state *st, struct agent_thread *t, uint32_t *k,
                                uint32_t word) {
  struct agent_gate *g = st->gate;
  struct ring_area *ra = VOLATILE(g->armed) ? VOLATILE(g->ring) : join(st, g);
  if (!ra) return NULL;
  uint32_t gen = (uint32_t)VOLATILE(g->gen), r = t->ring;
  if (r && t->ring_gen == gen) {
    *k = r - 1;
    return ra;
  }
  ra = claim_ring(st, t, ra, gen, k);
  if (ra) inherit_frames(st, t, ra, *k, word);
  return ra;
}

/* Is the reader's process gone? process_vm_readv answers ESRCH for a
 * process that is gone or a zombie (no mm: checked before any permission),
 * where kill(pid, 0) would call a killed asmspy nobody reaped yet alive. A
 * live one answers EFAULT (address 0) or EPERM. */
INL int reader_gone(const struct ring_area *ra) {
  int32_t owner = VOLATILE(ra->owner_pid);
  if (owner <= 0) return 0;
  uint64_t word = 0;
  struct agent_iovec l, r;
  l.base = (uint64_t)&word, l.len = 1;
  r.base = 0, r.len = 1;
  return agent_syscall(SYS_PROCESS_VM_READV, owner, (long)&l, 1, (long)&r, 1, 0) == -AGENT_ESRCH;
}

#define AGENT_SPIN 256u
#define WAIT_ROOM 0
#define WAIT_LOST 1
#define WAIT_LATE 2
struct agent_timespec {
  long sec, nsec;
};

/* Why ring k (thread t's) cannot take a record now, fresh from the ring:
 * WAIT_ROOM (it can), WAIT_LATE / WAIT_LOST (it never will: drop), or -1
 * (full: wait for the reader).
 *
 * The head is read here, never taken from the caller: a signal handler on
 * this thread may have claimed records since the caller looked and the
 * reader consumed them, so a head the caller read may be older than the
 * tail (an unsigned `head - tail` of it is 2^64 - n: "full" for ever, and
 * the thread slept on, woken by every chunk of the reader, while only its
 * handlers' records went through: harm_sig's stall). Signed for the same
 * reason: the tail may pass a head read a moment before. Every value is
 * read again after a signal handler of this thread may have run. */
INL int ring_state(struct agent_state *st, struct ring_area *ra, struct ring_head *h, uint32_t k) {
  for (;;) {
    uint64_t head = VOLATILE(h->head);
    uint64_t tail = VOLATILE(h->tail);
    h->tail_seen = tail;
    if ((int64_t)(head - tail) < (int64_t)AGENT_RING) return WAIT_ROOM;
    if (!VOLATILE(st->gate->armed) || VOLATILE(ra->closing)) return WAIT_LATE;
    if (VOLATILE(ra->lossy) || VOLATILE(ra->dead)) return WAIT_LOST;
    /* Full, and the reader stands at a record claimed but not written:
     * only an emit of this thread can hold it (a thread writes its ring
     * alone), one a signal handler (this call's) interrupted between its
     * claim and its publication, or one a handler left by siglongjmp. The
     * reader reads in order and cannot pass it, so waiting would never
     * end: drop (counted in lost). Exact otherwise: while the reader is
     * short of that record it makes room, and a handler waits for it like
     * any other call. */
    uint32_t seq = VOLATILE(ra->recs[k][tail & (AGENT_RING - 1)].seq);
    __asm__ volatile("" ::: "memory");
    /* the head unchanged since we read it: no handler of ours claimed
     * meanwhile, so that slot still holds record `tail` (a handler that saw
     * a newer tail could have written record tail + AGENT_RING there) */
    if (VOLATILE(h->head) != head) continue;
    return seq != (uint32_t)(tail + 1) ? WAIT_LOST : -1;
  }
}

/* Ring k is full: wait for the reader to make room. Spins a little
 * (pause), then sleeps on the shared futex `wake` (20 ms at most, then
 * looks again; a signal ends the sleep early: EINTR, looked at again).
 * Never waits for a reader that cannot come (ring_state). */
INL int wait_room(struct agent_state *st, struct ring_area *ra, struct ring_head *h, uint32_t k) {
  for (uint32_t spin = 0;; spin++) {
    int why = ring_state(st, ra, h, k);
    if (why >= 0) return why;
    if (spin < AGENT_SPIN) {
      __asm__ volatile("pause");
      continue;
    }
    /* signed: a beat stamped after our rdtsc (or on a CPU slightly ahead)
     * is fresh, not 2^64 ticks old */
    int64_t age = (int64_t)(rdtsc() - VOLATILE(ra->reader_beat));
    if (age > (int64_t)VOLATILE(ra->dead_ticks) && reader_gone(ra)) {
      VOLATILE(ra->dead) = 1;
      return WAIT_LOST;
    }
    /* futex protocol: the word first, then announce ourselves, then look
     * again; the reader publishes its tail, then reads waiters (both sides
     * fenced), so either we see the room or it sees us and bumps wake. The
     * reader wakes waiters after every drain (a chunk, or the end of a
     * pass), so a sleeper looks again at the reader's pace. */
    uint32_t w = __atomic_load_n(&ra->wake, __ATOMIC_ACQUIRE);
    __atomic_fetch_add(&ra->waiters, 1u, __ATOMIC_SEQ_CST);
    if (ring_state(st, ra, h, k) < 0) {
      struct agent_timespec ts;
      ts.sec = 0, ts.nsec = 20000000;
      agent_syscall(SYS_FUTEX, (long)&ra->wake, FUTEX_WAIT_SHARED, w, (long)&ts, 0, 0);
    }
    __atomic_fetch_sub(&ra->waiters, 1u, __ATOMIC_SEQ_CST);
  }
}

/* One record into thread t's ring, or a counted drop.
 *
 * Signal handlers on this thread may run at any instruction here and emit
 * into the same ring: the claim is one instruction (cmpxchg on the head
 * whose room was seen: a handler that claimed meanwhile makes us look
 * again), the record is published by its seq, written last; a full ring
 * waits (ring_state says when it must not). */
INL void emit_to(struct agent_state *st, struct ring_area *ra, uint32_t k, uint64_t ret,
                 uint64_t slot, uint32_t word) {
  struct ring_head *h = &ra->heads[k];
  for (;;) {
    uint64_t head = VOLATILE(h->head);
    /* signed: a handler may have moved tail_seen past the head we read */
    if ((int64_t)(head - h->tail_seen) >= (int64_t)AGENT_RING) {
      int w = wait_room(st, ra, h, k);
      if (w != WAIT_ROOM) {
        /* one instruction: a signal handler's count is never lost */
        if (w == WAIT_LATE)
          __asm__ volatile("incq %0" : "+m"(h->late));
        else
          __asm__ volatile("incq %0" : "+m"(h->lost));
        return;
      }
      continue; /* the head as it is now */
    }
    /* claim with one instruction, and only the index whose room we saw: a
     * signal handler on this thread that claimed meanwhile makes us look
     * again (no lock prefix: only this thread writes head) */
    uint64_t seen = head;
    __asm__ volatile("cmpxchgq %2, %1"
                     : "+a"(seen), "+m"(h->head)
                     : "r"(head + 1)
                     : "memory", "cc");
    if (seen != head) continue;
    struct ring_rec *r = &ra->recs[k][head & (AGENT_RING - 1)];
    r->tsc = rdtsc();
    r->ret = ret;
    r->slot = slot;
    r->word = word;
    __asm__ volatile("" ::: "memory");
    VOLATILE(r->seq) = (uint32_t)(head + 1);
    __asm__ volatile("" ::: "memory");
    return;
  }
}

/* A ring just claimed by a slot that holds frames it never entered (a
 * forked child's copy of its parent's shadow stack; a vfork child, whose
 * parent's slot is t->inherit): they go first into the ring, outermost
 * first, as REC_F_INHERIT entries, so the reader and the views put the
 * thread's calls under them, as the parent had them. word is the record
 * that claimed the ring: an entry that pushed its frame already (on_entry
 * claims the frame first) is not inherited. */
INL void inherit_frames(struct agent_state *st, struct agent_thread *t, struct ring_area *ra,
                        uint32_t k, uint32_t word) {
  const struct agent_thread *from = t;
  uint32_t in = VOLATILE(t->inherit);
  if (in && in <= AGENT_THREADS) {
    from = &st->threads[in - 1];
    t->inherit = 0;
  }
  uint32_t d = VOLATILE(from->depth);
  if (from == t && d && REC_WHAT(word) == REC_ENTRY && !(REC_FLAGS(word) & REC_F_NOEXIT)) d--;
  if (d > AGENT_SHADOW) d = AGENT_SHADOW;
  for (uint32_t i = 0; i < d; i++) {
    const struct agent_frame *f = &from->frames[i];
    uint32_t fl = REC_F_INHERIT | (f->flags & AGENT_FRAME_TAIL ? REC_F_TAIL : 0);
    emit_to(st, ra, k, f->ret, f->slot, REC_WORD(f->func, REC_ENTRY, fl));
  }
}

INL void emit(struct agent_state *st, struct agent_thread *t, uint64_t ret, uint64_t slot,
              uint32_t word) {
  uint32_t k;
  struct ring_area *ra = slot_ring(st, t, &k, word);
  if (!ra) {
    t->dropped++;
    return;
  }
  emit_to(st, ra, k, ret, slot, word);
}

/* ------------------------------------------------------ thread slots -- *
 * A thread's slot is found by its thread pointer and, when the tid's place
 * in the TCB is known, its tid: a new thread that reuses a dead one's TCB
 * (glibc caches stacks) takes the dead one's slot over, frames and all, as
 * does a forked child (its private copy of the state holds the frames it
 * returns through). Slots of dead threads are reclaimed when the table is
 * full, so any number of threads over a session is served; a call that
 * still finds no slot is counted (claim_fail) and reported by asmspy.
 *
 * Keys change only by compare-and-swap, and a tid only by compare-and-swap
 * from the dead owner's, so a takeover and a reclaim of the same slot
 * cannot both win. A slot's key never goes back to FREE: lookups stop at
 * FREE, so no chain is ever cut short. */

INL uint32_t slot_hash(uint64_t key) {
  return (uint32_t)(((key >> 6) * 0x9E3779B97F4A7C15ull) >> 40);
}

/* The slot is another thread's now: its ring (if it has one in this
 * generation) gets a record in order, so what the old owner wrote stays
 * the old owner's. A slot without a ring claims one at its first record. */
INL void announce(struct agent_state *st, struct agent_thread *t) {
  struct agent_gate *g = st->gate;
  if (t->ring && t->ring_gen == (uint32_t)VOLATILE(g->gen) && VOLATILE(g->armed))
    emit(st, t, (uint64_t)(uint32_t)VOLATILE(t->tid), (uint64_t)(uint32_t)slot_pid(st, t),
         REC_WORD(0, REC_TID, 0));
}

/* Dead threads' slots become DEAD (claimable). Returns how many. */
INL uint32_t reclaim_dead(struct agent_state *st) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    struct agent_thread *t = &st->threads[k];
    uint64_t cur = __atomic_load_n(&t->key, __ATOMIC_ACQUIRE);
    int32_t owner = VOLATILE(t->tid);
    if (cur <= AGENT_KEY_DEAD || owner <= 0 || !thread_gone(owner)) continue;
    if (!__atomic_compare_exchange_n(&t->tid, &owner, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      continue; /* taken over meanwhile */
    if (!__atomic_compare_exchange_n(&t->key, &cur, AGENT_KEY_BUSY, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      continue;
    t->depth = 0; /* a dead thread's frames return nowhere */
    t->ngrave = 0;
    __atomic_store_n(&t->key, AGENT_KEY_DEAD, __ATOMIC_RELEASE);
    __atomic_fetch_add(&st->reclaimed, 1, __ATOMIC_RELAXED);
    n++;
  }
  return n;
}

INL struct agent_thread *claim_slot(struct agent_state *st, uint64_t key, int32_t tid, uint32_t h,
                                    uint32_t *idx) {
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < AGENT_THREADS; i++) {
      uint32_t k = (h + i) & (AGENT_THREADS - 1);
      struct agent_thread *t = &st->threads[k];
      uint64_t cur = __atomic_load_n(&t->key, __ATOMIC_ACQUIRE);
      if (cur != AGENT_KEY_FREE && cur != AGENT_KEY_DEAD) continue;
      if (!__atomic_compare_exchange_n(&t->key, &cur, AGENT_KEY_BUSY, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        continue;
      t->depth = 0;
      t->ngrave = 0;
      t->vfork_pid = 0;
      t->inherit = 0;
      VOLATILE(t->tid) = tid;
      __atomic_store_n(&t->key, key, __ATOMIC_RELEASE);
      announce(st, t);
      *idx = k;
      return t;
    }
    /* full: reclaim dead threads' slots once (only when a tid identifies
     * the owner: without it a slot's tid may be stale) */
    if (pass == 1 || !st->tid_offset || reclaim_dead(st) == 0) break;
  }
  __atomic_fetch_add(&st->claim_fail, 1, __ATOMIC_RELAXED);
  return NULL;
}

/* The slot keyed `key` (of thread tid, 0 = unknown): found, taken over
 * from a dead thread with the same key, or (claim) claimed. */
INL struct agent_thread *slot_of(struct agent_state *st, uint64_t key, int32_t tid, int claim,
                                 uint32_t *idx) {
  uint32_t h = slot_hash(key), same_k = 0;
  struct agent_thread *same = NULL;
  for (uint32_t i = 0; i < AGENT_THREADS; i++) {
    uint32_t k = (h + i) & (AGENT_THREADS - 1);
    struct agent_thread *t = &st->threads[k];
    uint64_t cur = __atomic_load_n(&t->key, __ATOMIC_ACQUIRE);
    if (cur == AGENT_KEY_FREE) break;
    if (cur != key) continue;
    int32_t owner = VOLATILE(t->tid);
    if (!tid || owner == tid) {
      *idx = k;
      return t;
    }
    if (!same && owner > 0) same = t, same_k = k;
  }
  if (same) {
    int32_t owner = VOLATILE(same->tid);
    if (owner > 0 && thread_gone(owner) &&
        __atomic_compare_exchange_n(&same->tid, &owner, tid, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&same->key, __ATOMIC_ACQUIRE) == key) {
      same->vfork_pid = 0;
      announce(st, same);
      *idx = same_k;
      return same;
    }
  }
  if (!claim) return NULL;
  return claim_slot(st, key, tid ? tid : current_tid(st), h, idx);
}

/* This thread's slot. A vfork child runs on its parent's thread pointer
 * (and, in glibc, its parent's cached tid) while the parent waits inside
 * vfork: the vfork hook marked the parent's slot (vfork_pid), so a caller
 * that finds the mark asks getpid: the parent itself clears it, the child
 * uses a slot keyed by its pid. Only a marked slot pays the system call. */
INL struct agent_thread *thread_slot(struct agent_state *st, int claim, uint32_t *idx) {
  uint64_t key = thread_pointer();
  int32_t tid = st->tid_offset ? current_tid(st) : 0;
  if (key <= AGENT_KEY_DEAD) /* a runtime whose fs:0 is no TCB pointer: the tid is the key */
    key = 1ull << 63 | (uint64_t)(uint32_t)(tid ? tid : current_tid(st));
  struct agent_thread *t = slot_of(st, key, tid, claim, idx);
  if (!t || !VOLATILE(t->vfork_pid)) return t;
  int32_t pid = (int32_t)agent_syscall(SYS_GETPID, 0, 0, 0, 0, 0, 0);
  if (pid == VOLATILE(t->vfork_pid)) { /* the parent runs again: the child is gone or exec'd */
    VOLATILE(t->vfork_pid) = 0;
    return t;
  }
  /* the vfork child (its tid is its pid): the ring its slot claims starts
   * with its parent's frames (inherit_frames) */
  uint32_t parent = *idx;
  struct agent_thread *c = slot_of(st, 1ull << 62 | (uint64_t)(uint32_t)pid, pid, claim, idx);
  if (c && !c->depth) c->inherit = parent + 1;
  return c;
}

/* vfork's entry: mark the caller's slot (the return is not hooked: it
 * returns twice, in the child and again in the parent). Set by the caller
 * before the kernel creates the child: every record of the child lands in
 * a slot of its own. */
INL void vfork_mark(struct agent_thread *t) {
  VOLATILE(t->vfork_pid) = (int32_t)agent_syscall(SYS_GETPID, 0, 0, 0, 0, 0, 0);
}

/* ------------------------------------------------------------ graves -- *
 * Frames that left without returning (longjmp, a throw, or a coroutine's
 * frames buried when another stack returned) are kept in a ring, so a late
 * return still finds its real address. Several records may name one slot
 * (a slot is hooked, buried, hooked again); the newest (seq) is the live
 * one, and hooking a slot makes every older grave record of it stale. */

INL uint64_t grave_bit(uint64_t slot) { return 1ull << ((slot >> 3) & 63); }

/* The newest grave record of slot, or NULL; the mask is rebuilt on the way. */
INL struct agent_frame *grave_newest(struct agent_thread *t, uint64_t slot) {
  struct agent_frame *best = NULL;
  uint64_t mask = 0;
  for (uint32_t i = 0; i < AGENT_GRAVE; i++) {
    struct agent_frame *g = &t->grave[i];
    if (!g->slot) continue;
    mask |= grave_bit(g->slot);
    if (g->slot == slot && g->ret && (!best || g->seq > best->seq)) best = g;
  }
  t->grave_mask = mask;
  return best;
}

/* slot is hooked anew: its older grave records are stale. */
INL void grave_forget(struct agent_thread *t, uint64_t slot) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < AGENT_GRAVE; i++) {
    struct agent_frame *g = &t->grave[i];
    if (g->slot == slot) g->slot = 0;
    if (g->slot) mask |= grave_bit(g->slot);
  }
  t->grave_mask = mask;
}

/* A grave entry pushed out of the ring: unless a newer record owns its
 * slot, its real return address goes back into the slot, so a late return
 * there needs no record at all. */
INL void evict(struct agent_state *st, struct agent_thread *t, struct agent_frame *g) {
  uint64_t slot = g->slot, ret = g->ret, seq = g->seq;
  g->slot = 0;
  if (!slot || !ret) return;
  /* a newer record that knows the real address owns the slot (a newer
   * tail frame whose caller's address is unknown does not) */
  uint32_t d = t->depth < AGENT_SHADOW ? t->depth : AGENT_SHADOW;
  for (uint32_t i = 0; i < d; i++)
    if (t->frames[i].slot == slot && t->frames[i].ret && t->frames[i].seq > seq) return;
  for (uint32_t i = 0; i < AGENT_GRAVE; i++)
    if (t->grave[i].slot == slot && t->grave[i].ret && t->grave[i].seq > seq) return;
  uint64_t now = 0;
  if (!self_copy(SYS_PROCESS_VM_READV, (uint64_t)&now, slot) || now != st->ret_hook) return;
  if (self_copy(SYS_PROCESS_VM_WRITEV, (uint64_t)&ret, slot))
    __atomic_fetch_add(&st->unhooked, 1, __ATOMIC_RELAXED);
  else
    __atomic_fetch_add(&st->unhook_failed, 1, __ATOMIC_RELAXED);
}

/* A frame that left without returning: its exit is recorded now, and it is
 * kept in the grave. */
INL void bury(struct agent_state *st, struct agent_thread *t, const struct agent_frame *f) {
  uint32_t n = t->ngrave;
  t->ngrave = n + 1; /* claim first: a signal handler buries into the next one */
  struct agent_frame *g = &t->grave[n & (AGENT_GRAVE - 1)];
  if (n >= AGENT_GRAVE) evict(st, t, g);
  frame_copy(g, f);
  t->grave_mask |= grave_bit(f->slot);
  emit(st, t, f->ret, f->slot, REC_WORD(f->func, REC_EXIT, REC_F_UNWOUND));
}

/* _Unwind_RaiseException is about to walk this thread's stack: every
 * hooked slot gets its real return address back (the unwinder finds no
 * frame description for the return hook). The frames stay on the shadow
 * stack, marked; __cxa_begin_catch decides which of them survived. */
INL void unhook_all(struct agent_state *st) {
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 0, &idx);
  if (!t) return;
  /* newest first: of several records of one slot (a stale one below, the
   * live one above) the live one's address is the slot's */
  uint32_t d = t->depth < AGENT_SHADOW ? t->depth : AGENT_SHADOW;
  for (uint32_t i = d; i-- > 0;) {
    struct agent_frame *f = &t->frames[i];
    if (f->flags & AGENT_FRAME_RESTORED || !f->ret) continue;
    uint64_t *slot = (uint64_t *)f->slot;
    if (*slot == st->ret_hook) *slot = f->ret;
    f->flags |= AGENT_FRAME_RESTORED;
  }
  /* tail frames whose caller's address is unknown share a restored slot */
  for (uint32_t i = 0; i < t->depth && i < AGENT_SHADOW; i++)
    if (!t->frames[i].ret) t->frames[i].flags |= AGENT_FRAME_RESTORED;
}

/* __cxa_begin_catch, called by the catching frame (its return slot is
 * `catcher`): restored frames below it are gone, those above live on and
 * are hooked again. */
INL void rehook_after_catch(struct agent_state *st, uint64_t catcher) {
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 0, &idx);
  if (!t) return;
  uint32_t d = t->depth < AGENT_SHADOW ? t->depth : AGENT_SHADOW, keep = 0;
  for (uint32_t i = 0; i < d; i++) {
    struct agent_frame *f = &t->frames[i];
    if (f->flags & AGENT_FRAME_RESTORED) {
      if (f->slot < catcher) {
        /* unwound: its slot holds the real address (restored), so it is
         * recorded as left, never kept for a return through the hook */
        emit(st, t, f->ret, f->slot, REC_WORD(f->func, REC_EXIT, REC_F_UNWOUND));
        continue;
      }
      if (f->ret) {
        uint64_t *slot = (uint64_t *)f->slot;
        if (*slot == f->ret) *slot = st->ret_hook;
      }
      f->flags &= ~AGENT_FRAME_RESTORED;
    }
    if (keep != i) frame_copy(&t->frames[keep], f);
    keep++;
  }
  t->depth = keep;
}

/* ret lies in one of the program's JIT code ranges (agent_state.jit) */
INL int from_jit(const struct agent_state *st, uint64_t ret) {
  uint32_t n = st->njit < AGENT_MAX_JIT ? st->njit : AGENT_MAX_JIT;
  for (uint32_t i = 0; i < n; i++)
    if (ret - st->jit[i].base < st->jit[i].size) return 1;
  return 0;
}

AGENT_FN uint64_t asmspy_agent_on_entry(struct agent_state *st, uint64_t index, uint64_t *slotp) {
  const struct agent_func *fn = &st->funcs[index];
  if (fn->kind == AGENT_FN_UNWIND_RAISE) {
    unhook_all(st);
    return fn->resume;
  }
  if (fn->kind == AGENT_FN_CATCH) {
    rehook_after_catch(st, (uint64_t)slotp);
    return fn->resume;
  }
  /* a function that returns twice (AGENT_FN_NOEXIT): entry only, its
   * return address never swapped; vfork's hook without it records nothing */
  int noexit = (fn->kind & AGENT_FN_NOEXIT) != 0;
  int vfork = AGENT_FN_KIND(fn->kind) == AGENT_FN_VFORK;
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 1, &idx);
  if (!t) return fn->resume;
  if (vfork && !noexit) {
    vfork_mark(t);
    return fn->resume;
  }
  uint64_t slot = (uint64_t)slotp, ret = *slotp;
  int tail = ret == st->ret_hook;
  uint32_t d = t->depth;
  /* frames whose slot this call overwrote are gone (longjmp, a throw): the
   * slot holds this call's return address now, so nothing can return
   * through their hook any more (no grave) */
  if (!tail)
    while (d > 0 && d <= AGENT_SHADOW && t->frames[d - 1].slot == slot) {
      t->depth = --d;
      const struct agent_frame *f = &t->frames[d];
      emit(st, t, f->ret, f->slot, REC_WORD(f->func, REC_EXIT, REC_F_UNWOUND));
    }
  uint64_t real_ret = ret;
  if (tail) { /* the real return address is with the newest record of the slot */
    real_ret = 0;
    uint64_t best = 0;
    for (uint32_t i = d; i-- > 0 && i < AGENT_SHADOW;)
      if (t->frames[i].slot == slot && t->frames[i].ret) {
        real_ret = t->frames[i].ret, best = t->frames[i].seq;
        break;
      }
    const struct agent_frame *g = t->grave_mask & grave_bit(slot) ? grave_newest(t, slot) : NULL;
    if (g && (!real_ret || g->seq > best)) real_ret = g->ret;
  }
  /* called from the program's JIT code: its runtime reads this return
   * address (HotSpot's frame::sender, V8's exit frames), so it is never
   * swapped and the call is traced entry only */
  if (!tail && !noexit && from_jit(st, ret)) {
    noexit = 1;
    __atomic_fetch_add(&st->jit_entry_only, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&st->jit_last_func, index + 1, __ATOMIC_RELAXED);
  }
  if (d >= AGENT_SHADOW || noexit) { /* too deep to hook, returns twice, or JIT's */
    emit(st, t, real_ret, slot, REC_WORD(index, REC_ENTRY, REC_F_NOEXIT | (tail ? REC_F_TAIL : 0)));
    if (vfork) vfork_mark(t); /* after the record: it is the parent's */
    return fn->resume;
  }
  if (!tail && (t->grave_mask & grave_bit(slot))) grave_forget(t, slot);
  t->depth = d + 1; /* claim first: a signal handler pushes above */
  struct agent_frame *f = &t->frames[d];
  f->slot = slot;
  f->ret = real_ret; /* a tail frame carries its caller's: every record of a slot knows it */
  f->seq = rdtsc();
  f->func = (uint32_t)index;
  f->flags = tail ? AGENT_FRAME_TAIL : 0;
  if (!tail) *slotp = st->ret_hook;
  emit(st, t, real_ret, slot, REC_WORD(index, REC_ENTRY, tail ? REC_F_TAIL : 0));
  return fn->resume;
}

/* Any thread's newest record of a frame returning through `slot` (a
 * coroutine resumed on another thread, a thread pointer that changed);
 * a grave record found is taken out. 0 if none. */
INL uint64_t find_anywhere(struct agent_state *st, uint64_t slot) {
  uint64_t best_seq = 0, best_ret = 0;
  struct agent_frame *best_grave = NULL;
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    struct agent_thread *o = &st->threads[k];
    if (__atomic_load_n(&o->key, __ATOMIC_ACQUIRE) <= AGENT_KEY_DEAD) continue;
    for (uint32_t i = o->depth < AGENT_SHADOW ? o->depth : AGENT_SHADOW; i-- > 0;) {
      const struct agent_frame *f = &o->frames[i];
      if (f->slot == slot && f->ret && (!best_ret || f->seq > best_seq))
        best_seq = f->seq, best_ret = f->ret, best_grave = NULL;
    }
    struct agent_frame *g = grave_newest(o, slot);
    if (g && (!best_ret || g->seq > best_seq)) best_seq = g->seq, best_ret = g->ret, best_grave = g;
  }
  if (best_grave) best_grave->slot = 0;
  return best_ret;
}

/* A hooked frame returned through `slot`. Returns where it really returns
 * to. The matching frame is the newest record of that slot: the highest
 * one on the shadow stack, unless the grave holds a newer one (a coroutine
 * frame buried while its stack was suspended). On the shadow stack, frames
 * above the match that sit deeper on the stack (lower slot) were left by
 * longjmp (or live on a coroutine's stack below this one) and are buried;
 * frames above it with a higher slot live on another stack and are kept. A
 * tail chain (ret 0) shares the slot and exits with it. */
AGENT_FN uint64_t asmspy_agent_on_return(struct agent_state *st, uint64_t slot) {
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 0, &idx);
  if (t) {
    uint32_t d = t->depth < AGENT_SHADOW ? t->depth : AGENT_SHADOW;
    uint32_t m = d;
    for (uint32_t i = d; i-- > 0;)
      if (t->frames[i].slot == slot && !(t->frames[i].flags & AGENT_FRAME_RESTORED)) {
        m = i;
        break;
      }
    struct agent_frame *g = t->grave_mask & grave_bit(slot) ? grave_newest(t, slot) : NULL;
    if (m < d && !(g && g->seq > t->frames[m].seq)) {
      /* the chain sharing the slot: m down to the frame the tail calls
       * started from (every one of them carries the real address) */
      uint32_t base = m;
      while (base > 0 && (t->frames[base].flags & AGENT_FRAME_TAIL) &&
             t->frames[base - 1].slot == slot)
        base--;
      uint64_t real = t->frames[m].ret ? t->frames[m].ret : t->frames[base].ret;
      /* frames above m deeper on this stack: their exits come first (inner) */
      for (uint32_t j = m + 1; j < d; j++)
        if (t->frames[j].slot < slot) bury(st, t, &t->frames[j]);
      for (uint32_t j = m + 1; j-- > base;)
        emit(st, t, real, slot, REC_WORD(t->frames[j].func, REC_EXIT, 0));
      /* frames above m with a higher slot live on another stack: kept */
      uint32_t keep = base;
      for (uint32_t j = m + 1; j < d; j++)
        if (t->frames[j].slot > slot) frame_copy(&t->frames[keep++], &t->frames[j]);
      t->depth = keep;
      if (real) return real;
    }
    if (g) { /* buried earlier (or newer than the shadow stack's), yet it returned */
      uint64_t r = g->ret;
      g->slot = 0;
      return r;
    }
  }
  uint64_t r = find_anywhere(st, slot);
  if (r) return r;
  /* Unreachable by construction: every hooked slot is on a shadow stack or
   * in a grave, and a grave entry pushed out puts the real address back
   * into its slot. Counted for asmspy, then the only honest stop. */
  __atomic_fetch_add(&st->unmatched, 1, __ATOMIC_RELAXED);
  __builtin_trap();
}
