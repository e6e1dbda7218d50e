/* hwwatch functional probe, AArch64.
 *
 * Same shape as the x86 probe: a child forked by the seam (spawn_child)
 * stops itself under PTRACE_TRACEME; the parent reads (through the seam) NT_ARM_HW_WATCH to learn the number of
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
#include "plugins/common/probe_wait.h"
#include "plugins/hwwatch/hwwatch.h"

#if defined(__aarch64__)
#include <elf.h>

#define HW_WRITES 4
#define HW_TIMEOUT_MS 3000
#define HW_MAX_STOPS 64

static volatile uint32_t hw_probe_var __attribute__((aligned(8)));

/* The probe child (the seam's spawn_child runs it after its self-stop). */
static int hw_child(void *arg) {
  (void)arg;
  for (uint32_t i = 0; i < HW_WRITES; i++) hw_probe_var = i + 1;
  return 0;
}

/* one trap: a watchpoint hit disarms the slot and steps over the store; the
 * step's trap re-arms it (AArch64 traps BEFORE the access, so a resume
 * would hit the same store again) */
struct a64_hits {
  const struct asmspy_seam_api *seam;
  struct asmspy_seam *sm;
  pid_t pid;
  const struct hw_arm64_hwdebug *armed, *off;
  size_t len;
  int hits, stepping;
};
static int a64_on_trap(void *ctx, const struct asmspy_stop *stop) {
  struct a64_hits *h = ctx;
  if (h->stepping) { /* stepped over the store: watch again */
    h->stepping = 0;
    (void)h->seam->set_regset(h->sm, h->pid, HW_ARM64_NT_HW_WATCH, h->armed, h->len);
    return 0;
  }
  if (stop->si_code == HW_TRAP_HWBKPT) {
    h->hits++;
    (void)h->seam->set_regset(h->sm, h->pid, HW_ARM64_NT_HW_WATCH, h->off, h->len);
    h->stepping = 1;
  }
  return h->stepping;
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
  if (rc == -ETIMEDOUT || rc == -ECHILD)
    return pp_verdict(res, ASMSPY_E_INTERNAL, rc == -ETIMEDOUT ? -rc : 0, 0,
                      "hwwatch probe child never reached its self-stop");
  if (rc)
    return pp_verdict(res, rc == -EPERM ? ASMSPY_E_PERM : ASMSPY_E_INTERNAL, -rc, 0,
                      "PTRACE_TRACEME in the probe child: %s", pp_errno_name(-rc));

  struct hw_arm64_hwdebug d;
  memset(&d, 0, sizeof d);
  size_t got = sizeof d;
  rc = seam->get_regset(sm, pid, HW_ARM64_NT_HW_WATCH, &d, &got);
  if (rc) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_NO_KERNEL, -rc, 0,
                      "PTRACE_GETREGSET NT_ARM_HW_WATCH: %s (kernel without hw_breakpoint)",
                      pp_errno_name(-rc));
  }
  unsigned slots = hw_arm64_slots(d.dbg_info);
  if (slots == 0) {
    seam->detach(sm);
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
  rc = seam->set_regset(sm, pid, HW_ARM64_NT_HW_WATCH, &armed, len);
  if (rc) {
    seam->detach(sm);
    return pp_verdict(res, -rc == ENOSPC ? ASMSPY_E_ATTACH_BUSY : ASMSPY_E_NO_KERNEL, -rc, 0,
                      "PTRACE_SETREGSET NT_ARM_HW_WATCH addr=%#llx ctrl=%#x: %s",
                      (unsigned long long)wvr, wcr, pp_errno_name(-rc));
  }

  struct a64_hits h = {seam, sm, pid, &armed, &off, len, 0, 0};
  struct pw_run run;
  int end =
      pw_drive(seam, sm, pid, deadline, HW_MAX_STOPS, hw_probe_is_trap, a64_on_trap, &h, &run);
  int hits = h.hits, traps = run.traps, exit_code = run.exit_code, term_sig = run.term_sig;
  if (end == PW_RESUME) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, run.err, 0, "hwwatch probe: resume: %s",
                      pp_errno_name(run.err));
  }
  if (end == PW_TIMEOUT) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, ETIMEDOUT, 0,
                      "hwwatch probe: the watched child did not finish (%d hits so far)", hits);
  }
  if (end == PW_STORM) {
    seam->detach(sm);
    return pp_verdict(res, ASMSPY_E_INTERNAL, 0, 0,
                      "hwwatch probe: more than %d stops for %d writes: trap storm", HW_MAX_STOPS,
                      HW_WRITES);
  }
  seam->detach(sm); /* the child is reaped: this frees the seam */
  if (term_sig || exit_code != 0)
    return pp_verdict(
        res, ASMSPY_E_INTERNAL, 0, 0, "hwwatch probe child %s %d after %d watchpoint hits",
        term_sig ? "died on signal" : "exited", term_sig ? term_sig : exit_code, hits);
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
