/* sc_net.c — sockets: sockaddr, socket, connect/bind, accept, sendto/recvfrom, shutdown.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* ---- sockaddr ---- */
/* One printer per address family, so put_sockaddr reads as "fetch, then
 * dispatch". Each gets the bytes read (sa, n of them, NUL-terminated at
 * sa[n]) and returns 0 when they are too short for that family's form:
 * put_sockaddr then prints the generic {sa_family=..., sa_data=...}. */

static int put_sa_netlink(struct ob *o, const unsigned char *sa, size_t n) {
  uint32_t nl[3]; /* family+pad, pid, groups */
  if (n < 12) return 0;
  memcpy(nl, sa, sizeof nl);
  ob_puts(o, o->strace ? "{sa_family=AF_NETLINK, " : "{AF_NETLINK, ");
  if (nl[0] >> 16) ob_printf(o, "nl_pad=%#x, ", nl[0] >> 16);
  ob_printf(o, "nl_pid=%d, nl_groups=%#08x}", (int32_t)nl[1], nl[2]);
  return 1;
}

static int put_sa_packet(struct ob *o, const unsigned char *sa, size_t n) {
  struct {
    uint16_t family, protocol;
    int32_t ifindex;
    uint16_t hatype;
    uint8_t pkttype, halen, addr[8];
  } ll;
  if (n < sizeof ll) return 0;
  memcpy(&ll, sa, sizeof ll);
  ob_puts(o, o->strace ? "{sa_family=AF_PACKET, sll_protocol=htons("
                       : "{AF_PACKET, sll_protocol=htons(");
  put_xval_q(o, sc_ethernet_protocols, ntohs(ll.protocol), "ETH_P_???");
  ob_puts(o, "), sll_ifindex=");
  char ifn[IF_NAMESIZE];
  if (ll.ifindex > 0 && if_indextoname((unsigned)ll.ifindex, ifn))
    ob_printf(o, "if_nametoindex(\"%s\")", ifn);
  else
    ob_printf(o, "%d", ll.ifindex);
  ob_puts(o, ", sll_hatype=");
  put_xval_q(o, sc_arphrd_types, ll.hatype, "ARPHRD_???");
  ob_puts(o, ", sll_pkttype=");
  put_xval_q(o, sc_packet_types, ll.pkttype, "PACKET_???");
  ob_printf(o, ", sll_halen=%u", ll.halen);
  if (ll.halen) {
    ob_puts(o, ", sll_addr=[");
    for (unsigned i = 0; i < ll.halen; i++) {
      if (i) ob_puts(o, ", ");
      if (i >= n - 12 || i >= sizeof ll.addr) {
        ob_puts(o, "...");
        break;
      }
      ob_printf(o, "%#02x", ll.addr[i]);
    }
    ob_putc(o, ']');
  }
  ob_putc(o, '}');
  return 1;
}

static int put_sa_inet(struct ob *o, const unsigned char *sa, size_t n) {
  struct sockaddr_in in;
  char host[INET6_ADDRSTRLEN];
  if (n < offsetof(struct sockaddr_in, sin_zero)) return 0;
  memset(&in, 0, sizeof in);
  memcpy(&in, sa, n < sizeof in ? n : sizeof in);
  inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
  if (o->strace)
    ob_printf(o, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%s\")}",
              ntohs(in.sin_port), host);
  else
    ob_printf(o, "{AF_INET, %s:%u}", host, ntohs(in.sin_port));
  return 1;
}

static int put_sa_inet6(struct ob *o, const unsigned char *sa, size_t n) {
  struct sockaddr_in6 in6;
  char host[INET6_ADDRSTRLEN];
  if (n < offsetof(struct sockaddr_in6, sin6_scope_id)) return 0;
  memset(&in6, 0, sizeof in6);
  memcpy(&in6, sa, n < sizeof in6 ? n : sizeof in6);
  inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
  if (o->strace)
    ob_printf(o,
              "{sa_family=AF_INET6, sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
              "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u}",
              ntohs(in6.sin6_port), ntohl(in6.sin6_flowinfo), host, in6.sin6_scope_id);
  else if (in6.sin6_scope_id)
    ob_printf(o, "{AF_INET6, [%s%%%u]:%u}", host, in6.sin6_scope_id, ntohs(in6.sin6_port));
  else
    ob_printf(o, "{AF_INET6, [%s]:%u}", host, ntohs(in6.sin6_port));
  return 1;
}

