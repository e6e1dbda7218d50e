/* common/arch_insn.h — the instructions asmspy itself plants or looks for,
 * and the address-space facts it judges samples by, per architecture, for the host's arch shim (host/arch/) and the plugins
 * that plant breakpoints through host->write_mem (plugins/singlestep
 * region.c): one definition for both sides.
 *
 *   ARCH_BREAK_INSN / _LEN   the trap asmspy plants (x86-64 int3; AArch64
 *                            brk #0)
 *   ARCH_BREAK_REWIND        how far past the trap the thread stops (int3
 *                            reports the next byte; brk its own address)
 *   ARCH_SYSCALL_INSN / _LEN the system call instruction (syscall; svc #0)
 *   ARCH_INSN_ALIGN          instruction alignment (1; 4)
 *   ARCH_LINK_GPR            where a call leaves its return address: -1 = pushed
 *                            at the new sp (x86-64 `call`); else the index in
 *                            asmspy_regs.gpr of the link register (AArch64 `bl`:
 *                            x30), the stack untouched
 *   ARCH_USER_VA_END         the end of the user half of the address space
 *                            (x86-64: 47 bits; AArch64: up to 52 bits, the
 *                            kernel's addresses start at 0xfff0...) */
#ifndef ASMSPY_COMMON_ARCH_INSN_H
#define ASMSPY_COMMON_ARCH_INSN_H

#if defined(__x86_64__)
#define ARCH_BREAK_INSN                                                                            \
  { 0xcc }
#define ARCH_BREAK_LEN 1
#define ARCH_BREAK_REWIND 1
#define ARCH_SYSCALL_INSN                                                                          \
  { 0x0f, 0x05 }
#define ARCH_SYSCALL_LEN 2
#define ARCH_INSN_ALIGN 1
#define ARCH_LINK_GPR (-1)
#define ARCH_USER_VA_END 0x800000000000ull
#elif defined(__aarch64__)
#define ARCH_BREAK_INSN                                                                            \
  { 0x00, 0x00, 0x20, 0xd4 }
#define ARCH_BREAK_LEN 4
#define ARCH_BREAK_REWIND 0
#define ARCH_SYSCALL_INSN                                                                          \
  { 0x01, 0x00, 0x00, 0xd4 }
#define ARCH_SYSCALL_LEN 4
#define ARCH_INSN_ALIGN 4
#define ARCH_LINK_GPR 30
#define ARCH_USER_VA_END (1ull << 52)
#else
#error "asmspy supports x86-64 and AArch64"
#endif

#endif
