/* recording_codeimage.c — the reader's side of the `codeimage` events
 * (docs/asmtrace-schema.md): collect every version of every recorded code
 * region, then answer "which bytes were at addr at logical time t?" with the
 * version of greatest `when` <= t that covers addr. A JIT can reuse an
 * address for different code, so the answer depends on t; bytes read from
 * the live process later would describe code that may never have run. */
#define _GNU_SOURCE
#include "recording.h"

#include <stdlib.h>
#include <string.h>

struct ci_version {
  uint64_t base, len, version, when;
  uint8_t *bytes;
};

struct recording_codeimages {
  struct ci_version *v;
  size_t n, cap;
};

struct recording_codeimages *recording_codeimages_new(void) {
  return calloc(1, sizeof(struct recording_codeimages));
}

void recording_codeimages_free(struct recording_codeimages *ci) {
  if (!ci) return;
  for (size_t i = 0; i < ci->n; i++) free(ci->v[i].bytes);
  free(ci->v);
  free(ci);
}

size_t recording_codeimages_count(const struct recording_codeimages *ci) { return ci ? ci->n : 0; }

static int hex_nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int parse_hex_u64(const char *s, uint64_t *out) {
  if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || strlen(s) > 18) return -1;
  uint64_t v = 0;
  for (s += 2; *s; s++) {
    int d = hex_nibble(*s);
    if (d < 0) return -1;
    v = v << 4 | (uint64_t)d;
  }
  *out = v;
  return 0;
}

int recording_codeimages_add(struct recording_codeimages *ci, const struct json_value *ev) {
  const char *type = json_get_str(ev, "type");
  if (!ci || !type || strcmp(type, "codeimage") != 0) return -1;
  struct ci_version v = {0};
  int64_t len, version, when;
  const struct json_value *hex = json_get(ev, "bytes");
  if (parse_hex_u64(json_get_str(ev, "base"), &v.base) != 0 || !json_get_int(ev, "len", &len) ||
      len <= 0 || !json_get_int(ev, "version", &version) || version <= 0 ||
      !json_get_int(ev, "when", &when) || when <= 0 || !hex || hex->type != JSON_STRING ||
      hex->u.str.len != 2 * (size_t)len)
    return -1;
  v.len = (uint64_t)len;
  v.version = (uint64_t)version;
  v.when = (uint64_t)when;
  v.bytes = malloc(v.len);
  if (!v.bytes) return -1;
  for (uint64_t i = 0; i < v.len; i++) {
    int hi = hex_nibble(hex->u.str.s[2 * i]), lo = hex_nibble(hex->u.str.s[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(v.bytes);
      return -1;
    }
    v.bytes[i] = (uint8_t)(hi << 4 | lo);
  }
  if (ci->n == ci->cap) {
    size_t nc = ci->cap ? ci->cap * 2 : 8;
    struct ci_version *n = realloc(ci->v, nc * sizeof *n);
    if (!n) {
      free(v.bytes);
      return -1;
    }
    ci->v = n;
    ci->cap = nc;
  }
  ci->v[ci->n++] = v;
  return 0;
}

size_t recording_codeimages_at(const struct recording_codeimages *ci, uint64_t addr, uint64_t t,
                               uint8_t *buf, size_t cap, uint64_t *version, uint64_t *when) {
  const struct ci_version *best = NULL;
  for (size_t i = 0; ci && i < ci->n; i++) {
    const struct ci_version *v = &ci->v[i];
    if (v->when > t || addr < v->base || addr - v->base >= v->len) continue;
    if (!best || v->when > best->when) best = v;
  }
  if (!best) return 0;
  size_t n = (size_t)(best->len - (addr - best->base));
  if (n > cap) n = cap;
  memcpy(buf, best->bytes + (addr - best->base), n);
  if (version) *version = best->version;
  if (when) *when = best->when;
  return n;
}
