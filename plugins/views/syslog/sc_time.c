/* sc_time.c — time: timespec/timeval, nanosleep, clock_nanosleep.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <errno.h>
#include <string.h>
#include <time.h>

/* ---- time ---- */
struct k_timespec {
  int64_t sec, nsec;
};

void put_timespec(struct dc *d, uint64_t addr) {
  struct k_timespec ts;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &ts, sizeof ts))
    ob_printf(d->o, "{tv_sec=%lld, tv_nsec=%lld}", (long long)ts.sec, (long long)ts.nsec);
  else
    put_addr(d->o, addr);
}

void put_timeval(struct dc *d, uint64_t addr) {
  struct k_timespec tv; /* same layout: two longs */
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &tv, sizeof tv))
    ob_printf(d->o, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv.sec, (long long)tv.nsec);
  else
    put_addr(d->o, addr);
}

/* ---- sleeping ---- */
/* The remaining time is written only when a signal cut the sleep short. */
static void put_rem(struct dc *d, uint64_t addr) {
  int interrupted = d->have_ret && (d->ret == -EINTR || d->ret == -516 /* ERESTART_RESTARTBLOCK */);
  if (addr && interrupted)
    put_timespec(d, addr);
  else
    put_addr(d->o, addr);
}
void en_nanosleep(struct dc *d) { put_timespec(d, A(0)); }
void ex_nanosleep(struct dc *d) {
  next(d);
  put_rem(d, A(1));
}
void en_clock_nanosleep(struct dc *d) { /* (clockid, flags, req, rem) */
  put_xval_q(d->o, sc_clocks, (uint32_t)A(0), "CLOCK_???");
  next(d);
  put_flags(d->o, sc_clock_flags, (uint32_t)A(1), "0");
  next(d);
  put_timespec(d, A(2));
}
void ex_clock_nanosleep(struct dc *d) {
  next(d);
  put_rem(d, A(3));
}

/* clock_gettime / clock_getres (clockid, tp): the time at the exit */
void en_clockid(struct dc *d) { put_xval_q(d->o, sc_clocks, (uint32_t)A(0), "CLOCK_???"); }
void ex_clock_get(struct dc *d) {
  next(d);
  if (A(1) && !OUT_OK(d))
    put_addr(d->o, A(1));
  else
    put_timespec(d, A(1));
}

/* ==== issue 26 part B: timers and the time of day ========================== */
/* {it_interval={tv_sec=0, tv_usec=0}, it_value={...}} */
void put_itimerval(struct dc *d, uint64_t addr) {
  int64_t v[4];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, v, sizeof v))
    ob_printf(d->o,
              "{it_interval={tv_sec=%lld, tv_usec=%lld}, it_value={tv_sec=%lld, tv_usec=%lld}}",
              (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
  else
    put_addr(d->o, addr);
}
void put_itimerspec(struct dc *d, uint64_t addr) {
  int64_t v[4];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, v, sizeof v))
    ob_printf(d->o,
              "{it_interval={tv_sec=%lld, tv_nsec=%lld}, it_value={tv_sec=%lld, tv_nsec=%lld}}",
              (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
  else
    put_addr(d->o, addr);
}
/* An out-parameter at the exit: its address unless the call succeeded. */
#define OUT_OR_ADDR(d, addr, printer)                                                              \
  do {                                                                                             \
    if ((addr) && !OUT_OK(d))                                                                      \
      put_addr((d)->o, (addr));                                                                    \
    else                                                                                           \
      printer((d), (addr));                                                                        \
  } while (0)

static void put_timezone(struct dc *d, uint64_t addr) {
  int32_t tz[2];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, tz, sizeof tz))
    ob_printf(d->o, "{tz_minuteswest=%d, tz_dsttime=%d}", tz[0], tz[1]);
  else
    put_addr(d->o, addr);
}
void ex_gettimeofday(struct dc *d) { /* gettimeofday(tv, tz) */
  OUT_OR_ADDR(d, A(0), put_timeval);
  next(d);
  OUT_OR_ADDR(d, A(1), put_timezone);
}

