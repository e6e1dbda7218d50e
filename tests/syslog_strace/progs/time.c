/* time: clocks and sleeps (values masked by the harness). */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  struct timespec ts = {0, 1000000}, res;
  syscall(SYS_clock_getres, CLOCK_MONOTONIC, &res);
  syscall(SYS_nanosleep, &ts, NULL);
  syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
  syscall(SYS_clock_nanosleep, CLOCK_REALTIME, TIMER_ABSTIME, &res, NULL);
  syscall(SYS_nanosleep, (void *)16, NULL); /* EFAULT */
  struct itimerval it = {{0, 0}, {0, 0}};
  syscall(SYS_setitimer, ITIMER_REAL, &it, NULL);
  syscall(SYS_alarm, 0);
  return 0;
}
