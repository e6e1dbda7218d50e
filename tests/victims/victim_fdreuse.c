/* victim_fdreuse: fd numbers reused under a new file, for the fd
 * description cache (host/fdinfo.c). Every write carries a marker "Wn" and
 * goes to fd 3 (or the fd named); the --log line of write "Wn" must name
 * the file listed for it in argv[2] (one "Wn path" line each, written by
 * this program before it starts).
 *   usage: victim_fdreuse DIR EXPECT
 * (it re-executes itself as `victim_fdreuse DIR EXPECT N` for the last
 * step: N markers were written before the exec) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static FILE *expect;
static int nmark;

static int open_as(const char *name, int want) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    perror(p);
    exit(1);
  }
  if (want >= 0 && fd != want) {
    fprintf(stderr, "%s: fd %d, wanted %d\n", name, fd, want);
    exit(1);
  }
  return fd;
}

/* write marker n to fd, and note which file the log must name */
static void mark(int fd, const char *name) {
  char m[16];
  int n = snprintf(m, sizeof m, "W%d", ++nmark);
  fprintf(expect, "%s %s/%s\n", m, dir, name);
  fflush(expect);
  if (write(fd, m, (size_t)n) != n) exit(1);
  if (write(fd, m, (size_t)n) != n) exit(1); /* twice: the second is a cache hit */
}

static void *thread_main(void *arg) {
  (void)arg;
  close(3); /* the thread replaces fd 3 under the main thread */
  open_as("t1", 3);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) return 2;
  dir = argv[1];
  expect = fopen(argv[2], argc == 4 ? "a" : "w");
  if (!expect) return 1;
  int efd = fileno(expect);
  if (efd == 3) { /* keep 3 free for the files */
    int e2 = dup(efd);
    expect = fdopen(e2, "w");
    close(efd);
  }
  if (argc == 4) { /* 6, after the exec: the O_CLOEXEC fd 3 is gone */
    nmark = atoi(argv[3]);
    open_as("g1", 3);
    mark(3, "g1");
    return 0;
  }
  /* 1. open f1 as 3, close, open f2 as 3 */
  open_as("f1", 3);
  mark(3, "f1");
  close(3);
  open_as("f2", 3);
  mark(3, "f2");
  /* 2. dup2 over 3, dup, fcntl(F_DUPFD) */
  int f3 = open_as("f3", -1);
  dup2(f3, 3);
  mark(3, "f3");
  close(f3);
  close(3);
  int f4 = open_as("f4", -1);      /* 3 */
  int hi = fcntl(f4, F_DUPFD, 10); /* 10 */
  close(f4);
  int d = dup(hi); /* the lowest free: 3 again */
  if (d != 3) return 1;
  mark(3, "f4");
  close(3);
  open_as("f2", 3);
  mark(3, "f2");
  close(3);
  d = fcntl(hi, F_DUPFD, 3);
  if (d != 3) return 1;
  mark(3, "f4");
  close(hi);
  close(3);
  /* 3. a forked child reuses 3 in its own table; the parent's 3 stays */
  open_as("f5", 3);
  mark(3, "f5");
  pid_t c = fork();
  if (c == 0) {
    nmark = 100; /* its own markers */
    close(3);
    open_as("c1", 3);
    mark(3, "c1");
    _exit(0);
  }
  waitpid(c, NULL, 0);
  mark(3, "f5");
  /* 4. renamed by the program itself: the link follows */
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/f5", dir);
  snprintf(b, sizeof b, "%s/f5renamed", dir);
  rename(a, b);
  mark(3, "f5renamed");
  /* 5. another thread replaces 3 */
  pthread_t th;
  pthread_create(&th, NULL, thread_main, NULL);
  pthread_join(th, NULL);
  mark(3, "t1");
  /* 6. execve: an O_CLOEXEC fd 3 is gone, the new image reuses 3 */
  close(3);
  int cl = open(b, O_WRONLY | O_CLOEXEC);
  if (cl != 3) return 1;
  mark(3, "f5renamed");
  fclose(expect);
  char n[16];
  snprintf(n, sizeof n, "%d", nmark);
  execl("/proc/self/exe", argv[0], argv[1], argv[2], n, (char *)NULL);
  return 1;
}
