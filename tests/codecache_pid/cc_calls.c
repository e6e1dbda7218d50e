/* cc_calls: one function whose invocations call out (qsort with a
 * callback, snprintf, strlen) and one that recurses (fib): --trace on
 * codecache must print what --trace on singlestep prints (diff_launch.sh:
 * listing, counts, blocks, callees, return values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

__attribute__((noinline)) long work(long n) {
  int v[8] = {5, 3, 9, 1, 7, 2, 8, 6};
  qsort(v, 8, sizeof v[0], cmp);
  char buf[64];
  snprintf(buf, sizeof buf, "%ld", n);
  return fib(n % 7) + v[0] + (long)strlen(buf);
}

int main(void) {
  long s = 0;
  for (int i = 0; i < 20; i++) s += work(i);
  printf("%ld\n", s);
  return 0;
}
