/* test_json.c — unit test of host/json.c: the strict JSON parser and the
 * json_escape() writer helper.
 *
 * Standalone: exit 0 when every check passes, 1 otherwise (each failure is
 * printed with its line). Build, e.g.:
 *   gcc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -I include -I . -o /tmp/test_json tests/unit/test_json.c host/json.c
 */
#define _GNU_SOURCE
#include "host/json.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static struct json_value *parse_str(const char *s, struct json_error *err) {
  return json_parse(s, strlen(s), err);
}

/* Expect s to parse; returns the tree (caller frees). */
static struct json_value *ok(const char *s, int line) {
  struct json_error err;
  struct json_value *v = parse_str(s, &err);
  checks++;
  if (!v) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: expected %s to parse; got error at %zu: %s\n", __FILE__, line, s,
            err.offset, err.msg);
  }
  return v;
}
#define OK(s) ok((s), __LINE__)

/* Expect text[0..len) to be rejected with a non-empty message. */
static void bad_n(const char *s, size_t len, int line) {
  struct json_error err;
  struct json_value *v = json_parse(s, len, &err);
  checks++;
  if (v || !err.msg[0]) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: expected rejection of %.*s\n", __FILE__, line,
            (int)(len > 80 ? 80 : len), s);
  }
  json_free(v);
}
#define BAD(s) bad_n((s), strlen(s), __LINE__)
#define BAD_N(s, n) bad_n((s), (n), __LINE__)

/* ------------------------------------------------------------------------- */

static void test_scalars(void) {
  struct json_value *v;
  v = OK("null");
  CHECK(v && v->type == JSON_NULL, "null");
  json_free(v);
  v = OK(" true ");
  CHECK(v && v->type == JSON_BOOL && v->u.boolean == 1, "true");
  json_free(v);
  v = OK("\t\r\nfalse\n");
  CHECK(v && v->type == JSON_BOOL && v->u.boolean == 0, "false");
  json_free(v);
  v = OK("\"\"");
  CHECK(v && v->type == JSON_STRING && v->u.str.len == 0 && v->u.str.s[0] == '\0', "empty string");
  json_free(v);
  v = OK("\"abc\"");
  CHECK(v && v->type == JSON_STRING && strcmp(v->u.str.s, "abc") == 0 && v->u.str.len == 3, "abc");
  json_free(v);

  BAD("");
  BAD("   ");
  BAD("tru");
  BAD("nul");
  BAD("True");
  BAD("NULL");
  BAD("truex");
  BAD("nullnull");
  BAD("\"abc");
  BAD("\"abc\\\"");
  BAD("'abc'");
  BAD("undefined");
  BAD_N("null\0", 5); /* NUL after the value */
  BAD_N("\0null", 5);
  BAD("\xEF\xBB\xBFnull"); /* BOM */
  BAD("/* c */ 1");
  BAD("1 // c");
  BAD("1 2");
  BAD("\"a\" \"b\"");
  BAD("\f1"); /* form feed is not JSON whitespace */
  BAD("\v1");
}

