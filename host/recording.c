/* recording.c — .asmtrace reader + validator (schema version 1,
 * docs/asmtrace-schema.md). One state machine serves both the iterator
 * (recording_open/next/close) and the whole-file validator
 * (recording_validate), so a consumer and asmtrace-check always agree on
 * what a valid recording is. Lines come from a small buffered reader with a
 * hard per-line cap: a hostile file can make us neither crash nor allocate
 * more than RECORDING_MAX_LINE + one read block. */
#define _GNU_SOURCE
#include "recording.h"
#include "host/record_schema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ========================================================================= */
/* Capped line reader                                                         */
/* ========================================================================= */

#define READ_BLOCK 65536

enum line_result {
  LINE_OK = 1,      /* a '\n'-terminated line */
  LINE_PARTIAL = 2, /* the last line of the input, without '\n' */
  LINE_EOF = 0,     /* nothing more */
  LINE_TOO_LONG = -1,
  LINE_IO_ERROR = -2,
  LINE_NOMEM = -3,
};

struct line_reader {
  FILE *f;
  unsigned char *blk; /* READ_BLOCK bytes */
  size_t pos, fill;
  int eof;
  char *line; /* current line, NUL-terminated, without '\n' */
  size_t len, cap;
};

static int line_append(struct line_reader *lr, const unsigned char *p, size_t n) {
  if (n > RECORDING_MAX_LINE - lr->len) return LINE_TOO_LONG;
  size_t need = lr->len + n + 1;
  if (need > lr->cap) {
    size_t nc = lr->cap ? lr->cap : 4096;
    while (nc < need) nc *= 2;
    if (nc > RECORDING_MAX_LINE + 1) nc = RECORDING_MAX_LINE + 1;
    char *nl = realloc(lr->line, nc);
    if (!nl) return LINE_NOMEM;
    lr->line = nl;
    lr->cap = nc;
  }
  memcpy(lr->line + lr->len, p, n);
  lr->len += n;
  lr->line[lr->len] = '\0';
  return 0;
}

static int read_line(struct line_reader *lr) {
  lr->len = 0;
  if (lr->line) lr->line[0] = '\0';
  for (;;) {
    if (lr->pos == lr->fill) {
      if (lr->eof) return lr->len ? LINE_PARTIAL : LINE_EOF;
      lr->pos = 0;
      lr->fill = fread(lr->blk, 1, READ_BLOCK, lr->f);
      if (lr->fill == 0) {
        if (ferror(lr->f)) return LINE_IO_ERROR;
        lr->eof = 1;
        continue;
      }
    }
    const unsigned char *s = lr->blk + lr->pos;
    size_t avail = lr->fill - lr->pos;
    const unsigned char *nl = memchr(s, '\n', avail);
    size_t take = nl ? (size_t)(nl - s) : avail;
    int r = line_append(lr, s, take);
    if (r) return r;
    lr->pos += take;
    if (nl) {
      lr->pos++;                                                      /* the '\n' */
      if (!lr->line && line_append(lr, s, 0) != 0) return LINE_NOMEM; /* empty first line */
      return LINE_OK;
    }
  }
}

/* ========================================================================= */
/* Reader state                                                               */
/* ========================================================================= */

enum rec_state {
  ST_HEADER,    /* next line must be the header */
  ST_EVENTS,    /* events, or the footer */
  ST_AFTER_END, /* footer read: only EOF may follow */
  ST_DONE,      /* returned 0 */
  ST_FAILED,    /* returned -1 */
};

struct recording {
  struct line_reader lr;
  FILE *owned; /* closed by recording_close (NULL for stdin / caller's FILE) */
  enum rec_state state;
  struct asmspy_recording_report rep;
  struct json_value *header, *footer, *event;
  uint64_t lineno;
};

const char *recording_verdict_name(int verdict) {
  switch (verdict) {
  case RECORDING_VALID: return "valid";
  case RECORDING_TRUNCATED: return "truncated";
  default: return "invalid";
  }
}

static void copy_str(char *dst, size_t cap, const char *src) {
  if (!src) src = "";
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
    /* do not leave half a UTF-8 sequence at the cut */
    while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* Stop at line `line` with verdict INVALID. Returns -1. */
static int invalid(struct recording *rec, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int invalid(struct recording *rec, uint64_t line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rec->rep.error, sizeof rec->rep.error, fmt, ap);
  va_end(ap);
  rec->rep.error_line = line;
  rec->rep.verdict = RECORDING_INVALID;
  rec->state = ST_FAILED;
  return -1;
}

static void warn(struct recording *rec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct recording *rec, const char *fmt, ...) {
  if (rec->rep.warning[0]) return; /* keep the first */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rec->rep.warning, sizeof rec->rep.warning, fmt, ap);
  va_end(ap);
}

