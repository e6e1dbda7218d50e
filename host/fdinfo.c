/* fdinfo.c — describe a file descriptor of another process like `strace -yy`
 * (host service; interface and output formats in fdinfo.h).
 *
 * How a call works:
 *   1. readlink /proc/<pid>/fd/<fd>. fdinfo_describe is always fresh;
 *      fdinfo_describe_cached (the host's describe_fd) serves non-socket
 *      answers from a per-thread cache that the seam flushes whenever the
 *      traced program may have changed an fd table (end of this file, and
 *      fdinfo.h). Anything that is not
 *      "socket:[INODE]" is the answer as is (paths, pipe:[N], anon_inode:...).
 *      A pipe's peer is deliberately not resolved: finding it would mean
 *      scanning the fds of every process.
 *   2. For a socket only, ask the kernel which protocol it is through the
 *      "system.sockprotoname" xattr of the same /proc link (what strace does
 *      too). The name is authoritative (it is sk->sk_prot->name), so it picks
 *      the one table that can hold the socket, and a netlink/packet/raw
 *      socket costs no table read at all.
 *   3. Scan that table of /proc/<pid>/net/ for the inode. Those files are
 *      rendered for the network namespace of <pid>: a target in a container
 *      is resolved against its own sockets, not the tracer's.
 *
 * Caching: sockets never. A socket's description changes under the same
 * inode (bind, listen, connect), and there is no cheap way to notice, so a
 * cross-call cache would serve stale answers. Within one call each table is
 * read at most once, as a stream (one line buffer, no allocation), and
 * usually only one table is read. The cost is therefore O(sockets in the
 * target's namespace for that protocol) per socket fd, and zero table reads
 * for every non-socket fd.
 *
 * Robustness: the tables are parsed as untrusted text. Lines longer than
 * LINE_CAP, or holding a NUL byte, are skipped whole; every field is checked
 * (exact hex widths, decimal inode without overflow); a line that fails any
 * check is skipped. The only user-controlled text in these tables is a unix
 * socket's path, which may contain '\n' and so forge a continuation line
 * that looks like an entry for someone else's inode: the unix table is
 * therefore scanned to the end, and an inode matched by two different lines
 * is reported as unnamed ("unix:[INODE]") rather than trusting either.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getc_unlocked */
#endif
#include "fdinfo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* Longest table line accepted. Real lines are < 200 bytes: tcp6 is ~150, a
 * unix line is ~60 plus a sun_path of at most 108 bytes. */
#define LINE_CAP 512

/* An endpoint as text: "[" INET6_ADDRSTRLEN "]:65535". */
#define ENDPOINT_CAP (INET6_ADDRSTRLEN + 8)

/* The tables read, in the order they are tried when the protocol is unknown. */
struct table {
  const char *file;  /* under /proc/<pid>/net/ */
  const char *label; /* prefix of the description; NULL for unix */
  int family;        /* AF_INET, AF_INET6, AF_UNIX */
  bool tcp;          /* state 0A means LISTEN */
};

enum { T_TCP, T_TCP6, T_UDP, T_UDP6, T_UNIX, T_COUNT };

static const struct table tables[T_COUNT] = {
    [T_TCP] = {"tcp", "TCP", AF_INET, true},   [T_TCP6] = {"tcp6", "TCPv6", AF_INET6, true},
    [T_UDP] = {"udp", "UDP", AF_INET, false},  [T_UDP6] = {"udp6", "UDPv6", AF_INET6, false},
    [T_UNIX] = {"unix", NULL, AF_UNIX, false},
};

#define TCP_LISTEN_STATE 0x0A /* include/net/tcp_states.h: TCP_LISTEN */

/* Which table holds a socket of protocol `proto` (a sk_prot name): a table
 * index, or -1 when none of ours can (NETLINK, PACKET, RAW, UDP-Lite,
 * MPTCP, ...). af_unix names its protos "UNIX" and, since 5.15,
 * "UNIX-STREAM". */
