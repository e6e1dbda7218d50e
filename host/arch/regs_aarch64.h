/* host/arch: AArch64's register ids (host->operands, host->arch):
 * x0-x30 are asmspy_regs.gpr[0..30], sp gpr[31] (struct user_pt_regs
 * order); past the gpr file two pseudo registers: the NZCV flags (their
 * value is asmspy_regs.flags, PSTATE) and pc (asmspy_regs.ip). Compiled on
 * every host: the AArch64 operand decoder is unit-tested on x86-64 too. */
#ifndef ASMSPY_HOST_ARCH_REGS_AARCH64_H
#define ASMSPY_HOST_ARCH_REGS_AARCH64_H

enum {
  A64G_X0 = 0,
  A64G_FP = 29,
  A64G_LR = 30,
  A64G_SP = 31,
  A64G_NGPR = 32,
  A64G_NZCV = 32, /* pseudo: asmspy_regs.flags */
  A64G_PC = 33,   /* pseudo: asmspy_regs.ip */
  A64G_NREGS = 34
};

/* PSTATE's condition flags */
#define A64_FLAG_V (1ull << 28)
#define A64_FLAG_C (1ull << 29)
#define A64_FLAG_Z (1ull << 30)
#define A64_FLAG_N (1ull << 31)

#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL 0x404 /* <elf.h>: the current system call number */
#endif

#endif
