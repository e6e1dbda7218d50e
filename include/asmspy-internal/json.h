/* json.h — the host's JSON toolkit: one writer-side helper and one reader.
 *
 * Writer side: json_escape() is THE string escaper of asmspy. The host output
 * writer (output.c) and every plugin (through asmspy_host_api.json_escape)
 * use it, so every NDJSON line asmspy produces escapes strings the same way.
 *
 * Reader side: a small, strict, defensive RFC 8259 parser building a DOM.
 * It is used by the .asmtrace reader/validator (recording.c) and by anything
 * that consumes NDJSON from asmspy. It is meant for hostile input:
 *   - strict grammar: no comments, no trailing commas, no single quotes, no
 *     NaN/Infinity, no leading zeros or '+', no BOM; only space, \t, \n, \r
 *     as whitespace; nothing but whitespace after the top-level value;
 *   - strings must be valid UTF-8 (no overlongs, no encoded surrogates, at
 *     most U+10FFFF); raw control characters (< 0x20) are rejected; escapes
 *     \" \\ \/ \b \f \n \r \t \uXXXX are decoded to UTF-8, a surrogate pair
 *     \uD8xx\uDCxx becomes one 4-byte sequence, a lone surrogate is an error;
 *     \u0000 is allowed (the string then holds a NUL: use .len);
 *   - numbers: lexically integral numbers (no '.', no exponent) that fit in
 *     int64 become JSON_INT; every other number becomes JSON_DOUBLE (parsed
 *     locale-independently); a number whose magnitude overflows a double is
 *     an error;
 *   - duplicate keys in one object are an error;
 *   - nesting deeper than JSON_MAX_DEPTH arrays/objects is an error, so
 *     the recursion depth is bounded;
 *   - never reads outside [text, text+len), never crashes; on any error no
 *     partial tree is returned (everything allocated is freed).
 * Thread-safe: no global mutable state (a "C" locale is created once).
 */
#ifndef ASMSPY_HOST_JSON_H
#define ASMSPY_HOST_JSON_H

#include "common/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- writer side ---------------------------------------------------------- */

/* Escape src[0..len) as the *inside* of a JSON string (no surrounding quotes)
 * into dst, which has room for cap bytes including the terminating NUL.
 *   - '"' -> \"   '\\' -> \\   (the solidus '/' is left as is);
 *   - \b \f \n \r \t for those five control bytes, every other byte < 0x20
 *     (and 0x7f, DEL) -> \u00XX (lower-case hex);
 *   - well-formed UTF-8 sequences are copied unchanged;
 *   - every byte that is not part of a well-formed UTF-8 sequence (stray
 *     continuation byte, truncated or overlong sequence, encoded surrogate,
 *     > U+10FFFF, 0xC0/0xC1/0xF5..0xFF) -> \u00XX of that byte value. A
 *     reader therefore sees such a byte as the code point U+0080..U+00FF
 *     (Latin-1), and the output is always valid UTF-8 JSON.
 * Always NUL-terminates when cap > 0 (dst may be NULL only if cap == 0).
 * Truncates safely: stops before the first escape or UTF-8 sequence that does
 * not fit whole, so the output never ends in half an escape. Each input byte
 * produces at most 6 output bytes: cap = 6*len + 1 never truncates.
 * src may be NULL when len == 0. Returns the number of bytes written to dst,
 * not counting the NUL (so < cap, or 0 when cap == 0). */
size_t json_escape(char *dst, size_t cap, const char *src, size_t len);

/* Append src[0..len) / the C string s to b as a quoted JSON string (json_escape). */
void strbuf_json_strn(struct strbuf *b, const char *s, size_t len);
void strbuf_json_str(struct strbuf *b, const char *s);

/* The length json_escape() would produce for src[0..len) with unlimited room
 * (not counting the NUL). json_escape(dst, json_escape_len(s, n) + 1, s, n)
 * never truncates. */
size_t json_escape_len(const char *src, size_t len);

/* ---- reader side ---------------------------------------------------------- */

#define JSON_MAX_DEPTH 64 /* arrays/objects nested deeper are rejected */

enum json_type {
  JSON_NULL = 0,
  JSON_BOOL,
  JSON_INT,    /* integral number that fits in int64 */
  JSON_DOUBLE, /* any other number */
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT,
};

struct json_member;

/* One node of the DOM. Children are stored by value in their parent. */
struct json_value {
  enum json_type type;
  union {
    int boolean; /* JSON_BOOL: 0 or 1 */
    int64_t i;   /* JSON_INT */
    double d;    /* JSON_DOUBLE */
    struct {     /* JSON_STRING: UTF-8, NUL-terminated, may contain NULs */
      char *s;
      size_t len;
    } str;
    struct { /* JSON_ARRAY */
      struct json_value *items;
      size_t n;
    } arr;
    struct { /* JSON_OBJECT: members in document order, keys unique */
      struct json_member *members;
      size_t n;
    } obj;
  } u;
};

struct json_member {
  char *key; /* UTF-8, NUL-terminated */
  size_t key_len;
  struct json_value value;
};

/* Where and why a parse failed. offset is a byte offset into the input; the
 * message is a short lower-case phrase ("unterminated string"). */
struct json_error {
  size_t offset;
  char msg[128];
};

/* Parse exactly one JSON value from text[0..len) (surrounding whitespace
 * allowed). Returns a heap tree to release with json_free(), or NULL on error
 * (err, if non-NULL, is filled; on success err->msg is ""). text need not be
 * NUL-terminated; an embedded NUL byte is a syntax error. */
struct json_value *json_parse(const char *text, size_t len, struct json_error *err);

/* Free a tree returned by json_parse() (NULL is fine). Do not call it on a
 * node inside a tree. */
void json_free(struct json_value *v);

/* Member lookup: the value of key in obj, or NULL when obj is NULL, is not an
 * object, or has no such key. */
const struct json_value *json_get(const struct json_value *obj, const char *key);

/* Typed conveniences over json_get. */
/* The string member's bytes, or NULL when absent or not a string. */
const char *json_get_str(const struct json_value *obj, const char *key);
/* 1 and *out set when key holds a JSON_INT, else 0 (out untouched). */
int json_get_int(const struct json_value *obj, const char *key, int64_t *out);

/* Array access: number of items (0 unless an array) and item i (or NULL). */
size_t json_array_len(const struct json_value *arr);
const struct json_value *json_array_at(const struct json_value *arr, size_t i);

/* "null", "bool", "int", "double", "string", "array", "object". */
const char *json_type_name(enum json_type t);

#ifdef __cplusplus
}
#endif
#endif
