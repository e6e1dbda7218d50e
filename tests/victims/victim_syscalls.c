/* victim_syscalls: a deterministic syscall workload, one block per decoder
 * family, for the syscall-log tests (strace's test idea: the program prints
 * the exact line the tracer must show for each call it makes).
 *
 *   victim_syscalls <workdir> <expect-file> [loops]
 *
 * Each expected line is written to <expect-file> (a file, so the expectations
 * themselves never show up as traced write()s of interest). <loops> > 1
 * repeats the workload (benchmarks). The workdir must exist. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static FILE *expect;

static void want(const char *fmt, ...) {
  if (!expect) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(expect, fmt, ap);
  va_end(ap);
  fputc('\n', expect);
  fflush(expect);
}

static void on_usr1(int sig) { (void)sig; }

static void workload(const char *dir) {
  char path[512], sock_path[108];
  snprintf(path, sizeof path, "%s/notes.txt", dir);
  snprintf(sock_path, sizeof sock_path, "%s/s.sock", dir);
  const char msg[] = "hello from the victim\n";

  /* files: openat/creat flags and mode, write/read buffers, lseek, stat, close */
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  want("openat(AT_FDCWD, \"%s\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = %d", path, fd);
  ssize_t n = write(fd, msg, sizeof msg - 1);
  want("write(fd=%d<%s>, \"hello from the victim\\n\", %zu) = %zd", fd, path, sizeof msg - 1, n);
  int rc = close(fd);
  want("close(fd=%d) = %d", fd, rc);
  rc = access(path, R_OK);
#ifdef SYS_access
  want("access(\"%s\", R_OK) = %d", path, rc);
#else /* AArch64: libc's access() is faccessat */
  want("faccessat(AT_FDCWD, \"%s\", R_OK) = %d", path, rc);
#endif
  fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
  want("openat(AT_FDCWD, \"%s\", O_RDONLY) = %d", path, fd);
  char buf[64];
  n = read(fd, buf, sizeof buf);
  want("read(fd=%d<%s>, 64) = \"hello from the victim\\n\" [%zd]", fd, path, n);
  off_t off = lseek(fd, 6, SEEK_SET);
  want("lseek(fd=%d<%s>, 6, SEEK_SET) = %lld", fd, path, (long long)off);
  struct stat st;
  rc = fstat(fd, &st);
  /* glibc 2.33+ implements fstat() as newfstatat(fd, "", ..., AT_EMPTY_PATH) */
  want("newfstatat(fd=%d<%s>, \"\", {st_mode=S_IFREG|0644, st_size=%lld}, AT_EMPTY_PATH) = %d", fd,
       path, (long long)st.st_size, rc);
  close(fd);
  rc = (int)syscall(SYS_openat, AT_FDCWD, "/nonexistent/asmspy", O_RDONLY);
  want("openat(AT_FDCWD, \"/nonexistent/asmspy\", O_RDONLY) = -1 ENOENT (No such file or "
       "directory)");
  (void)rc;

  /* memory: mmap prot/flags, mprotect, munmap */
  void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  want("mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = %p", p);
  rc = mprotect(p, 4096, PROT_READ);
  want("mprotect(%p, 4096, PROT_READ) = %d", p, rc);
  rc = munmap(p, 8192);
  want("munmap(%p, 8192) = %d", p, rc);

  /* pipes */
  int pfd[2];
  rc = pipe2(pfd, O_CLOEXEC);
  want("pipe2([%d, %d], O_CLOEXEC) = %d", pfd[0], pfd[1], rc);
  struct stat pst;
  fstat(pfd[1], &pst);
  n = write(pfd[1], "ping", 4);
  want("write(fd=%d<pipe:[%lu]>, \"ping\", 4) = %zd", pfd[1], (unsigned long)pst.st_ino, n);
  close(pfd[0]);
  close(pfd[1]);

  /* sockets: TCP on loopback, resolved through the target's namespace */
  int lsock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  want("socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = %d", lsock);
  struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  bind(lsock, (struct sockaddr *)&sin, sizeof sin);
  listen(lsock, 4);
  socklen_t slen = sizeof sin;
  getsockname(lsock, (struct sockaddr *)&sin, &slen);
  int port = ntohs(sin.sin_port);
  rc = getsockname(lsock, (struct sockaddr *)&sin, &slen);
  want("getsockname(fd=%d<TCP LISTEN 127.0.0.1:%d>", lsock, port);
  int csock = socket(AF_INET, SOCK_STREAM, 0);
  rc = connect(csock, (struct sockaddr *)&sin, sizeof sin);
  /* not yet connected at entry: no endpoint to resolve */
  want("connect(fd=%d<socket:[", csock);
  want("{AF_INET, 127.0.0.1:%d}, 16) = %d", port, rc);
  n = sendto(csock, "tcp!", 4, 0, NULL, 0);
  want("->127.0.0.1:%d>, \"tcp!\", 4", port); /* connected: TCP local->peer */
  (void)n;
  close(csock);
  close(lsock);

  /* unix socket with a path */
  int usock = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  snprintf(sun.sun_path, sizeof sun.sun_path, "%s", sock_path);
  unlink(sock_path);
  rc = bind(usock, (struct sockaddr *)&sun, sizeof sun);
  want("bind(fd=%d<unix:[", usock); /* unbound at entry: resolved as unnamed */
  want("{AF_UNIX, \"%s\"}", sock_path);
  close(usock);
  unlink(sock_path);

  /* signals and time */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  want("rt_sigaction(SIGUSR1, ");
  kill(getpid(), SIGUSR1);
  want("--- SIGUSR1 ---");
  struct timespec ts = {0, 1000000};
  nanosleep(&ts, NULL);
  /* glibc implements nanosleep() with clock_nanosleep(CLOCK_REALTIME, 0, ...) */
  want("clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=1000000}, NULL) = 0");
  rc = (int)syscall(SYS_getpid);
  want("getpid() = %d", rc);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: victim_syscalls <workdir> <expect-file> [loops]\n");
    return 2;
  }
  long loops = argc > 3 ? atol(argv[3]) : 1;
  expect = fopen(argv[2], "we");
  for (long i = 0; i < loops; i++) {
    workload(argv[1]);
    if (expect) {
      fclose(expect);
      expect = NULL; /* expectations from the first round only */
    }
  }
  return 0;
}