/* Takes the decoder, not just the output: the path is carried (for -s
 * string capture) as well as printed. Never falls back. */
static void put_sa_unix(struct dc *d, const unsigned char *sa, size_t n) {
  struct ob *o = d->o;
  if (n <= 2) { /* unnamed */
    ob_puts(o, o->strace ? "{sa_family=AF_UNIX}" : "{AF_UNIX}");
    return;
  }
  unsigned char path[SC_SOCKADDR_MAX + 1];
  size_t plen;
  if (sa[2] == '\0') { /* abstract: the whole length is the name */
    path[0] = '@';
    plen = n - 3;
    memcpy(path + 1, sa + 3, plen);
    plen++;
  } else {
    const unsigned char *nul = memchr(sa + 2, '\0', n - 2);
    plen = nul ? (size_t)(nul - (sa + 2)) : n - 2;
    memcpy(path, sa + 2, plen);
  }
  if (o->strace && path[0] == '@') { /* sun_path=@"name" */
    ob_puts(o, "{sa_family=AF_UNIX, sun_path=@");
    put_quoted(o, path + 1, plen - 1, 0);
  } else {
    ob_puts(o, o->strace ? "{sa_family=AF_UNIX, sun_path=" : "{AF_UNIX, ");
    put_quoted(o, path, plen, 0);
  }
  ob_putc(o, '}');
  carry(d, path, plen, 0);
}

/* Any family without its own printer, or one whose bytes were too short
 * for it: the family's name and (strace) the raw sa_data. */
static void put_sa_generic(struct ob *o, const unsigned char *sa, size_t n, uint16_t family) {
  const char *fam = sc_xlat_name(sc_address_families, family);
  if (o->strace) { /* strace: {sa_family=AF_X, sa_data="..."} */
    ob_puts(o, "{sa_family=");
    put_xval_q(o, sc_address_families, family, "AF_???");
    if (n > 2) {
      ob_puts(o, ", sa_data=");
      put_quoted(o, sa + 2, n - 2, 0);
    }
    ob_putc(o, '}');
    return;
  }
  if (fam)
    ob_printf(o, "{%s, ...}", fam);
  else
    ob_printf(o, "{AF_%u, ...}", family);
}

static void put_sockaddr(struct dc *d, uint64_t addr, int64_t len) {
  struct ob *o = d->o;
  unsigned char sa[SC_SOCKADDR_MAX + 1];
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (len < 2) {
    put_addr(o, addr);
    return;
  }
  size_t n = len > SC_SOCKADDR_MAX ? SC_SOCKADDR_MAX : (size_t)len;
  if (!mem_full(d, addr, sa, n)) {
    put_addr(o, addr);
    return;
  }
  sa[n] = '\0';
  uint16_t family;
  memcpy(&family, sa, 2);
  switch (family) {
  case AF_UNSPEC:
    if (o->strace && n > 2) break; /* {sa_family=AF_UNSPEC, sa_data="..."} */
    ob_puts(o, o->strace ? "{sa_family=AF_UNSPEC}" : "{AF_UNSPEC}");
    return;
  case AF_NETLINK:
    if (put_sa_netlink(o, sa, n)) return;
    break;
  case AF_PACKET:
    if (put_sa_packet(o, sa, n)) return;
    break;
  case AF_INET:
    if (put_sa_inet(o, sa, n)) return;
    break;
  case AF_INET6:
    if (put_sa_inet6(o, sa, n)) return;
    break;
  case AF_UNIX: put_sa_unix(d, sa, n); return;
  default: break;
  }
  put_sa_generic(o, sa, n, family);
}

/* A value-result socklen_t: [16], or [128 => 16] when the kernel changed it. */
static void put_socklen_result(struct dc *d, uint64_t addr) {
  struct sc_call *c = d->c;
  int32_t out;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  int have_in = c->priv_savedok & 1;
  if (OUT_OK(d) && mem_full(d, addr, &out, sizeof out)) {
    if (have_in && (int32_t)c->priv_saved[0] != out)
      ob_printf(d->o, "[%d => %d]", (int32_t)c->priv_saved[0], out);
    else
      ob_printf(d->o, "[%d]", out);
  } else if (have_in) {
    ob_printf(d->o, "[%d]", (int32_t)c->priv_saved[0]);
  } else {
    put_addr(d->o, addr);
  }
}

