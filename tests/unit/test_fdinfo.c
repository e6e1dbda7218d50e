/* test_fdinfo.c — unit test of host/fdinfo.c: describing a process's fds the
 * way `strace -yy` does.
 *
 * Three parts:
 *   - live: this process opens files, pipes and sockets of every kind handled
 *     and describes them through its OWN pid (/proc/<getpid()>/...), which
 *     exercises the real kernel table formats;
 *   - netns: a child in a fresh network namespace listens on 127.0.0.1 and
 *     the parent must resolve it through /proc/<child>/net (its own table
 *     must not have it). Skipped, with the reason, when unshare is refused;
 *   - crafted tables: fdinfo_describe_socket() pointed at a directory of
 *     hand-written and randomly mutated tables (malformed lines, overlong
 *     lines, NUL bytes, forged unix continuation lines, ...).
 *
 * Standalone: exit 0 when every check passes, 1 otherwise (each failure is
 * printed with its line, expected and got). Build, e.g.:
 *   gcc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -I include -I . -o /tmp/test_fdinfo tests/unit/test_fdinfo.c host/fdinfo.c
 */
#define _GNU_SOURCE
#include "host/fdinfo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* got may be NULL (the function failed). */
static void check_str(int line, const char *what, const char *got, const char *expected) {
  checks++;
  if (got && !strcmp(got, expected)) return;
  failures++;
  fprintf(stderr, "FAIL %s:%d: %s\n  expected: \"%s\"\n  got:      %s%s%s\n", __FILE__, line, what,
          expected, got ? "\"" : "", got ? got : "NULL", got ? "\"" : "");
}
#define CHECK_STR(what, got, expected) check_str(__LINE__, what, got, expected)

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* A small ring of formatted strings, for building expected values inline. */
static char *fmt(const char *f, ...) {
  static char ring[16][512];
  static unsigned i;
  char *s = ring[i++ % 16];
  va_list ap;
  va_start(ap, f);
  vsnprintf(s, sizeof ring[0], f, ap);
  va_end(ap);
  return s;
}

static char descbuf[4096];
/* Describe one of our own fds. */
static const char *self_fd(int fd) {
  return fdinfo_describe(getpid(), fd, descbuf, sizeof descbuf);
}

static unsigned long long inode_of(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    perror("fstat");
    exit(1);
  }
  return (unsigned long long)st.st_ino;
}

static int must(int r, const char *what) {
  if (r < 0) {
    fprintf(stderr, "setup failed: %s: %s\n", what, strerror(errno));
    exit(1);
  }
  return r;
}

static unsigned port_of(int fd) {
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  must(getsockname(fd, (struct sockaddr *)&ss, &sl), "getsockname");
  if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
  return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static struct sockaddr_in v4(const char *ip, unsigned port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

static struct sockaddr_in6 v6(const char *ip, unsigned port) {
  struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  return a;
}

/* Independent of fdinfo.c: is inode in the tcp table at path? (sscanf) */
static int table_has_inode(const char *path, unsigned long long inode) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[1024];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long ino;
    if (sscanf(line, "%*d: %*s %*s %*x %*s %*s %*s %*u %*u %llu", &ino) == 1 && ino == inode)
      found = 1;
  }
  fclose(f);
  return found;
}

static char tmpdir[] = "/tmp/test_fdinfo.XXXXXX";

/* ------------------------------------------------------------------------- */
/* Live: our own fds                                                          */
/* ------------------------------------------------------------------------- */

