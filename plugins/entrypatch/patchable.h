/* patchable.h: whether a planned patch may be written now, against the
 * whole process rather than the function alone (patchable.c). Opened once
 * per session while every thread is stopped; it knows
 *   - the target's mappings (maps.h), read once;
 *   - each module's direct branch targets (branchscan.h), swept on first
 *     use and kept for the session;
 *   - the code pointers on the stopped threads' stacks (savedips.h).
 * A patch is refused when a direct branch anywhere in its module lands in
 * (entry, entry + len), or a saved instruction pointer does. */
#ifndef ASMSPY_ENTRYPATCH_PATCHABLE_H
#define ASMSPY_ENTRYPATCH_PATCHABLE_H

#include "plugins/entrypatch/maps.h"
#include "plugins/entrypatch/plan.h"

#include <asmspy/plugin.h>
#include <stdint.h>

/* Code of one module swept for branches at most (bytes). The sweep costs
 * about 55 ns a byte (Capstone, detail off, on this 2-core machine): libc's
 * 1.4 MB of text ~75 ms, a 0.5 MB static program ~23 ms, once per module
 * per session and only for modules with a candidate. This bounds one
 * module to ~4 s; the functions of a bigger one are refused. */
#define EP_BRANCH_SCAN_MAX (64ull << 20)

struct ep_patchable;

/* sps: the stopped threads' stack pointers. NULL when the maps cannot be
 * read or memory runs out. */
struct ep_patchable *ep_patchable_open(const struct asmspy_host_api *host,
                                       struct asmspy_target *t, pid_t pid, const uint64_t *sps,
                                       uint32_t nthreads);
const struct ep_maps *ep_patchable_maps(const struct ep_patchable *g);
/* 0 when p may be written; -1 with the reason in why. */
int ep_patchable_check(struct ep_patchable *g, const struct ep_patch *p, char *why, size_t cap);
void ep_patchable_close(struct ep_patchable *g);

#endif
