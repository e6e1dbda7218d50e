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
 * No state is kept between calls (so no stale answers and the functions are
 * reentrant); see fdinfo.c for what a call costs.
 */
#ifndef ASMSPY_HOST_FDINFO_H
#define ASMSPY_HOST_FDINFO_H

#include <stddef.h>
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
const char *fdinfo_describe_socket(const char *net_dir, unsigned long long inode,
                                   const char *proto, char *buf, size_t cap);

#endif /* ASMSPY_HOST_FDINFO_H */
