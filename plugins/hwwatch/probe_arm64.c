/* hwwatch functional probe, AArch64.
 *
 * Same shape as the x86 probe: a forked child stops itself under
 * PTRACE_TRACEME; the parent reads NT_ARM_HW_WATCH to learn the number of
 * watchpoint slots (0 under qemu-user and some hypervisors: that is the
 * verdict), arms slot 0 on a static variable with the encoding capture uses
 * (arm64_wcr.c), lets the child write it and counts SIGTRAP / TRAP_HWBKPT
 * stops. An AArch64 hit stops the thread BEFORE the store and the kernel
 * does not step over a ptrace watchpoint, so each hit is stepped over with
 * the watchpoint off (disarm, PTRACE_SINGLESTEP, re-arm), exactly like the
 * run loop does.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"
#include "plugins/hwwatch/hwwatch.h"

#if defined(__aarch64__)
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#define HW_WRITES 4
#define HW_TIMEOUT_MS 3000
#define HW_POLL_US 100
#define HW_MAX_STOPS 64

static volatile uint32_t hw_probe_var __attribute__((aligned(8)));

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

static int regset(pid_t pid, int set, struct hw_arm64_hwdebug *d, size_t len)
{
  struct iovec iov = {d, len};
  return ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, pid,
                (void *)(uintptr_t)HW_ARM64_NT_HW_WATCH, &iov) == 0
             ? 0
             : -errno;
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
  if (rc < 0 || !WIFSTOPPED(st)) {
    int e = 0;
    ssize_t n = read(p[0], &e, sizeof e);
    close(p[0]);
    if (rc >= 0 && n == (ssize_t)sizeof e && e != 0)
      return pp_verdict(res, e == EPERM ? ASMSPY_E_PERM : ASMSPY_E_INTERNAL, e, 0,
                        "PTRACE_TRACEME in the probe child: %s", pp_errno_name(e));
    pp_kill_reap(pid);
    return pp_verdict(res, ASMSPY_E_INTERNAL, rc < 0 ? -rc : 0, 0,
                      "hwwatch probe child never reached its self-stop");
  }
  close(p[0]);
  (void)ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(uintptr_t)PTRACE_O_EXITKILL);

  struct hw_arm64_hwdebug d;
  memset(&d, 0, sizeof d);
  rc = regset(pid, 0, &d, sizeof d);
  if (rc) {
    pp_kill_reap(pid);
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, -rc, 0,
                      "PTRACE_GETREGSET NT_ARM_HW_WATCH: %s (kernel without hw_breakpoint)",
                      pp_errno_name(-rc));
  }
  unsigned slots = hw_arm64_slots(d.dbg_info);
  if (slots == 0) {
    pp_kill_reap(pid);
    return pp_verdict(res, ASMSPY_E_NO_HW, 0, 0,
                      "NT_ARM_HW_WATCH reports 0 watchpoint slots (dbg_info=%#x): the host "
                      "exposes none (qemu-user, some hypervisors)",
                      d.dbg_info);
  }
  uint64_t wvr;
  uint32_t wcr;
  (void)hw_arm64_encode((uint64_t)(uintptr_t)&hw_probe_var, 4, ASMSPY_WATCH_WRITE, &wvr, &wcr);
  size_t len = hw_arm64_regset_len(slots);
  struct hw_arm64_hwdebug armed = d, off = d;
  armed.dbg_regs[0].addr = wvr;
  armed.dbg_regs[0].ctrl = wcr;
  off.dbg_regs[0].addr = 0;
  off.dbg_regs[0].ctrl = 0;
  rc = regset(pid, 1, &armed, len);
  if (rc) {
    pp_kill_reap(pid);
    return pp_verdict(res, -rc == ENOSPC ? ASMSPY_E_ATTACH_BUSY : ASMSPY_E_NO_KERNEL, -rc, 0,
                      "PTRACE_SETREGSET NT_ARM_HW_WATCH addr=%#llx ctrl=%#x: %s",
                      (unsigned long long)wvr, wcr, pp_errno_name(-rc));
  }

  int hits = 0, traps = 0, stops = 0, exit_code = -1, term_sig = 0, sig = 0, stepping = 0;
  for (;;) {
    if (ptrace(stepping ? PTRACE_SINGLESTEP : PTRACE_CONT, pid, NULL, (void *)(uintptr_t)sig) <
        0) {
      int e = errno;
      pp_kill_reap(pid);
      return pp_verdict(res, ASMSPY_E_INTERNAL, e, 0, "hwwatch probe: resume: %s",
                        pp_errno_name(e));
    }
    sig = 0;
    rc = pp_waitpid_until(pid, &st, deadline, HW_POLL_US);
    if (rc < 0) {
      pp_kill_reap(pid);
      return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                        "hwwatch probe: the watched child did not finish (%d hits so far)", hits);
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
      sig = WSTOPSIG(st);
      continue;
    }
    traps++;
    if (stepping) { /* stepped over the store: watch again */
      stepping = 0;
      (void)regset(pid, 1, &armed, len);
      continue;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 && si.si_code == HW_TRAP_HWBKPT) {
      hits++;
      (void)regset(pid, 1, &off, len);
      stepping = 1;
    }
  }
  if (term_sig || exit_code != 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child %s %d after %d watchpoint hits",
                      term_sig ? "died on signal" : "exited", term_sig ? term_sig : exit_code,
                      hits);
  if (hits > 0)
    return pp_verdict(res, ASMSPY_USABLE, 0, HW_CAPS,
                      "4-byte write watchpoint fired %d/%d writes via NT_ARM_HW_WATCH "
                      "(%u slots, debug arch %#x, addr=%#llx ctrl=%#x)",
                      hits, HW_WRITES, slots, hw_arm64_debug_arch(d.dbg_info),
                      (unsigned long long)wvr, wcr);
  return pp_verdict(res, ASMSPY_E_VIRT, 0, 0,
                    "NT_ARM_HW_WATCH accepted addr=%#llx ctrl=%#x (%u slots) but the write "
                    "watchpoint never fired (0 hits over %d writes, %d SIGTRAPs)",
                    (unsigned long long)wvr, wcr, slots, HW_WRITES, traps);
}

#endif /* __aarch64__ */
