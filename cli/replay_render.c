/* replay_render.c — what --replay prints for a record from its schema
 * alone (the CLI knows no view): the human line of a recording made before
 * event lines carried "human" (the schema's text template, see
 * asmspy_record_schema.text), and the --disasm heading of a record that
 * carries executed instructions (its TITLE fields). */
#define _GNU_SOURCE
#include "cli/replay_render.h"

#include "common/ctl_escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A string from the recording, with its control bytes rendered visibly. */
static void put_clean(struct strbuf *out, const char *s, size_t len) {
  size_t need = ctl_text_sanitize(NULL, 0, s, len, 0);
  char *buf = malloc(need + 1);
  if (!buf) return;
  ctl_text_sanitize(buf, need + 1, s, len, 0);
  strbuf_addf(out, "%s", buf);
  free(buf);
}

/* One member's value as text ("?" when absent or null). */
static void put_value(struct strbuf *out, const struct json_value *v, int hex) {
  if (!v || v->type == JSON_NULL) {
    strbuf_addf(out, "?");
  } else if (v->type == JSON_STRING) {
    put_clean(out, v->u.str.s, v->u.str.len);
  } else if (v->type == JSON_INT) {
    if (hex)
      strbuf_addf(out, "%" PRIx64, (uint64_t)v->u.i);
    else
      strbuf_addf(out, "%" PRId64, v->u.i);
  } else if (v->type == JSON_BOOL) {
    strbuf_addf(out, "%s", v->u.boolean ? "true" : "false");
  } else if (v->type == JSON_DOUBLE) {
    strbuf_addf(out, "%g", v->u.d);
  } else {
    strbuf_addf(out, "?");
  }
}

/* The end of the directive opened at p[-1] == '{' (its '}'), or NULL. */
static const char *closing(const char *p, const char *end) {
  int depth = 1;
  for (; p < end; p++) {
    if (*p == '{')
      depth++;
    else if (*p == '}' && --depth == 0)
      return p;
  }
  return NULL;
}

/* The first c at nesting depth 0 in [p, end), or end. */
static const char *top_level(const char *p, const char *end, char c) {
  int depth = 0;
  for (; p < end; p++) {
    if (*p == '{')
      depth++;
    else if (*p == '}')
      depth--;
    else if (*p == c && depth == 0)
      return p;
  }
  return end;
}

static void expand(const char *p, const char *end, const struct json_value *ev, struct strbuf *out);

static void directive(const char *in, const char *end, const struct json_value *ev,
                      struct strbuf *out) {
  char name[64];
  const char *colon = top_level(in, end, ':');
  if (in < end && (*in == '?' || *in == '*' || *in == '-')) {
    size_t n = (size_t)(colon - in - 1);
    if (n >= sizeof name) return;
    memcpy(name, in + 1, n);
    name[n] = '\0';
    const char *body = colon < end ? colon + 1 : end;
    if (*in == '?') { /* {?name:A|B} */
      const struct json_value *v = json_get(ev, name);
      const char *bar = top_level(body, end, '|');
      if (v && v->type != JSON_NULL)
        expand(body, bar, ev, out);
      else if (bar < end)
        expand(bar + 1, end, ev, out);
    } else if (*in == '*') { /* {*name:A} */
      int64_t times = 0;
      json_get_int(ev, name, &times);
      for (int64_t i = 0; i < times && i < 64; i++) expand(body, end, ev, out);
    } else { /* {-N:A} */
      size_t width = (size_t)strtoul(name, NULL, 10), before = out->len;
      expand(body, end, ev, out);
      for (size_t w = out->len - before; w < width; w++) strbuf_addf(out, " ");
    }
    return;
  }
  size_t n = (size_t)(colon - in);
  if (n >= sizeof name) return;
  memcpy(name, in, n);
  name[n] = '\0';
  put_value(out, json_get(ev, name), colon < end && colon[1] == 'x');
}

static void expand(const char *p, const char *end, const struct json_value *ev,
                   struct strbuf *out) {
  while (p < end) {
    const char *brace = memchr(p, '{', (size_t)(end - p));
    if (!brace) brace = end;
    if (brace > p) strbuf_addf(out, "%.*s", (int)(brace - p), p);
    if (brace == end) return;
    const char *close = closing(brace + 1, end);
    if (!close) return; /* a broken template: the rest is dropped */
    directive(brace + 1, close, ev, out);
    p = close + 1;
  }
}

int replay_text(const struct asmspy_record_schema *schema, const struct json_value *ev,
                struct strbuf *out) {
  if (!schema || !schema->text) return 0;
  expand(schema->text, schema->text + strlen(schema->text), ev, out);
  return 1;
}

void replay_heading(const struct asmspy_record_schema *schema, const struct json_value *ev,
                    int64_t seq, struct strbuf *out) {
  put_clean(out, schema->type, strlen(schema->type));
  int first = 1;
  for (const struct asmspy_field *f = schema->fields; f && f->name; f++) {
    if (!(f->flags & ASMSPY_FIELDF_TITLE)) continue;
    const struct json_value *v = json_get(ev, f->name);
    if (first) {
      strbuf_addf(out, " %s", v && v->type == JSON_INT ? "#" : "");
      put_value(out, v, 0);
      strbuf_addf(out, " (seq %" PRId64 ")", seq);
      first = 0;
    } else {
      strbuf_addf(out, " %s=", f->name);
      put_value(out, v, 0);
    }
  }
  if (first) strbuf_addf(out, " (seq %" PRId64 ")", seq);
}
