/* plan.c: can a function's entry be patched, and its displaced prologue
 * relocated (see plan.h for the rules). Capstone directly, with detail:
 * relocation needs the byte offset of each displacement (x86 encoding
 * info), which the host's one-line disassembly service does not expose. */
#include "plugins/entrypatch/plan.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/common/x86_riprel.h"

#include <stdio.h>
#include <string.h>

int ep_rel32(uint64_t next, uint64_t target, int32_t *out) {
  int64_t d = (int64_t)(target - next);
  if (d < INT32_MIN || d > INT32_MAX) return 0;
  *out = (int32_t)d;
  return 1;
}

/* A direct (relative) branch: its target, else 0. */
static uint64_t direct_target(const cs_insn *in) {
  if (!(x86_in_group(in, CS_GRP_JUMP) || x86_in_group(in, CS_GRP_CALL))) return 0;
  const cs_x86 *x = &in->detail->x86;
  if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) return (uint64_t)x->operands[0].imm;
  return 0;
}

static int is_loop_like(unsigned id) {
  return id == X86_INS_LOOP || id == X86_INS_LOOPE || id == X86_INS_LOOPNE || id == X86_INS_JRCXZ ||
         id == X86_INS_JECXZ || id == X86_INS_JCXZ;
}

/* How a displaced call is relocated (emulated: its original return
 * address pushed, then a jump to its target), or CALL_NO when it cannot be:
 *   CALL_DIRECT  call rel32                  -> push ret; jmp target
 *   CALL_REG     call *%reg (not %rsp)       -> push ret; jmp *%reg
 *   CALL_RIP     call *disp(%rip) (-fno-plt) -> push ret; jmp *disp'(%rip)
 *   CALL_MEM     call *m (any other memory)  -> push m; push (%rsp);
 *                movl ret into 8(%rsp); lea 8(%rsp), %rsp; jmp *-8(%rsp)
 * CALL_MEM reads its operand first, as the call does (the push could
 * change what it reads: an address into the stack), and `push m` computes
 * an rsp-based address before rsp moves; the target then waits in the red
 * zone, which signal delivery skips, as in the agent's thunks. The other
 * indirect forms keep their encoding with ModR/M.reg 2 (call) turned into
 * 4 (jmp) or 6 (push): the same operand, the same prefixes (REX, notrack,
 * a segment). */
enum { CALL_NO, CALL_DIRECT, CALL_REG, CALL_RIP, CALL_MEM };

static int call_form(const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  if (in->id != X86_INS_CALL || x->op_count != 1) return CALL_NO;
  const cs_x86_op *o = &x->operands[0];
  if (o->type == X86_OP_IMM)
    return in->size >= 5 && in->bytes[in->size - 5] == 0xe8 ? CALL_DIRECT : CALL_NO;
  int m = x->encoding.modrm_offset;
  if (m < 1 || m >= in->size || in->bytes[m - 1] != 0xff || ((in->bytes[m] >> 3) & 7) != 2 ||
      o->size != 8)
    return CALL_NO;
  if (o->type == X86_OP_REG) return o->reg != X86_REG_RSP ? CALL_REG : CALL_NO;
  if (o->type != X86_OP_MEM) return CALL_NO;
  if (o->mem.base == X86_REG_RIP)
    return o->mem.index == X86_REG_INVALID && o->mem.segment == X86_REG_INVALID ? CALL_RIP
                                                                                : CALL_NO;
  return CALL_MEM;
}

static int refuse(char *why, size_t cap, const char *fmt, unsigned long long a) {
  snprintf(why, cap, fmt, a);
  return -1;
}

/* An instruction that cannot be displaced wherever it stands in the first
 * 5 bytes (at +len): -1 with the reason, else 0. */
