/* region.h: the bytes of one code region (region.c), built in asmspy and
 * then written into the target (session.c) or into the probe's own memory
 * (probe.c):
 *   [agent blob: AGENT_CODE_MAGIC, asmspy_agent_ctx, the thunks, the
 *    agent's C code][pad to 64]
 *   [stub 0][stub 1]...    AGENT_STUB_BYTES each:
 *      push $<function index>       68 imm32   (no register is touched)
 *      jmp asmspy_agent_entry       e9 rel32
 *      <the displaced prologue, relocated>; jmp <entry + patched length>
 *      (a GOT slot's stub has no prologue: it resumes at the slot's value)
 * The blob's second word (asmspy_agent_ctx) is the agent state's address. */
#ifndef ASMSPY_ENTRYPATCH_REGION_H
#define ASMSPY_ENTRYPATCH_REGION_H

#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/plan.h"

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

/* The agent blob as compiled into this plugin. */
size_t ep_blob_size(void);
const uint8_t *ep_blob(void);
/* Offsets of the blob's entry points. */
uint64_t ep_blob_entry_off(void);
uint64_t ep_blob_return_off(void);
uint64_t ep_blob_ctx_off(void);

/* Bytes a region with n stubs needs (page-rounded). */
size_t ep_region_size(uint32_t n);
/* Stub i's address in a region at base. */
uint64_t ep_stub_addr(uint64_t base, uint32_t i);

/* Build a region at `base` into img[size]: the blob with ctx = state, then
 * patches[0..n) as stubs 0..n-1, whose function indexes are first..first+n-1;
 * funcs[first + i] gets {addr, resume, kind}. Returns 0, or -1 with why (a
 * prologue that does not relocate: the caller drops that function). */
int ep_region_build(csh cs, uint8_t *img, size_t size, uint64_t base, uint64_t state,
                    struct ep_patch *patches, uint32_t n, uint32_t first, struct agent_func *funcs,
                    uint32_t *bad, char *why, size_t whycap);

/* The 5+ bytes written over a patched entry: jmp rel32 to its stub, then
 * int3 up to p->len (never executed: no branch lands there). For a GOT
 * slot (p->kind & AGENT_FN_GOT): the 8 bytes of the stub's address. */
void ep_entry_patch_bytes(const struct ep_patch *p, uint8_t *out);

/* The blob references nothing outside itself (every direct branch and every
 * rip-relative operand stays inside): 0, or -1 with why. */
int ep_blob_self_check(csh cs, char *why, size_t whycap);

#endif
