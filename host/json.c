/* json.c — JSON string escaping (the writer side of every NDJSON line asmspy
 * emits) and a strict, defensive RFC 8259 parser (the reader side, used by the
 * .asmtrace reader/validator). See json.h for the exact rules. */
#define _GNU_SOURCE
#include "json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ========================================================================= */
/* UTF-8                                                                      */
/* ========================================================================= */

/* Length of the well-formed UTF-8 sequence at p (avail bytes available), or 0
 * when the bytes there are not one (Unicode 15, table 3-7). */
static size_t utf8_seq_len(const unsigned char *p, size_t avail) {
  if (avail == 0) return 0;
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0)
      lo = 0xA0; /* no overlongs */
    else if (c == 0xED)
      hi = 0x9F; /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0)
      lo = 0x90; /* no overlongs */
    else if (c == 0xF4)
      hi = 0x8F; /* <= U+10FFFF */
  } else {
    return 0; /* continuation byte, C0/C1, F5..FF */
  }
  if (avail < n) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t k = 2; k < n; k++)
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  return n;
}

/* Encode code point cp (<= 0x10FFFF, not a surrogate) at out; returns length. */
static size_t utf8_put(char *out, uint32_t cp) {
  unsigned char *o = (unsigned char *)out;
  if (cp < 0x80) {
    o[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (unsigned char)(0xC0 | (cp >> 6));
    o[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (unsigned char)(0xE0 | (cp >> 12));
    o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (unsigned char)(0xF0 | (cp >> 18));
  o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* ========================================================================= */
/* Escaping                                                                   */
/* ========================================================================= */

static const char hexdig[] = "0123456789abcdef";

/* The escaped form of the input at s[i..len): writes up to 6 bytes to piece,
 * returns how many; *consumed gets how many input bytes it stands for. */
static size_t escape_piece(const unsigned char *s, size_t i, size_t len, char piece[6],
                           size_t *consumed) {
  unsigned char c = s[i];
  *consumed = 1;
  switch (c) {
  case '"':
    piece[0] = '\\';
    piece[1] = '"';
    return 2;
  case '\\':
    piece[0] = '\\';
    piece[1] = '\\';
    return 2;
  case '\b':
    piece[0] = '\\';
    piece[1] = 'b';
    return 2;
  case '\f':
    piece[0] = '\\';
    piece[1] = 'f';
    return 2;
  case '\n':
    piece[0] = '\\';
    piece[1] = 'n';
    return 2;
  case '\r':
    piece[0] = '\\';
    piece[1] = 'r';
    return 2;
  case '\t':
    piece[0] = '\\';
    piece[1] = 't';
    return 2;
  default: break;
  }
  if (c >= 0x20 && c < 0x7F) {
    piece[0] = (char)c;
    return 1;
  }
  if (c >= 0x80) {
    size_t n = utf8_seq_len(s + i, len - i);
    if (n) {
      memcpy(piece, s + i, n);
      *consumed = n;
      return n;
    }
  }
  /* control byte, DEL, or a byte outside any well-formed UTF-8 sequence */
  piece[0] = '\\';
  piece[1] = 'u';
  piece[2] = '0';
  piece[3] = '0';
  piece[4] = hexdig[c >> 4];
  piece[5] = hexdig[c & 0xF];
  return 6;
}

size_t json_escape(char *dst, size_t cap, const char *src, size_t len) {
  if (cap == 0 || !dst) return 0;
  const unsigned char *s = (const unsigned char *)src;
  if (!s) len = 0;
  size_t room = cap - 1, out = 0, i = 0;
  while (i < len) {
    char piece[6];
    size_t used;
    size_t n = escape_piece(s, i, len, piece, &used);
    if (n > room - out) break; /* never split an escape or a UTF-8 sequence */
    memcpy(dst + out, piece, n);
    out += n;
    i += used;
  }
  dst[out] = '\0';
  return out;
}

size_t json_escape_len(const char *src, size_t len) {
  const unsigned char *s = (const unsigned char *)src;
  if (!s) return 0;
  size_t out = 0, i = 0;
  while (i < len) {
    char piece[6];
    size_t used;
    out += escape_piece(s, i, len, piece, &used);
    i += used;
  }
  return out;
}

void strbuf_json_strn(struct strbuf *b, const char *s, size_t len) {
  size_t need = json_escape_len(s, len) + 1;
  char small[1024];
  char *tmp = need <= sizeof small ? small : malloc(need);
  if (!tmp) {
    b->oom = 1;
    return;
  }
  json_escape(tmp, need, s, len);
  strbuf_addf(b, "\"%s\"", tmp);
  if (tmp != small) free(tmp);
}

void strbuf_json_str(struct strbuf *b, const char *s) { strbuf_json_strn(b, s, strlen(s)); }

/* ========================================================================= */
/* Parser                                                                     */
/* ========================================================================= */

struct parser {
  const unsigned char *start, *p, *end;
  struct json_error *err;
};

static int fail_at(struct parser *ps, const unsigned char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(struct parser *ps, const unsigned char *where, const char *fmt, ...) {
  if (ps->err) {
    ps->err->offset = (size_t)(where - ps->start);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err->msg, sizeof ps->err->msg, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* An error about the byte at ps->p (or the end of input). */
static int fail_unexpected(struct parser *ps, const char *expecting) {
  if (ps->p >= ps->end)
    return fail_at(ps, ps->p, "unexpected end of input (expected %s)", expecting);
  unsigned char c = *ps->p;
  if (c > 0x20 && c < 0x7F)
    return fail_at(ps, ps->p, "unexpected character '%c' (expected %s)", c, expecting);
  return fail_at(ps, ps->p, "unexpected byte 0x%02x (expected %s)", c, expecting);
}

static void skip_ws(struct parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static void free_contents(struct json_value *v) {
  switch (v->type) {
  case JSON_STRING: free(v->u.str.s); break;
  case JSON_ARRAY:
    for (size_t i = 0; i < v->u.arr.n; i++) free_contents(&v->u.arr.items[i]);
    free(v->u.arr.items);
    break;
  case JSON_OBJECT:
    for (size_t i = 0; i < v->u.obj.n; i++) {
      free(v->u.obj.members[i].key);
      free_contents(&v->u.obj.members[i].value);
    }
    free(v->u.obj.members);
    break;
  default: break;
  }
  v->type = JSON_NULL;
}

/* Grow *buf (elements of size elt) so that it holds at least need elements. */
static int grow(void **buf, size_t *cap, size_t need, size_t elt) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 4;
  while (nc < need) {
    if (nc > SIZE_MAX / 2) return -1;
    nc *= 2;
  }
  if (nc > SIZE_MAX / elt) return -1;
  void *nb = realloc(*buf, nc * elt);
  if (!nb) return -1;
  *buf = nb;
  *cap = nc;
  return 0;
}

static int hex4(const unsigned char *p, uint32_t *out) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned char c = p[k];
    uint32_t d;
    if (c >= '0' && c <= '9')
      d = (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = (uint32_t)(c - 'A' + 10);
    else
      return -1;
    v = v << 4 | d;
  }
  *out = v;
  return 0;
}

/* The byte a one-character escape stands for (\" \\ \/ \b \f \n \r \t), or
 * -1 ('u' and anything else). */
static int simple_escape(unsigned char e) {
  switch (e) {
  case '"': return '"';
  case '\\': return '\\';
  case '/': return '/';
  case 'b': return '\b';
  case 'f': return '\f';
  case 'n': return '\n';
  case 'r': return '\r';
  case 't': return '\t';
  default: return -1;
  }
}

/* A \uXXXX escape at p (a surrogate pair takes two), decoded as UTF-8 into
 * buf + *n. Returns the bytes of input it took, or 0 after fail_at. */
static size_t u_escape(struct parser *ps, const unsigned char *p, const unsigned char *close,
                       char *buf, size_t *n) {
  uint32_t cp;
  if (close - p < 6 || hex4(p + 2, &cp) != 0)
    return fail_at(ps, p, "invalid \\u escape (needs 4 hex digits)"), 0;
  if (cp >= 0xDC00 && cp <= 0xDFFF)
    return fail_at(ps, p, "lone low surrogate \\u%04X", (unsigned)cp), 0;
  if (cp < 0xD800 || cp > 0xDBFF) {
    *n += utf8_put(buf + *n, cp);
    return 6;
  }
  uint32_t lo;
  if (close - p < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &lo) != 0 || lo < 0xDC00 ||
      lo > 0xDFFF)
    return fail_at(ps, p, "high surrogate \\u%04X not followed by a low surrogate", (unsigned)cp),
           0;
  cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
  *n += utf8_put(buf + *n, cp);
  return 12;
}

/* One unit of a string's body at p (an escape, an ASCII byte or a UTF-8
 * sequence) decoded into buf + *n. Returns the input bytes it took, or 0
 * after fail_at. */
static size_t string_unit(struct parser *ps, const unsigned char *p, const unsigned char *close,
                          char *buf, size_t *n) {
  unsigned char c = *p;
  if (c == '\\') {
    if (p + 1 >= close) return fail_at(ps, p, "invalid escape in string"), 0;
    if (p[1] == 'u') return u_escape(ps, p, close, buf, n);
    int e = simple_escape(p[1]);
    if (e < 0) return fail_at(ps, p, "invalid escape in string"), 0;
    buf[(*n)++] = (char)e;
    return 2;
  }
  if (c < 0x20) return fail_at(ps, p, "raw control byte 0x%02x in string (must be escaped)", c), 0;
  if (c < 0x80) {
    buf[(*n)++] = (char)c;
    return 1;
  }
  size_t k = utf8_seq_len(p, (size_t)(close - p));
  if (!k) return fail_at(ps, p, "invalid UTF-8 in string (byte 0x%02x)", c), 0;
  memcpy(buf + *n, p, k);
  *n += k;
  return k;
}

/* ps->p is at the opening quote. On success *out is a malloc'd NUL-terminated
 * decoded string and ps->p is past the closing quote. */
static int parse_string(struct parser *ps, char **out, size_t *out_len) {
  const unsigned char *open = ps->p;
  const unsigned char *q = open + 1;
  /* Pass 1: find the closing quote (the decoded text is never longer). */
  while (q < ps->end && *q != '"') {
    if (*q == '\\' && ps->end - q >= 2)
      q += 2; /* skip the escaped byte */
    else
      q++;
  }
  if (q >= ps->end) return fail_at(ps, open, "unterminated string");
  const unsigned char *close = q;
  char *buf = malloc((size_t)(close - open)); /* raw length - 1 quote + NUL */
  if (!buf) return fail_at(ps, open, "out of memory");
  size_t n = 0;
  /* Pass 2: decode */
  for (const unsigned char *p = open + 1; p < close;) {
    size_t took = string_unit(ps, p, close, buf, &n);
    if (!took) {
      free(buf);
      return -1;
    }
    p += took;
  }
  buf[n] = '\0';
  *out = buf;
  *out_len = n;
  ps->p = close + 1;
  return 0;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static int parse_number(struct parser *ps, struct json_value *out) {
  const unsigned char *s = ps->p, *p = ps->p, *e = ps->end;
  int neg = 0, integral = 1;
  if (p < e && *p == '-') {
    neg = 1;
    p++;
  }
  if (p >= e || *p < '0' || *p > '9') {
    ps->p = p;
    return fail_unexpected(ps, "a digit");
  }
  if (*p == '0') {
    p++;
    if (p < e && *p >= '0' && *p <= '9') return fail_at(ps, p - 1, "number with a leading zero");
  } else {
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && *p == '.') {
    integral = 0;
    p++;
    if (p >= e || *p < '0' || *p > '9') {
      ps->p = p;
      return fail_unexpected(ps, "a digit after '.'");
    }
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    integral = 0;
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || *p < '0' || *p > '9') {
      ps->p = p;
      return fail_unexpected(ps, "a digit in the exponent");
    }
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  size_t nlen = (size_t)(p - s);

  if (integral) {
    /* magnitude in uint64; int64 holds [-2^63, 2^63-1] */
    uint64_t mag = 0;
    int overflow = 0;
    for (const unsigned char *d = s + neg; d < p; d++) {
      uint64_t dv = (uint64_t)(*d - '0');
      if (mag > (UINT64_MAX - dv) / 10) {
        overflow = 1;
        break;
      }
      mag = mag * 10 + dv;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (!overflow && mag <= limit) {
      out->type = JSON_INT;
      if (neg)
        out->u.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
      else
        out->u.i = (int64_t)mag;
      ps->p = p;
      return 0;
    }
    /* too big for int64: falls through to a double */
  }

  char small[64];
  char *buf = nlen < sizeof small ? small : malloc(nlen + 1);
  if (!buf) return fail_at(ps, s, "out of memory");
  memcpy(buf, s, nlen);
  buf[nlen] = '\0';
  pthread_once(&c_locale_once, make_c_locale);
  errno = 0;
  char *endp = NULL;
  double d = c_locale ? strtod_l(buf, &endp, c_locale) : strtod(buf, &endp);
  int range = errno == ERANGE;
  int complete = endp == buf + nlen;
  if (buf != small) free(buf);
  if (!complete) return fail_at(ps, s, "malformed number");
  if (!isfinite(d) || (range && fabs(d) > 1.0)) return fail_at(ps, s, "number out of range");
  out->type = JSON_DOUBLE;
  out->u.d = d;
  ps->p = p;
  return 0;
}

static int match_word(struct parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return -1;
  ps->p += n;
  return 0;
}

static int parse_value(struct parser *ps, struct json_value *out, int depth);

static int key_cmp(const void *a, const void *b) {
  const struct json_member *x = *(const struct json_member *const *)a;
  const struct json_member *y = *(const struct json_member *const *)b;
  if (x->key_len != y->key_len) return x->key_len < y->key_len ? -1 : 1;
  return memcmp(x->key, y->key, x->key_len);
}

/* The first duplicated key of obj, or NULL. */
static const struct json_member *find_duplicate(const struct json_value *obj, int *oom) {
  size_t n = obj->u.obj.n;
  const struct json_member *m = obj->u.obj.members;
  *oom = 0;
  if (n < 2) return NULL;
  if (n <= 16) {
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (m[i].key_len == m[j].key_len && memcmp(m[i].key, m[j].key, m[i].key_len) == 0)
          return &m[i];
    return NULL;
  }
  const struct json_member **v = malloc(n * sizeof *v);
  if (!v) {
    *oom = 1;
    return NULL;
  }
  for (size_t i = 0; i < n; i++) v[i] = &m[i];
  qsort(v, n, sizeof *v, key_cmp);
  const struct json_member *dup = NULL;
  for (size_t i = 1; i < n && !dup; i++)
    if (key_cmp(&v[i - 1], &v[i]) == 0) dup = v[i];
  free(v);
  return dup;
}

static int parse_array(struct parser *ps, struct json_value *out, int depth) {
  struct json_value *items = NULL;
  size_t n = 0, cap = 0;
  ps->p++; /* '[' */
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == ']') {
    ps->p++;
    goto done;
  }
  for (;;) {
    if (grow((void **)&items, &cap, n + 1, sizeof *items) != 0) {
      fail_at(ps, ps->p, "out of memory");
      goto fail;
    }
    skip_ws(ps);
    if (parse_value(ps, &items[n], depth + 1) != 0) goto fail;
    n++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == ']') {
      ps->p++;
      break;
    }
    fail_unexpected(ps, "',' or ']'");
    goto fail;
  }
done:
  out->type = JSON_ARRAY;
  out->u.arr.items = items;
  out->u.arr.n = n;
  return 0;
fail:
  for (size_t i = 0; i < n; i++) free_contents(&items[i]);
  free(items);
  return -1;
}

static int parse_object(struct parser *ps, struct json_value *out, int depth) {
  const unsigned char *open = ps->p;
  struct json_member *m = NULL;
  size_t n = 0, cap = 0;
  ps->p++; /* '{' */
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == '}') {
    ps->p++;
    goto done;
  }
  for (;;) {
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != '"') {
      fail_unexpected(ps, "a string key");
      goto fail;
    }
    if (grow((void **)&m, &cap, n + 1, sizeof *m) != 0) {
      fail_at(ps, ps->p, "out of memory");
      goto fail;
    }
    if (parse_string(ps, &m[n].key, &m[n].key_len) != 0) goto fail;
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ':') {
      free(m[n].key);
      fail_unexpected(ps, "':'");
      goto fail;
    }
    ps->p++;
    skip_ws(ps);
    if (parse_value(ps, &m[n].value, depth + 1) != 0) {
      free(m[n].key);
      goto fail;
    }
    n++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == '}') {
      ps->p++;
      break;
    }
    fail_unexpected(ps, "',' or '}'");
    goto fail;
  }
done:
  out->type = JSON_OBJECT;
  out->u.obj.members = m;
  out->u.obj.n = n;
  int oom;
  const struct json_member *dup = find_duplicate(out, &oom);
  if (dup || oom) {
    if (oom) {
      fail_at(ps, open, "out of memory");
    } else {
      char k[48];
      json_escape(k, sizeof k, dup->key, dup->key_len);
      fail_at(ps, open, "duplicate key \"%s\" in object", k);
    }
    free_contents(out);
    return -1;
  }
  return 0;
fail:
  for (size_t i = 0; i < n; i++) {
    free(m[i].key);
    free_contents(&m[i].value);
  }
  free(m);
  return -1;
}

/* Parse one value at ps->p (whitespace already skipped) into *out. On error
 * *out holds nothing to free (type JSON_NULL). */
static int parse_value(struct parser *ps, struct json_value *out, int depth) {
  out->type = JSON_NULL;
  if (ps->p >= ps->end) return fail_unexpected(ps, "a value");
  switch (*ps->p) {
  case '{':
  case '[':
    if (depth >= JSON_MAX_DEPTH)
      return fail_at(ps, ps->p, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    return *ps->p == '{' ? parse_object(ps, out, depth) : parse_array(ps, out, depth);
  case '"': {
    char *s;
    size_t n;
    if (parse_string(ps, &s, &n) != 0) return -1;
    out->type = JSON_STRING;
    out->u.str.s = s;
    out->u.str.len = n;
    return 0;
  }
  case 't':
    if (match_word(ps, "true") != 0) return fail_unexpected(ps, "a value");
    out->type = JSON_BOOL;
    out->u.boolean = 1;
    return 0;
  case 'f':
    if (match_word(ps, "false") != 0) return fail_unexpected(ps, "a value");
    out->type = JSON_BOOL;
    out->u.boolean = 0;
    return 0;
  case 'n':
    if (match_word(ps, "null") != 0) return fail_unexpected(ps, "a value");
    out->type = JSON_NULL;
    return 0;
  default:
    if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) return parse_number(ps, out);
    return fail_unexpected(ps, "a value");
  }
}

struct json_value *json_parse(const char *text, size_t len, struct json_error *err) {
  struct parser ps = {(const unsigned char *)text, (const unsigned char *)text,
                      (const unsigned char *)text + (text ? len : 0), err};
  if (err) {
    err->offset = 0;
    err->msg[0] = '\0';
  }
  skip_ws(&ps);
  if (ps.p >= ps.end) {
    fail_at(&ps, ps.p, "empty input");
    return NULL;
  }
  struct json_value *v = malloc(sizeof *v);
  if (!v) {
    fail_at(&ps, ps.p, "out of memory");
    return NULL;
  }
  if (parse_value(&ps, v, 0) != 0) {
    free(v);
    return NULL;
  }
  skip_ws(&ps);
  if (ps.p < ps.end) {
    fail_unexpected(&ps, "end of input after the value");
    free_contents(v);
    free(v);
    return NULL;
  }
  return v;
}

void json_free(struct json_value *v) {
  if (!v) return;
  free_contents(v);
  free(v);
}

/* ========================================================================= */
/* Lookup                                                                     */
/* ========================================================================= */

const struct json_value *json_get(const struct json_value *obj, const char *key) {
  if (!obj || !key || obj->type != JSON_OBJECT) return NULL;
  size_t kl = strlen(key);
  for (size_t i = 0; i < obj->u.obj.n; i++) {
    const struct json_member *m = &obj->u.obj.members[i];
    if (m->key_len == kl && memcmp(m->key, key, kl) == 0) return &m->value;
  }
  return NULL;
}

const char *json_get_str(const struct json_value *obj, const char *key) {
  const struct json_value *v = json_get(obj, key);
  return v && v->type == JSON_STRING ? v->u.str.s : NULL;
}

int json_get_int(const struct json_value *obj, const char *key, int64_t *out) {
  const struct json_value *v = json_get(obj, key);
  if (!v || v->type != JSON_INT) return 0;
  if (out) *out = v->u.i;
  return 1;
}

size_t json_array_len(const struct json_value *arr) {
  return arr && arr->type == JSON_ARRAY ? arr->u.arr.n : 0;
}

const struct json_value *json_array_at(const struct json_value *arr, size_t i) {
  return arr && arr->type == JSON_ARRAY && i < arr->u.arr.n ? &arr->u.arr.items[i] : NULL;
}

const char *json_type_name(enum json_type t) {
  switch (t) {
  case JSON_NULL: return "null";
  case JSON_BOOL: return "bool";
  case JSON_INT: return "int";
  case JSON_DOUBLE: return "double";
  case JSON_STRING: return "string";
  case JSON_ARRAY: return "array";
  case JSON_OBJECT: return "object";
  }
  return "?";
}
