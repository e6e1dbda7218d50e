/* calls_workload: a deterministic call-heavy program for the call tests and
 * bench/run_calls_bench.sh. `calls_workload <iterations> [--wait]`:
 * main -> run(n) -> per iteration: outer(i) -> mid(i) x2 -> leaf(i) x2,
 * and rec(3) (recursion, 4 frames). No tail calls (built
 * -fno-optimize-sibling-calls), nothing inlined, so every call is a call.
 * Calls per iteration: outer 1, mid 2, leaf 4, rec 4 = 11 (+ run 1, once).
 * --wait: print the pid, then block until SIGUSR1 before running, so a
 * tracer can attach to the already-running process first. Prints
 * "checksum <n>" at the end, and run()'s own time as "elapsed_ns <n>" on
 * stderr. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wait_start.h"

__attribute__((noinline)) long leaf(long x) { return x * 7 + 3; }

__attribute__((noinline)) long mid(long x) { return leaf(x) ^ leaf(x + 1); }

__attribute__((noinline)) long rec(int d) { return d ? rec(d - 1) + d : 1; }

__attribute__((noinline)) long outer(long i) { return mid(i) + mid(i + 2) + rec(3); }

__attribute__((noinline)) long run(long n) {
  long acc = 0;
  for (long i = 0; i < n; i++) acc += outer(i);
  return acc;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  if (argc > 2 && !strcmp(argv[2], "--wait")) wait_start();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long sum = run(n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("checksum %ld\n", sum);
  /* run()'s own time, for bench/run_calls_bench.sh (whatever traces it) */
  fprintf(stderr, "elapsed_ns %lld\n",
          (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
  return 0;
}
