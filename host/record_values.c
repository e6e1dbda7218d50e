/* record_values.c — reading typed records (struct asmspy_record): a
 * member's value by name, and a deep copy an embedder keeps after the emit
 * (the TUI holds the records it draws; a record's values otherwise live only
 * during the call). */
#include "asmspy/asmspy.h"

#include <stdlib.h>
#include <string.h>

const struct asmspy_field *asmspy_field_of(const struct asmspy_field *fields, const char *name) {
  for (size_t i = 0; fields && name && fields[i].name; i++)
    if (!strcmp(fields[i].name, name)) return &fields[i];
  return NULL;
}

const struct asmspy_value *asmspy_value_of(const struct asmspy_field *fields,
                                           const struct asmspy_value *values, const char *name) {
  const struct asmspy_field *f = asmspy_field_of(fields, name);
  if (!f || !values) return NULL;
  const struct asmspy_value *v = &values[f - fields];
  return v->state == ASMSPY_VALUE_ABSENT ? NULL : v;
}

const struct asmspy_value *asmspy_record_get(const struct asmspy_record *rec, const char *name) {
  if (!rec || !rec->schema) return NULL;
  return asmspy_value_of(rec->schema->fields, rec->values, name);
}

/* ---- the copy: measure, then lay everything out in one block ---------- */

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

static size_t nfields(const struct asmspy_field *f) {
  size_t n = 0;
  while (f && f[n].name) n++;
  return n;
}

static uint32_t elem_type(const char *e) {
  if (!e || !strcmp(e, "string")) return ASMSPY_FIELD_STR;
  if (!strcmp(e, "object")) return ASMSPY_FIELD_OBJECT;
  if (!strcmp(e, "int")) return ASMSPY_FIELD_INT;
  if (!strcmp(e, "hex")) return ASMSPY_FIELD_HEX;
  return ASMSPY_FIELD_STR;
}

/* Bytes the things v points at need (not v itself). */
static size_t value_extra(uint32_t type, const char *elem, const struct asmspy_field *members,
                          const struct asmspy_value *v) {
  if (v->state == ASMSPY_VALUE_JSON) return v->u.json.s ? ALIGN8(strlen(v->u.json.s) + 1) : 0;
  if (v->state != ASMSPY_VALUE_SET) return 0;
  switch (type) {
  case ASMSPY_FIELD_STR:
  case ASMSPY_FIELD_ENUM: return v->u.str.s ? ALIGN8(v->u.str.len + 1) : 0;
  case ASMSPY_FIELD_BYTES: return v->u.bytes.p ? ALIGN8(v->u.bytes.len) : 0;
  case ASMSPY_FIELD_OBJECT: {
    size_t n = nfields(members), sz = n * sizeof(struct asmspy_value);
    for (size_t i = 0; v->u.object.values && i < n; i++)
      sz += value_extra(members[i].type, members[i].values, members[i].fields,
                        &v->u.object.values[i]);
    return v->u.object.values ? sz : 0;
  }
  case ASMSPY_FIELD_ARRAY: {
    uint32_t et = elem_type(elem);
    size_t sz = v->u.array.n * sizeof(struct asmspy_value);
    for (uint64_t i = 0; v->u.array.items && i < v->u.array.n; i++)
      sz += value_extra(et, NULL, members, &v->u.array.items[i]);
    return v->u.array.items ? sz : 0;
  }
  default: return 0;
  }
}

static void *take(char **at, size_t n) {
  void *p = *at;
  *at += ALIGN8(n);
  return p;
}

static void value_copy(uint32_t type, const char *elem, const struct asmspy_field *members,
                       struct asmspy_value *dst, const struct asmspy_value *src, char **at) {
  *dst = *src;
  if (src->state == ASMSPY_VALUE_JSON) {
    if (src->u.json.s) dst->u.json.s = strcpy(take(at, strlen(src->u.json.s) + 1), src->u.json.s);
    return;
  }
  if (src->state != ASMSPY_VALUE_SET) return;
  switch (type) {
  case ASMSPY_FIELD_STR:
  case ASMSPY_FIELD_ENUM:
    if (src->u.str.s) {
      char *s = take(at, src->u.str.len + 1);
      memcpy(s, src->u.str.s, src->u.str.len);
      s[src->u.str.len] = '\0';
      dst->u.str.s = s;
    }
    break;
  case ASMSPY_FIELD_BYTES:
    if (src->u.bytes.p)
      dst->u.bytes.p = memcpy(take(at, src->u.bytes.len), src->u.bytes.p, src->u.bytes.len);
    break;
  case ASMSPY_FIELD_OBJECT:
    if (src->u.object.values) {
      size_t n = nfields(members);
      struct asmspy_value *vals = take(at, n * sizeof *vals);
      for (size_t i = 0; i < n; i++)
        value_copy(members[i].type, members[i].values, members[i].fields, &vals[i],
                   &src->u.object.values[i], at);
      dst->u.object.values = vals;
    }
    break;
  case ASMSPY_FIELD_ARRAY:
    if (src->u.array.items) {
      uint32_t et = elem_type(elem);
      struct asmspy_value *items = take(at, src->u.array.n * sizeof *items);
      for (uint64_t i = 0; i < src->u.array.n; i++)
        value_copy(et, NULL, members, &items[i], &src->u.array.items[i], at);
      dst->u.array.items = items;
    }
    break;
  default: break;
  }
}

struct asmspy_record *asmspy_record_copy(const struct asmspy_record *rec) {
  if (!rec || !rec->schema || !rec->values) return NULL;
  struct asmspy_field top = {
      .name = "", .type = ASMSPY_FIELD_OBJECT, .fields = rec->schema->fields};
  struct asmspy_value whole = {.state = ASMSPY_VALUE_SET};
  whole.u.object.values = rec->values;
  size_t textlen = rec->text ? strlen(rec->text) + 1 : 0;
  size_t size = ALIGN8(sizeof(struct asmspy_record)) +
                value_extra(top.type, NULL, top.fields, &whole) + ALIGN8(textlen);
  char *block = calloc(1, size);
  if (!block) return NULL;
  char *at = block;
  struct asmspy_record *copy = take(&at, sizeof *copy);
  *copy = *rec;
  copy->struct_size = sizeof *copy;
  struct asmspy_value out;
  value_copy(top.type, NULL, top.fields, &out, &whole, &at);
  copy->values = out.u.object.values;
  copy->text = rec->text ? strcpy(take(&at, textlen), rec->text) : NULL;
  return copy;
}
