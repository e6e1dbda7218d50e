/* victim_callshape: every shape a call takes, in a known structure, for the
 * call graph/tree tests on both architectures: a direct call (x86 `call
 * rel32`, AArch64 `bl`), an indirect call through a function pointer
 * (`call *reg` / `blr`), and a tail call compiled as a jump (`jmp` / `b`:
 * -foptimize-sibling-calls for this file). Per round of the loop:
 *   round -> outer (direct) -> mid (indirect) -> leaf (direct)
 *                                            -> tail_leaf (tail call from mid)
 * so outer, mid, leaf and tail_leaf run once per round and tail_leaf
 * returns straight to outer. Prints its pid, then `rounds=N` per 100.
 *   victim_callshape [rounds]   (default: forever) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long leaf(unsigned long x) { return x * 3 + 1; }
__attribute__((noinline)) unsigned long tail_leaf(unsigned long x) { return x ^ 0x55; }

__attribute__((noinline)) unsigned long mid(unsigned long x) {
  sink += leaf(x);
  return tail_leaf(x + 1); /* a sibling call: compiled as a jump */
}

unsigned long (*volatile mid_ptr)(unsigned long) = mid;

__attribute__((noinline)) unsigned long outer(unsigned long x) {
  unsigned long r = mid_ptr(x); /* an indirect call */
  return r + 1;
}

__attribute__((noinline)) void round_once(unsigned long i) { sink += outer(i); }

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : -1;
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long i = 0; rounds < 0 || i < rounds; i++) {
    round_once((unsigned long)i);
    if (i % 100 == 99) {
      printf("rounds=%ld\n", i + 1);
      fflush(stdout);
      usleep(2000);
    }
  }
  return 0;
}
