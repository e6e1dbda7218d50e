/* sc_decode.c — strace-style syscall formatting for the syscall log view.
 *
 * Layout:
 *   1. output buffer + argument separator
 *   2. target-memory helpers (every read bounded, every failure -> hex address)
 *   3. generic printers: printxval / printflags over sc_tables.c, strings,
 *      buffers, fds, and the shared structs (timespec, sigset, sockaddr, stat)
 *   4. one small decoder per syscall family: en_* run at the entry stop,
 *      ex_* at the exit stop (out-parameters and anything after them),
 *      rt_* format a successful return value when a plain number won't do
 *   5. the dispatch table {nr, name, nargs, rv, entry, exit, ret}, indexed by
 *      syscall number, and the public sc_enter / sc_exit / sc_unfinished
 *
 * The line shape is strace's, with asmspy's two conventions from the seed:
 * an fd argument prints as fd=N<what it is>, and read-style calls put the
 * data after the return value: read(fd=3</tmp/x>, 64) = "hello\n" [6].
 */
#define _GNU_SOURCE
#include "sc_decode.h"

#include "sc_tables.h"
#include "common/ctl_escape.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#define SC_MAGIC 0x5ca11ed5u
#define SC_ARRAY_MAX 16       /* elements shown of any array (iovecs, pollfds, events) */
#define SC_FDSET_MAX 1024     /* fds examined in a select() set */
#define SC_SOCKADDR_MAX 128   /* sizeof(struct sockaddr_storage) */
#define SC_PAGE 4096u

/* ======================================================================== */
/* 1. Output buffer                                                          */
/* ======================================================================== */
struct ob {
  char *p;
  size_t cap, len;
  int over; /* something did not fit */
};

static void ob_init(struct ob *o, char *p, size_t cap) {
  o->p = p;
  o->cap = cap;
  o->len = 0;
  o->over = 0;
  if (cap) p[0] = '\0';
}

static void ob_putn(struct ob *o, const char *s, size_t n) {
  if (!o->cap) {
    o->over = 1;
    return;
  }
  size_t room = o->cap - 1 - o->len;
  if (n > room) {
    n = room;
    o->over = 1;
  }
  memcpy(o->p + o->len, s, n);
  o->len += n;
  o->p[o->len] = '\0';
}

static void ob_puts(struct ob *o, const char *s) { ob_putn(o, s, strlen(s)); }
static void ob_putc(struct ob *o, char ch) { ob_putn(o, &ch, 1); }

__attribute__((format(printf, 2, 3))) static void ob_printf(struct ob *o, const char *fmt, ...) {
  if (!o->cap) {
    o->over = 1;
    return;
  }
  size_t room = o->cap - o->len; /* includes the NUL */
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->p + o->len, room, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= room) {
    o->len = o->cap - 1;
    o->over = 1;
  } else {
    o->len += (size_t)n;
  }
}

/* A line that did not fit ends in "..." rather than mid-token. */
static void ob_finish(struct ob *o) {
  if (o->over && o->cap >= 4) {
    memcpy(o->p + o->cap - 4, "...", 4);
    o->len = o->cap - 1;
  }
}

/* ======================================================================== */
/* Decoding context                                                          */
/* ======================================================================== */
struct dc {
  const struct sc_env *env; /* NULL in sc_unfinished: no memory, no fds */
  struct sc_call *c;
  struct ob *o;
  int have_ret; /* at the exit stop with a return value */
  int failed;   /* have_ret and ret is an error */
  int64_t ret;
};

#define A(i) (d->c->args[i])
/* The call succeeded, so its out-parameters are worth reading. */
#define OUT_OK(d) ((d)->have_ret && !(d)->failed)

/* ", " between arguments: nothing right after the opening parenthesis. */
static void next(struct dc *d) {
  struct ob *o = d->o;
  if (o->len && o->p[o->len - 1] != '(') ob_puts(o, ", ");
}

/* ======================================================================== */
/* 2. Target memory                                                          */
/* ======================================================================== */
static ssize_t mem_raw(const struct dc *d, uint64_t addr, void *buf, size_t len) {
  if (!d->env || !d->env->read_mem || !addr || !len) return -EFAULT;
  ssize_t n = d->env->read_mem(d->env->ctx, addr, buf, len);
  if (n > (ssize_t)len) n = (ssize_t)len; /* never trust a callback's count */
  return n;
}

/* All len bytes, or failure. */
static int mem_full(const struct dc *d, uint64_t addr, void *buf, size_t len) {
  return mem_raw(d, addr, buf, len) == (ssize_t)len;
}

/* As many leading bytes as are readable (a string may end just before an
 * unmapped page): one read, then page-sized pieces if that came up short. */
static size_t mem_upto(const struct dc *d, uint64_t addr, void *buf, size_t len) {
  ssize_t n = mem_raw(d, addr, buf, len);
  if (n == (ssize_t)len) return len;
  size_t got = n > 0 ? (size_t)n : 0;
  while (got < len) {
    uint64_t a = addr + got;
    size_t chunk = SC_PAGE - (size_t)(a & (SC_PAGE - 1));
    if (chunk > len - got) chunk = len - got;
    n = mem_raw(d, a, (char *)buf + got, chunk);
    if (n <= 0) break;
    got += (size_t)n;
    if ((size_t)n < chunk) break;
  }
  return got;
}

/* ======================================================================== */
/* 3. Generic printers                                                       */
/* ======================================================================== */
static void put_addr(struct ob *o, uint64_t v) {
  if (v)
    ob_printf(o, "%#llx", (unsigned long long)v);
  else
    ob_puts(o, "NULL");
}
static void put_xnum(struct ob *o, uint64_t v) { ob_printf(o, "%#llx", (unsigned long long)v); }
static void put_int(struct ob *o, uint64_t v) { ob_printf(o, "%d", (int)v); }
static void put_uint(struct ob *o, uint64_t v) { ob_printf(o, "%u", (unsigned)v); }
static void put_long(struct ob *o, uint64_t v) { ob_printf(o, "%lld", (long long)v); }
static void put_ulong(struct ob *o, uint64_t v) { ob_printf(o, "%llu", (unsigned long long)v); }
static void put_octmode(struct ob *o, uint64_t v) { ob_printf(o, "%#03o", (unsigned)v); }

enum xfmt { XDEC, XSDEC, XHEX };

/* printxval: the name of v, else the number. */
static void put_xval(struct ob *o, const struct sc_xlat *x, uint64_t v, enum xfmt f) {
  const char *n = sc_xlat_name(x, v);
  if (n)
    ob_puts(o, n);
  else if (f == XHEX)
    put_xnum(o, v);
  else if (f == XSDEC)
    put_int(o, v);
  else
    put_ulong(o, v);
}

/* printflags without the zero case: "|NAME" per set flag, then "|0x<rest>".
 * Entries are tried in table order; a multi-bit entry matches only whole. */
static void put_flags_tail(struct ob *o, const struct sc_xlat *x, uint64_t v, int first) {
  for (; x && x->name && v; x++) {
    if (x->val && (v & x->val) == x->val) {
      if (!first) ob_putc(o, '|');
      ob_puts(o, x->name);
      v &= ~x->val;
      first = 0;
    }
  }
  if (v) {
    if (!first) ob_putc(o, '|');
    put_xnum(o, v);
  }
}

/* printflags: NAME|NAME|0x<unknown>, or zero_name (default "0") for 0. */
static void put_flags(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *zero_name) {
  if (!v)
    ob_puts(o, zero_name ? zero_name : "0");
  else
    put_flags_tail(o, x, v, 1);
}

/* A field value (v & mask) by name, then the other bits as flags. */
static void put_field_flags(struct ob *o, const struct sc_xlat *field, uint64_t mask,
                            const struct sc_xlat *flags, uint64_t v) {
  put_xval(o, field, v & mask, XHEX);
  put_flags_tail(o, flags, v & ~mask, 0);
}

/* C-escaped, quoted (strace's rules: octal escapes widened to three digits
 * when a digit follows; hex for every byte when force_hex). */
static void put_quoted(struct ob *o, const unsigned char *s, size_t n, int force_hex) {
  ob_putc(o, '"');
  for (size_t i = 0; i < n && !o->over; i++) {
    unsigned char ch = s[i];
    if (force_hex) {
      ob_printf(o, "\\x%02x", ch);
      continue;
    }
    switch (ch) {
    case '"': ob_puts(o, "\\\""); break;
    case '\\': ob_puts(o, "\\\\"); break;
    default:
      if (ch >= 0x20 && ch < 0x7f) {
        ob_putc(o, (char)ch);
      } else { /* the one escaper the human text channel shares */
        char esc[CTL_ESC_MAX + 1];
        ctl_escape_byte(esc, ch, i + 1 < n ? s[i + 1] : -1, CTL_ESC_OCTAL);
        ob_puts(o, esc);
      }
    }
  }
  ob_putc(o, '"');
}

/* Keep a copy of a string the call carried (raw bytes, for the view). */
static void carry(struct dc *d, const void *p, size_t n, int more) {
  struct sc_call *c = d->c;
  if (c->ncarried < 0 || c->ncarried >= SC_MAX_CARRIED) return;
  if (n > SC_STR_MAX) {
    n = SC_STR_MAX;
    more = 1;
  }
  int i = c->ncarried++;
  memcpy(c->carried[i], p, n);
  c->carried[i][n] = '\0';
  c->carried_len[i] = (uint16_t)n;
  c->carried_more[i] = (uint8_t)(more != 0);
}

