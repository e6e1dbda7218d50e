/* AArch64 operand semantics (host->operands on arm64): one instruction's
 * register reads and writes and its memory accesses, for --dataflow.
 *
 * Register ids (host/arch/regs_aarch64.h): x0-x30 / w0-w30 are 0-30, sp /
 * wsp 31, the NZCV flags the pseudo id 32 (value: asmspy_regs.flags);
 * xzr / wzr are no register (reads of zero, writes discarded). The SIMD/FP
 * registers b<n>/h<n>/s<n>/d<n>/q<n>/v<n> are views of one register v<n>:
 * ASMSPY_VREG(ASMSPY_VREG_V, n).
 *
 * Capstone 4's AArch64 detail gives the operands, but its access flags are
 * wrong for whole instruction classes (measured by
 * tests/unit/test_operands_arm64.c): every store's memory operand "reads
 * and writes" (str, stp) or only "reads" (stxr, stlxp), a post-index ldp's
 * memory "is written", ld1's destination registers are "read", cmp/cmn/tst
 * "write" their first register, `mrs x0, nzcv` reads x0 and not the flags,
 * `svc #0` "writes x30". So the access is taken from the instruction's
 * class here, Capstone's flags only where they hold (data processing):
 *   loads   (ld*)  the registers before the memory operand are written
 *                  (a lane load, `ld1 {v0.s}[1]`, also reads its register:
 *                  the other lanes stay); the memory is read;
 *   stores  (st*)  those registers are read (an exclusive store's first,
 *                  the status, is written); the memory is written;
 *   prfm           touches nothing;
 *   both           the base register is read, and written back with a pre-
 *                  (`[x1, #16]!`) or post-index (`[x1], #16`) address; the
 *                  index register is read (extended: uxtw/sxtw, shifted);
 *                  the effective address is base + disp (post-index: the
 *                  base alone) + index; a literal load reads pc + offset.
 * Sizes: the data register's (w 4, x 8, b/h/s/d/q 1/2/4/8/16), a b/h/sw
 * suffix 1/2/4; pairs twice that; ld1-ld4/st1-st4 the registers listed
 * times their arrangement (8 or 16 bytes; a lane or replicate: the element).
 * Flags: written by every flag-setting instruction (adds, subs, cmp, tst,
 * ccmp, fcmp, msr nzcv), read by every conditional one (b.cond, csel,
 * cset, ccmp, adc/sbc, mrs nzcv). Calls: bl/blr write x30, ret reads it;
 * svc reads x8 and x0-x5 and writes x0.
 *
 * Capstone 4 does not decode ARMv8.1 atomics (ldadd, cas, swp): those come
 * back undecodable (length 0), as for any invalid bytes. One tracer
 * thread: not thread-safe. */
#include "host/arch/operand_lists.h"
#include "host/arch/regs_aarch64.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#define SYSREG_NZCV 0xda10u /* Capstone's MRS/MSR operand value for NZCV */

static csh cs_a64;
static int cs_a64_ready = -1;

static int init(void) {
  if (cs_a64_ready >= 0) return cs_a64_ready;
  cs_a64_ready = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs_a64) == CS_ERR_OK;
  if (cs_a64_ready) cs_option(cs_a64, CS_OPT_DETAIL, CS_OPT_ON);
  return cs_a64_ready;
}

/* A Capstone register -> its id (-1: none) and, for SIMD/FP, *vreg and its
 * size in bytes. *size: the register's width (w 4, x 8). */
static int reg_id(unsigned r, uint16_t *vreg, uint32_t *size) {
  *vreg = 0;
  *size = 8;
  if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28) return (int)(r - ARM64_REG_X0);
  if (r == ARM64_REG_X29) return 29;
  if (r == ARM64_REG_X30) return 30;
  if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30) return *size = 4, (int)(r - ARM64_REG_W0);
  if (r == ARM64_REG_SP) return A64G_SP;
  if (r == ARM64_REG_WSP) return *size = 4, A64G_SP;
  if (r == ARM64_REG_NZCV) return A64G_NZCV;
  static const struct {
    unsigned first;
    uint32_t size;
  } v[] = {{ARM64_REG_B0, 1}, {ARM64_REG_H0, 2},  {ARM64_REG_S0, 4},
           {ARM64_REG_D0, 8}, {ARM64_REG_Q0, 16}, {ARM64_REG_V0, 16}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (r >= v[i].first && r < v[i].first + 32) {
      *vreg = ASMSPY_VREG(ASMSPY_VREG_V, r - v[i].first);
      *size = v[i].size;
      return -1;
    }
  *size = 0; /* xzr, wzr, system registers */
  return -1;
}

