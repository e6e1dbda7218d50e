// a global object's constructor before main and its destructor after main
#include <cstdio>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void note(int x) { SINK(x); }
struct Global {
  NOINLINE Global() { note(1); }
  NOINLINE ~Global() { note(2); }
};
static Global g;
int main() {
  note(3);
  std::printf("%d\n", oracle_sink);
  return 0;
}