static void test_containers(void) {
  struct json_value *v = OK("{\"a\":1,\"b\":[true,false,null,\"x\",{\"c\":-2.5}],\"d\":{},\"e\":[],"
                            "\"\":\"empty key\"}");
  if (v) {
    CHECK(v->type == JSON_OBJECT && v->u.obj.n == 5, "object with 5 members");
    int64_t i = 0;
    CHECK(json_get_int(v, "a", &i) && i == 1, "a == 1");
    const struct json_value *b = json_get(v, "b");
    CHECK(b && b->type == JSON_ARRAY && json_array_len(b) == 5, "b is an array of 5");
    CHECK(json_array_at(b, 0) && json_array_at(b, 0)->type == JSON_BOOL, "b[0] bool");
    CHECK(json_array_at(b, 2) && json_array_at(b, 2)->type == JSON_NULL, "b[2] null");
    CHECK(json_array_at(b, 5) == NULL, "b[5] out of range");
    const struct json_value *c = json_get(json_array_at(b, 4), "c");
    CHECK(c && c->type == JSON_DOUBLE && c->u.d == -2.5, "b[4].c == -2.5");
    CHECK(json_get_str(json_array_at(b, 3), "x") == NULL, "json_get on a string is NULL");
    CHECK(json_get(v, "d") && json_get(v, "d")->type == JSON_OBJECT &&
              json_get(v, "d")->u.obj.n == 0,
          "d {}");
    CHECK(json_get(v, "e") && json_array_len(json_get(v, "e")) == 0, "e []");
    CHECK(json_get_str(v, "") && strcmp(json_get_str(v, ""), "empty key") == 0, "empty key");
    CHECK(json_get(v, "zz") == NULL, "missing key");
    CHECK(json_get(v, NULL) == NULL, "NULL key");
    CHECK(json_get(NULL, "a") == NULL, "NULL object");
    CHECK(json_get_str(v, "a") == NULL, "a is not a string");
    CHECK(!json_get_int(v, "b", &i), "b is not an int");
    CHECK(json_array_len(v) == 0 && json_array_at(v, 0) == NULL, "object is not an array");
  }
  json_free(v);
  json_free(NULL);

  v = OK(" [ 1 , [ ] , { } , { \"k\" : [ 2 ] } ] ");
  CHECK(v && json_array_len(v) == 4, "spaced array");
  json_free(v);

  /* members in document order */
  v = OK("{\"z\":1,\"y\":2,\"x\":3}");
  CHECK(v && strcmp(v->u.obj.members[0].key, "z") == 0 && strcmp(v->u.obj.members[2].key, "x") == 0,
        "document order");
  json_free(v);

  BAD("[");
  BAD("]");
  BAD("{");
  BAD("}");
  BAD("[1,]");
  BAD("[,1]");
  BAD("[1,,2]");
  BAD("[1 2]");
  BAD("{,}");
  BAD("{\"a\":1,}");
  BAD("{\"a\" 1}");
  BAD("{\"a\":}");
  BAD("{\"a\"}");
  BAD("{a:1}");
  BAD("{'a':1}");
  BAD("{1:1}");
  BAD("{null:1}");
  BAD("{\"a\":1 \"b\":2}");
  BAD("[1]]");
  BAD("{}}");
  BAD("[}");
  BAD("{]");

  /* duplicate keys, small and large objects, also under nesting */
  BAD("{\"a\":1,\"a\":2}");
  BAD("{\"a\":1,\"b\":{\"c\":1,\"c\":1}}");
  {
    char buf[4096];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{");
    for (int k = 0; k < 100; k++)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"k%d\":%d", k ? "," : "", k, k);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "}");
    v = OK(buf);
    int64_t x = -1;
    CHECK(v && json_get_int(v, "k77", &x) && x == 77, "100 keys: k77");
    json_free(v);
    buf[n - 1] = '\0';
    strcat(buf, ",\"k42\":0}");
    BAD(buf);
  }
  /* keys that differ only after an escaped NUL are distinct */
  v = OK("{\"a\\u0000b\":1,\"a\\u0000c\":2}");
  CHECK(v && v->u.obj.n == 2 && v->u.obj.members[0].key_len == 3, "keys with NUL");
  CHECK(v && json_get(v, "a") == NULL, "a NUL-containing key does not match its prefix");
  json_free(v);
}

