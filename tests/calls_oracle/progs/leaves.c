/* tiny leaves: at -O2 shorter than 5 bytes (neither tool can patch them) */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int tiny_id(int x) { return x; }
NOINLINE int tiny_dbl(int x) { return x + x; }
NOINLINE int bigger(int x) {
  SINK(x);
  return tiny_id(x) + tiny_dbl(x) + oracle_sink;
}
int main(void) {
  int s = bigger(1) + bigger(2);
  printf("%d\n", s & 1);
  return 0;
}