/* ========================================================================= */
/* Member checks. Each returns NULL when fine, else a message in rec->msg.    */
/* ========================================================================= */

struct checker {
  const struct json_value *obj;
  const char *what; /* "header", "end", ... for messages */
  char msg[200];
  int bad;
};

static int check_fail(struct checker *c, const char *member, const char *must) {
  if (c->bad) return -1;
  c->bad = 1;
  if (!json_get(c->obj, member))
    snprintf(c->msg, sizeof c->msg, "%s.%s is missing (must be %s)", c->what, member, must);
  else
    snprintf(c->msg, sizeof c->msg, "%s.%s must be %s", c->what, member, must);
  return -1;
}

static const char *need_str(struct checker *c, const char *member) {
  const char *s = json_get_str(c->obj, member);
  if (!s) check_fail(c, member, "a string");
  return s;
}

/* A string or null: returns 1 for a string (*out set), 0 for null, -1 bad. */
static int need_str_or_null(struct checker *c, const char *member, const char **out) {
  const struct json_value *v = json_get(c->obj, member);
  if (v && v->type == JSON_STRING) {
    *out = v->u.str.s;
    return 1;
  }
  if (v && v->type == JSON_NULL) return 0;
  check_fail(c, member, "a string or null");
  return -1;
}

static int need_int(struct checker *c, const char *member, int64_t min, int64_t *out) {
  int64_t v;
  if (!json_get_int(c->obj, member, &v) || v < min) {
    check_fail(c, member,
               min == INT64_MIN ? "an integer"
               : min == 0       ? "an integer >= 0"
                                : "a positive integer");
    return -1;
  }
  if (out) *out = v;
  return 0;
}

/* Optional integer: absent is fine, present must be an integer >= min. */
static void opt_int(struct checker *c, const char *member, int64_t min) {
  if (json_get(c->obj, member)) need_int(c, member, min, NULL);
}

static const char *need_enum(struct checker *c, const char *member, const char *const *allowed,
                             const char *must) {
  const char *s = json_get_str(c->obj, member);
  if (s)
    for (size_t i = 0; allowed[i]; i++)
      if (strcmp(s, allowed[i]) == 0) return s;
  check_fail(c, member, must);
  return NULL;
}

/* ========================================================================= */
/* Line kinds                                                                 */
/* ========================================================================= */

static int check_header(struct recording *rec, const struct json_value *h) {
  struct checker c = {.obj = h, .what = "header"};
  struct asmspy_recording_report *rep = &rec->rep;
  const char *format = json_get_str(h, "format");
  if (!format || strcmp(format, "asmtrace") != 0)
    return invalid(rec, rec->lineno, "header.format must be \"asmtrace\"");
  int64_t ver;
  if (need_int(&c, "format_version", INT64_MIN, &ver) != 0)
    return invalid(rec, rec->lineno, "%s", c.msg);
  if (ver < 1)
    return invalid(rec, rec->lineno,
                   "header.format_version %" PRId64 " is not supported (this reader reads %d)", ver,
                   RECORDING_FORMAT_VERSION);
  rep->format_version = ver;
  const char *tool = need_str(&c, "tool");
  const char *tool_version = need_str(&c, "tool_version");
  const char *mode = need_str(&c, "mode");
  int64_t pid = 0;
  need_int(&c, "pid", 0, &pid);
  const char *backend = NULL;
  int has_backend = need_str_or_null(&c, "backend", &backend);
  const struct json_value *host = json_get(h, "host");
  const char *kernel = NULL, *arch = NULL, *hostname = NULL;
  if (!c.bad) {
    if (!host || host->type != JSON_OBJECT) {
      check_fail(&c, "host", "an object with kernel and arch strings");
    } else {
      struct checker hc = {.obj = host, .what = "header.host"};
      kernel = need_str(&hc, "kernel");
      arch = need_str(&hc, "arch");
      if (json_get(host, "hostname")) hostname = need_str(&hc, "hostname");
      if (hc.bad) {
        c.bad = 1;
        memcpy(c.msg, hc.msg, sizeof c.msg);
      }
    }
  }
  const char *start_time = need_str(&c, "start_time");
  opt_int(&c, "start_unix_ns", 0);
  if (c.bad) return invalid(rec, rec->lineno, "%s", c.msg);

  rep->have_header = 1;
  copy_str(rep->tool, sizeof rep->tool, tool);
  copy_str(rep->tool_version, sizeof rep->tool_version, tool_version);
  copy_str(rep->mode, sizeof rep->mode, mode);
  rep->pid = pid;
  rep->backend_null = has_backend == 0;
  copy_str(rep->backend, sizeof rep->backend, has_backend == 1 ? backend : "");
  copy_str(rep->kernel, sizeof rep->kernel, kernel);
  copy_str(rep->arch, sizeof rep->arch, arch);
  copy_str(rep->hostname, sizeof rep->hostname, hostname);
  copy_str(rep->start_time, sizeof rep->start_time, start_time);
  if (ver > RECORDING_FORMAT_VERSION)
    warn(rec, "format_version %" PRId64 " is newer than this reader (%d): read as version %d", ver,
         RECORDING_FORMAT_VERSION, RECORDING_FORMAT_VERSION);
  return 0;
}

