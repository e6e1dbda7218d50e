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
 * leaves it). Its state is reached through the pointer at the blob's start
 * (asmspy_agent_ctx), which asmspy writes after the copy.
 *
 * The flow, per patched function f (uftrace's mcount return hook, moved to
 * the function's first bytes so that no recompilation is needed):
 *   f:       jmp stub_f                      (5 bytes written over f's prologue)
 *   stub_f:  mov r11d, <index of f>; jmp asmspy_agent_entry
 *   entry:   save the argument registers; on_entry() records ENTRY in the
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
 * claimed by one add and published by its seq, written last. */
#include "plugins/entrypatch/agent_layout.h"

#include <stddef.h>

#define AGENT_FN __attribute__((section("asmspy_agent"), visibility("hidden"), noinline, used))
#define INL static inline __attribute__((always_inline))

/* The thunks: the only way in. Hand-written because they run between a
 * call and a function's first instruction (or a ret and the caller), where
 * only the ABI's scratch register r11 and the flags may be touched. */
__asm__(".pushsection asmspy_agent,\"ax\",@progbits\n"
        ".balign 16\n"
        ".globl asmspy_agent_ctx\n"
        ".hidden asmspy_agent_ctx\n"
        "asmspy_agent_ctx: .quad 0\n"
        ".balign 16\n"
        ".globl asmspy_agent_entry\n"
        ".hidden asmspy_agent_entry\n"
        "asmspy_agent_entry:\n" /* r11 = function index, (%rsp) = return address */
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  and $-16, %rsp\n"
        "  push %rax\n  push %rcx\n  push %rdx\n  push %rsi\n"
        "  push %rdi\n  push %r8\n  push %r9\n  push %r10\n"
        "  mov asmspy_agent_ctx(%rip), %rdi\n"
        "  mov %r11, %rsi\n"
        "  lea 8(%rbp), %rdx\n" /* the return slot */
        "  call asmspy_agent_on_entry\n"
        "  mov %rax, %r11\n"
        "  pop %r10\n  pop %r9\n  pop %r8\n  pop %rdi\n"
        "  pop %rsi\n  pop %rdx\n  pop %rcx\n  pop %rax\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  jmp *%r11\n"
        ".balign 16\n"
        ".globl asmspy_agent_return\n"
        ".hidden asmspy_agent_return\n"
        "asmspy_agent_return:\n" /* a hooked function returned: rsp = its slot + 8 */
        "  sub $8, %rsp\n"        /* back onto the slot: the real address goes there */
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  and $-16, %rsp\n"
        "  push %rax\n  push %rdx\n  push %rcx\n  push %rsi\n  push %rdi\n"
        "  push %r8\n  push %r9\n  push %r10\n  push %r11\n"
        "  sub $8, %rsp\n"
        "  mov asmspy_agent_ctx(%rip), %rdi\n"
        "  lea 8(%rbp), %rsi\n"
        "  call asmspy_agent_on_return\n"
        "  mov %rax, 8(%rbp)\n"
        "  add $8, %rsp\n"
        "  pop %r11\n  pop %r10\n  pop %r9\n  pop %r8\n"
        "  pop %rdi\n  pop %rsi\n  pop %rcx\n  pop %rdx\n  pop %rax\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  ret\n"
        ".popsection\n");

INL uint64_t rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

/* The thread pointer: glibc and musl keep the TCB's own address at fs:0. */
INL uint64_t thread_pointer(void) {
  uint64_t p;
  __asm__ volatile("mov %%fs:0, %0" : "=r"(p));
  return p;
}

INL int32_t current_tid(const struct agent_state *st) {
  if (st->tid_offset) {
    int32_t t;
    __asm__ volatile("movl %%fs:(%1), %0" : "=r"(t) : "r"((uint64_t)st->tid_offset));
    return t;
  }
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(186L /* gettid */) : "rcx", "r11", "memory");
  return (int32_t)r;
}

#define VOLATILE(x) (*(volatile __typeof__(x) *)&(x))

/* Field by field: a struct assignment may become a memcpy call, and there
 * is no memcpy in here. */
INL void frame_copy(struct agent_frame *dst, const struct agent_frame *src) {
  dst->slot = src->slot;
  dst->ret = src->ret;
  dst->func = src->func;
  dst->flags = src->flags;
}

/* One record into thread idx's ring, or a counted drop. */
INL void emit(struct agent_state *st, struct agent_thread *t, uint32_t idx, uint64_t ret,
              uint64_t slot, uint32_t word) {
  struct agent_gate *g = st->gate;
  struct ring_area *ra = VOLATILE(g->armed) ? VOLATILE(g->ring) : NULL;
  if (!ra) {
    t->dropped++;
    return;
  }
  struct ring_head *h = &ra->heads[idx];
  uint64_t head = VOLATILE(h->head);
  if (head - h->tail_seen >= AGENT_RING) { /* full by the old tail: look again */
    h->tail_seen = VOLATILE(h->tail);
    for (uint32_t spin = 0; head - h->tail_seen >= AGENT_RING; spin++) {
      /* wait for a live reader; never for a dead one, never once disarmed */
      /* signed: a beat stamped after our rdtsc (or on a CPU slightly
       * ahead) is fresh, not 2^64 ticks old */
      int64_t age = (int64_t)(rdtsc() - VOLATILE(ra->reader_beat));
      if (!VOLATILE(g->armed) || age > (int64_t)VOLATILE(ra->beat_ticks)) {
        h->lost++;
        return;
      }
      if (spin % 64 == 63) {
        long r;
        __asm__ volatile("syscall" : "=a"(r) : "a"(24L /* sched_yield */) : "rcx", "r11", "memory");
      } else {
        __asm__ volatile("pause");
      }
      h->tail_seen = VOLATILE(h->tail);
    }
  }
  /* claim with one instruction: a signal handler on this thread that
   * records too takes the next index, never this one */
  uint64_t my = 1;
  __asm__ volatile("xaddq %0, %1" : "+r"(my), "+m"(h->head) : : "memory");
  struct ring_rec *r = &ra->recs[idx][my & (AGENT_RING - 1)];
  r->tsc = rdtsc();
  r->ret = ret;
  r->slot = slot;
  r->word = word;
  __asm__ volatile("" ::: "memory");
  VOLATILE(r->seq) = (uint32_t)(my + 1);
}

/* This thread's slot: found by its thread pointer, claimed when new. */
INL struct agent_thread *thread_slot(struct agent_state *st, int claim, uint32_t *idx) {
  uint64_t key = thread_pointer();
  uint32_t h = (uint32_t)(((key >> 6) * 0x9E3779B97F4A7C15ull) >> 40);
  for (uint32_t i = 0; i < AGENT_THREADS; i++) {
    uint32_t k = (h + i) & (AGENT_THREADS - 1);
    struct agent_thread *t = &st->threads[k];
    uint64_t cur = __atomic_load_n(&t->key, __ATOMIC_ACQUIRE);
    if (cur == key) {
      *idx = k;
      return t;
    }
    if (cur != 0) continue;
    if (!claim) return NULL;
    uint64_t expected = 0;
    if (__atomic_compare_exchange_n(&t->key, &expected, key, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      t->tid = current_tid(st);
      *idx = k;
      struct agent_gate *g = st->gate;
      struct ring_area *ra = VOLATILE(g->armed) ? VOLATILE(g->ring) : NULL;
      if (ra) {
        ra->heads[k].tid = t->tid;
        VOLATILE(ra->heads[k].used) = 1;
      }
      return t;
    }
    if (expected == key) {
      *idx = k;
      return t;
    }
  }
  __atomic_fetch_add(&st->claim_fail, 1, __ATOMIC_RELAXED);
  return NULL;
}

/* A frame that left without returning: its exit is recorded now, and it is
 * kept in the grave a while (a return through it would still find its
 * real address: another stack, a coroutine). */
INL void bury(struct agent_state *st, struct agent_thread *t, uint32_t idx,
              const struct agent_frame *f) {
  frame_copy(&t->grave[t->ngrave & (AGENT_GRAVE - 1)], f);
  t->ngrave++;
  emit(st, t, idx, f->ret, f->slot, REC_WORD(f->func, REC_EXIT, REC_F_UNWOUND));
}

/* _Unwind_RaiseException is about to walk this thread's stack: every
 * hooked slot gets its real return address back (the unwinder finds no
 * frame description for the return hook). The frames stay on the shadow
 * stack, marked; __cxa_begin_catch decides which of them survived. */
INL void unhook_all(struct agent_state *st) {
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 0, &idx);
  if (!t) return;
  for (uint32_t i = 0; i < t->depth && i < AGENT_SHADOW; i++) {
    struct agent_frame *f = &t->frames[i];
    if (f->flags & AGENT_FRAME_RESTORED || !f->ret) continue;
    uint64_t *slot = (uint64_t *)f->slot;
    if (*slot == st->ret_hook) *slot = f->ret;
    f->flags |= AGENT_FRAME_RESTORED;
  }
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
        bury(st, t, idx, f);
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

AGENT_FN uint64_t asmspy_agent_on_entry(struct agent_state *st, uint64_t index,
                                        uint64_t *slotp) {
  const struct agent_func *fn = &st->funcs[index];
  if (fn->kind == AGENT_FN_UNWIND_RAISE) {
    unhook_all(st);
    return fn->resume;
  }
  if (fn->kind == AGENT_FN_CATCH) {
    rehook_after_catch(st, (uint64_t)slotp);
    return fn->resume;
  }
  uint32_t idx;
  struct agent_thread *t = thread_slot(st, 1, &idx);
  if (!t) return fn->resume;
  /* Another tid behind the same thread pointer: a new thread reusing a dead
   * one's TCB, or a forked (or vfork'ed) child. Only the recorded tid
   * changes: the frames stay, because a forked child still returns through
   * the ones it inherited, and a vfork child shares them with its parent. */
  if (st->tid_offset) {
    int32_t now = current_tid(st);
    if (now != t->tid) {
      t->tid = now;
      emit(st, t, idx, (uint64_t)(uint32_t)now, 0, REC_WORD(0, REC_TID, 0));
    }
  }
  uint64_t slot = (uint64_t)slotp, ret = *slotp;
  int tail = ret == st->ret_hook;
  uint32_t d = t->depth;
  if (!tail) /* frames whose slot this call overwrote are gone (longjmp, a throw) */
    while (d > 0 && d <= AGENT_SHADOW && t->frames[d - 1].slot == slot) {
      t->depth = --d;
      bury(st, t, idx, &t->frames[d]);
    }
  uint64_t real_ret = ret;
  if (tail) /* the real return address is with the frame that owns the slot */
    for (uint32_t i = d; i-- > 0 && i < AGENT_SHADOW;)
      if (t->frames[i].slot == slot && t->frames[i].ret) {
        real_ret = t->frames[i].ret;
        break;
      }
  if (d >= AGENT_SHADOW) {
    emit(st, t, idx, real_ret, slot,
         REC_WORD(index, REC_ENTRY, REC_F_NOEXIT | (tail ? REC_F_TAIL : 0)));
    return fn->resume;
  }
  t->depth = d + 1; /* claim first: a signal handler pushes above */
  struct agent_frame *f = &t->frames[d];
  f->slot = slot;
  f->ret = tail ? 0 : ret;
  f->func = (uint32_t)index;
  f->flags = 0;
  if (!tail) *slotp = st->ret_hook;
  emit(st, t, idx, real_ret, slot, REC_WORD(index, REC_ENTRY, tail ? REC_F_TAIL : 0));
  return fn->resume;
}

/* A hooked frame returned through `slot`. Returns where it really returns
 * to. The matching frame is the highest one with that slot; frames above it
 * that sit deeper on the stack (lower slot) were left by longjmp and are
 * buried; frames above it with a higher slot live on another stack and are
 * kept. A tail chain (ret 0) shares the slot and exits with it. */
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
    if (m < d) {
      /* the chain sharing the slot: m down to the frame holding the address */
      uint32_t base = m;
      while (base > 0 && !t->frames[base].ret && t->frames[base - 1].slot == slot) base--;
      uint64_t real = t->frames[base].ret;
      /* frames above m deeper on this stack were left by a longjmp: their
       * exits come first (they are inner) */
      for (uint32_t j = m + 1; j < d; j++)
        if (t->frames[j].slot < slot) bury(st, t, idx, &t->frames[j]);
      for (uint32_t j = m + 1; j-- > base;)
        emit(st, t, idx, real, slot, REC_WORD(t->frames[j].func, REC_EXIT, 0));
      /* frames above m with a higher slot live on another stack: kept */
      uint32_t keep = base;
      for (uint32_t j = m + 1; j < d; j++)
        if (t->frames[j].slot > slot) frame_copy(&t->frames[keep++], &t->frames[j]);
      t->depth = keep;
      if (real) return real;
    }
    /* not on the shadow stack: dropped earlier as unwound, yet it returned */
    for (uint32_t n = 0; n < AGENT_GRAVE && n < t->ngrave; n++) {
      const struct agent_frame *g = &t->grave[(t->ngrave - 1 - n) & (AGENT_GRAVE - 1)];
      if (g->slot == slot && g->ret) return g->ret;
    }
  }
  /* Last resort: any thread's frames (a thread pointer changed under us). */
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    struct agent_thread *o = &st->threads[k];
    if (!o->key) continue;
    for (uint32_t i = o->depth < AGENT_SHADOW ? o->depth : AGENT_SHADOW; i-- > 0;)
      if (o->frames[i].slot == slot && o->frames[i].ret) return o->frames[i].ret;
  }
  __builtin_trap(); /* no record of this frame: nowhere correct to go */
}
