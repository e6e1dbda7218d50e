/* common/strbuf.h — asmspy's one growable text buffer with printf-append:
 * the host builds output lines and JSON documents in it (output.c, scope.c,
 * codeimage.c, the CLI's procinfo and serve), the view plugins a record's
 * text / JSON body before handing it to host->emit. Header-only (static
 * inline) because plugins never link the host; the host's JSON-string
 * appends, which need its escaper, are strbuf_json_str/strn in asmspy-internal/json.h.
 *
 * A zeroed struct strbuf is empty and ready; s is NUL-terminated once
 * anything was appended (NULL before). An allocation failure sets oom and
 * makes every later append a no-op instead of aborting: a view then emits a
 * shorter line, the host checks once at the end; never a crash in the
 * tracer. The owner frees s (free(b.s) or strbuf_free). */
#ifndef ASMSPY_COMMON_STRBUF_H
#define ASMSPY_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct strbuf {
  char *s; /* NUL-terminated once anything was appended; NULL before */
  size_t len, cap;
  int oom; /* an append failed: the content is incomplete */
};

/* Room for `more` bytes plus the NUL (doubling, so appends stay amortized O(1)). */
static inline void strbuf_reserve(struct strbuf *b, size_t more) {
  if (b->oom || b->len + more + 1 <= b->cap) return;
  size_t nc = b->cap ? b->cap : 256;
  while (nc < b->len + more + 1) nc *= 2;
  char *ns = (char *)realloc(b->s, nc);
  if (!ns) {
    b->oom = 1;
    return;
  }
  b->s = ns;
  b->cap = nc;
}

/* Append printf-formatted text: formatted straight into the free room when
 * it fits, else once more after growing. */
static inline void strbuf_addf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void strbuf_addf(struct strbuf *b, const char *fmt, ...) {
  if (b->oom) return;
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
  strbuf_reserve(b, (size_t)n);
  if (b->oom) {
    if (b->s) b->s[b->len] = '\0'; /* drop the part the first try wrote */
    return;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Append n bytes of s (no formatting: the fast path for copied text). */
static inline void strbuf_addn(struct strbuf *b, const char *s, size_t n) {
  strbuf_reserve(b, n);
  if (b->oom) return;
  __builtin_memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

/* Empty it, keeping the allocation. */
static inline void strbuf_clear(struct strbuf *b) {
  b->len = 0;
  if (b->s) b->s[0] = '\0';
}

/* Release the text and reset to the zeroed, empty state. */
static inline void strbuf_free(struct strbuf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

#endif /* ASMSPY_COMMON_STRBUF_H */
