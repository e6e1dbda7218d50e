/* common/ctl_escape.h — control bytes rendered visibly, in one place.
 *
 * Two renderings share this code:
 *   - --log's quoted strings (views/syslog/sc_decode.c), strace's rules:
 *     \n \t \r \v \f by name, any other byte outside 0x20..0x7e in octal,
 *     widened to three digits when an octal digit follows ("\0" then "1"
 *     must not read as "\01");
 *   - the human text channel (host/output.c for every view's text and note,
 *     asmspy --replay, asmtrace-check's summary): text that carries names a
 *     target chose (a /tmp/perf-<pid>.map line, an ELF symbol) or a
 *     recording's text must never reach a terminal as raw control bytes. C0
 *     controls, DEL, the C1 controls (U+0080..U+009F: U+009B is CSI to many
 *     terminals) and bytes that are not well-formed UTF-8 become \xNN
 *     (\t \r \v \f by name); '\n', the separator of a multi-line text, is
 *     kept when asked. The Unicode bidi controls (U+061C, U+200E/F,
 *     U+202A..U+202E, U+2066..U+2069) reorder what a terminal shows (an
 *     RLO makes "evil\u202etxt.exe" read backwards) and become \uXXXX. Backslashes are not doubled: the channel is for
 *     people, and --log's text has already escaped its own.
 *
 * Header-only (static inline) because plugins never link the host; the host
 * and the tools include it from here. */
#ifndef ASMSPY_PLUGINS_COMMON_CTL_ESCAPE_H
#define ASMSPY_PLUGINS_COMMON_CTL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum ctl_esc_style {
  CTL_ESC_OCTAL, /* strace: \33, \033 before an octal digit */
  CTL_ESC_HEX,   /* \x1b */
};

#define CTL_ESC_MAX 4 /* longest escape of one byte: "\\377", "\\x1b" */

/* A C0 control or DEL. */
static inline int ctl_is_c0_or_del(unsigned char ch) { return ch < 0x20 || ch == 0x7f; }

/* ch as a C escape in out (NUL-terminated); returns its length. next is the
 * byte that follows (-1 at the end): OCTAL widens before an octal digit. */
static inline size_t ctl_escape_byte(char out[CTL_ESC_MAX + 1], unsigned char ch, int next,
                                     enum ctl_esc_style style) {
  static const char hex[] = "0123456789abcdef";
  char named = 0;
  switch (ch) {
  case '\n': named = 'n'; break;
  case '\t': named = 't'; break;
  case '\r': named = 'r'; break;
  case '\v': named = 'v'; break;
  case '\f': named = 'f'; break;
  default: break;
  }
  size_t n = 0;
  out[n++] = '\\';
  if (named) {
    out[n++] = named;
  } else if (style == CTL_ESC_HEX) {
    out[n++] = 'x';
    out[n++] = hex[ch >> 4];
    out[n++] = hex[ch & 15];
  } else {
    int wide = next >= '0' && next <= '7';
    if (wide || ch >= 0100) out[n++] = (char)('0' + (ch >> 6));
    if (wide || ch >= 010) out[n++] = (char)('0' + ((ch >> 3) & 7));
    out[n++] = (char)('0' + (ch & 7));
  }
  out[n] = '\0';
  return n;
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (1..4), 0 if none
 * (a stray continuation byte, an overlong form, a surrogate, > U+10FFFF, a
 * sequence cut short). */
static inline size_t ctl_utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xbf) return 0;
  return len;
}

/* The bidi control at s[0..len) (a well-formed sequence of len bytes): its
 * code point, or 0. */
static inline unsigned ctl_bidi_control(const unsigned char *s, size_t len) {
  if (len == 2 && s[0] == 0xd8 && s[1] == 0x9c) return 0x061c; /* ALM */
  if (len != 3 || s[0] != 0xe2) return 0;
  unsigned cp = 0x2000u | ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3fu);
  if (cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069))
    return cp;
  return 0;
}

/* How many bytes at s[0..n) form one unit that must be escaped (the C0/DEL
 * byte, the two bytes of a C1 control, a bidi control's two or three bytes,
 * one byte of broken UTF-8), or 0 when the unit at s is fine; *unit gets
 * the unit's length either way. */
static inline size_t ctl_text_unit(const unsigned char *s, size_t n, int keep_nl, size_t *unit) {
  unsigned char c = s[0];
  *unit = 1;
  if (c == '\n') return keep_nl ? 0 : 1;
  if (ctl_is_c0_or_del(c)) return 1;
  if (c < 0x80) return 0;
  size_t len = ctl_utf8_len(s, n);
  if (!len) return 1;
  *unit = len;
  if (len == 2 && c == 0xc2 && s[1] < 0xa0) return 2; /* U+0080..U+009F */
  if (ctl_bidi_control(s, len)) return len;
  return 0;
}

#define CTL_ESC_UNIT_MAX (CTL_ESC_MAX * 2) /* one unit's escape: "\\xc2\\x9b", "\\u202e" */

