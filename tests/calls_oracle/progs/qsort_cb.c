/* libc calling back into the program: qsort and bsearch comparators */
#include <stdio.h>
#include <stdlib.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int cmp_int(const void *a, const void *b) {
  SINK(1);
  return *(const int *)a - *(const int *)b;
}
int main(void) {
  int v[4] = {3, 1, 2, 0};
  qsort(v, 4, sizeof v[0], cmp_int);
  int key = 2;
  int *hit = bsearch(&key, v, 4, sizeof v[0], cmp_int);
  printf("%d %d\n", v[0], hit ? *hit : -1);
  return 0;
}
