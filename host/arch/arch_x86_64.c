/* The arch shim for x86-64 (host/arch/arch.h). */
#include "host/arch/arch.h"
#include "common/arch_insn.h"
#include "host/arch/regs_x86_64.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/user.h>

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(struct arch_regs),
               "struct arch_regs holds user_regs_struct");

const char arch_name[] = "x86_64";
const uint8_t arch_break_insn[] = ARCH_BREAK_INSN;
const size_t arch_break_len = ARCH_BREAK_LEN;
const uint8_t arch_syscall_insn[] = ARCH_SYSCALL_INSN;
const size_t arch_insn_align = ARCH_INSN_ALIGN;
const size_t arch_syscall_len = ARCH_SYSCALL_LEN;
const int arch_break_si_code = SI_KERNEL; /* int3 raises SIGTRAP/SI_KERNEL */

static struct user_regs_struct *U(struct arch_regs *r) { return (struct user_regs_struct *)r->w; }
static const struct user_regs_struct *CU(const struct arch_regs *r) {
  return (const struct user_regs_struct *)r->w;
}

const size_t arch_gregs_size = sizeof(struct user_regs_struct);

uint64_t arch_ip(const struct arch_regs *r) { return CU(r)->rip; }
void arch_set_ip(struct arch_regs *r, uint64_t ip) { U(r)->rip = ip; }
uint64_t arch_sp(const struct arch_regs *r) { return CU(r)->rsp; }

/* PTRACE_GETREGS hides a trap flag ptrace forced (TIF_FORCED_TF): what
 * is left is the program's own. */
int arch_own_trap_flag(const struct arch_regs *r) { return (CU(r)->eflags & X86_FLAG_TF) != 0; }
void arch_clear_trap_flag(struct arch_regs *r) { U(r)->eflags &= ~X86_FLAG_TF; }

/* popf (9d), popfw (66 9d), with any REX prefix (the operand is 64-bit in
 * long mode either way). */
int arch_flag_pop(const uint8_t *bytes, size_t n, int *width, size_t *len) {
  int w = 8;
  for (size_t i = 0; i < n && i < 4; i++) {
    if (bytes[i] == 0x66) {
      w = 2;
      continue;
    }
    if ((bytes[i] & 0xf0) == 0x40) continue;
    if (bytes[i] != 0x9d) return 0;
    *width = w;
    *len = i + 1;
    return 1;
  }
  return 0;
}

int arch_apply_flag_pop(struct arch_regs *r, uint64_t word, int width, size_t len) {
  /* what popf may change at CPL 3 with IOPL 0: CF PF AF ZF SF TF DF OF NT
   * AC ID (IF and IOPL are silently kept, RF is cleared) */
  const uint64_t TF = 0x100, ID = 0x200000;
  uint64_t m = 0x1 | 0x4 | 0x10 | 0x40 | 0x80 | TF | 0x400 | 0x800 | 0x4000 | 0x40000 | ID;
  if (width == 2) m &= 0xffff, word &= 0xffff;
  struct user_regs_struct *u = U(r);
  if ((word & TF) || ((word ^ u->eflags) & m & ID)) return 0;
  u->eflags = ((u->eflags & ~m) | (word & m)) & ~(uint64_t)0x10000; /* RF */
  u->rsp += (uint64_t)width;
  u->rip += len;
  return 1;
}

void arch_export(const struct arch_regs *r, struct asmspy_regs *out) {
  const struct user_regs_struct *u = CU(r);
  out->ip = u->rip;
  out->sp = u->rsp;
  out->fp = u->rbp;
  out->flags = u->eflags;
  out->retval = u->rax;
  size_t n = sizeof *u / sizeof(uint64_t); /* gpr[] = user_regs_struct order */
  if (n > 32) n = 32;
  memcpy(out->gpr, r->w, n * sizeof(uint64_t));
  out->ngpr = (uint32_t)n;
}

uint64_t arch_break_addr(uint64_t pc) { return pc - ARCH_BREAK_REWIND; } /* int3: the next byte */

void arch_syscall_setup(struct arch_regs *r, uint64_t insn, long nr, const uint64_t args[6]) {
  struct user_regs_struct *u = U(r);
  u->rip = insn;
  u->rax = (unsigned long long)nr;
  u->orig_rax = (unsigned long long)-1; /* no syscall restart logic on our regs */
  u->rdi = args[0];
  u->rsi = args[1];
  u->rdx = args[2];
  u->r10 = args[3];
  u->r8 = args[4];
  u->r9 = args[5];
}

