/* common/textbuf.h — a growable text buffer with printf-append, for
 * view plugins that render a record's text / JSON body before handing it to
 * host->emit. (The host has its own, host/strbuf.c; plugins never link the
 * host, so this is the plugins' one copy: header-only, static inline.)
 *
 * An allocation failure sets oom and drops further appends instead of
 * aborting: a view then emits a shorter line, never crashes the tracer. */
#ifndef ASMSPY_PLUGINS_COMMON_TEXTBUF_H
#define ASMSPY_PLUGINS_COMMON_TEXTBUF_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct sb {
  char *s; /* NUL-terminated once anything was appended; NULL before */
  size_t len, cap;
  int oom;
};

/* Room for `more` bytes plus the NUL. */
static inline void sb_reserve(struct sb *b, size_t more) {
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

static inline void sb_addf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void sb_addf(struct sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  sb_reserve(b, (size_t)n);
  if (b->oom) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* Empty it, keeping the allocation. */
static inline void sb_clear(struct sb *b) {
  b->len = 0;
  if (b->s) b->s[0] = '\0';
}

static inline void sb_free(struct sb *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

#endif
