/* sc_proc.c — processes: clone, clone3, execve, wait4, exit, arch_prctl, prlimit64,
 * getrandom.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

/* ---- processes ---- */
#define K_CSIGNAL 0xffu
#define K_CLONE_PARENT_SETTID 0x00100000u
#define K_CLONE_PIDFD 0x00001000u
#define K_CLONE_SETTLS 0x00080000u
#define K_CLONE_CHILD_SETTID 0x01000000u
#define K_CLONE_CHILD_CLEARTID 0x00200000u

static void put_clone_flags(struct ob *o, uint64_t v) {
  uint64_t sig = v & K_CSIGNAL, rest = v & ~(uint64_t)K_CSIGNAL;
  if (rest) put_flags_tail(o, sc_clone_flags, rest, 1);
  if (sig) {
    if (rest) ob_putc(o, '|');
    put_signal(o, sig);
  }
  if (!v) ob_putc(o, '0');
}

/* strace's shape: clone(child_stack=, flags=[, parent_tid=][, tls=][, child_tidptr=]).
 * x86-64 argument order: flags, stack, parent_tid, child_tid, tls. */
void en_clone(struct dc *d) {
  uint64_t fl = A(0);
  ob_puts(d->o, "child_stack=");
  put_addr(d->o, A(1));
  ob_puts(d->o, ", flags=");
  put_clone_flags(d->o, fl);
  if (fl & (K_CLONE_PARENT_SETTID | K_CLONE_PIDFD)) {
    ob_puts(d->o, ", parent_tid=");
    put_addr(d->o, A(2));
  }
  if (fl & K_CLONE_SETTLS) {
    ob_puts(d->o, ", tls=");
    put_addr(d->o, A(4));
  }
  if (fl & (K_CLONE_CHILD_SETTID | K_CLONE_CHILD_CLEARTID)) {
    ob_puts(d->o, ", child_tidptr=");
    put_addr(d->o, A(3));
  }
}

struct k_clone_args { /* CLONE_ARGS_SIZE_VER0 = 64 */
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

void en_clone3(struct dc *d) { /* clone3(args, size) */
  struct k_clone_args ca;
  if (!A(0))
    ob_puts(d->o, "NULL");
  else if (A(1) < sizeof ca || !mem_full(d, A(0), &ca, sizeof ca))
    put_addr(d->o, A(0));
  else {
    ob_puts(d->o, "{flags=");
    put_flags(d->o, sc_clone3_flags, ca.flags, "0");
    ob_puts(d->o, ", exit_signal=");
    put_signal(d->o, ca.exit_signal);
    ob_puts(d->o, ", stack=");
    put_addr(d->o, ca.stack);
    ob_puts(d->o, ", stack_size=");
    put_xnum(d->o, ca.stack_size);
    ob_putc(d->o, '}');
  }
  next(d);
  put_ulong(d->o, A(1));
}

void en_int(struct dc *d) { put_int(d->o, A(0)); } /* exit, exit_group, epoll_create */

void en_execve(struct dc *d) { /* execve(path, argv, envp): argv/envp not decoded */
  put_path(d, A(0));
  next(d);
  put_addr(d->o, A(1));
  next(d);
  put_addr(d->o, A(2));
}
void en_execveat(struct dc *d) { /* execveat(dirfd, path, argv, envp, flags) */
  en_dirfd_path(d);
  next(d);
  put_addr(d->o, A(2));
  next(d);
  put_addr(d->o, A(3));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(4), "0");
}

static void put_wstatus(struct dc *d, uint64_t addr) {
  struct ob *o = d->o;
  int32_t s;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || d->ret <= 0 || !mem_full(d, addr, &s, sizeof s)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "[{");
  if ((s & 0x7f) == 0) {
    ob_printf(o, "WIFEXITED(s) && WEXITSTATUS(s) == %d", (s >> 8) & 0xff);
  } else if ((s & 0xff) == 0x7f) {
    ob_puts(o, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
    put_signal(o, (s >> 8) & 0xff);
    if (s >> 16) ob_printf(o, " && s>>16 == %d", (s >> 16) & 0xffff);
  } else if (s == 0xffff) {
    ob_puts(o, "WIFCONTINUED(s)");
  } else {
    ob_puts(o, "WIFSIGNALED(s) && WTERMSIG(s) == ");
    put_signal(o, s & 0x7f);
    if (s & 0x80) ob_puts(o, " && WCOREDUMP(s)");
  }
  ob_puts(o, "}]");
}

void ex_wait4(struct dc *d) { /* wait4(pid, wstatus, options, rusage) */
  next(d);
  put_wstatus(d, A(1));
  next(d);
  put_flags(d->o, sc_wait_options, (uint32_t)A(2), "0");
  next(d);
  put_addr(d->o, A(3));
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_arch_prctl(struct dc *d) { /* arch_prctl(code, addr) */
  put_xval(d->o, sc_arch_prctl_codes, (uint32_t)A(0), XHEX);
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) { /* not ARCH_GET_FS/GS */
    next(d);
    put_addr(d->o, A(1));
  }
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) ex_arch_prctl(struct dc *d) {
  uint64_t v;
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) return;
  next(d);
  if (A(1) && OUT_OK(d) && mem_full(d, A(1), &v, sizeof v))
    ob_printf(d->o, "[%#llx]", (unsigned long long)v);
  else
    put_addr(d->o, A(1));
}

static void put_rlim_value(struct ob *o, uint64_t v) {
  if (v == UINT64_MAX)
    ob_puts(o, "RLIM64_INFINITY");
  else if (v && v % 1024 == 0)
    ob_printf(o, "%llu*1024", (unsigned long long)(v / 1024));
  else
    ob_printf(o, "%llu", (unsigned long long)v);
}
static void put_rlimit(struct dc *d, uint64_t addr, int out) {
  uint64_t r[2];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if ((out && !OUT_OK(d)) || !mem_full(d, addr, r, sizeof r))
    put_addr(d->o, addr);
  else {
    ob_puts(d->o, "{rlim_cur=");
    put_rlim_value(d->o, r[0]);
    ob_puts(d->o, ", rlim_max=");
    put_rlim_value(d->o, r[1]);
    ob_putc(d->o, '}');
  }
}
void en_prlimit64(struct dc *d) { /* prlimit64(pid, resource, new, old) */
  put_int(d->o, A(0));
  next(d);
  put_xval(d->o, sc_rlimit_resources, (uint32_t)A(1), XDEC);
  next(d);
  put_rlimit(d, A(2), 0);
}
void ex_prlimit64(struct dc *d) {
  next(d);
  put_rlimit(d, A(3), 1);
}

void ex_getrandom(struct dc *d) { /* getrandom(buf, len, flags): all at exit */
  if (OUT_OK(d))
    put_buf(d, A(0), (uint64_t)d->ret, PUT_HEX);
  else
    put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_getrandom_flags, (uint32_t)A(2), "0");
}
