/* amd_lbr's in-process mode through the public scope API: a scope opened
 * with ASMSPY_SCOPE_AMD_LBR arms amd_lbr directly (host/scope.c). Where the
 * probe says there are no branch stacks, the scope must be a recorded no-op
 * (tier NONE, reason "self-skip: amd_lbr: <the probe's reason>") and the
 * program must run on: the test prints the reason and exits 77. Where they
 * exist, the scope arms (tier CEILING), the program runs and ends it. */
#include <stdio.h>
#include <string.h>

#include "asmspy/scope.h"

static volatile unsigned long acc;

__attribute__((noinline)) static void work(void) {
  for (unsigned long i = 0; i < 200000; i++) acc += i & 1 ? i : 3;
}

int main(void) {
  asmspy_scope *s =
      asmspy_scope_begin("lbr_scope", NULL, 0, ASMSPY_SCOPE_AMD_LBR | ASMSPY_SCOPE_QUIET);
  if (!s) {
    fprintf(stderr, "FAIL: asmspy_scope_begin returned NULL\n");
    return 1;
  }
  work();
  int rc = asmspy_scope_end(s);
  const char *tier = asmspy_scope_tier(s);
  const char *reason = asmspy_scope_reason(s);
  printf("tier %s, end %d: %s\n", tier, rc, reason);
  int status = 0;
  if (strcmp(tier, "NONE") == 0) {
    if (strncmp(reason, "self-skip: amd_lbr: ", 20) != 0) {
      fprintf(stderr, "FAIL: a NONE scope must say why amd_lbr skipped: \"%s\"\n", reason);
      status = 1;
    } else {
      printf("SKIP: %s\n", reason);
      status = 77;
    }
  } else if (strcmp(tier, "CEILING") != 0) {
    fprintf(stderr, "FAIL: ASMSPY_SCOPE_AMD_LBR gave tier %s\n", tier);
    status = 1;
  }
  asmspy_scope_free(s);
  return status;
}
