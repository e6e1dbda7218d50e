/* undo.h: taking an agent out of a stopped process (undo.c). The same
 * steps serve the session's own leave and a later session that finds what
 * a killed one left behind (agents.c): both read the agent's state from the
 * target, so they need nothing but its address.
 *
 *   1. disarm the gate (no more records);
 *   2. put back every patched entry that still holds the agent's jump;
 *   3. give every hooked frame of a live thread its real return address
 *      back (shadow stacks, then graves; each slot once, newest first);
 *   4. unmap the code regions, the state, the gate and the ring, unless a
 *      thread still stands inside agent code or a stack still holds an
 *      address of it (a signal frame that interrupted it, a frame whose
 *      slot could not be restored): then they stay, and why is reported.
 * Every thread must be stopped (the seam). */
#ifndef ASMSPY_ENTRYPATCH_UNDO_H
#define ASMSPY_ENTRYPATCH_UNDO_H

#include "plugins/entrypatch/inject.h"

#include <stdint.h>

struct ep_undo_report {
  uint32_t restored; /* entries put back */
  uint32_t unhooked; /* frames given their real return address */
  int unmapped;      /* 1: nothing of the agent is left in the process */
  int inside;        /* not unmapped because a thread stood inside its code:
                            let the target run a moment and undo again */
  char kept[200];    /* why it was not unmapped */
  /* the agent's own counters */
  uint64_t claim_fail, reclaimed, evicted, unmatched, dropped;
  uint64_t jit_entry_only; /* calls from JIT code traced entry only */
  uint64_t jit_last_func;  /* index + 1 of the last function so called, 0 = none */
  uint32_t nfuncs;
  int32_t owner_pid;
};

/* Undo the agent whose state is at `state` in the process rem describes
 * (every thread stopped). skip_ring: the caller unmaps the ring itself
 * (a session that still reads it). Returns 0, or -1 when the state cannot
 * be read or is of another layout (nothing was changed then). */
int ep_undo_agent(struct ep_remote *rem, uint64_t state, int skip_ring, struct ep_undo_report *rep);

/* Steps 1 and 2 alone (disarm, put the call entries back): no new call
 * enters the agent after this, so the threads inside it soon leave. The
 * unwinder hooks stay until the frames are given back (step 3): a throw or
 * a backtrace meanwhile must still find real return addresses. Returns the
 * entries restored, or -1 when the state cannot be read. */
int ep_undo_entries(struct ep_remote *rem, uint64_t state);

/* 1 (with why) while a stopped thread is inside the agent's code or runs a
 * signal handler that interrupted it: the caller lets the target run a
 * moment and looks again before undoing. */
int ep_agent_busy(struct ep_remote *rem, uint64_t state, char *why, size_t whycap);

#endif
