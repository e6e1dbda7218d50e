/* test_scope_c: scoped in-process tracing from C (asmspy/scope.h).
 *
 * The exact-count checks need the callgrind oracle: test_scope_counts.sh
 * exports SCOPE_EXP_WORK_SELF, SCOPE_EXP_HELPER_X5 and SCOPE_EXP_WORK_INCL
 * (per call of work()). Run directly, those checks are skipped and the
 * behavioural ones (thread hop, clone stop, slots, PT gate) still run. */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long work(long n);
long helper(long x);
unsigned cpu_vendor_word(void);

/* The documented whole-window overhead bound (docs/scope.md): the caller's
 * own glue around asmspy_scope_begin/asmspy_scope_end. */
#define WHOLE_WINDOW_OVERHEAD 24

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok   - ");                                                                           \
    } else {                                                                                       \
      printf("FAIL - ");                                                                           \
      failures++;                                                                                  \
    }                                                                                              \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

static long env_num(const char *k) {
  const char *v = getenv(k);
  return v && *v ? atol(v) : -1;
}

static long expect_work(long n) { /* the reference result of work(n) */
  long acc = 0;
  for (int i = 0; i < 5; i++) acc += (n + i) * 3 + 1;
  return acc;
}

/* ---- thread hop: begin here, end on another thread --------------------- */
static int hop_pipe[2], hop_done[2];
static asmspy_scope *hop_scope;
static void *hop_thread(void *arg) {
  (void)arg;
  char c;
  if (read(hop_pipe[0], &c, 1) != 1) return NULL;
  asmspy_scope_end(hop_scope);
  if (write(hop_done[1], "x", 1) != 1) return NULL;
  return NULL;
}

static void own_trap_handler(int sig) { (void)sig; }

/* ---- clone inside a scope ---------------------------------------------- */
static volatile int child_ran;
static void *child_thread(void *arg) {
  (void)arg;
  child_ran = 1;
  return NULL;
}

