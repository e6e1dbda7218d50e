/* Arming, disarming and hit decoding for one stopped thread, per
 * architecture, through the host seam's debug-register calls only (so a test
 * can hand in a scripted seam and check every word written).
 *
 * Debug registers are per thread: the kernel does not copy ptrace
 * watchpoints into a new thread (x86 copy_thread zeroes ptrace_bps), so the
 * run loop arms every thread, including each one born later. Each thread
 * uses the lowest slot that is free in IT, and only that slot's bits are
 * touched: a slot someone else programmed is left alone.
 */
#include "plugins/hwwatch/hwwatch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- x86-64 -- */

static int x86_validate(uint64_t addr, unsigned len, unsigned access, char *why, size_t cap) {
  if (hw_x86_len_bits(len) < 0) {
    snprintf(why, cap, "length %u: x86 debug registers watch 1, 2, 4 or 8 bytes", len);
    return -EINVAL;
  }
  if (!hw_x86_aligned(addr, len)) {
    snprintf(why, cap, "0x%llx is not %u-byte aligned: x86 debug registers need natural alignment",
             (unsigned long long)addr, len);
    return -EINVAL;
  }
  if (!(access & ASMSPY_WATCH_WRITE)) {
    snprintf(why, cap,
             "x86 has no read-only data watchpoint (R/W=10 is I/O): watch reads "
             "and writes instead");
    return -EINVAL;
  }
  return 0;
}

/* DR7 as it really is in tid: a thread born while we watch inherits its
 * parent's DR7 value (clone copies thread.ptrace_dr7) but none of its
 * breakpoints (ptrace_bps are zeroed; measured on 6.x: the child reads back
 * DR7 = 0xd0001 with DR0 = 0). An enabled slot whose address reads back 0
 * therefore has no breakpoint behind it, and writing DR7 with that bit still
 * set would register a real one at address 0: such phantom slots are
 * dropped from the value we build on. */
static int x86_live_dr7(struct hw_run *r, pid_t tid, uint64_t *dr7) {
  int rc = r->seam->peek_user(r->sm, tid, hw_x86_dr_offset(7), dr7);
  if (rc) return rc;
  for (unsigned i = 0; i < HW_X86_SLOTS; i++) {
    uint64_t a = 0;
    if ((*dr7 & (3ull << (2 * i))) &&
        r->seam->peek_user(r->sm, tid, hw_x86_dr_offset(i), &a) == 0 && a == 0)
      *dr7 = hw_x86_dr7_disarm(*dr7, i);
  }
  return 0;
}

static int x86_arm(struct hw_run *r, struct hw_thread *t) {
  const struct asmspy_seam_api *seam = r->seam;
  uint64_t dr7 = 0;
  int rc = x86_live_dr7(r, t->tid, &dr7);
  if (rc) {
    snprintf(r->why, sizeof r->why, "PTRACE_PEEKUSER DR7 of tid %d: %s", (int)t->tid,
             strerror(-rc));
    return rc;
  }
  int slot = hw_x86_free_slot(dr7);
  if (slot < 0) {
    snprintf(r->why, sizeof r->why, "tid %d: all four debug registers are in use (DR7=%#llx)",
             (int)t->tid, (unsigned long long)dr7);
    return -EBUSY;
  }
  int bad = 0;
  unsigned rw = (r->access & ASMSPY_WATCH_READ) ? HW_X86_RW_RDWR : HW_X86_RW_WRITE;
  uint64_t want = hw_x86_dr7_arm(dr7, (unsigned)slot, rw, r->len, &bad);
  if (bad) {
    snprintf(r->why, sizeof r->why, "cannot encode a %u-byte watchpoint in DR7", r->len);
    return -EINVAL;
  }
  /* Address first: the kernel validates the DR7 enable against it. */
  rc = seam->poke_user(r->sm, t->tid, hw_x86_dr_offset((unsigned)slot), r->addr);
  if (rc) {
    snprintf(r->why, sizeof r->why, "PTRACE_POKEUSER DR%d=%#llx in tid %d: %s", slot,
             (unsigned long long)r->addr, (int)t->tid, strerror(-rc));
    return rc;
  }
  rc = seam->poke_user(r->sm, t->tid, hw_x86_dr_offset(7), want);
  if (rc) {
    snprintf(r->why, sizeof r->why,
             "PTRACE_POKEUSER DR7=%#llx in tid %d: %s (the kernel refused the hw_breakpoint)",
             (unsigned long long)want, (int)t->tid, strerror(-rc));
    (void)seam->poke_user(r->sm, t->tid, hw_x86_dr_offset((unsigned)slot), 0);
    return rc;
  }
  /* A stale B_i from an earlier session must not read as a hit. */
  (void)seam->poke_user(r->sm, t->tid, hw_x86_dr_offset(6), 0);
  t->slot = slot;
  t->dr7 = want;
  t->armed = 1;
  return 0;
}

