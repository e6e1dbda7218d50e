/* scope_driver: calls work() N times; run under callgrind by
 * test_scope_counts.sh to get the oracle instruction counts. */
#include <stdio.h>
#include <stdlib.h>

long work(long n);
volatile long sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10;
  for (long i = 0; i < n; i++) sink = work(i);
  return 0;
}