static const char *const end_reasons[] = {
    "n_reached", "target_exited", "target_killed", "interrupted", "error", "completed", NULL};

static int check_footer(struct recording *rec, const struct json_value *e) {
  struct checker c = {.obj = e, .what = "end"};
  struct asmspy_recording_report *rep = &rec->rep;
  int64_t events = 0, lost = 0, status = 0;
  need_int(&c, "events", 0, &events);
  need_int(&c, "lost", 0, &lost);
  const char *reason =
      need_enum(&c, "reason", end_reasons,
                "one of \"n_reached\", \"target_exited\", \"target_killed\", \"interrupted\", "
                "\"error\", \"completed\"");
  need_int(&c, "status", INT64_MIN, &status);
  opt_int(&c, "end_unix_ns", 0);
  if (c.bad) return invalid(rec, rec->lineno, "%s", c.msg);
  if ((uint64_t)events != rep->events)
    return invalid(rec, rec->lineno,
                   "end.events is %" PRId64 " but %" PRIu64 " event line%s precede%s it", events,
                   rep->events, rep->events == 1 ? "" : "s", rep->events == 1 ? "s" : "");
  rep->have_end = 1;
  rep->end_events = events;
  rep->lost = lost;
  rep->end_status = status;
  copy_str(rep->end_reason, sizeof rep->end_reason, reason);
  return 0;
}

/* Members of the event types the host or a loaded view declares (their
 * schemas: record_catalog.c); unknown types need only "seq". */
static int check_event_members(struct recording *rec, const char *type,
                               const struct json_value *ev) {
  const struct asmspy_record_schema *schema = record_schema_find(type);
  if (!schema) return 0;
  char msg[200];
  if (record_check(ev, schema->fields, type, msg, sizeof msg) != 0)
    return invalid(rec, rec->lineno, "%s", msg);
  /* what the host's own records mean beyond their members' types */
  if (strcmp(type, "lost") == 0) {
    int64_t n = 0;
    json_get_int(ev, "count", &n);
    rec->rep.lost_events += (uint64_t)n;
  } else if (strcmp(type, "codeimage") == 0) {
    /* a region's bytes at a logical time: `when` is a seq, never after the
     * line's own; bytes are exactly len of them */
    int64_t len = 0, when = 0, seq = 0;
    json_get_int(ev, "len", &len);
    json_get_int(ev, "when", &when);
    json_get_int(ev, "seq", &seq);
    const struct json_value *b = json_get(ev, "bytes");
    if (when > seq)
      return invalid(rec, rec->lineno,
                     "codeimage.when must be a seq no later than the line's own seq");
    if (b->u.str.len != 2 * (uint64_t)len)
      return invalid(rec, rec->lineno,
                     "codeimage.bytes must be a hex string of exactly 2*len digits");
  }
  return 0;
}

static void count_type(struct asmspy_recording_report *rep, const char *type) {
  if (strlen(type) >= RECORDING_TYPE_NAME_MAX) {
    rep->other_types++;
    return;
  }
  for (size_t i = 0; i < rep->n_types; i++)
    if (strcmp(rep->types[i].name, type) == 0) {
      rep->types[i].count++;
      return;
    }
  if (rep->n_types == RECORDING_MAX_TYPES) {
    rep->other_types++;
    return;
  }
  copy_str(rep->types[rep->n_types].name, RECORDING_TYPE_NAME_MAX, type);
  rep->types[rep->n_types].count = 1;
  rep->n_types++;
}

