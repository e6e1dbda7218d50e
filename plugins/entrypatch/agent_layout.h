/* agent_layout.h: the memory the entrypatch agent shares with asmspy, and
 * the layout both sides compile against (agent.c runs inside the target,
 * session.c / reader.c / agents.c inside asmspy).
 *
 * Four regions are mapped into the target (inject.c):
 *   code    r-x  private  near each patched module (rel32 reach): a copy of
 *                         the agent's code (starting with AGENT_CODE_MAGIC
 *                         and the state's address), then one stub +
 *                         relocated prologue per patched function
 *   state   rw-  private  struct agent_state: the function table (with each
 *                         entry's original bytes), the per-thread shadow
 *                         stacks, and everything a later session needs to
 *                         undo this one. Private on purpose: a forked child
 *                         gets its own copy, so the frames it inherited
 *                         still return through their own entries
 *   wipe    rw-  private, MADV_WIPEONFORK: struct agent_gate. Zero in a
 *                         forked child, so the child never writes into a
 *                         ring its parent's threads own: without --follow
 *                         its events are dropped and counted in its own
 *                         state; with --follow (agent_state.follow) the
 *                         child joins: a new generation, its own rings
 *   ring    rw-  shared memfd, also mapped by asmspy: struct ring_area
 * At the leave every hooked frame gets its real return address back; once
 * no thread is inside agent code and no stack holds an address of it, all
 * four are unmapped (session.c). What a killed session left behind, the
 * next session finds by the code magic and undoes first (agents.c). */
#ifndef ASMSPY_ENTRYPATCH_AGENT_LAYOUT_H
#define ASMSPY_ENTRYPATCH_AGENT_LAYOUT_H

#include <stdint.h>

/* The layout version: a session meets only agents of its own layout (a
 * state of another layout is refused, never read). */
#define AGENT_LAYOUT_VERSION 5u
#define AGENT_MAGIC                                                                                \
  (0x0074617473707361ull | (uint64_t)AGENT_LAYOUT_VERSION << 56) /* "asp" "stat" */
/* "aspcode" + the version byte; a literal, because the agent's assembly
 * writes it too (agent.c) */
#define AGENT_CODE_MAGIC_HEX 0x0565646f63707361
#define AGENT_CODE_MAGIC ((uint64_t)AGENT_CODE_MAGIC_HEX)
#define AGENT_MAGIC_VERSION(m) ((uint32_t)((m) >> 56))
#define AGENT_MAGIC_KIND(m) ((m)&0x00ffffffffffffffull)
_Static_assert(AGENT_MAGIC_VERSION(AGENT_CODE_MAGIC) == AGENT_LAYOUT_VERSION,
               "AGENT_CODE_MAGIC_HEX carries the layout version in its top byte");

#define AGENT_MAX_FUNCS 8192u /* patched functions per session (hard cap) */
#define AGENT_MAX_JIT 16u     /* JIT code ranges whose calls keep their return */
#define AGENT_MAX_REGIONS 16u /* code regions per session */
#define AGENT_THREADS 512u    /* thread slots (reclaimed when their thread dies) */
#define AGENT_SHADOW 512u     /* frames per thread whose return is hooked */
#define AGENT_GRAVE 256u      /* frames left without returning, kept for a late return */
#define AGENT_RING 8192u      /* records per thread ring (power of two) */
#define AGENT_STUB_BYTES 96u  /* per function: stub + relocated prologue + jmp back */
#define AGENT_STUB_HEAD 10u   /* push imm32 <index>; jmp rel32 <entry thunk> */
#define AGENT_ORIG_MAX 24u    /* the longest displaced prologue */

/* Thread slot keys besides a thread pointer. */
#define AGENT_KEY_FREE 0ull
#define AGENT_KEY_BUSY 1ull /* being claimed or reclaimed */
#define AGENT_KEY_DEAD 2ull /* its thread is gone: free to claim, but lookups go on past it */

/* function kinds (agent_func.kind) */
#define AGENT_FN_CALL 0u /* record entry and (through the return hook) exit */
/* _Unwind_RaiseException: give the unwinder real
   return addresses before it walks the stack */
#define AGENT_FN_UNWIND_RAISE 1u
/* __cxa_begin_catch: frames below the catcher are gone;
   hook the survivors' returns again */
#define AGENT_FN_CATCH 2u
/* vfork (its PLT entry): its return not hooked (it
   returns twice), recorded only with AGENT_FN_NOEXIT
   (entry only, in the parent); the calling thread's
   slot is marked, so the child that borrows its thread
   pointer is told apart by getpid until the parent
   runs again (docs/entrypatch.md, vfork) */
#define AGENT_FN_VFORK 3u

struct agent_func {
  uint64_t addr;                /* the function's entry (what the views name) */
  uint64_t resume;              /* where its relocated prologue starts (in a code region) */
  uint32_t kind;                /* AGENT_FN_* */
  uint32_t len;                 /* bytes overwritten at addr */
  uint64_t stub;                /* its stub (the jmp at addr goes there) */
  uint8_t orig[AGENT_ORIG_MAX]; /* the bytes the jmp replaced: a later session puts them back */
};

