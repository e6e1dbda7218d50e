/* cc_loop: the -O2 loop program of bench/run_codecache_bench.sh. Prints its
 * pid, then runs N iterations (0: forever) of step(); after each, the
 * global `progress` holds the number of iterations done (the benchmark reads
 * it from /proc/<pid>/mem: the program's own speed, traced or not). Every
 * iteration runs the same instructions. Prints `x=<checksum>` at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long progress;

__attribute__((noinline)) unsigned long step(unsigned long x) {
  for (int i = 0; i < 100; i++) x = x * 6364136223846793005ul + (unsigned long)i;
  return x;
}

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, x = 1;
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (unsigned long i = 0; !n || i < n; i++) {
    x = step(x);
    progress = i + 1;
  }
  printf("x=%lu\n", x);
  return 0;
}
