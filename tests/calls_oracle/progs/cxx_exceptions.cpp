// C++ exceptions thrown through frames: caught two frames up, rethrown,
// and a std::runtime_error caught in main
#include <cstdio>
#include <stdexcept>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void thrower(int v) {
  SINK(v);
  if (v == 2) throw std::runtime_error("two");
  throw v;
}
NOINLINE int passer(int v) {
  SINK(v);
  thrower(v);
  return 0;
}
NOINLINE int catcher(int v) {
  try {
    return passer(v);
  } catch (int e) {
    SINK(e);
    return e;
  }
}
NOINLINE int rethrower(int v) {
  try {
    return passer(v);
  } catch (...) {
    SINK(1);
    throw;
  }
}
int main() {
  int s = catcher(1);
  try {
    s += rethrower(2);
  } catch (const std::exception &e) {
    s += 10;
  }
  std::printf("%d\n", s);
  return 0;
}
