/* ioctls: a pseudo-terminal's termios, window size, process group; fd ioctls. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

int main(void) {
  int m = (int)syscall(SYS_openat, AT_FDCWD, "/dev/ptmx", O_RDWR | O_NOCTTY);
  int n = 0, z = 0;
  syscall(SYS_ioctl, m, TIOCGPTN, &n);
  syscall(SYS_ioctl, m, TIOCSPTLCK, &z);
  char path[64] = "/dev/pts/";
  int k = 9, t = n;
  char dig[16];
  int nd = 0;
  do {
    dig[nd++] = (char)('0' + t % 10);
    t /= 10;
  } while (t);
  while (nd) path[k++] = dig[--nd];
  path[k] = 0;
  int s = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_NOCTTY);
  struct termios tio;
  syscall(SYS_ioctl, s, TCGETS, &tio);
  tio.c_lflag &= ~(unsigned)(ICANON | ECHO);
  tio.c_cc[VMIN] = 1;
  syscall(SYS_ioctl, s, TCSETS, &tio);
  syscall(SYS_ioctl, s, TCSETSW, &tio);
  syscall(SYS_ioctl, s, TCSETSF, &tio);
  syscall(SYS_ioctl, s, TCGETS, &tio);
  struct winsize ws = {24, 80, 0, 0};
  syscall(SYS_ioctl, s, TIOCSWINSZ, &ws);
  syscall(SYS_ioctl, s, TIOCGWINSZ, &ws);
  syscall(SYS_ioctl, s, TCFLSH, TCIOFLUSH);
  syscall(SYS_ioctl, s, TCXONC, TCOON);
  syscall(SYS_ioctl, s, TCSBRK, 1);
  syscall(SYS_ioctl, s, FIONREAD, &n);
  syscall(SYS_ioctl, s, TIOCOUTQ, &n);
  syscall(SYS_ioctl, s, TIOCGPGRP, &n);
  syscall(SYS_ioctl, s, TIOCMGET, &n);
  syscall(SYS_ioctl, s, TIOCNOTTY);
  syscall(SYS_ioctl, s, TIOCSCTTY, 0);
  syscall(SYS_ioctl, s, TIOCEXCL);
  syscall(SYS_ioctl, s, TIOCNXCL);
  syscall(SYS_ioctl, s, TIOCGSID, &n);
  int one = 1;
  syscall(SYS_ioctl, s, FIONBIO, &one);
  syscall(SYS_ioctl, s, FIOASYNC, &z);
  syscall(SYS_ioctl, s, FIOCLEX);
  syscall(SYS_ioctl, s, FIONCLEX);
  syscall(SYS_ioctl, 1, TCGETS, &tio);             /* not a tty: ENOTTY or EBADF */
  syscall(SYS_ioctl, s, _IOR('x', 0x55, int), &n); /* unknown */
  syscall(SYS_ioctl, s, _IOW('Q', 3, long), 0);
  syscall(SYS_ioctl, s, 0x7777, 0);
  syscall(SYS_close, s);
  syscall(SYS_close, m);
  return 0;
}
