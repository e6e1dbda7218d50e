/* x86_calltarget.h: where a call instruction in this process's own memory
 * goes, seen through a PLT stub or a GOT slot. Shared by the in-process
 * scope tiers (singlestep's trap handler, codecache's translator), which
 * both must recognise the caller's call of asmspy_scope_end in every form
 * a compiler emits. x86-64 only. */
#ifndef ASMSPY_PLUGINS_COMMON_X86_CALLTARGET_H
#define ASMSPY_PLUGINS_COMMON_X86_CALLTARGET_H

#include <stdint.h>
#include <string.h>

/* The target of the call at p (its own address ip, REX already skipped):
 * e8 rel32 (to the function, or to its PLT stub `jmp *slot(%rip)` after an
 * optional endbr64 / bnd prefix: then the slot's value), ff 15 (`call
 * *slot(%rip)`, -fno-plt: the slot's value). 0 for any other shape. Every
 * address read comes from an instruction about to run: its code and its
 * GOT slot are mapped. */
static inline uint64_t x86_direct_call_target(const uint8_t *p, uint64_t ip) {
  int32_t rel;
  if (p[0] == 0xe8) {
    memcpy(&rel, p + 1, 4);
    uint64_t t = ip + 5 + (int64_t)rel;
    const uint8_t *q = (const uint8_t *)(uintptr_t)t;
    if (q[0] == 0xf3 && q[1] == 0x0f && q[2] == 0x1e && q[3] == 0xfa) q += 4; /* endbr64 */
    if (q[0] == 0xf2) q++;                                                    /* bnd */
    if (q[0] == 0xff && q[1] == 0x25) {                                       /* PLT: jmp *slot */
      memcpy(&rel, q + 2, 4);
      return *(const uint64_t *)(uintptr_t)((uint64_t)(uintptr_t)q + 6 + (int64_t)rel);
    }
    return t;
  }
  if (p[0] == 0xff && p[1] == 0x15) { /* call *slot(%rip) */
    memcpy(&rel, p + 2, 4);
    return *(const uint64_t *)(uintptr_t)(ip + 6 + (int64_t)rel);
  }
  return 0;
}

#endif