/* The escape of one unit ctl_text_unit called bad (bad bytes at s) in out
 * (NUL-terminated): a bidi control as \uXXXX, anything else byte by byte
 * as \xNN. Returns its length. */
static inline size_t ctl_escape_unit(char out[CTL_ESC_UNIT_MAX + 1], const unsigned char *s,
                                     size_t bad) {
  unsigned cp = ctl_bidi_control(s, bad);
  if (cp) return (size_t)snprintf(out, CTL_ESC_UNIT_MAX + 1, "\\u%04x", cp);
  size_t n = 0;
  for (size_t k = 0; k < bad && n + CTL_ESC_MAX <= CTL_ESC_UNIT_MAX; k++)
    n += ctl_escape_byte(out + n, s[k], -1, CTL_ESC_HEX);
  out[n] = '\0';
  return n;
}

/* Copy s[0..n) to dst (cap bytes, always NUL-terminated when cap > 0) with
 * every control rendered as CTL_ESC_HEX; an escape that does not fit is
 * left out whole. Returns the full length the rendering needs (without the
 * NUL): == n exactly when s needs no change. dst may be NULL (cap 0) to
 * measure. */
static inline size_t ctl_text_sanitize(char *dst, size_t cap, const char *src, size_t n,
                                       int keep_nl) {
  const unsigned char *s = (const unsigned char *)src;
  size_t need = 0, w = 0;
  int full = cap == 0;
  /* The common case, plain printable ASCII: copied in one go (a call log
   * prints millions of lines through here). */
  size_t clean = 0;
  while (clean < n && ((s[clean] >= 0x20 && s[clean] < 0x7f) || (keep_nl && s[clean] == '\n')))
    clean++;
  if (clean && cap) {
    size_t k = clean < cap - 1 ? clean : cap - 1;
    memcpy(dst, s, k);
    w = k;
    full = k < clean;
  }
  need = clean;
  for (size_t i = clean; i < n;) {
    size_t unit, bad = ctl_text_unit(s + i, n - i, keep_nl, &unit);
    char esc[CTL_ESC_UNIT_MAX + 1];
    size_t elen = bad ? ctl_escape_unit(esc, s + i, bad) : 0;
    size_t add = bad ? elen : unit;
    if (!full && w + add < cap) {
      for (size_t k = 0; k < add; k++) dst[w++] = bad ? esc[k] : (char)s[i + k];
    } else {
      full = 1;
    }
    need += add;
    i += unit;
  }
  if (cap) dst[w] = '\0';
  return need;
}

/* The first byte of s[0..n) that ctl_text_sanitize would escape: its offset,
 * or n when there is none. */
static inline size_t ctl_text_first_control(const char *src, size_t n, int keep_nl) {
  const unsigned char *s = (const unsigned char *)src;
  size_t i = 0;
  /* 8 bytes a step while they are all printable ASCII (or '\n' when kept):
   * per-byte compares without carries between bytes (each byte's low 7
   * bits plus a constant stays below 0x100); a word with another byte, or
   * the tail, byte by byte */
  const unsigned long long low7 = 0x7f7f7f7f7f7f7f7full, high = 0x8080808080808080ull,
                           ones = 0x0101010101010101ull;
  for (;;) {
    while (i + 8 <= n) {
      unsigned long long v, nl;
      memcpy(&v, s + i, 8);
      unsigned long long below = ~(((v & low7) + ones * 0x60) | v) & high; /* < 0x20 */
      unsigned long long above = (((v & low7) + ones) | v) & high;         /* >= 0x7f */
      if (keep_nl) {
        nl = v ^ (ones * '\n');
        below &= ((nl & low7) + low7) | nl; /* not '\n' */
      }
      if (below | above) break;
      i += 8;
    }
    size_t stop = i + 8 < n ? i + 8 : n;
    while (i < stop && ((s[i] >= 0x20 && s[i] < 0x7f) || (keep_nl && s[i] == '\n'))) i++;
    if (i < stop || i >= n) break; /* a byte to look at closer, or the end */
  }
  while (i < n) {
    size_t unit;
    if (ctl_text_unit(s + i, n - i, keep_nl, &unit)) return i;
    i += unit;
  }
  return n;
}

/* ctl_text_sanitize straight to a stream. */
static inline void ctl_text_fput(FILE *f, const char *src, size_t n, int keep_nl) {
  const unsigned char *s = (const unsigned char *)src;
  size_t run = 0; /* start of the pending unescaped run */
  for (size_t i = 0; i < n;) {
    size_t unit, bad = ctl_text_unit(s + i, n - i, keep_nl, &unit);
    if (bad) {
      if (i > run) fwrite(s + run, 1, i - run, f);
      char esc[CTL_ESC_UNIT_MAX + 1];
      fwrite(esc, 1, ctl_escape_unit(esc, s + i, bad), f);
      run = i + unit;
    }
    i += unit;
  }
  if (n > run) fwrite(s + run, 1, n - run, f);
}

#endif
