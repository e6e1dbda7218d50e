/* pthread_exit three frames deep in a thread: the frames never return */
#include <pthread.h>
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void quit_here(int x) {
  SINK(x);
  pthread_exit(NULL);
}
NOINLINE void level2(int x) {
  SINK(x);
  quit_here(x + 1);
  SINK(99);
}
NOINLINE void level1(int x) {
  SINK(x);
  level2(x + 1);
  SINK(98);
}
NOINLINE void *worker(void *arg) {
  (void)arg;
  level1(1);
  return NULL;
}
NOINLINE void after(void) { SINK(7); }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  after();
  printf("%d\n", oracle_sink);
  return 0;
}
