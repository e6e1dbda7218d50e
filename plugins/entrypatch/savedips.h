/* savedips.h: instruction pointers saved where a stopped thread will
 * resume them (savedips.c).
 *
 * A thread's current ip is not the only place it will run from: a signal
 * handler's frame holds the interrupted ip, which sigreturn resumes, and a
 * saved context (getcontext, a coroutine's switch) holds one that
 * setcontext resumes. If such an ip is inside the bytes a patch overwrites,
 * the thread resumes inside the jump's rel32. Each stopped thread's stack
 * is scanned from its sp up (the live part: frames, signal frames, contexts
 * kept on the stack), for 8-byte words pointing into executable file
 * mappings; a function is refused when one lies strictly inside (entry,
 * entry + patched length). A thread running a handler on its alternate
 * signal stack has its sp there: that stack is the one scanned. Not seen:
 * contexts kept outside every stack (a coroutine's ucontext_t in the heap),
 * and an alternate stack no thread stands on now. */
#ifndef ASMSPY_ENTRYPATCH_SAVEDIPS_H
#define ASMSPY_ENTRYPATCH_SAVEDIPS_H

#include "plugins/entrypatch/maps.h"

#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>

#define EP_STACK_SCAN_MAX (1u << 20)    /* bytes scanned above one thread's sp */
#define EP_STACK_SCAN_TOTAL (64u << 20) /* bytes scanned over all threads */

/* A set of addresses (sorted and unique once ep_addr_set_seal ran). */
struct ep_addr_set {
  uint64_t *v;
  size_t n, cap;
};

/* Keep each of words[0, n) that lies in an executable file mapping of maps
 * (every word with maps NULL). 0, or -1 (out of memory). */
int ep_saved_ips_add_words(struct ep_addr_set *s, const uint64_t *words, size_t n,
                           const struct ep_maps *maps);
/* Read each thread's stack, [sp, the end of its mapping) but at most
 * EP_STACK_SCAN_MAX, and keep its code pointers. 0, or -1 (out of memory). */
int ep_saved_ips_collect(const struct asmspy_host_api *host, struct asmspy_target *t,
                         const struct ep_maps *maps, const uint64_t *sps, uint32_t nthreads,
                         struct ep_addr_set *s);
/* Sort and fold duplicates: before ep_addr_set_hit. */
void ep_addr_set_seal(struct ep_addr_set *s);
/* The lowest address of s strictly inside (lo, hi), or 0. */
uint64_t ep_addr_set_hit(const struct ep_addr_set *s, uint64_t lo, uint64_t hi);
void ep_addr_set_free(struct ep_addr_set *s);

#endif
