/* The arch shim for AArch64 (host/arch/arch.h).
 *
 * Registers are NT_PRSTATUS's struct user_pt_regs: x0-x30, sp, pc, pstate.
 * The ABI's gpr[32] holds x0-x30 and sp (gpr[31]); pc is ip, pstate flags,
 * x29 the frame pointer, x0 the return value. `brk #0` stops the thread
 * AT the instruction (pc is not advanced) with TRAP_BRKPT. A system call is
 * `svc #0` with its number in x8, arguments in x0-x5 and its result in x0;
 * the kernel's view of the current call number (what a restart would
 * re-run) is the NT_ARM_SYSTEM_CALL regset, set to -1 for an injected call
 * so a stop inside an interrupted call does not rewind it. */
#include "host/arch/arch.h"
#include "common/arch_insn.h"
#include "host/arch/regs_aarch64.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#ifndef TRAP_BRKPT
#define TRAP_BRKPT 1 /* <asm-generic/siginfo.h>: a process breakpoint */
#endif
#include <string.h>
#include <asm/ptrace.h>

_Static_assert(sizeof(struct user_pt_regs) <= sizeof(struct arch_regs),
               "struct arch_regs holds user_pt_regs");

const char arch_name[] = "aarch64";
const uint8_t arch_break_insn[] = ARCH_BREAK_INSN;
const size_t arch_break_len = ARCH_BREAK_LEN;
const uint8_t arch_syscall_insn[] = ARCH_SYSCALL_INSN;
const size_t arch_insn_align = ARCH_INSN_ALIGN;
const size_t arch_syscall_len = ARCH_SYSCALL_LEN;
const int arch_break_si_code = TRAP_BRKPT;

static struct user_pt_regs *U(struct arch_regs *r) { return (struct user_pt_regs *)r->w; }
static const struct user_pt_regs *CU(const struct arch_regs *r) {
  return (const struct user_pt_regs *)r->w;
}

const size_t arch_gregs_size = sizeof(struct user_pt_regs);

uint64_t arch_ip(const struct arch_regs *r) { return CU(r)->pc; }
void arch_set_ip(struct arch_regs *r, uint64_t ip) { U(r)->pc = ip; }
uint64_t arch_sp(const struct arch_regs *r) { return CU(r)->sp; }

/* PSTATE.SS is the kernel's, never shown in the user regs. */
int arch_own_trap_flag(const struct arch_regs *r) {
  (void)r;
  return 0;
}
void arch_clear_trap_flag(struct arch_regs *r) { (void)r; }

/* Nothing on AArch64 stores or loads PSTATE.SS: every step is the kernel's. */
int arch_flag_pop(const uint8_t *bytes, size_t n, int *width, size_t *len) {
  (void)bytes, (void)n, (void)width, (void)len;
  return 0;
}
int arch_apply_flag_pop(struct arch_regs *r, uint64_t word, int width, size_t len) {
  (void)r, (void)word, (void)width, (void)len;
  return 0;
}

void arch_export(const struct arch_regs *r, struct asmspy_regs *out) {
  const struct user_pt_regs *u = CU(r);
  out->ip = u->pc;
  out->sp = u->sp;
  out->fp = u->regs[29];
  out->flags = u->pstate;
  out->retval = u->regs[0];
  memcpy(out->gpr, u->regs, 31 * sizeof(uint64_t));
  out->gpr[31] = u->sp;
  out->ngpr = 32;
}

uint64_t arch_break_addr(uint64_t pc) { return pc - ARCH_BREAK_REWIND; } /* brk: its own address */

void arch_syscall_setup(struct arch_regs *r, uint64_t insn, long nr, const uint64_t args[6]) {
  struct user_pt_regs *u = U(r);
  u->pc = insn;
  u->regs[8] = (uint64_t)nr;
  for (int i = 0; i < 6; i++) u->regs[i] = args[i];
}

int arch_syscall_norestart(uint32_t *nt, void *buf, size_t *len) {
  int no = -1; /* the kernel's "no system call": nothing to restart */
  if (*len < sizeof no) return 0;
  memcpy(buf, &no, sizeof no);
  *nt = NT_ARM_SYSTEM_CALL;
  *len = sizeof no;
  return 1;
}

int64_t arch_syscall_result(const struct arch_regs *r) { return (int64_t)CU(r)->regs[0]; }

void arch_syscall_regs(const struct arch_regs *r, int *entry_hint, int64_t *nr, uint64_t args[6],
                       int64_t *rval) {
  const struct user_pt_regs *u = CU(r);
  *entry_hint = 0; /* x0 is the first argument at entry: nothing marks it */
  *nr = (int64_t)u->regs[8];
  for (int i = 0; i < 6; i++) args[i] = u->regs[i];
  *rval = (int64_t)u->regs[0];
}

/* ------------------------- host->arch (1.12) ---------------------------- */

static const char *const reg_names[A64G_NREGS] = {
    "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",   "x9",  "x10", "x11",
    "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",  "x21", "x22", "x23",
    "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",  "nzcv", "pc"};

static const char *const reg_meanings[A64G_NREGS] = {
    "x0",
    "x1",
    "x2",
    "x3",
    "x4",
    "x5",
    "x6",
    "x7",
    "x8",
    "x9",
    "x10",
    "x11",
    "x12",
    "x13",
    "x14",
    "x15",
    "x16",
    "x17",
    "x18",
    "x19",
    "x20",
    "x21",
    "x22",
    "x23",
    "x24",
    "x25",
    "x26",
    "x27",
    "x28",
    "x29 (frame pointer)",
    "x30 (link register)",
    "sp",
    "nzcv (PSTATE: the condition flags in bits 31-28)",
    "pc (the step's address)"};

/* gdb's `info registers` order: x0-x30, sp, pc, cpsr */
static const uint8_t reg_order[A64G_NREGS] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,      15,      16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, A64G_SP, A64G_PC, A64G_NZCV};

const struct asmspy_arch arch_info = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_arch),
    .name = arch_name,
    .nregs = A64G_NREGS,
    .ngpr = A64G_NGPR,
    .reg_ip = A64G_PC,
    .reg_sp = A64G_SP,
    .reg_fp = A64G_FP,
    .reg_ret = A64G_X0,
    .reg_flags = A64G_NZCV,
    .reg_link = A64G_LR,
    .call_push = 0,
    .insn_align = ARCH_INSN_ALIGN,
    /* AAPCS64: x0-x7 */
    .nargs = 8,
    .args = {0, 1, 2, 3, 4, 5, 6, 7},
    /* caller-saved (x0-x18: x16/x17 the linker's, x18 the platform's, not
     * reserved on Linux), the link register, the flags; sp is callee-kept */
    .nclobber = 21,
    .clobber = {0,  1,  2,  3,  4,  5,  6,  7,  8,       9,        10,
                11, 12, 13, 14, 15, 16, 17, 18, A64G_LR, A64G_NZCV},
    .reg_names = reg_names,
    .reg_meanings = reg_meanings,
    .reg_order = reg_order,
    .flag_carry = A64_FLAG_C,
    .flag_zero = A64_FLAG_Z,
    .flag_sign = A64_FLAG_N,
    .flag_overflow = A64_FLAG_V,
    .flag_trap = 0, /* PSTATE.SS is the kernel's */
    .syscall_regset = NT_ARM_SYSTEM_CALL,
};