int main(void) {
  long w_self = env_num("SCOPE_EXP_WORK_SELF"), h_x5 = env_num("SCOPE_EXP_HELPER_X5"),
       w_incl = env_num("SCOPE_EXP_WORK_INCL");
  long r;

  /* 1. region = work (len 0: the symbol's extent): exclusive count of work. */
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN((const void *)work, 0, ASMSPY_SCOPE_QUIET);
  r = work(3);
  asmspy_scope_end(s);
  printf("# tier %s (%s)\n", asmspy_scope_tier(s), asmspy_scope_reason(s));
  if (strcmp(asmspy_scope_tier(s), "WEAK") != 0) {
    printf("# no WEAK tier here: %s\n", asmspy_scope_reason(s));
    printf("%s", asmspy_scope_text(s));
    return 1;
  }
  CHECK(r == expect_work(3), "work(3) still returns the right value under the scope");
  CHECK(!asmspy_scope_truncated(s), "region scope not truncated");
  if (w_self >= 0)
    CHECK((long)asmspy_scope_insn_count(s) == w_self, "region=work: %llu == callgrind self %ld",
          (unsigned long long)asmspy_scope_insn_count(s), w_self);
  else
    CHECK(asmspy_scope_insn_count(s) > 10, "region=work: %llu instructions (no oracle)",
          (unsigned long long)asmspy_scope_insn_count(s));
  CHECK(strstr(asmspy_scope_text(s), "work+0x") && !strstr(asmspy_scope_text(s), "helper+"),
        "region=work text names work only");
  const char *path = asmspy_scope_path(s);
  FILE *f = path[0] ? fopen(path, "r") : NULL;
  CHECK(f != NULL, "text written to %s", path);
  if (f) fclose(f);
  printf("%s", asmspy_scope_text(s));
  asmspy_scope_free(s);

  /* 2. region = helper: helper's count x 5. */
  s = ASMSPY_SCOPE_BEGIN((const void *)helper, 0, ASMSPY_SCOPE_QUIET);
  r = work(7);
  asmspy_scope_end(s);
  if (h_x5 >= 0)
    CHECK((long)asmspy_scope_insn_count(s) == h_x5,
          "region=helper: %llu == callgrind 5 x helper %ld",
          (unsigned long long)asmspy_scope_insn_count(s), h_x5);
  else
    CHECK(asmspy_scope_insn_count(s) % 5 == 0 && asmspy_scope_insn_count(s) > 0,
          "region=helper: %llu, a multiple of 5 (no oracle)",
          (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(s);

  /* 3. whole window around one call: >= inclusive(work), <= + overhead. */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(5);
  asmspy_scope_end(s);
  unsigned long long n = asmspy_scope_insn_count(s);
  if (w_incl >= 0)
    CHECK((long)n >= w_incl && (long)n <= w_incl + WHOLE_WINDOW_OVERHEAD,
          "whole window: %llu in [%ld, %ld + %d]", n, w_incl, w_incl, WHOLE_WINDOW_OVERHEAD);
  else
    CHECK(n > 10, "whole window: %llu instructions (no oracle)", n);
  CHECK(strstr(asmspy_scope_text(s), "work+0x") && strstr(asmspy_scope_text(s), "helper+0x"),
        "whole window text names work and helper");
  CHECK(r == expect_work(5), "work(5) correct");
  printf("%s", asmspy_scope_text(s));
  asmspy_scope_free(s);

  /* 4. nested scope on the same thread: the inner one is refused. */
  s = ASMSPY_SCOPE_BEGIN((const void *)work, 0, ASMSPY_SCOPE_QUIET);
  asmspy_scope *inner = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(1);
  asmspy_scope_end(inner);
  asmspy_scope_end(s);
  CHECK(!strcmp(asmspy_scope_tier(inner), "NONE") && strstr(asmspy_scope_reason(inner), "nested"),
        "nested scope refused: %s / %s", asmspy_scope_tier(inner), asmspy_scope_reason(inner));
  CHECK(!strcmp(asmspy_scope_tier(s), "WEAK") && asmspy_scope_insn_count(s) > 0,
        "outer scope still captured %llu", (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(inner);
  asmspy_scope_free(s);

  /* 5. thread hop: begun here, ended on another thread -> truncated. */
  pthread_t th;
  if (pipe(hop_pipe) || pipe(hop_done) || pthread_create(&th, NULL, hop_thread, NULL)) return 1;
  hop_scope = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(2);
  char c = 'g';
  if (write(hop_pipe[1], &c, 1) != 1) return 1;
  if (read(hop_done[0], &c, 1) != 1) return 1;
  CHECK(asmspy_scope_truncated(hop_scope) && strstr(asmspy_scope_reason(hop_scope), "thread hop"),
        "thread hop -> truncated (%s), %llu insns", asmspy_scope_reason(hop_scope),
        (unsigned long long)asmspy_scope_insn_count(hop_scope));
  pthread_join(th, NULL);
  asmspy_scope_free(hop_scope);
  CHECK(r == expect_work(2), "the hopping thread kept running correctly");

  /* 6, 6b, 6c are the stepping tier's own mechanisms (TF stepped over a
   * clone, SIGTRAP owned by the program): forced onto singlestep. The
   * translating tier's handling of the same programs is in
   * tests/codecache. */
  setenv("ASMSPY_SCOPE_BACKEND", "singlestep", 1);

  /* 6. pthread_create + write inside a scope: survives, child runs
   * (untraced), and stepping resumes when pthread_create returns: the
   * write and work(4) after it are captured, the gap is shown in place. */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  int rc = pthread_create(&th, NULL, child_thread, NULL);
  ssize_t wr = write(STDOUT_FILENO, "# written inside the scope\n", 27);
  r = work(4);
  asmspy_scope_end(s);
  if (rc == 0) pthread_join(th, NULL);
  CHECK(rc == 0 && child_ran && wr == 27 && r == expect_work(4),
        "pthread_create + write inside a scope: child ran, results right");
  const char *t6 = asmspy_scope_text(s);
  CHECK(!asmspy_scope_truncated(s) && asmspy_scope_gaps(s) >= 1,
        "scope around pthread_create: stepped over (gaps %llu, truncated %d: %s)",
        (unsigned long long)asmspy_scope_gaps(s), asmspy_scope_truncated(s),
        asmspy_scope_reason(s));
  CHECK(strstr(t6, "# gap: ") && strstr(t6, "blocks SIGTRAP"), "the gap is shown in the text");
  const char *gap6 = strstr(t6, "# gap: ");
  CHECK(gap6 && strstr(gap6, "write+") && strstr(gap6, "work+0x") && strstr(gap6, "helper+0x"),
        "after the gap: write, work and helper were stepped again");
  /* After the gap, work(4) was stepped in full: as many work/helper lines
   * as a scope around work(4) alone records. */
  unsigned long long after = 0, alone = 0;
  for (const char *l = gap6; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (!strncmp(l, "work+", 5) || !strncmp(l, "helper+", 7)) after++;
  asmspy_scope *s4 = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(4);
  asmspy_scope_end(s4);
  for (const char *l = asmspy_scope_text(s4); l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (!strncmp(l, "work+", 5) || !strncmp(l, "helper+", 7)) alone++;
  CHECK(after == alone && alone > 0, "work/helper instructions after the gap: %llu == %llu alone",
        after, alone);
  asmspy_scope_free(s4);
  asmspy_scope_free(s);

  /* 6b. fork inside a scope: stepped over; parent and child continue, the
   * child (another pid) returns through the hooked frame without TF. */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  pid_t pid = fork();
  if (pid == 0) _exit(7);
  int st = 0;
  waitpid(pid, &st, 0);
  r = work(2);
  asmspy_scope_end(s);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7 && r == expect_work(2) &&
            !asmspy_scope_truncated(s) && asmspy_scope_gaps(s) >= 1 &&
            strstr(asmspy_scope_text(s), "waitpid+") && strstr(asmspy_scope_text(s), "work+0x"),
        "fork inside a scope: child exited 7, stepping resumed after fork (gaps %llu, %s)",
        (unsigned long long)asmspy_scope_gaps(s), asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* 6c. the program owns SIGTRAP: refused, program continues. */
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = own_trap_handler; /* never called: no trap is raised */
  sigaction(SIGTRAP, &sa, &old);
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(6);
  asmspy_scope_end(s);
  sigaction(SIGTRAP, &old, NULL);
  CHECK(!strcmp(asmspy_scope_tier(s), "NONE") && strstr(asmspy_scope_reason(s), "SIGTRAP") &&
            r == expect_work(6),
        "pre-existing SIGTRAP handler: refused (%s)", asmspy_scope_reason(s));
  asmspy_scope_free(s);

  unsetenv("ASMSPY_SCOPE_BACKEND");

  /* 7. 1000 scopes at one site: one slot, the same count every time. */
  size_t slots0 = asmspy_scope_slot_count();
  unsigned long long first = 0;
  int same = 1;
  for (int i = 0; i < 1000; i++) {
    asmspy_scope *l = ASMSPY_SCOPE_BEGIN((const void *)work, 0, ASMSPY_SCOPE_QUIET);
    r = work(i);
    asmspy_scope_end(l);
    if (i == 0)
      first = asmspy_scope_insn_count(l);
    else if (asmspy_scope_insn_count(l) != first)
      same = 0;
    asmspy_scope_free(l);
  }
  CHECK(asmspy_scope_slot_count() == slots0 + 1, "1000 looped scopes registered %zu slot(s)",
        asmspy_scope_slot_count() - slots0);
  CHECK(same && first > 0, "every looped scope captured %llu instructions", first);

  /* 8. the block (cleanup attribute) form. */
  {
    ASMSPY_SCOPED_AS(t, (const void *)work, 0, ASMSPY_SCOPE_QUIET);
    r = work(4);
    asmspy_scope_end(t);
    CHECK(asmspy_scope_insn_count(t) == first, "ASMSPY_SCOPED_AS: %llu",
          (unsigned long long)asmspy_scope_insn_count(t));
  }
  {
    ASMSPY_SCOPED(NULL, 0, ASMSPY_SCOPE_QUIET);
    r = work(4);
  } /* ends + frees here (ASan/LSan sees the leak otherwise) */

  /* 9. explicit Intel PT: self-skips with a reason naming the gate. */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_INTEL_PT | ASMSPY_SCOPE_QUIET);
  r = work(9);
  asmspy_scope_end(s);
  CHECK(r == expect_work(9), "the program continues under an explicit intel_pt scope");
  if (!strcmp(asmspy_scope_tier(s), "NONE"))
    CHECK(strstr(asmspy_scope_reason(s), "intel_pt") != NULL, "intel_pt -> NONE: %s",
          asmspy_scope_reason(s));
  else
    CHECK(!strcmp(asmspy_scope_tier(s), "STRONG"), "intel_pt armed: tier %s", asmspy_scope_tier(s));
  asmspy_scope_free(s);

  /* 10. cpuid: the instruction after it is recorded even where no step
   * trap follows cpuid (this VM), right after it, and counted. */
  s = ASMSPY_SCOPE_BEGIN((const void *)cpu_vendor_word, 0, ASMSPY_SCOPE_QUIET);
  unsigned word = cpu_vendor_word();
  asmspy_scope_end(s);
  {
    const char *t = asmspy_scope_text(s);
    const char *c = t ? strstr(t, "cpuid\n") : NULL;
    const char *next = c ? c + strlen("cpuid\n") : NULL;
    if (next && !strncmp(next, "# ", 2)) next = strchr(next, '\n') + 1; /* the lost-trap note */
    const char *eol = next ? strchr(next, '\n') : NULL;
    int marker_next = eol && memmem(next, (size_t)(eol - next), "mov r10d, 0x5eed", 16) != NULL;
    CHECK(marker_next && (word & 0xffff) != 0, "cpuid: the marker follows it in the text");
    unsigned long long lines = 0;
    for (const char *q = t; q && (q = strstr(q, "cpu_vendor_word+0x")); q++) lines++;
    CHECK(lines == asmspy_scope_insn_count(s) && lines > 5,
          "cpuid scope: %llu instruction lines == insn_count %llu", lines,
          (unsigned long long)asmspy_scope_insn_count(s));
    if (!marker_next) fprintf(stderr, "%s\n", t ? t : "(no text)");
  }
  asmspy_scope_free(s);

  /* 11. per-scope overhead (printed only, never asserted: no timing
   * assertions): begin+end(+free) of an empty region scope, QUIET, so the
   * other language bindings' "# overhead <lang>:" lines compare with C. */
  {
    enum { OVERHEAD_ITERS = 200 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < OVERHEAD_ITERS; i++) {
      asmspy_scope *o = ASMSPY_SCOPE_BEGIN((const void *)work, 0, ASMSPY_SCOPE_QUIET);
      asmspy_scope_end(o);
      asmspy_scope_free(o);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3) /
                OVERHEAD_ITERS;
    printf("# overhead c: %.1f us per scope (begin+end, empty region)\n", us);
  }

  printf("# %s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