#define PUT_CARRY 1
#define PUT_HEX 2

/* A NUL-terminated string (a path): up to SC_STR_MAX bytes then "...". */
static void put_path(struct dc *d, uint64_t addr) {
  char buf[SC_STR_MAX + 1];
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  size_t got = mem_upto(d, addr, buf, sizeof buf);
  if (!got) {
    put_addr(d->o, addr);
    return;
  }
  const char *nul = memchr(buf, '\0', got);
  size_t len = nul ? (size_t)(nul - buf) : (got > SC_STR_MAX ? SC_STR_MAX : got);
  int more = !nul; /* longer than the cap, or runs into unreadable memory */
  put_quoted(d->o, (const unsigned char *)buf, len, 0);
  if (more) ob_puts(d->o, "...");
  carry(d, buf, len, more);
}

/* A counted buffer (write data, read data): up to SC_STR_MAX bytes. */
static void put_buf(struct dc *d, uint64_t addr, uint64_t len, int how) {
  unsigned char buf[SC_STR_MAX];
  if (len == 0) {
    ob_puts(d->o, "\"\"");
    if (how & PUT_CARRY) carry(d, "", 0, 0);
    return;
  }
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  size_t want = len > SC_STR_MAX ? SC_STR_MAX : (size_t)len;
  size_t got = mem_upto(d, addr, buf, want);
  if (!got) {
    put_addr(d->o, addr);
    return;
  }
  int more = got < len;
  put_quoted(d->o, buf, got, how & PUT_HEX);
  if (more) ob_puts(d->o, "...");
  if (how & PUT_CARRY) carry(d, buf, got, more);
}

/* fd=N<description> (described at entry: close/dup2 may remove it). */
static void put_fd_as(struct dc *d, uint64_t v, int describe) {
  int fd = (int)v;
  struct ob *o = d->o;
  if (fd < 0) {
    ob_printf(o, "%d", fd);
    return;
  }
  ob_printf(o, "fd=%d", fd);
  if (!describe || !d->env || !d->env->describe_fd) return;
  char buf[SC_FDDESC_MAX];
  buf[0] = '\0';
  const char *s = d->env->describe_fd(d->env->ctx, fd, buf, sizeof buf);
  if (!s || !*s) return;
  size_t n = strnlen(s, SC_FDDESC_MAX);
  ob_putc(o, '<');
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '\\')
      ob_putc(o, (char)ch);
    else
      ob_printf(o, "\\%o", ch);
  }
  ob_putc(o, '>');
}
static void put_fd(struct dc *d, uint64_t v) { put_fd_as(d, v, 1); }

static void put_dirfd(struct dc *d, uint64_t v) {
  if ((int)v == AT_FDCWD)
    ob_puts(d->o, "AT_FDCWD");
  else
    put_fd(d, v);
}

/* A 32-bit int the target points at: [N]. */
static void put_intptr(struct dc *d, uint64_t addr) {
  int32_t v;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &v, sizeof v))
    ob_printf(d->o, "[%d]", v);
  else
    put_addr(d->o, addr);
}

/* ---- time ---- */
struct k_timespec {
  int64_t sec, nsec;
};

static void put_timespec(struct dc *d, uint64_t addr) {
  struct k_timespec ts;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &ts, sizeof ts))
    ob_printf(d->o, "{tv_sec=%lld, tv_nsec=%lld}", (long long)ts.sec, (long long)ts.nsec);
  else
    put_addr(d->o, addr);
}

static void put_timeval(struct dc *d, uint64_t addr) {
  struct k_timespec tv; /* same layout: two longs */
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &tv, sizeof tv))
    ob_printf(d->o, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv.sec, (long long)tv.nsec);
  else
    put_addr(d->o, addr);
}

/* ---- signals ---- */
static void put_signal(struct ob *o, uint64_t v) {
  int sig = (int)v;
  const char *n = sc_signal_name(sig);
  if (n)
    ob_puts(o, n);
  else if (sig == 32)
    ob_puts(o, "SIGRTMIN");
  else if (sig > 32 && sig <= 64)
    ob_printf(o, "SIGRT_%d", sig - 32);
  else
    ob_printf(o, "%d", sig);
}

/* [INT TERM]; more than two thirds set prints the complement, ~[RTMIN RT_1]. */
static void put_sigmask(struct ob *o, uint64_t mask) {
  if (__builtin_popcountll(mask) >= 64 * 2 / 3) {
    ob_putc(o, '~');
    mask = ~mask;
  }
  ob_putc(o, '[');
  int first = 1;
  for (int sig = 1; sig <= 64; sig++) {
    if (!(mask & (1ull << (sig - 1)))) continue;
    if (!first) ob_putc(o, ' ');
    first = 0;
    const char *n = sc_signal_name(sig);
    if (n)
      ob_puts(o, n + 3);
    else if (sig == 32)
      ob_puts(o, "RTMIN");
    else
      ob_printf(o, "RT_%d", sig - 32);
  }
  ob_putc(o, ']');
}

static void put_sigset(struct dc *d, uint64_t addr, uint64_t size) {
  uint64_t mask = 0;
  size_t n = size > sizeof mask ? sizeof mask : (size_t)size;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (n && mem_full(d, addr, &mask, n))
    put_sigmask(d->o, mask);
  else
    put_addr(d->o, addr);
}

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
    ob_puts(o, "{AF_UNSPEC}");
    return;
  case AF_INET: {
    struct sockaddr_in in;
    if (n < offsetof(struct sockaddr_in, sin_zero)) break;
    memset(&in, 0, sizeof in);
    memcpy(&in, sa, n < sizeof in ? n : sizeof in);
    inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
    ob_printf(o, "{AF_INET, %s:%u}", host, ntohs(in.sin_port));
    return;
  }
  case AF_INET6: {
    struct sockaddr_in6 in6;
    if (n < offsetof(struct sockaddr_in6, sin6_scope_id)) break;
    memset(&in6, 0, sizeof in6);
    memcpy(&in6, sa, n < sizeof in6 ? n : sizeof in6);
    inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    if (in6.sin6_scope_id)
      ob_printf(o, "{AF_INET6, [%s%%%u]:%u}", host, in6.sin6_scope_id, ntohs(in6.sin6_port));
    else
      ob_printf(o, "{AF_INET6, [%s]:%u}", host, ntohs(in6.sin6_port));
    return;
  }
  case AF_UNIX: {
    if (n <= 2) { /* unnamed */
      ob_puts(o, "{AF_UNIX}");
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
    ob_puts(o, "{AF_UNIX, ");
    put_quoted(o, path, plen, 0);
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

/* ---- stat ---- */
static void put_mode(struct ob *o, uint32_t mode) {
  const char *type = sc_xlat_name(sc_file_types, mode & S_IFMT);
  if (!type) {
    ob_printf(o, "%#o", mode);
    return;
  }
  ob_puts(o, type);
  put_flags_tail(o, sc_mode_bits, mode & (S_ISUID | S_ISGID | S_ISVTX), 0);
  ob_printf(o, "|%#03o", mode & 0777);
}

static void put_stat(struct dc *d, uint64_t addr) {
  struct stat st;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, addr, &st, sizeof st))
    put_addr(d->o, addr);
  else {
    ob_puts(d->o, "{st_mode=");
    put_mode(d->o, st.st_mode);
    ob_printf(d->o, ", st_size=%lld}", (long long)st.st_size);
  }
}

/* ======================================================================== */
/* 4. Decoders                                                               */
/* ======================================================================== */

/* ---- read / write ---- */
static void en_fd(struct dc *d) { put_fd(d, A(0)); }

static void en_read(struct dc *d) { /* read(fd, count): the data follows " = " */
  put_fd(d, A(0));
  next(d);
  put_ulong(d->o, A(2));
}
static void en_pread(struct dc *d) {
  en_read(d);
  next(d);
  put_long(d->o, A(3));
}
/* `"data" [n]` after the return: what the call actually read. */
static void rt_readbuf(struct dc *d) {
  put_buf(d, A(1), (uint64_t)d->ret, PUT_CARRY);
  ob_printf(d->o, " [%lld]", (long long)d->ret);
}

static void en_write(struct dc *d) {
  put_fd(d, A(0));
  next(d);
  put_buf(d, A(1), A(2), PUT_CARRY);
  next(d);
  put_ulong(d->o, A(2));
}
static void en_pwrite(struct dc *d) {
  en_write(d);
  next(d);
  put_long(d->o, A(3));
}

/* ---- readv / writev ---- */
struct k_iovec {
  uint64_t base, len;
};

/* [{iov_base="...", iov_len=N}, ...] with SC_STR_MAX bytes of contents in
 * total; valid bounds the bytes the kernel filled (readv's return). */