static void test_files(void) {
  char path[PATH_MAX], real[PATH_MAX];
  snprintf(path, sizeof path, "%s/notes.txt", tmpdir);
  int fd = must(open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600), "open notes.txt");
  /* readlink shows the canonical path: /tmp may itself be a symlink. */
  if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  CHECK_STR("regular file", self_fd(fd), real);

  /* Truncation: always NUL-terminated, cut at cap - 1. */
  char small[6];
  const char *s = fdinfo_describe(getpid(), fd, small, sizeof small);
  CHECK_STR("truncated to cap", s, fmt("%.5s", real));
  CHECK(s == small, "must return buf");

  unlink(path);
  CHECK_STR("deleted file", self_fd(fd), fmt("%s (deleted)", real));
  close(fd);

  int dn = must(open("/dev/null", O_RDONLY | O_CLOEXEC), "open /dev/null");
  CHECK_STR("/dev/null", self_fd(dn), "/dev/null");
  close(dn);

  int p[2];
  must(pipe(p), "pipe");
  CHECK_STR("pipe read end", self_fd(p[0]), fmt("pipe:[%llu]", inode_of(p[0])));
  CHECK_STR("pipe write end", self_fd(p[1]), fmt("pipe:[%llu]", inode_of(p[1])));
  close(p[0]);
  close(p[1]);

  int ev = eventfd(0, EFD_CLOEXEC);
  if (ev >= 0) {
    CHECK_STR("eventfd", self_fd(ev), "anon_inode:[eventfd]");
    close(ev);
  }
}

