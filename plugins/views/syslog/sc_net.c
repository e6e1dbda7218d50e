/* sc_net.c — sockets: sockaddr, socket, connect/bind, accept, sendto/recvfrom, shutdown.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/* ---- sockaddr ---- */
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
  char host[INET6_ADDRSTRLEN];
  switch (family) {
  case AF_UNSPEC:
    ob_puts(o, o->strace ? "{sa_family=AF_UNSPEC}" : "{AF_UNSPEC}");
    return;
  case AF_INET: {
    struct sockaddr_in in;
    if (n < offsetof(struct sockaddr_in, sin_zero)) break;
    memset(&in, 0, sizeof in);
    memcpy(&in, sa, n < sizeof in ? n : sizeof in);
    inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    if (o->strace)
      ob_printf(o, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%s\")}",
                ntohs(in.sin_port), host);
    else
      ob_printf(o, "{AF_INET, %s:%u}", host, ntohs(in.sin_port));
    return;
  }
  case AF_INET6: {
    struct sockaddr_in6 in6;
    if (n < offsetof(struct sockaddr_in6, sin6_scope_id)) break;
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
    return;
  }
  case AF_UNIX: {
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
    return;
  }
  default:
    break;
  }
  const char *fam = sc_xlat_name(sc_address_families, family);
  if (fam)
    ob_printf(o, "{%s, ...}", fam);
  else
    ob_printf(o, "{AF_%u, ...}", family);
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
  put_xval(d->o, sc_address_families, fam, XDEC);
  next(d);
  put_field_flags(d->o, sc_socket_types, K_SOCK_TYPE_MASK, sc_socket_flags, type);
  next(d);
  if (fam == AF_INET || fam == AF_INET6)
    put_xval(d->o, sc_inet_protocols, (uint32_t)A(2), XSDEC);
  else
    put_int(d->o, A(2));
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