/* Save *addrlen at entry (saved slot 0). */
static void save_socklen(struct dc *d, uint64_t addr) {
  int32_t v;
  if (addr && mem_full(d, addr, &v, sizeof v)) {
    d->c->priv_saved[0] = v;
    d->c->priv_savedok |= 1;
  }
}

/* The sockaddr an accept/getsockname/recvfrom filled at exit. */
static void put_sockaddr_result(struct dc *d, uint64_t addr, uint64_t lenp) {
  int32_t out = 0;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  if (!OUT_OK(d) || !lenp || !mem_full(d, lenp, &out, sizeof out)) {
    put_addr(d->o, addr);
    return;
  }
  int64_t len = out;
  if ((d->c->priv_savedok & 1) && d->c->priv_saved[0] < len) len = d->c->priv_saved[0];
  put_sockaddr(d, addr, len);
}

/* ---- sockets ---- */
#define K_SOCK_TYPE_MASK 0xfu

void en_socket(struct dc *d) { /* socket(domain, type, protocol) */
  uint32_t fam = (uint32_t)A(0), type = (uint32_t)A(1);
  put_xval_q(d->o, sc_address_families, fam, "AF_???");
  next(d);
  put_field_flags(d->o, sc_socket_types, K_SOCK_TYPE_MASK, sc_socket_flags, type);
  next(d);
  if (fam == AF_INET || fam == AF_INET6) {
    put_xval_q(d->o, sc_inet_protocols, (uint32_t)A(2), "IPPROTO_???");
  } else if (fam == AF_NETLINK) {
    put_xval_q(d->o, sc_netlink_protocols, (uint32_t)A(2), "NETLINK_???");
  } else if (fam == AF_PACKET) {
    ob_puts(d->o, "htons(");
    put_xval_q(d->o, sc_ethernet_protocols, ntohs((uint16_t)A(2)), "ETH_P_???");
    ob_putc(d->o, ')');
  } else {
    put_int(d->o, A(2));
  }
}
void en_connect(struct dc *d) { /* connect/bind(fd, addr, addrlen) */
  put_fd(d, A(0));
  next(d);
  put_sockaddr(d, A(1), (int32_t)A(2));
  next(d);
  put_int(d->o, A(2));
}
void en_sendto(struct dc *d) { /* sendto(fd, buf, len, flags, addr, addrlen) */
  put_fd(d, A(0));
  next(d);
  put_buf(d, A(1), A(2), PUT_CARRY);
  next(d);
  put_ulong(d->o, A(2));
  next(d);
  put_flags(d->o, sc_msg_flags, (uint32_t)A(3), "0");
  next(d);
  put_sockaddr(d, A(4), (int32_t)A(5));
  next(d);
  put_int(d->o, A(5));
}
void en_recvfrom(struct dc *d) { /* recvfrom(fd, len, flags): data follows " = " */
  put_fd(d, A(0));
  save_socklen(d, A(5));
  if (dc_strace(d)) return; /* strace mode: buf, len, flags at the exit */
  next(d);
  put_ulong(d->o, A(2));
  next(d);
  put_flags(d->o, sc_msg_flags, (uint32_t)A(3), "0");
}
void ex_recvfrom(struct dc *d) {
  if (dc_strace(d)) {
    next(d);
    put_read_result(d, A(1));
    next(d);
    put_ulong(d->o, A(2));
    next(d);
    put_flags(d->o, sc_msg_flags, (uint32_t)A(3), "0");
  }
  next(d);
  put_sockaddr_result(d, A(4), A(5));
  next(d);
  put_socklen_result(d, A(5));
}
void en_sock_result(struct dc *d) { /* accept, accept4, getsockname, getpeername */
  put_fd(d, A(0));
  save_socklen(d, A(2));
}
void ex_sock_result(struct dc *d) {
  next(d);
  put_sockaddr_result(d, A(1), A(2));
  next(d);
  put_socklen_result(d, A(2));
}
void ex_accept4(struct dc *d) {
  ex_sock_result(d);
  next(d);
  put_flags(d->o, sc_socket_flags, (uint32_t)A(3), "0");
}
void en_fd_int(struct dc *d) { /* listen(fd, backlog) */
  put_fd(d, A(0));
  next(d);
  put_int(d->o, A(1));
}
void en_shutdown(struct dc *d) {
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_shutdown_how, (uint32_t)A(1), XSDEC);
}

