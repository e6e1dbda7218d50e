/* victim_threads: main plus 3 worker threads, all spinning in worker_body
 * with short sleeps, for whole-process following and --tid.
 * argv[1]: the workers' sleep in microseconds (default 100). A long one keeps
 * workers blocked in a syscall with a single-step armed when a session ends:
 * the detach must drain that step's trap or the worker dies when it wakes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long counters[4];
static useconds_t worker_sleep_us = 100;

__attribute__((noinline)) void worker_body(int idx) {
  for (int i = 0; i < 200; i++) counters[idx] += (unsigned long)i;
}

static void *worker(void *arg) {
  int idx = (int)(long)arg;
  for (;;) {
    worker_body(idx);
    usleep(worker_sleep_us);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) worker_sleep_us = (useconds_t)atol(argv[1]);
  pthread_t th[3];
  for (long i = 0; i < 3; i++) pthread_create(&th[i], NULL, worker, (void *)(i + 1));
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (;;) {
    worker_body(0);
    usleep(100);
  }
}
