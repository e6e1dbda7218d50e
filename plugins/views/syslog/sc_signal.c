/* sc_signal.c — signals: signal names and sets, rt_sigaction, rt_sigprocmask, kill.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include "plugins/common/k_siginfo.h"
#include <signal.h>
#include <string.h>

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

/* ---- siginfo ---- */
static const struct sc_xlat si_codes[] = {{0, "SI_USER"},
                                          {0x80, "SI_KERNEL"},
                                          {(uint32_t)-1, "SI_QUEUE"},
                                          {(uint32_t)-2, "SI_TIMER"},
                                          {(uint32_t)-3, "SI_MESGQ"},
                                          {(uint32_t)-4, "SI_ASYNCIO"},
                                          {(uint32_t)-5, "SI_SIGIO"},
                                          {(uint32_t)-6, "SI_TKILL"},
                                          {(uint32_t)-7, "SI_DETHREAD"},
                                          {(uint32_t)-60, "SI_ASYNCNL"},
                                          {0, NULL}};
static const struct sc_xlat cld_codes[] = {
    {1, "CLD_EXITED"},  {2, "CLD_KILLED"},    {3, "CLD_DUMPED"}, {4, "CLD_TRAPPED"},
    {5, "CLD_STOPPED"}, {6, "CLD_CONTINUED"}, {0, NULL}};
static const struct sc_xlat segv_codes[] = {
    {1, "SEGV_MAPERR"}, {2, "SEGV_ACCERR"}, {3, "SEGV_BNDERR"}, {4, "SEGV_PKUERR"}, {0, NULL}};
static const struct sc_xlat bus_codes[] = {{1, "BUS_ADRALN"},    {2, "BUS_ADRERR"},
                                           {3, "BUS_OBJERR"},    {4, "BUS_MCEERR_AR"},
                                           {5, "BUS_MCEERR_AO"}, {0, NULL}};
static const struct sc_xlat trap_codes[] = {
    {1, "TRAP_BRKPT"}, {2, "TRAP_TRACE"}, {3, "TRAP_BRANCH"}, {4, "TRAP_HWBKPT"}, {0, NULL}};
static const struct sc_xlat poll_codes[] = {{1, "POLL_IN"},  {2, "POLL_OUT"}, {3, "POLL_MSG"},
                                            {4, "POLL_ERR"}, {5, "POLL_PRI"}, {6, "POLL_HUP"},
                                            {0, NULL}};

/* The kernel's layout into the neutral struct (the members si_code and
 * signo say are live). */
static void siginfo_from_kernel(const struct k_siginfo *k, struct sc_siginfo *si) {
  memset(si, 0, sizeof *si);
  si->signo = k->signo;
  si->err = k->err;
  si->code = k->code;
  if (k->code == -2) { /* SI_TIMER */
    si->timerid = k->u.timer.tid;
    si->overrun = k->u.timer.overrun;
    si->value = k->u.timer.value;
  } else if (k->code <= 0) {
    si->pid = k->u.rt.pid;
    si->uid = k->u.rt.uid;
    si->value = k->u.rt.value;
  } else if (k->code != 0x80) {
    switch (k->signo) {
    case SIGCHLD:
      si->pid = k->u.chld.pid;
      si->uid = k->u.chld.uid;
      si->status = k->u.chld.status;
      si->utime = k->u.chld.utime;
      si->stime = k->u.chld.stime;
      break;
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP: si->addr = k->u.fault.addr; break;
    case SIGPOLL:
      si->band = k->u.poll.band;
      si->fd = k->u.poll.fd;
      break;
    case SIGSYS:
      si->addr = k->u.sys.call_addr;
      si->syscall = k->u.sys.syscall;
      si->arch = k->u.sys.arch;
      break;
    default: break;
    }
  }
}

/* {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1, si_uid=0, si_status=0, si_utime=0, si_stime=0}
 * (strace's printsiginfo): the struct of waitid / rt_sigtimedwait /
 * rt_sigqueueinfo and of the `--- SIGX {...} ---` signal lines. */
