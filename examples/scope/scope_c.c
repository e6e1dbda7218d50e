/* scope_c: scoped tracing from C — bracket your own code, get the assembly
 * that ran inside it.
 *
 * Build and run (from the source root, after `meson setup /tmp/scopebuild && ninja -C /tmp/scopebuild`):
 *   cc -O1 -Iinclude examples/scope/scope_c.c -o /tmp/scope_c -L/tmp/scopebuild/host -lasmspy -Wl,-rpath,/tmp/scopebuild/host && /tmp/scope_c
 */
#include <asmspy/scope.h>

#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static long dot(const long *a, const long *b, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int main(void) {
  long a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

  /* Region mode (clean): only dot()'s own instructions; len 0 = its symbol's extent. */
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN((const void *)dot, 0, 0);
  long r = dot(a, b, 4);
  asmspy_scope_end(s); /* prints the listing to stdout (ASMSPY_SCOPE_EMIT=0 silences it) */
  printf("dot = %ld: %llu instructions, tier %s, written to %s\n", r,
         (unsigned long long)asmspy_scope_insn_count(s), asmspy_scope_tier(s),
         asmspy_scope_path(s));
  if (!strcmp(asmspy_scope_tier(s), "NONE")) /* a no-op scope: say why */
    printf("not captured: %s\n", asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* Whole-window block form (faithful, noisier): ends and frees at the brace. */
  {
    ASMSPY_SCOPED(NULL, 0, 0);
    r = dot(a, b, 2);
  }
  return r == 17 ? 0 : 1;
}
