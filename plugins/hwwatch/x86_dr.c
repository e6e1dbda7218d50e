/* x86-64 debug-register encoding (pure functions; built on every host so the
 * unit tests check the bit layout anywhere).
 *
 * DR7 (Intel SDM vol. 3, 17.2.4; the kernel's arch/x86/include/uapi/asm/
 * debugreg.h): slot i has a local enable L_i at bit 2i and a global enable
 * G_i at bit 2i+1; its R/W field at bits 16+4i..17+4i and LEN field at
 * 18+4i..19+4i. LEN is 00 = 1, 01 = 2, 11 = 4, 10 = 8 bytes (not monotonic:
 * 8 bytes was added later). The kernel's ptrace_write_dr7() decodes exactly
 * these fields per slot and registers a perf hw_breakpoint for each enabled
 * one, checking that the address in DR_i is aligned to the length.
 *
 * DR6: B0-B3 (bits 0-3) say which slot's condition was met; BS (bit 14) a
 * single-step trap. Under ptrace the value read back is the kernel's
 * per-thread virtual DR6 (ptrace_triggered() sets B_i), sticky until the
 * tracer writes DR6 again.
 */
#include "plugins/hwwatch/hwwatch.h"

#if defined(__x86_64__)
#include <sys/user.h>
_Static_assert(offsetof(struct user, u_debugreg) == HW_X86_DEBUGREG_OFFSET,
               "struct user layout: u_debugreg offset");
#endif

#define DR7_ENABLE_BITS(slot) (3ull << (2u * (slot)))
#define DR7_LOCAL_ENABLE(slot) (1ull << (2u * (slot)))
#define DR7_CONTROL_SHIFT(slot) (16u + 4u * (slot))
#define DR6_BS (1ull << 14)

uint64_t hw_x86_dr_offset(unsigned i) { return HW_X86_DEBUGREG_OFFSET + 8u * (uint64_t)i; }

int hw_x86_len_bits(unsigned len) {
  switch (len) {
  case 1: return 0x0;
  case 2: return 0x1;
  case 4: return 0x3;
  case 8: return 0x2;
  default: return -1;
  }
}

uint64_t hw_x86_dr7_slot_mask(unsigned slot) {
  return DR7_ENABLE_BITS(slot) | (0xfull << DR7_CONTROL_SHIFT(slot));
}

uint64_t hw_x86_dr7_arm(uint64_t dr7, unsigned slot, unsigned rw, unsigned len, int *err) {
  int lenbits = hw_x86_len_bits(len);
  *err = 0;
  if (slot >= HW_X86_SLOTS || lenbits < 0 || (rw != HW_X86_RW_WRITE && rw != HW_X86_RW_RDWR)) {
    *err = 1;
    return 0;
  }
  dr7 &= ~hw_x86_dr7_slot_mask(slot);
  uint64_t control = ((uint64_t)(unsigned)lenbits << 2) | rw;
  return dr7 | DR7_LOCAL_ENABLE(slot) | (control << DR7_CONTROL_SHIFT(slot));
}

uint64_t hw_x86_dr7_disarm(uint64_t dr7, unsigned slot) {
  if (slot >= HW_X86_SLOTS) return dr7;
  return dr7 & ~hw_x86_dr7_slot_mask(slot);
}

int hw_x86_free_slot(uint64_t dr7) {
  for (unsigned i = 0; i < HW_X86_SLOTS; i++)
    if (!(dr7 & DR7_ENABLE_BITS(i))) return (int)i;
  return -1;
}

unsigned hw_x86_dr6_fired(uint64_t dr6) { return (unsigned)(dr6 & 0xfu); }

int hw_x86_dr6_single_step(uint64_t dr6) { return (dr6 & DR6_BS) != 0; }

int hw_x86_aligned(uint64_t addr, unsigned len) {
  return hw_x86_len_bits(len) >= 0 && (addr & (uint64_t)(len - 1)) == 0;
}
