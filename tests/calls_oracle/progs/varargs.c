/* a variadic function walking its va_list, and vsnprintf from libc */
#include <stdarg.h>
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int sum_va(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int);
  va_end(ap);
  return s;
}
NOINLINE int fmt(char *buf, size_t cap, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int r = vsnprintf(buf, cap, f, ap);
  va_end(ap);
  return r;
}
int main(void) {
  char buf[32];
  int s = sum_va(3, 1, 2, 3) + sum_va(1, 5);
  fmt(buf, sizeof buf, "%d", s);
  puts(buf);
  return 0;
}