static int x86_disarm(struct hw_run *r, struct hw_thread *t) {
  if (!t->armed) return 0;
  const struct asmspy_seam_api *seam = r->seam;
  uint64_t dr7 = t->dr7;
  if (x86_live_dr7(r, t->tid, &dr7) != 0) /* keep others' slots, drop phantoms */
    dr7 = t->dr7;
  int rc = seam->poke_user(r->sm, t->tid, hw_x86_dr_offset(7),
                           hw_x86_dr7_disarm(dr7, (unsigned)t->slot));
  if (rc && rc != -ESRCH) {
    snprintf(r->why, sizeof r->why, "PTRACE_POKEUSER DR7 (disarm) in tid %d: %s", (int)t->tid,
             strerror(-rc));
    return rc;
  }
  (void)seam->poke_user(r->sm, t->tid, hw_x86_dr_offset((unsigned)t->slot), 0);
  (void)seam->poke_user(r->sm, t->tid, hw_x86_dr_offset(6), 0);
  t->armed = 0;
  t->dr7 = 0;
  return 0;
}

static int x86_hit(struct hw_run *r, struct hw_thread *t, const struct asmspy_stop *stop) {
  (void)stop; /* DR6 says which slot fired; si_code is TRAP_HWBKPT but not per slot */
  if (!t->armed) return 0;
  uint64_t dr6 = 0;
  if (r->seam->peek_user(r->sm, t->tid, hw_x86_dr_offset(6), &dr6) != 0) return 0;
  if (!(hw_x86_dr6_fired(dr6) & (1u << t->slot))) return 0;
  /* DR6 is sticky: acknowledge, or every later SIGTRAP looks like a hit. */
  (void)r->seam->poke_user(r->sm, t->tid, hw_x86_dr_offset(6), 0);
  return 1;
}

const struct hw_arch_ops hw_x86_ops = {
    .name = "x86-64 DR0-3",
    .trap_before_access = 0,
    .has_read_only = 0,
    .validate = x86_validate,
    .arm = x86_arm,
    .disarm = x86_disarm,
    .hit = x86_hit,
};

/* ------------------------------------------------------------ AArch64 -- */

static int arm64_validate(uint64_t addr, unsigned len, unsigned access, char *why, size_t cap) {
  uint64_t wvr;
  uint32_t wcr;
  if (len != 1 && len != 2 && len != 4 && len != 8) {
    snprintf(why, cap, "length %u: AArch64 watchpoints (BAS) cover 1, 2, 4 or 8 bytes", len);
    return -EINVAL;
  }
  if (hw_arm64_encode(addr, len, access, &wvr, &wcr) != 0) {
    snprintf(why, cap, "0x%llx+%u crosses a doubleword: one DBGWVR/BAS pair cannot cover it",
             (unsigned long long)addr, len);
    return -EINVAL;
  }
  return 0;
}

