/* daemon-like: the parent exits right after fork, the child works on
 * (briefly: it sleeps 20 ms, then calls functions) */
#include <stdio.h>
#include <unistd.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void bg_work(int x) { SINK(x); }
NOINLINE void background(void) {
  usleep(20000);
  bg_work(1);
  bg_work(2);
}
NOINLINE void parent_done(void) { SINK(3); }
int main(void) {
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    background();
    _exit(0);
  }
  parent_done();
  return 0;
}
