/* plan.c: can a function's entry be patched, and its displaced prologue
 * relocated (see plan.h for the rules). Capstone directly, with detail:
 * relocation needs the byte offset of each displacement (x86 encoding
 * info), which the host's one-line disassembly service does not expose. */
#include "plugins/entrypatch/plan.h"
#include "plugins/entrypatch/agent_layout.h"

#include <stdio.h>
#include <string.h>

int ep_rel32(uint64_t next, uint64_t target, int32_t *out) {
  int64_t d = (int64_t)(target - next);
  if (d < INT32_MIN || d > INT32_MAX) return 0;
  *out = (int32_t)d;
  return 1;
}

static int in_group(const cs_insn *in, uint8_t g) {
  for (uint8_t i = 0; i < in->detail->groups_count; i++)
    if (in->detail->groups[i] == g) return 1;
  return 0;
}

/* A direct (relative) branch: its target, else 0. */
static uint64_t direct_target(const cs_insn *in) {
  if (!(in_group(in, CS_GRP_JUMP) || in_group(in, CS_GRP_CALL))) return 0;
  const cs_x86 *x = &in->detail->x86;
  if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) return (uint64_t)x->operands[0].imm;
  return 0;
}

/* Where a rip-relative instruction's disp32 sits in its bytes. Capstone 4
 * leaves encoding.disp_offset/disp_size unset for some instructions; the
 * disp32 then follows the ModR/M byte (rip-relative has no SIB), which the
 * bytes must confirm. -1 when it cannot be found for sure. */
static int disp_offset(const cs_insn *in) {
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

static int is_loop_like(unsigned id) {
  return id == X86_INS_LOOP || id == X86_INS_LOOPE || id == X86_INS_LOOPNE ||
         id == X86_INS_JRCXZ || id == X86_INS_JECXZ || id == X86_INS_JCXZ;
}

static int refuse(char *why, size_t cap, const char *fmt, unsigned long long a) {
  snprintf(why, cap, fmt, a);
  return -1;
}

int ep_plan_function(csh cs, uint64_t addr, uint64_t size, const uint8_t *bytes, size_t nbytes,
                     struct ep_patch *p, char *why, size_t whycap) {
  memset(p, 0, sizeof *p);
  p->addr = addr;
  if (size < EP_PATCH_LEN)
    return refuse(why, whycap, "too short (%llu bytes, the jump needs 5)",
                  (unsigned long long)size);
  size_t avail = nbytes < size ? nbytes : (size_t)size;
  /* 1. the displaced instructions */
  cs_insn *in = cs_malloc(cs);
  if (!in) return refuse(why, whycap, "out of memory%.0llu", 0);
  const uint8_t *code = bytes;
  size_t left = avail;
  uint64_t ip = addr;
  uint32_t len = 0;
  int rc = 0;
  while (len < EP_PATCH_LEN) {
    if (!cs_disasm_iter(cs, &code, &left, &ip, in)) {
      rc = refuse(why, whycap, "undecodable instruction at +%llu", len);
      break;
    }
    unsigned id = in->id;
    if (in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_INT) || in_group(in, CS_GRP_IRET) ||
        id == X86_INS_UD2 || id == X86_INS_HLT) {
      rc = refuse(why, whycap, "returns or traps within the first 5 bytes (+%llu)", len);
      break;
    }
    if (in_group(in, CS_GRP_CALL)) {
      rc = refuse(why, whycap,
                  "a call within the first 5 bytes (+%llu): a thread inside the callee would "
                  "return into the patch",
                  len);
      break;
    }
    if (is_loop_like(id)) {
      rc = refuse(why, whycap, "loop/jrcxz within the first 5 bytes (+%llu)", len);
      break;
    }
    len += in->size;
    if (in_group(in, CS_GRP_JUMP) && id == X86_INS_JMP && len < EP_PATCH_LEN) {
      rc = refuse(why, whycap,
                  "an unconditional jump within the first 5 bytes (+%llu) with more bytes after "
                  "it",
                  len - in->size);
      break;
    }
  }
  if (!rc && len > sizeof p->orig) rc = refuse(why, whycap, "prologue too long (%llu)", len);
  /* 2. no direct branch of the function lands in (addr, addr + len), or
   * loops back to addr itself */
  if (!rc) {
    code = bytes;
    left = avail;
    ip = addr;
    while (left > 0) {
      if (!cs_disasm_iter(cs, &code, &left, &ip, in)) { /* data or padding: skip a byte */
        code++, left--, ip++;
        continue;
      }
      uint64_t t = direct_target(in);
      if (t > addr && t < addr + len) {
        rc = refuse(why, whycap, "a branch inside the function lands on its first bytes (+%llu)",
                    t - addr);
        break;
      }
      if (t == addr && in_group(in, CS_GRP_JUMP)) {
        rc = refuse(why, whycap,
                    "a jump inside the function loops back to its entry (at +%llu): it would "
                    "count as a call",
                    in->address - addr);
        break;
      }
    }
  }
  cs_free(in, 1);
  if (rc) return rc;
  p->len = len;
  memcpy(p->orig, bytes, len);
  /* it must relocate (here, to its own address: operands that cannot be
   * rewritten at all are found now, not while the target waits) */
  uint8_t tmp[128];
  if (!ep_relocate(cs, p, addr, tmp, sizeof tmp, why, whycap)) return -1;
  return 0;
}

