/* test_scope_overflow: WEAK scopes past their recording buffer, and the
 * step trap's flag (EFLAGS.TF) never outliving the handler that owns it.
 *
 * Every case runs in a forked child, so a process killed by a stray step
 * trap ("Trace/breakpoint trap", the death scope_bench 200000 once showed)
 * is a failed case with its signal named, not a dead test. Bounded by
 * counts only: rounds, instructions, threads.
 *
 *   1. overflow rounds: whole-window and region scopes whose buffer
 *      (ASMSPY_SCOPE_MAX_INSNS) is a fraction of what runs inside them: the
 *      program survives, its result is right, the scope says truncated at
 *      exactly that limit and holds that many instructions (less the few of
 *      asmspy's own that are dropped), TF is clear afterwards, and the next
 *      scope on the same thread records exactly what the same scope recorded
 *      before the overflow;
 *   2. two threads overflowing at once while a third never traced thread
 *      runs: TF stays with its thread;
 *   3. a scope ended from a signal handler that interrupted the stepped
 *      code: the interrupted context, saved in the signal frame, still has
 *      TF set and gets it back at sigreturn, after the scope ended;
 *   4. a step trap after the last scope ended (TF set by hand: what any
 *      leftover TF looks like).
 */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    int ok_ = (cond);                                                                              \
    printf("%s - ", ok_ ? "ok" : "FAIL");                                                          \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
    fflush(stdout);                                                                                \
    if (!ok_) failures++;                                                                          \
  } while (0)

/* The workload: 7 instructions per iteration, no calls, no syscalls. */
__attribute__((noinline, noipa)) static unsigned long mix(unsigned long n) {
  unsigned long acc = 0;
  for (unsigned long i = 0; i < n; i++) acc = (acc ^ (i * 3)) + (acc >> 3);
  return acc;
}

static unsigned long mix_native(unsigned long n) {
  unsigned long acc = 0;
  for (unsigned long i = 0; i < n; i++) acc = (acc ^ (i * 3)) + (acc >> 3);
  return acc;
}

static int tf_set(void) {
  unsigned long fl;
  __asm__ volatile("sub $128, %%rsp\n\tpushfq\n\tpopq %0\n\tadd $128, %%rsp" : "=r"(fl)::"memory");
  return (fl & 0x100) != 0;
}

/* Run fn in a child; the child's own checks set its exit status. Returns
 * the child's wait status. */
static int in_child(const char *what, int (*fn)(void *), void *arg) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  if (pid == 0) _exit(fn(arg));
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
  }
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child %s", what,
        WIFSIGNALED(st)                          ? strsignal(WTERMSIG(st))
        : WIFEXITED(st) && WEXITSTATUS(st) == 0  ? "exited 0"
        : WIFEXITED(st) && WEXITSTATUS(st) == 77 ? "skipped (no WEAK tier)"
                                                 : "failed its checks");
  return st;
}

static int weak_here(void) {
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  int weak = !strcmp(asmspy_scope_tier(s), "WEAK");
  if (!weak) printf("SKIP: no WEAK tier here: %s\n", asmspy_scope_reason(s));
  asmspy_scope_free(s);
  return weak;
}

/* ------------------------------------------------------------------------ */
/* 1. overflow rounds                                                        */
/* ------------------------------------------------------------------------ */

struct round {
  unsigned long limit; /* ASMSPY_SCOPE_MAX_INSNS */
  int region;          /* 1: region = mix()'s extent; 0: whole window */
  int env_set;         /* the limit is in the environment already (threads) */
};

/* A complete region scope over mix(100): its instruction count. */
static unsigned long long small_scope(int *bad) {
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN((const void *)mix, 0, ASMSPY_SCOPE_QUIET);
  unsigned long got = mix(100);
  asmspy_scope_end(s);
  unsigned long long n = asmspy_scope_insn_count(s);
  if (got != mix_native(100) || asmspy_scope_truncated(s) || n < 700 || tf_set()) {
    printf("  small scope: result %s, truncated %d (%s), count %llu, TF %d\n",
           got == mix_native(100) ? "right" : "WRONG", asmspy_scope_truncated(s),
           asmspy_scope_reason(s), n, tf_set());
    *bad = 1;
  }
  asmspy_scope_free(s);
  return n;
}

static int overflow_round(void *arg) {
  const struct round *r = arg;
  int bad = 0;
  unsigned long long before = small_scope(&bad);
  if (!r->env_set) {
    char lim[32];
    snprintf(lim, sizeof lim, "%lu", r->limit);
    setenv("ASMSPY_SCOPE_MAX_INSNS", lim, 1);
  }
  unsigned long n = r->limit / 2; /* ~3.5x the buffer's worth of instructions */
  asmspy_scope *s = r->region ? ASMSPY_SCOPE_BEGIN((const void *)mix, 0, ASMSPY_SCOPE_QUIET)
                              : ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  unsigned long got = mix(n);
  asmspy_scope_end(s);
  int tf = tf_set();
  char want[96];
  snprintf(want, sizeof want, "max_insns (%lu) reached", r->limit);
  unsigned long long count = asmspy_scope_insn_count(s);
  /* the buffer's records less the few that are not shown: asmspy's own
   * (begin's tail) and, for a region, the caller's glue around the call */
  unsigned long slack = 32;
  if (got != mix_native(n) || tf || !asmspy_scope_truncated(s) ||
      !strstr(asmspy_scope_reason(s), want) || count > r->limit || count + slack < r->limit ||
      !strstr(asmspy_scope_text(s), "TRUNCATED: ") || !strstr(asmspy_scope_text(s), want)) {
    printf("  round limit %lu %s: result %s, TF %s, truncated %d, reason '%s', count %llu\n",
           r->limit, r->region ? "region" : "window", got == mix_native(n) ? "right" : "WRONG",
           tf ? "SET" : "clear", asmspy_scope_truncated(s), asmspy_scope_reason(s), count);
    bad = 1;
  }
  asmspy_scope_free(s);
  /* the next scope on this thread: complete, and exactly as before */
  unsigned long long after = small_scope(&bad);
  if (after != before) {
    printf("  the same scope recorded %llu instructions before the overflow, %llu after\n", before,
           after);
    bad = 1;
  }
  return bad;
}