/* socketpair(domain, type, protocol, [fd0, fd1]) */
void ex_socketpair(struct dc *d) {
  int32_t fds[2];
  next(d);
  if (A(3) && OUT_OK(d) && mem_full(d, A(3), fds, sizeof fds))
    ob_printf(d->o, "[%d, %d]", fds[0], fds[1]);
  else
    put_addr(d->o, A(3));
}

/* ==== issue 26 part B: socket options, msghdr, mmsghdr ===================== */
#define K_SOL_IP 0
#define K_SOL_SOCKET 1
#define K_SOL_TCP 6
#define K_SOL_UDP 17
#define K_SOL_IPV6 41
#define K_SOL_NETLINK 270
#define K_SO_ERROR 4
#define K_SO_LINGER 13
#define K_SO_PEERCRED 17
#define K_SO_FILTER 26 /* SO_ATTACH_FILTER to set, SO_GET_FILTER to get */

/* setsockopt/getsockopt(fd, level, optname, ...) */
static void put_sockopt_fd_level_name(struct dc *d, uint32_t level, uint32_t name, int get) {
  struct ob *o = d->o;
  put_fd(d, A(0));
  next(d);
  put_xval_q(o, sc_socketlayers, level, "SOL_??");
  next(d);
  switch (level) {
  case K_SOL_SOCKET:
    if (name == K_SO_FILTER)
      ob_puts(o, get ? "SO_GET_FILTER" : "SO_ATTACH_FILTER");
    else
      put_xval_q(o, sc_sock_options, name, "SO_???");
    break;
  case K_SOL_IP: put_xval_q(o, sc_sock_ip_options, name, "IP_???"); break;
  case K_SOL_IPV6: put_xval_q(o, sc_sock_ipv6_options, name, "IPV6_???"); break;
  case K_SOL_TCP: put_xval_q(o, sc_sock_tcp_options, name, "TCP_???"); break;
  case K_SOL_UDP: put_xval_q(o, sc_sock_udp_options, name, "UDP_???"); break;
  default: ob_printf(o, "%u", name); break;
  }
}

/* The SOL_SOCKET options strace prints as one int (x86-64/AArch64 values). */
static int so_intlike(uint32_t name) {
  static const uint8_t ints[] = {1,  2,  5,  6,  7,  8,  9,  10, 11, 12, 14, 15, 16, 18, 19,
                                 27, 29, 30, 32, 33, 34, 35, 36, 37, 40, 41, 42, 43, 44, 45,
                                 46, 49, 53, 56, 60, 63, 64, 65, 68, 69, 70, 73, 75};
  for (size_t i = 0; i < sizeof ints; i++)
    if (ints[i] == name) return 1;
  return 0;
}

static void put_linger(struct dc *d, uint64_t addr) {
  int32_t l[2];
  if (mem_full(d, addr, l, sizeof l))
    ob_printf(d->o, "{l_onoff=%d, l_linger=%d}", l[0], l[1]);
  else
    put_addr(d->o, addr);
}

static void put_inaddr(struct ob *o, const void *a4) {
  char host[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, a4, host, sizeof host);
  ob_printf(o, "inet_addr(\"%s\")", host);
}

