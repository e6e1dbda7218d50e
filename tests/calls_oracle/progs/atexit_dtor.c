/* work before and after main: constructor/destructor attributes, atexit */
#include <stdio.h>
#include <stdlib.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void helper(int x) { SINK(x); }
__attribute__((constructor)) NOINLINE static void early(void) { helper(1); }
__attribute__((destructor)) NOINLINE static void late(void) { helper(2); }
NOINLINE static void bye(void) { helper(3); }
int main(void) {
  atexit(bye);
  helper(4);
  printf("%d\n", oracle_sink);
  return 0;
}