static void put_iov(struct dc *d, uint64_t addr, uint64_t cnt, uint64_t valid) {
  struct ob *o = d->o;
  struct k_iovec iov[SC_ARRAY_MAX];
  int icnt = (int)cnt;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (icnt <= 0) {
    if (icnt == 0)
      ob_puts(o, "[]");
    else
      put_addr(o, addr);
    return;
  }
  size_t n = icnt > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)icnt;
  n = mem_upto(d, addr, iov, n * sizeof iov[0]) / sizeof iov[0]; /* the readable prefix */
  if (!n) {
    put_addr(o, addr);
    return;
  }
  unsigned char all[SC_STR_MAX];
  size_t budget = SC_STR_MAX, kept = 0;
  int more = 0;
  ob_putc(o, '[');
  for (size_t i = 0; i < n; i++) {
    uint64_t len = iov[i].len < valid ? iov[i].len : valid;
    valid -= len;
    size_t want = len < budget ? (size_t)len : budget;
    if (i) ob_puts(o, ", ");
    ob_puts(o, "{iov_base=");
    size_t got = want ? mem_upto(d, iov[i].base, all + kept, want) : 0;
    if (want && !got) {
      put_addr(o, iov[i].base);
      more = 1;
    } else {
      put_quoted(o, all + kept, got, 0);
      if (got < len) {
        ob_puts(o, "...");
        more = 1;
      }
    }
    kept += got;
    budget -= got;
    ob_printf(o, ", iov_len=%llu}", (unsigned long long)iov[i].len);
  }
  if ((size_t)icnt > n) {
    ob_puts(o, ", ...");
    more = 1;
  }
  ob_putc(o, ']');
  carry(d, all, kept, more);
}

static void en_writev(struct dc *d) { /* writev(fd, iov, iovcnt) */
  put_fd(d, A(0));
  next(d);
  put_iov(d, A(1), A(2), UINT64_MAX);
  next(d);
  put_int(d->o, A(2));
}
static void en_pwritev(struct dc *d) { /* pwritev(fd, iov, iovcnt, offset) */
  en_writev(d);
  next(d);
  put_long(d->o, A(3));
}
static void en_readv(struct dc *d) { /* readv(fd, iovcnt): the data follows " = " */
  put_fd(d, A(0));
  next(d);
  put_int(d->o, A(2));
}
static void en_preadv(struct dc *d) {
  en_readv(d);
  next(d);
  put_long(d->o, A(3));
}
static void rt_readv(struct dc *d) {
  put_iov(d, A(1), A(2), (uint64_t)d->ret);
  ob_printf(d->o, " [%lld]", (long long)d->ret);
}

/* ---- open / close ---- */
#define K_O_TMPFILE_BIT 020000000u /* __O_TMPFILE: O_TMPFILE minus O_DIRECTORY */

static void put_open_flags(struct ob *o, uint64_t v) {
  put_field_flags(o, sc_open_accmode, O_ACCMODE, sc_open_flags, (uint32_t)v);
}
static int open_has_mode(uint64_t flags) {
  return (flags & O_CREAT) || (flags & K_O_TMPFILE_BIT);
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_open(struct dc *d) { /* open(path, flags[, mode]) */
  put_path(d, A(0));
  next(d);
  put_open_flags(d->o, A(1));
  if (open_has_mode(A(1))) {
    next(d);
    put_octmode(d->o, A(2));
  }
}
static void en_openat(struct dc *d) { /* openat(dirfd, path, flags[, mode]) */
  put_dirfd(d, A(0));
  next(d);
  put_path(d, A(1));
  next(d);
  put_open_flags(d->o, A(2));
  if (open_has_mode(A(2))) {
    next(d);
    put_octmode(d->o, A(3));
  }
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_path_mode(struct dc *d) { /* creat, mkdir: (path, mode) */
  put_path(d, A(0));
  next(d);
  put_octmode(d->o, A(1));
}
static void en_close(struct dc *d) {
  put_fd_as(d, A(0), d->env && (d->env->flags & SC_ENV_DESCRIBE_CLOSED_FD));
}

/* ---- stat family ---- */
static void en_path(struct dc *d) { put_path(d, A(0)); }
static void ex_stat1(struct dc *d) { /* stat/lstat/fstat: statbuf is arg 1 */
  next(d);
  put_stat(d, A(1));
}
static void en_dirfd_path(struct dc *d) {
  put_dirfd(d, A(0));
  next(d);
  put_path(d, A(1));
}
static void ex_newfstatat(struct dc *d) { /* (dirfd, path, statbuf, flags) */
  next(d);
  put_stat(d, A(2));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(3), "0");
}

struct k_statx_head { /* the leading fields of struct statx */
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, pad0;
  uint64_t ino, size;
};

static void en_statx(struct dc *d) { /* statx(dirfd, path, flags, mask, buf) */
  en_dirfd_path(d);
  next(d);
  put_field_flags(d->o, sc_statx_sync, 0x6000, sc_statx_flags, (uint32_t)A(2));
  next(d);
  put_flags(d->o, sc_statx_masks, (uint32_t)A(3), "0");
}
static void ex_statx(struct dc *d) {
  struct k_statx_head sx;
  next(d);
  if (!A(4))
    ob_puts(d->o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, A(4), &sx, sizeof sx))
    put_addr(d->o, A(4));
  else {
    ob_puts(d->o, "{stx_mask=");
    put_flags(d->o, sc_statx_masks, sx.mask, "0");
    ob_puts(d->o, ", stx_mode=");
    put_mode(d->o, sx.mode);
    ob_printf(d->o, ", stx_size=%llu}", (unsigned long long)sx.size);
  }
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_access(struct dc *d) { /* access(path, mode) */
  put_path(d, A(0));
  next(d);
  put_flags(d->o, sc_access_modes, (uint32_t)A(1), "F_OK");
}
static void en_faccessat(struct dc *d) { /* faccessat(dirfd, path, mode) */
  en_dirfd_path(d);
  next(d);
  put_flags(d->o, sc_access_modes, (uint32_t)A(2), "F_OK");
}
static void en_faccessat2(struct dc *d) { /* faccessat2(dirfd, path, mode, flags) */
  en_faccessat(d);
  next(d);
  put_flags(d->o, sc_faccessat_flags, (uint32_t)A(3), "0");
}

static void en_lseek(struct dc *d) { /* lseek(fd, offset, whence) */
  put_fd(d, A(0));
  next(d);
  put_long(d->o, A(1));
  next(d);
  put_xval(d->o, sc_seek_whence, (uint32_t)A(2), XDEC);
}

/* ---- memory ---- */
#define K_MAP_TYPE 0xfu
#define K_MAP_HUGETLB 0x40000u
#define K_MAP_HUGE_SHIFT 26
#define K_MAP_HUGE_MASK 0x3fu

static void put_mmap_flags(struct ob *o, uint64_t v) {
  uint64_t huge = 0;
  v = (uint32_t)v;
  if (v & K_MAP_HUGETLB) { /* the page-size field shares bits with MAP_UNINITIALIZED */
    huge = (v >> K_MAP_HUGE_SHIFT) & K_MAP_HUGE_MASK;
    v &= ~((uint64_t)K_MAP_HUGE_MASK << K_MAP_HUGE_SHIFT);
  }
  put_field_flags(o, sc_mmap_type, K_MAP_TYPE, sc_mmap_flags, v);
  if (huge) ob_printf(o, "|%llu<<MAP_HUGE_SHIFT", (unsigned long long)huge);
}

static void en_mmap(struct dc *d) { /* mmap(addr, len, prot, flags, fd, offset) */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_mmap_prot, (uint32_t)A(2), "PROT_NONE");
  next(d);
  put_mmap_flags(d->o, A(3));
  next(d);
  put_fd(d, A(4));
  next(d);
  put_xnum(d->o, A(5));
}
static void en_mprotect(struct dc *d) { /* mprotect(addr, len, prot) */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_mmap_prot, (uint32_t)A(2), "PROT_NONE");
}
static void en_addr_len(struct dc *d) { /* munmap(addr, len), set_robust_list */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
}
static void en_addr(struct dc *d) { put_addr(d->o, A(0)); } /* brk, set_tid_address */

/* ---- processes ---- */
#define K_CSIGNAL 0xffu
#define K_CLONE_PARENT_SETTID 0x00100000u
#define K_CLONE_PIDFD 0x00001000u
#define K_CLONE_SETTLS 0x00080000u
#define K_CLONE_CHILD_SETTID 0x01000000u
#define K_CLONE_CHILD_CLEARTID 0x00200000u

static void put_clone_flags(struct ob *o, uint64_t v) {
  uint64_t sig = v & K_CSIGNAL, rest = v & ~(uint64_t)K_CSIGNAL;
  if (rest) put_flags_tail(o, sc_clone_flags, rest, 1);
  if (sig) {
    if (rest) ob_putc(o, '|');
    put_signal(o, sig);
  }
  if (!v) ob_putc(o, '0');
}

/* strace's shape: clone(child_stack=, flags=[, parent_tid=][, tls=][, child_tidptr=]).
 * x86-64 argument order: flags, stack, parent_tid, child_tid, tls. */
static void en_clone(struct dc *d) {
  uint64_t fl = A(0);
  ob_puts(d->o, "child_stack=");
  put_addr(d->o, A(1));
  ob_puts(d->o, ", flags=");
  put_clone_flags(d->o, fl);
  if (fl & (K_CLONE_PARENT_SETTID | K_CLONE_PIDFD)) {
    ob_puts(d->o, ", parent_tid=");
    put_addr(d->o, A(2));
  }
  if (fl & K_CLONE_SETTLS) {
    ob_puts(d->o, ", tls=");
    put_addr(d->o, A(4));
  }
  if (fl & (K_CLONE_CHILD_SETTID | K_CLONE_CHILD_CLEARTID)) {
    ob_puts(d->o, ", child_tidptr=");
    put_addr(d->o, A(3));
  }
}

