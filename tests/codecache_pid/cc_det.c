/* cc_det: a small deterministic program for diff_launch.sh (built -O0 and
 * -O2): loops, calls, recursion, a switch compiled to a jump table, and
 * strings long enough that glibc's memcpy/strlen/memcmp take their vector
 * (AVX2/EVEX) paths. Prints one line, `cc_det sum=<N>`, and exits 0. Every
 * run executes the same instructions (no time, no pid, no environment). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char src[2048], dst[2048];

__attribute__((noinline)) unsigned long fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) unsigned long dispatch(unsigned op, unsigned long x) {
  switch (op) { /* dense cases: a jump table at -O0 and -O2 */
  case 0: return x + 1;
  case 1: return x * 3;
  case 2: return x ^ 0x5a5a;
  case 3: return x >> 1;
  case 4: return x - 7;
  case 5: return x << 2;
  case 6: return ~x;
  case 7: return x * x;
  case 8: return x + 1000;
  case 9: return x % 97;
  default: return x;
  }
}

static int cmp_ul(const void *a, const void *b) {
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return x < y ? -1 : x > y;
}

__attribute__((noinline)) unsigned long strings(unsigned round) {
  unsigned long acc = 0;
  src[round] = 'z';
  for (unsigned len = 33; len < sizeof src; len = len * 2 + 5) {
    memcpy(dst, src, len);
    dst[len] = 0;
    acc += strlen(dst) + (unsigned long)(memcmp(dst, src, len) == 0);
    acc += (unsigned long)(strchr(dst, 'z') - dst);
  }
  char buf[64];
  snprintf(buf, sizeof buf, "round %u acc %lu", round, acc);
  return acc + strlen(buf);
}

int main(void) {
  unsigned long sum = 0, v[64];
  for (unsigned i = 0; i < sizeof src - 1; i++) src[i] = (char)('a' + (i * 7) % 25);
  for (unsigned r = 0; r < 3; r++) {
    sum += fib(10 + r);
    for (unsigned i = 0; i < 200; i++) sum = dispatch(i % 11, sum) + i;
    sum += strings(r);
  }
  for (unsigned i = 0; i < 64; i++) v[i] = (i * 2654435761u) % 1000;
  qsort(v, 64, sizeof *v, cmp_ul);
  for (unsigned i = 0; i < 64; i++) sum += v[i] * i;
  printf("cc_det sum=%lu\n", sum);
  return 0;
}