void en_setsockopt(struct dc *d) { /* setsockopt(fd, level, optname, optval, optlen) */
  uint32_t level = (uint32_t)A(1), name = (uint32_t)A(2);
  uint64_t addr = A(3);
  int32_t len = (int32_t)A(4);
  put_sockopt_fd_level_name(d, level, name, 0);
  next(d);
  if (addr) {
    if (level == K_SOL_SOCKET && name == K_SO_LINGER) {
      if (len < 8)
        put_addr(d->o, addr);
      else
        put_linger(d, addr);
      goto len;
    }
    if ((level == K_SOL_SOCKET && so_intlike(name)) || level == K_SOL_NETLINK) {
      if (len < 4)
        put_addr(d->o, addr);
      else
        put_intptr(d, addr);
      goto len;
    }
    if (level == K_SOL_SOCKET && (name == K_SO_FILTER || name == 51 /* REUSEPORT_CBPF */)) {
      put_addr(d->o, addr); /* struct sock_fprog: not decoded */
      goto len;
    }
    if (level == K_SOL_IP && (name == 35 || name == 36)) { /* IP_ADD/DROP_MEMBERSHIP */
      uint32_t mreq[2];
      if (len < 8 || !mem_full(d, addr, mreq, sizeof mreq)) {
        put_addr(d->o, addr);
      } else {
        ob_puts(d->o, "{imr_multiaddr=");
        put_inaddr(d->o, &mreq[0]);
        ob_puts(d->o, ", imr_interface=");
        put_inaddr(d->o, &mreq[1]);
        ob_putc(d->o, '}');
      }
      goto len;
    }
  }
  if (len == 4)
    put_intptr(d, addr);
  else
    put_buf(d, addr, (uint64_t)(int64_t)len, 0);
len:
  next(d);
  put_int(d->o, A(4));
}

void en_getsockopt(struct dc *d) { /* getsockopt(fd, level, optname, optval, optlen) */
  int32_t ulen;
  put_sockopt_fd_level_name(d, (uint32_t)A(1), (uint32_t)A(2), 1);
  if (A(4) && mem_full(d, A(4), &ulen, sizeof ulen)) {
    d->c->priv_saved[0] = ulen;
    d->c->priv_savedok |= 1;
    return;
  }
  next(d);
  put_addr(d->o, A(3));
  next(d);
  put_addr(d->o, A(4));
}

static void put_getsockopt_val(struct dc *d, uint32_t level, uint32_t name, uint64_t addr,
                               int32_t ulen, int32_t rlen) {
  struct ob *o = d->o;
  if (ulen <= 0 || rlen <= 0 || !addr) {
    put_addr(o, addr);
    return;
  }
  if (level == K_SOL_SOCKET) {
    if (name == K_SO_LINGER) {
      if (rlen >= 8)
        put_linger(d, addr);
      else
        put_addr(o, addr);
      return;
    }
    if (name == K_SO_PEERCRED) {
      int32_t uc[3];
      if (rlen >= 12 && mem_full(d, addr, uc, sizeof uc))
        ob_printf(o, "{pid=%d, uid=%u, gid=%u}", uc[0], (uint32_t)uc[1], (uint32_t)uc[2]);
      else
        put_addr(o, addr);
      return;
    }
    if (name == K_SO_ERROR) {
      int32_t e;
      if (rlen < 4) {
        put_buf(d, addr, (uint64_t)rlen, PUT_HEX);
      } else if (mem_full(d, addr, &e, sizeof e)) {
        ob_putc(o, '[');
        put_errno_val(o, e);
        ob_putc(o, ']');
      } else {
        put_addr(o, addr);
      }
      return;
    }
    if (so_intlike(name)) {
      if (rlen >= 4)
        put_intptr(d, addr);
      else
        put_buf(d, addr, (uint64_t)rlen, PUT_HEX);
      return;
    }
  }
  if (level == K_SOL_NETLINK) {
    put_intptr(d, addr);
    return;
  }
  if (rlen == 4)
    put_intptr(d, addr);
  else
    put_buf(d, addr, (uint64_t)rlen, 0);
}

void ex_getsockopt(struct dc *d) {
  struct sc_call *c = d->c;
  if (!(c->priv_savedok & 1)) return; /* printed at the entry */
  int32_t ulen = (int32_t)c->priv_saved[0], rlen;
  next(d);
  if (!OUT_OK(d) || !mem_full(d, A(4), &rlen, sizeof rlen)) {
    put_addr(d->o, A(3));
    ob_printf(d->o, ", [%d]", ulen);
    return;
  }
  put_getsockopt_val(d, (uint32_t)A(1), (uint32_t)A(2), A(3), ulen, rlen);
  if (ulen != rlen)
    ob_printf(d->o, ", [%d => %d]", ulen, rlen);
  else
    ob_printf(d->o, ", [%d]", rlen);
}

