/* sc_signal.c — signals: signal names and sets, rt_sigaction, rt_sigprocmask, kill.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

/* ---- signals ---- */
void put_signal(struct ob *o, uint64_t v) {
  int sig = (int)v;
  const char *n = sc_signal_name(sig);
  if (n)
    ob_puts(o, n);
  else if (sig == 32)
    ob_puts(o, "SIGRTMIN");
  else if (sig > 32 && sig <= 64)
    ob_printf(o, "SIGRT_%d", sig - 32);
  else
    ob_printf(o, "%d", sig);
}

/* [INT TERM]; more than two thirds set prints the complement, ~[RTMIN RT_1]. */
static void put_sigmask(struct ob *o, uint64_t mask) {
  if (__builtin_popcountll(mask) >= 64 * 2 / 3) {
    ob_putc(o, '~');
    mask = ~mask;
  }
  ob_putc(o, '[');
  int first = 1;
  for (int sig = 1; sig <= 64; sig++) {
    if (!(mask & (1ull << (sig - 1)))) continue;
    if (!first) ob_putc(o, ' ');
    first = 0;
    const char *n = sc_signal_name(sig);
    if (n)
      ob_puts(o, n + 3);
    else if (sig == 32)
      ob_puts(o, "RTMIN");
    else
      ob_printf(o, "RT_%d", sig - 32);
  }
  ob_putc(o, ']');
}

void put_sigset(struct dc *d, uint64_t addr, uint64_t size) {
  uint64_t mask = 0;
  size_t n = size > sizeof mask ? sizeof mask : (size_t)size;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (n && mem_full(d, addr, &mask, n))
    put_sigmask(d->o, mask);
  else
    put_addr(d->o, addr);
}


/* ---- signals ---- */
struct k_sigaction {
  uint64_t handler, flags, restorer, mask;
};
#define K_SA_RESTORER 0x04000000u

static void put_sigaction(struct dc *d, uint64_t addr, int out) {
  struct ob *o = d->o;
  struct k_sigaction sa;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if ((out && !OUT_OK(d)) || !mem_full(d, addr, &sa, sizeof sa)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "{sa_handler=");
  if (sa.handler == 0)
    ob_puts(o, "SIG_DFL");
  else if (sa.handler == 1)
    ob_puts(o, "SIG_IGN");
  else
    put_xnum(o, sa.handler);
  ob_puts(o, ", sa_mask=");
  put_sigmask(o, sa.mask);
  ob_puts(o, ", sa_flags=");
  put_flags(o, sc_sa_flags, sa.flags, "0");
  if (sa.flags & K_SA_RESTORER) {
    ob_puts(o, ", sa_restorer=");
    put_addr(o, sa.restorer);
  }
  ob_putc(o, '}');
}

void en_rt_sigaction(struct dc *d) { /* rt_sigaction(sig, act, oldact, size) */
  put_signal(d->o, A(0));
  next(d);
  put_sigaction(d, A(1), 0);
}
void ex_rt_sigaction(struct dc *d) {
  next(d);
  put_sigaction(d, A(2), 1);
  next(d);
  put_ulong(d->o, A(3));
}

void en_rt_sigprocmask(struct dc *d) { /* rt_sigprocmask(how, set, oldset, size) */
  put_xval(d->o, sc_sigprocmask_how, (uint32_t)A(0), XSDEC);
  next(d);
  put_sigset(d, A(1), A(3));
}
void ex_rt_sigprocmask(struct dc *d) {
  next(d);
  if (A(2) && !OUT_OK(d))
    put_addr(d->o, A(2));
  else
    put_sigset(d, A(2), A(3));
  next(d);
  put_ulong(d->o, A(3));
}

void en_kill(struct dc *d) { /* kill(pid, sig), tkill(tid, sig) */
  put_int(d->o, A(0));
  next(d);
  put_signal(d->o, A(1));
}
void en_tgkill(struct dc *d) { /* tgkill(tgid, tid, sig) */
  put_int(d->o, A(0));
  next(d);
  put_int(d->o, A(1));
  next(d);
  put_signal(d->o, A(2));
}
