/* mutual recursion: is_even/is_odd down 7 levels, twice */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int is_odd(int n);
NOINLINE int is_even(int n) {
  SINK(n);
  return n == 0 ? 1 : is_odd(n - 1);
}
NOINLINE int is_odd(int n) {
  SINK(n);
  return n == 0 ? 0 : is_even(n - 1);
}
int main(void) {
  printf("%d %d\n", is_even(6), is_odd(3));
  return 0;
}
