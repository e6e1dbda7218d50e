/* hwwatch functional probe, x86-64.
 *
 * Arming a watchpoint is not proof that it works (in some KVM guests
 * PTRACE_POKEUSER of DR0/DR7 is accepted but the hit never fires). The probe
 * forks a child that stops itself under PTRACE_TRACEME, arms a 4-byte write
 * watchpoint on a static variable of this module (the same address in the
 * child, since it is a fork), lets the child write it a few times and counts
 * the SIGTRAP stops with si_code TRAP_HWBKPT / DR6.B0. No child outlives the
 * probe: it is reaped on every path, and PTRACE_O_EXITKILL plus
 * PR_SET_PDEATHSIG cover a probe that dies itself.
 *
 * Kernel ABI (arch/x86/kernel/ptrace.c): POKEUSER of
 * offsetof(struct user, u_debugreg[i]); DR7 is validated by registering a
 * perf hw_breakpoint (ptrace_write_dr7) and a failure returns its errno; a
 * data hit is a trap (stop after the writing instruction) with SIGTRAP,
 * si_code TRAP_HWBKPT, and DR6 bit i set (sticky: clear it after each hit).
 * The bit layouts are x86_dr.c's, shared with the capture.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"
#include "plugins/hwwatch/hwwatch.h"

#if defined(__x86_64__)
#include <sys/ptrace.h>
#include <sys/user.h>

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT HW_TRAP_HWBKPT
#endif

#define HW_WRITES 4
#define HW_TIMEOUT_MS 3000
#define HW_POLL_US 100
#define HW_MAX_STOPS 64

#define HW_DR_OFF(i) ((size_t)hw_x86_dr_offset(i))

/* The watched variable: the child writes it, the parent watches its address. */
static volatile uint32_t hw_probe_var __attribute__((aligned(8)));

/* Runs in the forked child (already tied to the parent by pp_fork_piped). */
__attribute__((noreturn)) static void hw_child(int errfd)
{
  if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
    int e = errno;
    if (write(errfd, &e, sizeof e) < 0) {
    }
    _exit(126);
  }
  close(errfd);
  raise(SIGSTOP);
  for (uint32_t i = 0; i < HW_WRITES; i++)
    hw_probe_var = i + 1;
  _exit(0);
}

static int hw_poke_status(int e)
{
  switch (e) {
  case EPERM:
  case EACCES:
    return ASMSPY_E_PERM;
  case ENOSPC:
  case EBUSY:
    return ASMSPY_E_ATTACH_BUSY;
  default: /* EINVAL, EIO, ENODEV: the kernel refuses this debug-register setup */
    return ASMSPY_E_NO_KERNEL;
  }
}

