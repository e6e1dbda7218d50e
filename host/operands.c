/* Operand semantics service (host->operands): one instruction's register
 * reads/writes and memory accesses, for views that follow values through
 * code (--dataflow).
 *
 * Capstone lives once, in the host. disasm.c keeps its own fast handle with
 * detail OFF (the hot --stream path); this module opens a second handle with
 * CS_OPT_DETAIL on, which costs a detail block per decode but is only used by
 * views that need it.
 *
 * Registers come from cs_regs_access (explicit + implicit), mapped to the
 * index of their full 64-bit register in asmspy_regs.gpr (user_regs_struct
 * order); eflags is gpr 18; fs:/gs: are reported as fs_base/gs_base (gpr 21,
 * 22: what the segment prefix actually reads in 64-bit mode). Control,
 * debug and segment selector registers are skipped.
 *
 * Memory: each explicit memory operand (lea and hinting nops excluded: they
 * compute or name an address but do not touch it) with its effective address
 * base + index*scale + disp computed from regs (rip-relative: the next
 * instruction's address + disp; fs:/gs: add fs_base/gs_base), plus the
 * implicit stack slots: push/call write [rsp-8], pop/ret read [rsp], leave
 * reads [rbp] (8 bytes each). A zero idiom (xor eax, eax) reads nothing.
 *
 * Capstone 4's access flags are wrong for whole instruction classes (a
 * `test [m], imm` "writes", an `fstp [m]` "reads"): operand_access.c holds
 * the ISA's access for those, applied to the first operand here.
 *
 * 1.10: registers outside the gpr file (xmm/ymm/zmm, x87 st, mm, k, the
 * x87 status word) go to vread/vwritten as ASMSPY_VREG ids, as Capstone
 * names them: xmm<n>, ymm<n> and zmm<n> are views of one register n, so a
 * view that follows definitions keys on the number for those classes.
 * 1.12: on AArch64 the decoder is host/arch/operands_arm64.c (host->caps
 * ASMSPY_HOST_CAP_OPERANDS_ARM64); register ids are the arch shim's.
 * Not thread-safe by design: one tracer thread. */
#include "host/host.h"
#include "host/operand_access.h"
#include "host/arch/operand_lists.h"
#include "host/arch/regs_x86_64.h"

#include <capstone/capstone.h>
#include <string.h>

/* x86-64's register ids: host/arch/regs_x86_64.h (the arch shim's) */
#define G_RAX X86G_RAX
#define G_RBX X86G_RBX
#define G_RCX X86G_RCX
#define G_RDX X86G_RDX
#define G_RSI X86G_RSI
#define G_RDI X86G_RDI
#define G_RBP X86G_RBP
#define G_RSP X86G_RSP
#define G_R8 X86G_R8
#define G_R9 X86G_R9
#define G_R10 X86G_R10
#define G_R11 X86G_R11
#define G_R12 X86G_R12
#define G_R13 X86G_R13
#define G_R14 X86G_R14
#define G_R15 X86G_R15
#define G_RIP X86G_RIP
#define G_EFLAGS X86G_EFLAGS
#define G_CS X86G_CS
#define G_SS X86G_SS
#define G_DS X86G_DS
#define G_ES X86G_ES
#define G_FS_BASE X86G_FS_BASE
#define G_GS_BASE X86G_GS_BASE

#if defined(__x86_64__)
static csh cs_det; /* x86-64; AArch64: host/arch/operands_arm64.c */
#endif
static int cs_det_ready = -1; /* -1 unknown, 0 failed, 1 ok */

