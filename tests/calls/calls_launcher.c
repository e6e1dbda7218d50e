/* calls_launcher: a launcher, built stripped: main only, the work in
 * libcalls_lib.so (calls_lib.c), which it needs (DT_NEEDED), and no known
 * interpreter library. `calls_launcher <iterations> [--wait]`; prints
 * "checksum <n>". The default selection must find the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait_start.h"

long lib_run(long n);

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  if (argc > 2 && !strcmp(argv[2], "--wait")) wait_start();
  printf("checksum %ld\n", lib_run(n));
  return 0;
}
