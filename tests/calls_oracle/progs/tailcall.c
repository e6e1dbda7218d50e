/* tail calls: at -O2 `return g(x)` becomes `jmp g` */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int tail_c(int x) {
  SINK(x);
  return x + oracle_sink;
}
NOINLINE int tail_b(int x) {
  SINK(x);
  return tail_c(x + 1);
}
NOINLINE int tail_a(int x) {
  SINK(x);
  return tail_b(x + 1);
}
int main(void) {
  int s = tail_a(1) + tail_a(2);
  printf("%d\n", s & 1);
  return 0;
}