static void test_tcp4(void) {
  int l = must(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
  struct sockaddr_in a = v4("127.0.0.1", 0);
  must(bind(l, (struct sockaddr *)&a, sizeof a), "bind 127.0.0.1");
  must(listen(l, 4), "listen");
  unsigned lp = port_of(l);
  CHECK_STR("TCP listener", self_fd(l), fmt("TCP LISTEN 127.0.0.1:%u", lp));

  int c = must(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
  /* Unbound: in no table, so only the inode is known. */
  CHECK_STR("unbound TCP", self_fd(c), fmt("socket:[%llu]", inode_of(c)));
  a = v4("127.0.0.1", lp);
  must(connect(c, (struct sockaddr *)&a, sizeof a), "connect");
  int s = must(accept4(l, NULL, NULL, SOCK_CLOEXEC), "accept");
  unsigned cp = port_of(c);
  CHECK_STR("TCP client end", self_fd(c), fmt("TCP 127.0.0.1:%u->127.0.0.1:%u", cp, lp));
  CHECK_STR("TCP server end", self_fd(s), fmt("TCP 127.0.0.1:%u->127.0.0.1:%u", lp, cp));
  /* The listener is still listening. */
  CHECK_STR("TCP listener again", self_fd(l), fmt("TCP LISTEN 127.0.0.1:%u", lp));

  /* Wildcard listener. */
  int w = must(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
  a = v4("0.0.0.0", 0);
  must(bind(w, (struct sockaddr *)&a, sizeof a), "bind 0.0.0.0");
  must(listen(w, 1), "listen");
  CHECK_STR("TCP wildcard listener", self_fd(w), fmt("TCP LISTEN 0.0.0.0:%u", port_of(w)));

  /* A too-small buffer through the socket path. */
  char small[8];
  CHECK_STR("socket truncated", fdinfo_describe(getpid(), c, small, sizeof small), "TCP 127");

  /* Dual-stack: an AF_INET6 socket connected to the v4 listener through a
   * v4-mapped address lives in tcp6 with ::ffff:a.b.c.d addresses. */
  int m = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (m >= 0) {
    int off = 0;
    setsockopt(m, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    struct sockaddr_in6 a6 = v6("::ffff:127.0.0.1", lp);
    if (connect(m, (struct sockaddr *)&a6, sizeof a6) == 0) {
      int ms = must(accept4(l, NULL, NULL, SOCK_CLOEXEC), "accept mapped");
      unsigned mp = port_of(m);
      CHECK_STR("TCPv6 v4-mapped", self_fd(m),
                fmt("TCPv6 [::ffff:127.0.0.1]:%u->[::ffff:127.0.0.1]:%u", mp, lp));
      CHECK_STR("TCP peer of v4-mapped", self_fd(ms),
                fmt("TCP 127.0.0.1:%u->127.0.0.1:%u", lp, mp));
      close(ms);
    } else {
      printf("note: v4-mapped IPv6 connect failed (%s): skipped\n", strerror(errno));
    }
    close(m);
  }
  close(w);
  close(s);
  close(c);
  close(l);
}

static void test_tcp6(void) {
  int l = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in6 a = v6("::1", 0);
  if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0) {
    printf("note: IPv6 loopback unavailable (%s): IPv6 checks skipped\n", strerror(errno));
    if (l >= 0) close(l);
    return;
  }
  must(listen(l, 4), "listen6");
  unsigned lp = port_of(l);
  CHECK_STR("TCPv6 listener", self_fd(l), fmt("TCPv6 LISTEN [::1]:%u", lp));

  int c = must(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket6");
  a = v6("::1", lp);
  must(connect(c, (struct sockaddr *)&a, sizeof a), "connect6");
  int s = must(accept4(l, NULL, NULL, SOCK_CLOEXEC), "accept6");
  unsigned cp = port_of(c);
  CHECK_STR("TCPv6 client end", self_fd(c), fmt("TCPv6 [::1]:%u->[::1]:%u", cp, lp));
  CHECK_STR("TCPv6 server end", self_fd(s), fmt("TCPv6 [::1]:%u->[::1]:%u", lp, cp));

  int w = must(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket6");
  a = v6("::", 0);
  must(bind(w, (struct sockaddr *)&a, sizeof a), "bind ::");
  must(listen(w, 1), "listen ::");
  CHECK_STR("TCPv6 wildcard listener", self_fd(w), fmt("TCPv6 LISTEN [::]:%u", port_of(w)));

  int u = must(socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), "udp6");
  a = v6("::1", 0);
  must(bind(u, (struct sockaddr *)&a, sizeof a), "bind udp6");
  CHECK_STR("UDPv6 bound", self_fd(u), fmt("UDPv6 [::1]:%u", port_of(u)));

  close(u);
  close(w);
  close(s);
  close(c);
  close(l);
}

static void test_udp(void) {
  int u = must(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), "udp");
  struct sockaddr_in a = v4("127.0.0.1", 0);
  must(bind(u, (struct sockaddr *)&a, sizeof a), "bind udp");
  unsigned up = port_of(u);
  CHECK_STR("UDP bound", self_fd(u), fmt("UDP 127.0.0.1:%u", up));

  int v = must(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), "udp2");
  a = v4("127.0.0.1", up);
  must(connect(v, (struct sockaddr *)&a, sizeof a), "connect udp");
  CHECK_STR("UDP connected", self_fd(v), fmt("UDP 127.0.0.1:%u->127.0.0.1:%u", port_of(v), up));
  close(v);
  close(u);
}

static void test_unix(void) {
  char path[sizeof((struct sockaddr_un *)0)->sun_path];
  snprintf(path, sizeof path, "%s/sock", tmpdir);
  int l = must(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), "unix");
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  memcpy(a.sun_path, path, strlen(path) + 1);
  must(bind(l, (struct sockaddr *)&a, sizeof a), "bind unix");
  must(listen(l, 2), "listen unix");
  /* The table shows sun_path as bound (not canonicalized). */
  CHECK_STR("unix named", self_fd(l), fmt("unix:%s", path));

  int c = must(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), "unix client");
  must(connect(c, (struct sockaddr *)&a, sizeof a), "connect unix");
  int s = must(accept4(l, NULL, NULL, SOCK_CLOEXEC), "accept unix");
  CHECK_STR("unix client end (unnamed)", self_fd(c), fmt("unix:[%llu]", inode_of(c)));
  /* The accepted socket shares the listener's address. */
  CHECK_STR("unix accepted end", self_fd(s), fmt("unix:%s", path));
  close(s);
  close(c);
  close(l);
  unlink(path);

  int ab = must(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), "unix abstract");
  char name[64];
  int nl = snprintf(name, sizeof name, "asmspy-test-fdinfo-%d", (int)getpid());
  struct sockaddr_un b = {.sun_family = AF_UNIX};
  memcpy(b.sun_path + 1, name, (size_t)nl); /* sun_path[0] = '\0': abstract */
  must(
      bind(ab, (struct sockaddr *)&b, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl)),
      "bind abstract");
  CHECK_STR("unix abstract", self_fd(ab), fmt("unix:@%s", name));
  close(ab);

  int sp[2];
  must(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), "socketpair");
  CHECK_STR("socketpair end 0", self_fd(sp[0]), fmt("unix:[%llu]", inode_of(sp[0])));
  CHECK_STR("socketpair end 1", self_fd(sp[1]), fmt("unix:[%llu]", inode_of(sp[1])));
  close(sp[0]);
  close(sp[1]);
}

