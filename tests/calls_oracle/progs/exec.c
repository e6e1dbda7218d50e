/* execve two frames deep: the old image's frames never return */
#include <stdio.h>
#include <unistd.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void do_exec(void) {
  SINK(1);
  fflush(stdout);
  execl("/bin/true", "true", (char *)NULL);
}
NOINLINE void level1(void) {
  SINK(2);
  do_exec();
  SINK(99);
}
NOINLINE void before(void) { SINK(3); }
int main(void) {
  before();
  level1();
  return 1;
}
