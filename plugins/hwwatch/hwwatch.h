/* hwwatch internals: the map of the backend's files.
 *
 *   hwwatch.c      descriptor, entry point, probe dispatch
 *   probe_x86.c    functional probe, x86-64 (arm DR0/DR7 in a seam-spawned child, count hits)
 *   probe_arm64.c  functional probe, AArch64 (NT_ARM_HW_WATCH, step over each hit)
 *   x86_dr.c       x86-64 debug-register encoding: DR7 enable/RW/LEN, DR6 status
 *   arm64_wcr.c    AArch64 NT_ARM_HW_WATCH encoding: struct user_hwdebug_state, DBGWCR
 *   arch_ops.c     arming / disarming / hit decoding per thread, over the host seam
 *   toucher.c      x86: the instruction BEFORE rip (a data breakpoint traps after it)
 *   run.c          the run loop: attach, arm every thread, resume at native speed,
 *                  report hits, arm new threads, disarm everything before detach
 *
 * The encoders are pure functions and the arch ops only talk to the seam
 * table, so both architectures compile (and are unit-tested) on any host:
 * the run loop picks the ops of the architecture it was built for unless a
 * test hands it another (hw_run_with).
 */
#ifndef ASMSPY_PLUGINS_HWWATCH_H
#define ASMSPY_PLUGINS_HWWATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "asmspy/plugin.h"

#define HW_NAME "hwwatch"
#define HW_CAPS (ASMSPY_CAP_WATCHPOINTS | ASMSPY_CAP_ATTACH_PID)

/* si_code of a hardware breakpoint/watchpoint SIGTRAP (glibc may lack it). */
#define HW_TRAP_HWBKPT 4

/* ------------------------------------------------------------ x86_dr.c -- */
/* Byte offsets in the tracee's struct user (x86-64): u_debugreg[i] lives at
 * offsetof(struct user, u_debugreg) + 8 * i = 848 + 8 * i (checked against
 * <sys/user.h> where it is the native layout). */
#define HW_X86_DEBUGREG_OFFSET 848u
#define HW_X86_SLOTS 4u
uint64_t hw_x86_dr_offset(unsigned i);

/* DR7 R/W field values (Intel SDM vol. 3, 17.2.4): 01 data writes, 11 data
 * reads or writes. There is no read-only data breakpoint on x86. */
#define HW_X86_RW_WRITE 1u
#define HW_X86_RW_RDWR 3u

/* The LEN field for 1/2/4/8 bytes (00, 01, 11, 10), or -1 for another size. */
int hw_x86_len_bits(unsigned len);
/* The DR7 bits that belong to slot i: L/G enable (2 bits) and R/W+LEN (4). */
uint64_t hw_x86_dr7_slot_mask(unsigned slot);
/* dr7 with slot i (re)programmed: local enable, R/W and LEN; the other
 * slots' bits are kept. 0 with *err set for a bad len/rw/slot. */
uint64_t hw_x86_dr7_arm(uint64_t dr7, unsigned slot, unsigned rw, unsigned len, int *err);
/* dr7 with slot i cleared (other slots kept). */
uint64_t hw_x86_dr7_disarm(uint64_t dr7, unsigned slot);
/* Lowest slot whose L and G enable bits are both clear, or -1. */
int hw_x86_free_slot(uint64_t dr7);
/* DR6 decode: which of B0-B3 are set (bit i = slot i fired), and BS (a
 * single-step trap) for messages. */
unsigned hw_x86_dr6_fired(uint64_t dr6);
int hw_x86_dr6_single_step(uint64_t dr6);
/* Natural alignment check the kernel applies (arch_build_bp_info). */
int hw_x86_aligned(uint64_t addr, unsigned len);

/* --------------------------------------------------------- arm64_wcr.c -- */
/* The layout of struct user_hwdebug_state (arch/arm64/include/uapi/asm/
 * ptrace.h), spelled out so it builds on any host. */
#define HW_ARM64_NT_HW_WATCH 0x403u
#define HW_ARM64_MAX_SLOTS 16u
struct hw_arm64_hwdebug {
  uint32_t dbg_info; /* bits 7:0 slots, 15:8 debug architecture */
  uint32_t pad;
  struct {
    uint64_t addr;
    uint32_t ctrl;
    uint32_t pad;
  } dbg_regs[HW_ARM64_MAX_SLOTS];
};
/* DBGWCR fields as the kernel's encode_ctrl_reg() lays them out:
 * E [0], PAC [2:1], LSC [4:3], BAS [12:5]. */
#define HW_ARM64_WCR_E 1u
#define HW_ARM64_PAC_EL0 2u /* privilege: EL0 (user) */
#define HW_ARM64_LSC_LOAD 1u
#define HW_ARM64_LSC_STORE 2u
#define HW_ARM64_ALIGN 8u /* DBGWVR holds a doubleword-aligned address */

unsigned hw_arm64_slots(uint32_t dbg_info);
unsigned hw_arm64_debug_arch(uint32_t dbg_info);
/* The (aligned address, ctrl) pair for watching [addr, addr+len): addr is
 * rounded down to 8 and BAS selects the len bytes at their offset in that
 * doubleword (what gdb does; the kernel turns the BAS shift back into an
 * address offset). access = ASMSPY_WATCH_* bits. 0, or -1 when the bytes
 * straddle a doubleword or len/access are invalid. */