/* One hooked frame: its return slot on the stack and the real return
 * address the hook took from it. */
struct agent_frame {
  uint64_t slot;
  uint64_t ret;   /* the real return address; for a tail call (AGENT_FRAME_TAIL,
                          sharing its caller's slot) the caller's, 0 if unknown */
  uint64_t seq;   /* when the slot was hooked (tsc): of several records of one
                          slot, the newest is the live one (coroutines leave stale
                          ones on the shadow stack and in the grave) */
  uint32_t func;  /* index into funcs */
  uint32_t flags; /* AGENT_FRAME_* */
};
#define AGENT_FRAME_RESTORED 1u /* the real return address is back in the slot (a throw) */
#define AGENT_FRAME_TAIL 2u     /* entered by a tail jump: the slot is its caller's frame's */

struct agent_thread {
  uint64_t key;        /* the thread pointer (fs:0), or AGENT_KEY_* */
  int32_t tid;         /* with the key, the slot's identity (when tid_offset is known) */
  uint32_t depth;      /* frames in use */
  uint32_t ngrave;     /* entries ever put in grave (a ring of AGENT_GRAVE) */
  uint32_t pad_emit;   /* unused (was in_emit: whether a full ring may be waited
                          for is read from the ring itself, agent.c ring_state) */
  uint64_t dropped;    /* events not written: no ring (forked child, asmspy gone) */
  uint64_t grave_mask; /* bit (slot >> 3) & 63 of every grave entry in use: a
                          return or a call looks in the grave only on a hit */
  uint32_t ring;       /* the ring this slot writes: index + 1, 0 = none yet */
  uint32_t ring_gen;   /* the gate's generation when it was claimed: a forked
                          child (another generation) claims rings of its own */
  int32_t vfork_pid;   /* != 0: this thread called vfork as process vfork_pid;
                          a caller with the same thread pointer and another pid
                          is the vfork child (found by getpid while this is set) */
  uint32_t inherit;    /* a vfork child's slot: its parent's slot index + 1, whose
                          frames the child's ring starts with (REC_F_INHERIT) */
  struct agent_frame frames[AGENT_SHADOW];
  /* frames that left without returning (longjmp, another stack). A
   * return through one still finds its real address here; one pushed out
   * of the ring gets its real address put back into its slot instead. */
  struct agent_frame grave[AGENT_GRAVE];
};

/* Wipe-on-fork page: armed only in a process asmspy reads. */
struct agent_gate {
  uint64_t armed;         /* 1 while events go to the ring */
  struct ring_area *ring; /* the shared ring (the target's own mapping) */
  uint64_t gen;           /* this process's generation (1 in the target; a
                                 followed child takes a new one from next_gen) */
  int32_t pid;            /* this process's pid (for the ring heads it claims) */
  uint32_t pad;
};

/* Per-thread ring header (in the shared ring region). The producer's words
 * and the consumer's tail sit on different cache lines: the agent reads the
 * tail only when its cached copy says the ring is full, asmspy publishes it
 * once per batch, so a call costs no cache-line transfer between the
 * target's CPU and the reader's. */
struct ring_head {
  uint64_t head;      /* records claimed by the thread (agent) */
  uint64_t lost;      /* records not written: lossy mode, a signal handler's
                           call in a full ring whose reader stands at the
                           record the handler's emit interrupted, a dead
                           reader (agent) */
  int32_t tid;        /* the thread writing this ring (agent) */
  uint32_t used;      /* 1 once a thread claimed the ring (agent, by CAS) */
  uint64_t tail_seen; /* the agent's last read of tail */
  int32_t pid;        /* the process of that thread (a followed child, a vfork child) */
  int32_t state_pid;  /* the process whose agent state holds the slot (a vfork
                           child's is its parent's): once it is gone, and it is
                           not the target, the reader may free the ring */
  uint64_t late;      /* records not written after the reader closed the capture */
  uint64_t pad0[2];
  uint64_t tail; /* records consumed (asmspy) */
  uint64_t pad1[7];
};

/* One record, 32 bytes. seq is written last (the low 32 bits of head index
 * + 1): a record whose seq does not match is not written yet. */
struct ring_rec {
  uint64_t tsc;
  uint64_t ret; /* ENTRY: the return address; EXIT: where it returns to */
  uint64_t slot;
  uint32_t word; /* REC_WORD(func, what, flags) */
  uint32_t seq;
};
#define REC_WORD(func, what, flags)                                                                \
  ((uint32_t)(func) | (uint32_t)(what) << 24 | (uint32_t)(flags) << 28)
#define REC_FUNC(w) ((w)&0xffffffu)
#define REC_WHAT(w) (((w) >> 24) & 0xfu)
#define REC_FLAGS(w) ((w) >> 28)
#define REC_ENTRY 1u
#define REC_EXIT 2u
#define REC_TID 3u /* the slot belongs to another thread from here on: ret = its tid */
#define REC_F_UNWOUND 1u
#define REC_F_TAIL 2u
#define REC_F_NOEXIT 4u
/* ENTRY: a frame the thread inherited (a forked child's copy
   of its parent's shadow stack, a vfork child's parent's
   frames): written first in its ring, never entered by it */
