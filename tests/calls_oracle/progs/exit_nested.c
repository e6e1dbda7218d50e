/* exit() three frames deep, with an atexit handler that calls a function */
#include <stdio.h>
#include <stdlib.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void at_exit_work(int x) { SINK(x); }
NOINLINE void on_exit_handler(void) { at_exit_work(1); }
NOINLINE void quit_here(int x) {
  SINK(x);
  fflush(stdout);
  exit(0);
}
NOINLINE void level2(int x) {
  SINK(x);
  quit_here(x + 1);
  SINK(99);
}
NOINLINE void level1(int x) {
  SINK(x);
  level2(x + 1);
  SINK(98);
}
int main(void) {
  atexit(on_exit_handler);
  level1(1);
  return 1;
}
