/* plugins/common/record_emit.h — how an in-tree view writes a typed record:
 * value constructors (rv_int, rv_str, ...) and rec_emit(), which hands the
 * record to host->emit_record, or, on a host older than ABI 1.8 (or a
 * test's scripted host without it), renders the JSON body itself
 * (common/record_json.h, the host's own renderer) and calls host->emit: the
 * same bytes either way. */
#ifndef ASMSPY_PLUGINS_COMMON_RECORD_EMIT_H
#define ASMSPY_PLUGINS_COMMON_RECORD_EMIT_H

#include "asmspy/plugin.h"
#include "common/record_fields.h"
#include "common/record_json.h"

#include <stdint.h>
#include <string.h>

static inline struct asmspy_value rv_absent(void) {
  struct asmspy_value v;
  memset(&v, 0, sizeof v);
  return v;
}
static inline struct asmspy_value rv_null(void) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_NULL;
  return v;
}
static inline struct asmspy_value rv_int(int64_t i) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.i = i;
  return v;
}
static inline struct asmspy_value rv_hex(uint64_t u) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.u = u;
  return v;
}
static inline struct asmspy_value rv_bool(int b) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.b = b != 0;
  return v;
}
static inline struct asmspy_value rv_strn(const char *s, size_t len) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.str.s = s;
  v.u.str.len = len;
  return v;
}
/* A string; NULL is written as null (the field must be NULLABLE). */
static inline struct asmspy_value rv_str(const char *s) {
  return s ? rv_strn(s, strlen(s)) : rv_null();
}
static inline struct asmspy_value rv_bytes(const uint8_t *p, size_t len) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.bytes.p = p;
  v.u.bytes.len = len;
  return v;
}
static inline struct asmspy_value rv_array(const struct asmspy_value *items, size_t n) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.array.items = items;
  v.u.array.n = n;
  return v;
}
static inline struct asmspy_value rv_object(const struct asmspy_value *values) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_SET;
  v.u.object.values = values;
  return v;
}
/* A nested part as JSON text the view rendered (no consumer reads it typed). */
static inline struct asmspy_value rv_json(const char *json) {
  struct asmspy_value v = rv_absent();
  v.state = ASMSPY_VALUE_JSON;
  v.u.json.s = json;
  return v;
}

/* Write one record of `schema` (one of the view's `records`) through the host. */
static inline int rec_emit(const struct asmspy_host_api *h, struct asmspy_out *out,
                           const struct asmspy_record_schema *schema,
                           const struct asmspy_value *values, const char *text) {
  struct asmspy_record rec;
  memset(&rec, 0, sizeof rec);
  ASMSPY_INIT_HEADER(&rec);
  rec.schema = schema;
  rec.values = values;
  rec.text = text;
  if (ASMSPY_HAS(h, emit_record) && h->emit_record) return h->emit_record(out, &rec);
  if (ASMSPY_HAS(h, wants_json) && h->wants_json && !h->wants_json(out))
    return h->emit(out, schema->type, NULL, text); /* nobody reads the body */
  struct strbuf b = {0};
  record_json_body(&b, &rec, h->json_escape);
  int rc = b.oom ? -1 : h->emit(out, schema->type, b.s, text);
  strbuf_free(&b);
  return rc;
}

#endif