int hw_probe_impl(struct asmspy_probe_result *res)
{
  int p[2];
  const char *step = "fork";
  pid_t pid = pp_fork_piped(p, 125, &step);
  if (pid < 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -pid, 0, "hwwatch probe: %s: %s", step,
                      pp_errno_name(-pid));
  if (pid == 0) {
    close(p[0]);
    hw_child(p[1]);
  }
  close(p[1]);

  int64_t deadline = pp_now_ms() + HW_TIMEOUT_MS;
  int st = 0;
  int rc = pp_waitpid_until(pid, &st, deadline, HW_POLL_US);
  if (rc < 0) {
    close(p[0]);
    pp_kill_reap(pid);
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                      "hwwatch probe: child never reached its self-stop: %s", pp_errno_name(-rc));
  }
  if (WIFEXITED(st) || WIFSIGNALED(st)) {
    int e = 0;
    ssize_t n = read(p[0], &e, sizeof e);
    close(p[0]);
    if (n == (ssize_t)sizeof e && e != 0)
      return pp_verdict(res, e == EPERM ? ASMSPY_E_PERM : ASMSPY_E_INTERNAL, e, 0,
                        "PTRACE_TRACEME in the probe child: %s (ptrace forbidden here: Yama "
                        "ptrace_scope=3, seccomp or an LSM)",
                        pp_errno_name(e));
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child ended before its self-stop (%s %d)",
                      WIFEXITED(st) ? "exit" : "signal",
                      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  }
  close(p[0]);
  if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
    pp_kill_reap(pid);
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child stopped with signal %d instead of SIGSTOP",
                      WIFSTOPPED(st) ? WSTOPSIG(st) : -1);
  }
  (void)ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(uintptr_t)PTRACE_O_EXITKILL);

  /* Arm: address first, then DR7 (the kernel validates DR7 against it). */
  uintptr_t addr = (uintptr_t)&hw_probe_var;
  int bad = 0; /* slot 0, 4-byte write watchpoint: 0xd0001 */
  unsigned long dr7 = (unsigned long)hw_x86_dr7_arm(0, 0, HW_X86_RW_WRITE, 4, &bad);
  if (ptrace(PTRACE_POKEUSER, pid, (void *)HW_DR_OFF(0), (void *)addr) < 0) {
    int e = errno;
    pp_kill_reap(pid);
    return pp_verdict(res, hw_poke_status(e), e, 0,
                      "PTRACE_POKEUSER DR0 (user offset %zu) = %#lx: %s", HW_DR_OFF(0),
                      (unsigned long)addr, pp_errno_name(e));
  }
  if (ptrace(PTRACE_POKEUSER, pid, (void *)HW_DR_OFF(7), (void *)dr7) < 0) {
    int e = errno;
    pp_kill_reap(pid);
    return pp_verdict(res, hw_poke_status(e), e, 0,
                      "PTRACE_POKEUSER DR7 (user offset %zu) = %#lx with DR0=%#lx: %s (the "
                      "kernel refused the hw_breakpoint)",
                      HW_DR_OFF(7), dr7, (unsigned long)addr, pp_errno_name(e));
  }
  errno = 0;
  long back = ptrace(PTRACE_PEEKUSER, pid, (void *)HW_DR_OFF(7), NULL);
  int back_err = errno;

  /* Fire: let the child write, count the watchpoint traps. */
  int hits_code = 0, hits_dr6 = 0, traps = 0, stops = 0, exit_code = -1, term_sig = 0;
  int sig = 0;
  for (;;) {
    if (ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)sig) < 0) {
      int e = errno;
      pp_kill_reap(pid);
      return pp_verdict(res, ASMSPY_E_INTERNAL, e, 0, "hwwatch probe: PTRACE_CONT: %s",
                        pp_errno_name(e));
    }
    sig = 0;
    rc = pp_waitpid_until(pid, &st, deadline, HW_POLL_US);
    if (rc < 0) {
      pp_kill_reap(pid);
      return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                        "hwwatch probe: the watched child did not finish: %s (%d traps so far)",
                        pp_errno_name(-rc), traps);
    }
    if (WIFEXITED(st)) {
      exit_code = WEXITSTATUS(st);
      break;
    }
    if (WIFSIGNALED(st)) {
      term_sig = WTERMSIG(st);
      break;
    }
    if (!WIFSTOPPED(st))
      continue;
    if (++stops > HW_MAX_STOPS) {
      pp_kill_reap(pid);
      return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                        "hwwatch probe: more than %d stops for %d writes: trap storm",
                        HW_MAX_STOPS, HW_WRITES);
    }
    if (WSTOPSIG(st) != SIGTRAP) {
      sig = WSTOPSIG(st); /* not ours: deliver it */
      continue;
    }
    traps++;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int is_hw = ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 && si.si_code == TRAP_HWBKPT;
    errno = 0;
    long dr6 = ptrace(PTRACE_PEEKUSER, pid, (void *)HW_DR_OFF(6), NULL);
    int b0 = errno == 0 && (hw_x86_dr6_fired((uint64_t)dr6) & 1u);
    (void)ptrace(PTRACE_POKEUSER, pid, (void *)HW_DR_OFF(6), (void *)0ul); /* DR6 is sticky */
    hits_code += is_hw;
    hits_dr6 += b0;
  }
  /* The child is reaped (exited or signalled) here. */

  int hits = hits_code > hits_dr6 ? hits_code : hits_dr6;
  if (term_sig)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child died on signal %d after %d watchpoint hits", term_sig,
                      hits);
  if (exit_code != 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child exited %d after %d watchpoint hits", exit_code, hits);
  char backtxt[48];
  if (back_err)
    snprintf(backtxt, sizeof backtxt, "read back: %s", pp_errno_name(back_err));
  else
    snprintf(backtxt, sizeof backtxt, "read back %#lx", (unsigned long)back);
  if (hits > 0) {
    return pp_verdict(res, ASMSPY_USABLE, 0, HW_CAPS,
                        "4-byte write watchpoint fired %d/%d writes (si_code TRAP_HWBKPT %d, "
                        "DR6.B0 %d) via PTRACE_POKEUSER DR0=%#lx DR7=%#lx",
                        hits, HW_WRITES, hits_code, hits_dr6, (unsigned long)addr, dr7);
  }
  int hv = pp_cpu_has_flag("hypervisor") == 1;
  return pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                    "debug registers accept DR7=%#lx (DR0=%#lx, %s) but the write watchpoint "
                    "never fired (0 hits over %d writes, %d SIGTRAPs): %s",
                    dr7, (unsigned long)addr, backtxt, HW_WRITES, traps,
                    hv ? "hypervisor does not virtualize them"
                       : "dead on this CPU/kernel (no hypervisor flag in cpuinfo)");
}

#endif /* __x86_64__ */
