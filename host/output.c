/* The one output writer. Every mode emits through here, with three channels:
 *   text    human lines on stdout (the seed's examples are the format);
 *   json    NDJSON on stdout (--json) instead of text;
 *   record  the same NDJSON lines into an .asmtrace file (--record=<f>).
 * json and record are independent: either, both or neither. The NDJSON
 * stream is a valid recording on its own: a header line, event lines with a
 * contiguous seq, then an end footer (docs/asmtrace-schema.md). --serve reuses
 * this writer, so there is never a second "live" format. */
#define _GNU_SOURCE
#include "asmspy_config.h"
#include "host/host.h"
#include "host/json.h"
#include "common/strbuf.h"
#include "common/ctl_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

struct asmspy_out {
  int json;
  FILE *text_out;
  FILE *json_out;
  FILE *record;
  uint64_t seq; /* last event sequence number written */
  uint64_t lost;
  enum out_end_reason end_reason;
  int target_signal; /* the target was killed by this signal while traced */
  int closed;
  asmspy_record_fn record_sink; /* embedders: text and notes go here instead */
  void *record_ctx;
  asmspy_typed_record_fn typed_sink; /* embedders: typed records go here instead */
  /* out_hold_warning: the last warning of a step that may fail, not yet on
   * stderr: "asmspy: " if the step ended the run, "# " if not */
  int hold_warn, held_set;
  char held[1024];
};

static uint64_t now_unix_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Write one complete NDJSON line to every JSON channel that is open. */
static void put_json_line(struct asmspy_out *out, const char *line) {
  if (out->json && out->json_out) {
    fputs(line, out->json_out);
    fputc('\n', out->json_out);
    fflush(out->json_out);
  }
  if (out->record) {
    fputs(line, out->record);
    fputc('\n', out->record);
  }
}

static int json_wanted(const struct asmspy_out *out) { return out->json || out->record; }

/* An untyped record sink (an embedder without on_typed_record) reads the
 * JSON body too; a typed one reads the values instead. */
int out_wants_json(const struct asmspy_out *out) { return out_needs_json_body(out); }
/* The JSON channels want the text too: each event line records the human
 * rendering as "human", so a recording replays to the very text the live
 * run printed (asmspy --replay) — the host knows no view's format, only the
 * view does, so the view's own rendering is what is kept. */
int out_wants_text(const struct asmspy_out *out) { return out && (!out->json || json_wanted(out)); }

static void write_header(struct asmspy_out *out, const struct out_opts *o) {
  struct utsname u;
  char host[256] = "";
  if (uname(&u) != 0) memset(&u, 0, sizeof u);
  gethostname(host, sizeof host - 1);
  uint64_t ns = now_unix_ns();
  time_t secs = (time_t)(ns / 1000000000ull);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char when[32];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);

  struct strbuf b = {0};
  strbuf_addf(&b,
              "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,"
              "\"tool\":\"asmspy\",\"tool_version\":\"%s\",\"mode\":",
              ASMSPY_TOOL_VERSION);
  strbuf_json_str(&b, o->mode ? o->mode : "");
  strbuf_addf(&b, ",\"pid\":%d,\"backend\":", (int)o->pid);
  if (o->backend)
    strbuf_json_str(&b, o->backend);
  else
    strbuf_addf(&b, "null");
  strbuf_addf(&b, ",\"host\":{\"kernel\":");
  strbuf_json_str(&b, u.release);
  strbuf_addf(&b, ",\"arch\":");
  strbuf_json_str(&b, u.machine);
  strbuf_addf(&b, ",\"hostname\":");
  strbuf_json_str(&b, host);
  strbuf_addf(&b, "},\"start_time\":\"%s\",\"start_unix_ns\":%" PRIu64, when, ns);
  /* event lines carry the human channel's text as "human" (asmspy --replay) */
  strbuf_addf(&b, ",\"human\":true");
  if (o->argv && o->argc > 0) {
    strbuf_addf(&b, ",\"argv\":[");
    for (int i = 0; i < o->argc; i++) {
      if (i) strbuf_addf(&b, ",");
      strbuf_json_str(&b, o->argv[i]);
    }
    strbuf_addf(&b, "]");
  }
  strbuf_addf(&b, "}");
  if (b.s) put_json_line(out, b.s);
  free(b.s);
}

struct asmspy_out *out_open(const struct out_opts *o, int *err) {
  struct asmspy_out *out = calloc(1, sizeof *out);
  if (!out) {
    if (err) *err = ENOMEM;
    return NULL;
  }
  out->json = o->json;
  out->text_out = o->text_out ? o->text_out : stdout;
  out->json_out = o->json_out ? o->json_out : stdout;
  out->record_sink = o->record_sink;
  out->record_ctx = o->record_ctx;
  out->typed_sink = o->typed_sink;
  if (o->record_path) {
    out->record = fopen(o->record_path, "we");
    if (!out->record) {
      if (err) *err = errno;
      free(out);
      return NULL;
    }
  }
  if (json_wanted(out)) write_header(out, o);
  return out;
}

