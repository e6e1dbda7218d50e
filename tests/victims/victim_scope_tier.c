/* victim_scope_tier: one scope around a small loop, then the tier it got
 * and why, and proof the program went on:
 *   tier <STRONG|WEAK|CEILING|NONE>
 *   reason <text>
 *   insns <n>
 *   continued <the loop's result>
 * On x86-64 the singlestep backend's in-process tier (EFLAGS.TF) records the
 * loop; on AArch64 no process can single-step itself (MDSCR_EL1.SS is the
 * kernel's), so the ladder ends at NONE with the reason (tests/arm64). */
#include <asmspy/scope.h>

#include <stdio.h>

__attribute__((noinline)) static long spin(long n) {
  long acc = 0;
  for (long i = 0; i < n; i++) acc += i * 3;
  return acc;
}

int main(void) {
  asmspy_scope *s = asmspy_scope_begin("victim_scope_tier", NULL, 0, ASMSPY_SCOPE_QUIET);
  long r = spin(100);
  asmspy_scope_end(s);
  printf("tier %s\nreason %s\ninsns %llu\ncontinued %ld\n", asmspy_scope_tier(s),
         asmspy_scope_reason(s), (unsigned long long)asmspy_scope_insn_count(s), r);
  asmspy_scope_free(s);
  return 0;
}
