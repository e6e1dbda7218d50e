/* fdctl: poll/select, fcntl, flock, fd-creating calls, getdents, sendfile. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/close_range.h>

int main(void) {
  int p[2];
  char buf[4096];
  syscall(SYS_pipe2, p, O_NONBLOCK);
  syscall(SYS_write, p[1], "abc", 3);
  struct pollfd pf[3] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}, {-1, POLLIN, 0}};
  syscall(SYS_poll, pf, 3, 0);
  struct timespec zero = {0, 0};
  sigset_t ss;
  sigemptyset(&ss);
  sigaddset(&ss, SIGUSR1);
  syscall(SYS_ppoll, pf, 2, &zero, &ss, 8);
  struct pollfd pw = {p[0], POLLOUT, 0};
  syscall(SYS_poll, &pw, 1, 0);
  fd_set r, w;
  FD_ZERO(&r);
  FD_ZERO(&w);
  FD_SET(p[0], &r);
  FD_SET(p[1], &w);
  struct timeval tv = {0, 0};
  syscall(SYS_select, p[1] + 1, &r, &w, NULL, &tv);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  struct timespec ts = {0, 0};
  syscall(SYS_pselect6, p[1] + 1, &r, NULL, NULL, &ts, NULL);
  syscall(SYS_fcntl, p[0], F_GETFL);
  syscall(SYS_fcntl, p[0], F_DUPFD, 20);
  syscall(SYS_fcntl, p[0], F_DUPFD_CLOEXEC, 30);
  syscall(SYS_fcntl, 20, F_SETFD, FD_CLOEXEC);
  syscall(SYS_fcntl, 20, F_GETFD);
  syscall(SYS_fcntl, p[0], F_GETPIPE_SZ);
  syscall(SYS_fcntl, p[0], F_SETPIPE_SZ, 8192);
  struct f_owner_ex ox = {F_OWNER_PID, 0};
  syscall(SYS_fcntl, p[0], F_GETOWN_EX, &ox);
  syscall(SYS_fcntl, p[0], F_SETOWN_EX, &ox);
  syscall(SYS_fcntl, p[0], F_GETOWN);
  syscall(SYS_fcntl, p[0], F_SETSIG, SIGUSR1);
  syscall(SYS_fcntl, p[0], F_GETSIG);
  syscall(SYS_close_range, 20, 30, 0);
  int fd =
      (int)syscall(SYS_openat, AT_FDCWD, "/tmp/asmspy_st_fdctl", O_RDWR | O_CREAT | O_TRUNC, 0600);
  syscall(SYS_write, fd, "hello sendfile\n", 15);
  struct flock fl = {F_WRLCK, SEEK_SET, 0, 10, 0};
  syscall(SYS_fcntl, fd, F_SETLK, &fl);
  syscall(SYS_fcntl, fd, F_GETLK, &fl);
  fl.l_type = F_UNLCK;
  syscall(SYS_fcntl, fd, F_SETLKW, &fl);
  fl.l_type = F_RDLCK;
  fl.l_pid = 0;
  syscall(SYS_fcntl, fd, F_OFD_SETLK, &fl);
  syscall(SYS_fcntl, fd, F_OFD_GETLK, &fl);
  syscall(SYS_fcntl, fd, F_GETLEASE);
  syscall(SYS_flock, fd, LOCK_EX | LOCK_NB);
  syscall(SYS_flock, fd, LOCK_UN);
  off_t off = 6;
  syscall(SYS_sendfile, p[1], fd, &off, 4);
  syscall(SYS_sendfile, p[1], fd, NULL, 4);
  syscall(SYS_close, fd);
  syscall(SYS_unlink, "/tmp/asmspy_st_fdctl");
  int e = (int)syscall(SYS_eventfd2, 3, O_CLOEXEC);
  syscall(SYS_close, e);
  e = (int)syscall(SYS_inotify_init1, O_NONBLOCK);
  syscall(SYS_close, e);
  e = (int)syscall(SYS_memfd_create, "asmspy-memfd", 1 | 2);
  syscall(SYS_fcntl, e, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_WRITE);
  syscall(SYS_fcntl, e, F_GET_SEALS);
  syscall(SYS_close, e);
  syscall(SYS_dup3, p[0], 40, O_CLOEXEC);
  syscall(SYS_close, 40);
  int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fdinfo", O_RDONLY | O_DIRECTORY);
  syscall(SYS_getdents64, dfd, buf, sizeof buf);
  syscall(SYS_lseek, dfd, 0, SEEK_SET);
  syscall(SYS_getdents, dfd, buf, sizeof buf);
  syscall(SYS_getdents64, dfd, buf, sizeof buf);
  syscall(SYS_close, dfd);
  syscall(SYS_close, p[0]);
  syscall(SYS_close, p[1]);
  return 0;
}