struct k_clone_args { /* CLONE_ARGS_SIZE_VER0 = 64 */
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void en_clone3(struct dc *d) { /* clone3(args, size) */
  struct k_clone_args ca;
  if (!A(0))
    ob_puts(d->o, "NULL");
  else if (A(1) < sizeof ca || !mem_full(d, A(0), &ca, sizeof ca))
    put_addr(d->o, A(0));
  else {
    ob_puts(d->o, "{flags=");
    put_flags(d->o, sc_clone3_flags, ca.flags, "0");
    ob_puts(d->o, ", exit_signal=");
    put_signal(d->o, ca.exit_signal);
    ob_puts(d->o, ", stack=");
    put_addr(d->o, ca.stack);
    ob_puts(d->o, ", stack_size=");
    put_xnum(d->o, ca.stack_size);
    ob_putc(d->o, '}');
  }
  next(d);
  put_ulong(d->o, A(1));
}

static void en_int(struct dc *d) { put_int(d->o, A(0)); } /* exit, exit_group, epoll_create */

static void en_execve(struct dc *d) { /* execve(path, argv, envp): argv/envp not decoded */
  put_path(d, A(0));
  next(d);
  put_addr(d->o, A(1));
  next(d);
  put_addr(d->o, A(2));
}
static void en_execveat(struct dc *d) { /* execveat(dirfd, path, argv, envp, flags) */
  en_dirfd_path(d);
  next(d);
  put_addr(d->o, A(2));
  next(d);
  put_addr(d->o, A(3));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(4), "0");
}

static void put_wstatus(struct dc *d, uint64_t addr) {
  struct ob *o = d->o;
  int32_t s;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || d->ret <= 0 || !mem_full(d, addr, &s, sizeof s)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "[{");
  if ((s & 0x7f) == 0) {
    ob_printf(o, "WIFEXITED(s) && WEXITSTATUS(s) == %d", (s >> 8) & 0xff);
  } else if ((s & 0xff) == 0x7f) {
    ob_puts(o, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
    put_signal(o, (s >> 8) & 0xff);
    if (s >> 16) ob_printf(o, " && s>>16 == %d", (s >> 16) & 0xffff);
  } else if (s == 0xffff) {
    ob_puts(o, "WIFCONTINUED(s)");
  } else {
    ob_puts(o, "WIFSIGNALED(s) && WTERMSIG(s) == ");
    put_signal(o, s & 0x7f);
    if (s & 0x80) ob_puts(o, " && WCOREDUMP(s)");
  }
  ob_puts(o, "}]");
}

static void ex_wait4(struct dc *d) { /* wait4(pid, wstatus, options, rusage) */
  next(d);
  put_wstatus(d, A(1));
  next(d);
  put_flags(d->o, sc_wait_options, (uint32_t)A(2), "0");
  next(d);
  put_addr(d->o, A(3));
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_arch_prctl(struct dc *d) { /* arch_prctl(code, addr) */
  put_xval(d->o, sc_arch_prctl_codes, (uint32_t)A(0), XHEX);
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) { /* not ARCH_GET_FS/GS */
    next(d);
    put_addr(d->o, A(1));
  }
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) ex_arch_prctl(struct dc *d) {
  uint64_t v;
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) return;
  next(d);
  if (A(1) && OUT_OK(d) && mem_full(d, A(1), &v, sizeof v))
    ob_printf(d->o, "[%#llx]", (unsigned long long)v);
  else
    put_addr(d->o, A(1));
}

static void put_rlim_value(struct ob *o, uint64_t v) {
  if (v == UINT64_MAX)
    ob_puts(o, "RLIM64_INFINITY");
  else if (v && v % 1024 == 0)
    ob_printf(o, "%llu*1024", (unsigned long long)(v / 1024));
  else
    ob_printf(o, "%llu", (unsigned long long)v);
}
static void put_rlimit(struct dc *d, uint64_t addr, int out) {
  uint64_t r[2];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if ((out && !OUT_OK(d)) || !mem_full(d, addr, r, sizeof r))
    put_addr(d->o, addr);
  else {
    ob_puts(d->o, "{rlim_cur=");
    put_rlim_value(d->o, r[0]);
    ob_puts(d->o, ", rlim_max=");
    put_rlim_value(d->o, r[1]);
    ob_putc(d->o, '}');
  }
}
static void en_prlimit64(struct dc *d) { /* prlimit64(pid, resource, new, old) */
  put_int(d->o, A(0));
  next(d);
  put_xval(d->o, sc_rlimit_resources, (uint32_t)A(1), XDEC);
  next(d);
  put_rlimit(d, A(2), 0);
}
static void ex_prlimit64(struct dc *d) {
  next(d);
  put_rlimit(d, A(3), 1);
}

static void ex_getrandom(struct dc *d) { /* getrandom(buf, len, flags): all at exit */
  if (OUT_OK(d))
    put_buf(d, A(0), (uint64_t)d->ret, PUT_HEX);
  else
    put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_getrandom_flags, (uint32_t)A(2), "0");
}

/* ---- signals ---- */
struct k_sigaction {
  uint64_t handler, flags, restorer, mask;
};
#define K_SA_RESTORER 0x04000000u

static void put_sigaction(struct dc *d, uint64_t addr, int out) {
  struct ob *o = d->o;
  struct k_sigaction sa;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if ((out && !OUT_OK(d)) || !mem_full(d, addr, &sa, sizeof sa)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "{sa_handler=");
  if (sa.handler == 0)
    ob_puts(o, "SIG_DFL");
  else if (sa.handler == 1)
    ob_puts(o, "SIG_IGN");
  else
    put_xnum(o, sa.handler);
  ob_puts(o, ", sa_mask=");
  put_sigmask(o, sa.mask);
  ob_puts(o, ", sa_flags=");
  put_flags(o, sc_sa_flags, sa.flags, "0");
  if (sa.flags & K_SA_RESTORER) {
    ob_puts(o, ", sa_restorer=");
    put_addr(o, sa.restorer);
  }
  ob_putc(o, '}');
}

static void en_rt_sigaction(struct dc *d) { /* rt_sigaction(sig, act, oldact, size) */
  put_signal(d->o, A(0));
  next(d);
  put_sigaction(d, A(1), 0);
}
static void ex_rt_sigaction(struct dc *d) {
  next(d);
  put_sigaction(d, A(2), 1);
  next(d);
  put_ulong(d->o, A(3));
}

static void en_rt_sigprocmask(struct dc *d) { /* rt_sigprocmask(how, set, oldset, size) */
  put_xval(d->o, sc_sigprocmask_how, (uint32_t)A(0), XSDEC);
  next(d);
  put_sigset(d, A(1), A(3));
}
static void ex_rt_sigprocmask(struct dc *d) {
  next(d);
  if (A(2) && !OUT_OK(d))
    put_addr(d->o, A(2));
  else
    put_sigset(d, A(2), A(3));
  next(d);
  put_ulong(d->o, A(3));
}

static void en_kill(struct dc *d) { /* kill(pid, sig), tkill(tid, sig) */
  put_int(d->o, A(0));
  next(d);
  put_signal(d->o, A(1));
}
static void en_tgkill(struct dc *d) { /* tgkill(tgid, tid, sig) */
  put_int(d->o, A(0));
  next(d);
  put_int(d->o, A(1));
  next(d);
  put_signal(d->o, A(2));
}

/* ---- sleeping ---- */
/* The remaining time is written only when a signal cut the sleep short. */
static void put_rem(struct dc *d, uint64_t addr) {
  int interrupted = d->have_ret && (d->ret == -EINTR || d->ret == -516 /* ERESTART_RESTARTBLOCK */);
  if (addr && interrupted)
    put_timespec(d, addr);
  else
    put_addr(d->o, addr);
}
static void en_nanosleep(struct dc *d) { put_timespec(d, A(0)); }
static void ex_nanosleep(struct dc *d) {
  next(d);
  put_rem(d, A(1));
}
static void en_clock_nanosleep(struct dc *d) { /* (clockid, flags, req, rem) */
  put_xval(d->o, sc_clocks, (uint32_t)A(0), XSDEC);
  next(d);
  put_flags(d->o, sc_clock_flags, (uint32_t)A(1), "0");
  next(d);
  put_timespec(d, A(2));
}
static void ex_clock_nanosleep(struct dc *d) {
  next(d);
  put_rem(d, A(3));
}

/* ---- ioctl ---- */
enum { IO_NONE, IO_HEX, IO_INT_IN, IO_INT_OUT, IO_WINSZ_IN, IO_WINSZ_OUT };

static int ioctl_arg_kind(uint32_t req) {
  switch (req) {
  case 0x5450: /* FIONCLEX */
  case 0x5451: /* FIOCLEX */
    return IO_NONE;
  case 0x5421: /* FIONBIO */
  case 0x5452: /* FIOASYNC */
  case 0x5410: /* TIOCSPGRP */
    return IO_INT_IN;
  case 0x541b: /* FIONREAD */
  case 0x540f: /* TIOCGPGRP */
  case 0x80045430: /* TIOCGPTN */
    return IO_INT_OUT;
  case 0x5414: return IO_WINSZ_IN;  /* TIOCSWINSZ */
  case 0x5413: return IO_WINSZ_OUT; /* TIOCGWINSZ */
  default: return IO_HEX;
  }
}

