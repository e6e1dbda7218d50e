/* _exit() three frames deep: no atexit, no return */
#include <stdio.h>
#include <unistd.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void quit_here(int x) {
  SINK(x);
  _exit(0);
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
NOINLINE void before(void) { SINK(3); }
int main(void) {
  before();
  level1(1);
  return 1;
}
