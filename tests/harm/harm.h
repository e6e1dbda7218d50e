/* harm.h: the round protocol every harm program speaks (tests/harm/harm.sh
 * reads it). At start: `<pid> ready reference=<X>` (X: the checksum of one
 * round computed before anything could attach). Then rounds forever, each
 * printing `round N OK` or `round N CORRUPT <what>`. HARM_OUT=<file> sends
 * the lines there instead of stdout (for `asmspy --launch ... -- prog`, whose
 * stdout is asmspy's). C and C++. */
#ifndef ASMSPY_TESTS_HARM_H
#define ASMSPY_TESTS_HARM_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void harm_ready(unsigned long long reference) {
  const char *out = getenv("HARM_OUT");
  if (out && !freopen(out, "w", stdout)) {
    perror(out);
    exit(2);
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("%d ready reference=%llu\n", (int)getpid(), reference);
  fflush(stdout);
}

/* one round's verdict: OK when got == want, else CORRUPT with both */
static inline int harm_round(unsigned long long n, unsigned long long got, unsigned long long want,
                             const char *what) {
  if (got == want) {
    printf("round %llu OK\n", n);
    return 1;
  }
  printf("round %llu CORRUPT %s: got %llu want %llu\n", n, what, got, want);
  fflush(stdout);
  return 0;
}

#endif
