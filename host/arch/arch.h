/* host/arch: what differs between the architectures asmspy runs on, behind
 * one interface (one file per arch, chosen by meson: arch_x86_64.c,
 * arch_aarch64.c). The ptrace seam, the symbol and disassembly services and
 * the views ask this shim; nothing else in the host names a register.
 *
 *   registers     the layout of a thread's general registers (the
 *                 NT_PRSTATUS regset: x86-64 user_regs_struct, AArch64
 *                 user_pt_regs), exported to the ABI's struct asmspy_regs
 *                 (gpr[] in the kernel's order). The shim never calls
 *                 ptrace: the seam (host/ptrace_seam.c) reads and writes the
 *                 regsets, the shim says what the bytes mean;
 *   breakpoints   the trap instruction asmspy plants (x86-64 `int3`, one
 *                 byte 0xcc, reported one byte past it; AArch64 `brk #0`,
 *                 four bytes, reported at it) and the si_code it raises;
 *   system calls  the instruction (`syscall` / `svc #0`), where its number,
 *                 arguments and result live, and how an injected one is set
 *                 up so the kernel's restart logic leaves it alone. */
#ifndef ASMSPY_HOST_ARCH_H
#define ASMSPY_HOST_ARCH_H

#include <asmspy/plugin.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One thread's registers in the kernel's own layout (big enough for every
 * supported arch: x86-64 has 27 words, AArch64 34). */
struct arch_regs {
  uint64_t w[40];
};

extern const char arch_name[]; /* "x86_64", "aarch64" */
/* The register identities, flag bits and calling convention plugins see
 * as host->arch (ABI 1.12): every register id a view names comes from
 * here (regs_x86_64.h, regs_aarch64.h hold the ids themselves). */
extern const struct asmspy_arch arch_info;
extern const uint8_t arch_break_insn[]; /* the trap asmspy plants */
extern const size_t arch_break_len;
extern const uint8_t arch_syscall_insn[]; /* the system call instruction */
extern const size_t arch_syscall_len;
extern const size_t arch_insn_align; /* where instructions start */
extern const int arch_break_si_code; /* the si_code of a planted trap */

extern const size_t arch_gregs_size; /* bytes of the NT_PRSTATUS regset */
uint64_t arch_ip(const struct arch_regs *r);
void arch_set_ip(struct arch_regs *r, uint64_t ip);
uint64_t arch_sp(const struct arch_regs *r);
/* The ABI view of r (ip, sp, fp, flags, retval, gpr[] and ngpr). */
void arch_export(const struct arch_regs *r, struct asmspy_regs *out);

/* Where a planted trap that stopped the thread at pc was planted. */
uint64_t arch_break_addr(uint64_t pc);

/* An injected system call: point r at insn with number nr and args. The
 * kernel must also be told it is no interrupted call to restart: x86-64's
 * orig_rax = -1 is in r itself; AArch64's is the NT_ARM_SYSTEM_CALL
 * regset, which arch_syscall_norestart describes (1 = the seam writes
 * *len bytes of buf as regset *nt; 0 = nothing more to write). */
void arch_syscall_setup(struct arch_regs *r, uint64_t insn, long nr, const uint64_t args[6]);
int arch_syscall_norestart(uint32_t *nt, void *buf, size_t *len);
int64_t arch_syscall_result(const struct arch_regs *r);

/* The trap flag as PTRACE_GETREGS shows it: set only when the kernel
 * counts it as the program's (a flag ptrace forced is hidden), and how to
 * clear it (0 / nothing on arm64: PSTATE.SS is not in the user regs). */
int arch_own_trap_flag(const struct arch_regs *r);
void arch_clear_trap_flag(struct arch_regs *r);

/* An instruction the seam emulates instead of stepping (see the seam's
 * emulate_step): x86-64's popf. arch_flag_pop: 1 when bytes[n] start with
 * one, with the bytes it pops (*width) and its length (*len).
 * arch_apply_flag_pop: pop `word` into r as the CPU would in user mode
 * (flags, sp, ip); 0 when ptrace cannot do it faithfully (the word sets
 * the trap flag itself, or changes the ID flag, which ptrace cannot
 * write): then it is stepped. AArch64: never. */
int arch_flag_pop(const uint8_t *bytes, size_t n, int *width, size_t *len);
int arch_apply_flag_pop(struct arch_regs *r, uint64_t word, int width, size_t len);

/* The classic entry/exit toggle (kernels without PTRACE_GET_SYSCALL_INFO):
 * *entry_hint = 1 when the registers themselves prove an entry stop
 * (x86-64's rax = -ENOSYS), the number, arguments and result. */
void arch_syscall_regs(const struct arch_regs *r, int *entry_hint, int64_t *nr, uint64_t args[6],
                       int64_t *rval);

#endif
