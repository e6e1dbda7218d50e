/* roles: the TUI's screens from field roles (see roles.h). */
#include "tui/roles.h"

#include "asmspy-internal/json.h"

#include <stdlib.h>
#include <string.h>

static uint32_t fields_roles(const struct asmspy_field *f, int depth) {
  uint32_t r = 0;
  for (size_t i = 0; f && f[i].name; i++) {
    r |= f[i].flags & ASMSPY_FIELDF_ROLES;
    if (f[i].fields && depth < 4) r |= fields_roles(f[i].fields, depth + 1);
  }
  return r;
}

uint32_t tui_schema_roles(const struct asmspy_record_schema *records) {
  uint32_t r = 0;
  for (size_t i = 0; records && records[i].type; i++) r |= fields_roles(records[i].fields, 0);
  return r;
}

enum tui_screen_kind tui_screen_for(uint32_t roles, uint32_t layout) {
  if (roles & (ASMSPY_FIELDF_SORT_KEY | ASMSPY_FIELDF_DRILL_PID | ASMSPY_FIELDF_DRILL_ADDR))
    return TUI_SCREEN_TABLE;
  if (roles & (ASMSPY_FIELDF_PANE | ASMSPY_FIELDF_DRILL_FUNC)) return TUI_SCREEN_TWO_PANE;
  if (roles) return TUI_SCREEN_FEED;
  switch (layout) { /* a view without roles: its layout, generically */
  case ASMSPY_TUI_RANKED:
  case ASMSPY_TUI_TOPOLOGY:
  case ASMSPY_TUI_EDGES: return TUI_SCREEN_TABLE;
  case ASMSPY_TUI_REGION:
  case ASMSPY_TUI_CALLS: return TUI_SCREEN_TWO_PANE;
  default: return TUI_SCREEN_FEED;
  }
}

static size_t add_keys(const struct asmspy_field *f, char names[][32], size_t n, size_t max) {
  for (size_t i = 0; f && f[i].name && n < max; i++) {
    if (f[i].flags & ASMSPY_FIELDF_SORT_KEY) {
      size_t k = 0;
      while (k < n && strcmp(names[k], f[i].name) != 0) k++;
      if (k == n) {
        size_t l = strnlen(f[i].name, 31);
        memcpy(names[n], f[i].name, l);
        names[n++][l] = '\0';
      }
    }
    if (f[i].type == ASMSPY_FIELD_ARRAY && f[i].fields) n = add_keys(f[i].fields, names, n, max);
  }
  return n;
}

size_t tui_sort_keys(const struct asmspy_record_schema *records, char names[][32], size_t max) {
  size_t n = 0;
  for (size_t i = 0; records && records[i].type; i++)
    n = add_keys(records[i].fields, names, n, max);
  return n;
}

const struct asmspy_field *tui_field_with(const struct asmspy_field *fields, uint32_t role,
                                          size_t *from) {
  for (size_t i = from ? *from : 0; fields && fields[i].name; i++)
    if (fields[i].flags & role) {
      if (from) *from = i + 1;
      return &fields[i];
    }
  return NULL;
}

const struct asmspy_field *tui_row_array(const struct asmspy_record_schema *schema) {
  for (size_t i = 0; schema && schema->fields && schema->fields[i].name; i++) {
    const struct asmspy_field *f = &schema->fields[i];
    if (f->type == ASMSPY_FIELD_ARRAY && f->fields && f->values && !strcmp(f->values, "object") &&
        tui_field_with(f->fields, TUI_ROW_ROLES, NULL))
      return f;
  }
  return NULL;
}

int tui_rec_is_row(const struct tui_rec *r) {
  return r && r->typed && r->typed->schema &&
         tui_field_with(r->typed->schema->fields, TUI_ROW_ROLES, NULL) != NULL;
}

void tui_elems_of(const struct tui_rec *r, const struct asmspy_field *field,
                  struct tui_elems *out) {
  memset(out, 0, sizeof *out);
  out->field = field;
  const struct asmspy_value *v = field ? tui_rec_get(r, field->name) : NULL;
  if (!v) return;
  if (v->state == ASMSPY_VALUE_SET) {
    out->items = v->u.array.items;
    out->n = (size_t)v->u.array.n;
  } else if (v->state == ASMSPY_VALUE_JSON && v->u.json.s) {
    struct json_value *j = json_parse(v->u.json.s, strlen(v->u.json.s), NULL);
    if (j && j->type == JSON_ARRAY) {
      out->parsed = j;
      out->n = j->u.arr.n;
    } else {
      json_free(j);
    }
  }
}

void tui_elems_free(struct tui_elems *e) {
  json_free(e->parsed);
  memset(e, 0, sizeof *e);
}

struct tui_row tui_elems_row(const struct tui_elems *e, const struct tui_rec *r, size_t k) {
  struct tui_row row = {.rec = r, .fields = e->field ? e->field->fields : NULL};
  if (k >= e->n) return (struct tui_row){0};
  if (e->items)
    row.values = e->items[k].state == ASMSPY_VALUE_SET ? e->items[k].u.object.values : NULL;
  else if (e->parsed)
    row.json = json_array_at(e->parsed, k);
  return row;
}

struct tui_row tui_rec_row(const struct tui_rec *r) {
  struct tui_row row = {.rec = r};
  if (r && r->typed && r->typed->schema) {
    row.fields = r->typed->schema->fields;
    row.values = r->typed->values;
  }
  return row;
}

int tui_row_u64(const struct tui_row *row, const char *name, uint64_t *out) {
  if (!row || !row->fields) return 0;
  const struct asmspy_field *f = asmspy_field_of(row->fields, name);
  if (!f) return 0;
  if (row->values) {
    const struct asmspy_value *v = asmspy_value_of(row->fields, row->values, name);
    if (!v || v->state != ASMSPY_VALUE_SET) return 0;
    switch (f->type) {
    case ASMSPY_FIELD_INT: *out = (uint64_t)v->u.i; return 1;
    case ASMSPY_FIELD_HEX: *out = v->u.u; return 1;
    case ASMSPY_FIELD_NUMBER: *out = (uint64_t)(int64_t)v->u.d; return 1;
    case ASMSPY_FIELD_BOOL: *out = v->u.b; return 1;
    default: return 0;
    }
  }
  const struct json_value *j = json_get(row->json, name);
  if (!j) return 0;
  switch (j->type) {
  case JSON_INT: *out = (uint64_t)j->u.i; return 1;
  case JSON_DOUBLE: *out = (uint64_t)(int64_t)j->u.d; return 1;
  case JSON_BOOL: *out = (uint64_t)j->u.boolean; return 1;
  case JSON_STRING:
    if (strncmp(j->u.str.s, "0x", 2) != 0) return 0;
    *out = strtoull(j->u.str.s + 2, NULL, 16);
    return 1;
  default: return 0;
  }
}

int tui_row_i64(const struct tui_row *row, const char *name, int64_t *out) {
  uint64_t u;
  if (!tui_row_u64(row, name, &u)) return 0;
  *out = (int64_t)u;
  return 1;
}
