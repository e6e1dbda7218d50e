/* victim_signals: calls interrupted by signals. An interval timer raises
 * SIGALRM every few milliseconds while main() calls work(), which calls
 * helper() 5 times, then sleeps briefly. The SIGALRM handler calls
 * in_handler(). The handler runs on the interrupted thread's stack, below
 * whatever frame was live: a tracer must neither attribute an edge into the
 * handler to the interrupted call nor lose the frames beneath it.
 * Prints its pid first so scripts can attach. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

volatile long sink;
volatile sig_atomic_t alarms;

__attribute__((noinline)) long in_handler(int sig) { return (long)sig * 7 + alarms; }

static void on_alarm(int sig) {
  alarms++;
  sink += in_handler(sig);
}

__attribute__((noinline)) long helper(long x) { return x * 3 + 1; }

__attribute__((noinline)) long work(long n) {
  long acc = 0;
  for (int i = 0; i < 5; i++) acc += helper(n + i);
  return acc;
}

int main(int argc, char **argv) {
  long period_us = argc > 1 ? atol(argv[1]) : 3000;
  long sleep_us = argc > 2 ? atol(argv[2]) : 1000;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {.it_interval = {0, period_us}, .it_value = {0, period_us}};
  setitimer(ITIMER_REAL, &it, NULL);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long i = 0;; i++) {
    sink = work(i);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
