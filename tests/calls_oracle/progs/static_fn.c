/* static functions: at -O2 gcc may clone them (.constprop / .isra / .part) */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
static NOINLINE int scale(int x, int k) {
  SINK(x);
  return x * k + oracle_sink % 3;
}
static NOINLINE int twice(int x) { return scale(x, 2) + scale(x + 1, 2); }
static NOINLINE int sum_to(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  SINK(s);
  return s;
}
int main(void) {
  int v[3] = {1, 2, 3};
  int s = twice(3) + twice(4) + sum_to(v, 3);
  printf("%d\n", s);
  return 0;
}