static void add_read(struct asmspy_operands *o, unsigned r) {
  uint16_t v;
  uint32_t sz;
  int g = reg_id(r, &v, &sz);
  ol_add_reg(o->read, &o->nread, g);
  ol_add_vreg(o->vread, &o->nvread, v);
}

static void add_write(struct asmspy_operands *o, unsigned r) {
  uint16_t v;
  uint32_t sz;
  int g = reg_id(r, &v, &sz);
  ol_add_reg(o->written, &o->nwritten, g);
  ol_add_vreg(o->vwritten, &o->nvwritten, v);
}

static uint64_t gpr(const struct asmspy_regs *regs, int g) {
  return regs && g >= 0 && g < 32 && (uint32_t)g < regs->ngpr ? regs->gpr[g] : 0;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* bytes of one vector arrangement / element */
static uint32_t vas_bytes(arm64_vas vas) {
  switch (vas) {
  case ARM64_VAS_16B:
  case ARM64_VAS_8H:
  case ARM64_VAS_4S:
  case ARM64_VAS_2D:
  case ARM64_VAS_1Q: return 16;
  case ARM64_VAS_8B:
  case ARM64_VAS_4H:
  case ARM64_VAS_2S:
  case ARM64_VAS_1D: return 8;
  default: return 16;
  }
}
static uint32_t vas_elem(arm64_vas vas) {
  switch (vas) {
  case ARM64_VAS_16B:
  case ARM64_VAS_8B: return 1;
  case ARM64_VAS_8H:
  case ARM64_VAS_4H: return 2;
  case ARM64_VAS_4S:
  case ARM64_VAS_2S: return 4;
  case ARM64_VAS_2D:
  case ARM64_VAS_1D: return 8;
  default: return 16;
  }
}
static uint32_t vess_bytes(arm64_vess e) {
  switch (e) {
  case ARM64_VESS_B: return 1;
  case ARM64_VESS_H: return 2;
  case ARM64_VESS_S: return 4;
  case ARM64_VESS_D: return 8;
  default: return 0;
  }
}

/* the index register's contribution to an address: extended, then shifted */
static uint64_t index_value(const struct asmspy_regs *regs, const cs_arm64_op *op) {
  uint16_t v;
  uint32_t sz;
  int g = reg_id(op->mem.index, &v, &sz);
  uint64_t x = gpr(regs, g);
  switch (op->ext) {
  case ARM64_EXT_UXTW: x &= 0xffffffffu; break;
  case ARM64_EXT_SXTW: x = (uint64_t)(int64_t)(int32_t)(uint32_t)x; break;
  case ARM64_EXT_UXTH: x &= 0xffffu; break;
  case ARM64_EXT_SXTH: x = (uint64_t)(int64_t)(int16_t)(uint16_t)x; break;
  case ARM64_EXT_UXTB: x &= 0xffu; break;
  case ARM64_EXT_SXTB: x = (uint64_t)(int64_t)(int8_t)(uint8_t)x; break;
  default:
    if (sz == 4) x &= 0xffffffffu;
    break;
  }
  if (op->shift.type == ARM64_SFT_LSL && op->shift.value < 64) x <<= op->shift.value;
  return x;
}

/* A load or store: registers, writeback and the memory access. */
static void fill_mem(const cs_insn *in, const cs_arm64 *a, const struct asmspy_regs *regs,
                     struct asmspy_operands *o, int load) {
  const char *m = in->mnemonic;
  int exclusive_store =
      !load && (starts(m, "stxr") || starts(m, "stlxr") || starts(m, "stxp") || starts(m, "stlxp"));
  int structure = (m[0] == 'l' || m[0] == 's') && m[1] == (load ? 'd' : 't') && m[2] >= '1' &&
                  m[2] <= '4'; /* ld1-ld4 / st1-st4 */
  int replicate = structure && m[3] == 'r';
  size_t n = strlen(m);
  /* ldp stp ldnp stnp ldxp ldaxp stxp stlxp, ldpsw (not ldapr: "acquire") */
  int pair = !structure && n && (m[n - 1] == 'p' || starts(m, "ldpsw"));
  int memi = -1;
  for (int i = 0; i < a->op_count; i++)
    if (a->operands[i].type == ARM64_OP_MEM) {
      memi = i;
      break;
    }
  /* the data registers (before the memory operand, or all for a literal) */
  uint32_t rsize = 0, nregs = 0, lane = 0, velem = 0, vbytes = 0;
  int first = 1;
  for (int i = 0; i < a->op_count && (memi < 0 || i < memi); i++) {
    const cs_arm64_op *op = &a->operands[i];
    if (op->type != ARM64_OP_REG) continue;
    uint16_t v;
    uint32_t sz;
    reg_id(op->reg, &v, &sz);
    if (exclusive_store && first) { /* the status register */
      add_write(o, op->reg);
      first = 0;
      continue;
    }
    first = 0;
    if (load) {
      add_write(o, op->reg);
      if (op->vector_index >= 0) add_read(o, op->reg); /* the other lanes stay */
    } else {
      add_read(o, op->reg);
    }
    if (!rsize) rsize = sz;
    nregs++;
    if (op->vector_index >= 0) lane = vess_bytes(op->vess);
    if (op->vas != ARM64_VAS_INVALID) velem = vas_elem(op->vas), vbytes = vas_bytes(op->vas);
  }
  /* the size of the access */
  uint32_t size = rsize;
  char last = n ? m[n - 1] : 0;
  if (structure)
    size = lane        ? lane * nregs
           : replicate ? (velem ? velem : 16) * nregs
                       : (vbytes ? vbytes : 16) * nregs;
  else if (last == 'b' && !starts(m, "prf"))
    size = 1;
  else if (last == 'h')
    size = 2;
  else if (last == 'w') /* ldrsw, ldursw, ldpsw, ldtrsw */
    size = 4;
  if (pair) size *= 2;
  if (!size) size = 8;
  uint32_t access = starts(m, "prf") ? 0 : load ? ASMSPY_MEM_READ : ASMSPY_MEM_WRITE;
  if (memi < 0) { /* a literal: ldr x0, label (Capstone gives the address) */
    for (int i = 0; i < a->op_count; i++)
      if (a->operands[i].type == ARM64_OP_IMM) {
        if (access) ol_add_mem(o, (uint64_t)a->operands[i].imm, size, access);
        break;
      }
    return;
  }
  const cs_arm64_op *mo = &a->operands[memi];
  uint16_t v;
  uint32_t sz;
  int base = reg_id(mo->mem.base, &v, &sz);
  uint64_t ea = gpr(regs, base) + (uint64_t)(int64_t)mo->mem.disp;
  ol_add_reg(o->read, &o->nread, base);
  if (mo->mem.index != ARM64_REG_INVALID) {
    ea += index_value(regs, mo);
    add_read(o, mo->mem.index);
  }
  if (a->writeback) ol_add_reg(o->written, &o->nwritten, base);
  /* a post-index by register (ld1 {v0.16b}, [x1], x2) reads it */
  for (int i = memi + 1; i < a->op_count; i++)
    if (a->operands[i].type == ARM64_OP_REG) add_read(o, a->operands[i].reg);
  if (access) ol_add_mem(o, ea, size, access);
}

static int cond_reads_flags(arm64_cc cc) {
  return cc != ARM64_CC_INVALID && cc != ARM64_CC_AL && cc != ARM64_CC_NV;
}

static void fill(const cs_insn *in, const struct asmspy_regs *regs, struct asmspy_operands *o) {
  const cs_arm64 *a = &in->detail->arm64;
  const char *m = in->mnemonic;
  int load = m[0] == 'l' && m[1] == 'd';
  int store = m[0] == 's' && m[1] == 't';
  int prefetch = starts(m, "prfm") || starts(m, "prfum");
  if (load || store || prefetch) {
    fill_mem(in, a, regs, o, load);
  } else if (in->id == ARM64_INS_SVC) { /* the Linux system call convention */
    static const int args[] = {8, 0, 1, 2, 3, 4, 5};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
      ol_add_reg(o->read, &o->nread, args[i]);
    ol_add_reg(o->written, &o->nwritten, 0);
    return;
  } else if (in->id == ARM64_INS_MRS || in->id == ARM64_INS_MSR) {
    for (int i = 0; i < a->op_count; i++) {
      const cs_arm64_op *op = &a->operands[i];
      if (op->type == ARM64_OP_REG) {
        if (in->id == ARM64_INS_MRS)
          add_write(o, op->reg);
        else
          add_read(o, op->reg);
      } else if (op->type == ARM64_OP_REG_MRS && op->reg == SYSREG_NZCV) {
        ol_add_reg(o->read, &o->nread, A64G_NZCV);
      } else if (op->type == ARM64_OP_REG_MSR && op->reg == SYSREG_NZCV) {
        ol_add_reg(o->written, &o->nwritten, A64G_NZCV);
      }
    }
    return;
  } else {
    /* compares alias a flag-setting op into the zero register: every
     * register they name is read */
    int compare = in->id == ARM64_INS_CMP || in->id == ARM64_INS_CMN || in->id == ARM64_INS_TST ||
                  in->id == ARM64_INS_CCMP || in->id == ARM64_INS_CCMN ||
                  in->id == ARM64_INS_FCMP || in->id == ARM64_INS_FCMPE ||
                  in->id == ARM64_INS_FCCMP || in->id == ARM64_INS_FCCMPE;
    for (int i = 0; i < a->op_count; i++) {
      const cs_arm64_op *op = &a->operands[i];
      if (op->type != ARM64_OP_REG) continue;
      uint8_t ac = op->access & (CS_AC_READ | CS_AC_WRITE);
      if (compare || !ac) ac = CS_AC_READ;
      if (ac & CS_AC_READ) add_read(o, op->reg);
      if (ac & CS_AC_WRITE) add_write(o, op->reg);
    }
    /* zero idioms: eor x0, x1, x1 / eor v0.16b, v1.16b, v1.16b / sub
     * x0, x1, x1 do not depend on x1 */
    if ((in->id == ARM64_INS_EOR || in->id == ARM64_INS_SUB) && a->op_count == 3 &&
        a->operands[1].type == ARM64_OP_REG && a->operands[2].type == ARM64_OP_REG &&
        a->operands[1].reg == a->operands[2].reg &&
        a->operands[2].shift.type == ARM64_SFT_INVALID) {
      uint16_t v;
      uint32_t sz;
      int g = reg_id(a->operands[1].reg, &v, &sz);
      if (g >= 0) ol_drop_reg(o->read, &o->nread, g);
      if (v) ol_drop_vreg(o->vread, &o->nvread, v);
    }
  }
  /* implicit registers: x30 (bl, blr), NZCV (b.cond, csel, adc, adds) */
  const cs_detail *d = in->detail;
  for (unsigned i = 0; i < d->regs_read_count; i++) add_read(o, d->regs_read[i]);
  for (unsigned i = 0; i < d->regs_write_count; i++) add_write(o, d->regs_write[i]);
  if (cond_reads_flags(a->cc)) ol_add_reg(o->read, &o->nread, A64G_NZCV);
  if (a->update_flags) ol_add_reg(o->written, &o->nwritten, A64G_NZCV);
  switch (in->id) {
  case ARM64_INS_ADC:
  case ARM64_INS_SBC:
  case ARM64_INS_NGC:
  case ARM64_INS_NGCS:                         /* adcs/sbcs: ADC/SBC */
    ol_add_reg(o->read, &o->nread, A64G_NZCV); /* the carry */
    break;
  case ARM64_INS_RET:
    if (!a->op_count) ol_add_reg(o->read, &o->nread, A64G_LR);
    break;
  case ARM64_INS_BL:
  case ARM64_INS_BLR: ol_add_reg(o->written, &o->nwritten, A64G_LR); break;
  default: break;
  }
}

int operands_arm64(uint64_t ip, const uint8_t *bytes, size_t len, const struct asmspy_regs *regs,
                   struct asmspy_operands *o) {
  if (!bytes || len < 4 || !init()) return 0;
  cs_insn *in = NULL;
  size_t n = cs_disasm(cs_a64, bytes, 4, ip, 1, &in);
  if (!n) return 0;
  int ilen = (int)in[0].size;
  ol_text(o->text, sizeof o->text, in[0].mnemonic, in[0].op_str);
  if (in[0].detail) fill(&in[0], regs, o);
  cs_free(in, n);
  return ilen;
}