static int refuse_undisplaceable(const cs_insn *in, uint32_t len, char *why, size_t whycap) {
  unsigned id = in->id;
  if ((x86_in_group(in, CS_GRP_RET) && id != X86_INS_RET) || x86_in_group(in, CS_GRP_INT) ||
      x86_in_group(in, CS_GRP_IRET) || id == X86_INS_UD2 || id == X86_INS_HLT ||
      id == X86_INS_SYSCALL || id == X86_INS_SYSENTER)
    /* relocated, a thread blocked in a system call would stand inside
     * agent code until it returns: the leave could not unmap it */
    return refuse(why, whycap, "a system call or trap within the first 5 bytes (+%llu)", len);
  if (is_loop_like(id))
    return refuse(why, whycap, "loop/jrcxz within the first 5 bytes (+%llu)", len);
  if (id == X86_INS_XBEGIN) /* its abort address is relative */
    return refuse(why, whycap, "xbegin within the first 5 bytes (+%llu)", len);
  if (x86_in_group(in, CS_GRP_CALL) && call_form(in) == CALL_NO)
    return refuse(why, whycap,
                  "a call within the first 5 bytes (+%llu) that does not relocate (far, "
                  "16/32-bit, through %%rsp)",
                  len);
  return 0;
}

/* An unconditional transfer (at +at) with more displaced bytes after it:
 * those bytes are reached only from elsewhere (a jump back into the
 * patch), or, after a call, by its callee's return. -1 with the reason. */
static int refuse_transfer_inside(const cs_insn *in, uint32_t at, char *why, size_t whycap) {
  if (x86_in_group(in, CS_GRP_CALL))
    return refuse(why, whycap,
                  "a call within the first 5 bytes (+%llu) with more bytes after it: its callee "
                  "would return into the patch",
                  at);
  if (in->id == X86_INS_RET)
    return refuse(why, whycap, "returns within the first 5 bytes (+%llu) with more bytes after it",
                  at);
  if (x86_in_group(in, CS_GRP_JUMP) && in->id == X86_INS_JMP)
    return refuse(why, whycap,
                  "an unconditional jump within the first 5 bytes (+%llu) with more bytes after "
                  "it",
                  at);
  return 0;
}

/* 1. the displaced instructions: whole ones covering the 5 bytes of the
 * jump, each one that relocates, at most maxlen bytes (what ep_patch
 * keeps of them). *len: their length. */
static int plan_displaced(csh cs, cs_insn *in, uint64_t addr, const uint8_t *bytes, size_t avail,
                          size_t maxlen, uint32_t *len, char *why, size_t whycap) {
  const uint8_t *code = bytes;
  size_t left = avail;
  uint64_t ip = addr;
  *len = 0;
  while (*len < EP_PATCH_LEN) {
    if (!cs_disasm_iter(cs, &code, &left, &ip, in))
      return refuse(why, whycap, "undecodable instruction at +%llu", *len);
    if (refuse_undisplaceable(in, *len, why, whycap) != 0) return -1;
    *len += in->size;
    if (*len >= EP_PATCH_LEN) break;
    if (refuse_transfer_inside(in, *len - in->size, why, whycap) != 0) return -1;
  }
  if (*len > maxlen) return refuse(why, whycap, "prologue too long (%llu)", *len);
  return 0;
}

/* 2. no direct branch of the function lands in (addr, addr + len) (it
 * would land inside the jump), or loops back to addr itself (it would be
 * counted as a call). Undecodable bytes (data, padding) are skipped one
 * at a time. */
static int scan_branches_in(csh cs, cs_insn *in, uint64_t addr, const uint8_t *bytes, size_t avail,
                            uint32_t len, char *why, size_t whycap) {
  const uint8_t *code = bytes;
  size_t left = avail;
  uint64_t ip = addr;
  while (left > 0) {
    if (!cs_disasm_iter(cs, &code, &left, &ip, in)) { /* data or padding: skip a byte */
      code++, left--, ip++;
      continue;
    }
    uint64_t t = direct_target(in);
    if (t > addr && t < addr + len)
      return refuse(why, whycap, "a branch inside the function lands on its first bytes (+%llu)",
                    t - addr);
    if (t == addr && x86_in_group(in, CS_GRP_JUMP))
      return refuse(why, whycap,
                    "a jump inside the function loops back to its entry (at +%llu): it would "
                    "count as a call",
                    in->address - addr);
  }
  return 0;
}

