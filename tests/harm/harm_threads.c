/* harm_threads alive N | churn N: thread slots.
 *
 *   alive N  N threads (default 300) live for the whole run; each round
 *            every one calls work_fn() CALLS times between two barriers.
 *   churn N  every round creates N short-lived threads (default 600; 64 KiB
 *            stacks, at most 150 at once), each calls work_fn() CALLS times
 *            and exits.
 *
 * The round's checksum (the sum of every thread's results) must equal the
 * one computed at start. SIGUSR1 asks for one counted batch: the next
 * round's threads call counted_fn() instead (nothing else ever calls it),
 * after which the program prints `batch calls=<N*CALLS> done`: harm.sh
 * compares that with the call count asmspy reports for counted_fn. Built
 * -O2. */
#include "harm.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#define CALLS 1000

__attribute__((noinline)) unsigned long work_fn(unsigned long x) {
  __asm__ volatile("" : "+r"(x));
  return x * 0x100000001b3ul + 7;
}
__attribute__((noinline)) unsigned long counted_fn(unsigned long x) {
  __asm__ volatile("" : "+r"(x));
  return x * 0x100000001b3ul + 7;
}

static int nthreads, churn;
static volatile sig_atomic_t batch_wanted;
static int batch_now;
static pthread_barrier_t start_b, end_b;
static unsigned long results[1024];

static unsigned long thread_round(long id) {
  unsigned long s = 0;
  unsigned long (*fn)(unsigned long) = batch_now ? counted_fn : work_fn;
  for (unsigned long i = 0; i < CALLS; i++) s += fn((unsigned long)id * CALLS + i);
  return s;
}

static void *alive_main(void *arg) {
  long id = (long)arg;
  for (;;) {
    pthread_barrier_wait(&start_b);
    results[id] = thread_round(id);
    pthread_barrier_wait(&end_b);
  }
  return NULL;
}

static void *churn_main(void *arg) {
  long id = (long)arg;
  results[id] = thread_round(id);
  return NULL;
}

static void on_usr1(int s) {
  (void)s;
  batch_wanted = 1;
}

static unsigned long round_work(void) {
  memset(results, 0, sizeof results);
  if (!churn) {
    pthread_barrier_wait(&start_b);
    pthread_barrier_wait(&end_b);
  } else {
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 * 1024);
    pthread_t t[150];
    for (int base = 0; base < nthreads; base += 150) {
      int n = nthreads - base < 150 ? nthreads - base : 150;
      for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], &at, churn_main, (void *)(long)(base + i))) {
          printf("round ? CORRUPT pthread_create failed\n");
          exit(3);
        }
      for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    }
    pthread_attr_destroy(&at);
  }
  unsigned long sum = 0;
  for (int i = 0; i < nthreads; i++) sum = sum * 3 + results[i];
  return sum;
}

int main(int argc, char **argv) {
  churn = argc > 1 && strcmp(argv[1], "churn") == 0;
  nthreads = argc > 2 ? atoi(argv[2]) : churn ? 600 : 300;
  if (nthreads < 1 || nthreads > 1024) return 2;
  signal(SIGUSR1, on_usr1);
  if (!churn) {
    pthread_barrier_init(&start_b, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&end_b, NULL, (unsigned)nthreads + 1);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 * 1024);
    for (long i = 0; i < nthreads; i++) {
      pthread_t t;
      if (pthread_create(&t, &at, alive_main, (void *)i)) return 3;
    }
  }
  unsigned long want = round_work();
  harm_ready(want);
  for (unsigned long long r = 1;; r++) {
    int batch = batch_wanted;
    if (batch) {
      batch_wanted = 0;
      batch_now = 1;
    }
    harm_round(r, round_work(), want, batch ? "thread sums (counted batch)" : "thread sums");
    if (batch) {
      batch_now = 0;
      printf("batch calls=%lu done\n", (unsigned long)nthreads * CALLS);
      fflush(stdout);
    }
  }
}
