/* vfork then exec of /bin/true in the child; the parent waits */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void before(void) { SINK(1); }
NOINLINE void after(void) { SINK(2); }
int main(void) {
  before();
  pid_t p = vfork();
  if (p == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(127);
  }
  waitpid(p, NULL, 0);
  after();
  printf("%d\n", oracle_sink);
  return 0;
}
