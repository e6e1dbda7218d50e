/* plugins/common/signal_frame.h — is a return address the kernel's signal
 * trampoline? A call backend (entrypatch) records a signal handler's entry
 * like any other, with the return address the kernel put there: the
 * sa_restorer, whose code is `mov rax, 15; syscall` (rt_sigreturn) on
 * x86-64. No call instruction made that call, so the instruction views
 * never count it; the call views use this to treat it the same way. The
 * restorer is a local symbol (unnamed without debug info): its bytes are
 * the only reliable sign. */
#ifndef ASMSPY_PLUGINS_COMMON_SIGNAL_FRAME_H
#define ASMSPY_PLUGINS_COMMON_SIGNAL_FRAME_H

#include <asmspy/plugin.h>
#include <string.h>

static inline int ret_is_sigreturn(const struct asmspy_host_api *host, struct asmspy_target *t,
                                   uint64_t ret) {
#if defined(__x86_64__)
  static const uint8_t restorer[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  uint8_t b[sizeof restorer];
  return t && ret && host->read_mem(t, ret, b, sizeof b) == (ssize_t)sizeof b &&
         memcmp(b, restorer, sizeof b) == 0;
#else
  (void)host, (void)t, (void)ret;
  return 0;
#endif
}

#endif
