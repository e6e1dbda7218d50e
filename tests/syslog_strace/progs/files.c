/* files: path-based calls, deterministic (the strace-comparison corpus). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  char dir[] = "/tmp/asmspy_st_files";
  char buf[256];
  struct stat st;
  syscall(SYS_unlinkat, AT_FDCWD, "/tmp/asmspy_st_files/a", 0);
  syscall(SYS_unlinkat, AT_FDCWD, "/tmp/asmspy_st_files/b", 0);
  syscall(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
  syscall(SYS_mkdirat, AT_FDCWD, dir, 0755);
  syscall(SYS_mkdirat, AT_FDCWD, dir, 0); /* EEXIST, mode 0 */
  int fd = (int)syscall(SYS_openat, AT_FDCWD, "/tmp/asmspy_st_files/a",
                        O_WRONLY | O_CREAT | O_TRUNC, 0644);
  syscall(SYS_write, fd, "hello, strace comparison\n", 25);
  syscall(SYS_close, fd);
  syscall(SYS_faccessat, AT_FDCWD, "/tmp/asmspy_st_files/a", R_OK | W_OK);
  syscall(SYS_faccessat, AT_FDCWD, "/tmp/asmspy_st_files/nope", F_OK);
  syscall(SYS_newfstatat, AT_FDCWD, "/tmp/asmspy_st_files/a", &st, 0);
  syscall(SYS_newfstatat, AT_FDCWD, "/tmp/asmspy_st_files/nope", &st, AT_SYMLINK_NOFOLLOW);
  syscall(SYS_renameat, AT_FDCWD, "/tmp/asmspy_st_files/a", AT_FDCWD, "/tmp/asmspy_st_files/b");
  syscall(SYS_symlinkat, "b", AT_FDCWD, "/tmp/asmspy_st_files/a");
  syscall(SYS_readlinkat, AT_FDCWD, "/tmp/asmspy_st_files/a", buf, sizeof buf);
  syscall(SYS_fchmodat, AT_FDCWD, "/tmp/asmspy_st_files/b", 0600);
  syscall(SYS_truncate, "/tmp/asmspy_st_files/b", 3);
  syscall(SYS_chdir, dir);
  syscall(SYS_getcwd, buf, sizeof buf);
  syscall(SYS_chdir, "/");
  syscall(SYS_unlinkat, AT_FDCWD, "/tmp/asmspy_st_files/a", 0);
  syscall(SYS_unlinkat, AT_FDCWD, "/tmp/asmspy_st_files/b", 0);
  syscall(SYS_unlinkat, AT_FDCWD, dir, AT_REMOVEDIR);
  syscall(SYS_openat, AT_FDCWD, (char *)16, O_RDONLY); /* EFAULT: the address */
  syscall(SYS_umask, 022);
  return 0;
}