static void test_other_and_errors(void) {
  int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (nl >= 0) {
    CHECK_STR("netlink", self_fd(nl), fmt("socket:[%llu]", inode_of(nl)));
    close(nl);
  }

  int fd = must(open("/dev/null", O_RDONLY | O_CLOEXEC), "open");
  close(fd);
  errno = 0;
  const char *r = self_fd(fd);
  CHECK(r == NULL, "closed fd %d: expected NULL, got \"%s\"", fd, r ? r : "");
  CHECK(errno == ENOENT, "closed fd: errno %d", errno);

  /* pid_max is at most 2^22, so INT_MAX never names a process. */
  errno = 0;
  r = fdinfo_describe(INT_MAX, 0, descbuf, sizeof descbuf);
  CHECK(r == NULL, "nonexistent pid: expected NULL, got \"%s\"", r ? r : "");
  CHECK(errno == ENOENT, "nonexistent pid: errno %d", errno);

  /* A reaped child: the pid existed a moment ago. */
  pid_t ch = fork();
  if (ch == 0) _exit(0);
  waitpid(ch, NULL, 0);
  r = fdinfo_describe(ch, 0, descbuf, sizeof descbuf);
  CHECK(r == NULL, "reaped pid %d: expected NULL, got \"%s\"", (int)ch, r ? r : "");

  CHECK(fdinfo_describe(getpid(), -1, descbuf, sizeof descbuf) == NULL, "fd -1");
  CHECK(fdinfo_describe(0, 0, descbuf, sizeof descbuf) == NULL, "pid 0");
  CHECK(fdinfo_describe(-5, 0, descbuf, sizeof descbuf) == NULL, "pid -5");
  CHECK(fdinfo_describe(getpid(), 0, descbuf, 0) == NULL, "cap 0");
  CHECK(fdinfo_describe(getpid(), 0, NULL, 10) == NULL, "NULL buf");
  char one[1] = {'x'};
  fd = must(open("/dev/null", O_RDONLY | O_CLOEXEC), "open");
  r = fdinfo_describe(getpid(), fd, one, sizeof one);
  CHECK(r == one && one[0] == '\0', "cap 1 gives \"\"");
  close(fd);
}

/* ------------------------------------------------------------------------- */
/* netns: a child in its own network namespace                                */
/* ------------------------------------------------------------------------- */

