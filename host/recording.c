/* recording.c — .asmtrace reader + validator (schema version 1,
 * docs/asmtrace-schema.md). One state machine serves both the iterator
 * (recording_open/next/close) and the whole-file validator
 * (recording_validate), so a consumer and asmtrace-check always agree on
 * what a valid recording is. Lines come from a small buffered reader with a
 * hard per-line cap: a hostile file can make us neither crash nor allocate
 * more than RECORDING_MAX_LINE + one read block. */
#define _GNU_SOURCE
#include "recording.h"

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
  LINE_OK = 1,       /* a '\n'-terminated line */
  LINE_PARTIAL = 2,  /* the last line of the input, without '\n' */
  LINE_EOF = 0,      /* nothing more */
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
      lr->pos++; /* the '\n' */
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
  struct recording_report rep;
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
  const char *what; /* "header", "insn", ... for messages */
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
    check_fail(c, member, min == INT64_MIN ? "an integer" : min == 0 ? "an integer >= 0"
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

/* ========================================================================= */
/* Line kinds                                                                 */
/* ========================================================================= */

static int check_header(struct recording *rec, const struct json_value *h) {
  struct checker c = {.obj = h, .what = "header"};
  struct recording_report *rep = &rec->rep;
  const char *format = json_get_str(h, "format");
  if (!format || strcmp(format, "asmtrace") != 0)
    return invalid(rec, rec->lineno, "header.format must be \"asmtrace\"");
  int64_t ver;
  if (need_int(&c, "format_version", INT64_MIN, &ver) != 0)
    return invalid(rec, rec->lineno, "%s", c.msg);
  if (ver < 1)
    return invalid(rec, rec->lineno, "header.format_version %" PRId64 " is not supported (this reader reads %d)",
                   ver, RECORDING_FORMAT_VERSION);
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
    warn(rec, "format_version %" PRId64 " is newer than this reader (%d): read as version %d",
         ver, RECORDING_FORMAT_VERSION, RECORDING_FORMAT_VERSION);
  return 0;
}

static const char *const end_reasons[] = {"n_reached", "target_exited", "target_killed",
                                          "interrupted", "error", "completed", NULL};

static int check_footer(struct recording *rec, const struct json_value *e) {
  struct checker c = {.obj = e, .what = "end"};
  struct recording_report *rep = &rec->rep;
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
    return invalid(rec, rec->lineno, "end.events is %" PRId64 " but %" PRIu64 " event line%s precede%s it",
                   events, rep->events, rep->events == 1 ? "" : "s", rep->events == 1 ? "s" : "");
  rep->have_end = 1;
  rep->end_events = events;
  rep->lost = lost;
  rep->end_status = status;
  copy_str(rep->end_reason, sizeof rep->end_reason, reason);
  return 0;
}

static const char *const note_levels[] = {"info", "warn", "skip", NULL};
static const char *const task_whats[] = {"clone", "fork", "exec", "exit", NULL};

/* Members of the known event types; unknown types need only "seq". */
static int check_event_members(struct recording *rec, const char *type, const struct json_value *ev) {
  struct checker c = {.obj = ev, .what = type};
  if (strcmp(type, "insn") == 0) {
    need_int(&c, "tid", INT64_MIN, NULL);
    if (!c.bad && !is_hex_addr(json_get(ev, "ip"))) check_fail(&c, "ip", "a \"0x\" hex string");
    const char *sym;
    need_str_or_null(&c, "sym", &sym);
    need_int(&c, "off", 0, NULL);
    need_str(&c, "module");
    if (!c.bad) {
      const struct json_value *b = json_get(ev, "bytes");
      if (!b || b->type != JSON_STRING || b->u.str.len < 2 || b->u.str.len > 32 ||
          b->u.str.len % 2 != 0 || !is_hex(b->u.str.s, b->u.str.len))
        check_fail(&c, "bytes", "a hex string of 2..32 digits, even length");
    }
    need_str(&c, "disasm");
  } else if (strcmp(type, "note") == 0) {
    need_enum(&c, "level", note_levels, "one of \"info\", \"warn\", \"skip\"");
    need_str(&c, "text");
  } else if (strcmp(type, "lost") == 0) {
    int64_t n = 0;
    if (need_int(&c, "count", 0, &n) == 0) rec->rep.lost_events += (uint64_t)n;
  } else if (strcmp(type, "task") == 0) {
    need_enum(&c, "what", task_whats, "one of \"clone\", \"fork\", \"exec\", \"exit\"");
    need_int(&c, "tid", INT64_MIN, NULL);
    opt_int(&c, "child", INT64_MIN);
    opt_int(&c, "code", INT64_MIN);
  } else if (strcmp(type, "syscall") == 0) {
    need_int(&c, "tid", INT64_MIN, NULL);
    need_int(&c, "nr", 0, NULL);
    need_str(&c, "name");
    need_str(&c, "text");
    const struct json_value *ret = json_get(ev, "ret");
    if (!c.bad && (!ret || (ret->type != JSON_INT && ret->type != JSON_NULL)))
      check_fail(&c, "ret", "an integer, or null for a call that never returned");
    const struct json_value *carried = json_get(ev, "carried");
    if (!c.bad && (!carried || carried->type != JSON_ARRAY))
      check_fail(&c, "carried", "an array of strings");
    for (size_t i = 0; !c.bad && i < json_array_len(carried); i++)
      if (json_array_at(carried, i)->type != JSON_STRING)
        check_fail(&c, "carried", "an array of strings");
  } else if (strcmp(type, "signal") == 0) {
    need_int(&c, "tid", INT64_MIN, NULL);
    need_int(&c, "signo", 1, NULL);
    need_str(&c, "name");
  } else if (strcmp(type, "graph") == 0) {
    /* --graph: the whole call graph in one event. nodes and edges are
     * objects; their pid (the process a row belongs to, several under
     * --follow), where present, a positive integer */
    const struct json_value *nodes = json_get(ev, "nodes"), *edges = json_get(ev, "edges");
    if (!nodes || nodes->type != JSON_ARRAY) check_fail(&c, "nodes", "an array of node objects");
    for (size_t i = 0; !c.bad && i < json_array_len(nodes); i++) {
      struct checker m = {.obj = json_array_at(nodes, i), .what = "graph.nodes[]"};
      if (m.obj->type != JSON_OBJECT) {
        check_fail(&c, "nodes", "an array of node objects");
        break;
      }
      opt_int(&m, "pid", 1);
      if (m.bad) {
        c.bad = 1;
        memcpy(c.msg, m.msg, sizeof c.msg);
      }
    }
    if (!c.bad && (!edges || edges->type != JSON_ARRAY))
      check_fail(&c, "edges", "an array of edge objects");
    for (size_t i = 0; !c.bad && i < json_array_len(edges); i++) {
      struct checker m = {.obj = json_array_at(edges, i), .what = "graph.edges[]"};
      if (m.obj->type != JSON_OBJECT) {
        check_fail(&c, "edges", "an array of edge objects");
        break;
      }
      opt_int(&m, "pid", 1);
      if (m.bad) {
        c.bad = 1;
        memcpy(c.msg, m.msg, sizeof c.msg);
      }
    }
  } else if (strcmp(type, "call") == 0) {
    /* --tree: one verified call */
    const char *name;
    need_int(&c, "tid", INT64_MIN, NULL);
    opt_int(&c, "pid", 1);
    need_int(&c, "depth", 0, NULL);
    need_str_or_null(&c, "name", &name);
    need_str(&c, "module");
  } else if (strcmp(type, "proc") == 0) {
    need_int(&c, "tid", INT64_MIN, NULL);
    need_int(&c, "tgid", INT64_MIN, NULL);
    need_int(&c, "ppid", INT64_MIN, NULL);
    need_str(&c, "comm");
    need_int(&c, "inv", 0, NULL);
  } else if (strcmp(type, "dataflow") == 0) {
    need_str(&c, "name");
    need_int(&c, "steps", 0, NULL);
    const struct json_value *tr = json_get(ev, "truncated");
    if (!c.bad && (!tr || tr->type != JSON_BOOL)) check_fail(&c, "truncated", "true or false");
    const struct json_value *trace = json_get(ev, "trace");
    if (!c.bad && (!trace || trace->type != JSON_ARRAY))
      check_fail(&c, "trace", "an array of step objects");
    for (size_t i = 0; !c.bad && i < json_array_len(trace); i++)
      if (json_array_at(trace, i)->type != JSON_OBJECT)
        check_fail(&c, "trace", "an array of step objects");
  } else if (strcmp(type, "watchpoint") == 0 || strcmp(type, "watch") == 0) {
    /* --watch: what is watched, then one event per hit (the toucher, old -> new) */
    static const char *const watch_access[] = {"write", "rw", "read", NULL};
    need_str(&c, "name");
    if (!c.bad && !is_hex_addr(json_get(ev, "addr"))) check_fail(&c, "addr", "a \"0x\" hex string");
    int64_t len = 0;
    need_int(&c, "len", 1, &len);
    if (!c.bad && len != 1 && len != 2 && len != 4 && len != 8) check_fail(&c, "len", "1, 2, 4 or 8");
    need_enum(&c, "access", watch_access, "\"write\", \"rw\" or \"read\"");
    if (strcmp(type, "watch") == 0) {
      need_int(&c, "tid", INT64_MIN, NULL);
      if (!c.bad && !is_hex_addr(json_get(ev, "ip"))) check_fail(&c, "ip", "a \"0x\" hex string");
      const char *sym;
      need_str_or_null(&c, "sym", &sym);
      need_str(&c, "disasm");
      need_int(&c, "old", INT64_MIN, NULL);
      need_int(&c, "new", INT64_MIN, NULL);
    }
  } else if (strcmp(type, "codeimage") == 0) {
    /* a region's bytes at a logical time: `when` is a seq, never after the line's own */
    int64_t len = 0, when = 0, seq = 0;
    if (!is_hex_addr(json_get(ev, "base"))) check_fail(&c, "base", "a \"0x\" hex string");
    need_int(&c, "len", 1, &len);
    need_int(&c, "version", 1, NULL);
    need_int(&c, "when", 1, &when);
    json_get_int(ev, "seq", &seq);
    if (!c.bad && when > seq) check_fail(&c, "when", "a seq no later than the line's own seq");
    const struct json_value *b = json_get(ev, "bytes");
    if (!c.bad && (!b || b->type != JSON_STRING || b->u.str.len != 2 * (uint64_t)len ||
                   !is_hex(b->u.str.s, b->u.str.len)))
      check_fail(&c, "bytes", "a hex string of exactly 2*len digits");
  } else if (strcmp(type, "hot_edge") == 0 || strcmp(type, "call_target") == 0) {
    /* --sample: a sampled taken edge, or a statically decoded direct call */
    if (!is_hex_addr(json_get(ev, "from"))) check_fail(&c, "from", "a \"0x\" hex string");
    if (!is_hex_addr(json_get(ev, "to"))) check_fail(&c, "to", "a \"0x\" hex string");
    need_str(&c, "from_sym");
    need_str(&c, "to_sym");
    if (strcmp(type, "hot_edge") == 0) {
      need_int(&c, "count", 1, NULL);
      need_int(&c, "misp", 0, NULL);
      const struct json_value *r = json_get(ev, "ret");
      if (!c.bad && (!r || r->type != JSON_BOOL)) check_fail(&c, "ret", "true or false");
    }
  } else if (strcmp(type, "residency") == 0) {
    if (!is_hex_addr(json_get(ev, "ip"))) check_fail(&c, "ip", "a \"0x\" hex string");
    need_str(&c, "ip_sym");
    need_int(&c, "count", 1, NULL);
  } else if (strcmp(type, "hot_function") == 0) {
    need_str(&c, "name");
    need_str(&c, "module");
    if (!is_hex_addr(json_get(ev, "start"))) check_fail(&c, "start", "a \"0x\" hex string");
    need_int(&c, "count", 1, NULL);
    need_int(&c, "offsets", 1, NULL);
  } else if (strcmp(type, "provenance") == 0) {
    static const char *const kinds[] = {"edges", "residency", NULL};
    const char *sampler;
    need_str_or_null(&c, "sampler", &sampler);
    need_enum(&c, "kind", kinds, "\"edges\" or \"residency\"");
    need_int(&c, "samples", 0, NULL);
    need_int(&c, "branch_samples", 0, NULL);
    need_int(&c, "lost", 0, NULL);
    need_int(&c, "throttled", 0, NULL);
    need_int(&c, "window_ns", 0, NULL);
  } else if (strcmp(type, "auto") == 0) {
    /* --dataflow --auto: the pick, each retry, a refusal, an exhausted walk */
    static const char *const events[] = {"pick", "retry", "refused", "exhausted", NULL};
    need_enum(&c, "event", events, "one of \"pick\", \"retry\", \"refused\", \"exhausted\"");
    need_str(&c, "sampler");
    need_int(&c, "candidates", 0, NULL);
  }
  if (c.bad) return invalid(rec, rec->lineno, "%s", c.msg);
  return 0;
}

static void count_type(struct recording_report *rep, const char *type) {
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

uint64_t recording_type_count(const struct recording_report *rep, const char *type) {
  if (!rep || !type) return 0;
  for (size_t i = 0; i < rep->n_types; i++)
    if (strcmp(rep->types[i].name, type) == 0) return rep->types[i].count;
  return 0;
}

static int check_event(struct recording *rec, const char *type, const struct json_value *ev) {
  struct recording_report *rep = &rec->rep;
  const struct json_value *seq = json_get(ev, "seq");
  if (!seq) return invalid(rec, rec->lineno, "%s.seq is missing (every event line carries seq)", type);
  if (seq->type != JSON_INT) return invalid(rec, rec->lineno, "%s.seq must be an integer", type);
  uint64_t want = rep->events + 1;
  if (seq->u.i < 0 || (uint64_t)seq->u.i != want) {
    if (want == 1)
      return invalid(rec, rec->lineno, "seq must start at 1, got %" PRId64, seq->u.i);
    return invalid(rec, rec->lineno, "seq gap: expected %" PRIu64 ", got %" PRId64
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
  struct recording_report *rep = &rec->rep;
  rep->verdict = RECORDING_TRUNCATED;
  rep->error_line = cut_line;
  if (cut_line)
    snprintf(rep->error, sizeof rep->error,
             "line %" PRIu64 " is incomplete (no newline: cut mid-write); no end footer after %" PRIu64
             " event%s",
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
    if (rec->state == ST_HEADER) return invalid(rec, rec->lineno ? rec->lineno : 1, "empty file (no header line)");
    finish_truncated(rec, 0);
    return 2;
  }
  rec->lineno++;
  rec->rep.lines = rec->lineno;
  if (r == LINE_IO_ERROR) return invalid(rec, rec->lineno, "read error: %s", strerror(errno ? errno : EIO));
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
  if (!tv || tv->type != JSON_STRING || tv->u.str.len == 0 || strlen(tv->u.str.s) != tv->u.str.len) {
    int missing = !tv;
    json_free(v);
    return invalid(rec, rec->lineno, missing ? "missing \"type\" member" : "\"type\" must be a non-empty string");
  }
  const char *type = tv->u.str.s;

  if (rec->state == ST_HEADER) {
    if (strcmp(type, "header") != 0) {
      char t[40];
      json_escape(t, sizeof t, type, strlen(type));
      json_free(v);
      return invalid(rec, rec->lineno, "the first line must be the header (type \"header\"), got type \"%s\"", t);
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

const struct json_value *recording_header(const struct recording *rec) { return rec ? rec->header : NULL; }
const struct json_value *recording_footer(const struct recording *rec) { return rec ? rec->footer : NULL; }
const struct recording_report *recording_get_report(const struct recording *rec) {
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

static int report_failure(struct recording_report *rep, const char *what, int err) {
  if (rep) {
    memset(rep, 0, sizeof *rep);
    rep->verdict = RECORDING_INVALID;
    snprintf(rep->error, sizeof rep->error, "%s: %s", what, strerror(err));
  }
  return RECORDING_INVALID;
}

int recording_validate(FILE *f, struct recording_report *rep) {
  struct recording *rec = recording_open_file(f);
  if (!rec) return report_failure(rep, "cannot read", errno);
  while (recording_next(rec, NULL) > 0) {
  }
  int verdict = rec->rep.verdict;
  if (rep) *rep = rec->rep;
  recording_close(rec);
  return verdict;
}

int recording_validate_path(const char *path, struct recording_report *rep) {
  if (!path) return report_failure(rep, "cannot open", EINVAL);
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "re");
  if (!f) return report_failure(rep, "cannot open", errno);
  int verdict = recording_validate(f, rep);
  if (!is_stdin) fclose(f);
  return verdict;
}
