/* calls_mempcpy: mempcpy in a loop. glibc's __mempcpy_*_unaligned_erms
 * sets rax and jumps to __memmove_*_unaligned_erms+3, past that function's
 * first instruction: a capture that patches memmove's entry (--module=libc,
 * or any function of a -static program) must not put its jump over those
 * bytes. Built twice: linked against libc.so and -static.
 *
 * `calls_mempcpy [--wait]`: copies until SIGTERM, checking every copy
 * against a byte loop; then prints "checksum <n>" (a function of the data
 * only, not of how many rounds ran) and exits 0, or exits 2 at the first
 * wrong copy. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait_start.h"

#define SPAN 4096

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig, stop = 1; }

static unsigned char src[SPAN], dst[2 * SPAN];

/* one round: every length 0..SPAN-1 step 37, each copy checked byte by byte */
__attribute__((noinline)) static unsigned long round_sum(void) {
  unsigned long sum = 0;
  for (size_t n = 0; n < SPAN; n += 37) {
    unsigned char *end = mempcpy(dst + (n & 63), src, n);
    if (end != dst + (n & 63) + n) {
      printf("mempcpy(%zu) returned +%td\n", n, end - dst);
      exit(2);
    }
    for (size_t i = 0; i < n; i++)
      if (dst[(n & 63) + i] != src[i]) {
        printf("mempcpy(%zu): byte %zu wrong\n", n, i);
        exit(2);
      }
    sum = sum * 31 + (n ? dst[(n & 63) + n / 2] : 0) + n;
  }
  return sum;
}

int main(int argc, char **argv) {
  for (size_t i = 0; i < SPAN; i++) src[i] = (unsigned char)(i * 7 + 3);
  signal(SIGTERM, on_term);
  if (argc > 1 && strcmp(argv[1], "--wait") == 0) wait_start();
  unsigned long first = round_sum();
  while (!stop)
    if (round_sum() != first) {
      printf("a round's sum changed\n");
      return 2;
    }
  printf("checksum %lu\n", first);
  return 0;
}
