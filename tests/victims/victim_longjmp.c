/* victim_longjmp: a call tree that does not unwind by ret. Forever: main()
 * calls cycle(), which setjmp()s and calls descend(5) — five nested frames of
 * descend(), the innermost calling bottom() — and bottom() longjmp()s straight
 * back to cycle() over all of them; cycle() then calls the leaf() function 3
 * times, returns, and main() sleeps briefly. A tracer whose depth is keyed on
 * the real stack pointer shows every cycle() at the same depth and every
 * leaf() one level below it; one that counts calls and rets drifts deeper on
 * every iteration. Prints its pid first so scripts can attach. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long sink;
static jmp_buf back;

__attribute__((noinline)) long leaf(long x) { return x * 2 + 1; }

/* Not declared noreturn (the flag is always set): descend() keeps real
 * call/return shape for the compiler, so nothing is turned into a jump. */
volatile int jump_armed = 1;

__attribute__((noinline)) void bottom(void) {
  if (jump_armed) longjmp(back, 1); /* over every descend() frame at once */
}

__attribute__((noinline)) void descend(int n) {
  if (n > 1)
    descend(n - 1);
  else
    bottom();
  sink++; /* not reached: keeps the recursion a real call, not a jump */
}

__attribute__((noinline)) long cycle(long i) {
  if (setjmp(back) == 0) descend(5);
  long acc = 0;
  for (int k = 0; k < 3; k++) acc += leaf(i + k);
  return acc;
}

int main(int argc, char **argv) {
  long sleep_us = argc > 1 ? atol(argv[1]) : 2000;
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long i = 0;; i++) {
    sink = cycle(i);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
