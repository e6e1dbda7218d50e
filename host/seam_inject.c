/* Part of the ptrace seam: running one system call inside a stopped tracee
 * (gdb's `call`, strace's nothing: strace never needs it). The seam uses it
 * for one job only: keeping the target's own SIGTRAP handler alive.
 *
 * Why it is needed: when a thread executes a trap (our int3, a debug-register
 * hit) while it has SIGTRAP blocked — it is running inside the target's own
 * SIGTRAP handler — the kernel's force_sig_info() resets the SIGTRAP action
 * to SIG_DFL and unblocks SIGTRAP before the tracer even sees the stop.
 * Swallowing the trap is then not enough: the target's next int3 of its own
 * kills it. ptrace can put the mask back (PTRACE_SETSIGMASK) but has no call
 * for another process's sigaction, so the seam reads the action once at
 * attach (rt_sigaction(SIGTRAP, NULL, &old) in the tracee) and, after such a
 * trap, writes it back (rt_sigaction(SIGTRAP, &old, NULL)).
 *
 * How: save the registers, point rip at a `syscall` instruction that already
 * exists in an executable mapping of the target (never patch code: other
 * threads are running), load the syscall number and arguments, single-step
 * that one instruction, read rax, restore the registers. The stack below
 * the red zone is the scratch memory for the struct. Only this thread is
 * waited for (waitpid(tid)); a signal that arrives meanwhile is kept and
 * owed to the thread. */
#define _GNU_SOURCE
#include "host/host.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#if defined(__x86_64__)

/* Scan the target's executable mappings for the bytes 0f 05 (`syscall`);
 * the vdso first (it is small and always has one), then the rest, with a
 * read budget so a huge JIT heap is never walked. 0 when none is found. */
uint64_t seam_find_syscall_insn(struct asmspy_target *tg, pid_t pid) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  uint64_t found = 0;
  size_t budget = 4u << 20;
  for (int pass = 0; pass < 2 && !found; pass++) {
    rewind(f);
    while (!found && budget > 0 && fgets(line, sizeof line, f)) {
      unsigned long long lo, hi;
      char perms[8] = "";
      if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[2] != 'x') continue;
      int is_vdso = strstr(line, "[vdso]") != NULL;
      if ((pass == 0) != is_vdso) continue;
      uint8_t buf[4096];
      for (uint64_t a = lo; a < hi && budget > 0 && !found; a += sizeof buf - 1) {
        size_t want = hi - a < sizeof buf ? (size_t)(hi - a) : sizeof buf;
        ssize_t n = target_read_mem(tg, a, buf, want);
        if (n < 2) break;
        budget = budget > (size_t)n ? budget - (size_t)n : 0;
        for (ssize_t i = 0; i + 1 < n; i++)
          if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
            found = a + (uint64_t)i;
            break;
          }
      }
    }
  }
  fclose(f);
  return found;
}

/* Run syscall nr(args) in the stopped thread tid; *ret gets rax. Returns 0,
 * or -errno when the thread could not be driven (it is then left with its
 * registers restored where possible). *owed_sig receives a signal that
 * arrived during the injection (0 if none): the caller delivers it later. */