static int operands_init(void) {
  if (cs_det_ready >= 0) return cs_det_ready;
#if defined(__x86_64__)
  cs_det_ready = cs_open(CS_ARCH_X86, CS_MODE_64, &cs_det) == CS_ERR_OK;
  if (cs_det_ready) {
    cs_option(cs_det, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
    cs_option(cs_det, CS_OPT_DETAIL, CS_OPT_ON);
  }
#else
  cs_det_ready = 0;
#endif
  return cs_det_ready;
}

#if defined(__x86_64__)
/* A Capstone x86 register -> its gpr index, or -1 when it has no slot. */
static int gpr_of(unsigned reg) {
  switch (reg) {
  case X86_REG_RAX:
  case X86_REG_EAX:
  case X86_REG_AX:
  case X86_REG_AL:
  case X86_REG_AH: return G_RAX;
  case X86_REG_RBX:
  case X86_REG_EBX:
  case X86_REG_BX:
  case X86_REG_BL:
  case X86_REG_BH: return G_RBX;
  case X86_REG_RCX:
  case X86_REG_ECX:
  case X86_REG_CX:
  case X86_REG_CL:
  case X86_REG_CH: return G_RCX;
  case X86_REG_RDX:
  case X86_REG_EDX:
  case X86_REG_DX:
  case X86_REG_DL:
  case X86_REG_DH: return G_RDX;
  case X86_REG_RSI:
  case X86_REG_ESI:
  case X86_REG_SI:
  case X86_REG_SIL: return G_RSI;
  case X86_REG_RDI:
  case X86_REG_EDI:
  case X86_REG_DI:
  case X86_REG_DIL: return G_RDI;
  case X86_REG_RBP:
  case X86_REG_EBP:
  case X86_REG_BP:
  case X86_REG_BPL: return G_RBP;
  case X86_REG_RSP:
  case X86_REG_ESP:
  case X86_REG_SP:
  case X86_REG_SPL: return G_RSP;
  case X86_REG_R8:
  case X86_REG_R8D:
  case X86_REG_R8W:
  case X86_REG_R8B: return G_R8;
  case X86_REG_R9:
  case X86_REG_R9D:
  case X86_REG_R9W:
  case X86_REG_R9B: return G_R9;
  case X86_REG_R10:
  case X86_REG_R10D:
  case X86_REG_R10W:
  case X86_REG_R10B: return G_R10;
  case X86_REG_R11:
  case X86_REG_R11D:
  case X86_REG_R11W:
  case X86_REG_R11B: return G_R11;
  case X86_REG_R12:
  case X86_REG_R12D:
  case X86_REG_R12W:
  case X86_REG_R12B: return G_R12;
  case X86_REG_R13:
  case X86_REG_R13D:
  case X86_REG_R13W:
  case X86_REG_R13B: return G_R13;
  case X86_REG_R14:
  case X86_REG_R14D:
  case X86_REG_R14W:
  case X86_REG_R14B: return G_R14;
  case X86_REG_R15:
  case X86_REG_R15D:
  case X86_REG_R15W:
  case X86_REG_R15B: return G_R15;
  case X86_REG_RIP:
  case X86_REG_EIP:
  case X86_REG_IP: return G_RIP;
  case X86_REG_EFLAGS: return G_EFLAGS;
  case X86_REG_CS: return G_CS;
  case X86_REG_SS: return G_SS;
  case X86_REG_DS: return G_DS;
  case X86_REG_ES: return G_ES;
  case X86_REG_FS: return G_FS_BASE; /* 64-bit mode: the prefix reads the base */
  case X86_REG_GS: return G_GS_BASE;
  default: return -1;
  }
}

/* A Capstone x86 register with no gpr slot -> its ASMSPY_VREG id, 0 when
 * it is not one asmspy can read (control/debug/segment registers). */
static uint16_t vreg_of(unsigned reg) {
  if (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM31)
    return ASMSPY_VREG(ASMSPY_VREG_XMM, reg - X86_REG_XMM0);
  if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM31)
    return ASMSPY_VREG(ASMSPY_VREG_YMM, reg - X86_REG_YMM0);
  if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM31)
    return ASMSPY_VREG(ASMSPY_VREG_ZMM, reg - X86_REG_ZMM0);
  if (reg >= X86_REG_ST0 && reg <= X86_REG_ST7)
    return ASMSPY_VREG(ASMSPY_VREG_ST, reg - X86_REG_ST0);
  if (reg >= X86_REG_MM0 && reg <= X86_REG_MM7)
    return ASMSPY_VREG(ASMSPY_VREG_MM, reg - X86_REG_MM0);
  if (reg >= X86_REG_K0 && reg <= X86_REG_K7) return ASMSPY_VREG(ASMSPY_VREG_K, reg - X86_REG_K0);
  if (reg == X86_REG_FPSW) return ASMSPY_VREG(ASMSPY_VREG_FPSW, 0);
  return 0;
}