static int arm64_read(struct hw_run *r, pid_t tid, struct hw_arm64_hwdebug *d, unsigned *nslots) {
  memset(d, 0, sizeof *d);
  size_t len = sizeof *d;
  int rc = r->seam->get_regset(r->sm, tid, HW_ARM64_NT_HW_WATCH, d, &len);
  if (rc) {
    snprintf(r->why, sizeof r->why, "PTRACE_GETREGSET NT_ARM_HW_WATCH of tid %d: %s", (int)tid,
             strerror(-rc));
    return rc;
  }
  *nslots = hw_arm64_slots(d->dbg_info);
  if (len < hw_arm64_regset_len(*nslots))
    *nslots = (unsigned)((len - hw_arm64_regset_len(0)) / sizeof d->dbg_regs[0]);
  return 0;
}

static int arm64_arm(struct hw_run *r, struct hw_thread *t) {
  struct hw_arm64_hwdebug d;
  unsigned nslots = 0;
  int rc = arm64_read(r, t->tid, &d, &nslots);
  if (rc) return rc;
  if (nslots == 0) {
    snprintf(r->why, sizeof r->why,
             "no hardware watchpoint slots (NT_ARM_HW_WATCH dbg_info=%#x): the host exposes "
             "none (qemu-user, some hypervisors)",
             d.dbg_info);
    return -ENODEV;
  }
  int slot = -1;
  for (unsigned i = 0; i < nslots && slot < 0; i++)
    if (!(d.dbg_regs[i].ctrl & HW_ARM64_WCR_E)) slot = (int)i;
  if (slot < 0) {
    snprintf(r->why, sizeof r->why, "tid %d: all %u watchpoint slots are in use", (int)t->tid,
             nslots);
    return -EBUSY;
  }
  uint64_t wvr;
  uint32_t wcr;
  if (hw_arm64_encode(r->addr, r->len, r->access, &wvr, &wcr) != 0) {
    snprintf(r->why, sizeof r->why, "cannot encode a %u-byte watchpoint at %#llx", r->len,
             (unsigned long long)r->addr);
    return -EINVAL;
  }
  d.dbg_regs[slot].addr = wvr;
  d.dbg_regs[slot].ctrl = wcr;
  rc = r->seam->set_regset(r->sm, t->tid, HW_ARM64_NT_HW_WATCH, &d, hw_arm64_regset_len(nslots));
  if (rc) {
    snprintf(r->why, sizeof r->why,
             "PTRACE_SETREGSET NT_ARM_HW_WATCH slot %d addr=%#llx ctrl=%#x in tid %d: %s", slot,
             (unsigned long long)wvr, wcr, (int)t->tid, strerror(-rc));
    return rc;
  }
  t->slot = slot;
  t->armed = 1;
  return 0;
}

static int arm64_disarm(struct hw_run *r, struct hw_thread *t) {
  if (!t->armed) return 0;
  struct hw_arm64_hwdebug d;
  unsigned nslots = 0;
  int rc = arm64_read(r, t->tid, &d, &nslots);
  if (rc) return rc == -ESRCH ? 0 : rc;
  if ((unsigned)t->slot < nslots) {
    d.dbg_regs[t->slot].addr = 0;
    d.dbg_regs[t->slot].ctrl = 0;
  }
  rc = r->seam->set_regset(r->sm, t->tid, HW_ARM64_NT_HW_WATCH, &d, hw_arm64_regset_len(nslots));
  if (rc && rc != -ESRCH) {
    snprintf(r->why, sizeof r->why, "PTRACE_SETREGSET NT_ARM_HW_WATCH (disarm) in tid %d: %s",
             (int)t->tid, strerror(-rc));
    return rc;
  }
  t->armed = 0;
  return 0;
}

static int arm64_hit(struct hw_run *r, struct hw_thread *t, const struct asmspy_stop *stop) {
  (void)r;
  /* Only the tracer programs ptrace watchpoints, and one slot per thread is
   * ours: a TRAP_HWBKPT in an armed thread is our hit. */
  return t->armed && ASMSPY_HAS(stop, si_code) && stop->si_code == HW_TRAP_HWBKPT;
}

const struct hw_arch_ops hw_arm64_ops = {
    .name = "AArch64 NT_ARM_HW_WATCH",
    .trap_before_access = 1,
    .has_read_only = 1,
    .validate = arm64_validate,
    .arm = arm64_arm,
    .disarm = arm64_disarm,
    .hit = arm64_hit,
};
