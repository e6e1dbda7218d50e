/* df_streams: the victim of tests/dataflow (asmspy --dataflow's opt-in
 * streams). Its traced functions print what they compute, so every stream
 * has an oracle that is not asmspy's own output.
 *   argv[1]  rounds (-1 = forever, the default)
 *   argv[2]  sleep between rounds in microseconds (default 2000)
 *   argv[3]  worker threads calling df_shared at once (default 0)
 * Prints its pid first, then "tp 0x<pthread_self>" (the main thread's
 * thread pointer: fs_base), then per round one line per function that
 * prints (flushed):
 *   store <a> <&x> <x> <&y> <y> <&same> <same>   df_store's writes, hex
 *   vec <i> <double result bits> <long double result as integer>
 * Workers check each df_shared result against the same formula computed
 * inline; a mismatch prints "CHECKSUM MISMATCH" on stderr and exits 3 (a
 * tracer that corrupted a register or a stack slot shows up here). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rec {
  long x, y, same;
};
struct rec g_rec;
volatile long sink;

/* a pure loop with a constant trip count (callgrind counts it) */
__attribute__((noinline)) long df_loop(long n) {
  long acc = 0;
  for (long i = 0; i < n; i++) acc += i * i;
  return acc;
}

/* depends on a and b only: c is passed and ignored (--blame) */
__attribute__((noinline)) long df_blend(long a, long b, long c) {
  (void)c;
  return a * 3 + b;
}

/* writes a global struct; `same` gets the value it already holds after the
 * first call (--statediff: not a change); returns x ^ y */
__attribute__((noinline)) long df_store(long a, long b) {
  g_rec.x = a + b;
  g_rec.y = a * b;
  g_rec.same = 7;
  return g_rec.x ^ g_rec.y;
}

__attribute__((noinline)) long df_helper(long x) { return x * 5 + 2; }

/* a call out of the region */
__attribute__((noinline)) long df_callout(long x) { return df_helper(x) + 1; }

/* SSE double and x87 long double (--fpregs) */
__attribute__((noinline)) double df_sse(double d, double e) { return d * 1.5 + e; }
__attribute__((noinline)) long double df_x87(long double a, long double b) { return a * b + 0.5L; }
/* AVX: 4 doubles at once */
typedef double v4d __attribute__((vector_size(32)));
__attribute__((noinline, target("avx"))) double df_avx(double a) {
  v4d v = {a, a + 1, a + 2, a + 3};
  v4d w = v * v;
  return w[0] + w[1] + w[2] + w[3];
}

/* called by several threads at once (--continuous) */
__attribute__((noinline)) long df_shared(long x) { return x * x + 3 * x + 1; }

static void *worker(void *arg) {
  long k = (long)arg * 1000;
  for (;;) {
    volatile long x = k++;
    long want = x * x + 3 * x + 1;
    if (df_shared(x) != want) {
      fprintf(stderr, "CHECKSUM MISMATCH at %ld\n", (long)x);
      exit(3);
    }
    usleep(100);
  }
  return NULL;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : -1;
  long sleep_us = argc > 2 ? atol(argv[2]) : 2000;
  long nthreads = argc > 3 ? atol(argv[3]) : 0;
  printf("%d\n", (int)getpid());
  printf("tp 0x%" PRIxPTR "\n", (uintptr_t)pthread_self());
  fflush(stdout);
  pthread_t th[16];
  for (long t = 0; t < nthreads && t < 16; t++)
    pthread_create(&th[t], NULL, worker, (void *)(t + 1));
  int avx = __builtin_cpu_supports("avx");
  for (long i = 0; rounds < 0 || i < rounds; i++) {
    /* volatile arguments: no constant-propagated clone replaces the call */
    volatile long ten = 10, seven = 7, five = 5, unused = 99;
    sink = df_loop(ten);
    sink = df_blend(seven, five, unused);
    long a = i, b = i + 3;
    sink = df_store(a, b);
    printf("store %lx %p %lx %p %lx %p %lx\n", (unsigned long)a, (void *)&g_rec.x,
           (unsigned long)g_rec.x, (void *)&g_rec.y, (unsigned long)g_rec.y, (void *)&g_rec.same,
           (unsigned long)g_rec.same);
    sink = df_callout(i);
    double d = df_sse((double)i, 0.25);
    long double ld = df_x87((long double)i, 3.0L);
    uint64_t bits;
    memcpy(&bits, &d, 8);
    printf("vec %lx %" PRIx64 " %lld\n", (unsigned long)i, bits, (long long)ld);
    if (avx) sink = (long)df_avx((double)i);
    fflush(stdout);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
