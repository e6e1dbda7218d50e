/* fork: the child and the parent call distinct functions; the parent waits */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void in_child(int x) { SINK(x); }
NOINLINE void child_work(void) {
  in_child(1);
  in_child(2);
}
NOINLINE void parent_work(void) { SINK(3); }
NOINLINE void before_fork(void) { SINK(4); }
int main(void) {
  before_fork();
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    child_work();
    _exit(0);
  }
  waitpid(p, NULL, 0);
  parent_work();
  printf("%d\n", oracle_sink);
  return 0;
}
