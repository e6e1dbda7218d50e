/* codecache against singlestep, the exact oracle (docs/codecache.md): the
 * same scope bodies, in the same process (same addresses), traced by each
 * tier (ASMSPY_SCOPE_BACKEND); the listings must be equal instruction for
 * instruction, and every body must compute what it computes untraced.
 *
 * One normalisation: consecutive repeats of a line are collapsed, because
 * single-step traps once per iteration of a rep-prefixed string
 * instruction and translation records it once (docs/codecache.md).
 *
 * Also here: truncation at ASMSPY_SCOPE_MAX_INSNS (both tiers, equal
 * prefixes), an instruction codecache does not translate (int $0x80:
 * truncated with its reason, the program still right), backtrace(3)
 * inside a scope equal to untraced. Built -O0 and -O2. Exit 77 (SKIP)
 * only when the codecache tier is not usable here, with the reason. */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include "cc_bodies.h"

static int failures;

struct run {
  long value;
  char *text;
  char tier[16];
  char reason[512];
  int truncated;
  unsigned long long count;
};

typedef long (*body_fn)(long);

static struct run trace(const char *backend, body_fn f, long arg, const void *code) {
  struct run r;
  memset(&r, 0, sizeof r);
  setenv("ASMSPY_SCOPE_BACKEND", backend, 1);
  asmspy_scope *s = asmspy_scope_begin("cc-diff", code, 0, ASMSPY_SCOPE_QUIET);
  r.value = f(arg);
  asmspy_scope_end(s);
  r.text = strdup(asmspy_scope_text(s));
  snprintf(r.tier, sizeof r.tier, "%s", asmspy_scope_tier(s));
  snprintf(r.reason, sizeof r.reason, "%s", asmspy_scope_reason(s));
  r.truncated = asmspy_scope_truncated(s);
  r.count = asmspy_scope_insn_count(s);
  asmspy_scope_free(s);
  unsetenv("ASMSPY_SCOPE_BACKEND");
  return r;
}

/* The instruction lines, consecutive repeats collapsed; comment lines out. */
static size_t lines_of(char *text, char ***out) {
  size_t n = 0, cap = 256;
  char **v = malloc(cap * sizeof *v);
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    if (l[0] == '#') continue;
    if (n && !strcmp(v[n - 1], l)) continue;
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    v[n++] = l;
  }
  *out = v;
  return n;
}

/* Under ASan, malloc's own path depends on the allocator's state (its
 * quarantine): two successive runs differ by themselves. Values only. */
#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_LISTING_STABLE 0
#else
#define MALLOC_LISTING_STABLE 1
#endif
static int listings_stable = 1;

static void compare(const char *name, body_fn f, long arg, const void *code, int want_trunc) {
  f(arg); /* binds its PLT slots lazily, before either trace */
  /* untraced through the same calls (no backend of that name: tier NONE) */
  struct run un = trace("none", f, arg, code);
  long expect = un.value;
  free(un.text);
  struct run ss = trace("singlestep", f, arg, code);
  struct run cc = trace("codecache", f, arg, code);
  int bad = 0;
  if (ss.value != expect || cc.value != expect) {
    printf("FAIL %s: values untraced %ld, singlestep %ld, codecache %ld\n", name, expect, ss.value,
           cc.value);
    bad = 1;
  }
  if (strncmp(cc.reason, "codecache", 9) != 0 && !cc.truncated) {
    printf("FAIL %s: codecache did not arm: %s\n", name, cc.reason);
    bad = 1;
  }
  if (cc.truncated != want_trunc || ss.truncated != want_trunc) {
    printf("FAIL %s: truncated singlestep %d (%s), codecache %d (%s), want %d\n", name,
           ss.truncated, ss.reason, cc.truncated, cc.reason, want_trunc);
    bad = 1;
  }
  char **a, **b;
  size_t na = lines_of(ss.text, &a), nb = lines_of(cc.text, &b);
  size_t i = 0;
  while (i < na && i < nb && !strcmp(a[i], b[i])) i++;
  if (!listings_stable) i = na = nb;
  if (i != na || i != nb) {
    printf("FAIL %s: listings differ at line %zu of %zu (singlestep) / %zu (codecache)\n", name, i,
           na, nb);
    for (size_t k = i >= 3 ? i - 3 : 0; k < i + 3; k++)
      printf("   %-60s | %s\n", k < na ? a[k] : "-", k < nb ? b[k] : "-");
    bad = 1;
  }
  if (!bad)
    printf("ok   %s: %zu instructions (%llu counted), value %ld%s\n", name, na, cc.count, cc.value,
           want_trunc ? ", truncated in both" : "");
  failures += bad;
  free(a);
  free(b);
  free(ss.text);
  free(cc.text);
}

