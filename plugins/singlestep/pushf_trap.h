/* The trap flag a single-stepped pushf leaks into the program's memory.
 *
 * While ptrace single-steps a thread, the CPU's EFLAGS.TF really is set, so
 * a `pushf` pushes it. When the program later pops that word (`popf`), TF
 * comes back at a moment nobody steps it any more (after the session, or
 * while the thread runs natively): the next instruction traps and the
 * program receives a SIGTRAP it never asked for. Go's runtime.asyncPreempt
 * saves and restores the flags exactly this way on every preemption, so a
 * Go program died of "SIGTRAP: trace trap" in the first session of any
 * stepping mode (issue 24). gdb clears the pushed TF the same way after
 * stepping a pushf.
 *
 * After every stepped pushf the pushed word loses TF. The flags read before
 * the step cannot tell whether TF is the program's own: once a popf has
 * been stepped the kernel shows our TF as the program's (see the seam's
 * end_stepping), so a program that single-steps itself is not told apart
 * (it could not be stepped by a tracer meaningfully anyway). x86 only:
 * AArch64 has no instruction that stores PSTATE.SS. */
#ifndef ASMSPY_SINGLESTEP_PUSHF_TRAP_H
#define ASMSPY_SINGLESTEP_PUSHF_TRAP_H

#include <stddef.h>
#include <stdint.h>

#include <asmspy/plugin.h>

#define SS_EFLAGS_TF 0x100u

/* pushf / pushfq (9c), after legacy and REX prefixes; *width gets the
 * pushed size (2 with an operand-size prefix, else 8). */
static inline int ss_is_pushf(const uint8_t *b, size_t n, int *width) {
#if defined(__x86_64__)
  int w = 8;
  for (size_t i = 0; i < n && i < 15; i++) {
    uint8_t c = b[i];
    if (c == 0x66) {
      w = 2;
      continue;
    }
    if (c == 0x67 || c == 0xf2 || c == 0xf3 || c == 0x2e || c == 0x3e || c == 0x26 || c == 0x64 ||
        c == 0x65 || c == 0x36 || (c & 0xf0) == 0x40)
      continue;
    *width = w;
    return c == 0x9c;
  }
#else
  (void)b, (void)n, (void)width;
#endif
  return 0;
}

/* tid has just stepped a pushf of `width` bytes: clear the leaked TF in the
 * pushed word at its sp. */
static inline void ss_unleak_pushf(const struct asmspy_host_api *host, struct asmspy_seam *sm,
                                   struct asmspy_target *target, pid_t tid, int width) {
  struct asmspy_regs r;
  __builtin_memset(&r, 0, sizeof r);
  ASMSPY_INIT_HEADER(&r);
  if (host->seam->get_regs(sm, tid, &r) != 0) return;
  uint64_t word = 0;
  size_t n = width == 2 ? 2 : 8;
  if (host->read_mem(target, r.sp, &word, n) != (ssize_t)n || !(word & SS_EFLAGS_TF)) return;
  word &= ~(uint64_t)SS_EFLAGS_TF;
  host->write_mem(target, r.sp, &word, n);
}

#endif