#define add_reg ol_add_reg
#define drop_reg ol_drop_reg
#define add_vreg ol_add_vreg
#define drop_vreg ol_drop_vreg
#define add_mem ol_add_mem

static uint64_t reg_value(const struct asmspy_regs *regs, unsigned reg) {
  int g = gpr_of(reg);
  if (!regs || g < 0 || (uint32_t)g >= regs->ngpr) return 0;
  uint64_t v = regs->gpr[g];
  switch (reg) { /* address-size override: 32-bit base/index */
  case X86_REG_EAX:
  case X86_REG_EBX:
  case X86_REG_ECX:
  case X86_REG_EDX:
  case X86_REG_ESI:
  case X86_REG_EDI:
  case X86_REG_EBP:
  case X86_REG_ESP:
  case X86_REG_R8D:
  case X86_REG_R9D:
  case X86_REG_R10D:
  case X86_REG_R11D:
  case X86_REG_R12D:
  case X86_REG_R13D:
  case X86_REG_R14D:
  case X86_REG_R15D:
  case X86_REG_EIP: return v & 0xffffffffu;
  default: return v;
  }
}

static uint64_t gpr_value(const struct asmspy_regs *regs, int g) {
  return regs && g >= 0 && (uint32_t)g < regs->ngpr ? regs->gpr[g] : 0;
}

#define EFLAGS_READ                                                                                \
  (X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF | X86_EFLAGS_TEST_ZF | X86_EFLAGS_TEST_PF |             \
   X86_EFLAGS_TEST_CF | X86_EFLAGS_TEST_NT | X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF |             \
   X86_EFLAGS_TEST_IF | X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_AF)
#define EFLAGS_WRITE                                                                               \
  (~(uint64_t)EFLAGS_READ &                                                                        \
   ~(uint64_t)(X86_EFLAGS_PRIOR_OF | X86_EFLAGS_PRIOR_SF | X86_EFLAGS_PRIOR_ZF |                   \
               X86_EFLAGS_PRIOR_AF | X86_EFLAGS_PRIOR_PF | X86_EFLAGS_PRIOR_CF |                   \
               X86_EFLAGS_PRIOR_TF | X86_EFLAGS_PRIOR_IF | X86_EFLAGS_PRIOR_DF |                   \
               X86_EFLAGS_PRIOR_NT))

/* Does this x87 instruction read st(0), the top of the stack? (A store or
 * compare of the top; an arithmetic or unary operation on it.) Loads
 * (fld, fild, fldz, ...) only push. */
static int x87_reads_st0(unsigned id) {
  switch (id) {
  case X86_INS_FST:
  case X86_INS_FSTP:
  case X86_INS_FIST:
  case X86_INS_FISTP:
  case X86_INS_FISTTP:
  case X86_INS_FBSTP:
  case X86_INS_FCOM:
  case X86_INS_FCOMP:
  case X86_INS_FCOMPP:
  case X86_INS_FICOM:
  case X86_INS_FICOMP:
  case X86_INS_FUCOM:
  case X86_INS_FUCOMP:
  case X86_INS_FUCOMPP:
  case X86_INS_FCOMI:
  case X86_INS_FCOMIP:
  case X86_INS_FUCOMI:
  case X86_INS_FUCOMIP:
  case X86_INS_FTST:
  case X86_INS_FXAM:
  case X86_INS_FADD:
  case X86_INS_FADDP:
  case X86_INS_FIADD:
  case X86_INS_FSUB:
  case X86_INS_FSUBP:
  case X86_INS_FISUB:
  case X86_INS_FSUBR:
  case X86_INS_FSUBRP:
  case X86_INS_FISUBR:
  case X86_INS_FMUL:
  case X86_INS_FMULP:
  case X86_INS_FIMUL:
  case X86_INS_FDIV:
  case X86_INS_FDIVP:
  case X86_INS_FIDIV:
  case X86_INS_FDIVR:
  case X86_INS_FDIVRP:
  case X86_INS_FIDIVR:
  case X86_INS_FCHS:
  case X86_INS_FABS:
  case X86_INS_FSQRT:
  case X86_INS_FRNDINT:
  case X86_INS_FSIN:
  case X86_INS_FCOS:
  case X86_INS_FSINCOS:
  case X86_INS_FPTAN:
  case X86_INS_FPATAN:
  case X86_INS_FYL2X:
  case X86_INS_FYL2XP1:
  case X86_INS_F2XM1:
  case X86_INS_FSCALE:
  case X86_INS_FPREM:
  case X86_INS_FPREM1:
  case X86_INS_FXTRACT:
  case X86_INS_FXCH: return 1;
  default: return 0;
  }
}