static void test_escapes(void) {
  struct json_value *v =
      OK("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\\u0000z\"");
  static const char want[] = "\"\\/\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\0z";
  if (v) {
    CHECK(v->type == JSON_STRING, "string");
    CHECK(v->u.str.len == sizeof want - 1, "len %zu want %zu", v->u.str.len, sizeof want - 1);
    CHECK(v->u.str.len == sizeof want - 1 && memcmp(v->u.str.s, want, sizeof want - 1) == 0,
          "bytes");
    CHECK(v->u.str.s[v->u.str.len] == '\0', "NUL-terminated");
  }
  json_free(v);

  /* surrogate pairs: the edges of the supplementary planes */
  struct {
    const char *in;
    const char *out;
  } pairs[] = {
      {"\"\\ud800\\udc00\"", "\xF0\x90\x80\x80"}, /* U+10000 */
      {"\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF"}, /* U+10FFFF */
      {"\"\\uD834\\uDD1E\"", "\xF0\x9D\x84\x9E"}, /* U+1D11E */
      {"\"x\\uD83D\\uDE00y\"", "x\xF0\x9F\x98\x80y"},
      {"\"\\u007f\\u0080\\u07ff\\u0800\\uffff\"", "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF"},
      {"\"\\uD7FF\\uE000\"", "\xED\x9F\xBF\xEE\x80\x80"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    v = OK(pairs[i].in);
    CHECK(v && v->type == JSON_STRING && strcmp(v->u.str.s, pairs[i].out) == 0, "pair %zu", i);
    json_free(v);
  }

  BAD("\"\\ud800\"");        /* lone high */
  BAD("\"\\udc00\"");        /* lone low */
  BAD("\"\\udc00\\ud800\""); /* reversed */
  BAD("\"\\ud800\\u0041\""); /* high + non-surrogate */
  BAD("\"\\ud800\\ud800\""); /* high + high */
  BAD("\"\\ud800x\"");
  BAD("\"\\ud800\\\"");
  BAD("\"\\ud800\\u\"");
  BAD("\"\\ud800\\udc0\"");
  BAD("\"\\u12\"");
  BAD("\"\\u12G4\"");
  BAD("\"\\u\"");
  BAD("\"\\x41\"");
  BAD("\"\\a\"");
  BAD("\"\\U0041\"");
  BAD("\"\\'\"");
  BAD("\"\\0\"");
  BAD("\"\\\"");
  BAD("\"\\");
  BAD("\"abc\\u00");

  /* raw control characters must be escaped; DEL may appear raw */
  for (int c = 1; c < 0x20; c++) {
    char s[4] = {'"', (char)c, '"', 0};
    BAD(s);
  }
  BAD_N("\"a\0b\"", 5);
  v = OK("\"\x7f\"");
  CHECK(v && v->u.str.len == 1 && v->u.str.s[0] == 0x7f, "raw DEL");
  json_free(v);

  /* raw UTF-8: accepted when well-formed, rejected otherwise */
  v = OK("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\"");
  CHECK(v && v->u.str.len == 13, "raw UTF-8");
  json_free(v);
  BAD("\"\x80\""); /* stray continuation */
  BAD("\"\xC3\""); /* truncated */
  BAD("\"\xC3x\"");
  BAD("\"\xE2\x82\"");
  BAD("\"\xC0\x80\"");         /* overlong NUL */
  BAD("\"\xC1\xBF\"");         /* overlong */
  BAD("\"\xE0\x80\xAF\"");     /* overlong '/' */
  BAD("\"\xF0\x80\x80\xAF\""); /* overlong */
  BAD("\"\xED\xA0\x80\"");     /* encoded surrogate U+D800 */
  BAD("\"\xED\xBF\xBF\"");     /* encoded surrogate U+DFFF */
  BAD("\"\xF4\x90\x80\x80\""); /* U+110000 */
  BAD("\"\xF5\x80\x80\x80\"");
  BAD("\"\xFF\"");
  BAD("\"\xFE\"");
  BAD("{\"\xFF\":1}"); /* in a key too */
}

static void test_numbers(void) {
  struct {
    const char *in;
    int64_t want;
  } ints[] = {
      {"0", 0},
      {"-0", 0},
      {"7", 7},
      {"-7", -7},
      {"1234567890", 1234567890},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"  42  ", 42},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    struct json_value *v = OK(ints[i].in);
    CHECK(v && v->type == JSON_INT && v->u.i == ints[i].want, "int %s", ints[i].in);
    json_free(v);
  }
  struct {
    const char *in;
    double want;
  } dbls[] = {
      {"1.5", 1.5},
      {"-1.5", -1.5},
      {"0.0", 0.0},
      {"-0.0", -0.0},
      {"1e3", 1000.0},
      {"1E3", 1000.0},
      {"1e+3", 1000.0},
      {"1e-3", 0.001},
      {"2.5E-1", 0.25},
      {"0e0", 0.0},
      {"1.7976931348623157e308", 1.7976931348623157e308},
      {"4.9e-324", 4.9e-324},
      {"9223372036854775808", 9223372036854775808.0},   /* INT64_MAX + 1 */
      {"-9223372036854775809", -9223372036854775809.0}, /* INT64_MIN - 1 */
      {"18446744073709551616", 18446744073709551616.0}, /* > UINT64_MAX */
      {"123456789012345678901234567890", 123456789012345678901234567890.0},
  };
  for (size_t i = 0; i < sizeof dbls / sizeof dbls[0]; i++) {
    struct json_value *v = OK(dbls[i].in);
    CHECK(v && v->type == JSON_DOUBLE && v->u.d == dbls[i].want, "double %s (got %s %.17g)",
          dbls[i].in, v ? json_type_name(v->type) : "-",
          v && v->type == JSON_DOUBLE ? v->u.d : 0.0);
    json_free(v);
  }
  struct json_value *v = OK("-0.0");
  CHECK(v && v->type == JSON_DOUBLE && signbit(v->u.d), "-0.0 keeps its sign");
  json_free(v);
  v = OK("1e-400"); /* underflow: representable as 0, accepted */
  CHECK(v && v->type == JSON_DOUBLE && v->u.d == 0.0, "1e-400");
  json_free(v);

  /* a very long integral number falls back to double (and does not crash) */
  {
    size_t n = 5000;
    char *big = malloc(n + 1);
    memset(big, '9', n);
    big[n] = '\0';
    BAD(big); /* 10^5000 overflows a double */
    big[0] = '0';
    BAD(big); /* leading zero */
    memcpy(big, "0.", 2);
    v = OK(big);
    CHECK(v && v->type == JSON_DOUBLE && v->u.d > 0.99 && v->u.d <= 1.0, "0.999... (rounds to 1)");
    json_free(v);
    free(big);
  }

  BAD("1e309");
  BAD("-1e309");
  BAD("1e99999999999999999999");
  BAD("01");
  BAD("-01");
  BAD("00");
  BAD("+1");
  BAD("-");
  BAD("--1");
  BAD(".5");
  BAD("1.");
  BAD("1.e3");
  BAD("1e");
  BAD("1e+");
  BAD("1e-");
  BAD("1.5.5");
  BAD("0x10");
  BAD("1_000");
  BAD("NaN");
  BAD("Infinity");
  BAD("-Infinity");
  BAD("- 1");
  BAD("1 .5");
  BAD("[01]");
  BAD("[1.]");

  /* locale independence: a comma-decimal locale must not change parsing */
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    v = OK("2.75");
    CHECK(v && v->type == JSON_DOUBLE && v->u.d == 2.75, "2.75 under a comma locale");
    json_free(v);
    setlocale(LC_NUMERIC, "C");
  }
}

