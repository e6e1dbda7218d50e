/* Scope bodies shared by the codecache tests: each computes a value the
 * test checks against an untraced run. noinline/noipa keep them real
 * calls at every optimisation level (the tests build -O0 and -O2). */
#ifndef CC_BODIES_H
#define CC_BODIES_H

#include <execinfo.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY __attribute__((noinline, noipa))

BODY static long b_empty(long n) { return n; }

BODY static long b_loop(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += (i & 1) ? i * i : -i;
  return s;
}

BODY static long b_fib(long n) { return n < 2 ? n : b_fib(n - 1) + b_fib(n - 2); }

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

BODY static long b_fptr(long n) {
  long v[8];
  for (int i = 0; i < 8; i++) v[i] = (n * 7919 + i * 104729) % 97;
  qsort(v, 8, sizeof v[0], cmp_long); /* libc calling back through a pointer */
  long s = 0;
  for (int i = 0; i < 8; i++) s = s * 3 + v[i];
  return s;
}

BODY static long b_libc(long n) {
  char a[64], b[64];
  snprintf(a, sizeof a, "value-%ld-%s", n, "codecache");
  memcpy(b, a, strlen(a) + 1);
  return (long)strlen(b) * 1000 + b[6];
}

BODY static long b_switch(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) {
    switch ((i * 5) % 9) { /* a jump table at -O2: jmp through a register */
    case 0: s += 3; break;
    case 1: s ^= 0x55; break;
    case 2: s -= i; break;
    case 3: s *= 3; break;
    case 4: s += i * i; break;
    case 5: s >>= 1; break;
    case 6: s |= 8; break;
    case 7: s -= 11; break;
    default: s += 1; break;
    }
  }
  return s;
}

static jmp_buf g_jb;
static volatile int g_jump = 1;
BODY static void deep_jump(long n) {
  if (n > 0) deep_jump(n - 1);
  if (g_jump) longjmp(g_jb, 7);
}
BODY static long b_longjmp(long n) {
  volatile long r = 0;
  if (setjmp(g_jb) == 0)
    deep_jump(n);
  else
    r = 7 + n;
  return r;
}

BODY static long b_malloc(long n) {
  char *p = malloc((size_t)n);
  if (!p) return -1;
  memset(p, 'x', (size_t)n);
  long s = p[n / 2] + n;
  free(p);
  return s;
}

/* backtrace(3) inside the scope: the frames' return addresses must be the
 * original ones (the program's stack never holds a code cache address). */
static void *g_frames[32];
static int g_nframes;
BODY static long b_backtrace(long n) {
  g_nframes = backtrace(g_frames, 32);
  return g_nframes + n;
}

#endif