void put_siginfo_fields(struct ob *o, const struct sc_siginfo *si) {
  if (si->signo == 0) {
    ob_puts(o, "{}");
    return;
  }
  ob_puts(o, "{si_signo=");
  put_signal(o, (uint32_t)si->signo);
  ob_puts(o, ", si_code=");
  const struct sc_xlat *kx = NULL;
  if (si->code > 0 && si->code != 0x80) {
    switch (si->signo) {
    case SIGCHLD: kx = cld_codes; break;
    case SIGSEGV: kx = segv_codes; break;
    case SIGBUS: kx = bus_codes; break;
    case SIGTRAP: kx = trap_codes; break;
    case SIGPOLL: kx = poll_codes; break;
    default: break;
    }
  }
  const char *cn = sc_xlat_name(kx ? kx : si_codes, (uint32_t)si->code);
  if (cn)
    ob_puts(o, cn);
  else
    ob_printf(o, "%d", si->code);
  if (si->err) ob_printf(o, ", si_errno=%d", si->err);
  if (si->code <= 0 || si->code == 0x80) { /* sent by a process (or the kernel) */
    if (si->code == -2) {                  /* SI_TIMER */
      ob_printf(o, ", si_timerid=%#x, si_overrun=%d, si_int=%d, si_ptr=%#llx",
                (unsigned)si->timerid, si->overrun, (int32_t)si->value,
                (unsigned long long)si->value);
    } else if (si->code != 0x80) {
      ob_printf(o, ", si_pid=%d, si_uid=%u", si->pid, si->uid);
      if (si->code == -1 || si->code == -3)
        ob_printf(o, ", si_int=%d, si_ptr=%#llx", (int32_t)si->value,
                  (unsigned long long)si->value);
    }
  } else {
    switch (si->signo) {
    case SIGCHLD:
      ob_printf(o, ", si_pid=%d, si_uid=%u, si_status=", si->pid, si->uid);
      if (si->code == 1)
        ob_printf(o, "%d", si->status);
      else
        put_signal(o, (uint32_t)si->status);
      ob_printf(o, ", si_utime=%lld, si_stime=%lld", (long long)si->utime, (long long)si->stime);
      break;
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP:
      ob_puts(o, ", si_addr=");
      put_addr(o, si->addr);
      break;
    case SIGPOLL: ob_printf(o, ", si_band=%lld, si_fd=%d", (long long)si->band, si->fd); break;
    case SIGSYS:
      ob_puts(o, ", si_call_addr=");
      put_addr(o, si->addr);
      ob_printf(o, ", si_syscall=%d, si_arch=%#x", si->syscall, si->arch);
      break;
    default: break;
    }
  }
  ob_putc(o, '}');
}

/* A siginfo_t in the target at addr. */
void put_siginfo(struct dc *d, uint64_t addr, int out) {
  struct ob *o = d->o;
  struct k_siginfo k;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if ((out && !OUT_OK(d)) || !mem_full(d, addr, &k, sizeof k)) {
    put_addr(o, addr);
    return;
  }
  struct sc_siginfo si;
  siginfo_from_kernel(&k, &si);
  put_siginfo_fields(o, &si);
}

/* The public form (sc_decode.h): the signal lines' struct. */
void sc_siginfo_text(unsigned env_flags, const struct sc_siginfo *si, char *buf, size_t cap) {
  struct ob o;
  ob_init(&o, buf, cap);
  o.strace = (env_flags & SC_ENV_STRACE) != 0;
  put_siginfo_fields(&o, si);
}

/* ---- sigaltstack, pending, suspend, timedwait, queueinfo ---- */
static const struct sc_xlat ss_flags[] = {
    {1, "SS_ONSTACK"}, {2, "SS_DISABLE"}, {0x80000000u, "SS_AUTODISARM"}, {0, NULL}};
static void put_stack(struct dc *d, uint64_t addr, int out) {
  struct {
    uint64_t sp;
    int32_t flags, pad;
    uint64_t size;
  } ss;
  struct ob *o = d->o;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if ((out && !OUT_OK(d)) || !mem_full(d, addr, &ss, sizeof ss)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "{ss_sp=");
  put_addr(o, ss.sp);
  ob_puts(o, ", ss_flags=");
  put_flags(o, ss_flags, (uint32_t)ss.flags, "0");
  ob_printf(o, ", ss_size=%llu}", (unsigned long long)ss.size);
}
void en_sigaltstack(struct dc *d) { put_stack(d, A(0), 0); }
void ex_sigaltstack(struct dc *d) {
  next(d);
  put_stack(d, A(1), 1);
}

void ex_rt_sigpending(struct dc *d) { /* rt_sigpending(set, size): all at the exit */
  if (A(0) && !OUT_OK(d))
    put_addr(d->o, A(0));
  else
    put_sigset(d, A(0), A(1));
  next(d);
  put_ulong(d->o, A(1));
}
void en_rt_sigsuspend(struct dc *d) { /* rt_sigsuspend(mask, size) */
  put_sigset(d, A(0), A(1));
  next(d);
  put_ulong(d->o, A(1));
}
void en_rt_sigtimedwait(struct dc *d) { put_sigset(d, A(0), A(3)); }
void ex_rt_sigtimedwait(struct dc *d) { /* (set, info, timeout, size) */
  next(d);
  put_siginfo(d, A(1), 1);
  next(d);
  put_timespec(d, A(2));
  next(d);
  put_ulong(d->o, A(3));
}
/* = 12 (SIGUSR2) */
void rt_signo(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  if (dc_strace(d) && d->ret > 0) {
    ob_puts(d->o, " (");
    put_signal(d->o, (uint64_t)d->ret);
    ob_putc(d->o, ')');
  }
}
void en_rt_sigqueueinfo(struct dc *d) { /* rt_sigqueueinfo(pid, sig, info) */
  put_int(d->o, A(0));
  next(d);
  put_signal(d->o, A(1));
  next(d);
  put_siginfo(d, A(2), 0);
}
void en_rt_tgsigqueueinfo(struct dc *d) { /* rt_tgsigqueueinfo(tgid, tid, sig, info) */
  put_int(d->o, A(0));
  next(d);
  put_int(d->o, A(1));
  next(d);
  put_signal(d->o, A(2));
  next(d);
  put_siginfo(d, A(3), 0);
}
