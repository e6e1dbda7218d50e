/* record_check.c — one JSON record (or a nested object of one) against the
 * fields of its schema: the validator's member checks, for every record
 * type the host or a loaded view declares. The messages name the member
 * and what it must be, the way asmtrace-check reports them
 * ("insn.ip must be a \"0x\" hex string"). Members the schema does not name
 * are accepted: a newer writer may add some. */
#define _GNU_SOURCE
#include "host/record_schema.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int is_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
      return 0;
  }
  return 1;
}

/* "0x" followed by 1..16 hex digits. */
static int is_hex_addr(const struct json_value *v) {
  if (!v || v->type != JSON_STRING) return 0;
  const char *s = v->u.str.s;
  size_t n = v->u.str.len;
  return n >= 3 && n <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && is_hex(s + 2, n - 2);
}

/* Is s one of the '|'-separated choices? */
static int in_choices(const char *choices, const char *s, size_t len) {
  for (const char *p = choices; p && *p;) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n == len && memcmp(p, s, n) == 0) return 1;
    p = bar ? bar + 1 : NULL;
  }
  return 0;
}

/* "one of \"a\", \"b\", \"c\"" / "1, 2, 4 or 8" */
static void choices_text(char *out, size_t cap, const char *choices, int quoted) {
  size_t k = (size_t)snprintf(out, cap, "%s", quoted ? "one of " : "");
  int count = 1;
  for (const char *p = choices; *p; p++) count += *p == '|';
  int i = 0;
  for (const char *p = choices; p && *p && k < cap; i++) {
    const char *bar = strchr(p, '|');
    int n = bar ? (int)(bar - p) : (int)strlen(p);
    const char *sep = i == 0 ? "" : quoted ? ", " : i == count - 1 ? " or " : ", ";
    k += (size_t)snprintf(out + k, cap - k, quoted ? "%s\"%.*s\"" : "%s%.*s", sep, n, p);
    p = bar ? bar + 1 : NULL;
  }
}

/* What a value of field f must be, for the message. */
static void must_be(const struct asmspy_field *f, char *out, size_t cap) {
  const char *or_null = (f->flags & ASMSPY_FIELDF_NULLABLE) ? " or null" : "";
  switch (f->type) {
  case ASMSPY_FIELD_INT:
    if (f->values)
      choices_text(out, cap, f->values, 0);
    else if (f->flags & ASMSPY_FIELDF_NULLABLE)
      snprintf(out, cap, "an integer, or null");
    else if (f->max)
      snprintf(out, cap, "an integer in [%" PRId64 ", %" PRId64 "]", f->min, f->max);
    else if (f->min == INT64_MIN)
      snprintf(out, cap, "an integer");
    else if (f->min == 0)
      snprintf(out, cap, "an integer >= 0");
    else if (f->min == 1)
      snprintf(out, cap, "a positive integer");
    else
      snprintf(out, cap, "an integer >= %" PRId64, f->min);
    break;
  case ASMSPY_FIELD_STR: snprintf(out, cap, "a string%s", or_null); break;
  case ASMSPY_FIELD_HEX: snprintf(out, cap, "a \"0x\" hex string%s", or_null); break;
  case ASMSPY_FIELD_BOOL: snprintf(out, cap, "true or false%s", or_null); break;
  case ASMSPY_FIELD_ENUM: choices_text(out, cap, f->values ? f->values : "", 1); break;
  case ASMSPY_FIELD_NUMBER: snprintf(out, cap, "a number%s", or_null); break;
  case ASMSPY_FIELD_OBJECT: snprintf(out, cap, "an object%s", or_null); break;
  case ASMSPY_FIELD_BYTES:
    if (f->max)
      snprintf(out, cap, "a hex string of %" PRId64 "..%" PRId64 " digits, even length",
               2 * (f->min > 0 ? f->min : 0), 2 * f->max);
    else
      snprintf(out, cap, "a hex string of whole bytes (at least %" PRId64 ")",
               f->min > 0 ? f->min : 0);
    break;
  case ASMSPY_FIELD_ARRAY: {
    const char *e = f->values ? f->values : "";
    snprintf(out, cap, "an array of %s",
             !strcmp(e, "object")   ? "objects"
             : !strcmp(e, "string") ? "strings"
             : !strcmp(e, "int")    ? "integers"
             : !strcmp(e, "hex")    ? "\"0x\" hex strings"
                                    : "values");
    break;
  }
  default: snprintf(out, cap, "a value"); break;
  }
}

