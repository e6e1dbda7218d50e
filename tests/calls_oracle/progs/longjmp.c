/* setjmp in main, longjmp from two frames below an intermediate function:
 * the frames between never return */
#include <setjmp.h>
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
static jmp_buf env;
NOINLINE void jumper(int x) {
  SINK(x);
  longjmp(env, x);
}
NOINLINE void middle(int x) {
  SINK(x);
  jumper(x + 1);
  SINK(99);
}
NOINLINE void intermediate(int x) {
  SINK(x);
  middle(x + 1);
  SINK(98);
}
NOINLINE void after_jump(int x) { SINK(x); }
int main(void) {
  volatile int rounds = 0;
  if (setjmp(env) != 0) after_jump(rounds);
  if (rounds < 2) {
    rounds++;
    intermediate(rounds);
  }
  printf("%d\n", oracle_sink);
  return 0;
}
