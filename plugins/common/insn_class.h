/* plugins/common/insn_class.h — what an instruction is, asked of the host
 * (host->insn_class, ABI 1.8) instead of matched in its disassembly text.
 *
 * Plugins are separate shared modules that never link each other, so these
 * are static inline: each plugin compiles its own copy of what it uses.
 *
 *   pi_class             the ASMSPY_INSN_* class of (ip, bytes, n); 0 when
 *                        there are no bytes, they do not decode, or the host
 *                        predates insn_class (a 1.7 host: every instruction
 *                        then reads as unknown — no call, ret or branch)
 *   pi_event_class       the same for an INSN event's own bytes
 *   pi_call_rel_target   where an x86-64 `call rel32` goes, from its bytes
 */
#ifndef ASMSPY_PLUGINS_COMMON_INSN_CLASS_H
#define ASMSPY_PLUGINS_COMMON_INSN_CLASS_H

#include <asmspy/plugin.h>

#include <stdint.h>
#include <string.h>

static inline uint32_t pi_class(const struct asmspy_host_api *h, uint64_t ip, const uint8_t *b,
                                size_t n) {
  if (!n || !b || !ASMSPY_HAS(h, insn_class) || !h->insn_class) return 0;
  return h->insn_class(ip, b, n);
}

static inline uint32_t pi_event_class(const struct asmspy_host_api *h,
                                      const struct asmspy_event *ev) {
  size_t n = ev->u.insn.len < sizeof ev->u.insn.bytes ? ev->u.insn.len : sizeof ev->u.insn.bytes;
  return pi_class(h, ev->ip, ev->u.insn.bytes, n);
}

/* The target of a direct call (class c of the instruction at ip, bytes b):
 * on x86-64 a relative call is `[prefixes] e8 rel32`, its displacement the
 * instruction's last 4 bytes, counted from the fall-through. 0 for any
 * other instruction, and on other architectures. */
static inline uint64_t pi_call_rel_target(uint32_t c, uint64_t ip, const uint8_t *b) {
#if defined(__x86_64__)
  uint32_t len = ASMSPY_INSN_LEN(c);
  if ((c & (ASMSPY_INSN_CALL | ASMSPY_INSN_RELATIVE)) !=
          (ASMSPY_INSN_CALL | ASMSPY_INSN_RELATIVE) ||
      len < 5)
    return 0;
  int32_t rel;
  memcpy(&rel, b + len - 4, sizeof rel);
  return ip + len + (uint64_t)(int64_t)rel;
#else
  (void)c;
  (void)ip;
  (void)b;
  return 0;
#endif
}

#endif
