/* victim_watch: data for --watch. Three worker threads write two globals
 * with known values, forever, a few hundred times a second:
 *   counter   int, incremented under a lock by every writer (1, 2, 3, ...:
 *             each write is the previous value + 1)
 *   watched   long, set by worker k (1..3) to k * 1000000 + its own count
 * The third worker starts 300 ms (argv[1]: that many ms) after the others,
 * so a watch begun early also has to arm a thread born while it runs.
 * Also here for the argument checks: `pair` (a struct: pair+4 is its
 * second int), `tls_counter` (thread-local: no single address), and the
 * function bump_counter (not data). Prints its pid first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int counter;
long watched __attribute__((aligned(8)));
struct {
  int first, second;
} pair;
__thread int tls_counter;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void bump_counter(void) {
  pthread_mutex_lock(&lock);
  counter = counter + 1;
  pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void set_watched(long k, long n) { watched = k * 1000000 + n; }

static void *worker(void *arg) {
  long k = (long)arg;
  for (long n = 1;; n++) {
    bump_counter();
    set_watched(k, n);
    pair.second = (int)n;
    tls_counter++;
    usleep(2000);
  }
  return NULL;
}

int main(int argc, char **argv) {
  long late_ms = argc > 1 ? atol(argv[1]) : 300;
  pthread_t th[3];
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long k = 1; k <= 2; k++) pthread_create(&th[k - 1], NULL, worker, (void *)k);
  usleep((useconds_t)late_ms * 1000);
  pthread_create(&th[2], NULL, worker, (void *)3L);
  for (;;) pause();
}
