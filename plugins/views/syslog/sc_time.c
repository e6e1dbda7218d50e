/* sc_time.c — time: timespec/timeval, nanosleep, clock_nanosleep.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <errno.h>

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
  put_xval(d->o, sc_clocks, (uint32_t)A(0), XSDEC);
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
void en_clockid(struct dc *d) { put_xval(d->o, sc_clocks, (uint32_t)A(0), XSDEC); }
void ex_clock_get(struct dc *d) {
  next(d);
  if (A(1) && !OUT_OK(d))
    put_addr(d->o, A(1));
  else
    put_timespec(d, A(1));
}
