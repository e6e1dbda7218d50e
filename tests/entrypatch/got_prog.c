/* got_prog.c: a -fno-plt program for test_got_live.sh. Every libc call is
 * `call *f@GOTPCREL(%rip)`: no PLT stub, so asmspy traces them at the GOT
 * slots (`strlen@got`, plugins/entrypatch/got.c).
 *
 *   got_prog once        one round: work() calls strlen, malloc, free, puts
 *   got_prog loop SECS   rounds for SECS seconds, or until SIGTERM (attach to
 *                        it), then the rounds and the checksum
 *   got_prog rounds N    N rounds (the untraced checksum of a loop run)
 * Built again with -DTAKE_ADDR (got_addr): main also loads &puts from the
 * GOT (`mov puts@GOTPCREL(%rip), %rax`) and keeps it; at the end (asmspy
 * gone) it compares it with dlsym's puts and calls it. That slot must be
 * refused ("its address is taken"): hooked, the kept pointer would be the
 * stub's, unmapped after the leave. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t stop;
static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

__attribute__((noinline)) unsigned long work(unsigned round) {
  char buf[64];
  snprintf(buf, sizeof buf, "round %u of the GOT test", round % 1000);
  size_t n = strlen(buf);
  char *copy = malloc(n + 1);
  if (!copy) return 0;
  memcpy(copy, buf, n + 1);
  unsigned long h = n;
  for (size_t i = 0; i < n; i++) h = h * 31 + (unsigned char)copy[i];
  free(copy);
  return h;
}

#ifdef TAKE_ADDR
typedef int (*puts_fn)(const char *);
static puts_fn kept;
#endif

int main(int argc, char **argv) {
#ifdef TAKE_ADDR
  kept = puts; /* the GOT slot's value, copied */
#endif
  int loop = argc > 2 && !strcmp(argv[1], "loop");
  double secs = loop ? atof(argv[2]) : 0;
  unsigned long want = argc > 2 && !strcmp(argv[1], "rounds") ? strtoul(argv[2], NULL, 10) : 1;
  signal(SIGTERM, on_term);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long sum = 0, rounds = 0;
  do {
    sum = sum * 7 + work((unsigned)rounds);
    rounds++;
    if (rounds % 1000 == 0 || want == 1) puts("tick");
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (loop ? !stop && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs
                : rounds < want);
  sink = sum;
  printf("rounds %lu\nchecksum %lu\n", rounds, sum);
#ifdef TAKE_ADDR
  void *real = dlsym(RTLD_DEFAULT, "puts");
  printf("kept puts %s dlsym's\n", (void *)kept == real ? "==" : "!=");
  fflush(stdout);
  kept("kept puts called");
#endif
  return 0;
}