static void test_depth(void) {
  char buf[2 * (JSON_MAX_DEPTH + 2) + 1];
  /* exactly JSON_MAX_DEPTH nested arrays: accepted */
  size_t n = 0;
  for (int i = 0; i < JSON_MAX_DEPTH; i++) buf[n++] = '[';
  for (int i = 0; i < JSON_MAX_DEPTH; i++) buf[n++] = ']';
  buf[n] = '\0';
  struct json_value *v = OK(buf);
  json_free(v);
  /* one more: rejected */
  n = 0;
  for (int i = 0; i < JSON_MAX_DEPTH + 1; i++) buf[n++] = '[';
  for (int i = 0; i < JSON_MAX_DEPTH + 1; i++) buf[n++] = ']';
  buf[n] = '\0';
  struct json_error err;
  v = parse_str(buf, &err);
  CHECK(!v && strstr(err.msg, "nesting") != NULL, "depth %d rejected (%s)", JSON_MAX_DEPTH + 1,
        err.msg);
  CHECK(!v && err.offset == JSON_MAX_DEPTH, "error offset %zu", err.offset);
  json_free(v);

  /* objects count too */
  {
    size_t cap = (size_t)(JSON_MAX_DEPTH + 1) * 6 + 8;
    char *o = malloc(cap);
    size_t k = 0;
    for (int i = 0; i < JSON_MAX_DEPTH + 1; i++) k += (size_t)sprintf(o + k, "{\"a\":");
    k += (size_t)sprintf(o + k, "1");
    for (int i = 0; i < JSON_MAX_DEPTH + 1; i++) o[k++] = '}';
    o[k] = '\0';
    BAD(o);
    free(o);
  }

  /* hostile depth: a megabyte of '[' or '{"a":' must fail cleanly */
  size_t big = 1 << 20;
  char *h = malloc(big);
  memset(h, '[', big);
  BAD_N(h, big);
  for (size_t i = 0; i + 5 <= big; i += 5) memcpy(h + i, "{\"a\":", 5);
  BAD_N(h, big - big % 5);
  free(h);
}

