/* victim_threads: main plus 3 worker threads, all spinning in worker_body
 * with short sleeps, for whole-process following and --tid. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile unsigned long counters[4];

__attribute__((noinline)) void worker_body(int idx) {
  for (int i = 0; i < 200; i++) counters[idx] += (unsigned long)i;
}

static void *worker(void *arg) {
  int idx = (int)(long)arg;
  for (;;) {
    worker_body(idx);
    usleep(100);
  }
  return NULL;
}

int main(void) {
  pthread_t th[3];
  for (long i = 0; i < 3; i++) pthread_create(&th[i], NULL, worker, (void *)(i + 1));
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (;;) {
    worker_body(0);
    usleep(100);
  }
}
