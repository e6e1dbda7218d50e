/* fds: descriptor calls on a pipe and a file, deterministic. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void) {
  int p[2];
  char buf[64];
  syscall(SYS_pipe2, p, O_CLOEXEC);
  syscall(SYS_write, p[1], "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", 46);
  syscall(SYS_read, p[0], buf, 10);
  struct iovec iov[2] = {{buf, 4}, {buf + 4, 4}};
  syscall(SYS_readv, p[0], iov, 2);
  struct iovec wv[2] = {{"ab", 2}, {"cd\n", 3}};
  syscall(SYS_writev, p[1], wv, 2);
  struct pollfd pf = {p[0], POLLIN, 0};
  syscall(SYS_poll, &pf, 1, 0);
  syscall(SYS_read, p[0], buf, sizeof buf);
  syscall(SYS_read, 99, buf, 8); /* EBADF: the buffer's address */
  syscall(SYS_write, p[1], "x", 1);
  syscall(SYS_read, p[0], (char *)16, 8); /* EFAULT (data waiting: no block) */
  int d = (int)syscall(SYS_dup, p[0]);
  syscall(SYS_dup3, d, 10, O_CLOEXEC);
  syscall(SYS_fcntl, 10, F_GETFD);
  syscall(SYS_fcntl, 10, F_SETFL, O_NONBLOCK);
  syscall(SYS_fcntl, 10, F_GETFL);
  syscall(SYS_read, 10, buf, 8); /* EAGAIN */
  syscall(SYS_close, 10);
  syscall(SYS_close, d);
  int fd =
      (int)syscall(SYS_openat, AT_FDCWD, "/tmp/asmspy_st_fds", O_RDWR | O_CREAT | O_TRUNC, 0600);
  syscall(SYS_pwrite64, fd, "\x01\x02binary\xff\n", 10, 4);
  syscall(SYS_lseek, fd, 0, SEEK_SET);
  syscall(SYS_pread64, fd, buf, 16, 0);
  syscall(SYS_ftruncate, fd, 0);
  syscall(SYS_fsync, fd);
  syscall(SYS_close, fd);
  int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY);
  syscall(SYS_fchdir, dfd);
  syscall(SYS_close, dfd);
  syscall(SYS_unlinkat, AT_FDCWD, "/tmp/asmspy_st_fds", 0);
  syscall(SYS_close, p[0]);
  syscall(SYS_close, p[1]);
  return 0;
}
