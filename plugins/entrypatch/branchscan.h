/* branchscan.h: where a module's direct branches land (branchscan.c).
 *
 * A patched entry's bytes after the first are the jump's rel32: any branch
 * that lands there runs garbage. A function's own branches are checked by
 * plan.c; this finds everybody else's (glibc's __mempcpy_*_erms jumps to
 * __memmove_*_erms+3, a .cold part jumps back into its function). Like
 * uftrace's dynamic patcher, it sweeps code linearly and marks the target
 * of every direct branch (jmp, jcc, call: rel8 or rel32; loop*, jrcxz). A
 * linear sweep that loses its way in data marks targets that are not
 * there: that refuses a function too many, never one too few of the
 * branches it decoded. Decoding costs ~55 ns a byte; rel32 branches reach
 * from anywhere, but are found without decoding (a byte pattern pass, ~50x
 * faster), so only the neighbourhood of each candidate, where rel8
 * branches can come from, needs the sweep (patchable.c). */
#ifndef ASMSPY_ENTRYPATCH_BRANCHSCAN_H
#define ASMSPY_ENTRYPATCH_BRANCHSCAN_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

/* A bit per byte of [lo, hi): set where some direct branch lands. */
struct ep_branch_map {
  uint64_t lo, hi;
  uint8_t *bits;
};

/* 0, or -1 (out of memory). */
int ep_branch_map_init(struct ep_branch_map *m, uint64_t lo, uint64_t hi);
void ep_branch_map_free(struct ep_branch_map *m);

/* The target of the direct branch `bytes` (one decoded instruction of
 * `size` bytes at addr), or 0 when it is not one. */
uint64_t ep_direct_branch_target(const uint8_t *bytes, size_t size, uint64_t addr);

/* Sweep code[0, n) (at address addr) with cs (detail off is enough, and
 * faster), marking the branch targets that fall inside one of maps[0,
 * nmaps) (a module's executable mappings need not be adjacent: node maps
 * part of its text a second time far away). With last == 0 the code
 * continues past n: the sweep stops before an instruction that could be
 * cut off there. Returns the offset where it stopped (where the next call
 * resumes). */
size_t ep_branch_scan_code(csh cs, const uint8_t *code, size_t n, uint64_t addr, int last,
                           struct ep_branch_map *maps, size_t nmaps);

/* Every byte position of code[0, n) (at addr) read as a rel32 call, jmp
 * or jcc (e8/e9 rel32, 0f 8x rel32), aligned to an instruction or not:
 * marks each target that falls inside one of maps. A superset of the rel32
 * branches a sweep decodes, at a fraction of its cost (no decoding): a
 * stray e8 inside another instruction marks a random address, which would
 * refuse a function only if it hit the 4 bytes after its entry. With
 * last == 0 the code continues past n: positions whose pattern could be
 * cut off there are left for the next call. Returns the offset where the
 * next call resumes. */
size_t ep_branch_scan_rel32_bytes(const uint8_t *code, size_t n, uint64_t addr, int last,
                                  struct ep_branch_map *maps, size_t nmaps);

/* The lowest marked target strictly inside (lo, hi), or 0. */
uint64_t ep_branch_map_hit(const struct ep_branch_map *m, uint64_t lo, uint64_t hi);

#endif
