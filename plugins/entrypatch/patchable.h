/* patchable.h: whether a planned patch may be written now, against the
 * whole process rather than the function alone (patchable.c). Opened once
 * per session while every thread is stopped; it knows
 *   - the target's mappings (maps.h), read once;
 *   - each module's direct branch targets (branchscan.h), found on first
 *     use and kept for the session: rel32 ones anywhere in its code, rel8
 *     ones near the candidates (ep_patchable_expect);
 *   - the code pointers on the stopped threads' stacks (savedips.h).
 * A patch is refused when a direct branch anywhere in its module lands in
 * (entry, entry + len), or a saved instruction pointer does. */
#ifndef ASMSPY_ENTRYPATCH_PATCHABLE_H
#define ASMSPY_ENTRYPATCH_PATCHABLE_H

#include "plugins/entrypatch/maps.h"
#include "plugins/entrypatch/plan.h"

#include <asmspy/plugin.h>
#include <stdint.h>

/* Code of one module scanned for branches at most (bytes). Decoding costs
 * about 55 ns a byte (Capstone, detail off, on this 2-core machine), the
 * rel32 byte pass about 1 ns: a module whose every function is a
 * candidate (libc under --module=libc: 1.4 MB, ~80 ms) costs the
 * decoding, one with a few candidates only the byte pass (node's 30 MB:
 * ~40 ms); once per module per session, only for modules with a
 * candidate. Past this size the functions of a module are refused. */
#define EP_BRANCH_SCAN_MAX (64ull << 20)

struct ep_patchable;

/* sps: the stopped threads' stack pointers. NULL when the maps cannot be
 * read or memory runs out. */
struct ep_patchable *ep_patchable_open(const struct asmspy_host_api *host, struct asmspy_target *t,
                                       pid_t pid, const uint64_t *sps, uint32_t nthreads);
const struct ep_maps *ep_patchable_maps(const struct ep_patchable *g);
/* The entries of every function that may be checked (before the first
 * ep_patchable_check): rel8 branches are looked for around them only. A
 * check of a function not listed finds only rel32 branches into it.
 * 0, or -1 (out of memory). */
int ep_patchable_expect(struct ep_patchable *g, const uint64_t *entries, size_t n);
/* 0 when p may be written; -1 with the reason in why. */
int ep_patchable_check(struct ep_patchable *g, const struct ep_patch *p, char *why, size_t cap);
void ep_patchable_close(struct ep_patchable *g);

#endif
