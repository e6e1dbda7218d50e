/* host/strbuf.h — the host's growable string: printf-append and JSON
 * strings, for building output lines and JSON documents (output.c,
 * procinfo.c).
 *
 * A zeroed struct strbuf is empty and ready; s is NUL-terminated once
 * anything was appended (NULL before). An allocation failure sets oom and
 * makes every later append a no-op, so a caller checks once at the end; the
 * caller frees s.
 */
#ifndef ASMSPY_HOST_STRBUF_H
#define ASMSPY_HOST_STRBUF_H

#include <stddef.h>

struct strbuf {
  char *s;
  size_t len, cap;
  int oom; /* an append failed: the content is incomplete */
};

/* Append printf-formatted text. */
void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append a quoted JSON string of len bytes / of the C string s. */
void strbuf_json_strn(struct strbuf *b, const char *s, size_t len);
void strbuf_json_str(struct strbuf *b, const char *s);

#endif /* ASMSPY_HOST_STRBUF_H */
