/* calls through function pointers (a table and a callback argument) */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int op_add(int a, int b) {
  SINK(1);
  return a + b;
}
NOINLINE int op_sub(int a, int b) {
  SINK(2);
  return a - b;
}
NOINLINE int op_mul(int a, int b) {
  SINK(3);
  return a * b;
}
typedef int (*op_fn)(int, int);
static op_fn volatile table[3] = {op_add, op_sub, op_mul};
NOINLINE int apply(op_fn f, int a, int b) {
  SINK(4);
  return f(a, b);
}
int main(void) {
  int s = 0;
  for (int i = 0; i < 3; i++) s += table[i](i, 2);
  for (int i = 0; i < 3; i++) s += apply(table[i], 3, i);
  printf("%d\n", s);
  return 0;
}
