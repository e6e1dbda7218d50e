/* recursion: fib(5), 15 calls of fib */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) {
  printf("fib %d\n", fib(5));
  return 0;
}