static int table_for_proto(const char *proto) {
  if (!strcmp(proto, "TCP")) return T_TCP;
  if (!strcmp(proto, "TCPv6")) return T_TCP6;
  if (!strcmp(proto, "UDP")) return T_UDP;
  if (!strcmp(proto, "UDPv6")) return T_UDP6;
  if (!strcmp(proto, "UNIX") || !strncmp(proto, "UNIX-", 5)) return T_UNIX;
  return -1;
}

/* ------------------------------------------------------------------------- */
/* Parsing helpers: all bounded, none trusts its input                        */
/* ------------------------------------------------------------------------- */

/* Read one line into line[cap] without its '\n'. Returns 1 for a line, 0 at
 * end of file, -1 for a line to skip (too long, or holding a NUL byte: the
 * kernel never prints one, so the line is not what we expect). The rest of
 * a skipped line is consumed, so the next call starts on the next line. */
static int read_line(FILE *f, char *line, size_t cap) {
  size_t n = 0;
  bool bad = false;
  int c;
  while ((c = getc_unlocked(f)) != EOF && c != '\n') {
    if (c == '\0' || n + 1 >= cap)
      bad = true;
    else
      line[n++] = (char)c;
  }
  line[n] = '\0';
  if (c == EOF && n == 0 && !bad) return 0;
  return bad ? -1 : 1;
}

/* Next space-separated token at *p (leading spaces skipped: the kernel pads
 * some columns); *p is left just after it. NULL at end of line. */
static const char *next_tok(const char **p, size_t *len) {
  const char *s = *p;
  while (*s == ' ' || *s == '\t') s++;
  if (!*s) return NULL;
  const char *e = s;
  while (*e && *e != ' ' && *e != '\t') e++;
  *len = (size_t)(e - s);
  *p = e;
  return s;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Exactly n (1..8) hex digits at s. */
static bool parse_hex32(const char *s, size_t n, uint32_t *out) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; i++) {
    int d = hexval(s[i]);
    if (d < 0) return false;
    v = (v << 4) | (uint32_t)d;
  }
  *out = v;
  return true;
}

