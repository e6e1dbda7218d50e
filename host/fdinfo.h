/* fdinfo.h — describe a file descriptor of another process, the way
 * `strace -y` / `strace -yy` annotate fd arguments (host service).
 *
 *   /tmp/notes.txt                      a path (whatever /proc/<pid>/fd/<fd>
 *                                       links to, " (deleted)" included)
 *   pipe:[12345]  anon_inode:[eventfd]  kernel pseudo-files, unchanged
 *   TCP 127.0.0.1:40730->127.0.0.1:80   connected TCP
 *   TCP LISTEN 127.0.0.1:8080           listening TCP
 *   TCPv6 [::1]:80->[::1]:5555          TCP over IPv6 (v4-mapped addresses
 *   TCPv6 LISTEN [::]:8080              print as [::ffff:127.0.0.1])
 *   UDP 127.0.0.1:5353                  bound UDP; connected: UDP a:b->c:d
 *   UDPv6 [::1]:53
 *   unix:/tmp/foo.sock  unix:@name      unix socket with a path / abstract name
 *   unix:[12345]                        unnamed unix socket (socketpair, the
 *                                       client end of a connection)
 *   socket:[12345]                      any other socket (netlink, packet,
 *                                       raw, an unbound TCP socket, ...)
 *
 * Sockets are resolved through the TARGET's network namespace: the tables
 * read are /proc/<pid>/net/{tcp,tcp6,udp,udp6,unix}, which the kernel renders
 * for the namespace of <pid>, not of the tracer.
 *
 * fdinfo_describe keeps no state between calls; fdinfo_describe_cached
 * (what the host's describe_fd service uses) remembers non-socket answers
 * per (pid, fd) until the traced program does anything that may change an
 * fd table (see fdinfo_cache_syscall_exit). See fdinfo.c for what a call
 * costs.
 */
#ifndef ASMSPY_HOST_FDINFO_H
#define ASMSPY_HOST_FDINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Describe fd of process pid into buf. Returns buf, or NULL if the fd does
 * not exist / cannot be read (errno tells why: ENOENT for a closed fd or a
 * gone process, EACCES/EPERM when ptrace access to pid is denied, EINVAL for
 * a negative fd, a pid <= 0, buf == NULL or cap == 0).
 * A description longer than cap - 1 bytes is truncated; buf is always
 * NUL-terminated. Strings come from the kernel verbatim (a file or unix
 * socket name may contain any byte but NUL): escape before printing. */
const char *fdinfo_describe(pid_t pid, int fd, char *buf, size_t cap);

/* The socket half of fdinfo_describe, for a socket whose inode is already
 * known: look the inode up in the tables under net_dir (normally
 * "/proc/<pid>/net"; tests point it at a directory of crafted tables) and
 * write its description, or "socket:[INODE]" when no table has it.
 * proto is the socket's protocol name as given by the "system.sockprotoname"
 * xattr ("TCP", "UDPv6", "UNIX-STREAM", "NETLINK", ...) and selects the one
 * table to read; NULL means unknown: read every table. Always returns buf
 * (NULL only if buf == NULL or cap == 0). */
const char *fdinfo_describe_socket(const char *net_dir, unsigned long long inode, const char *proto,
                                   char *buf, size_t cap);

/* fdinfo_describe with a cache, one per calling thread (the tracer thread
 * of a session: the seam that sees the syscalls and the view that asks for
 * the descriptions run there), so no locking and no sharing between
 * concurrent sessions. A hit costs no syscall (a --log line used to cost a
 * readlink of /proc/<pid>/fd/<fd> per fd argument). Cached: the non-socket
 * answers (paths, pipe:[N], anon_inode:..., shorter than ~230 bytes); a
 * socket's description changes under the same fd (bind, connect, listen)
 * and is always read fresh, like any failure (nothing is cached for a
 * readlink that fails).
 * Kept true by the tracer, not by the kernel: the seam calls
 * fdinfo_cache_syscall_exit at every syscall exit stop, before the event
 * reaches a view, and fdinfo_cache_forget_all at a process exit, exec or
 * attach, and at every stop when fd tables may change where it cannot see
 * (--tid traces one thread; a process sharing its fd table through
 * CLONE_FILES). Not seen, so possibly stale until the next flush: a file
 * renamed or deleted by ANOTHER process (strace -y would show the new name
 * or " (deleted)"); a rename/unlink by the traced program itself flushes.
 * ASMSPY_NO_FD_CACHE=1 turns the cache off. */
const char *fdinfo_describe_cached(pid_t pid, int fd, char *buf, size_t cap);

/* One completed syscall of a traced thread (nr, its entry arguments, its
 * return value): unless it is one that cannot change what an fd number
 * names (read, write, mmap, futex, fstat, ... a whitelist), the calling
 * thread's cache is flushed. nr -1 (an exit whose entry was not seen)
 * flushes. */
void fdinfo_cache_syscall_exit(int64_t nr, const uint64_t args[6], int64_t ret);

/* Flush the calling thread's cache (O(1): a generation bump). */
void fdinfo_cache_forget_all(void);

/* The calling thread's cache counters (tests, ASMSPY_DEBUG_FD_CACHE). */
struct fdinfo_cache_stats {
  uint64_t hits, misses, flushes;
};
struct fdinfo_cache_stats fdinfo_cache_stats(void);

#endif /* ASMSPY_HOST_FDINFO_H */