static void put_winsize(struct dc *d, uint64_t addr) {
  uint16_t ws[4];
  if (addr && mem_full(d, addr, ws, sizeof ws))
    ob_printf(d->o, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", ws[0], ws[1], ws[2], ws[3]);
  else
    put_addr(d->o, addr);
}

static void en_ioctl(struct dc *d) { /* ioctl(fd, request, arg) */
  uint32_t req = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_ioctl_requests, req, XHEX);
  switch (ioctl_arg_kind(req)) {
  case IO_HEX:
    next(d);
    put_xnum(d->o, A(2));
    break;
  case IO_INT_IN:
    next(d);
    put_intptr(d, A(2));
    break;
  case IO_WINSZ_IN:
    next(d);
    put_winsize(d, A(2));
    break;
  default:
    break;
  }
}
static void ex_ioctl(struct dc *d) {
  int kind = ioctl_arg_kind((uint32_t)A(1));
  if (kind != IO_INT_OUT && kind != IO_WINSZ_OUT) return;
  next(d);
  if (!OUT_OK(d))
    put_addr(d->o, A(2));
  else if (kind == IO_INT_OUT)
    put_intptr(d, A(2));
  else
    put_winsize(d, A(2));
}

/* ---- fcntl ---- */
enum {
  K_F_DUPFD = 0, K_F_GETFD = 1, K_F_SETFD = 2, K_F_GETFL = 3, K_F_SETFL = 4, K_F_GETLK = 5,
  K_F_SETLK = 6, K_F_SETLKW = 7, K_F_SETOWN = 8, K_F_GETOWN = 9, K_F_SETSIG = 10,
  K_F_GETSIG = 11, K_F_OFD_GETLK = 36, K_F_OFD_SETLK = 37, K_F_OFD_SETLKW = 38,
  K_F_SETLEASE = 1024, K_F_GETLEASE = 1025, K_F_DUPFD_CLOEXEC = 1030, K_F_GETPIPE_SZ = 1032,
  K_F_ADD_SEALS = 1033, K_F_GET_SEALS = 1034
};

struct k_flock {
  int16_t type, whence;
  int32_t pad;
  int64_t start, len;
  int32_t pid, pad2;
};

static void put_flock(struct dc *d, uint64_t addr, int with_pid) {
  struct k_flock fl;
  if (!addr || !mem_full(d, addr, &fl, sizeof fl)) {
    put_addr(d->o, addr);
    return;
  }
  ob_puts(d->o, "{l_type=");
  put_xval(d->o, sc_lock_types, (uint16_t)fl.type, XSDEC);
  ob_puts(d->o, ", l_whence=");
  put_xval(d->o, sc_seek_whence, (uint16_t)fl.whence, XSDEC);
  ob_printf(d->o, ", l_start=%lld, l_len=%lld", (long long)fl.start, (long long)fl.len);
  if (with_pid) ob_printf(d->o, ", l_pid=%d", fl.pid);
  ob_putc(d->o, '}');
}

static void en_fcntl(struct dc *d) { /* fcntl(fd, cmd[, arg]) — arity depends on cmd */
  uint32_t cmd = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_fcntl_cmds, cmd, XHEX);
  switch (cmd) {
  case K_F_GETFD: case K_F_GETFL: case K_F_GETOWN: case K_F_GETSIG: case K_F_GETLEASE:
  case K_F_GETPIPE_SZ: case K_F_GET_SEALS:
    return; /* no third argument */
  case K_F_GETLK: case K_F_OFD_GETLK:
    return; /* the lock is an out-parameter */
  case K_F_SETFD:
    next(d);
    put_flags(d->o, sc_fd_flags, (uint32_t)A(2), "0");
    return;
  case K_F_SETFL:
    next(d);
    put_open_flags(d->o, A(2));
    return;
  case K_F_SETLK: case K_F_SETLKW: case K_F_OFD_SETLK: case K_F_OFD_SETLKW:
    next(d);
    put_flock(d, A(2), 0);
    return;
  case K_F_SETSIG:
    next(d);
    put_signal(d->o, A(2));
    return;
  case K_F_SETLEASE:
    next(d);
    put_xval(d->o, sc_lock_types, (uint32_t)A(2), XSDEC);
    return;
  case K_F_DUPFD: case K_F_DUPFD_CLOEXEC: case K_F_SETOWN:
    next(d);
    put_int(d->o, A(2));
    return;
  case K_F_ADD_SEALS:
    next(d);
    put_xnum(d->o, (uint32_t)A(2));
    return;
  default:
    next(d);
    put_xnum(d->o, A(2));
    return;
  }
}
static void ex_fcntl(struct dc *d) {
  uint32_t cmd = (uint32_t)A(1);
  if (cmd != K_F_GETLK && cmd != K_F_OFD_GETLK) return;
  next(d);
  if (OUT_OK(d))
    put_flock(d, A(2), 1);
  else
    put_addr(d->o, A(2));
}
/* strace: fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE). */
static void rt_fcntl(struct dc *d) {
  uint32_t cmd = (uint32_t)A(1);
  uint64_t r = (uint64_t)d->ret;
  if (cmd == K_F_GETFL) {
    ob_printf(d->o, "%#llx (flags ", (unsigned long long)r);
    put_open_flags(d->o, r);
    ob_putc(d->o, ')');
  } else if (cmd == K_F_GETFD && r) {
    ob_printf(d->o, "%#llx (flags ", (unsigned long long)r);
    put_flags(d->o, sc_fd_flags, r, "0");
    ob_putc(d->o, ')');
  } else {
    put_long(d->o, r);
  }
}

/* ---- futex ---- */
#define K_FUTEX_PRIVATE 128u
#define K_FUTEX_CLOCK_RT 256u
#define K_FUTEX_CMD_MASK 127u

static void put_futex_op(struct ob *o, uint32_t op) {
  const char *name = sc_xlat_name(sc_futex_cmds, op & K_FUTEX_CMD_MASK);
  uint32_t rest = op & ~(K_FUTEX_CMD_MASK | K_FUTEX_PRIVATE | K_FUTEX_CLOCK_RT);
  if (!name) {
    put_xnum(o, op);
    return;
  }
  ob_puts(o, name);
  if (op & K_FUTEX_PRIVATE) ob_puts(o, "_PRIVATE");
  if (op & K_FUTEX_CLOCK_RT) ob_puts(o, "|FUTEX_CLOCK_REALTIME");
  if (rest) ob_printf(o, "|%#x", rest);
}

static void put_futex_bitset(struct ob *o, uint32_t v) {
  if (v == 0xffffffffu)
    ob_puts(o, "FUTEX_BITSET_MATCH_ANY");
  else
    put_xnum(o, v);
}

/* FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1, as strace spells it. */
static void put_futex_wake_op(struct ob *o, uint32_t v) {
  if ((v >> 28) & 8) ob_puts(o, "FUTEX_OP_OPARG_SHIFT<<28|");
  put_xval(o, sc_futex_wake_ops, (v >> 28) & 7, XDEC);
  ob_printf(o, "<<28|%#x<<12|", (v >> 12) & 0xfff);
  put_xval(o, sc_futex_wake_cmps, (v >> 24) & 0xf, XDEC);
  ob_printf(o, "<<24|%#x", v & 0xfff);
}

static void en_futex(struct dc *d) { /* futex(uaddr, op, val, timeout|val2, uaddr2, val3) */
  struct ob *o = d->o;
  uint32_t op = (uint32_t)A(1), val = (uint32_t)A(2), val2 = (uint32_t)A(3);
  uint32_t val3 = (uint32_t)A(5);
  put_addr(o, A(0));
  next(d);
  put_futex_op(o, op);
  switch (op & K_FUTEX_CMD_MASK) {
  case 0: /* WAIT: val, timeout */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    break;
  case 6: case 13: /* LOCK_PI, LOCK_PI2: timeout */
    next(d);
    put_timespec(d, A(3));
    break;
  case 9: /* WAIT_BITSET: val, timeout, bitset */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    next(d);
    put_futex_bitset(o, val3);
    break;
  case 10: /* WAKE_BITSET: val, bitset */
    ob_printf(o, ", %u, ", val);
    put_futex_bitset(o, val3);
    break;
  case 3: /* REQUEUE: val, val2, uaddr2 */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    break;
  case 4: case 12: /* CMP_REQUEUE(_PI): val, val2, uaddr2, val3 */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    ob_printf(o, ", %u", val3);
    break;
  case 5: /* WAKE_OP: val, val2, uaddr2, encoded op */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    next(d);
    put_futex_wake_op(o, val3);
    break;
  case 11: /* WAIT_REQUEUE_PI: val, timeout, uaddr2 */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    next(d);
    put_addr(o, A(4));
    break;
  case 1: case 2: /* WAKE, FD: val */
    ob_printf(o, ", %u", val);
    break;
  case 7: case 8: /* UNLOCK_PI, TRYLOCK_PI */
    break;
  default:
    ob_printf(o, ", %u, ", val);
    put_addr(o, A(3));
    next(d);
    put_addr(o, A(4));
    ob_printf(o, ", %#x", val3);
    break;
  }
}

