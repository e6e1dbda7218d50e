/* net: socket options, msghdr (iovecs, SCM_RIGHTS), sendmmsg/recvmmsg,
 * loopback TCP and UDP on 127.0.0.1 (port 0: the kernel's choice is read
 * back with getsockname and reused), AF_INET6/abstract AF_UNIX/AF_NETLINK
 * addresses; deterministic. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static void sockopts(int s) {
  int one = 1, v = 0;
  socklen_t len = sizeof v;
  struct linger lg = {1, 5};
  struct timeval tv = {2, 500};
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  syscall(SYS_setsockopt, s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  syscall(SYS_setsockopt, s, IPPROTO_TCP, TCP_KEEPIDLE, &one, sizeof one);
  syscall(SYS_setsockopt, s, IPPROTO_IP, IP_TOS, &one, sizeof one);
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, (void *)8, 4); /* EFAULT */
  len = sizeof v;
  syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, &v, &len);
  len = sizeof v;
  syscall(SYS_getsockopt, s, SOL_SOCKET, SO_ERROR, &v, &len);
  len = sizeof v;
  syscall(SYS_getsockopt, s, IPPROTO_TCP, TCP_NODELAY, &v, &len);
  len = sizeof lg;
  syscall(SYS_getsockopt, s, SOL_SOCKET, SO_LINGER, &lg, &len);
  len = sizeof tv;
  syscall(SYS_getsockopt, s, SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
  len = 8;
  syscall(SYS_getsockopt, s, SOL_SOCKET, SO_RCVBUF, &v, &len);
  len = sizeof v;
  syscall(SYS_getsockopt, s, SOL_SOCKET, 9999, &v, &len); /* ENOPROTOOPT */
}

