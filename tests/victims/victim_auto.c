/* victim_auto: the shape the --auto rules are about.
 *
 * main() calls grind_forever() once; it never returns. grind_forever spins
 * in its own loop body (GRIND_ROUNDS rounds of arithmetic per pass) and
 * calls entered_often() once per pass. So:
 *   - residency (sw-clock, ptrace probes): grind_forever holds most of the
 *     samples (~90% of the instructions retired), entered_often the rest,
 *     nothing else runs; the residency winner is a function entered exactly
 *     once, before any tracer attached — an entry breakpoint on it never
 *     fires, which is the rule's known failure shape;
 *   - entered_often is entered a few million times per second: its entry
 *     breakpoint fires at once, and one invocation is a short, fixed data
 *     flow (a multiply, a shift, an xor, an add: ~10 instructions).
 * The skew is by construction (instruction counts per pass), not by timing,
 * so the ranking is the same on any machine.
 *
 * `victim_auto idle` prints its pid and sleeps in pause() forever: no user
 * instruction ever runs, so every sampler sees nothing (--auto refuses).
 * `victim_auto <ms>` grinds the same way but exits after about ms of wall
 * time (checked once every 2^20 passes), for `--launch sample`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GRIND_ROUNDS 12

volatile unsigned long sink;

__attribute__((noinline)) unsigned long entered_often(unsigned long x) {
  unsigned long y = x * 0x9e3779b97f4a7c15ul;
  return (y ^ (y >> 29)) + 7;
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* deadline_ms 0: forever */
__attribute__((noinline)) void grind_forever(long deadline_ms) {
  unsigned long acc = 1;
  for (unsigned long pass = 0;; pass++) {
    for (int r = 0; r < GRIND_ROUNDS; r++) acc = acc * 31 + (acc >> 7) + (unsigned long)r;
    sink = entered_often(acc + pass);
    if (deadline_ms && (pass & 0xfffff) == 0 && now_ms() >= deadline_ms) return;
  }
}

int main(int argc, char **argv) {
  printf("%d\n", (int)getpid());
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "idle") == 0)
    for (;;) pause();
  long for_ms = argc > 1 ? atol(argv[1]) : 0;
  grind_forever(for_ms > 0 ? now_ms() + for_ms : 0);
  return 0;
}
