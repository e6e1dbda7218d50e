/* calls_sigstorm: a 20 kHz SIGALRM (setitimer, SA_RESTART) whose handler
 * calls storm_hot(), the very function the main loop calls N times. With a
 * tracer's ring full, the handler lands while the main line waits for the
 * reader or stands inside the agent's emit (harm_sig's stall).
 *
 * `calls_sigstorm N [--wait]`: after SIGUSR1 (--wait), N calls in the main
 * loop under the timer, then prints "calls <main + handler calls>" and
 * "checksum <n>" and exits 0. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "wait_start.h"

__attribute__((noinline)) unsigned long storm_hot(unsigned long x) {
  __asm__ volatile("" : "+r"(x)); /* really called */
  return (x * 2654435761u) ^ (x >> 3);
}

static volatile unsigned long handler_calls, handler_sum;

static void on_alarm(int sig) {
  (void)sig;
  handler_sum += storm_hot(handler_calls * 7 + 3);
  handler_calls++;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
  if (argc > 2 && !strcmp(argv[2], "--wait")) wait_start();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &it, NULL);
  unsigned long sum = 0;
  for (unsigned long i = 0; i < n; i++) sum += storm_hot(i) & 0xffff;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("calls %lu\nchecksum %lu\n", n + handler_calls, sum);
  return 0;
}