int main(void) {
  char buf[64];
  /* TCP over loopback */
  int l = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  sockopts(l);
  struct sockaddr_in in;
  memset(&in, 0, sizeof in);
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  syscall(SYS_bind, l, &in, sizeof in);
  syscall(SYS_listen, l, 4);
  socklen_t alen = sizeof in;
  syscall(SYS_getsockname, l, &in, &alen);
  int c = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  syscall(SYS_connect, c, &in, sizeof in);
  struct sockaddr_in peer;
  alen = sizeof peer;
  int a = (int)syscall(SYS_accept4, l, &peer, &alen, SOCK_CLOEXEC | SOCK_NONBLOCK);
  alen = sizeof peer;
  syscall(SYS_getpeername, c, &peer, &alen);
  syscall(SYS_sendto, c, "hello", 5, MSG_NOSIGNAL, NULL, 0);
  syscall(SYS_recvfrom, a, buf, sizeof buf, 0, NULL, NULL);
  struct iovec iov[2] = {{"ab", 2}, {"cdef", 4}};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = iov;
  mh.msg_iovlen = 2;
  syscall(SYS_sendmsg, c, &mh, 0);
  struct iovec riov = {buf, sizeof buf};
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &riov;
  mh.msg_iovlen = 1;
  syscall(SYS_recvmsg, a, &mh, 0);
  syscall(SYS_recvmsg, a, &mh, MSG_DONTWAIT); /* EAGAIN */
  syscall(SYS_shutdown, c, SHUT_RDWR);
  syscall(SYS_close, a);
  syscall(SYS_close, c);
  syscall(SYS_close, l);

  /* UDP over loopback, to itself */
  int u = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_UDP);
  memset(&in, 0, sizeof in);
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  syscall(SYS_bind, u, &in, sizeof in);
  alen = sizeof in;
  syscall(SYS_getsockname, u, &in, &alen);
  syscall(SYS_sendto, u, "dgram", 5, 0, &in, sizeof in);
  alen = sizeof peer;
  syscall(SYS_recvfrom, u, buf, sizeof buf, 0, &peer, &alen);
  memset(&mh, 0, sizeof mh);
  mh.msg_name = &in;
  mh.msg_namelen = sizeof in;
  mh.msg_iov = iov;
  mh.msg_iovlen = 2;
  syscall(SYS_sendmsg, u, &mh, 0);
  memset(&mh, 0, sizeof mh);
  mh.msg_name = &peer;
  mh.msg_namelen = sizeof peer;
  mh.msg_iov = &riov;
  mh.msg_iovlen = 1;
  syscall(SYS_recvmsg, u, &mh, 0);
  struct mmsghdr mm[2];
  memset(mm, 0, sizeof mm);
  mm[0].msg_hdr.msg_name = &in;
  mm[0].msg_hdr.msg_namelen = sizeof in;
  mm[0].msg_hdr.msg_iov = iov;
  mm[0].msg_hdr.msg_iovlen = 1;
  mm[1].msg_hdr.msg_name = &in;
  mm[1].msg_hdr.msg_namelen = sizeof in;
  mm[1].msg_hdr.msg_iov = iov + 1;
  mm[1].msg_hdr.msg_iovlen = 1;
  syscall(SYS_sendmmsg, u, mm, 2, 0);
  char b0[8], b1[8];
  struct iovec r0 = {b0, sizeof b0}, r1 = {b1, sizeof b1};
  memset(mm, 0, sizeof mm);
  mm[0].msg_hdr.msg_iov = &r0;
  mm[0].msg_hdr.msg_iovlen = 1;
  mm[1].msg_hdr.msg_iov = &r1;
  mm[1].msg_hdr.msg_iovlen = 1;
  syscall(SYS_recvmmsg, u, mm, 2, MSG_DONTWAIT, NULL);
  syscall(SYS_close, u);

  /* SCM_RIGHTS over a socketpair */
  int sv[2];
  syscall(SYS_socketpair, AF_UNIX, SOCK_DGRAM, 0, sv);
  union {
    char b[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } cb;
  memset(&cb, 0, sizeof cb);
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cb.b;
  mh.msg_controllen = sizeof cb.b;
  struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  int zero = 0;
  memcpy(CMSG_DATA(cm), &zero, sizeof zero);
  syscall(SYS_sendmsg, sv[0], &mh, 0);
  memset(&cb, 0, sizeof cb);
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &riov;
  mh.msg_iovlen = 1;
  mh.msg_control = cb.b;
  mh.msg_controllen = sizeof cb.b;
  syscall(SYS_recvmsg, sv[1], &mh, MSG_CMSG_CLOEXEC);
  syscall(SYS_close, sv[0]);
  syscall(SYS_close, sv[1]);

  /* IPv6, abstract AF_UNIX, netlink addresses */
  int s6 = (int)syscall(SYS_socket, AF_INET6, SOCK_DGRAM, 0);
  struct sockaddr_in6 in6;
  memset(&in6, 0, sizeof in6);
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(8080);
  inet_pton(AF_INET6, "::1", &in6.sin6_addr);
  syscall(SYS_connect, s6, &in6, sizeof in6);
  int one = 1;
  syscall(SYS_setsockopt, s6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  syscall(SYS_close, s6);
  int ua = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un un;
  memset(&un, 0, sizeof un);
  un.sun_family = AF_UNIX;
  memcpy(un.sun_path, "\0asmspy-net-test", 16);
  syscall(SYS_bind, ua, &un, offsetof(struct sockaddr_un, sun_path) + 16);
  alen = sizeof un;
  syscall(SYS_getsockname, ua, &un, &alen);
  syscall(SYS_close, ua);
  int nl = (int)syscall(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
  struct sockaddr_nl nla;
  memset(&nla, 0, sizeof nla);
  nla.nl_family = AF_NETLINK;
  syscall(SYS_bind, nl, &nla, sizeof nla);
  syscall(SYS_close, nl);
  /* AF_PACKET (EPERM without CAP_NET_RAW: then the bind fails on -1 alike) */
  int pk = (int)syscall(SYS_socket, AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
  struct sockaddr_ll ll;
  memset(&ll, 0, sizeof ll);
  ll.sll_family = AF_PACKET;
  ll.sll_protocol = htons(ETH_P_IP);
  ll.sll_ifindex = 1; /* lo */
  syscall(SYS_bind, pk, &ll, sizeof ll);
  syscall(SYS_close, pk);
  /* an unnamed family: raw sa_data */
  struct sockaddr sx = {.sa_family = AF_UNSPEC, .sa_data = "ab"};
  int ud = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
  syscall(SYS_connect, ud, &sx, sizeof sx);
  syscall(SYS_close, ud);
  return 0;
}
