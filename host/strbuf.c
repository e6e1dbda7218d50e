/* strbuf: the host's growable string (interface in strbuf.h). */
#include "host/strbuf.h"
#include "host/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_addf(struct strbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->s && (size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t want = b->len + (size_t)n + 1024;
    char *ns = realloc(b->s, want);
    if (!ns) {
      b->oom = 1;
      return;
    }
    b->s = ns;
    b->cap = want;
  }
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
