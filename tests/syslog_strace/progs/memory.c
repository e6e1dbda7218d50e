/* memory: mappings, advice, locks, deterministic. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  char *m = (char *)syscall(SYS_mmap, 0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
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
  /* added for issue 26 */
  char *p = (char *)syscall(SYS_mmap, 0, 65536, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  p[0] = 1;
  p[8192] = 1;
  unsigned char vec[16];
  syscall(SYS_mincore, p, 65536, vec);
  syscall(SYS_mincore, p, 4 * 4096, vec);
  syscall(SYS_madvise, p, 4096, MADV_WILLNEED);
  syscall(SYS_madvise, p, 4096, MADV_SEQUENTIAL);
  syscall(SYS_madvise, p, 4096, MADV_RANDOM);
  syscall(SYS_madvise, p, 4096, MADV_NORMAL);
  syscall(SYS_madvise, p, 4096, MADV_FREE);
  syscall(SYS_madvise, p, 4096, MADV_DONTFORK);
  syscall(SYS_madvise, p, 4096, MADV_DOFORK);
  syscall(SYS_madvise, p, 4096, MADV_HUGEPAGE);
  syscall(SYS_madvise, p, 4096, MADV_NOHUGEPAGE);
  syscall(SYS_madvise, p, 4096, MADV_DONTDUMP);
  syscall(SYS_madvise, p, 4096, 1234); /* EINVAL */
  syscall(SYS_msync, p, 4096, MS_ASYNC | MS_INVALIDATE);
  syscall(SYS_msync, p, 4096, 0);
  syscall(SYS_mlock2, p, 4096, MLOCK_ONFAULT);
  syscall(SYS_munlock, p, 4096);
  syscall(SYS_mlockall, MCL_CURRENT | MCL_FUTURE | 0x40); /* EINVAL */
  syscall(SYS_mlockall, 0);                               /* EINVAL */
  syscall(SYS_munlockall);
  syscall(SYS_mprotect, p, 4096, PROT_READ | PROT_EXEC | 0x100);
  syscall(SYS_mprotect, p, 4096, PROT_NONE);
  char *q = (char *)syscall(SYS_mremap, p, 65536, 131072, MREMAP_MAYMOVE);
  syscall(SYS_mremap, q, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, q + 65536);
  syscall(SYS_mremap, q, 4096, 8192, 0);
  syscall(SYS_munmap, q, 131072);
  syscall(SYS_mmap, 0x10000000, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
          -1, 0);
  syscall(SYS_munmap, 0x10000000, 4096);
  syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE,
          MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
  syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED_VALIDATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
  syscall(SYS_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0);
  syscall(SYS_membarrier, 8 /* MEMBARRIER_CMD_PRIVATE_EXPEDITED */, 0, 0);
  syscall(SYS_membarrier, 16 /* MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED */, 0, 0);
  int k = (int)syscall(SYS_pkey_alloc, 0, PKEY_DISABLE_WRITE);
  syscall(SYS_pkey_mprotect, m, 4096, PROT_READ, k);
  syscall(SYS_pkey_free, k);
  syscall(SYS_brk, 0);
  return 0;
}