/* A decimal token (an inode): digits only, no overflow. */
static bool parse_dec(const char *s, size_t n, unsigned long long *out) {
  unsigned long long v = 0;
  if (n == 0) return false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

/* An inet endpoint as the kernel prints it: "%08X:%04X" for IPv4,
 * "%08X%08X%08X%08X:%04X" for IPv6. Each 32-bit group is the value of a
 * __be32 read as a host-order integer, i.e. the kernel printed the address
 * bytes' in-memory word; storing the parsed word back into memory (in host
 * order) restores the network-order bytes, on any endianness. The port is
 * printed after ntohs, so it is already the plain number. */
struct endpoint {
  int family;
  union {
    struct in_addr v4;
    struct in6_addr v6;
  } addr;
  unsigned port;
};

static bool parse_endpoint(const char *s, size_t n, int family, struct endpoint *ep) {
  size_t words = family == AF_INET ? 1 : 4;
  size_t hexlen = words * 8;
  uint32_t w[4], port;
  if (n != hexlen + 5 || s[hexlen] != ':') return false;
  for (size_t i = 0; i < words; i++)
    if (!parse_hex32(s + i * 8, 8, &w[i])) return false;
  if (!parse_hex32(s + hexlen + 1, 4, &port)) return false;
  memset(ep, 0, sizeof *ep);
  ep->family = family;
  if (family == AF_INET)
    memcpy(&ep->addr.v4, &w[0], 4);
  else
    memcpy(&ep->addr.v6, w, 16);
  ep->port = port;
  return true;
}

static bool endpoint_is_zero(const struct endpoint *ep) {
  static const uint8_t zero[16];
  size_t sz = ep->family == AF_INET ? 4 : 16;
  return ep->port == 0 && !memcmp(&ep->addr, zero, sz);
}

/* "127.0.0.1:80" or "[::1]:80" into out[ENDPOINT_CAP]. */
static void format_endpoint(const struct endpoint *ep, char out[ENDPOINT_CAP]) {
  char a[INET6_ADDRSTRLEN];
  if (!inet_ntop(ep->family, &ep->addr, a, sizeof a)) strcpy(a, "?");
  if (ep->family == AF_INET)
    snprintf(out, ENDPOINT_CAP, "%s:%u", a, ep->port);
  else
    snprintf(out, ENDPOINT_CAP, "[%s]:%u", a, ep->port);
}

/* ------------------------------------------------------------------------- */
/* Table scans                                                                */
/* ------------------------------------------------------------------------- */

/* One line of tcp/tcp6/udp/udp6:
 *   "%4d: LOCAL REMOTE %02X tx:rx tr:when retrnsmt uid timeout inode ..."
 * (tcp4_seq_show/__udp4_seq_show; the v6 ones differ only in address width).
 * If it is the entry of `inode`, write the description and return true. */
static bool inet_line(const char *line, const struct table *t, unsigned long long inode, char *buf,
                      size_t cap) {
  const char *p = line, *tok[10];
  size_t len[10];
  for (int i = 0; i < 10; i++)
    if (!(tok[i] = next_tok(&p, &len[i]))) return false;
  unsigned long long ino;
  /* Cheapest rejection first: almost every line is someone else's. */
  if (!parse_dec(tok[9], len[9], &ino) || ino != inode) return false;
  if (len[0] < 2 || tok[0][len[0] - 1] != ':') return false;

  struct endpoint local, remote;
  uint32_t state;
  if (!parse_endpoint(tok[1], len[1], t->family, &local) ||
      !parse_endpoint(tok[2], len[2], t->family, &remote) || len[3] != 2 ||
      !parse_hex32(tok[3], 2, &state))
    return false;

  char l[ENDPOINT_CAP], r[ENDPOINT_CAP];
  format_endpoint(&local, l);
  if (t->tcp && state == TCP_LISTEN_STATE) {
    snprintf(buf, cap, "%s LISTEN %s", t->label, l);
  } else if (endpoint_is_zero(&remote)) {
    /* Bound but unconnected (UDP; a TCP socket in CLOSE). */
    snprintf(buf, cap, "%s %s", t->label, l);
  } else {
    format_endpoint(&remote, r);
    snprintf(buf, cap, "%s %s->%s", t->label, l, r);
  }
  return true;
}

/* One line of unix (unix_seq_show):
 *   "%pK: %08X %08X %08X %04X %02X %5lu" then, if bound, " PATH".
 * PATH is raw sun_path bytes ("@" first for an abstract name, NULs shown as
 * '@'), so it may contain spaces: it is the whole rest of the line after
 * exactly one space. If it is the entry of `inode`, write the description
 * into desc[cap] and return true. */
static bool unix_line(const char *line, unsigned long long inode, char *desc, size_t cap) {
  const char *p = line, *tok[7];
  size_t len[7];
  for (int i = 0; i < 7; i++)
    if (!(tok[i] = next_tok(&p, &len[i]))) return false;
  unsigned long long ino;
  if (!parse_dec(tok[6], len[6], &ino) || ino != inode) return false;
  if (len[0] < 2 || tok[0][len[0] - 1] != ':') return false;
  for (int i = 1; i <= 5; i++) {
    uint32_t v;
    if (len[i] > 8 || !parse_hex32(tok[i], len[i], &v)) return false;
  }
  if (p[0] == ' ' && p[1] != '\0')
    snprintf(desc, cap, "unix:%s", p + 1);
  else
    snprintf(desc, cap, "unix:[%llu]", inode);
  return true;
}

/* Look inode up in net_dir/<t->file>. True (and buf filled) if found. */
static bool scan_table(const char *net_dir, const struct table *t, unsigned long long inode,
                       char *buf, size_t cap) {
  char path[PATH_MAX];
  int pn = snprintf(path, sizeof path, "%s/%s", net_dir, t->file);
  if (pn < 0 || (size_t)pn >= sizeof path) return false;
  FILE *f = fopen(path, "re");
  if (!f) return false; /* no IPv6, no such pid, ...: simply not here */

  char line[LINE_CAP];
  bool found = false, ambiguous = false;
  /* unix: the first match's description, to compare with any later one. */
  char first[LINE_CAP + 32], other[LINE_CAP + 32];
  int r;
  while ((r = read_line(f, line, sizeof line)) != 0) {
    if (r < 0) continue;
    if (t->family != AF_UNIX) {
      /* No user-controlled text in these tables: the first match is it. */
      if (inet_line(line, t, inode, buf, cap)) {
        found = true;
        break;
      }
    } else if (unix_line(line, inode, found ? other : first, sizeof first)) {
      if (found && strcmp(first, other)) ambiguous = true;
      found = true;
      /* Keep reading: see the note on forged lines at the top. An identical
       * repeat is harmless (seq_file may show an entry twice when the
       * table changes between read() chunks). */
    }
  }
  fclose(f);
  if (found && t->family == AF_UNIX) {
    if (ambiguous)
      snprintf(buf, cap, "unix:[%llu]", inode);
    else
      snprintf(buf, cap, "%s", first);
  }
  return found;
}

/* ------------------------------------------------------------------------- */
/* Public entry points                                                        */
/* ------------------------------------------------------------------------- */

const char *fdinfo_describe_socket(const char *net_dir, unsigned long long inode, const char *proto,
                                   char *buf, size_t cap) {
  if (!buf || cap == 0) {
    errno = EINVAL;
    return NULL;
  }
  /* Inode 0 is what TIME_WAIT/NEW_SYN_RECV entries print: never a match. */
  if (net_dir && inode != 0) {
    int only = proto && *proto ? table_for_proto(proto) : T_COUNT; /* T_COUNT: all */
    for (int i = 0; i < T_COUNT; i++) {
      if (only != T_COUNT && i != only) continue;
      if (scan_table(net_dir, &tables[i], inode, buf, cap)) return buf;
    }
  }
  snprintf(buf, cap, "socket:[%llu]", inode);
  return buf;
}

/* "socket:[DIGITS]" exactly. */
static bool parse_socket_link(const char *s, unsigned long long *inode) {
  static const char pre[] = "socket:[";
  size_t n = strlen(s), pl = sizeof pre - 1;
  if (n < pl + 2 || memcmp(s, pre, pl) || s[n - 1] != ']') return false;
  return parse_dec(s + pl, n - pl - 1, inode);
}

/* The body of fdinfo_describe; *is_socket says the link was a socket (its
 * description may change under the same fd: never cached). */
static const char *describe(pid_t pid, int fd, char *buf, size_t cap, bool *is_socket) {
  *is_socket = false;
  if (!buf || cap == 0 || pid <= 0 || fd < 0) {
    errno = EINVAL;
    return NULL;
  }
  char link[64];
  snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);

  /* PATH_MAX is what d_path can produce; a longer result is cut, not an
   * error (the description is for humans). */
  char target[PATH_MAX + 1];
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n < 0) return NULL; /* errno from readlink: ENOENT, EACCES, ... */
  target[n] = '\0';

  unsigned long long inode;
  if (!parse_socket_link(target, &inode)) {
    snprintf(buf, cap, "%s", target);
    return buf;
  }
  *is_socket = true;

  /* The protocol name, NUL included in the value. If it cannot be had (old
   * kernel, fd closed meanwhile), proto stays NULL and every table is read.
   * Should the fd be closed and reused by another protocol's socket between
   * readlink and here, the wrong table is read and the answer degrades to
   * "socket:[INODE]": never a wrong description. */
  char protobuf[32];
  const char *proto = NULL;
  ssize_t pl = getxattr(link, "system.sockprotoname", protobuf, sizeof protobuf - 1);
  if (pl > 0) {
    protobuf[pl] = '\0';
    proto = protobuf;
  }

  char net_dir[32];
  snprintf(net_dir, sizeof net_dir, "/proc/%d/net", (int)pid);
  return fdinfo_describe_socket(net_dir, inode, proto, buf, cap);
}

