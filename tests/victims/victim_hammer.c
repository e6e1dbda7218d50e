/* victim_hammer: four threads call hammer_fn() in a tight loop, all at once
 * and forever, so a breakpoint on it is hit by several threads concurrently
 * and a watchpoint on hammer_counter (written by every call) fires in all
 * four. The main thread ticks in usleep(1000) so the process also makes
 * syscalls (for --log and --procs). Prints its pid first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile long hammer_counter;
volatile long hammer_sink[4];

__attribute__((noinline)) long hammer_fn(long k, long x) {
  hammer_counter = hammer_counter + 1;
  return x * 3 + k;
}

static void *hammer(void *arg) {
  long k = (long)arg;
  for (long x = 0;; x++) hammer_sink[k] = hammer_fn(k, x);
  return NULL;
}

int main(void) {
  pthread_t th[4];
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long k = 0; k < 4; k++) pthread_create(&th[k], NULL, hammer, (void *)k);
  for (;;) usleep(1000);
}
