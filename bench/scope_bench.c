/* scope_bench: instructions traced per second inside a WEAK scope (the
 * singlestep plugin's in-process mode, through libasmspy) against a raw
 * EFLAGS.TF loop with a minimal SIGTRAP handler that only counts traps, on
 * the same workload in the same process.
 *
 *   ninja -C /tmp/scopebuild && /tmp/scopebuild/bench/scope_bench [iterations]
 *
 * Prints both rates and the ratio. "capture" stops the clock inside the
 * scope (the recording cost only); "with render" includes asmspy_scope_end
 * (Capstone + symbolization of every instruction).
 *
 *   scope_bench empty [n]
 *   scope_bench times [n]     (one line of microseconds per scope)
 *
 * The cost of one empty scope (begin, nothing, end with its listing), the
 * mean of n (default 200) after a warm-up, for the tier the ladder picks:
 * run it once per tier with ASMSPY_SCOPE_BACKEND=codecache / singlestep.
 */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

static volatile long sink;
static volatile unsigned long traps;

/* unsigned: the mix wraps (a signed overflow here was undefined behaviour,
 * reported by UBSan in the sanitizer build) */
__attribute__((noipa)) static long workload(long n) {
  unsigned long acc = 0;
  for (unsigned long i = 0; i < (unsigned long)n; i++) acc = (acc ^ (i * 3)) + (acc >> 3);
  return (long)acc;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void count_trap(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)si;
  (void)uc;
  traps++;
}

/* Empty scopes back to back: begin + end + render, per scope. */
static int bench_empty(long n) {
  for (int i = 0; i < 3; i++) asmspy_scope_free(ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET));
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  asmspy_scope_end(s);
  printf("tier %s (%s), %llu instructions per empty scope\n", asmspy_scope_tier(s),
         asmspy_scope_reason(s), (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(s);
  double best = 1e9, sum = 0;
  for (long i = 0; i < n; i++) {
    double t0 = now();
    asmspy_scope *e = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
    asmspy_scope_end(e);
    double dt = now() - t0;
    asmspy_scope_free(e);
    sum += dt;
    if (dt < best) best = dt;
  }
  printf("empty scope: mean %.1f us, best %.1f us over %ld scopes\n", sum / n * 1e6, best * 1e6, n);
  return 0;
}

/* One line per empty scope, its microseconds (warm-up first): for
 * bench/run_scope_bench.sh, which computes the statistics per language. */
static int bench_times(long n) {
  for (long i = 0; i <= n; i++) {
    double t0 = now();
    asmspy_scope *e = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
    asmspy_scope_end(e);
    double dt = now() - t0;
    asmspy_scope_free(e);
    printf("%.1f\n", dt * 1e6);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "empty")) return bench_empty(argc > 2 ? atol(argv[2]) : 200);
  if (argc > 1 && !strcmp(argv[1], "times")) return bench_times(argc > 2 ? atol(argv[2]) : 50);
  long iters = argc > 1 ? atol(argv[1]) : 20000;

  /* Raw: TF on, count every trap, TF off. */
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = count_trap;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGTRAP, &sa, &old);
  double t0 = now();
  __asm__ volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::
                       : "memory", "cc");
  sink = workload(iters);
  __asm__ volatile(
      "sub $128, %%rsp\n\tpushfq\n\tandq $~0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::
          : "memory", "cc");
  double t1 = now();
  sigaction(SIGTRAP, &old, NULL); /* the scope refuses a program-owned SIGTRAP */
  double raw_rate = traps / (t1 - t0);

  /* Warm-up: the first scope opens the engine and probes intel_pt once. */
  asmspy_scope *w = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  asmspy_scope_free(w);

  /* WEAK scope: the same workload, whole window. */
  double t2 = now(), t3;
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  sink = workload(iters);
  t3 = now();
  asmspy_scope_end(s);
  double t4 = now();
  if (strcmp(asmspy_scope_tier(s), "WEAK") != 0) {
    printf("SKIP: no WEAK tier: %s\n", asmspy_scope_reason(s));
    asmspy_scope_free(s);
    return 77;
  }
  unsigned long long n = asmspy_scope_insn_count(s);
  if (getenv("SCOPE_BENCH_SHOW")) printf("%s", asmspy_scope_text(s));
  double cap_rate = n / (t3 - t2), all_rate = n / (t4 - t2);
  printf("raw TF loop:          %10lu traps      in %.3f s = %10.0f insn/s\n", (unsigned long)traps,
         t1 - t0, raw_rate);
  printf("WEAK scope capture:   %10llu insns      in %.3f s = %10.0f insn/s  (%.2fx raw)\n", n,
         t3 - t2, cap_rate, cap_rate / raw_rate);
  printf("WEAK scope w/ render: %10llu insns      in %.3f s = %10.0f insn/s  (%.2fx raw)%s%s\n", n,
         t4 - t2, all_rate, all_rate / raw_rate, asmspy_scope_truncated(s) ? " TRUNCATED: " : "",
         asmspy_scope_truncated(s) ? asmspy_scope_reason(s) : "");
  asmspy_scope_free(s);
  return 0;
}
