/* plugins/common/k_siginfo.h — the kernel's 64-bit siginfo layout (what
 * PTRACE_GETSIGINFO writes, 128 bytes; its union starts at byte 16), for the
 * plugins that read one: the ptrace backend (into u.signal) and the syscall
 * log (waitid, rt_sigtimedwait, rt_sigqueueinfo). */
#ifndef ASMSPY_PLUGINS_COMMON_K_SIGINFO_H
#define ASMSPY_PLUGINS_COMMON_K_SIGINFO_H

#include <stdint.h>

struct k_siginfo {
  int32_t signo, err, code, pad;
  union {
    struct {
      int32_t pid;
      uint32_t uid;
      int32_t status, pad;
      int64_t utime, stime;
    } chld;
    struct {
      int32_t pid;
      uint32_t uid;
      uint64_t value;
    } rt;
    struct {
      int32_t tid, overrun;
      uint64_t value;
    } timer;
    struct {
      uint64_t addr;
    } fault;
    struct {
      int64_t band;
      int32_t fd;
    } poll;
    struct {
      uint64_t call_addr;
      int32_t syscall;
      uint32_t arch;
    } sys;
  } u;
  char rest[128 - 16 - 32];
};
_Static_assert(sizeof(struct k_siginfo) == 128, "the kernel's siginfo is 128 bytes");

#endif