/* ---- sockets ---- */
#define K_SOCK_TYPE_MASK 0xfu

static void en_socket(struct dc *d) { /* socket(domain, type, protocol) */
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
static void en_connect(struct dc *d) { /* connect/bind(fd, addr, addrlen) */
  put_fd(d, A(0));
  next(d);
  put_sockaddr(d, A(1), (int32_t)A(2));
  next(d);
  put_int(d->o, A(2));
}
static void en_sendto(struct dc *d) { /* sendto(fd, buf, len, flags, addr, addrlen) */
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
static void en_recvfrom(struct dc *d) { /* recvfrom(fd, len, flags): data follows " = " */
  put_fd(d, A(0));
  next(d);
  put_ulong(d->o, A(2));
  next(d);
  put_flags(d->o, sc_msg_flags, (uint32_t)A(3), "0");
  save_socklen(d, A(5));
}
static void ex_recvfrom(struct dc *d) {
  next(d);
  put_sockaddr_result(d, A(4), A(5));
  next(d);
  put_socklen_result(d, A(5));
}
static void en_sock_result(struct dc *d) { /* accept, accept4, getsockname, getpeername */
  put_fd(d, A(0));
  save_socklen(d, A(2));
}
static void ex_sock_result(struct dc *d) {
  next(d);
  put_sockaddr_result(d, A(1), A(2));
  next(d);
  put_socklen_result(d, A(2));
}
static void ex_accept4(struct dc *d) {
  ex_sock_result(d);
  next(d);
  put_flags(d->o, sc_socket_flags, (uint32_t)A(3), "0");
}
static void en_fd_int(struct dc *d) { /* listen(fd, backlog) */
  put_fd(d, A(0));
  next(d);
  put_int(d->o, A(1));
}
static void en_shutdown(struct dc *d) {
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_shutdown_how, (uint32_t)A(1), XSDEC);
}

/* ---- pipes, dup ---- */
static void put_fd_pair(struct dc *d, uint64_t addr) {
  int32_t fds[2];
  if (addr && OUT_OK(d) && mem_full(d, addr, fds, sizeof fds))
    ob_printf(d->o, "[%d, %d]", fds[0], fds[1]);
  else
    put_addr(d->o, addr);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) ex_pipe(struct dc *d) { put_fd_pair(d, A(0)); }
static void ex_pipe2(struct dc *d) {
  put_fd_pair(d, A(0));
  next(d);
  put_flags(d->o, sc_pipe_flags, (uint32_t)A(1), "0");
}
static void en_dup2(struct dc *d) { /* newfd described at entry: the file it is about to lose */
  put_fd(d, A(0));
  next(d);
  put_fd(d, A(1));
}
static void en_dup3(struct dc *d) {
  en_dup2(d);
  next(d);
  put_flags(d->o, sc_pipe_flags, (uint32_t)A(2), "0");
}

/* ---- paths ---- */
static void en_unlinkat(struct dc *d) {
  en_dirfd_path(d);
  next(d);
  put_flags(d->o, sc_at_removedir, (uint32_t)A(2), "0");
}
static void en_mkdirat(struct dc *d) {
  en_dirfd_path(d);
  next(d);
  put_octmode(d->o, A(2));
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_rename(struct dc *d) {
  put_path(d, A(0));
  next(d);
  put_path(d, A(1));
}
static void en_renameat(struct dc *d) { /* renameat(olddirfd, old, newdirfd, new) */
  en_dirfd_path(d);
  next(d);
  put_dirfd(d, A(2));
  next(d);
  put_path(d, A(3));
}
static void en_renameat2(struct dc *d) {
  en_renameat(d);
  next(d);
  put_flags(d->o, sc_rename_flags, (uint32_t)A(4), "0");
}

/* readlink's buffer: ret bytes, not NUL-terminated. */
static void put_link_result(struct dc *d, uint64_t buf, uint64_t size) {
  next(d);
  if (OUT_OK(d) && d->ret >= 0) {
    uint64_t n = (uint64_t)d->ret < size ? (uint64_t)d->ret : size;
    put_buf(d, buf, n, PUT_CARRY);
  } else {
    put_addr(d->o, buf);
  }
  next(d);
  put_ulong(d->o, size);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) ex_readlink(struct dc *d) { put_link_result(d, A(1), A(2)); }
static void ex_readlinkat(struct dc *d) { put_link_result(d, A(2), A(3)); }

static void ex_getcwd(struct dc *d) { /* getcwd(buf, size): all at exit */
  if (OUT_OK(d))
    put_path(d, A(0));
  else
    put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
}

/* ---- readiness: poll, select, epoll ---- */
struct k_pollfd {
  int32_t fd;
  int16_t events, revents;
};

/* entry: [{fd=3, events=POLLIN}]; exit (revents): only the ready ones. */
static int put_pollfds(struct dc *d, uint64_t addr, uint64_t nfds, int revents) {
  struct k_pollfd p[SC_ARRAY_MAX];
  size_t n = nfds > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)nfds;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return 0;
  }
  if (n && !mem_full(d, addr, p, n * sizeof p[0])) {
    put_addr(d->o, addr);
    return 0;
  }
  ob_putc(d->o, '[');
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    if (revents && !p[i].revents) continue;
    if (shown++) ob_puts(d->o, ", ");
    ob_printf(d->o, "{fd=%d, %s=", p[i].fd, revents ? "revents" : "events");
    put_flags(d->o, sc_poll_events, (uint16_t)(revents ? p[i].revents : p[i].events), "0");
    ob_putc(d->o, '}');
  }
  if (nfds > n) ob_puts(d->o, shown ? ", ..." : "...");
  ob_putc(d->o, ']');
  return 1;
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_poll(struct dc *d) { /* poll(fds, nfds, timeout_ms) */
  put_pollfds(d, A(0), (uint32_t)A(1), 0);
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_int(d->o, A(2));
}
static void en_ppoll(struct dc *d) { /* ppoll(fds, nfds, tsp, sigmask, sigsetsize) */
  put_pollfds(d, A(0), (uint32_t)A(1), 0);
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_timespec(d, A(2));
  next(d);
  put_sigset(d, A(3), A(4));
  next(d);
  put_ulong(d->o, A(4));
}
/* = 1 ([{fd=3, revents=POLLIN}]) / = 0 (Timeout) */
static void rt_poll(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  if (d->ret == 0) {
    ob_puts(d->o, " (Timeout)");
  } else {
    ob_puts(d->o, " (");
    if (!put_pollfds(d, A(0), (uint32_t)A(1), 1)) ob_puts(d->o, "?");
    ob_putc(d->o, ')');
  }
}

/* [3 7]: the fds below nfds set in an fd_set. */
static void put_fdset(struct dc *d, uint64_t addr, int nfds) {
  uint64_t bits[SC_FDSET_MAX / 64];
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  if (nfds < 0) nfds = 0;
  if (nfds > SC_FDSET_MAX) nfds = SC_FDSET_MAX;
  size_t words = ((size_t)nfds + 63) / 64;
  if (words && !mem_full(d, addr, bits, words * 8)) {
    put_addr(d->o, addr);
    return;
  }
  ob_putc(d->o, '[');
  int first = 1;
  for (int fd = 0; fd < nfds; fd++) {
    if (!(bits[fd / 64] & (1ull << (fd % 64)))) continue;
    if (!first) ob_putc(d->o, ' ');
    first = 0;
    ob_printf(d->o, "%d", fd);
  }
  ob_putc(d->o, ']');
}