/* ---- msghdr ---- */
struct k_msghdr {
  uint64_t name;
  uint32_t namelen, pad0;
  uint64_t iov, iovlen, control, controllen;
  uint32_t flags, pad1;
};
struct k_mmsghdr {
  struct k_msghdr hdr;
  uint32_t len, pad;
};
#define K_CMSG_HDR 16u /* sizeof(struct cmsghdr) on 64-bit */
#define K_CONTROL_MAX 512u

static void put_cmsg_data(struct dc *d, int32_t level, int32_t type, const unsigned char *p,
                          uint32_t n) {
  struct ob *o = d->o;
  uint32_t t = (uint32_t)type;
  if (level == K_SOL_SOCKET) {
    put_xval_q(o, sc_scm_types, t, "SCM_???");
    if (t == 1 && n >= 4) { /* SCM_RIGHTS */
      ob_puts(o, ", cmsg_data=[");
      for (uint32_t i = 0; i + 4 <= n; i += 4) {
        int32_t fd;
        memcpy(&fd, p + i, 4);
        if (i) ob_puts(o, ", ");
        put_fd(d, (uint64_t)(int64_t)fd);
      }
      ob_putc(o, ']');
    } else if (t == 2 && n >= 12) { /* SCM_CREDENTIALS */
      int32_t uc[3];
      memcpy(uc, p, sizeof uc);
      ob_printf(o, ", cmsg_data={pid=%d, uid=%u, gid=%u}", uc[0], (uint32_t)uc[1], (uint32_t)uc[2]);
    } else if (t == 3 && n >= 1) { /* SCM_SECURITY */
      ob_puts(o, ", cmsg_data=");
      put_quoted(o, p, n, 0);
    } else if (t == 29 && n >= 16) { /* SO_TIMESTAMP_OLD: a timeval */
      int64_t tv[2];
      memcpy(tv, p, sizeof tv);
      ob_printf(o, ", cmsg_data={tv_sec=%lld, tv_usec=%lld}", (long long)tv[0], (long long)tv[1]);
    } else if (t == 35 && n >= 16) { /* SO_TIMESTAMPNS_OLD: a timespec */
      int64_t ts[2];
      memcpy(ts, p, sizeof ts);
      ob_printf(o, ", cmsg_data={tv_sec=%lld, tv_nsec=%lld}", (long long)ts[0], (long long)ts[1]);
    }
  } else if (level == K_SOL_IP) {
    put_xval_q(o, sc_ip_cmsg_types, t, "IP_???");
    if ((t == 2 || t == 23) && n >= 4) { /* IP_TTL, IP_CHECKSUM: unsigned ints */
      ob_puts(o, ", cmsg_data=[");
      for (uint32_t i = 0; i + 4 <= n; i += 4) {
        uint32_t v;
        memcpy(&v, p + i, 4);
        ob_printf(o, i ? ", %u" : "%u", v);
      }
      ob_putc(o, ']');
    } else if ((t == 1 || t == 6 || t == 7) && n >= 1) { /* IP_TOS, options: bytes */
      ob_puts(o, ", cmsg_data=[");
      for (uint32_t i = 0; i < n; i++) ob_printf(o, i ? ", %#x" : "%#x", p[i]);
      ob_putc(o, ']');
    }
  } else {
    put_xnum(o, t);
  }
}

static void put_msg_control(struct dc *d, uint64_t addr, uint64_t in_len) {
  struct ob *o = d->o;
  unsigned char buf[K_CONTROL_MAX];
  uint32_t len = in_len > K_CONTROL_MAX ? K_CONTROL_MAX : (uint32_t)in_len;
  ob_puts(o, ", msg_control=");
  if (len < K_CMSG_HDR || !mem_full(d, addr, buf, len)) {
    put_addr(o, addr);
    return;
  }
  uint32_t off = 0, left = len;
  ob_putc(o, '[');
  while (left >= K_CMSG_HDR) {
    uint64_t clen;
    int32_t level, type;
    memcpy(&clen, buf + off, 8);
    memcpy(&level, buf + off + 8, 4);
    memcpy(&type, buf + off + 12, 4);
    if (off) ob_puts(o, ", ");
    ob_printf(o, "{cmsg_len=%llu, cmsg_level=", (unsigned long long)clen);
    put_xval_q(o, sc_socketlayers, (uint32_t)level, "SOL_???");
    ob_puts(o, ", cmsg_type=");
    uint64_t l = clen > left ? left : clen;
    put_cmsg_data(d, level, type, buf + off + K_CMSG_HDR,
                  l > K_CMSG_HDR ? (uint32_t)(l - K_CMSG_HDR) : 0);
    ob_putc(o, '}');
    if (l < K_CMSG_HDR) {
      left -= K_CMSG_HDR;
      break;
    }
    l = (clen + 7) & ~7ull;
    if (l >= left) {
      left = 0;
      break;
    }
    off += (uint32_t)l;
    left -= (uint32_t)l;
  }
  if (left)
    ob_printf(o, ", ... /* %#llx */", (unsigned long long)(addr + (len - left)));
  else if (len < in_len)
    ob_puts(o, ", ...");
  ob_putc(o, ']');
}