/* The registers Capstone says the instruction reads and writes. */
static void capstone_regs(const cs_insn *in, struct asmspy_operands *o) {
  cs_regs rr, rw;
  uint8_t nr = 0, nw = 0;
  if (cs_regs_access(cs_det, in, rr, &nr, rw, &nw) == CS_ERR_OK) {
    for (unsigned i = 0; i < nr; i++) {
      add_reg(o->read, &o->nread, gpr_of(rr[i]));
      add_vreg(o->vread, &o->nvread, vreg_of(rr[i]));
    }
    for (unsigned i = 0; i < nw; i++) {
      add_reg(o->written, &o->nwritten, gpr_of(rw[i]));
      add_vreg(o->vwritten, &o->nvwritten, vreg_of(rw[i]));
    }
  }
}

/* The ISA's access for op0 where Capstone's is wrong (operand_access.c):
 * the rule for this instruction, NULL when there is none or it does not
 * apply (a memory-only rule on a register operand). */
static const struct oa_rule *op0_rule(const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  const struct oa_rule *rule = operand_access_rule(in->id);
  const cs_x86_op *op0 = x->op_count ? &x->operands[0] : NULL;
  if (rule && op0 && rule->mem_only && op0->type != X86_OP_MEM) rule = NULL;
  return rule;
}

/* A register op0: its read and write as the rule says. */
static void apply_op0_rule(const cs_insn *in, const struct oa_rule *rule,
                           struct asmspy_operands *o) {
  const cs_x86 *x = &in->detail->x86;
  const cs_x86_op *op0 = x->op_count ? &x->operands[0] : NULL;
  if (rule && op0 && op0->type == X86_OP_REG) {
    int g = gpr_of(op0->reg);
    uint16_t v = vreg_of(op0->reg);
    if (rule->op0 & OA_READ) {
      add_reg(o->read, &o->nread, g);
      add_vreg(o->vread, &o->nvread, v);
    }
    if (rule->op0 & OA_WRITE) {
      add_reg(o->written, &o->nwritten, g);
      add_vreg(o->vwritten, &o->nvwritten, v);
    } else if (g >= 0) {
      drop_reg(o->written, &o->nwritten, g);
    } else {
      drop_vreg(o->vwritten, &o->nvwritten, v);
    }
  }
}

/* Registers and flags the instruction uses implicitly, that Capstone leaves
 * out (x87's top of stack, cmpxchg's rax/rdx) or states per flag. */
static void implicit_regs(const cs_insn *in, struct asmspy_operands *o) {
  const cs_x86 *x = &in->detail->x86;
  /* x87: Capstone lists only the status word for most stack instructions;
   * the top of the stack they read is implicit (SDM vol. 1 8.1). Only the
   * read is added: what an instruction writes is named relative to the
   * stack after it ran (a load pushes), which a view sees from the state
   * itself (read_fpregs before and after), not from a name here. */
  if (cs_insn_group(cs_det, in, X86_GRP_FPU) && x87_reads_st0(in->id))
    add_vreg(o->vread, &o->nvread, ASMSPY_VREG(ASMSPY_VREG_ST, 0));
  switch (in->id) {     /* implicit registers Capstone leaves out */
  case X86_INS_CMPXCHG: /* compares with rax; loads the old value into it on a mismatch */
    add_reg(o->read, &o->nread, G_RAX);
    add_reg(o->written, &o->nwritten, G_RAX);
    break;
  case X86_INS_CMPXCHG8B:
  case X86_INS_CMPXCHG16B: /* compares with rdx:rax, stores rcx:rbx, loads rdx:rax */
    add_reg(o->read, &o->nread, G_RAX);
    add_reg(o->read, &o->nread, G_RDX);
    add_reg(o->read, &o->nread, G_RBX);
    add_reg(o->read, &o->nread, G_RCX);
    add_reg(o->written, &o->nwritten, G_RAX);
    add_reg(o->written, &o->nwritten, G_RDX);
    break;
  default: break;
  }
  /* the flags, from Capstone's per-flag effects (the FPU group reuses the
   * field for its own flags) */
  if (!cs_insn_group(cs_det, in, X86_GRP_FPU)) {
    if (x->eflags & EFLAGS_READ) add_reg(o->read, &o->nread, G_EFLAGS);
    if (x->eflags & EFLAGS_WRITE) add_reg(o->written, &o->nwritten, G_EFLAGS);
  }
}