static void en_select_sets(struct dc *d) {
  put_int(d->o, A(0));
  for (int i = 1; i <= 3; i++) {
    next(d);
    put_fdset(d, A(i), (int)A(0));
  }
  next(d);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) en_select(struct dc *d) { /* select(nfds, r, w, e, timeval) */
  en_select_sets(d);
  put_timeval(d, A(4));
}
static void en_pselect6(struct dc *d) { /* pselect6(nfds, r, w, e, timespec, {sigset, size}) */
  uint64_t sm[2];
  en_select_sets(d);
  put_timespec(d, A(4));
  next(d);
  if (!A(5))
    ob_puts(d->o, "NULL");
  else if (!mem_full(d, A(5), sm, sizeof sm))
    put_addr(d->o, A(5));
  else {
    ob_putc(d->o, '{');
    put_sigset(d, sm[0], sm[1]);
    ob_printf(d->o, ", %llu}", (unsigned long long)sm[1]);
  }
}
/* = 1 (in [3], out [4], left {tv_sec=0, tv_usec=997}) / = 0 (Timeout) */
static void rt_select_common(struct dc *d, int timespec) {
  static const char *const names[] = {"in", "out", "except"};
  struct ob *o = d->o;
  put_long(o, (uint64_t)d->ret);
  if (d->ret == 0) {
    ob_puts(o, " (Timeout)");
    return;
  }
  ob_puts(o, " (");
  int first = 1;
  for (int i = 1; i <= 3; i++) {
    if (!A(i)) continue;
    ob_printf(o, "%s%s ", first ? "" : ", ", names[i - 1]);
    put_fdset(d, A(i), (int)A(0));
    first = 0;
  }
  if (A(4)) {
    ob_printf(o, "%sleft ", first ? "" : ", ");
    if (timespec)
      put_timespec(d, A(4));
    else
      put_timeval(d, A(4));
  }
  ob_putc(o, ')');
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
static void __attribute__((unused)) rt_select(struct dc *d) { rt_select_common(d, 0); }
static void rt_pselect6(struct dc *d) { rt_select_common(d, 1); }

struct __attribute__((packed)) k_epoll_event {
  uint32_t events;
  uint64_t data;
};

static void put_epoll_event1(struct ob *o, const struct k_epoll_event *ev) {
  ob_puts(o, "{events=");
  put_flags(o, sc_epoll_events, ev->events, "0");
  ob_printf(o, ", data={u32=%u, u64=%llu}}", (uint32_t)ev->data, (unsigned long long)ev->data);
}

static void ex_epoll_wait(struct dc *d) { /* epoll_wait(epfd, events, maxevents, timeout) */
  struct k_epoll_event ev[SC_ARRAY_MAX];
  next(d);
  if (!OUT_OK(d) || d->ret <= 0) {
    if (OUT_OK(d) && A(1))
      ob_puts(d->o, "[]");
    else
      put_addr(d->o, A(1));
  } else {
    size_t n = (uint64_t)d->ret > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)d->ret;
    if (!mem_full(d, A(1), ev, n * sizeof ev[0])) {
      put_addr(d->o, A(1));
    } else {
      ob_putc(d->o, '[');
      for (size_t i = 0; i < n; i++) {
        if (i) ob_puts(d->o, ", ");
        put_epoll_event1(d->o, &ev[i]);
      }
      if ((uint64_t)d->ret > n) ob_puts(d->o, ", ...");
      ob_putc(d->o, ']');
    }
  }
  next(d);
  put_int(d->o, A(2));
  next(d);
  put_int(d->o, A(3));
}
static void ex_epoll_pwait(struct dc *d) { /* + sigmask, sigsetsize */
  ex_epoll_wait(d);
  next(d);
  put_sigset(d, A(4), A(5));
  next(d);
  put_ulong(d->o, A(5));
}
static void en_epoll_ctl(struct dc *d) { /* epoll_ctl(epfd, op, fd, event) */
  struct k_epoll_event ev;
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_epoll_ctl_ops, (uint32_t)A(1), XSDEC);
  next(d);
  put_fd(d, A(2));
  next(d);
  if (!A(3))
    ob_puts(d->o, "NULL");
  else if (!mem_full(d, A(3), &ev, sizeof ev))
    put_addr(d->o, A(3));
  else
    put_epoll_event1(d->o, &ev);
}
static void en_epoll_create1(struct dc *d) {
  put_flags(d->o, sc_epoll_create_flags, (uint32_t)A(0), "0");
}

/* ---- misc fd calls ---- */
static void en_fd_long(struct dc *d) { /* ftruncate(fd, length) */
  put_fd(d, A(0));
  next(d);
  put_long(d->o, A(1));
}
static void en_getdents(struct dc *d) { /* getdents64(fd, dirp, count) */
  put_fd(d, A(0));
  next(d);
  put_addr(d->o, A(1));
  next(d);
  put_ulong(d->o, A(2));
}

/* ======================================================================== */
/* 5. Dispatch table                                                         */
/* ======================================================================== */
typedef void (*sc_fn)(struct dc *d);

enum { RV_DEC = 0, RV_HEX = 1 };

struct sc_desc {
  int nr;
  const char *name;
  int nargs;     /* the kernel's arity for this syscall */
  int rv;        /* return format when no rt_ hook: RV_DEC / RV_HEX */
  sc_fn entry;   /* arguments known at the entry stop */
  sc_fn exit;    /* out-parameters and what follows them, at the exit stop */
  sc_fn ret;     /* a successful return value, when a plain number won't do */
};

#define D(n, na, rv, en, ex, rt) [__NR_##n] = {__NR_##n, #n, na, rv, en, ex, rt}
#define NOARGS(n) D(n, 0, RV_DEC, NULL, NULL, NULL)