uint64_t recording_type_count(const struct asmspy_recording_report *rep, const char *type) {
  if (!rep || !type) return 0;
  for (size_t i = 0; i < rep->n_types; i++)
    if (strcmp(rep->types[i].name, type) == 0) return rep->types[i].count;
  return 0;
}

static int check_event(struct recording *rec, const char *type, const struct json_value *ev) {
  struct asmspy_recording_report *rep = &rec->rep;
  const struct json_value *seq = json_get(ev, "seq");
  if (!seq)
    return invalid(rec, rec->lineno, "%s.seq is missing (every event line carries seq)", type);
  if (seq->type != JSON_INT) return invalid(rec, rec->lineno, "%s.seq must be an integer", type);
  uint64_t want = rep->events + 1;
  if (seq->u.i < 0 || (uint64_t)seq->u.i != want) {
    if (want == 1) return invalid(rec, rec->lineno, "seq must start at 1, got %" PRId64, seq->u.i);
    return invalid(rec, rec->lineno,
                   "seq gap: expected %" PRIu64 ", got %" PRId64
                   " (seq must increase by exactly 1: a line was lost, cut or repeated)",
                   want, seq->u.i);
  }
  if (check_event_members(rec, type, ev) != 0) return -1;
  rep->events++;
  count_type(rep, type);
  return 0;
}

/* ========================================================================= */
/* The state machine                                                          */
/* ========================================================================= */

static int finish_truncated(struct recording *rec, uint64_t cut_line) {
  struct asmspy_recording_report *rep = &rec->rep;
  rep->verdict = RECORDING_TRUNCATED;
  rep->error_line = cut_line;
  if (cut_line)
    snprintf(rep->error, sizeof rep->error,
             "line %" PRIu64
             " is incomplete (no newline: cut mid-write); no end footer after %" PRIu64 " event%s",
             cut_line, rep->events, rep->events == 1 ? "" : "s");
  else
    snprintf(rep->error, sizeof rep->error, "no end footer after %" PRIu64 " event%s", rep->events,
             rep->events == 1 ? "" : "s");
  rec->state = ST_DONE;
  return 0;
}

/* Read and check one line. Returns 1 with rec->event set, 0 = keep going
 * (header or footer consumed), 2 = finished (state DONE), -1 invalid. */
static int step(struct recording *rec) {
  json_free(rec->event);
  rec->event = NULL;
  int r = read_line(&rec->lr);
  if (r == LINE_EOF) {
    if (rec->state == ST_AFTER_END) {
      rec->rep.verdict = RECORDING_VALID;
      rec->state = ST_DONE;
      return 2;
    }
    if (rec->state == ST_HEADER)
      return invalid(rec, rec->lineno ? rec->lineno : 1, "empty file (no header line)");
    finish_truncated(rec, 0);
    return 2;
  }
  rec->lineno++;
  rec->rep.lines = rec->lineno;
  if (r == LINE_IO_ERROR)
    return invalid(rec, rec->lineno, "read error: %s", strerror(errno ? errno : EIO));
  if (r == LINE_NOMEM) return invalid(rec, rec->lineno, "out of memory");
  if (r == LINE_TOO_LONG)
    return invalid(rec, rec->lineno, "line longer than %u bytes (1 MiB)", RECORDING_MAX_LINE);
  if (rec->state == ST_AFTER_END)
    return invalid(rec, rec->lineno, "content after the end footer (the end line must be last)");

  struct json_error jerr;
  struct json_value *v = json_parse(rec->lr.line, rec->lr.len, &jerr);
  if (!v) {
    /* A last line without '\n' that does not parse was cut mid-write. (A
     * complete object cannot be cut short and still parse, so a last line that
     * does parse only lacks its newline: accepted with a warning below.) */
    if (r == LINE_PARTIAL && rec->state == ST_EVENTS) {
      finish_truncated(rec, rec->lineno);
      return 2;
    }
    if (rec->lr.len == 0) return invalid(rec, rec->lineno, "empty line (not JSON)");
    return invalid(rec, rec->lineno, "not JSON: %s (column %zu)", jerr.msg, jerr.offset + 1);
  }
  if (r == LINE_PARTIAL) warn(rec, "line %" PRIu64 ": no newline at end of file", rec->lineno);
  if (v->type != JSON_OBJECT) {
    enum json_type t = v->type;
    json_free(v);
    return invalid(rec, rec->lineno, "not a JSON object (got %s)", json_type_name(t));
  }
  const struct json_value *tv = json_get(v, "type");
  if (!tv || tv->type != JSON_STRING || tv->u.str.len == 0 ||
      strlen(tv->u.str.s) != tv->u.str.len) {
    int missing = !tv;
    json_free(v);
    return invalid(rec, rec->lineno,
                   missing ? "missing \"type\" member" : "\"type\" must be a non-empty string");
  }
  const char *type = tv->u.str.s;

  if (rec->state == ST_HEADER) {
    if (strcmp(type, "header") != 0) {
      char t[40];
      json_escape(t, sizeof t, type, strlen(type));
      json_free(v);
      return invalid(rec, rec->lineno,
                     "the first line must be the header (type \"header\"), got type \"%s\"", t);
    }
    if (check_header(rec, v) != 0) {
      json_free(v);
      return -1;
    }
    rec->header = v;
    rec->state = ST_EVENTS;
    return 0;
  }
  if (strcmp(type, "header") == 0) {
    json_free(v);
    return invalid(rec, rec->lineno, "duplicate header (the header is line 1 only)");
  }
  if (strcmp(type, "end") == 0) {
    if (check_footer(rec, v) != 0) {
      json_free(v);
      return -1;
    }
    rec->footer = v;
    rec->state = ST_AFTER_END;
    return 0;
  }
  if (check_event(rec, type, v) != 0) {
    json_free(v);
    return -1;
  }
  rec->event = v;
  return 1;
}