static void test_netns(void) {
  int up[2], down[2]; /* child -> parent report; parent -> child "done" (EOF) */
  must(pipe2(up, O_CLOEXEC), "pipe");
  must(pipe2(down, O_CLOEXEC), "pipe");
  pid_t ch = fork();
  must(ch, "fork");
  if (ch == 0) {
    close(up[0]);
    close(down[1]);
    char msg[128];
    if (unshare(CLONE_NEWNET) != 0) {
      snprintf(msg, sizeof msg, "E %d", errno);
    } else {
      /* A fresh namespace has lo down; 127.0.0.1 is only bindable once it
       * is up (the kernel assigns 127.0.0.1/8 to lo when it comes up). */
      int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      struct ifreq ifr;
      memset(&ifr, 0, sizeof ifr);
      snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
      int l = -1;
      unsigned port = 0;
      if (ctl >= 0 && ioctl(ctl, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP;
        if (ioctl(ctl, SIOCSIFFLAGS, &ifr) == 0) {
          l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
          struct sockaddr_in a = v4("127.0.0.1", 0);
          if (l >= 0 && (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0))
            l = -1;
          if (l >= 0) port = port_of(l);
        }
      }
      if (l >= 0)
        snprintf(msg, sizeof msg, "OK %d %u", l, port);
      else
        snprintf(msg, sizeof msg, "F %d", errno);
    }
    if (write(up[1], msg, strlen(msg)) < 0) _exit(2);
    close(up[1]);
    char c;
    while (read(down[0], &c, 1) > 0) {
    } /* until the parent is done with us */
    _exit(0);
  }
  close(up[1]);
  close(down[0]);
  char msg[128] = {0};
  ssize_t n = read(up[0], msg, sizeof msg - 1);
  close(up[0]);
  int cfd, err;
  unsigned port;
  if (n > 0 && sscanf(msg, "E %d", &err) == 1) {
    if (err == EPERM || err == EINVAL || err == ENOSYS || err == ENOSPC)
      printf("note: unshare(CLONE_NEWNET) failed (%s): netns check skipped\n", strerror(err));
    else
      CHECK(0, "unshare(CLONE_NEWNET): %s", strerror(err));
  } else if (n > 0 && sscanf(msg, "F %d", &err) == 1) {
    CHECK(0, "child in new netns could not bring lo up / listen: %s", strerror(err));
  } else if (n > 0 && sscanf(msg, "OK %d %u", &cfd, &port) == 2) {
    printf("netns: child %d listens on 127.0.0.1:%u in its own namespace\n", (int)ch, port);
    char buf[256];
    const char *r = fdinfo_describe(ch, cfd, buf, sizeof buf);
    CHECK_STR("listener in child's netns", r, fmt("TCP LISTEN 127.0.0.1:%u", port));

    /* Its inode, and proof that only the child's namespace table has it. */
    char link[64], target[64] = {0};
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)ch, cfd);
    unsigned long long ino = 0;
    if (readlink(link, target, sizeof target - 1) > 0) sscanf(target, "socket:[%llu]", &ino);
    CHECK(ino != 0, "child's fd link: \"%s\"", target);
    CHECK(table_has_inode(fmt("/proc/%d/net/tcp", (int)ch), ino),
          "inode %llu missing from the child's table", ino);
    CHECK(!table_has_inode("/proc/self/net/tcp", ino),
          "inode %llu found in the parent's own namespace table", ino);
    CHECK_STR("resolved through the parent's namespace instead",
              fdinfo_describe_socket("/proc/self/net", ino, "TCP", buf, sizeof buf),
              fmt("socket:[%llu]", ino));
  } else {
    CHECK(0, "no report from the netns child (\"%s\")", msg);
  }
  close(down[1]);
  waitpid(ch, NULL, 0);
}

/* ------------------------------------------------------------------------- */
/* Crafted tables                                                             */
/* ------------------------------------------------------------------------- */

static char netdir[PATH_MAX];

static void write_table(const char *name, const void *data, size_t len) {
  char p[PATH_MAX + 16];
  snprintf(p, sizeof p, "%s/%s", netdir, name);
  FILE *f = fopen(p, "w");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "setup failed: write %s\n", p);
    exit(1);
  }
}
static void write_table_str(const char *name, const char *text) {
  write_table(name, text, strlen(text));
}

/* The kernel's rendering of an IPv4 / IPv6 address: the in-memory 32-bit
 * words of the network-order bytes, printed as host integers. */