int ep_plan_function(csh cs, uint64_t addr, uint64_t size, const uint8_t *bytes, size_t nbytes,
                     struct ep_patch *p, char *why, size_t whycap) {
  memset(p, 0, sizeof *p);
  p->addr = addr;
  if (size < EP_PATCH_LEN)
    return refuse(why, whycap, "too short (%llu bytes, the jump needs 5)",
                  (unsigned long long)size);
  size_t avail = nbytes < size ? nbytes : (size_t)size;
  cs_insn *in = cs_malloc(cs);
  if (!in) return refuse(why, whycap, "out of memory%.0llu", 0);
  uint32_t len = 0;
  int rc = plan_displaced(cs, in, addr, bytes, avail, sizeof p->orig, &len, why, whycap);
  if (!rc) rc = scan_branches_in(cs, in, addr, bytes, avail, len, why, whycap);
  cs_free(in, 1);
  if (rc) return rc;
  p->len = len;
  memcpy(p->orig, bytes, len);
  /* it must relocate (here, to its own address: operands that cannot be
   * rewritten at all are found now, not while the target waits) */
  uint8_t tmp[AGENT_STUB_BYTES];
  if (!ep_relocate(cs, p, addr, tmp, AGENT_STUB_BYTES - AGENT_STUB_HEAD, why, whycap)) return -1;
  return 0;
}

/* push $v (64 bits) without a register or the flags: push imm32 pushes it
 * sign-extended; movl fixes the upper half when that was not v's. */
static size_t emit_push64(uint8_t *o, uint64_t v) {
  uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
  o[0] = 0x68; /* push imm32 */
  memcpy(o + 1, &lo, 4);
  if ((uint64_t)(int64_t)(int32_t)lo == v) return 5;
  o[5] = 0xc7, o[6] = 0x44, o[7] = 0x24, o[8] = 0x04; /* movl $hi, 4(%rsp) */
  memcpy(o + 9, &hi, 4);
  return 13;
}

/* jmp target from `here`: rel32 when it reaches, else jmp *0(%rip) and
 * the address after it (no register, no flags). */
static size_t emit_jmp(uint8_t *o, uint64_t here, uint64_t target) {
  int32_t rel;
  if (ep_rel32(here + 5, target, &rel)) {
    o[0] = 0xe9;
    memcpy(o + 1, &rel, 4);
    return 5;
  }
  o[0] = 0xff, o[1] = 0x25; /* jmp *0(%rip) */
  memset(o + 2, 0, 4);
  memcpy(o + 6, &target, 8);
  return 14;
}

/* Re-aim the disp32 of a rip-relative instruction copied to o (size bytes,
 * to run at `here`) at the absolute address it had at in->address. */
static const char *fix_riprel(const cs_insn *in, uint8_t *o, uint64_t here) {
  int off = x86_disp_offset(in);
  if (off < 0) return "a rip-relative operand without a 32-bit displacement";
  uint64_t abs = in->address + in->size + (uint64_t)(int64_t)in->detail->x86.disp;
  int32_t rel;
  if (!ep_rel32(here + in->size, abs, &rel))
    return "a rip-relative operand is out of rel32 reach from the stub";
  memcpy(o + off, &rel, 4);
  return NULL;
}

