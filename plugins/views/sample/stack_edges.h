/* stack_edges: caller -> callee edges from sampled call stacks (the
 * software-clock rung's frame-pointer chains), for the sample view.
 *
 * A rung that samples only an ip cannot see a branch. What its call chain
 * does show is a call in progress: return address r on the stack, and the
 * callee running below it. The backend delivers each adjacent pair as a
 * BRANCH flagged SAMPLED | BR_CALL, not TAKEN (plugins/swclock); here they
 * are checked and folded:
 *   - the callee must have a live frame at the site (a frame-pointer
 *     prologue, the site past it and not at its ret): else the walk's first
 *     return address is its caller's caller's (a frameless leaf);
 *   - the bytes before r must decode as a call instruction (a garbage frame
 *     from code built without frame pointers fails this);
 *   - a direct call's target must be the callee's function start (a sample
 *     in a prologue, before the frame is set up, skips a frame: refused);
 *     an indirect call's target cannot be checked and is kept, marked;
 *   - the callee side is folded to its function (where it was running
 *     inside the callee is residency, reported by the residency table).
 * The result rows are (r, callee start): "main+0x51 -> grind_forever". */
#ifndef ASMSPY_VIEW_SAMPLE_STACK_EDGES_H
#define ASMSPY_VIEW_SAMPLE_STACK_EDGES_H

#include <asmspy/plugin.h>

#include "common/hot_rank.h"

/* The flags a stack pair arrives with (and no BR_TAKEN). */
static inline int se_is_stack_pair(const struct asmspy_event *ev) {
  return ev->type == ASMSPY_EV_BRANCH && (ev->flags & ASMSPY_EVF_BR_CALL) &&
         (ev->flags & ASMSPY_EVF_SAMPLED) && !(ev->flags & ASMSPY_EVF_BR_TAKEN);
}

/* The call-edge flag on a folded row: the call was indirect (its target
 * could not be checked against the callee). Outside the ASMSPY_EVF_* bits. */
#define SE_INDIRECT (1u << 16)

struct se_result {
  struct hr_table edges;  /* (return address, callee start) -> samples */
  uint64_t kept, refused; /* stack pairs (weighted) */
};

/* Fold the raw (return address, callee site) pairs into checked edges.
 * out is reset first. */
void se_fold(const struct asmspy_host_api *host, struct asmspy_target *t,
             const struct hr_table *raw, struct se_result *out);

#endif