int hw_arm64_encode(uint64_t addr, unsigned len, unsigned access, uint64_t *wvr, uint32_t *wcr);
/* Decode a ctrl word back (tests, messages). */
void hw_arm64_decode(uint32_t wcr, unsigned *enabled, unsigned *pac, unsigned *lsc, unsigned *bas);
/* Bytes of the regset the kernel expects for n slots. */
size_t hw_arm64_regset_len(unsigned nslots);

/* ---------------------------------------------------------- arch_ops.c -- */
struct hw_run;
struct hw_thread;

/* What one architecture does to a stopped thread. All return 0 or -errno. */
struct hw_arch_ops {
  const char *name;       /* "x86-64 DR0-3", "AArch64 NT_ARM_HW_WATCH" */
  int trap_before_access; /* AArch64: the hit stops BEFORE the access (step over it) */
  int has_read_only;      /* AArch64 can watch loads alone; x86 cannot */
  /* Session-level check of the watch (len, alignment, access); fills a
   * one-line reason. */
  int (*validate)(uint64_t addr, unsigned len, unsigned access, char *why, size_t cap);
  int (*arm)(struct hw_run *r, struct hw_thread *t);
  int (*disarm)(struct hw_run *r, struct hw_thread *t);
  /* At a SIGTRAP stop: 1 when our slot fired (and the status is
   * acknowledged, e.g. DR6 cleared), 0 when the trap is not ours. */
  int (*hit)(struct hw_run *r, struct hw_thread *t, const struct asmspy_stop *stop);
};
extern const struct hw_arch_ops hw_x86_ops;
extern const struct hw_arch_ops hw_arm64_ops;

/* --------------------------------------------------------------- run.c -- */
struct hw_thread {
  pid_t tid;
  int armed;        /* our watchpoint is programmed in this thread */
  int arm_failed;   /* arming was refused: the thread runs unwatched (noted) */
  int stopped;      /* in a ptrace stop we have not resumed yet */
  int slot;         /* the hardware slot used in this thread */
  uint64_t dr7;     /* x86: DR7 as we last wrote it */
  int stepping;     /* AArch64: stepping over a hit with the watchpoint off */
  uint64_t hit_ip;  /* AArch64: the pc of the access being stepped over */
  uint64_t hit_old; /* AArch64: the value before it */
};

struct hw_run {
  const struct asmspy_host_api *host;
  const struct asmspy_seam_api *seam;
  struct asmspy_seam *sm;
  const struct asmspy_session *s;
  const struct hw_arch_ops *arch;
  uint64_t addr;
  unsigned len, access;
  struct hw_thread *threads;
  size_t nthreads, cap;
  uint64_t last_value; /* the value at the previous hit (x86: the old value) */
  uint64_t hits;
  uint64_t seq;
  int done; /* n hits reported, or the sink asked to stop */
  int toucher_warned;
  char why[192]; /* the arch ops' reason for their last failure */
};

/* The backend's run(), with the architecture given (tests pass either). */
int hw_run_with(const struct asmspy_host_api *host, const struct asmspy_session *s,
                const struct hw_arch_ops *arch);
int hw_run(const struct asmspy_host_api *host, const struct asmspy_session *s);

/* ----------------------------------------------------------- toucher.c -- */
/* x86: the address of the instruction that ends exactly at rip, found by
 * decoding forward from the start of the function containing rip. Returns
 * 1 and *ip, or 0 when it cannot be known (no symbol, rip is the first
 * instruction of its function: the access was a call/jump's own push, or
 * the bytes do not decode onto rip). */
/* The value a plain `mov [m], reg|imm` toucher at ip stored at addr (regs
 * read after it), or 0 when the instruction is no such store (toucher.c). */
int hw_stored_value(const struct asmspy_host_api *host, struct asmspy_target *t, uint64_t ip,
                    const struct asmspy_regs *regs, uint64_t addr, unsigned len, uint64_t *value);
int hw_toucher_before(const struct asmspy_host_api *host, struct asmspy_target *t, uint64_t rip,
                      uint64_t *ip);

/* --------------------------------------------------------- probe_*.c -- */
/* The functional probe: a child made by seam->spawn_child writes a watched
 * variable; every ptrace call and wait goes through the seam table. */
int hw_probe_impl(const struct asmspy_seam_api *seam, struct asmspy_probe_result *res);

/* A probe-child stop that is a SIGTRAP: a watchpoint hit, a completed step,
 * or a trap the seam could not attribute (counted all the same). Any other
 * stop is the child's own signal (delivered) or bookkeeping. */
static inline int hw_probe_is_trap(const struct asmspy_stop *st) {
  switch (st->kind) {
  case ASMSPY_STOP_WATCH:
  case ASMSPY_STOP_STEP:
  case ASMSPY_STOP_BREAKPOINT:
  case ASMSPY_STOP_TARGET_TRAP: return 1;
  case ASMSPY_STOP_SIGNAL: return st->sig == 5; /* SIGTRAP on every Linux architecture */
  default: return 0;
  }
}

#endif
