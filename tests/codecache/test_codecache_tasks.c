/* codecache with threads, forks, spawns, signals and a thread hop inside a
 * scope (docs/codecache.md): the program computes what it computes
 * untraced, nothing crashes, and the parent's recording goes on across a
 * thread creation (no gap, no truncation: a child leaves the code cache at
 * its first instruction). Exit 77 only when the codecache tier is not
 * usable here, with the reason. */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int failures;
#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    int ok_ = (c);                                                                                 \
    printf("%s - ", ok_ ? "ok" : "FAIL");                                                          \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
    if (!ok_) failures++;                                                                          \
  } while (0)

/* unsigned: the mix wraps (signed overflow is undefined, UBSan says so) */
__attribute__((noinline, noipa)) static long work(long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < (unsigned long)n * 1000; i++) s += i ^ (s >> 3);
  return (long)s;
}

static volatile int child_ran;
static void *child(void *arg) {
  child_ran = 1 + (int)(long)arg;
  return NULL;
}

static volatile long alarms;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

static asmspy_scope *sig_scope;
static volatile sig_atomic_t sig_ended;
static void end_in_handler(int sig) {
  (void)sig;
  if (!sig_ended && sig_scope) {
    asmspy_scope_end(sig_scope); /* quiet: nothing printed */
    sig_ended = 1;
  }
}

static asmspy_scope *hop;
static void *hop_end(void *arg) {
  (void)arg;
  asmspy_scope_end(hop);
  return NULL;
}

static int codecache(const asmspy_scope *s) {
  return !strncmp(asmspy_scope_reason(s), "codecache", 9);
}

