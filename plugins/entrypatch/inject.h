/* inject.h: mapping the agent's memory into a stopped target (inject.c),
 * through the host's ptrace seam: every call below runs one system call
 * inside a stopped thread (seam.inject_syscall); nothing here patches code.
 *
 * Why a memfd and injected mmaps rather than dlopen()ing an agent library:
 * calling the target's dlopen needs a thread that may take the loader's
 * and malloc's locks, which a thread stopped at an arbitrary point may
 * already hold (a deadlock in the target), and a static program has no
 * dlopen at all. mmap/memfd_create/madvise are plain system calls, safe at
 * any stop. */
#ifndef ASMSPY_ENTRYPATCH_INJECT_H
#define ASMSPY_ENTRYPATCH_INJECT_H

#include <asmspy/plugin.h>
#include <stdint.h>
#include <sys/types.h>

struct ep_remote {
  const struct asmspy_host_api *host;
  struct asmspy_seam *seam;
  struct asmspy_target *target;
  pid_t pid, tid; /* the thread the calls run in */
};

/* One system call in r->tid; returns its raw result (-errno on failure). */
int64_t ep_remote_call(struct ep_remote *r, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5);

/* An anonymous private mapping of len bytes with prot, at `hint` exactly
 * (MAP_FIXED_NOREPLACE) when hint is not 0, named `name` in
 * /proc/<pid>/maps where the kernel supports it. Returns the address or 0. */
uint64_t ep_remote_map(struct ep_remote *r, uint64_t hint, uint64_t len, int prot,
                       const char *name);

/* Shared memory: a memfd (named `name`) of len bytes mapped MAP_SHARED in
 * the target with prot, at `hint` exactly when hint is not 0 (then
 * MAP_FIXED_NOREPLACE), and read-write here. Returns the target's address
 * (0 on failure, *why says why) and *local. The target keeps no fd. Used
 * for entrypatch's ring and for codecache's code and thread blocks. */
uint64_t ep_remote_shared(struct ep_remote *r, uint64_t hint, uint64_t len, int prot,
                          const char *name, void **local, char *why, size_t whycap);

/* A free gap of len bytes whose every byte is within rel32 reach of
 * [lo, hi) (the functions a region serves), nearest first; 0 if none. */
uint64_t ep_find_gap_near(pid_t pid, uint64_t lo, uint64_t hi, uint64_t len);

/* The offset of a thread's tid inside its thread control block (glibc's
 * struct pthread), found by reading each stopped thread's TCB (fs base) and
 * keeping the one offset where every thread's own tid sits. 0 = unknown. */
uint32_t ep_probe_tid_offset(const struct asmspy_host_api *host, struct asmspy_target *t,
                             const pid_t *tids, const uint64_t *fs_bases, uint32_t n);

#endif