int arch_syscall_norestart(uint32_t *nt, void *buf, size_t *len) {
  (void)nt, (void)buf, (void)len; /* orig_rax = -1 in the registers does it */
  return 0;
}

int64_t arch_syscall_result(const struct arch_regs *r) { return (int64_t)CU(r)->rax; }

void arch_syscall_regs(const struct arch_regs *r, int *entry_hint, int64_t *nr, uint64_t args[6],
                       int64_t *rval) {
  const struct user_regs_struct *u = CU(r);
  /* the kernel presets rax = -ENOSYS at an entry stop */
  *entry_hint = (int64_t)u->rax == -ENOSYS;
  *nr = (int64_t)u->orig_rax;
  uint64_t a[6] = {u->rdi, u->rsi, u->rdx, u->r10, u->r8, u->r9};
  memcpy(args, a, sizeof a);
  *rval = (int64_t)u->rax;
}

/* ------------------------- host->arch (1.12) ---------------------------- */

static const char *const reg_names[X86G_NREGS] = {
    "r15",    "r14", "r13", "r12",     "rbp",     "rbx", "r11",      "r10", "r9",
    "r8",     "rax", "rcx", "rdx",     "rsi",     "rdi", "orig_rax", "rip", "cs",
    "rflags", "rsp", "ss",  "fs_base", "gs_base", "ds",  "es",       "fs",  "gs"};

static const char *const reg_meanings[X86G_NREGS] = {
    "r15",
    "r14",
    "r13",
    "r12",
    "rbp",
    "rbx",
    "r11",
    "r10",
    "r9",
    "r8",
    "rax",
    "rcx",
    "rdx",
    "rsi",
    "rdi",
    "orig_rax (the syscall number of an interrupted syscall, else -1)",
    "rip (the step's address)",
    "cs selector",
    "rflags",
    "rsp",
    "ss selector",
    "fs base (thread pointer)",
    "gs base",
    "ds selector",
    "es selector",
    "fs selector",
    "gs selector"};

/* gdb's `info registers` order */
static const uint8_t reg_order[X86G_NREGS] = {
    X86G_RAX, X86G_RBX, X86G_RCX, X86G_RDX,     X86G_RSI,     X86G_RDI,     X86G_RBP,
    X86G_RSP, X86G_R8,  X86G_R9,  X86G_R10,     X86G_R11,     X86G_R12,     X86G_R13,
    X86G_R14, X86G_R15, X86G_RIP, X86G_EFLAGS,  X86G_CS,      X86G_SS,      X86G_DS,
    X86G_ES,  X86G_FS,  X86G_GS,  X86G_FS_BASE, X86G_GS_BASE, X86G_ORIG_RAX};

const struct asmspy_arch arch_info = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_arch),
    .name = arch_name,
    .nregs = X86G_NREGS,
    .ngpr = X86G_NREGS,
    .reg_ip = X86G_RIP,
    .reg_sp = X86G_RSP,
    .reg_fp = X86G_RBP,
    .reg_ret = X86G_RAX,
    .reg_flags = X86G_EFLAGS,
    .reg_link = -1,
    .call_push = 8,
    .insn_align = ARCH_INSN_ALIGN,
    /* SysV AMD64: rdi rsi rdx rcx r8 r9 */
    .nargs = 6,
    .args = {X86G_RDI, X86G_RSI, X86G_RDX, X86G_RCX, X86G_R8, X86G_R9},
    /* caller-saved + the return registers, the stack pointer, the flags */
    .nclobber = 11,
    .clobber = {X86G_RAX, X86G_RDX, X86G_RCX, X86G_RSI, X86G_RDI, X86G_R8, X86G_R9, X86G_R10,
                X86G_R11, X86G_RSP, X86G_EFLAGS},
    .reg_names = reg_names,
    .reg_meanings = reg_meanings,
    .reg_order = reg_order,
    .flag_carry = X86_FLAG_CF,
    .flag_zero = X86_FLAG_ZF,
    .flag_sign = X86_FLAG_SF,
    .flag_overflow = X86_FLAG_OF,
    .flag_trap = X86_FLAG_TF,
    .syscall_regset = 0, /* orig_rax */
};