const char *fdinfo_describe(pid_t pid, int fd, char *buf, size_t cap) {
  bool is_socket;
  return describe(pid, fd, buf, cap, &is_socket);
}

/* ------------------------------------------------------------------------- */
/* The per-thread cache (fdinfo.h: fdinfo_describe_cached)                    */
/* ------------------------------------------------------------------------- */

#define FDC_SLOTS 256u /* power of two; direct-mapped on (pid, fd) */
#define FDC_TEXT 232   /* longer descriptions are not cached */

struct fdc_slot {
  uint64_t gen; /* 0: empty (the generation starts at 1) */
  pid_t pid;
  int fd;
  uint16_t len;
  char text[FDC_TEXT];
};

struct fdc {
  uint64_t gen;
  struct fdinfo_cache_stats stats;
  struct fdc_slot slot[FDC_SLOTS];
};

static pthread_key_t fdc_key;
static pthread_once_t fdc_once = PTHREAD_ONCE_INIT;
static __thread struct fdc *fdc_tls;
static void fdc_key_init(void) { pthread_key_create(&fdc_key, free); }

static struct fdc *fdc_get(void) {
  if (fdc_tls) return fdc_tls;
  pthread_once(&fdc_once, fdc_key_init);
  struct fdc *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->gen = 1;
  pthread_setspecific(fdc_key, c); /* freed with the thread */
  return fdc_tls = c;
}

