/* memory: mappings, deterministic. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  char *m = (char *)syscall(SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  syscall(SYS_mprotect, m, 4096, PROT_READ);
  syscall(SYS_madvise, m, 8192, MADV_DONTNEED);
  syscall(SYS_mlock, m, 4096);
  syscall(SYS_munlock, m, 4096);
  syscall(SYS_msync, m, 4096, MS_SYNC);
  syscall(SYS_mincore, m, 8192, (unsigned char *)m + 4096);
  syscall(SYS_munmap, m, 8192);
  syscall(SYS_mmap, 0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, 99, 0); /* EBADF */
  syscall(SYS_brk, 0);
  return 0;
}