#define REC_F_INHERIT 8u

struct ring_area {
  uint64_t magic;
  /* Backpressure (docs/entrypatch.md): a thread whose ring is full waits
   * for the reader: it spins a little (pause), then sleeps on the futex
   * `wake` (shared: this is a memfd) which the reader bumps and wakes after
   * it consumed a chunk, if `waiters` says anyone sleeps. It stops waiting
   * and drops (counted in its head's lost) only when the reader is gone:
   * the gate disarmed (asmspy's supervisor undid it), `closing` (the
   * capture is over: counted as late), or the beat older than dead_ticks
   * AND owner_pid gone. lossy (ASMSPY_CALLS_LOSSY=1): a full ring drops
   * at once. */
  uint64_t reader_beat; /* tsc, stamped by the reader per chunk and per idle poll */
  uint64_t dead_ticks;  /* a beat older than this: ask whether owner_pid lives */
  uint32_t wake;        /* futex word: bumped by the reader to wake waiters */
  uint32_t waiters;     /* threads (of any followed process) asleep on wake */
  uint32_t lossy;       /* 1: never wait */
  uint32_t closing;     /* 1: the capture is over, never wait again */
  int32_t owner_pid;    /* the reader's process */
  uint32_t dead;        /* 1: a waiter found the reader gone */
  uint64_t next_gen;    /* generations handed to followed children */
  uint64_t no_ring;     /* records of threads that found no free ring (lost) */
  struct ring_head heads[AGENT_THREADS];
  struct ring_rec recs[AGENT_THREADS][AGENT_RING];
};

/* A mapping of the agent's, as a later session must unmap it. */
struct agent_mapping {
  uint64_t base, size;
};

/* The agent's state region. The agent's code reaches it through the
 * pointer after the code magic (asmspy_agent_ctx, agent.c). The header up
 * to `threads` is what another session reads to find and undo this one. */
struct agent_state {
  uint64_t magic;          /* AGENT_MAGIC, written last at install */
  struct agent_gate *gate; /* wipe-on-fork page */
  uint64_t ret_hook;       /* the return hook's address in the main code region */
  uint32_t tid_offset;     /* the thread's tid in its thread control block
                                  (glibc struct pthread), 0 = unknown: gettid */
  uint32_t nfuncs;
  uint64_t claim_fail;    /* calls not recorded: no thread slot free, even after
                                  reclaiming those of dead threads */
  uint64_t reclaimed;     /* thread slots taken over from dead threads */
  uint64_t unhooked;      /* frames pushed out of a grave: real return put back */
  uint64_t unmatched;     /* returns with no record of their frame (never expected) */
  uint64_t unhook_failed; /* grave entries pushed out whose slot could not be written:
                                  a hook may remain that no record knows (keeps the agent) */
  int32_t owner_pid;      /* the asmspy process reading the ring */
  uint32_t nregions;
  struct agent_mapping regions[AGENT_MAX_REGIONS]; /* the code regions */
  struct agent_mapping state_map, gate_map, ring_map;
  uint32_t follow; /* 1: a forked child joins the capture (--follow) with
                                  rings of its own; 0: its records are dropped */
  /* layout 5: the program's JIT code (jitranges.h). A call whose return
   * address lies there is traced entry only (REC_F_NOEXIT): a managed
   * runtime reads the return addresses of calls made from its generated
   * code (HotSpot's last Java frame, V8's exit frames) and dies on a
   * hooked one. */
  uint32_t njit;
  uint64_t jit_entry_only; /* calls from JIT code recorded entry only */
  uint64_t jit_last_func;  /* the index + 1 of the last function so called */
  struct agent_mapping jit[AGENT_MAX_JIT];
  struct agent_thread threads[AGENT_THREADS];
  struct agent_func funcs[AGENT_MAX_FUNCS];
};

/* A flag of agent_func.kind (appended after layout 2): addr is a GOT slot
 * (got.h), not a function entry. len is 8, orig the slot's original value
 * (the function's address, which is also resume), and what was written
 * over it is the stub's address (stub): the undo puts orig back only while
 * the slot still holds stub. A GOT slot is always AGENT_FN_CALL |
 * AGENT_FN_GOT: agent.c treats every kind but UNWIND_RAISE and CATCH as a
 * call. */
#define AGENT_FN_GOT 0x100u
/* A flag of agent_func.kind (appended in layout 3, unreleased): a function
 * that returns twice (setjmp, sigsetjmp, getcontext, swapcontext, vfork,
 * select.c ep_returns_twice) is traced ENTRY ONLY: its entry is recorded
 * with REC_F_NOEXIT and its return address is never swapped (the second
 * return would find no frame of its own; setjmp saves the address it finds
 * in the slot). With AGENT_FN_CALL or AGENT_FN_VFORK (vfork: the caller's
 * slot is marked and the entry recorded in the parent's slot). The undo
 * sees AGENT_FN_KIND, so such an entry is restored as any other. */
#define AGENT_FN_NOEXIT 0x200u
#define AGENT_FN_KIND(k) ((k)&0xffu)

#endif