static const struct sc_desc descs[] = {
    /* file I/O */
    D(read, 3, RV_DEC, en_read, NULL, rt_readbuf),
    D(write, 3, RV_DEC, en_write, NULL, NULL),
    D(pread64, 4, RV_DEC, en_pread, NULL, rt_readbuf),
    D(pwrite64, 4, RV_DEC, en_pwrite, NULL, NULL),
    D(readv, 3, RV_DEC, en_readv, NULL, rt_readv),
    D(writev, 3, RV_DEC, en_writev, NULL, NULL),
    D(preadv, 5, RV_DEC, en_preadv, NULL, rt_readv),
    D(pwritev, 5, RV_DEC, en_pwritev, NULL, NULL),
#ifdef __NR_open /* not on every arch (AArch64 has only the *at forms) */
    D(open, 3, RV_DEC, en_open, NULL, NULL),
#endif
    D(openat, 4, RV_DEC, en_openat, NULL, NULL),
#ifdef __NR_creat
    D(creat, 2, RV_DEC, en_path_mode, NULL, NULL),
#endif
    D(close, 1, RV_DEC, en_close, NULL, NULL),
#ifdef __NR_stat
    D(stat, 2, RV_DEC, en_path, ex_stat1, NULL),
#endif
#ifdef __NR_lstat
    D(lstat, 2, RV_DEC, en_path, ex_stat1, NULL),
#endif
    D(fstat, 2, RV_DEC, en_fd, ex_stat1, NULL),
    D(newfstatat, 4, RV_DEC, en_dirfd_path, ex_newfstatat, NULL),
    D(statx, 5, RV_DEC, en_statx, ex_statx, NULL),
#ifdef __NR_access
    D(access, 2, RV_DEC, en_access, NULL, NULL),
#endif
    D(faccessat, 3, RV_DEC, en_faccessat, NULL, NULL),
    D(faccessat2, 4, RV_DEC, en_faccessat2, NULL, NULL),
    D(lseek, 3, RV_DEC, en_lseek, NULL, NULL),
    D(ftruncate, 2, RV_DEC, en_fd_long, NULL, NULL),
    D(fsync, 1, RV_DEC, en_fd, NULL, NULL),
    D(fdatasync, 1, RV_DEC, en_fd, NULL, NULL),
    D(getdents64, 3, RV_DEC, en_getdents, NULL, NULL),
    /* memory */
    D(mmap, 6, RV_HEX, en_mmap, NULL, NULL),
    D(mprotect, 3, RV_DEC, en_mprotect, NULL, NULL),
    D(munmap, 2, RV_DEC, en_addr_len, NULL, NULL),
    D(brk, 1, RV_HEX, en_addr, NULL, NULL),
    /* processes */
    D(clone, 5, RV_DEC, en_clone, NULL, NULL),
    D(clone3, 2, RV_DEC, en_clone3, NULL, NULL),
#ifdef __NR_fork
    NOARGS(fork),
#endif
#ifdef __NR_vfork
    NOARGS(vfork),
#endif
    D(execve, 3, RV_DEC, en_execve, NULL, NULL),
    D(execveat, 5, RV_DEC, en_execveat, NULL, NULL),
    D(exit, 1, RV_DEC, en_int, NULL, NULL),
    D(exit_group, 1, RV_DEC, en_int, NULL, NULL),
    D(wait4, 4, RV_DEC, en_int, ex_wait4, NULL),
    D(set_tid_address, 1, RV_DEC, en_addr, NULL, NULL),
    D(set_robust_list, 2, RV_DEC, en_addr_len, NULL, NULL),
#ifdef __NR_arch_prctl
    D(arch_prctl, 2, RV_DEC, en_arch_prctl, ex_arch_prctl, NULL),
#endif
    D(prlimit64, 4, RV_DEC, en_prlimit64, ex_prlimit64, NULL),
    D(getrandom, 3, RV_DEC, NULL, ex_getrandom, NULL),
    NOARGS(getpid),
    NOARGS(gettid),
    NOARGS(getppid),
    NOARGS(getuid),
    NOARGS(geteuid),
    NOARGS(getgid),
    NOARGS(getegid),
#ifdef __NR_getpgrp
    NOARGS(getpgrp),
#endif
    NOARGS(setsid),
    NOARGS(sched_yield),
#ifdef __NR_pause
    NOARGS(pause),
#endif
    NOARGS(sync),
    NOARGS(munlockall),
    NOARGS(vhangup),
#ifdef __NR_inotify_init
    NOARGS(inotify_init),
#endif
    NOARGS(rt_sigreturn),
    NOARGS(restart_syscall),
    /* signals */
    D(rt_sigaction, 4, RV_DEC, en_rt_sigaction, ex_rt_sigaction, NULL),
    D(rt_sigprocmask, 4, RV_DEC, en_rt_sigprocmask, ex_rt_sigprocmask, NULL),
    D(kill, 2, RV_DEC, en_kill, NULL, NULL),
    D(tkill, 2, RV_DEC, en_kill, NULL, NULL),
    D(tgkill, 3, RV_DEC, en_tgkill, NULL, NULL),
    /* time */
    D(nanosleep, 2, RV_DEC, en_nanosleep, ex_nanosleep, NULL),
    D(clock_nanosleep, 4, RV_DEC, en_clock_nanosleep, ex_clock_nanosleep, NULL),
    /* fd control */
    D(ioctl, 3, RV_DEC, en_ioctl, ex_ioctl, NULL),
    D(fcntl, 3, RV_DEC, en_fcntl, ex_fcntl, rt_fcntl),
    D(futex, 6, RV_DEC, en_futex, NULL, NULL),
#ifdef __NR_pipe
    D(pipe, 1, RV_DEC, NULL, ex_pipe, NULL),
#endif
    D(pipe2, 2, RV_DEC, NULL, ex_pipe2, NULL),
    D(dup, 1, RV_DEC, en_fd, NULL, NULL),
#ifdef __NR_dup2
    D(dup2, 2, RV_DEC, en_dup2, NULL, NULL),
#endif
    D(dup3, 3, RV_DEC, en_dup3, NULL, NULL),
    /* sockets */
    D(socket, 3, RV_DEC, en_socket, NULL, NULL),
    D(connect, 3, RV_DEC, en_connect, NULL, NULL),
    D(bind, 3, RV_DEC, en_connect, NULL, NULL),
    D(listen, 2, RV_DEC, en_fd_int, NULL, NULL),
    D(accept, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(accept4, 4, RV_DEC, en_sock_result, ex_accept4, NULL),
    D(getsockname, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(getpeername, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(sendto, 6, RV_DEC, en_sendto, NULL, NULL),
    D(recvfrom, 6, RV_DEC, en_recvfrom, ex_recvfrom, rt_readbuf),
    D(shutdown, 2, RV_DEC, en_shutdown, NULL, NULL),
    /* paths */
#ifdef __NR_unlink
    D(unlink, 1, RV_DEC, en_path, NULL, NULL),
#endif
    D(unlinkat, 3, RV_DEC, en_unlinkat, NULL, NULL),
#ifdef __NR_rmdir
    D(rmdir, 1, RV_DEC, en_path, NULL, NULL),
#endif
#ifdef __NR_mkdir
    D(mkdir, 2, RV_DEC, en_path_mode, NULL, NULL),
#endif
    D(mkdirat, 3, RV_DEC, en_mkdirat, NULL, NULL),
#ifdef __NR_rename
    D(rename, 2, RV_DEC, en_rename, NULL, NULL),
#endif
    D(renameat, 4, RV_DEC, en_renameat, NULL, NULL),
    D(renameat2, 5, RV_DEC, en_renameat2, NULL, NULL),
    D(chdir, 1, RV_DEC, en_path, NULL, NULL),
    D(fchdir, 1, RV_DEC, en_fd, NULL, NULL),
#ifdef __NR_readlink
    D(readlink, 3, RV_DEC, en_path, ex_readlink, NULL),
#endif
    D(readlinkat, 4, RV_DEC, en_dirfd_path, ex_readlinkat, NULL),
    D(getcwd, 2, RV_DEC, NULL, ex_getcwd, NULL),
    /* readiness */
#ifdef __NR_poll
    D(poll, 3, RV_DEC, en_poll, NULL, rt_poll),
#endif
    D(ppoll, 5, RV_DEC, en_ppoll, NULL, rt_poll),
#ifdef __NR_select
    D(select, 5, RV_DEC, en_select, NULL, rt_select),
#endif
    D(pselect6, 6, RV_DEC, en_pselect6, NULL, rt_pselect6),
#ifdef __NR_epoll_wait
    D(epoll_wait, 4, RV_DEC, en_fd, ex_epoll_wait, NULL),
#endif
    D(epoll_pwait, 6, RV_DEC, en_fd, ex_epoll_pwait, NULL),
    D(epoll_ctl, 4, RV_DEC, en_epoll_ctl, NULL, NULL),
#ifdef __NR_epoll_create
    D(epoll_create, 1, RV_DEC, en_int, NULL, NULL),
#endif
    D(epoll_create1, 1, RV_DEC, en_epoll_create1, NULL, NULL),
};

#define NDESCS ((int64_t)(sizeof descs / sizeof descs[0]))

static const struct sc_desc *lookup(int64_t nr) {
  if (nr < 0 || nr >= NDESCS || !descs[nr].name) return NULL;
  return &descs[nr];
}

/* ======================================================================== */
/* Public API                                                                */
/* ======================================================================== */
int sc_is_error(int64_t ret) { return ret >= -4095 && ret <= -1; }

int sc_nargs(int64_t nr) {
  const struct sc_desc *s = lookup(nr);
  return s ? s->nargs : -1;
}

const char *sc_errno_name(int err) { return sc_errno_table_name(err); }

const char *sc_name(const struct sc_env *env, int64_t nr, char *buf, size_t cap) {
  const char *n = NULL;
  if (env && env->syscall_name) n = env->syscall_name(env->ctx, nr);
  if (!n) {
    const struct sc_desc *s = lookup(nr);
    if (s) n = s->name;
  }
  if (n) return n;
  if (buf && cap) {
    snprintf(buf, cap, "syscall_%#llx", (unsigned long long)nr);
    return buf;
  }
  return "syscall_?";
}

/* -1 ENOENT (No such file or directory); the kernel's restart codes the way
 * strace shows them: ? ERESTARTSYS (To be restarted if SA_RESTART is set). */
static void put_error(struct ob *o, int64_t ret) {
  int e = (int)-ret;
  const char *restart = NULL;
  switch (e) {
  case 512: restart = "To be restarted if SA_RESTART is set"; break;
  case 513: restart = "To be restarted"; break;
  case 514: restart = "To be restarted if no handler"; break;
  case 516: restart = "Interrupted by signal"; break;
  default: break;
  }
  const char *name = sc_errno_name(e);
  if (restart) {
    ob_printf(o, "? %s (%s)", name, restart);
    return;
  }
  if (name)
    ob_printf(o, "-1 %s (", name);
  else
    ob_printf(o, "-1 ERRNO_%d (", e);
  const char *desc = strerrordesc_np(e);
  if (desc)
    ob_puts(o, desc);
  else
    ob_printf(o, "Unknown error %d", e);
  ob_putc(o, ')');
}

static void put_ret(struct dc *d, const struct sc_desc *s) {
  if (d->failed)
    put_error(d->o, d->ret);
  else if (s && s->ret)
    s->ret(d);
  else if (s && s->rv == RV_HEX)
    put_xnum(d->o, (uint64_t)d->ret);
  else
    put_long(d->o, (uint64_t)d->ret);
}

void sc_enter(const struct sc_env *env, struct sc_call *c, int64_t nr, const uint64_t args[6]) {
  if (!c) return;
  c->nr = nr;
  for (int i = 0; i < 6; i++) c->args[i] = args ? args[i] : 0;
  c->ncarried = 0;
  for (int i = 0; i < SC_MAX_CARRIED; i++) {
    c->carried[i][0] = '\0';
    c->carried_len[i] = 0;
    c->carried_more[i] = 0;
  }
  c->priv_savedok = 0;
  c->priv_saved[0] = c->priv_saved[1] = 0;

  struct ob o;
  ob_init(&o, c->text, sizeof c->text);
  struct dc d = {.env = env, .c = c, .o = &o};
  char nbuf[32];
  ob_puts(&o, sc_name(env, nr, nbuf, sizeof nbuf));
  ob_putc(&o, '(');
  const struct sc_desc *s = lookup(nr);
  if (!s) /* not modelled: three raw words, no claim about the arity */
    ob_printf(&o, "0x%llx, 0x%llx, 0x%llx, ...", (unsigned long long)c->args[0],
              (unsigned long long)c->args[1], (unsigned long long)c->args[2]);
  else if (s->entry)
    s->entry(&d);
  c->priv_textlen = (uint32_t)o.len;
  c->priv_magic = SC_MAGIC;
}

/* Shared tail of sc_exit / sc_unfinished. */
static void finish_line(const struct sc_env *env, struct sc_call *c, int have_ret, int64_t ret,
                        char *line, size_t cap) {
  struct ob o;
  ob_init(&o, line, cap);
  if (c->priv_magic != SC_MAGIC) { /* no entry seen (attached mid-call) */
    char nbuf[32];
    ob_puts(&o, sc_name(env, c->nr, nbuf, sizeof nbuf));
    ob_puts(&o, "(...) = ");
    if (!have_ret)
      ob_putc(&o, '?');
    else if (sc_is_error(ret))
      put_error(&o, ret);
    else
      put_long(&o, (uint64_t)ret);
    ob_finish(&o);
    return;
  }
  ob_putn(&o, c->text, strnlen(c->text, sizeof c->text));
  const struct sc_desc *s = lookup(c->nr);
  struct dc d = {.env = env, .c = c, .o = &o, .have_ret = have_ret,
                 .failed = have_ret && sc_is_error(ret), .ret = ret};
  if (s && s->exit) s->exit(&d);
  ob_puts(&o, ") = ");
  if (have_ret)
    put_ret(&d, s);
  else
    ob_putc(&o, '?');
  ob_finish(&o);
  c->priv_magic = 0; /* a second exit for the same entry is not this call */
}

void sc_exit(const struct sc_env *env, struct sc_call *c, int64_t ret, char *line, size_t cap) {
  if (!c || !line || !cap) return;
  finish_line(env, c, 1, ret, line, cap);
}

void sc_unfinished(struct sc_call *c, char *line, size_t cap) {
  if (!c || !line || !cap) return;
  finish_line(NULL, c, 0, 0, line, cap);
}