/* {msg_name=..., msg_namelen=..., msg_iov=[...], msg_iovlen=N, [msg_control=[...], ]
 * msg_controllen=N, msg_flags=...}; user_namelen: the caller's msg_namelen
 * (recvmsg) or NULL; data: the bytes the iovecs hold (UINT64_MAX: all). */
static void put_msghdr_struct(struct dc *d, const struct k_msghdr *m, const int32_t *user_namelen,
                              uint64_t data) {
  struct ob *o = d->o;
  int32_t namelen = (int32_t)m->namelen;
  if (user_namelen && namelen > *user_namelen) namelen = *user_namelen;
  ob_puts(o, "{msg_name=");
  put_sockaddr(d, m->name, namelen);
  ob_puts(o, ", msg_namelen=");
  if (user_namelen && *user_namelen != (int32_t)m->namelen) ob_printf(o, "%d => ", *user_namelen);
  ob_printf(o, "%d, msg_iov=", (int32_t)m->namelen);
  put_iov(d, m->iov, m->iovlen, data);
  ob_printf(o, ", msg_iovlen=%llu", (unsigned long long)m->iovlen);
  if (m->controllen) put_msg_control(d, m->control, m->controllen);
  ob_printf(o, ", msg_controllen=%llu, msg_flags=", (unsigned long long)m->controllen);
  put_flags_q(o, sc_msg_flags, m->flags, "MSG_???");
  ob_putc(o, '}');
}

static void put_msghdr(struct dc *d, uint64_t addr, const int32_t *user_namelen, uint64_t data) {
  struct k_msghdr m;
  if (addr && mem_full(d, addr, &m, sizeof m))
    put_msghdr_struct(d, &m, user_namelen, data);
  else
    put_addr(d->o, addr);
}

void en_sendmsg(struct dc *d) { /* sendmsg(fd, msg, flags) */
  put_fd(d, A(0));
  next(d);
  put_msghdr(d, A(1), NULL, UINT64_MAX);
  next(d);
  put_flags_q(d->o, sc_msg_flags, (uint32_t)A(2), "MSG_???");
}

void en_recvmsg(struct dc *d) { /* recvmsg(fd, msg, flags): the msghdr at the exit */
  struct k_msghdr m;
  put_fd(d, A(0));
  if (A(1) && mem_full(d, A(1), &m, sizeof m)) {
    d->c->priv_saved[0] = (int32_t)m.namelen;
    d->c->priv_savedok |= 1;
  }
}
void ex_recvmsg(struct dc *d) {
  struct sc_call *c = d->c;
  next(d);
  if (!(c->priv_savedok & 1)) {
    put_addr(d->o, A(1));
  } else if (d->failed || !d->have_ret) {
    ob_printf(d->o, "{msg_namelen=%d}", (int32_t)c->priv_saved[0]);
  } else {
    int32_t un = (int32_t)c->priv_saved[0];
    put_msghdr(d, A(1), &un, (uint64_t)d->ret);
  }
  next(d);
  put_flags_q(d->o, sc_msg_flags, (uint32_t)A(2), "MSG_???");
}

/* [{msg_hdr={...}, msg_len=N}, ...]: lens of the first nlen entries; user
 * namelens (recvmmsg) from the saved slots for the first two. */
