/* time: clocks, sleeps, timers (values masked by the harness). */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  struct timespec ts = {0, 1000000}, res;
  syscall(SYS_clock_getres, CLOCK_MONOTONIC, &res);
  syscall(SYS_nanosleep, &ts, NULL);
  syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
  syscall(SYS_clock_nanosleep, CLOCK_REALTIME, TIMER_ABSTIME, &res, NULL);
  syscall(SYS_nanosleep, (void *)16, NULL); /* EFAULT */
  struct itimerval it = {{0, 0}, {0, 0}}, old;
  syscall(SYS_setitimer, ITIMER_REAL, &it, NULL);
  syscall(SYS_alarm, 0);
  /* added for issue 26 */
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &res);
  syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &res);
  syscall(SYS_clock_gettime, 99, &res); /* EINVAL */
  struct timeval tv;
  syscall(SYS_gettimeofday, &tv, NULL);
  syscall(SYS_gettimeofday, NULL, NULL);
  time_t t;
  syscall(SYS_time, NULL);
  syscall(SYS_time, &t);
  struct tms tm;
  syscall(SYS_times, &tm);
  it.it_interval.tv_sec = 0;
  it.it_value.tv_sec = 100;
  syscall(SYS_setitimer, ITIMER_VIRTUAL, &it, &old);
  syscall(SYS_getitimer, ITIMER_VIRTUAL, &old);
  it.it_value.tv_sec = 0;
  syscall(SYS_setitimer, ITIMER_VIRTUAL, &it, NULL);
  syscall(SYS_getitimer, ITIMER_PROF, &old);
  syscall(SYS_getitimer, 7, &old); /* EINVAL */
  syscall(SYS_alarm, 100);
  syscall(SYS_alarm, 0);
  struct sigevent sev = {0};
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGALRM;
  sev.sigev_value.sival_int = 7;
  int tid;
  syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &tid);
  struct itimerspec its = {{0, 0}, {100, 0}}, oits;
  syscall(SYS_timer_settime, tid, 0, &its, &oits);
  syscall(SYS_timer_gettime, tid, &oits);
  syscall(SYS_timer_getoverrun, tid);
  syscall(SYS_timer_delete, tid);
  sev.sigev_notify = SIGEV_NONE;
  syscall(SYS_timer_create, CLOCK_REALTIME, &sev, &tid);
  syscall(SYS_timer_delete, tid);
  syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, &tid);
  syscall(SYS_timer_delete, tid);
  int tfd = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  its.it_value.tv_sec = 50;
  its.it_interval.tv_nsec = 5000;
  syscall(SYS_timerfd_settime, tfd, 0, &its, &oits);
  syscall(SYS_timerfd_gettime, tfd, &oits);
  its.it_value.tv_sec = 0;
  syscall(SYS_timerfd_settime, tfd, TFD_TIMER_ABSTIME, &its, NULL);
  syscall(SYS_close, tfd);
  syscall(SYS_timerfd_create, CLOCK_REALTIME, 0x10); /* EINVAL */
  return 0;
}
