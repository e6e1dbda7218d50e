/* The single-step trap this VM loses after `cpuid`.
 *
 * The hypervisor emulates cpuid (a VM exit) and does not deliver the
 * single-step trap EFLAGS.TF owes after it: the next trap arrives one
 * instruction later, after the instruction that follows cpuid. Measured
 * here with a bare ptrace loop: cpuid lands at fall-through+1 (a nop ran
 * unreported); rdtsc, rdtscp, xgetbv, pause, rdrand, rdseed, xsavec,
 * xrstor, lfence and mfence keep their trap. ld.so runs
 * cpuid in init_cpu_features, so every launched program hits it.
 *
 * Every stepping path (ptrace stream, region trace, in-process scope)
 * checks for it by behaviour — the stop after a cpuid is not at the cpuid's
 * fall-through — and reports the instruction that ran unobserved instead of
 * silently losing it. On a machine that keeps the trap the check never
 * fires. */
#ifndef ASMSPY_SINGLESTEP_LOST_TRAP_H
#define ASMSPY_SINGLESTEP_LOST_TRAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <asmspy/plugin.h>

#include "plugins/common/insn_class.h"

/* 0f a2 (cpuid takes no meaningful prefix). */
static inline int ss_is_cpuid(const uint8_t *bytes, size_t len) {
  return len >= 2 && bytes[0] == 0x0f && bytes[1] == 0xa2;
}

/* Can the instruction at ip (bytes b, n) alone explain a stop at now_ip?
 * The hypervisor loses exactly one trap, so exactly one instruction ran
 * unobserved: it either falls through to now_ip or transfers control. */
static inline int ss_lost_trap_explains(const struct asmspy_host_api *host, uint64_t ip,
                                        const uint8_t *b, size_t n, uint64_t now_ip) {
  /* control transfers (prefixed ones too: bnd/notrack), and a rep string op
   * (it stays at ip, one iteration per step) */
  const uint32_t transfers =
      ASMSPY_INSN_JUMP | ASMSPY_INSN_CALL | ASMSPY_INSN_RET | ASMSPY_INSN_IRET | ASMSPY_INSN_REP;
  uint32_t c = pi_class(host, ip, b, n);
  if (!c) return 0;
  if (ip + ASMSPY_INSN_LEN(c) == now_ip) return 1;
  return (c & transfers) != 0;
}

#define SS_LOST_TRAP_GAP_NOTE                                                                      \
  "singlestep: no step trap after cpuid at 0x%llx; the thread went on at 0x%llx: what ran from "   \
  "0x%llx was not observed"

#define SS_LOST_TRAP_NOTE                                                                          \
  "singlestep: no step trap after cpuid at 0x%llx (the hypervisor emulates cpuid and drops "       \
  "TF's trap): the instruction after it, 0x%llx, ran unobserved and is shown from its bytes, "     \
  "without registers"

#endif