static void put_mmsgvec(struct dc *d, uint64_t addr, uint32_t vlen, uint32_t nlen, int use_len,
                        int saved_names) {
  struct ob *o = d->o;
  struct k_mmsghdr mm;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!vlen) {
    ob_puts(o, "[]");
    return;
  }
  uint32_t shown = vlen > SC_ARRAY_MAX ? SC_ARRAY_MAX : vlen;
  for (uint32_t i = 0; i < shown; i++) {
    if (!mem_full(d, addr + (uint64_t)i * sizeof mm, &mm, sizeof mm)) {
      if (!i) {
        put_addr(o, addr);
        return;
      }
      ob_printf(o, ", ... /* %#llx */", (unsigned long long)(addr + (uint64_t)i * sizeof mm));
      ob_putc(o, ']');
      return;
    }
    ob_puts(o, i ? ", {msg_hdr=" : "[{msg_hdr=");
    int32_t un = 0;
    const int32_t *pun = NULL;
    if (saved_names && i < 2 && (d->c->priv_savedok & (2u << i))) {
      un = (int32_t)(uint32_t)((uint64_t)d->c->priv_saved[1] >> (32 * i));
      pun = &un;
    }
    put_msghdr_struct(d, &mm.hdr, pun, use_len ? mm.len : UINT64_MAX);
    if (i < nlen) ob_printf(o, ", msg_len=%u", mm.len);
    ob_putc(o, '}');
  }
  if (shown < vlen) ob_puts(o, ", ...");
  ob_putc(o, ']');
}

void ex_sendmmsg(struct dc *d) { /* sendmmsg(fd, msgvec, vlen, flags) */
  next(d);
  uint32_t nlen = d->have_ret && !d->failed ? (uint32_t)d->ret : 0;
  put_mmsgvec(d, A(1), (uint32_t)A(2), nlen, 0, 0);
  ob_printf(d->o, ", %u, ", (uint32_t)A(2));
  put_flags_q(d->o, sc_msg_flags, (uint32_t)A(3), "MSG_???");
}

void en_recvmmsg(struct dc *d) { /* recvmmsg(fd, msgvec, vlen, flags, timeout) */
  struct k_mmsghdr mm;
  put_fd(d, A(0));
  uint32_t vlen = (uint32_t)A(2);
  for (uint32_t i = 0; i < 2 && i < vlen; i++) {
    if (!mem_full(d, A(1) + (uint64_t)i * sizeof mm, &mm, sizeof mm)) break;
    d->c->priv_saved[1] |= (int64_t)((uint64_t)mm.hdr.namelen << (32 * i));
    d->c->priv_savedok |= 2u << i;
  }
  if (A(4)) { /* the timeout at the entry: strace shows it, the exit's follows " = " */
    int64_t ts[2];
    if (mem_full(d, A(4), ts, sizeof ts) && ts[0] >= 0 && ts[0] < (1ll << 31) && ts[1] >= 0 &&
        ts[1] < (1ll << 31)) {
      d->c->priv_saved[0] = (int64_t)((uint64_t)ts[0] << 32 | (uint64_t)ts[1]);
      d->c->priv_savedok |= 1;
    }
  }
}
void ex_recvmmsg(struct dc *d) {
  struct sc_call *c = d->c;
  next(d);
  uint32_t n = d->have_ret && !d->failed ? (uint32_t)d->ret : (uint32_t)A(2);
  put_mmsgvec(d, A(1), n, n, 1, 1);
  ob_printf(d->o, ", %u, ", (uint32_t)A(2));
  put_flags_q(d->o, sc_msg_flags, (uint32_t)A(3), "MSG_???");
  next(d);
  if (!A(4))
    ob_puts(d->o, "NULL");
  else if (c->priv_savedok & 1)
    ob_printf(d->o, "{tv_sec=%lld, tv_nsec=%lld}", (long long)((uint64_t)c->priv_saved[0] >> 32),
              (long long)(c->priv_saved[0] & 0xffffffff));
  else
    put_addr(d->o, A(4));
}
void rt_recvmmsg(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  if (d->ret == 0) {
    ob_puts(d->o, " (Timeout)");
  } else if (A(4)) {
    ob_puts(d->o, " (left ");
    put_timespec(d, A(4));
    ob_putc(d->o, ')');
  }
}