/* ------------------------------------------------------------------------ */
/* 2. two threads overflowing at once, a third never traced                  */
/* ------------------------------------------------------------------------ */

static volatile int bystander_stop;

static void *bystander(void *arg) {
  (void)arg;
  unsigned long spins = 0;
  while (!bystander_stop) spins += mix_native(64) & 1; /* dies here if TF ever reached it */
  return (void *)(uintptr_t)(tf_set() ? 1 : 0);
}

static void *overflower(void *arg) { return (void *)(uintptr_t)overflow_round(arg); }

static int two_threads(void *arg) {
  (void)arg;
  setenv("ASMSPY_SCOPE_MAX_INSNS", "20000", 1);
  /* the engine opens once per process: on this thread, before the others */
  asmspy_scope_free(ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET));
  pthread_t by, a, b;
  struct round ra = {20000, 0, 1}, rb = {20000, 1, 1};
  pthread_create(&by, NULL, bystander, NULL);
  pthread_create(&a, NULL, overflower, &ra);
  pthread_create(&b, NULL, overflower, &rb);
  void *va, *vb, *vby;
  pthread_join(a, &va);
  pthread_join(b, &vb);
  bystander_stop = 1;
  pthread_join(by, &vby);
  if (va || vb || vby) printf("  threads: a %p b %p bystander %p\n", va, vb, vby);
  return va || vb || vby;
}

/* ------------------------------------------------------------------------ */
/* 3. a scope ended from a signal handler                                    */
/* ------------------------------------------------------------------------ */

static asmspy_scope *g_scope;

static void end_in_handler(int sig) {
  (void)sig;
  asmspy_scope_end(g_scope); /* the interrupted code's saved flags still hold TF */
}

static int ended_in_handler(void *arg) {
  (void)arg;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = end_in_handler;
  sigaction(SIGUSR1, &sa, NULL);
  g_scope = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  unsigned long a = mix(50);
  raise(SIGUSR1); /* the handler ends the scope; sigreturn restores TF */
  unsigned long b = mix(5000);
  int bad = a != mix_native(50) || b != mix_native(5000) || tf_set() ||
            asmspy_scope_insn_count(g_scope) < 350;
  if (bad)
    printf("  ended in a handler: results %d %d, TF %d, count %llu\n", a == mix_native(50),
           b == mix_native(5000), tf_set(), (unsigned long long)asmspy_scope_insn_count(g_scope));
  asmspy_scope_free(g_scope);
  return bad;
}

/* ------------------------------------------------------------------------ */
/* 4. a step trap after the last scope ended                                 */
/* ------------------------------------------------------------------------ */

static int stray_after(void *arg) {
  (void)arg;
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN((const void *)mix, 0, ASMSPY_SCOPE_QUIET);
  unsigned long a = mix(10);
  asmspy_scope_free(s);
  /* TF with no scope left: a leftover flag (a saved context, a tracer that
   * died stepping us) traps on the next instruction */
  __asm__ volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x100, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::
                       : "memory", "cc");
  unsigned long b = mix(10);
  int bad = a != mix_native(10) || b != mix_native(10) || tf_set();
  if (bad)
    printf("  stray trap: results %d %d, TF %d\n", a == mix_native(10), b == mix_native(10),
           tf_set());
  return bad;
}

/* Each scope end writes its text under $TMPDIR: a directory of our own. */
static char tmpdir[64];

static void remove_tmpdir(void) {
  DIR *d = opendir(tmpdir);
  struct dirent *e;
  char path[512];
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') {
      snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
      unlink(path);
    }
  if (d) closedir(d);
  rmdir(tmpdir);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* TF outliving its handler is the stepping tier's hazard: test that tier
   * (codecache's own truncation is tested in tests/codecache) */
  setenv("ASMSPY_SCOPE_BACKEND", "singlestep", 1);
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/scope-overflow-XXXXXX",
           base && strlen(base) < 32 ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("TMPDIR", tmpdir, 1);
  atexit(remove_tmpdir);
  if (!weak_here()) return 77;
  static const struct round rounds[] = {
      {4096, 0, 0}, {4096, 1, 0}, {100000, 0, 0}, {100000, 1, 0}, {4096, 0, 0}, {100000, 0, 0},
  };
  for (size_t i = 0; i < sizeof rounds / sizeof *rounds; i++) {
    char what[96];
    snprintf(what, sizeof what, "overflow round %zu (%s, buffer %lu)", i + 1,
             rounds[i].region ? "region" : "whole window", rounds[i].limit);
    in_child(what, overflow_round, (void *)&rounds[i]);
  }
  in_child("two threads overflowing at once, a bystander thread untouched", two_threads, NULL);
  in_child("a scope ended from a signal handler that interrupted the stepped code",
           ended_in_handler, NULL);
  in_child("a step trap after the last scope ended", stray_after, NULL);
  printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