/* push/pop/call/ret/leave: rsp (rbp) and the stack slot they touch. */
static void stack_effects(const cs_insn *in, const struct asmspy_regs *regs,
                          struct asmspy_operands *o) {
  uint64_t rsp = gpr_value(regs, G_RSP);
  switch (in->id) {
  case X86_INS_PUSH:
  case X86_INS_PUSHFQ:
  case X86_INS_CALL:
    add_reg(o->read, &o->nread, G_RSP);
    add_reg(o->written, &o->nwritten, G_RSP);
    add_mem(o, rsp - 8, 8, ASMSPY_MEM_WRITE);
    break;
  case X86_INS_POP:
  case X86_INS_POPFQ:
  case X86_INS_RET:
    add_reg(o->read, &o->nread, G_RSP);
    add_reg(o->written, &o->nwritten, G_RSP);
    add_mem(o, rsp, 8, ASMSPY_MEM_READ);
    break;
  case X86_INS_LEAVE: /* mov rsp, rbp; pop rbp */
    add_reg(o->read, &o->nread, G_RBP);
    add_reg(o->written, &o->nwritten, G_RBP);
    add_reg(o->written, &o->nwritten, G_RSP);
    add_mem(o, gpr_value(regs, G_RBP), 8, ASMSPY_MEM_READ);
    break;
  default: break;
  }
}

/* Zero idioms read nothing: the result does not depend on the old value. */
static void drop_zero_idioms(const cs_insn *in, struct asmspy_operands *o) {
  const cs_x86 *x = &in->detail->x86;
  /* zero idioms (xor eax, eax / sub rax, rax): the result does not depend on
   * the old value, so it is not a read (no false def-use edge) */
  if ((in->id == X86_INS_XOR || in->id == X86_INS_SUB) && x->op_count == 2 &&
      x->operands[0].type == X86_OP_REG && x->operands[1].type == X86_OP_REG &&
      x->operands[0].reg == x->operands[1].reg) {
    int g = gpr_of(x->operands[0].reg);
    for (unsigned i = 0; i < o->nread; i++)
      if (o->read[i] == g) {
        memmove(&o->read[i], &o->read[i + 1], (size_t)(o->nread - i - 1));
        o->nread--;
        break;
      }
  }
  /* the vector zero idioms (pxor xmm0, xmm0 / vpxor xmm0, xmm1, xmm1) */
  switch (in->id) {
  case X86_INS_PXOR:
  case X86_INS_XORPS:
  case X86_INS_XORPD:
  case X86_INS_VPXOR:
  case X86_INS_VXORPS:
  case X86_INS_VXORPD:
  case X86_INS_VPXORD:
  case X86_INS_VPXORQ:
  case X86_INS_PSUBB:
  case X86_INS_PSUBW:
  case X86_INS_PSUBD:
  case X86_INS_PSUBQ:
  case X86_INS_VPSUBB:
  case X86_INS_VPSUBW:
  case X86_INS_VPSUBD:
  case X86_INS_VPSUBQ:
    if (x->op_count >= 2 && x->operands[x->op_count - 1].type == X86_OP_REG &&
        x->operands[x->op_count - 2].type == X86_OP_REG &&
        x->operands[x->op_count - 1].reg == x->operands[x->op_count - 2].reg &&
        x->operands[x->op_count - 2].reg != X86_REG_INVALID) {
      uint16_t v = vreg_of(x->operands[x->op_count - 1].reg);
      if (v) drop_vreg(o->vread, &o->nvread, v);
    }
    break;
  default: break;
  }
}

