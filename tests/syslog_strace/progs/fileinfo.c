/* fileinfo: stat family, modes, times, links; deterministic. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define T "/tmp/asmspy_st_fileinfo"

int main(void) {
  struct stat st;
  char sx[256];
  int fd = (int)syscall(SYS_openat, AT_FDCWD, T, O_RDWR | O_CREAT | O_TRUNC, 0640);
  syscall(SYS_write, fd, "0123456789", 10);
  syscall(SYS_fstat, fd, &st);
  syscall(SYS_stat, T, &st);
  syscall(SYS_lstat, "/dev/null", &st);
  syscall(SYS_stat, "/nonexistent", &st);
  syscall(SYS_newfstatat, AT_FDCWD, "/dev/null", &st, AT_SYMLINK_NOFOLLOW);
  syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
  syscall(SYS_statx, AT_FDCWD, T, AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, sx);
  syscall(SYS_statx, AT_FDCWD, "/dev/null", AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MODE, sx);
  syscall(SYS_chmod, T, 0600);
  syscall(SYS_fchmod, fd, 04755);
  syscall(SYS_fchmodat, AT_FDCWD, T, 0644);
  struct timespec ts[2] = {{1000000000, 5}, {0, UTIME_NOW}};
  syscall(SYS_utimensat, AT_FDCWD, T, ts, 0);
  struct timespec ts2[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
  syscall(SYS_utimensat, fd, NULL, ts2, 0);
  syscall(SYS_utimensat, AT_FDCWD, T, NULL, AT_SYMLINK_NOFOLLOW);
  syscall(SYS_umask, 022);
  syscall(SYS_umask, 077);
  syscall(SYS_symlink, T, T ".sym");
  syscall(SYS_link, T, T ".lnk");
  syscall(SYS_linkat, AT_FDCWD, T, AT_FDCWD, T ".lnk2", AT_SYMLINK_FOLLOW);
  syscall(SYS_symlinkat, T, AT_FDCWD, T ".sym2");
  syscall(SYS_truncate, T, 4);
  syscall(SYS_ftruncate, fd, 2);
  syscall(SYS_unlink, T ".sym");
  syscall(SYS_unlink, T ".sym2");
  syscall(SYS_unlink, T ".lnk");
  syscall(SYS_unlink, T ".lnk2");
  syscall(SYS_close, fd);
  syscall(SYS_unlink, T);
  return 0;
}
