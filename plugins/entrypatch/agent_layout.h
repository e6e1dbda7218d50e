/* agent_layout.h: the memory the entrypatch agent shares with asmspy, and
 * the layout both sides compile against (agent.c runs inside the target,
 * entrypatch.c / ring_reader.c inside asmspy).
 *
 * Four regions are mapped into the target (inject.c):
 *   code    r-x  private  near each patched module (rel32 reach): a copy of
 *                         the agent's code, then one stub + relocated
 *                         prologue per patched function
 *   state   rw-  private  struct agent_state: the function table and the
 *                         per-thread shadow stacks. Private on purpose: a
 *                         forked child gets its own copy, so the frames it
 *                         inherited still return through their own entries
 *   wipe    rw-  private, MADV_WIPEONFORK: struct agent_gate. Zero in a
 *                         forked child, so the child never writes into a
 *                         ring its parent's reader owns (its events are
 *                         dropped and counted in its own state)
 *   ring    rw-  shared memfd, also mapped by asmspy: struct ring_area
 * Every region stays mapped after asmspy leaves: a thread still inside a
 * patched function returns through the agent (its return address was
 * substituted), so neither the code nor its shadow stack may ever go away
 * while such a frame can exist. Only the ring is unmapped, and only when no
 * thread stood inside agent code at the leave. */
#ifndef ASMSPY_ENTRYPATCH_AGENT_LAYOUT_H
#define ASMSPY_ENTRYPATCH_AGENT_LAYOUT_H

#include <stdint.h>

#define AGENT_MAGIC 0x31746761707361ull /* "aspagt1" */
#define AGENT_MAX_FUNCS 8192u          /* patched functions per session (hard cap) */
#define AGENT_THREADS 256u             /* thread slots (a hash of the thread pointer) */
#define AGENT_SHADOW 512u              /* frames per thread whose return is hooked */
#define AGENT_GRAVE 64u                /* entries dropped as unwound, kept for a late return */
#define AGENT_RING 8192u               /* records per thread ring (power of two) */
#define AGENT_STUB_BYTES 96u           /* per function: stub + relocated prologue + jmp back */

/* function kinds (agent_func.kind) */
#define AGENT_FN_CALL 0u       /* record entry and (through the return hook) exit */
#define AGENT_FN_UNWIND_RAISE 1u /* _Unwind_RaiseException: give the unwinder real
                                    return addresses before it walks the stack */
#define AGENT_FN_CATCH 2u      /* __cxa_begin_catch: frames below the catcher are gone;
                                  hook the survivors' returns again */

struct agent_func {
  uint64_t addr;      /* the function's entry (what the views name) */
  uint64_t resume;    /* where its relocated prologue starts (in a code region) */
  uint32_t kind;      /* AGENT_FN_* */
  uint32_t pad;
};

/* One hooked frame: its return slot on the stack and the real return
 * address the hook took from it. */
struct agent_frame {
  uint64_t slot;
  uint64_t ret;        /* 0: a tail call (its caller's entry below owns the slot) */
  uint32_t func;       /* index into funcs */
  uint32_t flags;      /* AGENT_FRAME_* */
};
#define AGENT_FRAME_RESTORED 1u /* the real return address is back in the slot (a throw) */

struct agent_thread {
  uint64_t key;        /* the thread pointer (fs:0), 0 = free */
  int32_t tid;
  uint32_t depth;      /* frames in use */
  uint32_t ngrave;     /* entries in grave (a ring: ngrave counts all ever dropped) */
  uint32_t pad;
  uint64_t dropped;    /* events not written: no ring (forked child, asmspy gone) */
  struct agent_frame frames[AGENT_SHADOW];
  struct agent_frame grave[AGENT_GRAVE];
};

/* Wipe-on-fork page: armed only in the process asmspy reads. */
struct agent_gate {
  uint64_t armed;             /* 1 while events go to the ring */
  struct ring_area *ring;     /* the shared ring (the target's own mapping) */
};

/* Per-thread ring header (in the shared ring region). The producer's words
 * and the consumer's tail sit on different cache lines: the agent reads the
 * tail only when its cached copy says the ring is full, asmspy publishes it
 * once per batch, so a call costs no cache-line transfer between the
 * target's CPU and the reader's. */
struct ring_head {
  uint64_t head;        /* records claimed by the thread (agent) */
  uint64_t lost;        /* records not written because the ring was full (agent) */
  int32_t tid;          /* the thread writing this ring (agent) */
  uint32_t used;        /* 1 once a thread claimed the slot (agent) */
  uint64_t tail_seen;   /* the agent's last read of tail */
  uint64_t pad0[4];
  uint64_t tail;        /* records consumed (asmspy) */
  uint64_t pad1[7];
};

/* One record, 32 bytes. seq is written last (the low 32 bits of head index
 * + 1): a record whose seq does not match is not written yet. */
struct ring_rec {
  uint64_t tsc;
  uint64_t ret;        /* ENTRY: the return address; EXIT: where it returns to */
  uint64_t slot;
  uint32_t word;       /* REC_WORD(func, what, flags) */
  uint32_t seq;
};
#define REC_WORD(func, what, flags) ((uint32_t)(func) | (uint32_t)(what) << 24 | (uint32_t)(flags) << 28)
#define REC_FUNC(w) ((w) & 0xffffffu)
#define REC_WHAT(w) (((w) >> 24) & 0xfu)
#define REC_FLAGS(w) ((w) >> 28)
#define REC_ENTRY 1u
#define REC_EXIT 2u
#define REC_TID 3u     /* the slot's thread pointer now belongs to a new thread: func = tid */
#define REC_F_UNWOUND 1u
#define REC_F_TAIL 2u
#define REC_F_NOEXIT 4u

struct ring_area {
  uint64_t magic;
  /* Backpressure: a thread whose ring is full waits for the reader while
   * the reader is alive: it stamps reader_beat (tsc) at every poll, and a
   * beat older than beat_ticks means it is gone or stalled (asmspy killed,
   * the capture over): then the record is dropped and counted instead. */
  uint64_t reader_beat;
  uint64_t beat_ticks;
  uint64_t pad[5];
  struct ring_head heads[AGENT_THREADS];
  struct ring_rec recs[AGENT_THREADS][AGENT_RING];
};

/* The agent's state region. The agent's code reaches it through the
 * pointer at the very start of its code copy (agent_ctx, agent.c). */
struct agent_state {
  uint64_t magic;
  struct agent_gate *gate;     /* wipe-on-fork page */
  uint64_t ret_hook;           /* the return hook's address in the main code region */
  uint64_t nret_hooks;         /* every region's return hook (a tail call sees any) */
  uint64_t ret_hooks[8];
  uint32_t tid_offset;         /* the thread's tid in its thread control block
                                  (glibc struct pthread), 0 = unknown: gettid */
  uint32_t nfuncs;
  uint64_t claim_fail;         /* calls not recorded: no free thread slot */
  struct agent_thread threads[AGENT_THREADS];
  struct agent_func funcs[AGENT_MAX_FUNCS];
};

#endif