BODY static long b_int80(long n) {
  long pid;
  /* the 32-bit getpid (20) through int $0x80: harmless in a 64-bit process,
   * and an instruction codecache leaves to native execution */
  __asm__ volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
  return pid + n;
}

int main(void) {
  /* warm-up: the engine, both plugins' probes, asmspy_scope_end's PLT slot,
   * libgcc_s (backtrace loads it on first use) */
  b_backtrace(0);
  struct run w = trace("codecache", b_empty, 1, NULL);
  if (strcmp(w.tier, "WEAK") || strncmp(w.reason, "codecache", 9)) {
    printf("SKIP: the codecache tier is not usable here: %s\n", w.reason);
    return 77;
  }
  free(w.text);
  free(trace("singlestep", b_empty, 1, NULL).text);

  compare("empty", b_empty, 3, NULL, 0);
  compare("loop", b_loop, 40, NULL, 0);
  compare("loop-region", b_loop, 40, (const void *)b_loop, 0);
  compare("recursion", b_fib, 8, NULL, 0);
  compare("fptr-qsort", b_fptr, 5, NULL, 0);
  compare("libc-snprintf-strlen-memcpy", b_libc, 42, NULL, 0);
  compare("switch", b_switch, 30, NULL, 0);
  compare("longjmp", b_longjmp, 3, NULL, 0);
  listings_stable = MALLOC_LISTING_STABLE;
  compare("malloc", b_malloc, 100, NULL, 0);
  listings_stable = 1;
  compare("backtrace", b_backtrace, 1, NULL, 0);

  /* backtrace(3) sees the original return addresses: the same frames as
   * untraced, from the same call site (one loop) */
  void *frames[2][32];
  int nf[2];
  static volatile int two = 2; /* not unrolled: one call site */
  for (int k = 0; k < two; k++) {
    free(trace(k ? "codecache" : "none", b_backtrace, 0, NULL).text);
    nf[k] = g_nframes;
    memcpy(frames[k], g_frames, sizeof frames[k]);
  }
  if (nf[0] != nf[1] || memcmp(frames[0], frames[1], (size_t)nf[0] * sizeof(void *))) {
    printf("FAIL backtrace-frames: %d frames untraced, %d in the scope, or other addresses\n",
           nf[0], nf[1]);
    for (int i = 0; i < nf[0] || i < nf[1]; i++)
      printf("   %p %p\n", i < nf[0] ? frames[0][i] : NULL, i < nf[1] ? frames[1][i] : NULL);
    failures++;
  } else {
    printf("ok   backtrace-frames: %d frames, the same addresses as untraced\n", nf[0]);
  }

  /* truncation at max_insns: both tiers stop at the same instruction */
  setenv("ASMSPY_SCOPE_MAX_INSNS", "40", 1);
  compare("max_insns-40", b_loop, 200, NULL, 1);
  unsetenv("ASMSPY_SCOPE_MAX_INSNS");

  /* an instruction codecache does not translate: truncated with its reason */
  long want = b_int80(1);
  struct run u = trace("codecache", b_int80, 1, NULL);
  if (u.value != want || !u.truncated || !strstr(u.reason, "does not handle")) {
    printf("FAIL untranslatable: value %ld (want %ld), truncated %d, reason: %s\n", u.value, want,
           u.truncated, u.reason);
    failures++;
  } else {
    printf("ok   untranslatable: truncated: %s\n", u.reason);
  }
  free(u.text);

  /* a second round: every block translated already (the per-thread cache) */
  compare("loop-again", b_loop, 40, NULL, 0);
  compare("libc-again", b_libc, 43, NULL, 0);

  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