static int fdc_off = -1; /* ASMSPY_NO_FD_CACHE=1: every call is fresh */

const char *fdinfo_describe_cached(pid_t pid, int fd, char *buf, size_t cap) {
  if (fdc_off < 0) {
    const char *e = getenv("ASMSPY_NO_FD_CACHE");
    fdc_off = e && *e && strcmp(e, "0") != 0;
  }
  struct fdc *c = fdc_off ? NULL : fdc_get();
  if (!c || !buf || cap == 0 || pid <= 0 || fd < 0) return fdinfo_describe(pid, fd, buf, cap);
  uint32_t h = ((uint32_t)pid * 2654435761u) ^ (uint32_t)fd;
  struct fdc_slot *s = &c->slot[(h ^ (h >> 16)) & (FDC_SLOTS - 1)];
  if (s->gen == c->gen && s->pid == pid && s->fd == fd) {
    size_t n = s->len < cap - 1 ? s->len : cap - 1;
    memcpy(buf, s->text, n);
    buf[n] = '\0';
    c->stats.hits++;
    return buf;
  }
  c->stats.misses++;
  bool is_socket;
  const char *r = describe(pid, fd, buf, cap, &is_socket);
  size_t n = r ? strlen(r) : 0;
  if (r && !is_socket && n < FDC_TEXT && n + 1 < cap) { /* whole, not cut by cap */
    s->gen = c->gen;
    s->pid = pid;
    s->fd = fd;
    s->len = (uint16_t)n;
    memcpy(s->text, r, n);
  }
  return r;
}

void fdinfo_cache_forget_all(void) {
  struct fdc *c = fdc_tls;
  if (!c) return;
  c->gen++;
  c->stats.flushes++;
}