int main(void) {
  setenv("ASMSPY_SCOPE_BACKEND", "codecache", 1);
  setvbuf(stdout, NULL, _IOLBF, 0);
  long w4 = work(4), w2 = work(2), w1 = work(1);
  asmspy_scope *s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  asmspy_scope_end(s);
  if (!codecache(s)) {
    printf("SKIP: the codecache tier is not usable here: %s\n", asmspy_scope_reason(s));
    return 77;
  }
  asmspy_scope_free(s);

  /* pthread_create inside a scope: recorded through, the child untraced */
  pthread_t th;
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  int rc = pthread_create(&th, NULL, child, (void *)1L);
  ssize_t wr = write(STDOUT_FILENO, "# written inside the scope\n", 27);
  long r = work(4);
  asmspy_scope_end(s);
  if (rc == 0) pthread_join(th, NULL);
  const char *t = asmspy_scope_text(s);
  CHECK(rc == 0 && child_ran == 2 && wr == 27 && r == w4,
        "pthread_create: child ran, results right");
  CHECK(codecache(s) && !asmspy_scope_truncated(s) && !asmspy_scope_gaps(s) &&
            strstr(t, "clone3+") && strstr(t, "write+") && strstr(t, "work+0x"),
        "pthread_create: recorded through clone3, write and work, no gap (truncated %d: %s)",
        asmspy_scope_truncated(s), asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* fork: the child leaves the cache and exits, the parent records on */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  pid_t pid = fork();
  if (pid == 0) _exit(work(1) == work(1) ? 7 : 8);
  int st = 0;
  waitpid(pid, &st, 0);
  r = work(2);
  asmspy_scope_end(s);
  t = asmspy_scope_text(s);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7 && r == w2 && !asmspy_scope_truncated(s) &&
            strstr(t, "waitpid+") && strstr(t, "work+0x"),
        "fork: child exited 7, the parent recorded waitpid and work (%s)", asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* posix_spawn (clone CLONE_VM|CLONE_VFORK: the child shares this memory) */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  char *argv[] = {"sh", "-c", "exit 5", NULL};
  rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
  st = 0;
  if (rc == 0) waitpid(pid, &st, 0);
  r = work(2);
  asmspy_scope_end(s);
  CHECK(rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 5 && r == w2 && !asmspy_scope_truncated(s),
        "posix_spawn: child exited 5, parent right, not truncated (%s)", asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* signals delivered while translated code runs: handlers run natively */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &it, NULL);
  long want = work(300);
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(300);
  asmspy_scope_end(s);
  memset(&it, 0, sizeof it);
  setitimer(ITIMER_REAL, &it, NULL);
  CHECK(r == want && alarms > 0, "signals during the scope: %ld handled, result right", alarms);
  asmspy_scope_free(s);

  /* the scope ended from a signal handler that interrupted translated
   * code: the interrupted code resumes in the cache and must leave it
   * cleanly (nothing written to a freed buffer: ASan checks it) */
  alarms = 0;
  sa.sa_handler = end_in_handler;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval one = {{0, 500}, {0, 500}};
  sig_scope = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  setitimer(ITIMER_REAL, &one, NULL);
  long spins = 0;
  while (!sig_ended) spins += work(1) == w1;
  r = work(2);
  memset(&one, 0, sizeof one);
  setitimer(ITIMER_REAL, &one, NULL);
  CHECK(r == w2 && spins > 0 && asmspy_scope_truncated(sig_scope) &&
            strstr(asmspy_scope_reason(sig_scope), "signal handler"),
        "ended from a signal handler: the program right after it (%s)",
        asmspy_scope_reason(sig_scope));
  asmspy_scope_free(sig_scope);
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET); /* and scopes work again */
  r = work(2);
  asmspy_scope_end(s);
  CHECK(r == w2 && codecache(s) && !asmspy_scope_truncated(s),
        "a scope after the one ended in a handler: %llu instructions",
        (unsigned long long)asmspy_scope_insn_count(s));
  asmspy_scope_free(s);

  /* a thread hop: the scope ends on another thread; the arming thread
   * leaves the cache and runs on correctly */
  hop = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  pthread_create(&th, NULL, hop_end, NULL);
  pthread_join(th, NULL);
  r = work(2);
  CHECK(r == w2 && asmspy_scope_truncated(hop) && strstr(asmspy_scope_reason(hop), "thread hop"),
        "thread hop: truncated (%s), the arming thread right", asmspy_scope_reason(hop));
  asmspy_scope_free(hop);
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET); /* and a scope works again after it */
  r = work(2);
  asmspy_scope_end(s);
  CHECK(r == w2 && codecache(s) && !asmspy_scope_truncated(s) && asmspy_scope_insn_count(s) > 2000,
        "a scope after the hop: %llu instructions (%s)",
        (unsigned long long)asmspy_scope_insn_count(s), asmspy_scope_reason(s));
  asmspy_scope_free(s);

  /* a JIT's memory (anonymous, executable) in the process: codecache
   * declines (a JIT patches code under a translation), the ladder takes
   * singlestep, the scope is still exact. Last: it stays for the process. */
  void *jit =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  usleep(250 * 1000); /* past jit.c's 200 ms re-read of /proc/self/maps */
  s = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  r = work(1);
  asmspy_scope_end(s);
  unsetenv("ASMSPY_SCOPE_BACKEND");
  asmspy_scope *s2 = ASMSPY_SCOPE_BEGIN(NULL, 0, ASMSPY_SCOPE_QUIET);
  long r2 = work(1);
  asmspy_scope_end(s2);
  CHECK(jit != MAP_FAILED && r == work(1) && !strcmp(asmspy_scope_tier(s), "NONE") &&
            strstr(asmspy_scope_reason(s), "codecache"),
        "JIT memory, codecache forced: declined, tier NONE (%s)", asmspy_scope_reason(s));
  CHECK(r2 == work(1) && !strncmp(asmspy_scope_reason(s2), "singlestep", 10) &&
            strstr(asmspy_scope_reason(s2), "codecache") && !asmspy_scope_truncated(s2) &&
            asmspy_scope_insn_count(s2) > 1000,
        "JIT memory, the ladder: singlestep took it, %llu instructions (%s)",
        (unsigned long long)asmspy_scope_insn_count(s2), asmspy_scope_reason(s2));
  asmspy_scope_free(s);
  asmspy_scope_free(s2);

  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
