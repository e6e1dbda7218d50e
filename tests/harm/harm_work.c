/* harm_work: an ordinary C workload, built as users build it — meson makes
 * four programs of it: harm_o3 (-O3 -fomit-frame-pointer), harm_cet
 * (-O2 -fcf-protection=full: endbr64 at every entry), harm_static (-O2
 * -static: libc's functions, mempcpy among them, are the executable's own)
 * and harm_nopie (-O2 -no-pie). Every round: recursion, calls through
 * function pointers, qsort calling back into the program, libc string
 * functions (memcpy, mempcpy, strlen, snprintf), double arithmetic in xmm
 * registers; its checksum must equal the one computed at start. */
#define _GNU_SOURCE
#include "harm.h"

#include <math.h>
#include <string.h>

static __attribute__((noinline)) unsigned long fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) double poly(double x, int k) {
  double s = 0, p = 1;
  for (int i = 0; i < k; i++) {
    s += p / (i + 1.5);
    p *= x;
  }
  return s;
}

static __attribute__((noinline)) unsigned long op_add(unsigned long a, unsigned long b) {
  return a + b;
}
static __attribute__((noinline)) unsigned long op_xor(unsigned long a, unsigned long b) {
  return a ^ (b << 1);
}
static __attribute__((noinline)) unsigned long op_mul(unsigned long a, unsigned long b) {
  return a * (b | 1);
}
static unsigned long (*const ops[3])(unsigned long, unsigned long) = {op_add, op_xor, op_mul};

static int cmp_ul(const void *a, const void *b) {
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return x < y ? -1 : x > y;
}

__attribute__((noinline)) unsigned long text_work(unsigned long seed) {
  char buf[256], out[512];
  int n = snprintf(buf, sizeof buf, "seed %lu and %lu", seed, seed * 7);
  char *p = mempcpy(out, buf, (size_t)n);
  p = mempcpy(p, "|", 1);
  memcpy(p, buf, (size_t)n + 1);
  unsigned long h = strlen(out);
  for (const char *c = out; *c; c++) h = h * 31 + (unsigned char)*c;
  return h;
}

static __attribute__((noinline)) unsigned long round_work(void) {
  unsigned long sum = 0, arr[64];
  for (int i = 0; i < 2000; i++) {
    sum = ops[i % 3](sum, fib(12 + i % 5));
    sum += text_work(sum ^ (unsigned long)i);
    double d = poly(0.5 + (i % 7) * 0.01, 20 + i % 5);
    sum += (unsigned long)llround(d * 1e6);
  }
  for (int i = 0; i < 64; i++) arr[i] = (sum >> (i % 13)) * (i + 1) % 1000003;
  qsort(arr, 64, sizeof arr[0], cmp_ul);
  for (int i = 0; i < 64; i++) sum = sum * 3 + arr[i];
  return sum;
}

int main(void) {
  unsigned long want = round_work();
  harm_ready(want);
  for (unsigned long long r = 1;; r++) harm_round(r, round_work(), want, "workload checksum");
}
