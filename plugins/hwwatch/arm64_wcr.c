/* AArch64 NT_ARM_HW_WATCH encoding (pure functions; built on every host).
 *
 * PTRACE_GETREGSET/SETREGSET(NT_ARM_HW_WATCH) moves a struct
 * user_hwdebug_state: dbg_info (bits 7:0 = number of watchpoint slots, 15:8 =
 * debug architecture, from the kernel's ptrace_hbp_get_resource_info) and
 * one {addr, ctrl} pair per slot. The kernel writes each slot's address and
 * then decodes its ctrl word (decode_ctrl_reg in asm/hw_breakpoint.h):
 *
 *   bit 0      E    enable
 *   bits 2:1   PAC  privilege (2 = EL0); the kernel derives the privilege
 *                   from the address itself and ignores what we put here
 *   bits 4:3   LSC  1 = loads, 2 = stores, 3 = both
 *   bits 12:5  BAS  byte address select within the doubleword
 *
 * BAS must be one contiguous run of 1, 2, 4 or 8 bytes; its lowest set bit is
 * turned back into an address offset (arch_bp_generic_fields), so the pair is
 * (addr rounded down to 8, BAS shifted by addr % 8) — the form gdb uses
 * (aarch64_point_encode_ctrl_reg). A hit stops the thread BEFORE the access
 * (the exception is taken on the load/store itself) with SIGTRAP /
 * TRAP_HWBKPT and si_addr = the data address (FAR, possibly only near the
 * watched bytes); for a ptrace watchpoint the kernel does not step over it.
 */
#include "plugins/hwwatch/hwwatch.h"

#if defined(__aarch64__)
#include <asm/ptrace.h>
#include <elf.h>
_Static_assert(sizeof(struct user_hwdebug_state) == sizeof(struct hw_arm64_hwdebug),
               "user_hwdebug_state layout");
_Static_assert(offsetof(struct user_hwdebug_state, dbg_regs) ==
                   offsetof(struct hw_arm64_hwdebug, dbg_regs),
               "user_hwdebug_state layout");
_Static_assert(NT_ARM_HW_WATCH == HW_ARM64_NT_HW_WATCH, "NT_ARM_HW_WATCH");
#endif

unsigned hw_arm64_slots(uint32_t dbg_info) {
  unsigned n = dbg_info & 0xffu;
  return n > HW_ARM64_MAX_SLOTS ? HW_ARM64_MAX_SLOTS : n;
}

unsigned hw_arm64_debug_arch(uint32_t dbg_info) { return (dbg_info >> 8) & 0xffu; }

int hw_arm64_encode(uint64_t addr, unsigned len, unsigned access, uint64_t *wvr, uint32_t *wcr) {
  if (len != 1 && len != 2 && len != 4 && len != 8) return -1;
  unsigned lsc = 0;
  if (access & ASMSPY_WATCH_READ) lsc |= HW_ARM64_LSC_LOAD;
  if (access & ASMSPY_WATCH_WRITE) lsc |= HW_ARM64_LSC_STORE;
  if (!lsc) return -1;
  unsigned offset = (unsigned)(addr & (HW_ARM64_ALIGN - 1));
  if (offset + len > HW_ARM64_ALIGN)
    return -1; /* straddles two doublewords: one DBGWVR cannot cover it */
  uint32_t bas = ((1u << len) - 1u) << offset;
  *wvr = addr & ~(uint64_t)(HW_ARM64_ALIGN - 1);
  *wcr = (bas << 5) | (lsc << 3) | (HW_ARM64_PAC_EL0 << 1) | HW_ARM64_WCR_E;
  return 0;
}

void hw_arm64_decode(uint32_t wcr, unsigned *enabled, unsigned *pac, unsigned *lsc, unsigned *bas) {
  *enabled = wcr & 1u;
  *pac = (wcr >> 1) & 3u;
  *lsc = (wcr >> 3) & 3u;
  *bas = (wcr >> 5) & 0xffu;
}

size_t hw_arm64_regset_len(unsigned nslots) {
  struct hw_arm64_hwdebug d;
  return offsetof(struct hw_arm64_hwdebug, dbg_regs) + nslots * sizeof d.dbg_regs[0];
}