/* The memory operands: effective address, access and size; the base and
 * index registers as reads. lea and nop access no memory. */
static void memory_operands(const cs_insn *in, const struct asmspy_regs *regs,
                            const struct oa_rule *rule, struct asmspy_operands *o) {
  const cs_x86 *x = &in->detail->x86;
  if (in->id == X86_INS_LEA || in->id == X86_INS_NOP) return; /* no access */
  for (unsigned i = 0; i < x->op_count; i++) {
    const cs_x86_op *op = &x->operands[i];
    if (op->type != X86_OP_MEM) continue;
    uint64_t ea;
    if (op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_EIP)
      ea = in->address + in->size + (uint64_t)op->mem.disp;
    else
      ea = (op->mem.base != X86_REG_INVALID ? reg_value(regs, op->mem.base) : 0) +
           (op->mem.index != X86_REG_INVALID
                ? reg_value(regs, op->mem.index) * (uint64_t)(int64_t)op->mem.scale
                : 0) +
           (uint64_t)op->mem.disp;
    if (op->mem.segment == X86_REG_FS) ea += gpr_value(regs, G_FS_BASE);
    if (op->mem.segment == X86_REG_GS) ea += gpr_value(regs, G_GS_BASE);
    if (x->addr_size == 4) ea &= 0xffffffffu;
    uint32_t access = op->access & (CS_AC_READ | CS_AC_WRITE);
    if (i == 0 && rule) access = rule->op0 & (OA_READ | OA_WRITE);
    if (!access && !(i == 0 && rule && rule->op0 == OA_NONE))
      access = ASMSPY_MEM_READ; /* Capstone does not know: assume a load */
    uint32_t size = rule && rule->mem_size ? rule->mem_size : op->size ? op->size : 8;
    if (access) add_mem(o, ea, size, access);
    /* the base/index registers are read to form the address */
    if (op->mem.base != X86_REG_RIP && op->mem.base != X86_REG_EIP)
      add_reg(o->read, &o->nread, gpr_of(op->mem.base));
    add_reg(o->read, &o->nread, gpr_of(op->mem.index));
  }
}

static void fill(const cs_insn *in, const struct asmspy_regs *regs, struct asmspy_operands *o) {
  capstone_regs(in, o);
  const struct oa_rule *rule = op0_rule(in);
  apply_op0_rule(in, rule, o);
  implicit_regs(in, o);
  stack_effects(in, regs, o);
  drop_zero_idioms(in, o);
  memory_operands(in, regs, rule, o);
}
#endif

int operands_one(uint64_t ip, const uint8_t *bytes, size_t len, const struct asmspy_regs *regs,
                 struct asmspy_operands *out) {
  if (!out) return 0;
  /* The caller's struct_size says how much it can hold: write only within it. */
  size_t cap = out->struct_size;
  if (cap < offsetof(struct asmspy_operands, nread) || cap > sizeof(struct asmspy_operands))
    cap = sizeof(struct asmspy_operands);
  struct asmspy_operands o;
  memset(&o, 0, sizeof o);
  ASMSPY_INIT_HEADER(&o);
  o.struct_size = (uint32_t)cap;
  int ilen = 0;
#if defined(__aarch64__)
  (void)operands_init;
  if (len && bytes) ilen = operands_arm64(ip, bytes, len > 16 ? 16 : len, regs, &o);
#else
  if (len && bytes && operands_init()) {
    if (len > 16) len = 16;
#if defined(__x86_64__)
    cs_insn *in = NULL;
    size_t n = cs_disasm(cs_det, bytes, len, ip, 1, &in);
    if (n > 0) {
      ilen = in[0].size;
      /* a long AVX-512 operand list is cut to fit text[] */
      ol_text(o.text, sizeof o.text, in[0].mnemonic, in[0].op_str);
      if (in[0].detail) fill(&in[0], regs, &o);
      cs_free(in, n);
    }
#else
    (void)ip;
    (void)regs;
#endif
  }
#endif
  if (!ilen) snprintf(o.text, sizeof o.text, "(bad)");
  memcpy(out, &o, cap);
  return ilen;
}
