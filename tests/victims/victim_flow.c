/* victim_flow: the arm64 suite's data-flow target (tests/arm64/suite/
 * 65_dataflow.sh); portable C, built for every arch. flow() stores two
 * values into a global pair, loads them back, compares (the flags), and
 * stores and returns the result: every def-use edge --dataflow must find
 * is one the printed line states independently of asmspy.
 *   argv[1]  sleep between calls in microseconds (default 2000)
 * Prints its pid first, then "addr <&g_pair.a> <&g_pair.b> <&g_out>" once,
 * then per call (flushed):
 *   flow <x> <y> <a> <b> <out> <ret>         decimal
 * where a = x + y, b = 3 * x, out = a + b (less 7 when above 100), ret =
 * out ^ x. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct pair {
  long a, b;
};
struct pair g_pair;
long g_out;
volatile long sink;

__attribute__((noinline)) long twice(long x) { return sink + 2 * x - sink; }

/* not a leaf (it calls twice()): its frame record is pushed and popped
 * (AArch64: stp x29, x30, [sp, #-N]! / ldp x29, x30, [sp], #N) */
__attribute__((noinline)) long flow(long x, long y) {
  g_pair.a = x + y;
  g_pair.b = x + twice(x);
  long s = *(volatile long *)&g_pair.a + *(volatile long *)&g_pair.b;
  if (s > 100) s -= 7;
  g_out = s;
  return s ^ x;
}

int main(int argc, char **argv) {
  long sleep_us = argc > 1 ? atol(argv[1]) : 2000;
  printf("%d\n", (int)getpid());
  printf("addr %p %p %p\n", (void *)&g_pair.a, (void *)&g_pair.b, (void *)&g_out);
  fflush(stdout);
  for (long i = 0;; i++) {
    long x = 10 + (i % 50), y = 7 + 2 * (i % 9);
    long r = flow(x, y);
    sink = r;
    printf("flow %ld %ld %ld %ld %ld %ld\n", x, y, g_pair.a, g_pair.b, g_out, r);
    fflush(stdout);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
