/* ackermann-lite: ack(1,2) and ack(2,1) (bounded: 6 and 14 calls) */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}
int main(void) {
  printf("ack %d %d\n", ack(1, 2), ack(2, 1));
  return 0;
}
