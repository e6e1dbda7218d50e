/* scope_victim: the code the scope tests trace, in its own small shared
 * library (libscope_victim.so) so the C test, the callgrind oracle driver
 * and later the Python/C++ bindings all run the very same instructions.
 * Same shape as tests/victims/victim_loop.c: work() calls helper() 5 times. */
#include <stddef.h>

__attribute__((noinline, visibility("default"))) long helper(long x) { return x * 3 + 1; }

__attribute__((noinline, visibility("default"))) long work(long n) {
  long acc = 0;
  for (int i = 0; i < 5; i++) acc += helper(n + i);
  return acc;
}
