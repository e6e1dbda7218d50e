// lambdas called directly and through a function-pointer template
#include <cstdio>
#include "oracle.h"
ORACLE_SINK_DEF;
template <typename F> NOINLINE int call_twice(F f, int v) { return f(v) + f(v + 1); }
NOINLINE int plain(int v) {
  SINK(v);
  return v;
}
int main() {
  int k = 3;
  auto add_k = [k](int v) __attribute__((noinline)) {
    SINK(v);
    return v + k;
  };
  int s = call_twice(add_k, 1);
  s += call_twice(plain, 2);
  std::printf("%d\n", s);
  return 0;
}