/* One scalar of type `type` (INT bounds and choices from f). */
static int scalar_ok(const struct asmspy_field *f, uint32_t type, const struct json_value *v) {
  switch (type) {
  case ASMSPY_FIELD_INT:
    if (v->type != JSON_INT) return 0;
    if (f && f->values) {
      char num[32];
      int n = snprintf(num, sizeof num, "%" PRId64, v->u.i);
      return in_choices(f->values, num, (size_t)n);
    }
    return !f || (v->u.i >= f->min && (!f->max || v->u.i <= f->max));
  case ASMSPY_FIELD_STR: return v->type == JSON_STRING;
  case ASMSPY_FIELD_HEX: return is_hex_addr(v);
  case ASMSPY_FIELD_BOOL: return v->type == JSON_BOOL;
  case ASMSPY_FIELD_NUMBER: return v->type == JSON_INT || v->type == JSON_DOUBLE;
  case ASMSPY_FIELD_ENUM:
    return v->type == JSON_STRING && f && in_choices(f->values, v->u.str.s, v->u.str.len);
  case ASMSPY_FIELD_BYTES: {
    if (v->type != JSON_STRING || v->u.str.len % 2 || !is_hex(v->u.str.s, v->u.str.len)) return 0;
    uint64_t nbytes = v->u.str.len / 2;
    int64_t least = f && f->min > 0 ? f->min : 0;
    return nbytes >= (uint64_t)least && (!f || !f->max || nbytes <= (uint64_t)f->max);
  }
  default: return 1;
  }
}

static uint32_t element_type(const char *e) {
  if (!e || !strcmp(e, "object")) return ASMSPY_FIELD_OBJECT;
  if (!strcmp(e, "string")) return ASMSPY_FIELD_STR;
  if (!strcmp(e, "int")) return ASMSPY_FIELD_INT;
  if (!strcmp(e, "hex")) return ASMSPY_FIELD_HEX;
  return 0; /* any */
}

static int fail(const struct asmspy_field *f, const char *what, const struct json_value *v,
                char *msg, size_t cap) {
  char must[160];
  must_be(f, must, sizeof must);
  if (!v)
    snprintf(msg, cap, "%s.%s is missing (must be %s)", what, f->name, must);
  else
    snprintf(msg, cap, "%s.%s must be %s", what, f->name, must);
  return -1;
}

int record_check(const struct json_value *obj, const struct asmspy_field *fields, const char *what,
                 char *msg, size_t cap) {
  if (!fields) return 0;
  for (size_t i = 0; fields[i].name; i++) {
    const struct asmspy_field *f = &fields[i];
    const struct json_value *v = json_get(obj, f->name);
    if (!v) {
      if (f->flags & ASMSPY_FIELDF_OPTIONAL) continue;
      return fail(f, what, NULL, msg, cap);
    }
    if (v->type == JSON_NULL) {
      if (f->flags & ASMSPY_FIELDF_NULLABLE) continue;
      return fail(f, what, v, msg, cap);
    }
    if (f->type == ASMSPY_FIELD_OBJECT) {
      if (v->type != JSON_OBJECT) return fail(f, what, v, msg, cap);
      char inner[96];
      snprintf(inner, sizeof inner, "%s.%s", what, f->name);
      if (record_check(v, f->fields, inner, msg, cap) != 0) return -1;
      continue;
    }
    if (f->type == ASMSPY_FIELD_ARRAY) {
      if (v->type != JSON_ARRAY) return fail(f, what, v, msg, cap);
      uint32_t et = element_type(f->values);
      char inner[96];
      snprintf(inner, sizeof inner, "%s.%s[]", what, f->name);
      for (size_t k = 0; k < json_array_len(v); k++) {
        const struct json_value *e = json_array_at(v, k);
        if (et == ASMSPY_FIELD_OBJECT) {
          if (e->type != JSON_OBJECT) return fail(f, what, v, msg, cap);
          if (record_check(e, f->fields, inner, msg, cap) != 0) return -1;
        } else if (et && !scalar_ok(NULL, et, e)) {
          return fail(f, what, v, msg, cap);
        }
      }
      continue;
    }
    if (!scalar_ok(f, f->type, v)) return fail(f, what, v, msg, cap);
  }
  return 0;
}
