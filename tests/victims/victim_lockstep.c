/* victim_lockstep: NTHREADS threads call lock_fn() in a tight loop, forever.
 * lock_fn calls take_lock(), which RETURNS HOLDING a mutex every thread
 * takes, and later give_lock(), which releases it. So a thread stopped just
 * after take_lock() returns (at lock_fn's return-from-take_lock address,
 * where --trace plants its step-over breakpoint) holds the mutex, and the
 * sampled thread, stepped over its own call to take_lock(), waits for it in
 * the kernel: a tracer that holds such a thread freezes the target
 * (issue 24).
 *
 * The checksum: under the mutex, thread k's call adds k+1 to lock_total and
 * counts itself in lock_calls[k], so lock_total == sum of (k+1)*calls[k]
 * always holds between calls. An instruction run twice or skipped across a
 * detach (a bad rewind, a lost step) breaks it: the main thread checks it
 * every 10 ms and exits 3 when it fails. Prints its pid first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
volatile long lock_total;           /* sum of k+1 over every call, under the lock */
volatile long lock_calls[NTHREADS]; /* calls of thread k, under the lock */

__attribute__((noinline)) void take_lock(void) { pthread_mutex_lock(&lock); }

__attribute__((noinline)) void give_lock(void) { pthread_mutex_unlock(&lock); }

/* the traced function: its call to take_lock() returns with the lock held */
__attribute__((noinline)) long lock_fn(long k) {
  take_lock();
  lock_total = lock_total + k + 1;
  lock_calls[k] = lock_calls[k] + 1;
  long r = lock_total;
  give_lock();
  return r;
}

static void *worker(void *arg) {
  long k = (long)arg;
  for (;;) lock_fn(k);
  return NULL;
}

int main(void) {
  pthread_t th[NTHREADS];
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long k = 0; k < NTHREADS; k++) pthread_create(&th[k], NULL, worker, (void *)k);
  for (;;) {
    usleep(10000);
    pthread_mutex_lock(&lock);
    long want = 0, total = lock_total;
    for (long k = 0; k < NTHREADS; k++) want += (k + 1) * lock_calls[k];
    pthread_mutex_unlock(&lock);
    if (total != want) {
      fprintf(stderr, "victim_lockstep: checksum broken: lock_total %ld, calls say %ld\n", total,
              want);
      exit(3);
    }
  }
}
