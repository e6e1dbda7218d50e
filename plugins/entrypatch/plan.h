/* plan.h: which functions entrypatch patches, and how (plan.c).
 *
 * A function is patched by writing `jmp rel32` (5 bytes) over its first
 * whole instructions. Those displaced instructions run instead from the
 * function's stub, relocated:
 *   - rip-relative operands re-aimed at the same absolute address;
 *   - jmp / jcc (rel8 or rel32) re-emitted as rel32 to the same target, or
 *     through `jmp *0(%rip); .quad target` (a jcc: `j!cc` over it) when the
 *     target is out of rel32 reach;
 *   - a call (rel32, *%reg, *disp(%rip)) emulated: push of its ORIGINAL
 *     return address (the function's own code right after the patched
 *     bytes: the call is always the last displaced instruction), then a
 *     jump to its target. No register and no flag is touched: a 64-bit
 *     address is pushed as `push $lo32; movl $hi32, 4(%rsp)`;
 *   - a ret last is copied as it is.
 * A function is refused, with the reason kept for the listing, when that
 * cannot be done safely:
 *   - it is shorter than 5 bytes, or makes a system call or traps within
 *     them (a thread blocked there would stand inside agent code);
 *   - a direct branch inside the function lands within the patched bytes
 *     (or loops back to the entry itself: that jump would be counted as a
 *     call and hook a stack word that is not a return address);
 *   - a call, ret or unconditional jmp with more displaced bytes after it
 *     (its callee would return into the patch; the bytes after a jmp are
 *     reached only from elsewhere), a call through an operand that does not
 *     relocate (the stack, a register-based address), loop/jrcxz, xbegin;
 *   - a rip-relative operand would not reach from the stub (rel32);
 *   - a thread's instruction pointer is inside the patched bytes now.
 * What only the whole process shows (another function's branch into these
 * bytes, an ip saved on a thread's stack) is patchable.h's. */
#ifndef ASMSPY_ENTRYPATCH_PLAN_H
#define ASMSPY_ENTRYPATCH_PLAN_H

#include <asmspy/plugin.h>
#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

#define EP_PATCH_LEN 5
#define EP_MAX_DISPLACED 15 + 5 /* the longest prologue we displace */

struct ep_patch {
  uint64_t addr;       /* the function's entry */
  uint32_t len;        /* bytes overwritten: whole instructions, >= 5 */
  uint32_t kind;       /* AGENT_FN_* */
  uint8_t orig[24];    /* the original bytes [addr, addr + len) */
  const char *name;    /* host-owned symbol name */
  uint32_t region;     /* the code region its stub lives in */
  uint64_t stub;       /* its stub's address (set when placed) */
  uint64_t got_target; /* kind & AGENT_FN_GOT: addr is a GOT slot (len 8, orig its value),
                           this is the value: the stub resumes there (got.h) */
};

/* Decide whether the function [addr, addr + size) can be patched; fills p.
 * Returns 0, or -1 with the reason in why. bytes/nbytes: the function's
 * code as read from the target (at least its first EP_MAX_DISPLACED bytes;
 * the whole body when the branch scan is to see it all). */
int ep_plan_function(csh cs, uint64_t addr, uint64_t size, const uint8_t *bytes, size_t nbytes,
                     struct ep_patch *p, char *why, size_t whycap);

/* The displaced instructions of p, relocated to run at `dest`, followed by a
 * jmp back to p->addr + p->len. Returns the byte count written to out, or
 * 0 with the reason in why (a displacement that does not reach). */
size_t ep_relocate(csh cs, const struct ep_patch *p, uint64_t dest, uint8_t *out, size_t cap,
                   char *why, size_t whycap);

/* rel32 from an instruction ending at `next` to `target`, if it reaches. */
int ep_rel32(uint64_t next, uint64_t target, int32_t *out);

#endif