size_t ep_relocate(csh cs, const struct ep_patch *p, uint64_t dest, uint8_t *out, size_t cap,
                   char *why, size_t whycap) {
  cs_insn *in = cs_malloc(cs);
  if (!in) return 0;
  const uint8_t *code = p->orig;
  size_t left = p->len, n = 0;
  uint64_t ip = p->addr;
  int ok = 1;
  const char *fail = "the relocated prologue does not fit its stub";
  while (ok && left > 0 && cs_disasm_iter(cs, &code, &left, &ip, in)) {
    uint64_t here = dest + n;
    const cs_x86 *x = &in->detail->x86;
    uint64_t t = direct_target(in);
    int32_t rel;
    if (t && in_group(in, CS_GRP_JUMP)) {
      /* jmp / jcc, rel8 or rel32: re-emitted as rel32 to the same target */
      int is_jmp = in->id == X86_INS_JMP;
      size_t sz = is_jmp ? 5 : 6;
      if (n + sz > cap || !ep_rel32(here + sz, t, &rel)) {
        fail = "a displaced jump's target is out of rel32 reach from the stub";
        ok = 0;
        break;
      }
      if (is_jmp) {
        out[n] = 0xe9;
      } else {
        /* the condition code is the low nibble of the opcode in both forms */
        uint8_t cc = (uint8_t)((x->opcode[0] == 0x0f ? x->opcode[1] : x->opcode[0]) & 0x0f);
        out[n] = 0x0f;
        out[n + 1] = (uint8_t)(0x80 | cc);
      }
      memcpy(out + n + sz - 4, &rel, 4);
      n += sz;
      continue;
    }
    if (n + in->size > cap) {
      ok = 0;
      break;
    }
    memcpy(out + n, in->bytes, in->size);
    /* a rip-relative operand: the same absolute address from here */
    int riprel = 0;
    for (uint8_t i = 0; i < x->op_count; i++)
      if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) riprel = 1;
    if (riprel) {
      int off = disp_offset(in);
      if (off < 0) {
        fail = "a rip-relative operand without a 32-bit displacement";
        ok = 0;
        break;
      }
      uint64_t abs = in->address + in->size + (uint64_t)(int64_t)x->disp;
      if (!ep_rel32(here + in->size, abs, &rel)) {
        fail = "a rip-relative operand is out of rel32 reach from the stub";
        ok = 0;
        break;
      }
      memcpy(out + n + off, &rel, 4);
    }
    n += in->size;
  }
  cs_free(in, 1);
  /* back into the function after the patched bytes */
  int32_t back;
  if (ok && left != 0) fail = "the displaced bytes no longer decode", ok = 0;
  if (ok && (n + 5 > cap || !ep_rel32(dest + n + 5, p->addr + p->len, &back)))
    fail = "the jump back into the function is out of reach", ok = 0;
  if (!ok) {
    snprintf(why, whycap, "%s", fail);
    return 0;
  }
  out[n] = 0xe9;
  memcpy(out + n + 1, &back, 4);
  return n + 5;
}