int recording_next(struct recording *rec, const struct json_value **event) {
  if (event) *event = NULL;
  if (!rec) return -1;
  for (;;) {
    if (rec->state == ST_DONE) return 0;
    if (rec->state == ST_FAILED) return -1;
    int r = step(rec);
    if (r == 1) {
      if (event) *event = rec->event;
      return 1;
    }
    if (r < 0) return -1;
    /* 0: header/footer consumed, 2: finished — loop reports it */
  }
}

struct recording *recording_open_file(FILE *f) {
  if (!f) {
    errno = EINVAL;
    return NULL;
  }
  struct recording *rec = calloc(1, sizeof *rec);
  if (!rec) return NULL;
  rec->lr.f = f;
  rec->lr.blk = malloc(READ_BLOCK);
  if (!rec->lr.blk) {
    free(rec);
    errno = ENOMEM;
    return NULL;
  }
  rec->state = ST_HEADER;
  rec->rep.verdict = RECORDING_TRUNCATED; /* until the footer is read */
  /* Read the header now so recording_header() works right after open. */
  step(rec);
  return rec;
}

struct recording *recording_open(const char *path) {
  if (!path) {
    errno = EINVAL;
    return NULL;
  }
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "re");
  if (!f) return NULL;
  struct recording *rec = recording_open_file(f);
  if (!rec) {
    int e = errno;
    if (!is_stdin) fclose(f);
    errno = e;
    return NULL;
  }
  if (!is_stdin) rec->owned = f;
  return rec;
}

const struct json_value *recording_header(const struct recording *rec) {
  return rec ? rec->header : NULL;
}
const struct json_value *recording_footer(const struct recording *rec) {
  return rec ? rec->footer : NULL;
}
const struct asmspy_recording_report *recording_get_report(const struct recording *rec) {
  return rec ? &rec->rep : NULL;
}

void recording_close(struct recording *rec) {
  if (!rec) return;
  json_free(rec->header);
  json_free(rec->footer);
  json_free(rec->event);
  free(rec->lr.line);
  free(rec->lr.blk);
  if (rec->owned) fclose(rec->owned);
  free(rec);
}

static int report_failure(struct asmspy_recording_report *rep, const char *what, int err) {
  if (rep) {
    memset(rep, 0, sizeof *rep);
    rep->verdict = RECORDING_INVALID;
    snprintf(rep->error, sizeof rep->error, "%s: %s", what, strerror(err));
  }
  return RECORDING_INVALID;
}

int recording_validate(FILE *f, struct asmspy_recording_report *rep) {
  struct recording *rec = recording_open_file(f);
  if (!rec) return report_failure(rep, "cannot read", errno);
  while (recording_next(rec, NULL) > 0) {
  }
  int verdict = rec->rep.verdict;
  if (rep) *rep = rec->rep;
  recording_close(rec);
  return verdict;
}

int recording_validate_path(const char *path, struct asmspy_recording_report *rep) {
  if (!path) return report_failure(rep, "cannot open", EINVAL);
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "re");
  if (!f) return report_failure(rep, "cannot open", errno);
  int verdict = recording_validate(f, rep);
  if (!is_stdin) fclose(f);
  return verdict;
}
