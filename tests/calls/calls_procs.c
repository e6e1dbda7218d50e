/* calls_procs: processes and threads that end, exec, vfork and fork, for
 * test_calls_procs.sh (call capture of what a process does to itself).
 *   calls_procs vfork N M    M calls of work(); a vfork child makes N calls
 *                            of work() and _exits; M more calls in the parent
 *   calls_procs fork K N M   M calls; K forked children make N calls each
 *                            (and a grandchild under the first child, N more);
 *                            M more calls in the parent
 *   calls_procs exit         a thread leaves through pthread_exit inside
 *                            thread_leave(); main leaves through exit(3)
 *                            inside finish(): neither call returns
 *   calls_procs exec PROG..  work() once, then execv(PROG) inside doexec()
 * Prints what it made ("vfork_child <pid>", "fork_child <pid>", "thread
 * <tid>", "main <pid>") and "checksum <n>". Children check their own sums:
 * a wrong result exits non-zero and the parent says "child failed". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long nwork; /* a side effect: gcc may not fold two calls(m) into one */
__attribute__((noinline)) long work(long x) {
  nwork++;
  return x * 3 + 1;
}

__attribute__((noinline)) long calls(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += work(i);
  return s;
}

static long want(long n) { return 3 * (n * (n - 1) / 2) + n; }

/* each does some work before its call: a call in the first 5 bytes is
 * not patchable */
static volatile long sink;

__attribute__((noinline)) void thread_leave(void) {
  sink += work(1);
  pthread_exit(NULL);
}
__attribute__((noinline)) void finish(int code) {
  sink += work(2);
  exit(code);
}
__attribute__((noinline)) void doexec(char **argv) {
  sink += work(3);
  execv(argv[0], argv);
  _exit(127);
}

/* the child runs on this frame until it _exits: nothing here is kept in
 * a register the child could clobber */
__attribute__((noinline)) static pid_t spawn_vfork(long n) {
  pid_t c = vfork();
  if (c == 0) _exit(calls(n) == want(n) ? 0 : 1);
  return c;
}

static void *thread_main(void *arg) {
  (void)arg;
  printf("thread %ld\n", (long)syscall(SYS_gettid));
  fflush(stdout);
  calls(10);
  thread_leave();
  return NULL;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  int bad = 0;
  if (!strcmp(mode, "vfork") && argc > 3) {
    long m = atol(argv[3]);
    long s = calls(m);
    pid_t c = spawn_vfork(atol(argv[2]));
    int st = 0;
    if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st)) bad = 1;
    printf("vfork_child %d\n", (int)c);
    s += calls(m);
    printf("main %d\nchecksum %ld\n", (int)getpid(), s);
    if (s != 2 * want(m)) bad = 1;
  } else if (!strcmp(mode, "fork") && argc > 4) {
    long k = atol(argv[2]), n = atol(argv[3]), m = atol(argv[4]);
    long s = calls(m);
    for (long i = 0; i < k; i++) {
      pid_t c = fork();
      if (c == 0) {
        int ok = calls(n) == want(n);
        if (i == 0) { /* a grandchild too */
          pid_t g = fork();
          if (g == 0) _exit(calls(n) == want(n) ? 0 : 1);
          int st = 0;
          if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st)) ok = 0;
          printf("fork_child %d\n", (int)g);
        }
        _exit(ok ? 0 : 1);
      }
      if (c < 0) bad = 1;
      printf("fork_child %d\n", (int)c);
    }
    for (long i = 0; i < k; i++) {
      int st = 0;
      if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) bad = 1;
    }
    s += calls(m);
    printf("main %d\nchecksum %ld\n", (int)getpid(), s);
    if (s != 2 * want(m)) bad = 1;
  } else if (!strcmp(mode, "exit")) {
    pthread_t t;
    printf("main %d\n", (int)getpid());
    if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0) bad = 1;
    printf("checksum %ld\n", calls(5));
    if (!bad) finish(3);
  } else if (!strcmp(mode, "exec") && argc > 2) {
    printf("main %d\nchecksum %ld\n", (int)getpid(), calls(1));
    doexec(argv + 2);
  } else {
    fprintf(stderr, "usage: calls_procs vfork N M | fork K N M | exit | exec PROG [ARGS]\n");
    return 2;
  }
  if (bad) printf("child failed\n");
  return bad;
}
