/* a signal handler that calls functions, delivered synchronously (raise)
 * in the middle of a call chain */
#include <signal.h>
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void in_handler(int x) { SINK(x); }
NOINLINE void handler(int sig) {
  in_handler(sig);
  in_handler(sig + 1);
}
NOINLINE void deliver(void) {
  SINK(1);
  raise(SIGUSR1);
  SINK(2);
}
NOINLINE void outer(void) { deliver(); }
int main(void) {
  signal(SIGUSR1, handler);
  outer();
  outer();
  printf("%d\n", oracle_sink);
  return 0;
}
