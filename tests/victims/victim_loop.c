/* victim_loop: the canonical demo target. main() calls work() forever; work()
 * calls helper() 5 times per invocation and then sleeps briefly, so a traced
 * stream shows the target's own functions, a PLT call and libc's sleep path.
 * Prints its pid first so scripts can attach. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) long helper(long x) { return x * 3 + 1; }

__attribute__((noinline)) long work(long n) {
  long acc = 0;
  for (int i = 0; i < 5; i++) acc += helper(n + i);
  return acc;
}

int main(int argc, char **argv) {
  long sleep_us = argc > 1 ? atol(argv[1]) : 2000;
  long iterations = argc > 2 ? atol(argv[2]) : -1; /* -1: forever */
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long i = 0; iterations < 0 || i < iterations; i++) {
    sink = work(i);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