/* Every proper prefix of a valid document must be rejected, and must not leak. */
static void test_truncated(void) {
  const char *doc =
      "{\"type\":\"insn\",\"seq\":12,\"ip\":\"0x401000\",\"sym\":null,\"neg\":-1.25e-3,"
      "\"a\":[1,2,{\"x\":true,\"y\":false}],\"s\":\"\\u00e9\\ud83d\\ude00\\n\xC3\xA9\"}";
  size_t len = strlen(doc);
  struct json_value *v = OK(doc);
  json_free(v);
  for (size_t n = 0; n < len; n++) BAD_N(doc, n);
  /* and every prefix followed by garbage */
  for (size_t n = 0; n < len; n++) {
    char tmp[512];
    memcpy(tmp, doc, n);
    tmp[n] = '#';
    BAD_N(tmp, n + 1);
  }
}

/* ------------------------------------------------------------------------- */
/* json_escape                                                                */
/* ------------------------------------------------------------------------- */

/* Reference for what parse(escape(s)) must give: well-formed UTF-8 kept,
 * every other byte >= 0x80 read back as U+0080..U+00FF. Written by decoding
 * code points, independently of json.c's table. out needs 2*n bytes. */
static size_t ref_roundtrip(const unsigned char *s, size_t n, unsigned char *out) {
  size_t i = 0, o = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) {
      out[o++] = (unsigned char)c;
      i++;
      continue;
    }
    size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len && i + len <= n) {
      uint32_t cp = c & (0x7Fu >> len);
      int okseq = 1;
      for (size_t k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0) != 0x80) okseq = 0;
        cp = cp << 6 | (s[i + k] & 0x3F);
      }
      uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
      if (okseq && cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
        memcpy(out + o, s + i, len);
        o += len;
        i += len;
        continue;
      }
    }
    out[o++] = (unsigned char)(0xC0 | (c >> 6));
    out[o++] = (unsigned char)(0x80 | (c & 0x3F));
    i++;
  }
  return o;
}

/* Escape s[0..n), check the sizes, parse it back, compare with the reference. */
static void roundtrip(const unsigned char *s, size_t n, const char *what) {
  size_t need = json_escape_len((const char *)s, n);
  CHECK(need <= 6 * n, "%s: escape length %zu > 6*%zu", what, need, n);
  char *esc = malloc(need + 3);
  esc[0] = '"';
  size_t w = json_escape(esc + 1, need + 1, (const char *)s, n);
  CHECK(w == need, "%s: json_escape wrote %zu, json_escape_len said %zu", what, w, need);
  CHECK(esc[1 + w] == '\0', "%s: NUL-terminated", what);
  CHECK(memchr(esc + 1, '\0', w) == NULL, "%s: no NUL inside the escaped text", what);
  for (size_t k = 1; k <= w; k++) {
    unsigned char b = (unsigned char)esc[k];
    CHECK(b >= 0x20 && b != 0x7f, "%s: raw byte 0x%02x in escaped output", what, b);
    if (b < 0x20 || b == 0x7f) break;
  }
  esc[1 + w] = '"';
  esc[2 + w] = '\0';
  struct json_error err;
  struct json_value *v = json_parse(esc, w + 2, &err);
  CHECK(v != NULL, "%s: escaped text does not parse: %s at %zu", what, err.msg, err.offset);
  if (v) {
    unsigned char *want = malloc(2 * n + 1);
    size_t wl = ref_roundtrip(s, n, want);
    CHECK(v->type == JSON_STRING && v->u.str.len == wl && memcmp(v->u.str.s, want, wl) == 0,
          "%s: round trip differs", what);
    free(want);
  }
  json_free(v);
  free(esc);
}