size_t ep_relocate(csh cs, const struct ep_patch *p, uint64_t dest, uint8_t *out, size_t cap,
                   char *why, size_t whycap) {
  cs_insn *in = cs_malloc(cs);
  if (!in) return 0;
  const uint8_t *code = p->orig;
  size_t left = p->len, n = 0;
  uint64_t ip = p->addr;
  const char *fail = NULL;
  int falls = 1; /* the last instruction falls through: the jump back is needed */
  while (!fail && left > 0 && cs_disasm_iter(cs, &code, &left, &ip, in)) {
    uint64_t here = dest + n;
    const cs_x86 *x = &in->detail->x86;
    uint64_t t = direct_target(in);
    uint8_t o[48]; /* this instruction, relocated */
    size_t sz = 0;
    int form = x86_in_group(in, CS_GRP_CALL) ? call_form(in) : CALL_NO;
    falls = 1;
    if (form != CALL_NO) {
      /* the call as its callee sees it: the original return address (the
       * original function right after the patched bytes) on the stack,
       * then the target */
      if (form != CALL_MEM) sz = emit_push64(o, in->address + in->size);
      if (form == CALL_DIRECT) {
        sz += emit_jmp(o + sz, here + sz, (uint64_t)x->operands[0].imm);
      } else if (form != CALL_MEM) {
        memcpy(o + sz, in->bytes, in->size);
        int m = x->encoding.modrm_offset;
        o[sz + m] = (uint8_t)((o[sz + m] & ~0x38) | 4 << 3); /* /2 call -> /4 jmp */
        if (form == CALL_RIP) fail = fix_riprel(in, o + sz, here + sz);
        sz += in->size;
      } else {
        uint64_t ret = in->address + in->size;
        uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);
        int m = x->encoding.modrm_offset;
        memcpy(o, in->bytes, in->size);
        o[m] = (uint8_t)((o[m] & ~0x38) | 6 << 3); /* /2 call -> /6 push: the target */
        sz = in->size;
        static const uint8_t tail[] = {
            0xff, 0x34, 0x24,                      /* push (%rsp): the target again, below */
            0xc7, 0x44, 0x24, 0x08, 0,    0, 0, 0, /* movl $lo, 8(%rsp) */
            0xc7, 0x44, 0x24, 0x0c, 0,    0, 0, 0, /* movl $hi, 12(%rsp): the return address */
            0x48, 0x8d, 0x64, 0x24, 0x08,          /* lea 8(%rsp), %rsp (no flags) */
            0xff, 0x64, 0x24, 0xf8};               /* jmp *-8(%rsp) */
        memcpy(o + sz, tail, sizeof tail);
        memcpy(o + sz + 7, &lo, 4);
        memcpy(o + sz + 15, &hi, 4);
        sz += sizeof tail;
      }
      falls = 0;
    } else if (x86_in_group(in, CS_GRP_CALL)) {
      fail = "a displaced call does not relocate";
    } else if (t && x86_in_group(in, CS_GRP_JUMP)) {
      /* jmp / jcc, rel8 or rel32: re-emitted as rel32 to the same target,
       * or through an absolute jump when that is out of rel32 reach */
      int32_t rel;
      if (in->id == X86_INS_JMP) {
        sz = emit_jmp(o, here, t);
        falls = 0;
      } else {
        /* the condition code is the low nibble of the opcode in both forms */
        uint8_t cc = (uint8_t)((x->opcode[0] == 0x0f ? x->opcode[1] : x->opcode[0]) & 0x0f);
        if (ep_rel32(here + 6, t, &rel)) {
          o[0] = 0x0f, o[1] = (uint8_t)(0x80 | cc);
          memcpy(o + 2, &rel, 4);
          sz = 6;
        } else { /* j!cc over an absolute jmp */
          o[0] = (uint8_t)(0x70 | (cc ^ 1)), o[1] = 14;
          sz = 2 + emit_jmp(o + 2, here + 2, t);
          if (sz != 16) o[1] = (uint8_t)(sz - 2);
        }
      }
    } else {
      memcpy(o, in->bytes, in->size);
      sz = in->size;
      if (x86_is_riprel(in)) fail = fix_riprel(in, o, here);
      if (in->id == X86_INS_RET || (in->id == X86_INS_JMP && x86_in_group(in, CS_GRP_JUMP)))
        falls = 0; /* ret; jmp *%reg, jmp *mem */
    }
    if (!fail && n + sz > cap) fail = "the relocated prologue does not fit its stub";
    if (fail) break;
    memcpy(out + n, o, sz);
    n += sz;
  }
  cs_free(in, 1);
  if (!fail && left != 0) fail = "the displaced bytes no longer decode";
  /* back into the function after the patched bytes */
  if (!fail && falls) {
    uint8_t o[16];
    size_t sz = emit_jmp(o, dest + n, p->addr + p->len);
    if (n + sz > cap)
      fail = "the relocated prologue does not fit its stub";
    else
      memcpy(out + n, o, sz), n += sz;
  }
  if (fail) {
    snprintf(why, whycap, "%s", fail);
    return 0;
  }
  return n;
}