int seam_inject_syscall(pid_t tid, uint64_t syscall_insn, long nr, const uint64_t args[6],
                        int64_t *ret, int *owed_sig) {
  struct user_regs_struct saved, r;
  *owed_sig = 0;
  if (!syscall_insn) return -ENOENT;
  if (ptrace(PTRACE_GETREGS, tid, 0, &saved) != 0) return -errno;
  r = saved;
  r.rip = syscall_insn;
  r.rax = (unsigned long long)nr;
  r.orig_rax = (unsigned long long)-1; /* no syscall restart logic on our regs */
  r.rdi = args[0];
  r.rsi = args[1];
  r.rdx = args[2];
  r.r10 = args[3];
  r.r8 = args[4];
  r.r9 = args[5];
  if (ptrace(PTRACE_SETREGS, tid, 0, &r) != 0) return -errno;
  int rc = -EIO;
  for (int tries = 0; tries < 16; tries++) {
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) != 0) {
      rc = -errno;
      break;
    }
    int status;
    pid_t w;
    while ((w = waitpid(tid, &status, __WALL)) < 0 && errno == EINTR) {
    }
    if (w != tid) {
      rc = -ECHILD;
      break;
    }
    if (!WIFSTOPPED(status)) return -ESRCH; /* it died: nothing to restore */
    int sig = WSTOPSIG(status);
    if (sig == SIGTRAP && !(status >> 16)) {
      struct user_regs_struct now;
      if (ptrace(PTRACE_GETREGS, tid, 0, &now) != 0) {
        rc = -errno;
        break;
      }
      if (now.rip != syscall_insn) { /* the syscall ran */
        *ret = (int64_t)now.rax;
        rc = 0;
        break;
      }
      continue;
    }
    /* a signal (or an event) came before the instruction ran: keep the
     * signal for later, step again */
    if (!(status >> 16) && sig != SIGTRAP && sig != SIGSTOP) *owed_sig = sig;
  }
  if (ptrace(PTRACE_SETREGS, tid, 0, &saved) != 0 && rc == 0) rc = -errno;
  return rc;
}

/* Scratch memory for a struct the injected call reads or writes: under the
 * red zone of the thread's stack, 16-byte aligned. */
static uint64_t scratch_below_sp(pid_t tid) {
  struct user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, tid, 0, &r) != 0) return 0;
  return (r.rsp - 1024) & ~(uint64_t)15;
}

int seam_read_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                        struct seam_ksigaction *out, int *owed_sig) {
  uint64_t mem = scratch_below_sp(tid);
  if (!mem) return -EIO;
  uint64_t args[6] = {(uint64_t)sig, 0, mem, 8, 0, 0};
  int64_t ret = -1;
  int rc = seam_inject_syscall(tid, syscall_insn, SYS_rt_sigaction, args, &ret, owed_sig);
  if (rc) return rc;
  if (ret != 0) return (int)ret;
  return target_read_mem(tg, mem, out, sizeof *out) == (ssize_t)sizeof *out ? 0 : -EIO;
}

int seam_write_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                         const struct seam_ksigaction *act, int *owed_sig) {
  uint64_t mem = scratch_below_sp(tid);
  if (!mem) return -EIO;
  if (target_write_mem(tg, mem, act, sizeof *act) != (ssize_t)sizeof *act) return -EIO;
  uint64_t args[6] = {(uint64_t)sig, mem, 0, 8, 0, 0};
  int64_t ret = -1;
  int rc = seam_inject_syscall(tid, syscall_insn, SYS_rt_sigaction, args, &ret, owed_sig);
  if (rc) return rc;
  return (int)ret;
}

#else /* not x86-64: no injection yet; the guard stays off */

uint64_t seam_find_syscall_insn(struct asmspy_target *tg, pid_t pid) {
  (void)tg;
  (void)pid;
  return 0;
}
int seam_inject_syscall(pid_t tid, uint64_t syscall_insn, long nr, const uint64_t args[6],
                        int64_t *ret, int *owed_sig) {
  (void)tid, (void)syscall_insn, (void)nr, (void)args, (void)ret;
  *owed_sig = 0;
  return -ENOSYS;
}
int seam_read_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                        struct seam_ksigaction *out, int *owed_sig) {
  (void)tg, (void)tid, (void)syscall_insn, (void)sig, (void)out;
  *owed_sig = 0;
  return -ENOSYS;
}
int seam_write_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                         const struct seam_ksigaction *act, int *owed_sig) {
  (void)tg, (void)tid, (void)syscall_insn, (void)sig, (void)act;
  *owed_sig = 0;
  return -ENOSYS;
}
#endif