/* strace's time_t comment: 2026-12-05T01:33:41+0000 (local time) */
static void put_time_iso(struct ob *o, int64_t t) {
  time_t tt = (time_t)t;
  struct tm tm;
  char buf[64];
  if (localtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%FT%T%z", &tm))
    ob_puts(o, buf);
  else
    ob_printf(o, "%lld", (long long)t);
}
void ex_time(struct dc *d) { /* time(tloc) */
  int64_t t;
  if (!A(0))
    ob_puts(d->o, "NULL");
  else if (OUT_OK(d) && mem_full(d, A(0), &t, sizeof t)) {
    ob_printf(d->o, "[%lld", (long long)t);
    if (d->o->strace) {
      ob_puts(d->o, " /* ");
      put_time_iso(d->o, t);
      ob_puts(d->o, " */");
    }
    ob_putc(d->o, ']');
  } else
    put_addr(d->o, A(0));
}
void rt_time(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  ob_puts(d->o, " (");
  put_time_iso(d->o, d->ret);
  ob_putc(d->o, ')');
}
static void put_tms(struct dc *d, uint64_t addr) {
  uint64_t t[4];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, t, sizeof t))
    ob_printf(d->o, "{tms_utime=%llu, tms_stime=%llu, tms_cutime=%llu, tms_cstime=%llu}",
              (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
              (unsigned long long)t[3]);
  else
    put_addr(d->o, addr);
}
void ex_times(struct dc *d) { OUT_OR_ADDR(d, A(0), put_tms); }

void en_setitimer(struct dc *d) { /* setitimer(which, new, old) */
  put_xval_q(d->o, sc_itimer_which, (uint32_t)A(0), "ITIMER_???");
  next(d);
  put_itimerval(d, A(1));
}
void ex_setitimer(struct dc *d) {
  next(d);
  OUT_OR_ADDR(d, A(2), put_itimerval);
}
void en_getitimer(struct dc *d) { put_xval_q(d->o, sc_itimer_which, (uint32_t)A(0), "ITIMER_???"); }
void ex_getitimer(struct dc *d) {
  next(d);
  OUT_OR_ADDR(d, A(1), put_itimerval);
}

/* struct sigevent as strace prints it (sigev_value only when non-zero) */
static void put_sigevent(struct dc *d, uint64_t addr) {
  struct {
    uint64_t value;
    int32_t signo, notify;
    union {
      int32_t tid;
      struct {
        uint64_t function, attribute;
      } thr;
    } un;
  } ev;
  struct ob *o = d->o;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!mem_full(d, addr, &ev, sizeof ev)) {
    put_addr(o, addr);
    return;
  }
  ob_putc(o, '{');
  if (ev.value) {
    ob_printf(o, "sigev_value={sival_int=%d, sival_ptr=", (int32_t)ev.value);
    put_addr(o, ev.value);
    ob_puts(o, "}, ");
  }
  ob_puts(o, "sigev_signo=");
  if (ev.notify == 0 || ev.notify == 2 || ev.notify == 4)
    put_signal(o, (uint32_t)ev.signo);
  else
    ob_printf(o, "%u", (uint32_t)ev.signo);
  ob_puts(o, ", sigev_notify=");
  put_xval_q(o, sc_sigev_notify, (uint32_t)ev.notify, "SIGEV_???");
  if (ev.notify == 4) {
    ob_printf(o, ", sigev_notify_thread_id=%d", ev.un.tid);
  } else if (ev.notify == 2) {
    ob_puts(o, ", sigev_notify_function=");
    put_addr(o, ev.un.thr.function);
    ob_puts(o, ", sigev_notify_attributes=");
    put_addr(o, ev.un.thr.attribute);
  }
  ob_putc(o, '}');
}
void en_timer_create(struct dc *d) { /* timer_create(clockid, sevp, timerid) */
  put_xval_q(d->o, sc_clocks, (uint32_t)A(0), "CLOCK_???");
  next(d);
  put_sigevent(d, A(1));
}
void ex_timer_create(struct dc *d) {
  next(d);
  OUT_OR_ADDR(d, A(2), put_intptr);
}
void en_timer_settime(struct dc *d) { /* timer_settime(id, flags, new, old) */
  put_int(d->o, A(0));
  next(d);
  put_flags_q(d->o, sc_clock_flags, (uint32_t)A(1), "TIMER_???");
  next(d);
  put_itimerspec(d, A(2));
}
void ex_timer_settime(struct dc *d) {
  next(d);
  OUT_OR_ADDR(d, A(3), put_itimerspec);
}
void en_timer_gettime(struct dc *d) { put_int(d->o, A(0)); }
void ex_timer_gettime(struct dc *d) {
  next(d);
  OUT_OR_ADDR(d, A(1), put_itimerspec);
}
void en_timerfd_create(struct dc *d) { /* timerfd_create(clockid, flags) */
  put_xval_q(d->o, sc_clocks, (uint32_t)A(0), "CLOCK_???");
  next(d);
  put_flags_q(d->o, sc_timerfd_create_flags, (uint32_t)A(1), "TFD_???");
}
void en_timerfd_settime(struct dc *d) { /* timerfd_settime(fd, flags, new, old) */
  put_fd(d, A(0));
  next(d);
  put_flags_q(d->o, sc_timerfd_settime_flags, (uint32_t)A(1), "TFD_TIMER_???");
  next(d);
  put_itimerspec(d, A(2));
}
void en_timerfd_gettime(struct dc *d) { put_fd(d, A(0)); }
