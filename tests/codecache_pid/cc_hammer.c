/* cc_hammer: 4 threads call the same function, hammer_fn, as fast as they
 * can (tests/codecache_pid/threads_signals.sh). Speaks the harm protocol
 * (tests/harm/harm.h): `<pid> ready reference=X`, then rounds forever; in a
 * round every thread makes CALLS calls between two barriers, and the sum of
 * the four threads' results must equal the reference computed untraced at
 * start. Calls go through a function pointer half of the time (an indirect
 * call into the same translated block from every thread).
 *   cc_hammer           the 4 threads live for the whole run
 *   cc_hammer spawn     every round creates the 4 threads afresh (threads
 *                       born while traced) and joins them */
#include "harm.h"

#include <pthread.h>
#include <string.h>

#define NTHREADS 4
#define CALLS 20000

__attribute__((noinline)) unsigned long hammer_fn(unsigned long x, unsigned long k) {
  __asm__ volatile("" : "+r"(x));
  for (unsigned i = 0; i < 4; i++) x = x * 0x100000001b3ul + k + i;
  return x ^ (x >> 29);
}
unsigned long (*volatile hammer_ptr)(unsigned long, unsigned long) = hammer_fn;

static unsigned long results[NTHREADS];
static pthread_barrier_t start_bar, end_bar;
static int spawn;

static unsigned long thread_work(int idx) {
  unsigned long acc = (unsigned long)idx;
  for (unsigned long i = 0; i < CALLS; i++)
    acc +=
        (i & 1) ? hammer_ptr(acc + i, (unsigned long)idx) : hammer_fn(acc + i, (unsigned long)idx);
  return acc;
}

static void *worker(void *arg) {
  int idx = (int)(long)arg;
  if (spawn) {
    results[idx] = thread_work(idx);
    return NULL;
  }
  for (;;) {
    pthread_barrier_wait(&start_bar);
    results[idx] = thread_work(idx);
    pthread_barrier_wait(&end_bar);
  }
  return NULL;
}

static unsigned long round_sum(void) {
  unsigned long s = 0;
  for (int i = 0; i < NTHREADS; i++) s += results[i];
  return s;
}

int main(int argc, char **argv) {
  spawn = argc > 1 && !strcmp(argv[1], "spawn");
  unsigned long want = 0;
  for (int i = 0; i < NTHREADS; i++) want += thread_work(i);
  harm_ready(want);
  pthread_t th[NTHREADS];
  if (!spawn) {
    pthread_barrier_init(&start_bar, NULL, NTHREADS + 1);
    pthread_barrier_init(&end_bar, NULL, NTHREADS + 1);
    for (long i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void *)i);
  }
  for (unsigned long n = 1;; n++) {
    memset(results, 0, sizeof results);
    if (spawn) {
      for (long i = 0; i < NTHREADS; i++) pthread_create(&th[i], NULL, worker, (void *)i);
      for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    } else {
      pthread_barrier_wait(&start_bar);
      pthread_barrier_wait(&end_bar);
    }
    harm_round(n, round_sum(), want, "the four threads' sum");
  }
}
