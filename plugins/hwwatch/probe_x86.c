/* hwwatch functional probe, x86-64.
 *
 * Arming a watchpoint is not proof that it works (in some KVM guests
 * PTRACE_POKEUSER of DR0/DR7 is accepted but the hit never fires). The probe
 * has the seam fork a child that stops itself under PTRACE_TRACEME
 * (spawn_child; every ptrace call and wait goes through the seam), arms a 4-byte write
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
#include "plugins/common/probe_wait.h"
#include "plugins/hwwatch/hwwatch.h"

#if defined(__x86_64__)
#include <sys/user.h>

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT HW_TRAP_HWBKPT
#endif

#define HW_WRITES 4
#define HW_TIMEOUT_MS 3000
#define HW_MAX_STOPS 64

#define HW_DR_OFF(i) ((size_t)hw_x86_dr_offset(i))

/* The watched variable: the child writes it, the parent watches its address. */
static volatile uint32_t hw_probe_var __attribute__((aligned(8)));

/* The probe child (the seam's spawn_child runs it after its self-stop). */
static int hw_child(void *arg) {
  (void)arg;
  for (uint32_t i = 0; i < HW_WRITES; i++) hw_probe_var = i + 1;
  return 0;
}

static int hw_poke_status(int e) {
  switch (e) {
  case EPERM:
  case EACCES: return ASMSPY_E_PERM;
  case ENOSPC:
  case EBUSY: return ASMSPY_E_ATTACH_BUSY;
  default: /* EINVAL, EIO, ENODEV: the kernel refuses this debug-register setup */
    return ASMSPY_E_NO_KERNEL;
  }
}

/* one watchpoint trap: counted by its si_code and by DR6.B0 (cleared: it
 * is sticky) */
struct x86_hits {
  const struct asmspy_seam_api *seam;
  struct asmspy_seam *sm;
  pid_t pid;
  int hits_code, hits_dr6;
};
static int x86_on_trap(void *ctx, const struct asmspy_stop *stop) {
  struct x86_hits *h = ctx;
  uint64_t dr6 = 0;
  int b0 =
      h->seam->peek_user(h->sm, h->pid, HW_DR_OFF(6), &dr6) == 0 && (hw_x86_dr6_fired(dr6) & 1u);
  (void)h->seam->poke_user(h->sm, h->pid, HW_DR_OFF(6), 0); /* DR6 is sticky */
  h->hits_code += stop->si_code == TRAP_HWBKPT;
  h->hits_dr6 += b0;
  return 0;
}

int hw_probe_impl(const struct asmspy_seam_api *seam, struct asmspy_probe_result *res) {
  if (!ASMSPY_HAS(seam, spawn_child))
    return pp_verdict(res, ASMSPY_E_ABI, 0, 0,
                      "hwwatch probe: the host's seam cannot spawn a "
                      "probe child");
  int64_t deadline = pp_now_ms() + HW_TIMEOUT_MS;
  struct asmspy_seam *sm = NULL;
  pid_t pid = 0;
  int rc = seam->spawn_child(hw_child, NULL, HW_TIMEOUT_MS, &sm, &pid);
  if (rc && !pid)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0, "hwwatch probe: fork: %s",
                      pp_errno_name(-rc));
  if (rc == -ETIMEDOUT)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                      "hwwatch probe: child never reached its self-stop: %s", pp_errno_name(-rc));
  if (rc == -ECHILD)
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe child ended before its self-stop");
  if (rc)
    return pp_verdict(res, rc == -EPERM ? ASMSPY_E_PERM : ASMSPY_E_INTERNAL, -rc, 0,
                      "PTRACE_TRACEME in the probe child: %s (ptrace forbidden here: Yama "
                      "ptrace_scope=3, seccomp or an LSM)",
                      pp_errno_name(-rc));

  /* Arm: address first, then DR7 (the kernel validates DR7 against it). */
  uintptr_t addr = (uintptr_t)&hw_probe_var;
  int bad = 0; /* slot 0, 4-byte write watchpoint: 0xd0001 */
  unsigned long dr7 = (unsigned long)hw_x86_dr7_arm(0, 0, HW_X86_RW_WRITE, 4, &bad);
  rc = seam->poke_user(sm, pid, HW_DR_OFF(0), addr);
  if (rc < 0) {
    seam->detach(sm);
    return pp_verdict(res, hw_poke_status(-rc), -rc, 0,
                      "PTRACE_POKEUSER DR0 (user offset %zu) = %#lx: %s", HW_DR_OFF(0),
                      (unsigned long)addr, pp_errno_name(-rc));
  }
  rc = seam->poke_user(sm, pid, HW_DR_OFF(7), dr7);
  if (rc < 0) {
    seam->detach(sm);
    return pp_verdict(res, hw_poke_status(-rc), -rc, 0,
                      "PTRACE_POKEUSER DR7 (user offset %zu) = %#lx with DR0=%#lx: %s (the "
                      "kernel refused the hw_breakpoint)",
                      HW_DR_OFF(7), dr7, (unsigned long)addr, pp_errno_name(-rc));
  }
  uint64_t back = 0;
  int back_err = -seam->peek_user(sm, pid, HW_DR_OFF(7), &back);

  /* Fire: let the child write, count the watchpoint traps. */
  struct x86_hits h = {seam, sm, pid, 0, 0};
  struct pw_run run;
  int end =
      pw_drive(seam, sm, pid, deadline, HW_MAX_STOPS, hw_probe_is_trap, x86_on_trap, &h, &run);
  int hits_code = h.hits_code, hits_dr6 = h.hits_dr6, traps = run.traps;
  int exit_code = run.exit_code, term_sig = run.term_sig;
  if (end == PW_RESUME) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, run.err, 0, "hwwatch probe: PTRACE_CONT: %s",
                      pp_errno_name(run.err));
  }
  if (end == PW_TIMEOUT) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, ETIMEDOUT, 0,
                      "hwwatch probe: the watched child did not finish: %s (%d traps so far)",
                      pp_errno_name(ETIMEDOUT), traps);
  }
  if (end == PW_STORM) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe: more than %d stops for %d writes: trap storm", HW_MAX_STOPS,
                      HW_WRITES);
  }
  seam->detach(sm);
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