static void test_escape_bytes(void) {
  /* every single byte */
  for (int b = 0; b < 256; b++) {
    unsigned char s[1] = {(unsigned char)b};
    char what[32];
    snprintf(what, sizeof what, "byte 0x%02x", b);
    roundtrip(s, 1, what);
  }
  /* every byte inside text, and all 256 bytes in one string */
  unsigned char all[256 + 2];
  for (int b = 0; b < 256; b++) all[b] = (unsigned char)b;
  roundtrip(all, 256, "all bytes ascending");
  for (int b = 0; b < 256; b++) {
    unsigned char s[3] = {'a', (unsigned char)b, 'z'};
    roundtrip(s, 3, "a?z");
  }

  /* the exact forms */
  struct {
    const char *in;
    size_t n;
    const char *out;
  } forms[] = {
      {"\"", 1, "\\\""},
      {"\\", 1, "\\\\"},
      {"/", 1, "/"},
      {"\b\f\n\r\t", 5, "\\b\\f\\n\\r\\t"},
      {"\x01", 1, "\\u0001"},
      {"\x1f", 1, "\\u001f"},
      {"\0", 1, "\\u0000"},
      {"\x7f", 1, "\\u007f"},
      {"\xff", 1, "\\u00ff"},
      {"\x80", 1, "\\u0080"},
      {"\xC3\xA9", 2, "\xC3\xA9"},
      {"\xC3", 1, "\\u00c3"},
      {"\xC0\x80", 2, "\\u00c0\\u0080"},
      {"\xED\xA0\x80", 3, "\\u00ed\\u00a0\\u0080"},
      {"\xF0\x9F\x98\x80", 4, "\xF0\x9F\x98\x80"},
      {"\xF4\x90\x80\x80", 4, "\\u00f4\\u0090\\u0080\\u0080"},
      {"push rbp", 8, "push rbp"},
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    char out[64];
    size_t w = json_escape(out, sizeof out, forms[i].in, forms[i].n);
    CHECK(w == strlen(forms[i].out) && strcmp(out, forms[i].out) == 0,
          "form %zu: got \"%s\" want \"%s\"", i, out, forms[i].out);
  }

  /* edge arguments */
  char out[8] = "xxxxxxx";
  CHECK(json_escape(out, 0, "abc", 3) == 0 && out[0] == 'x', "cap 0 writes nothing");
  CHECK(json_escape(NULL, 0, "abc", 3) == 0, "NULL dst with cap 0");
  CHECK(json_escape(out, 1, "abc", 3) == 0 && out[0] == '\0', "cap 1: just the NUL");
  CHECK(json_escape(out, sizeof out, NULL, 0) == 0 && out[0] == '\0', "NULL src");
  CHECK(json_escape_len(NULL, 0) == 0 && json_escape_len("", 0) == 0, "escape_len of nothing");
  CHECK(json_escape(out, sizeof out, "abcdefghij", 10) == 7 && strcmp(out, "abcdefg") == 0,
        "plain truncation");
  CHECK(json_escape(out, 6, "a\x01", 2) == 1 && strcmp(out, "a") == 0, "no half \\u escape");
  CHECK(json_escape(out, 8, "a\x01", 2) == 7 && strcmp(out, "a\\u0001") == 0,
        "whole \\u escape fits");
  CHECK(json_escape(out, 2, "\"", 1) == 0 && out[0] == '\0', "no half \\\"");
  CHECK(json_escape(out, 4, "a\xF0\x9F\x98\x80", 5) == 1 && strcmp(out, "a") == 0, "no half UTF-8");
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}