static const char *khex4(const char *ip) {
  struct in_addr a;
  inet_pton(AF_INET, ip, &a);
  uint32_t w;
  memcpy(&w, &a, 4);
  return fmt("%08X", w);
}
static const char *khex6(const char *ip) {
  struct in6_addr a;
  inet_pton(AF_INET6, ip, &a);
  uint32_t w[4];
  memcpy(w, &a, 16);
  return fmt("%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
}

static const char *sock_desc(unsigned long long ino, const char *proto) {
  static char buf[1024];
  return fdinfo_describe_socket(netdir, ino, proto, buf, sizeof buf);
}

#define TCP_HDR                                                                                    \
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "    \
  "inode\n"
#define TAIL " 00000000:00000000 00:00000000 00000000     0        0 "
#define UNIX_HDR "Num       RefCount Protocol Flags    Type St Inode Path\n"

static void test_crafted(void) {
  snprintf(netdir, sizeof netdir, "%s/net", tmpdir);
  must(mkdir(netdir, 0700), "mkdir net");

  /* Copies: khex4/khex6 return slots of fmt's small ring. */
  char lo[16], ten[16], lo6[40];
  snprintf(lo, sizeof lo, "%s", khex4("127.0.0.1"));
  snprintf(ten, sizeof ten, "%s", khex4("10.1.2.3"));
  snprintf(lo6, sizeof lo6, "%s", khex6("::1"));
  char tcp[8192];
  snprintf(tcp, sizeof tcp,
           TCP_HDR
           /* malformed versions of inode 500's line first: none may match */
           "   0: %s:1F9 00000000:0000 0A" TAIL "500 1 0\n"     /* 3-digit port */
           "   1: %.7sG:1F90 00000000:0000 0A" TAIL "500 1 0\n" /* bad hex */
           "   2: %s:1F90 00000000:0000 0A" TAIL "\n"           /* no inode */
           "   3: %s:1F90 00000000:0000" TAIL "500\n"           /* no state: shifted */
           "   4: %s:1F90 00000000:0000 0A" TAIL "500x 1 0\n"   /* inode not decimal */
           "   5: %s:1F90 00000000:0000 0A" TAIL "99999999999999999999999 1\n" /* overflow */
           "   6: %s:1F90 00000000:0000 A" TAIL "500 1 0\n"                    /* 1-digit state */
           "   7 %s:1F90 00000000:0000 0A" TAIL "500 1 0\n"                    /* no ':' after sl */
           "   8: %s:1F90 %s:0000 0A" TAIL "500 1 0\n"                         /* v6 width in tcp */
           "   9: %s:1F90 00000000:0000 0A" TAIL "0 1 0\n"                     /* TIME_WAIT-like */
           /* then the real ones */
           "  10: %s:1F90 00000000:0000 0A" TAIL "500 1 0\n"
           "  11: %s:9F1A %s:D599 01" TAIL "501 1 0\n"
           "  12: %s:1388 00000000:0000 07" TAIL "502 1 0\n",
           lo, lo, lo, lo, lo, lo, lo, lo, lo, lo6, lo, lo, lo, lo, ten);
  write_table_str("tcp", tcp);

  CHECK_STR("crafted listen (after malformed lines)", sock_desc(500, "TCP"),
            "TCP LISTEN 127.0.0.1:8080");
  CHECK_STR("crafted connected", sock_desc(501, "TCP"), "TCP 127.0.0.1:40730->127.0.0.1:54681");
  CHECK_STR("crafted bound CLOSE", sock_desc(502, "TCP"), "TCP 10.1.2.3:5000");
  CHECK_STR("inode 0 never matches", sock_desc(0, NULL), "socket:[0]");
  CHECK_STR("absent inode", sock_desc(777, NULL), "socket:[777]");
  CHECK_STR("hint NETLINK reads nothing", sock_desc(500, "NETLINK"), "socket:[500]");
  CHECK_STR("hint UDP reads only udp", sock_desc(500, "UDP"), "socket:[500]");
  CHECK_STR("no hint reads every table", sock_desc(500, NULL), "TCP LISTEN 127.0.0.1:8080");
  CHECK_STR("empty hint = unknown", sock_desc(500, ""), "TCP LISTEN 127.0.0.1:8080");

  char t6[4096];
  snprintf(t6, sizeof t6,
           TCP_HDR "   0: %s:0050 %s:15B3 01" TAIL "600 1 0\n"
                   "   1: %s:1F90 %s:0000 0A" TAIL "601 1 0\n"
                   "   2: %s:0016 %s:C350 01" TAIL "602 1 0\n"
                   "   3: %s:0016 %s:C350 01" TAIL "603 1 0\n", /* v4 width in tcp6 */
           khex6("::1"), khex6("::1"), khex6("::"), khex6("::"), khex6("::ffff:127.0.0.1"),
           khex6("::ffff:10.0.0.9"), khex4("127.0.0.1"), khex4("127.0.0.1"));
  write_table_str("tcp6", t6);
  CHECK_STR("crafted v6 connected", sock_desc(600, "TCPv6"), "TCPv6 [::1]:80->[::1]:5555");
  CHECK_STR("crafted v6 listen", sock_desc(601, "TCPv6"), "TCPv6 LISTEN [::]:8080");
  CHECK_STR("crafted v4-mapped", sock_desc(602, "TCPv6"),
            "TCPv6 [::ffff:127.0.0.1]:22->[::ffff:10.0.0.9]:50000");
  CHECK_STR("v4-width address in tcp6", sock_desc(603, "TCPv6"), "socket:[603]");

  char udp[4096];
  snprintf(udp, sizeof udp,
           "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
           "timeout inode ref pointer drops\n"
           "  123: %s:14E9 00000000:0000 07" TAIL "700 2 0000000000000000 0\n"
           "  124: %s:A000 %s:0035 01" TAIL "701 2 0000000000000000 0\n"
           /* state 0A in udp is not LISTEN */
           "  125: %s:0001 00000000:0000 0A" TAIL "702 2 0000000000000000 0\n",
           khex4("127.0.0.1"), khex4("192.168.1.2"), khex4("8.8.8.8"), khex4("127.0.0.1"));
  write_table_str("udp", udp);
  CHECK_STR("crafted udp bound", sock_desc(700, "UDP"), "UDP 127.0.0.1:5353");
  CHECK_STR("crafted udp connected", sock_desc(701, "UDP"), "UDP 192.168.1.2:40960->8.8.8.8:53");
  CHECK_STR("udp state 0A", sock_desc(702, "UDP"), "UDP 127.0.0.1:1");

  /* An overlong line holding the inode, a NUL byte, then the real entry
   * with no trailing newline at end of file. */
  char u6[8192];
  size_t len = 0;
  len += (size_t)snprintf(u6 + len, sizeof u6 - len, "  sl hdr\n   0: %s:0035 ", khex6("::1"));
  memset(u6 + len, ' ', 3000);
  len += 3000;
  len += (size_t)snprintf(u6 + len, sizeof u6 - len,
                          "%s:0000 07" TAIL "800 2 0\n   1: %s:0035 %s:0000 07" TAIL "800\n",
                          khex6("::"), khex6("::1"), khex6("::"));
  size_t nul_at = len - 20; /* inside line 1 */
  u6[nul_at] = '\0';
  len += (size_t)snprintf(u6 + len, sizeof u6 - len, "   2: %s:0035 %s:0000 07" TAIL "800",
                          khex6("::1"), khex6("::"));
  write_table("udp6", u6, len);
  CHECK_STR("udp6 after long line and NUL, no final newline", sock_desc(800, "UDPv6"),
            "UDPv6 [::1]:53");

  const char *unix_tbl =
      UNIX_HDR "0000000000000000: 00000002 00000000 00010000 0001 01   900 /tmp/a b.sock\n"
               "0000000000000000: 00000002 00000000 00010000 0001 01   901  leading space\n"
               "0000000000000000: 00000002 00000000 00000000 0002 01   902 @abs@name\n"
               "0000000000000000: 00000003 00000000 00000000 0001 03   903\n"
               /* 904: a socket whose path contains '\n' forging an entry for 905 */
               "0000000000000000: 00000002 00000000 00000000 0002 01   904 /tmp/evil\n"
               "0000000000000000: 00000002 00000000 00000000 0002 01   905 /tmp/forged\n"
               "0000000000000000: 00000002 00000000 00000000 0001 01   905 /run/real.sock\n"
               /* 906 listed twice identically (seq_file re-read): not ambiguous */
               "0000000000000000: 00000002 00000000 00000000 0001 01   906 /run/twice\n"
               "0000000000000000: 00000002 00000000 00000000 0001 01   906 /run/twice\n"
               /* malformed: non-hex flags, missing columns */
               "0000000000000000: 00000002 00000000 0001000Z 0001 01   907 /bad\n"
               "0000000000000000: 00000002 00000000   908 /short\n"
               "0000000000000000 00000002 00000000 00010000 0001 01   909 /nocolon\n";
  write_table_str("unix", unix_tbl);
  CHECK_STR("unix path with space", sock_desc(900, "UNIX-STREAM"), "unix:/tmp/a b.sock");
  CHECK_STR("unix path with leading space", sock_desc(901, "UNIX"), "unix: leading space");
  CHECK_STR("unix abstract", sock_desc(902, "UNIX"), "unix:@abs@name");
  CHECK_STR("unix unnamed", sock_desc(903, "UNIX"), "unix:[903]");
  CHECK_STR("unix forger itself", sock_desc(904, "UNIX"), "unix:/tmp/evil");
  CHECK_STR("unix forged duplicate", sock_desc(905, "UNIX"), "unix:[905]");
  CHECK_STR("unix identical duplicate", sock_desc(906, "UNIX"), "unix:/run/twice");
  CHECK_STR("unix bad flags", sock_desc(907, "UNIX"), "socket:[907]");
  CHECK_STR("unix missing columns", sock_desc(908, "UNIX"), "socket:[908]");
  CHECK_STR("unix no colon", sock_desc(909, "UNIX"), "socket:[909]");
  CHECK_STR("missing net dir", fdinfo_describe_socket("/nonexistent/net", 500, NULL, descbuf, 64),
            "socket:[500]");
  CHECK_STR("NULL net dir", fdinfo_describe_socket(NULL, 500, NULL, descbuf, 64), "socket:[500]");
  CHECK(fdinfo_describe_socket(netdir, 500, NULL, descbuf, 0) == NULL, "cap 0");

  /* Fuzz: random mutations of valid lines. The checks are "no crash" (run
   * under ASan/UBSan), a NUL-terminated result within cap, and a sane
   * prefix. */
  const char *seeds[] = {tcp, t6, udp, unix_tbl};
  const char *files[] = {"tcp", "tcp6", "udp", "unix"};
  const unsigned long long inos[] = {500, 501, 600, 602, 700, 900, 903, 905};
  static const char alphabet[] = "0123456789ABCDEFabcdefxyz: []\n\t@/\0";
  unsigned seed = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    int k = iter % 4;
    char m[8192];
    size_t ml = strlen(seeds[k]);
    memcpy(m, seeds[k], ml);
    int muts = 1 + (int)(rand_r(&seed) % 8);
    for (int j = 0; j < muts; j++) {
      size_t at = (size_t)rand_r(&seed) % ml;
      switch (rand_r(&seed) % 4) {
      case 0: m[at] = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)]; break;
      case 1: m[at] = (char)(rand_r(&seed) & 0xff); break;
      case 2: ml = at; break; /* truncate */
      default: /* delete one byte */ memmove(m + at, m + at + 1, ml - at - 1); ml--;
      }
      if (ml == 0) break;
    }
    write_table(files[k], m, ml);
    char out[48];
    memset(out, 'Z', sizeof out);
    unsigned long long ino = inos[(size_t)rand_r(&seed) % (sizeof inos / sizeof inos[0])];
    const char *r = fdinfo_describe_socket(netdir, ino, NULL, out, sizeof out);
    CHECK(r == out && memchr(out, '\0', sizeof out) != NULL, "fuzz %d: unterminated", iter);
    CHECK(r && (!strncmp(r, "TCP", 3) || !strncmp(r, "UDP", 3) || !strncmp(r, "unix:", 5) ||
                !strncmp(r, "socket:[", 8)),
          "fuzz %d: odd result \"%s\"", iter, r ? r : "");
  }
  /* Restore the seeds' originals once more and re-check one answer: the
   * fuzz must not have left state behind (there is none). */
  write_table_str("tcp", tcp);
  CHECK_STR("after fuzz", sock_desc(501, "TCP"), "TCP 127.0.0.1:40730->127.0.0.1:54681");

  for (int k = 0; k < 4; k++) unlink(fmt("%s/%s", netdir, files[k]));
  unlink(fmt("%s/udp6", netdir));
  rmdir(netdir);
}

int main(void) {
  alarm(60); /* a hung netns child must not hang the test suite */
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_files();
  test_tcp4();
  test_tcp6();
  test_udp();
  test_unix();
  test_other_and_errors();
  test_netns();
  test_crafted();
  rmdir(tmpdir);

  return check_summary("test_fdinfo");
}
