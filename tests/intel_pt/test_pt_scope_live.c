/* test_pt_scope_live — the STRONG scope tier (intel_pt inproc_begin/end) on
 * real hardware. Where intel_pt is not usable it prints the reason the scope
 * core recorded (the probe's) and exits 77.
 *
 * The oracle is by construction: pt_known(n) below is hand-written assembly
 * whose run is exactly 5n + 2 instructions in a known order (a loop calling
 * a two-instruction leaf), so the region scope must list exactly that, in
 * that order; the whole window must contain it plus a small fixed overhead.
 */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rdi = n >= 1; returns n in eax.
 *   pt_known:   xor eax,eax
 *           1:  call pt_leaf
 *               dec rdi
 *               jnz 1b
 *               ret
 *   pt_leaf:    add eax,1
 *               ret                                     */
/* clang-format off */
__asm__(".text\n"
        ".globl pt_known\n.type pt_known, @function\n"
        "pt_known:\n"
        "  xor %eax, %eax\n"
        "1: call pt_leaf\n"
        "  dec %rdi\n"
        "  jnz 1b\n"
        "  ret\n"
        ".size pt_known, .-pt_known\n"
        ".globl pt_leaf\n.type pt_leaf, @function\n"
        "pt_leaf:\n"
        "  add $1, %eax\n"
        "  ret\n"
        ".size pt_leaf, .-pt_leaf\n"
        ".globl pt_known_end\npt_known_end:\n");
/* clang-format on */
long pt_known(long n);
extern const char pt_leaf[], pt_known_end[];

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    int check_ok_ = (cond); /* once: cond may have side effects */                                 \
    printf(check_ok_ ? "ok   - " : "FAIL - ");                                                     \
    if (!check_ok_) failures++;                                                                    \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

static void *thread_body(void *arg) { return arg; }

int main(void) {
  const char *code = (const char *)(uintptr_t)pt_known;
  size_t len = (size_t)(pt_known_end - code);
  long n = 1000;

  asmspy_scope *s = ASMSPY_SCOPE_BEGIN(code, len, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  long r = pt_known(n);
  asmspy_scope_end(s);
  if (strcmp(asmspy_scope_tier(s), "STRONG") != 0) {
    printf("SKIP: the intel_pt scope tier is unavailable here: %s\n", asmspy_scope_reason(s));
    asmspy_scope_free(s);
    return 77;
  }
  CHECK(r == n, "pt_known(%ld) ran normally under the scope", n);
  CHECK(!asmspy_scope_truncated(s), "not truncated (%s)", asmspy_scope_reason(s));
  uint64_t want = 5 * (uint64_t)n + 2;
  CHECK(asmspy_scope_insn_count(s) == want, "region count %llu == 5n+2 = %llu",
        (unsigned long long)asmspy_scope_insn_count(s), (unsigned long long)want);
  const char *text = asmspy_scope_text(s);
  CHECK(strstr(text, "pt_known") && strstr(text, "pt_leaf"),
        "the listing names pt_known and pt_leaf");
  /* the first lines: xor, call, add (in the leaf), ret */
  const char *xor_ = strstr(text, "xor"), *call = strstr(text, "call"), *add = strstr(text, "add");
  CHECK(xor_ && call && add && xor_ < call && call < add, "in execution order: xor, call, add");
  uint64_t first = asmspy_scope_insn_count(s);
  asmspy_scope_free(s);

  /* the same region again: the same count (nothing carried over) */
  s = ASMSPY_SCOPE_BEGIN(code, len, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  pt_known(n);
  asmspy_scope_end(s);
  CHECK(asmspy_scope_insn_count(s) == first, "a second scope: %llu again",
        (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(s);

  /* the whole window: the run plus the caller's glue around the calls */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  pt_known(n);
  asmspy_scope_end(s);
  uint64_t whole = asmspy_scope_insn_count(s);
  CHECK(whole >= want && whole <= want + 24, "whole window %llu in [5n+2, 5n+2+24]",
        (unsigned long long)whole);
  asmspy_scope_free(s);

  /* a thread created inside a STRONG scope: no trap to inherit, nothing to stop */
  s = ASMSPY_SCOPE_BEGIN(code, len, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  pthread_t t;
  int made = pthread_create(&t, NULL, thread_body, NULL) == 0;
  if (made) pthread_join(t, NULL);
  pt_known(n);
  asmspy_scope_end(s);
  CHECK(made && asmspy_scope_insn_count(s) == want && !asmspy_scope_truncated(s),
        "pthread_create inside the scope: still exact (%llu), not truncated",
        (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(s);

  /* the recording budget: a capture cut short says so */
  setenv("ASMSPY_SCOPE_MAX_INSNS", "100", 1);
  s = ASMSPY_SCOPE_BEGIN(code, len, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  pt_known(n);
  asmspy_scope_end(s);
  CHECK(asmspy_scope_truncated(s) && asmspy_scope_insn_count(s) == 100 &&
            strstr(asmspy_scope_reason(s), "max_insns"),
        "ASMSPY_SCOPE_MAX_INSNS=100: 100 instructions, truncated (%s)", asmspy_scope_reason(s));
  asmspy_scope_free(s);
  unsetenv("ASMSPY_SCOPE_MAX_INSNS");

  printf("# %s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
