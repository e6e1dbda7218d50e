/* host/arch: x86-64's register ids (host->operands, host->arch): the
 * indexes of struct user_regs_struct, which asmspy_regs.gpr[] keeps in the
 * kernel's order. Only host/arch/ and host/operands.c use these names;
 * plugins ask host->arch. */
#ifndef ASMSPY_HOST_ARCH_REGS_X86_64_H
#define ASMSPY_HOST_ARCH_REGS_X86_64_H

enum {
  X86G_R15 = 0,
  X86G_R14,
  X86G_R13,
  X86G_R12,
  X86G_RBP,
  X86G_RBX,
  X86G_R11,
  X86G_R10,
  X86G_R9,
  X86G_R8,
  X86G_RAX,
  X86G_RCX,
  X86G_RDX,
  X86G_RSI,
  X86G_RDI,
  X86G_ORIG_RAX,
  X86G_RIP,
  X86G_CS,
  X86G_EFLAGS,
  X86G_RSP,
  X86G_SS,
  X86G_FS_BASE,
  X86G_GS_BASE,
  X86G_DS,
  X86G_ES,
  X86G_FS,
  X86G_GS,
  X86G_NREGS
};

/* rflags bits */
#define X86_FLAG_CF 0x1ull
#define X86_FLAG_ZF 0x40ull
#define X86_FLAG_SF 0x80ull
#define X86_FLAG_TF 0x100ull
#define X86_FLAG_OF 0x800ull

#endif