/* A line of the asmtrace format is at most 1 MiB (docs/asmtrace-schema.md). */
#define OUT_MAX_LINE (1024u * 1024u)

/* The JSON side of one event: a line with the next seq on every JSON channel,
 * carrying the human text as "human" when there is one (dropped, with
 * "human_omitted":true, when it would push the line over the format's cap). */
static void emit_json(struct asmspy_out *out, const char *type, const char *json_fields,
                      const char *text) {
  struct strbuf b = {0};
  strbuf_addf(&b, "{\"type\":");
  strbuf_json_str(&b, type);
  strbuf_addf(&b, ",\"seq\":%" PRIu64, out->seq);
  if (json_fields && json_fields[0]) strbuf_addf(&b, ",%s", json_fields);
  if (text) {
    size_t tlen = strlen(text);
    if (b.len + json_escape_len(text, tlen) + 16 < OUT_MAX_LINE) {
      strbuf_addf(&b, ",\"human\":");
      strbuf_json_strn(&b, text, tlen);
    } else {
      strbuf_addf(&b, ",\"human_omitted\":true");
    }
  }
  strbuf_addf(&b, "}");
  if (b.s) put_json_line(out, b.s);
  free(b.s);
}

/* The human text with its control bytes rendered visibly (ctl_escape.h):
 * text names things the target chose (a perf-map or ELF symbol), and a
 * terminal must not execute them. Returns text itself when it needs no
 * change (the common case: one scan, no copy), else a copy to free, or
 * NULL when out of memory (the line is then dropped from the channels). */
static char *text_for_humans(const char *text, char **to_free, size_t *len_out) {
  *to_free = NULL;
  *len_out = 0;
  if (!text) return NULL;
  size_t len = strlen(text);
  if (ctl_text_first_control(text, len, 1) == len) { /* nothing to escape */
    *len_out = len;
    return (char *)text;
  }
  size_t need = ctl_text_sanitize(NULL, 0, text, len, 1);
  char *s = malloc(need + 1);
  if (!s) return NULL;
  ctl_text_sanitize(s, need + 1, text, len, 1);
  *to_free = s;
  *len_out = need;
  return s;
}

int out_wants_values(const struct asmspy_out *out) {
  return out && (out->typed_sink || out_needs_json_body(out));
}

int out_needs_json_body(const struct asmspy_out *out) {
  return out && (json_wanted(out) || (out->record_sink && !out->typed_sink));
}

/* One record to every channel; rec (a typed record) goes to the typed sink. */
static int emit_any(struct asmspy_out *out, const char *type, const char *json_fields,
                    const char *raw, const struct asmspy_record *rec) {
  if (!out || out->closed) return -1;
  /* one rendering for every channel: the terminal, the embedder's sink and
   * the recording's "human", so a replay prints what the live run printed */
  char *owned;
  size_t text_len;
  const char *text = text_for_humans(raw, &owned, &text_len);
  if (rec && out->typed_sink) {
    struct asmspy_record shown = *rec;
    shown.text = out->json ? NULL : text;
    out->typed_sink(out->record_ctx, &shown);
  } else if (out->record_sink && type)
    out->record_sink(out->record_ctx, type, json_fields, out->json ? NULL : text);
  else if (text && !out->json) {
    fwrite(text, 1, text_len, out->text_out); /* its length is known: no second strlen */
    putc('\n', out->text_out);
  }
  out->seq++; /* counted in text mode too: the footer's count stays meaningful */
  /* a line without a type (a plugin's bare text) has no JSON form */
  if (json_wanted(out) && type) emit_json(out, type, json_fields, text);
  free(owned);
  return 0;
}

int out_emit(struct asmspy_out *out, const char *type, const char *json_fields, const char *raw) {
  return emit_any(out, type, json_fields, raw, NULL);
}

int out_emit_typed(struct asmspy_out *out, const char *json_fields,
                   const struct asmspy_record *rec) {
  return emit_any(out, rec->schema->type, json_fields, rec->text, rec);
}

static const char *level_name(int level) {
  switch (level) {
  case ASMSPY_NOTE_WARN: return "warn";
  case ASMSPY_NOTE_SKIP: return "skip";
  default: return "info";
  }
}

/* The held warning to stderr: as the error that ends the run ("asmspy: ",
 * on every channel's stderr), or as the note it was ("# ", text mode). */
static void held_flush(struct asmspy_out *out, int as_error) {
  if (!out->held_set) return;
  out->held_set = 0;
  if (as_error)
    fprintf(stderr, "asmspy: %s\n", out->held);
  else if (!out->json)
    fprintf(stderr, "# %s\n", out->held);
  fflush(stderr);
}

void out_hold_warning(struct asmspy_out *out) {
  if (out) out->hold_warn = 1;
}

void out_release_warning(struct asmspy_out *out, int failed) {
  if (!out) return;
  out->hold_warn = 0;
  held_flush(out, failed);
}