/* Syscalls that leave every fd number naming the same open file: the cache
 * survives them. Anything else (open*, close*, dup*, socket*, accept*,
 * pipe*, execve, clone, recvmsg with SCM_RIGHTS, ioctls that hand out fds,
 * io_uring, rename/unlink that change what a link reads, any syscall this
 * list does not know, a number of -1 for an exit whose entry was never
 * seen, ...) flushes it. A whitelist, so a syscall forgotten here costs a
 * readlink, never a wrong name. */
/* clang-format off */
static bool fd_table_unchanged(int64_t nr, const uint64_t args[6], int64_t ret) {
  switch (nr) {
  case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
  case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
  case SYS_preadv2: case SYS_pwritev2: case SYS_lseek:
  case SYS_fstat: case SYS_newfstatat: case SYS_statx: case SYS_fstatfs: case SYS_statfs:
  case SYS_faccessat: case SYS_readlinkat: case SYS_getdents64: case SYS_getcwd:
  case SYS_ppoll: case SYS_pselect6: case SYS_epoll_pwait: case SYS_epoll_ctl:
  case SYS_futex: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_clock_gettime:
  case SYS_gettimeofday: case SYS_getpid: case SYS_gettid: case SYS_getppid:
  case SYS_getuid: case SYS_geteuid: case SYS_getgid: case SYS_getegid:
  case SYS_brk: case SYS_mmap: case SYS_munmap: case SYS_mprotect: case SYS_madvise:
  case SYS_mremap: case SYS_rt_sigaction: case SYS_rt_sigprocmask: case SYS_rt_sigreturn:
  case SYS_sched_yield: case SYS_getrandom: case SYS_sendto: case SYS_recvfrom:
  case SYS_sendmsg: case SYS_connect: case SYS_bind: case SYS_listen: case SYS_shutdown:
  case SYS_getsockopt: case SYS_setsockopt: case SYS_getsockname: case SYS_getpeername:
  case SYS_fsync: case SYS_fdatasync: case SYS_ftruncate: case SYS_fallocate:
  case SYS_fadvise64: case SYS_sendfile: case SYS_splice: case SYS_tee:
  case SYS_copy_file_range: case SYS_uname: case SYS_sysinfo: case SYS_prlimit64:
  case SYS_getrusage: case SYS_times: case SYS_kill: case SYS_tgkill: case SYS_wait4:
  case SYS_waitid: case SYS_sched_getaffinity: case SYS_set_tid_address:
  case SYS_set_robust_list: case SYS_rseq: case SYS_flock: case SYS_fchmod:
  case SYS_fchown: case SYS_umask: case SYS_getpgid: case SYS_getsid: case SYS_sigaltstack:
  case SYS_epoll_pwait2: case SYS_membarrier: case SYS_msync: case SYS_mincore:
#ifdef SYS_arch_prctl
  case SYS_arch_prctl:
#endif
#ifdef SYS_poll
  case SYS_poll: case SYS_select: case SYS_epoll_wait: case SYS_stat: case SYS_lstat:
  case SYS_access: case SYS_readlink: case SYS_getdents: case SYS_pause: case SYS_alarm:
  case SYS_getpgrp: case SYS_time:
#endif
    return true;
  case SYS_fcntl: /* F_DUPFD, F_DUPFD_CLOEXEC make a new fd; the others do not */
    return args[1] != F_DUPFD && args[1] != F_DUPFD_CLOEXEC;
  case SYS_ioctl: /* some ioctls hand out fds; a failed one installs nothing */
    return ret < 0 && ret >= -4095;
  default:
    return false;
  }
}
/* clang-format on */

void fdinfo_cache_syscall_exit(int64_t nr, const uint64_t args[6], int64_t ret) {
  if (!fdc_tls || fd_table_unchanged(nr, args, ret)) return;
  fdinfo_cache_forget_all();
}

struct fdinfo_cache_stats fdinfo_cache_stats(void) {
  struct fdinfo_cache_stats z = {0, 0, 0};
  return fdc_tls ? fdc_tls->stats : z;
}