/* A random byte string mixing ASCII, specials, valid UTF-8 and junk. */
static size_t random_string(unsigned char *s, size_t cap) {
  size_t n = 0, want = rnd() % (cap - 4);
  while (n < want) {
    switch (rnd() % 6) {
    case 0: s[n++] = (unsigned char)(0x20 + rnd() % 95); break;
    case 1: {
      static const char sp[] = "\"\\/\b\f\n\r\t\x01\x1f\x7f";
      s[n++] = (unsigned char)sp[rnd() % (sizeof sp)]; /* includes the NUL */
      break;
    }
    case 2: { /* a valid code point */
      uint32_t cp;
      do cp = rnd() % 0x110000;
      while (cp >= 0xD800 && cp <= 0xDFFF);
      if (cp < 0x80) {
        s[n++] = (unsigned char)cp;
      } else if (cp < 0x800) {
        s[n++] = (unsigned char)(0xC0 | cp >> 6);
        s[n++] = (unsigned char)(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        s[n++] = (unsigned char)(0xE0 | cp >> 12);
        s[n++] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        s[n++] = (unsigned char)(0x80 | (cp & 0x3F));
      } else {
        s[n++] = (unsigned char)(0xF0 | cp >> 18);
        s[n++] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        s[n++] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        s[n++] = (unsigned char)(0x80 | (cp & 0x3F));
      }
      break;
    }
    case 3: s[n++] = (unsigned char)(0x80 + rnd() % 128); break;
    default: s[n++] = (unsigned char)(rnd() & 0xFF); break;
    }
  }
  return n;
}

static void test_escape_random(void) {
  unsigned char s[300];
  for (int iter = 0; iter < 3000; iter++) {
    size_t n = random_string(s, sizeof s);
    roundtrip(s, n, "random string");

    /* every capacity: a NUL-terminated prefix of the full escape that is
     * itself a complete escaped string (it parses) */
    size_t full_len = json_escape_len((const char *)s, n);
    char *full = malloc(full_len + 1);
    json_escape(full, full_len + 1, (const char *)s, n);
    if (iter % 10 == 0) {
      for (size_t cap = 1; cap <= full_len + 1; cap++) {
        char *buf = malloc(cap + 2);
        buf[0] = '"';
        size_t w = json_escape(buf + 1, cap, (const char *)s, n);
        int good = w < cap && buf[1 + w] == '\0' && memcmp(buf + 1, full, w) == 0 &&
                   (cap <= full_len ? cap - 1 - w < 6 : w == full_len);
        CHECK(good, "cap %zu: wrote %zu of %zu", cap, w, full_len);
        buf[1 + w] = '"';
        struct json_value *v = json_parse(buf, w + 2, NULL);
        CHECK(v != NULL, "truncated escape at cap %zu does not parse", cap);
        json_free(v);
        free(buf);
        if (!good) break;
      }
    }
    free(full);
  }
}

/* Random mutations of valid documents and random bytes: no crash, no leak,
 * and whatever parses is a tree we can walk. */
static size_t walk(const struct json_value *v) {
  size_t n = 1;
  if (v->type == JSON_ARRAY)
    for (size_t i = 0; i < v->u.arr.n; i++) n += walk(&v->u.arr.items[i]);
  if (v->type == JSON_OBJECT)
    for (size_t i = 0; i < v->u.obj.n; i++) n += walk(&v->u.obj.members[i].value);
  return n;
}

static void test_fuzz(void) {
  static const char *seeds[] = {
      ("{\"type\":\"insn\",\"seq\":1,\"tid\":7,\"ip\":\"0x401000\",\"sym\":\"main\",\"off\":0,"
       "\"module\":\"a.out\",\"bytes\":\"55\",\"disasm\":\"push rbp\"}"),
      "[1,-2.5e3,true,false,null,\"\\u00e9\\ud83d\\ude00\",{\"a\":[[]]}]",
      "{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"n_reached\",\"status\":0}",
  };
  static const char alphabet[] = "{}[]\":,\\u0123456789abcdefEe+-.tnrfl \t\n\x80\xC3\xED\xF0\xFF";
  char buf[512];
  for (int iter = 0; iter < 60000; iter++) {
    size_t n;
    if (iter % 4 == 3) {
      n = rnd() % 64;
      for (size_t i = 0; i < n; i++) buf[i] = alphabet[rnd() % (sizeof alphabet - 1)];
    } else {
      const char *seed = seeds[rnd() % 3];
      n = strlen(seed);
      memcpy(buf, seed, n);
      int muts = 1 + (int)(rnd() % 4);
      for (int m = 0; m < muts; m++) {
        size_t at = n ? rnd() % n : 0;
        switch (rnd() % 4) {
        case 0: /* replace */
          if (n) buf[at] = alphabet[rnd() % (sizeof alphabet - 1)];
          break;
        case 1: /* delete */
          if (n) {
            memmove(buf + at, buf + at + 1, n - at - 1);
            n--;
          }
          break;
        case 2: /* insert */
          if (n + 1 < sizeof buf) {
            memmove(buf + at + 1, buf + at, n - at);
            buf[at] = alphabet[rnd() % (sizeof alphabet - 1)];
            n++;
          }
          break;
        default: /* cut */ n = at; break;
        }
      }
    }
    struct json_error err;
    struct json_value *v = json_parse(buf, n, &err);
    if (v)
      (void)walk(v);
    else
      CHECK(err.msg[0] && err.offset <= n, "error without message/offset (offset %zu, len %zu)",
            err.offset, n);
    json_free(v);
  }
}

int main(void) {
  test_scalars();
  test_containers();
  test_escapes();
  test_numbers();
  test_depth();
  test_truncated();
  test_escape_bytes();
  test_escape_random();
  test_fuzz();
  return check_summary("test_json");
}
