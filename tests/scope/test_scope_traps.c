/* test_scope_traps: a scope takes no trap on asmspy's own code. The
 * stepping tier starts as asmspy_scope_begin returns to its caller and stops
 * at the trap on asmspy_scope_end's entry (ABI 1.12 arm_tail / end_entry),
 * so the traps of an empty scope are the caller's own glue (storing and
 * loading the handle, the call, its PLT stub) plus the one stopping trap —
 * about 50 before, when the rest of begin, the return through libasmspy and
 * the start of end were stepped too. ASMSPY_SCOPE_DEBUG=1 makes the tier say
 * how many traps it took ("asmspy scope: singlestep: N traps, M
 * instructions recorded" on stderr), read back here from a temp file. */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

int main(void) {
  setenv("ASMSPY_SCOPE_DEBUG", "1", 1);
  setenv("ASMSPY_SCOPE_BACKEND", "singlestep", 1); /* the stepping tier's traps, not codecache's */
  FILE *tmp = tmpfile();
  if (!tmp) return 99;
  fflush(stderr);
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  const char *tier = "";
  for (int k = 0; k < 4; k++) { /* the first resolves asmspy_scope_end's PLT slot */
    asmspy_scope *s = asmspy_scope_begin("empty", NULL, 0, ASMSPY_SCOPE_QUIET);
    asmspy_scope_end(s);
    tier = asmspy_scope_tier(s);
    asmspy_scope_free(s);
  }
  asmspy_scope *w = asmspy_scope_begin("work", NULL, 0, ASMSPY_SCOPE_QUIET);
  for (int i = 0; i < 10; i++) sink += i;
  asmspy_scope_end(w);
  unsigned long long work_count = asmspy_scope_insn_count(w);
  asmspy_scope_free(w);
  fflush(stderr);
  dup2(saved, 2);
  if (strcmp(tier, "WEAK") != 0) {
    printf("SKIP: the scope tier here is %s, not the stepping tier\n", tier);
    return 77;
  }
  rewind(tmp);
  char line[512];
  int n = 0, bad = 0;
  unsigned long long traps = 0, recorded = 0;
  while (fgets(line, sizeof line, tmp)) {
    if (sscanf(line, "asmspy scope: singlestep: %llu traps, %llu instructions recorded", &traps,
               &recorded) != 2)
      continue;
    n++;
    /* one trap per recorded instruction, plus the stopping trap */
    int ok = traps == recorded + 1 && (n == 1 || n == 5 || recorded <= 8);
    printf("%s scope %d: %llu traps, %llu recorded\n", ok ? "ok  " : "FAIL", n, traps, recorded);
    bad += !ok;
  }
  if (n != 5) {
    printf("FAIL: %d trap reports, want 5\n", n);
    return 1;
  }
  if (work_count < 20) {
    printf("FAIL: the work scope shows %llu instructions (its loop runs ~40)\n", work_count);
    return 1;
  }
  return bad ? 1 : 0;
}
