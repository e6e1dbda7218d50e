/* calls_stress: what real programs do under a call capture, each part
 * folded into a checksum that must not change when traced:
 *   - threads created and joined while the capture runs (4 per round),
 *     each calling patched functions;
 *   - longjmp out of nested patched frames (jump_down -> ... -> bottom);
 *   - a signal handler that calls a patched function, raised from inside a
 *     patched function (SIGUSR2 via raise);
 *   - fork: the child calls patched functions and returns through frames
 *     hooked before the fork (inheriting the patched code and a ring nobody
 *     reads for it), then exits with a value the parent checks;
 *   - recursion;
 *   - tail calls: tail_a() ends in a jump to tail_b() (sibling-call
 *     optimization forced on for it), whose return goes straight to
 *     tail_a's caller.
 * `calls_stress <rounds> [--wait]`: --wait as in calls_workload. Prints
 * "checksum <n>" and exits 0, or exits 1 when a child's result was wrong. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wait_start.h"

static volatile long from_handler;
static jmp_buf escape;

__attribute__((noinline)) long leaf(long x) { return x * 5 + 1; }

__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* a leaf (no call in its first bytes, so it is patched too) */
__attribute__((noinline)) long tail_b(long x) { return (x ^ 0x55) * 3 + 7; }

__attribute__((noinline, optimize("optimize-sibling-calls"))) long tail_a(long x) {
  return tail_b(x * 2);
}

__attribute__((noinline)) void bottom(int v) { longjmp(escape, v); }

static volatile int depth_limit = 4;

__attribute__((noinline)) long jump_down(int d, int v) {
  if (d >= depth_limit) bottom(v);
  return jump_down(d + 1, v) + leaf(d); /* never returns normally */
}

__attribute__((noinline)) long jumper(int v) {
  int got = setjmp(escape);
  if (got) return got + leaf(got);
  return jump_down(0, v);
}

__attribute__((noinline)) void on_usr2(int sig) { from_handler += leaf(sig); }

__attribute__((noinline)) long signaller(int i) {
  raise(SIGUSR2);
  return leaf(i);
}

__attribute__((noinline)) void *worker(void *arg) {
  long k = (long)arg, acc = 0;
  for (int i = 0; i < 200; i++) acc += leaf(k + i) + fib(5);
  return (void *)acc;
}

/* The child returns from here (through a frame hooked before the fork)
 * after calling patched functions itself: the regression for a child whose
 * inherited shadow stack was once reset by its first call (bash's forked
 * children died of the agent's ud2). Returns -1 - value in the child. */
__attribute__((noinline)) long fork_and_compute(int i) {
  pid_t c = fork();
  if (c == 0) return -1 - ((fib(10) + leaf(i)) & 0x7f);
  return c;
}

__attribute__((noinline)) long forker(int i) {
  long c = fork_and_compute(i);
  if (c < 0) _exit((int)(-1 - c));
  int st = 0;
  waitpid(c, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != ((fib(10) + leaf(i)) & 0x7f)) exit(1);
  return WEXITSTATUS(st);
}

static long part[7]; /* per kind of work, printed with "parts" */

__attribute__((noinline)) long round_of(int r) {
  long acc = 0, v0;
  pthread_t t[4];
  for (long k = 0; k < 4; k++) pthread_create(&t[k], NULL, worker, (void *)(k + r));
  acc += v0 = jumper(r + 1), part[0] += v0;
  acc += v0 = signaller(r), part[1] += v0;
  acc += v0 = fib(12), part[2] += v0;
  for (int k = 0; k < 3; k++) acc += v0 = tail_a(r + k), part[5] += v0;
  if (r % 4 == 0) acc += v0 = forker(r), part[3] += v0;
  for (int k = 0; k < 4; k++) {
    void *v;
    pthread_join(t[k], &v);
    acc += (long)v, part[4] += (long)v;
  }
  return acc;
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 20;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, NULL);
  if (argc > 2 && !strcmp(argv[2], "--wait")) wait_start();
  long acc = 0;
  for (long r = 0; r < rounds; r++) acc += round_of((int)r);
  printf("parts %ld %ld %ld %ld %ld %ld %ld\n", part[0], part[1], part[2], part[3], part[4],
         part[5], (long)from_handler);
  printf("checksum %ld\n", acc + from_handler);
  return 0;
}
