/* tests/unit/check.h — the CHECK macro, its counters and the summary line
 * shared by the standalone unit tests (test_json, test_recording,
 * test_perf_format, test_fdinfo, test_sc_decode).
 *
 * One test program = one translation unit, so the counters are plain file
 * statics. Include it with quotes ("check.h"): the including file's own
 * directory is searched first, so both the meson build and the standalone
 * sanitizer builds described at the top of each test find it without an
 * extra -I.
 *
 *   CHECK(cond, fmt, ...)   count a check; on failure print
 *                           "FAIL file:line: cond: <fmt...>" to stderr
 *   failures, checks        the counters (helpers that report at a caller's
 *                           line bump them by hand)
 *   check_summary("name")   the last word of main(): "name: all N checks
 *                           passed" on stdout and 0, or "name: F of N checks
 *                           FAILED" on stderr and 1
 */
#ifndef ASMSPY_TESTS_UNIT_CHECK_H
#define ASMSPY_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* The summary line; returns main()'s exit status (0 = every check passed). */
static inline int check_summary(const char *prog) {
  if (failures) {
    fprintf(stderr, "%s: %d of %d checks FAILED\n", prog, failures, checks);
    return 1;
  }
  printf("%s: all %d checks passed\n", prog, checks);
  return 0;
}

#endif /* ASMSPY_TESTS_UNIT_CHECK_H */