void out_vnote(struct asmspy_out *out, int level, const char *fmt, va_list ap) {
  char raw[1024], text[1024];
  vsnprintf(raw, sizeof raw, fmt, ap);
  /* a note may quote a name the target chose: visible escapes, like text */
  ctl_text_sanitize(text, sizeof text, raw, strlen(raw), 1);
  /* Notes go to stderr in text mode: stdout stays the mode's own output. A
   * skip is the one note that belongs on stdout (# SKIP lines are results). */
  if (!out) { /* no session yet (option parsing): a CLI-level message */
    fprintf(stderr, "asmspy: %s\n", text);
    return;
  }
  if (out->record_sink && !out->closed) {
    char line[sizeof text + 16], esc[sizeof text * 6], fields[sizeof esc + 64];
    snprintf(line, sizeof line, "%s%s", level == ASMSPY_NOTE_SKIP ? "# SKIP " : "# ", text);
    json_escape(esc, sizeof esc, text, strlen(text));
    snprintf(fields, sizeof fields, "\"level\":\"%s\",\"text\":\"%s\"", level_name(level), esc);
    out->record_sink(out->record_ctx, "note", fields, line);
  } else if (out->hold_warn && level == ASMSPY_NOTE_WARN) {
    held_flush(out, 0); /* the one before was not the last */
    snprintf(out->held, sizeof out->held, "%s", text);
    out->held_set = 1;
  } else if (!out->json) {
    held_flush(out, 0);
    FILE *f = level == ASMSPY_NOTE_SKIP ? out->text_out : stderr;
    fprintf(f, "%s%s\n", level == ASMSPY_NOTE_SKIP ? "# SKIP " : "# ", text);
    fflush(f);
  }
  if (out->closed || !json_wanted(out)) return;
  char esc[sizeof text * 6];
  json_escape(esc, sizeof esc, text, strlen(text));
  char fields[sizeof esc + 64];
  snprintf(fields, sizeof fields, "\"level\":\"%s\",\"text\":\"%s\"", level_name(level), esc);
  out->seq++;
  emit_json(out, "note", fields, NULL); /* a note's text is its own "text" */
}

void out_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  out_vnote(out, level, fmt, ap);
  va_end(ap);
}

void out_set_end_reason(struct asmspy_out *out, enum out_end_reason why) {
  if (out) out->end_reason = why;
}
void out_set_target_death(struct asmspy_out *out, int sig) {
  if (out) out->target_signal = sig;
}
int out_target_signal(const struct asmspy_out *out) { return out ? out->target_signal : 0; }
void out_add_lost(struct asmspy_out *out, uint64_t n) {
  if (out) out->lost += n;
}
uint64_t out_event_count(const struct asmspy_out *out) { return out ? out->seq : 0; }

static const char *end_reason_name(enum out_end_reason why) {
  switch (why) {
  case OUT_END_N_REACHED: return "n_reached";
  case OUT_END_TARGET_EXITED: return "target_exited";
  case OUT_END_INTERRUPTED: return "interrupted";
  case OUT_END_ERROR: return "error";
  default: return "completed";
  }
}

void out_close(struct asmspy_out *out, int status) {
  if (!out) return;
  out_release_warning(out, 0);
  if (!out->closed && json_wanted(out)) {
    char line[256];
    snprintf(line, sizeof line,
             "{\"type\":\"end\",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
             ",\"reason\":\"%s\",\"status\":%d,\"end_unix_ns\":%" PRIu64 "}",
             out->seq, out->lost,
             out->end_reason == OUT_END_TARGET_EXITED && out->target_signal
                 ? "target_killed"
                 : end_reason_name(out->end_reason),
             status, now_unix_ns());
    put_json_line(out, line);
  }
  out->closed = 1;
  if (out->record) fclose(out->record);
  if (!out->json) fflush(out->text_out);
  free(out);
}

/* The fields the host itself writes, whatever the mode: every event line's
 * envelope, the header, the end footer, notes, and the region sessions'
 * codeimage records (host/codeimage.c). A view's own fields are the view's;
 * docs/metrics.md catalogues both, and the serve suite checks the catalogue
 * against this table and against the keys of real runs of every mode. */
static const struct out_field writer_fields[] = {
    {"*", "type"},
    {"*", "seq"},
    {"*", "human"},
    {"*", "human_omitted"},
    {"header", "type"},
    {"header", "format"},
    {"header", "format_version"},
    {"header", "tool"},
    {"header", "tool_version"},
    {"header", "mode"},
    {"header", "pid"},
    {"header", "backend"},
    {"header", "host.kernel"},
    {"header", "host.arch"},
    {"header", "host.hostname"},
    {"header", "start_time"},
    {"header", "start_unix_ns"},
    {"header", "argv"},
    {"header", "human"},
    {"end", "type"},
    {"end", "events"},
    {"end", "lost"},
    {"end", "reason"},
    {"end", "status"},
    {"end", "end_unix_ns"},
    {"note", "level"},
    {"note", "text"},
    {"codeimage", "pid"},
    {"codeimage", "base"},
    {"codeimage", "len"},
    {"codeimage", "version"},
    {"codeimage", "when"},
    {"codeimage", "detect"},
    {"codeimage", "bytes"},
};

const struct out_field *out_field_table(size_t *n) {
  *n = sizeof writer_fields / sizeof writer_fields[0];
  return writer_fields;
}
