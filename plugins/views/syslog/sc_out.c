/* sc_out.c — the output buffer, bounded target-memory reads and the shared put_* primitives
 * (numbers, flags, quoted strings, paths, buffers, fds, addresses).
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include "common/ctl_escape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================== */
/* 1. Output buffer                                                          */
/* ======================================================================== */
void ob_init(struct ob *o, char *p, size_t cap) {
  o->p = p;
  o->cap = cap;
  o->len = 0;
  o->over = 0;
  o->strace = 0;
  if (cap) p[0] = '\0';
}

void ob_putn(struct ob *o, const char *s, size_t n) {
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

void ob_puts(struct ob *o, const char *s) { ob_putn(o, s, strlen(s)); }
void ob_putc(struct ob *o, char ch) { ob_putn(o, &ch, 1); }

__attribute__((format(printf, 2, 3))) void ob_printf(struct ob *o, const char *fmt, ...) {
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
void ob_finish(struct ob *o) {
  if (o->over && o->cap >= 4) {
    memcpy(o->p + o->cap - 4, "...", 4);
    o->len = o->cap - 1;
  }
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
int mem_full(const struct dc *d, uint64_t addr, void *buf, size_t len) {
  return mem_raw(d, addr, buf, len) == (ssize_t)len;
}

/* As many leading bytes as are readable (a string may end just before an
 * unmapped page): one read, then page-sized pieces if that came up short. */
size_t mem_upto(const struct dc *d, uint64_t addr, void *buf, size_t len) {
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
void put_addr(struct ob *o, uint64_t v) {
  if (v)
    ob_printf(o, "%#llx", (unsigned long long)v);
  else
    ob_puts(o, "NULL");
}
void put_xnum(struct ob *o, uint64_t v) { ob_printf(o, "%#llx", (unsigned long long)v); }
void put_int(struct ob *o, uint64_t v) { ob_printf(o, "%d", (int)v); }
void put_uint(struct ob *o, uint64_t v) { ob_printf(o, "%u", (unsigned)v); }
void put_long(struct ob *o, uint64_t v) { ob_printf(o, "%lld", (long long)v); }
void put_ulong(struct ob *o, uint64_t v) { ob_printf(o, "%llu", (unsigned long long)v); }
/* umode_t: 16 bits whatever the register held above them (strace: %#03o) */
void put_octmode(struct ob *o, uint64_t v) { ob_printf(o, "%#03o", (unsigned)(uint16_t)v); }

/* printxval: the name of v, else the number. */
void put_xval(struct ob *o, const struct sc_xlat *x, uint64_t v, enum xfmt f) {
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
void put_flags_tail(struct ob *o, const struct sc_xlat *x, uint64_t v, int first) {
  const struct sc_xlat *x0 = x;
  int none = first; /* no name printed yet */
  for (; x && x->name && v; x++) {
    if (x->val && (v & x->val) == x->val) {
      if (!first) ob_putc(o, '|');
      ob_puts(o, x->name);
      v &= ~x->val;
      first = 0;
    }
  }
  none = none && first;
  if (v) {
    if (!first) ob_putc(o, '|');
    put_xnum(o, v);
    /* strace marks bits no name covers when no name matched at all:
     * 0x800 / * SA_??? * / (the table's prefix, up to its first '_') */
    if (o->strace && none && x0 && x0->name) {
      const char *us = strchr(x0->name, '_');
      if (us) ob_printf(o, " /* %.*s_??? */", (int)(us - x0->name), x0->name);
    }
  }
}

/* printflags: NAME|NAME|0x<unknown>, or zero_name (default "0") for 0. */
void put_flags(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *zero_name) {
  if (!v)
    ob_puts(o, zero_name ? zero_name : "0");
  else
    put_flags_tail(o, x, v, 1);
}

/* A field value (v & mask) by name, then the other bits as flags. */
void put_field_flags(struct ob *o, const struct sc_xlat *field, uint64_t mask,
                     const struct sc_xlat *flags, uint64_t v) {
  put_xval(o, field, v & mask, XHEX);
  put_flags_tail(o, flags, v & ~mask, 0);
}

/* C-escaped, quoted (strace's rules: octal escapes widened to three digits
 * when a digit follows). hex: 0 never; 1 (strace -x) the whole string in
 * \xNN when any byte is neither printable ASCII nor \t\n\v\f\r; 2 (-xx,
 * PUT_HEX) always. */
void put_quoted(struct ob *o, const unsigned char *s, size_t n, int hex) {
  int usehex = hex >= 2;
  for (size_t i = 0; hex == 1 && i < n && !usehex; i++)
    usehex = s[i] > 0x7e || (s[i] < 0x20 && (s[i] < 9 || s[i] > 13));
  ob_putc(o, '"');
  for (size_t i = 0; i < n && !o->over; i++) {
    unsigned char ch = s[i];
    if (usehex) {
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
void carry(struct dc *d, const void *p, size_t n, int more) {
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

/* The bytes of a string argument shown before "...": --string-limit, else
 * the style's default. */
static size_t str_limit(const struct dc *d) {
  return d->c->priv_strlim ? d->c->priv_strlim : SC_STR_MAX;
}

/* A NUL-terminated string of at most lim bytes shown: "text", "text"...
 * when longer (or running into unreadable memory), the address when
 * nothing can be read. */
static void put_cstr(struct dc *d, uint64_t addr, size_t lim) {
  char stackbuf[SC_STR_MAX + 1];
  static __thread char bigbuf[SC_PATH_MAX + 1];
  char *buf = lim < sizeof stackbuf ? stackbuf : bigbuf;
  if (lim > SC_PATH_MAX) lim = SC_PATH_MAX;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  size_t got = mem_upto(d, addr, buf, lim + 1);
  if (!got) {
    put_addr(d->o, addr);
    return;
  }
  const char *nul = memchr(buf, '\0', got);
  size_t len = nul ? (size_t)(nul - buf) : (got > lim ? lim : got);
  int more = !nul; /* longer than the cap, or runs into unreadable memory */
  put_quoted(d->o, (const unsigned char *)buf, len, dc_hex(d));
  if (more) ob_puts(d->o, "...");
  carry(d, buf, len, more);
}

/* A path: whole up to SC_PATH_MAX in strace mode (strace does not cut
 * paths at -s), SC_STR_MAX bytes in the house style. */
void put_path(struct dc *d, uint64_t addr) {
  put_cstr(d, addr, dc_strace(d) ? SC_PATH_MAX : SC_STR_MAX);
}

/* Any other NUL-terminated string: cut at --string-limit. */
void put_str(struct dc *d, uint64_t addr) { put_cstr(d, addr, str_limit(d)); }

/* A counted buffer (write data, read data): up to --string-limit bytes. */
void put_buf(struct dc *d, uint64_t addr, uint64_t len, int how) {
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
  size_t lim = str_limit(d);
  if (lim > sizeof buf) lim = sizeof buf;
  size_t want = len > lim ? lim : (size_t)len;
  size_t got = mem_upto(d, addr, buf, want);
  if (!got) {
    put_addr(d->o, addr);
    return;
  }
  int more = got < len;
  put_quoted(d->o, buf, got, (how & PUT_HEX) ? 2 : dc_hex(d));
  if (more) ob_puts(d->o, "...");
  if (how & PUT_CARRY) carry(d, buf, got, more);
}

/* fd=N<description> (described at entry: close/dup2 may remove it). */
void put_fd_as(struct dc *d, uint64_t v, int describe) {
  int fd = (int)v;
  struct ob *o = d->o;
  if (fd < 0) {
    ob_printf(o, "%d", fd);
    return;
  }
  ob_printf(o, dc_strace(d) ? "%d" : "fd=%d", fd);
  if (!describe || !dc_fdpaths(d) || !d->env || !d->env->describe_fd) return;
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
void put_fd(struct dc *d, uint64_t v) { put_fd_as(d, v, 1); }

void put_dirfd(struct dc *d, uint64_t v) {
  if ((int)v == AT_FDCWD)
    ob_puts(d->o, "AT_FDCWD");
  else
    put_fd(d, v);
}

/* A 32-bit int the target points at: [N]. */
void put_intptr(struct dc *d, uint64_t addr) {
  int32_t v;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (mem_full(d, addr, &v, sizeof v))
    ob_printf(d->o, "[%d]", v);
  else
    put_addr(d->o, addr);
}

/* ==== issue 26 part B: shared printers ==================================== */
/* printxval with strace's default: the name, else the number in hex and, in
 * strace mode, the comment naming the table (0x63 / * CLOCK_??? * /); the
 * house style prints an unnamed value in decimal. */
void put_xval_q(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *dflt) {
  const char *n = sc_xlat_name(x, v);
  if (n) {
    ob_puts(o, n);
    return;
  }
  if (!o->strace) { /* the house style: the number as the kernel reads it */
    put_int(o, v);
    return;
  }
  put_xnum(o, v);
  if (dflt) ob_printf(o, " /* %s */", dflt);
}

/* printflags with an explicit default comment ("MSG_???"): as put_flags. */
void put_flags_q(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *dflt) {
  if (!v) {
    ob_putc(o, '0');
    return;
  }
  uint64_t rest = v;
  int n = 0;
  for (; x && x->name && rest; x++) {
    if (x->val && (rest & x->val) == x->val) {
      if (n++) ob_putc(o, '|');
      ob_puts(o, x->name);
      rest &= ~x->val;
    }
  }
  if (!rest) return;
  if (n) ob_putc(o, '|');
  put_xnum(o, rest);
  if (!n && o->strace && dflt) ob_printf(o, " /* %s */", dflt);
}

/* An errno value by name (strace's print_err): 0, EAGAIN, else the number. */
void put_errno_val(struct ob *o, int64_t e) {
  const char *n = e > 0 ? sc_errno_table_name((int)e) : NULL;
  if (n)
    ob_puts(o, n);
  else
    ob_printf(o, "%lld", (long long)e);
}
