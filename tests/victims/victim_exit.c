/* victim_exit: runs a bounded loop then exits, so a trace of it ends with
 * "target exited" instead of n. argv[1] = number of loop iterations,
 * argv[2] = microseconds to sleep first, argv[3] = its exit status (a
 * --launch test checks the command's own status survives the tracing). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long total;

__attribute__((noinline)) void step_once(long i) { total += i; }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100;
  printf("%d\n", (int)getpid());
  fflush(stdout);
  if (argc > 2) usleep((useconds_t)atol(argv[2])); /* give a tracer time to attach */
  for (long i = 0; i < n; i++) step_once(i);
  return argc > 3 ? atoi(argv[3]) : 0;
}
