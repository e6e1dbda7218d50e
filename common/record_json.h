/* common/record_json.h — the JSON body of one typed record (struct
 * asmspy_record, include/asmspy/plugin.h): its members in schema order,
 * without braces, exactly as the views used to format them by hand
 * ("tid":7,"ip":"0x401000","sym":null,...).
 *
 * One implementation, header-only, because two sides need it: the host's
 * writer (host/record_writer.c renders every JSON channel from the values)
 * and a view running on a host older than ABI 1.8 (it has no emit_record:
 * plugins/common/record_emit.h renders the body itself and calls emit). The
 * string escape is the caller's (the host's json_escape either way), so both
 * produce the same bytes. */
#ifndef ASMSPY_COMMON_RECORD_JSON_H
#define ASMSPY_COMMON_RECORD_JSON_H

#include "asmspy/plugin.h"
#include "common/strbuf.h"

#include <inttypes.h>
#include <string.h>

typedef size_t (*record_escape_fn)(char *dst, size_t cap, const char *src, size_t len);

/* Append n bytes (the hot path: one record per executed instruction under
 * --stream --json, so no printf for what needs none). */
static inline void record_json_put(struct strbuf *b, const char *p, size_t n) {
  strbuf_reserve(b, n);
  if (b->oom) return;
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
}
static inline void record_json_puts(struct strbuf *b, const char *s) {
  record_json_put(b, s, strlen(s));
}

/* Digits of v in base 10 or 16 (lowercase), without a printf. */
static inline void record_json_u64(struct strbuf *b, uint64_t v, int hex) {
  char tmp[24];
  size_t n = sizeof tmp;
  do {
    tmp[--n] = "0123456789abcdef"[hex ? v & 15 : v % 10];
    v = hex ? v >> 4 : v / 10;
  } while (v);
  record_json_put(b, tmp + n, sizeof tmp - n);
}
static inline void record_json_i64(struct strbuf *b, int64_t v) {
  if (v < 0) {
    record_json_put(b, "-", 1);
    record_json_u64(b, (uint64_t)0 - (uint64_t)v, 0);
  } else {
    record_json_u64(b, (uint64_t)v, 0);
  }
}

/* A JSON string: the escape of s[0..len) in quotes. */
static inline void record_json_str(struct strbuf *b, const char *s, size_t len,
                                   record_escape_fn esc) {
  size_t room = 6 * len + 1; /* an escape is at most 6 bytes per input byte */
  strbuf_reserve(b, room + 2);
  if (b->oom) return;
  b->s[b->len++] = '"';
  b->len += esc(b->s + b->len, b->cap - b->len, s ? s : "", s ? len : 0);
  b->s[b->len++] = '"';
  b->s[b->len] = '\0';
}

static inline void record_json_members(struct strbuf *b, const struct asmspy_field *fields,
                                       const struct asmspy_value *values, record_escape_fn esc);

/* One value of type `type` (an array element's type is named by `elem`). */
static inline void record_json_value(struct strbuf *b, uint32_t type, const char *elem,
                                     const struct asmspy_field *members,
                                     const struct asmspy_value *v, record_escape_fn esc) {
  if (v->state == ASMSPY_VALUE_NULL) {
    record_json_put(b, "null", 4);
    return;
  }
  if (v->state == ASMSPY_VALUE_JSON) {
    record_json_puts(b, v->u.json.s ? v->u.json.s : "null");
    return;
  }
  switch (type) {
  case ASMSPY_FIELD_INT: record_json_i64(b, v->u.i); break;
  case ASMSPY_FIELD_HEX:
    record_json_put(b, "\"0x", 3);
    record_json_u64(b, v->u.u, 1);
    record_json_put(b, "\"", 1);
    break;
  case ASMSPY_FIELD_NUMBER: strbuf_addf(b, "%.17g", v->u.d); break;
  case ASMSPY_FIELD_BOOL: record_json_puts(b, v->u.b ? "true" : "false"); break;
  case ASMSPY_FIELD_STR:
  case ASMSPY_FIELD_ENUM: record_json_str(b, v->u.str.s, (size_t)v->u.str.len, esc); break;
  case ASMSPY_FIELD_BYTES:
    strbuf_reserve(b, 2 * v->u.bytes.len + 2);
    if (b->oom) break;
    b->s[b->len++] = '"';
    for (uint64_t i = 0; i < v->u.bytes.len; i++) {
      b->s[b->len++] = "0123456789abcdef"[v->u.bytes.p[i] >> 4];
      b->s[b->len++] = "0123456789abcdef"[v->u.bytes.p[i] & 15];
    }
    b->s[b->len++] = '"';
    b->s[b->len] = '\0';
    break;
  case ASMSPY_FIELD_OBJECT:
    record_json_put(b, "{", 1);
    if (members && v->u.object.values) record_json_members(b, members, v->u.object.values, esc);
    record_json_put(b, "}", 1);
    break;
  case ASMSPY_FIELD_ARRAY: {
    uint32_t et = !elem                     ? ASMSPY_FIELD_STR
                  : !strcmp(elem, "object") ? ASMSPY_FIELD_OBJECT
                  : !strcmp(elem, "int")    ? ASMSPY_FIELD_INT
                  : !strcmp(elem, "hex")    ? ASMSPY_FIELD_HEX
                                            : ASMSPY_FIELD_STR;
    record_json_put(b, "[", 1);
    for (uint64_t i = 0; i < v->u.array.n; i++) {
      if (i) record_json_put(b, ",", 1);
      record_json_value(b, et, NULL, members, &v->u.array.items[i], esc);
    }
    record_json_put(b, "]", 1);
    break;
  }
  default: record_json_put(b, "null", 4); break;
  }
}

/* "name":value,... for every value that is not ABSENT. */
static inline void record_json_members(struct strbuf *b, const struct asmspy_field *fields,
                                       const struct asmspy_value *values, record_escape_fn esc) {
  int first = 1;
  for (size_t i = 0; fields[i].name; i++) {
    const struct asmspy_value *v = &values[i];
    if (v->state == ASMSPY_VALUE_ABSENT) continue;
    if (!first) record_json_put(b, ",", 1);
    record_json_put(b, "\"", 1);
    record_json_puts(b, fields[i].name);
    record_json_put(b, "\":", 2);
    first = 0;
    record_json_value(b, fields[i].type, fields[i].values, fields[i].fields, v, esc);
  }
}

/* The record's JSON body into b (appended; b->s stays NULL when the record
 * has no member to write). */
static inline void record_json_body(struct strbuf *b, const struct asmspy_record *rec,
                                    record_escape_fn esc) {
  if (rec && rec->schema && rec->schema->fields && rec->values)
    record_json_members(b, rec->schema->fields, rec->values, esc);
}

#endif
