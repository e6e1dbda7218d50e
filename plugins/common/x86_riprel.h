/* plugins/common/x86_riprel.h — rip-relative operands in Capstone x86-64
 * detail: is there one, and where its disp32 sits in the bytes. Shared by
 * the backends that run a copy of an instruction at another address
 * (entrypatch's relocated prologues, codecache's translated blocks).
 * Header-only; the caller links Capstone. */
#ifndef ASMSPY_PLUGINS_COMMON_X86_RIPREL_H
#define ASMSPY_PLUGINS_COMMON_X86_RIPREL_H

#include <capstone/capstone.h>
#include <stdint.h>
#include <string.h>

static inline int x86_in_group(const cs_insn *in, uint8_t g) {
  for (uint8_t i = 0; i < in->detail->groups_count; i++)
    if (in->detail->groups[i] == g) return 1;
  return 0;
}

/* Where a rip-relative instruction's disp32 sits in its bytes. Capstone 4
 * leaves encoding.disp_offset/disp_size unset for some instructions; the
 * disp32 then follows the ModR/M byte (rip-relative has no SIB), which the
 * bytes must confirm. -1 when it cannot be found for sure. */
static inline int x86_disp_offset(const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  int32_t want = (int32_t)x->disp;
  int cand[2] = {x->encoding.disp_size == 4 ? x->encoding.disp_offset : 0,
                 x->encoding.modrm_offset ? x->encoding.modrm_offset + 1 : 0};
  for (int i = 0; i < 2; i++) {
    int32_t got;
    if (cand[i] <= 0 || cand[i] + 4 > in->size) continue;
    memcpy(&got, in->bytes + cand[i], 4);
    if (got == want) return cand[i];
  }
  int found = -1; /* last resort: the one place the value occurs */
  for (int o = 1; o + 4 <= in->size; o++) {
    int32_t got;
    memcpy(&got, in->bytes + o, 4);
    if (got == want) {
      if (found >= 0) return -1;
      found = o;
    }
  }
  return found;
}

static inline int x86_is_riprel(const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  for (uint8_t i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) return 1;
  return 0;
}

#endif
