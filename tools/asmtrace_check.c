/* asmtrace-check — validate .asmtrace recordings (or saved `asmspy --json`
 * output) against the schema in docs/asmtrace-schema.md.
 *
 *   asmtrace-check [--quiet] [--json] FILE...     (FILE may be "-" = stdin)
 *
 * One summary line per file on stdout:
 *   rec.asmtrace: valid: mode=stream pid=1234 backend=singlestep events=20 (insn=20) lost=0 end=n_reached
 *   rec.asmtrace: TRUNCATED: no end footer after 17 events; mode=stream ...
 *   rec.asmtrace: INVALID line 3: insn.ip must be a "0x" hex string
 * A recording whose human text ("human", "text") carries a raw control byte
 * gets "; warning: seq N: raw control byte 0x1b in its human text ..." (the
 * verdict stands: the schema is met, but --replay will escape it).
 * --json prints one JSON object per file instead (NDJSON). --quiet prints
 * only the files that are not valid or carry that warning. Exit status: 0 all valid; 1 some
 * truncated, none invalid; 2 some invalid, or a usage error. */
#define _GNU_SOURCE
#include "host/json.h"
#include "host/recording.h"
#include "common/ctl_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "usage: asmtrace-check [--quiet] [--json] FILE...";

/* Print s for a human: control bytes (newlines too) become visible escapes
 * (\x1b), so a hostile recording cannot inject terminal escapes or extra
 * lines into the summary. */
static void put_human(FILE *out, const char *s) { ctl_text_fput(out, s, strlen(s), 0); }

/* The human text a recording carries: every event's "human" and any "text"
 * member (a note's, a syscall's), which asmspy --replay prints. asmspy's
 * writer renders control bytes in them visibly (\x1b) and keeps only '\n'
 * (the separator of a multi-line text), so a raw one means the recording
 * came from elsewhere, and printing it as it is would hand a terminal an
 * escape sequence. Counted per event; the first is named by seq. */
struct text_scan {
  uint64_t events;    /* events carrying a raw control */
  int64_t first_seq;  /* the first of them */
  const char *member; /* "human" or "text" */
  unsigned first_byte;
};

static void scan_text_member(struct text_scan *ts, const struct json_value *ev, const char *member,
                             int *hit) {
  const struct json_value *v = json_get(ev, member);
  if (*hit || !v || v->type != JSON_STRING) return;
  size_t at = ctl_text_first_control(v->u.str.s, v->u.str.len, 1);
  if (at == v->u.str.len) return;
  *hit = 1;
  if (ts->events++ == 0) {
    json_get_int(ev, "seq", &ts->first_seq);
    ts->member = member;
    ts->first_byte = (unsigned char)v->u.str.s[at];
  }
}

/* recording_validate_path, plus the text scan over the events it accepts. */
static int validate(const char *path, struct recording_report *rep, struct text_scan *ts) {
  memset(ts, 0, sizeof *ts);
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "re");
  struct recording *rec = f ? recording_open_file(f) : NULL;
  if (!rec) {
    int e = errno;
    if (f && !is_stdin) fclose(f);
    memset(rep, 0, sizeof *rep);
    rep->verdict = RECORDING_INVALID;
    snprintf(rep->error, sizeof rep->error, "%s: %s", f ? "cannot read" : "cannot open",
             strerror(e));
    return RECORDING_INVALID;
  }
  const struct json_value *ev;
  while (recording_next(rec, &ev) > 0) {
    int hit = 0;
    scan_text_member(ts, ev, "human", &hit);
    scan_text_member(ts, ev, "text", &hit);
  }
  *rep = *recording_get_report(rec);
  recording_close(rec);
  if (!is_stdin) fclose(f);
  return rep->verdict;
}

static void put_text_scan_human(FILE *out, const struct text_scan *ts) {
  if (!ts->events) return;
  fprintf(out,
          "; warning: seq %" PRId64 ": raw control byte 0x%02x in its %s text (a terminal would "
          "execute it; asmspy writes it as \\x%02x)",
          ts->first_seq, ts->first_byte, ts->member, ts->first_byte);
  if (ts->events > 1) fprintf(out, ", %" PRIu64 " events in all", ts->events);
}

/* Print s as a JSON string (with quotes), or null. */
static void put_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  size_t len = strlen(s);
  size_t need = json_escape_len(s, len) + 1;
  char small[512];
  char *buf = need <= sizeof small ? small : malloc(need);
  if (!buf) {
    fputs("null", out);
    return;
  }
  json_escape(buf, need, s, len);
  fprintf(out, "\"%s\"", buf);
  if (buf != small) free(buf);
}

static void put_header_human(FILE *out, const struct recording_report *r) {
  fputs("mode=", out);
  put_human(out, r->mode);
  fprintf(out, " pid=%" PRId64 " backend=", r->pid);
  put_human(out, r->backend_null ? "null" : r->backend);
}

static void put_counts_human(FILE *out, const struct recording_report *r) {
  fprintf(out, " events=%" PRIu64, r->events);
  if (r->n_types || r->other_types) {
    fputs(" (", out);
    for (size_t i = 0; i < r->n_types; i++) {
      if (i) fputc(' ', out);
      put_human(out, r->types[i].name);
      fprintf(out, "=%" PRIu64, r->types[i].count);
    }
    if (r->other_types) fprintf(out, "%sother=%" PRIu64, r->n_types ? " " : "", r->other_types);
    fputc(')', out);
  }
}

static void print_human(FILE *out, const char *file, const struct recording_report *r,
                        const struct text_scan *ts) {
  put_human(out, file);
  switch (r->verdict) {
  case RECORDING_VALID:
    fputs(": valid: ", out);
    put_header_human(out, r);
    put_counts_human(out, r);
    fprintf(out, " lost=%" PRId64 " end=", r->lost);
    put_human(out, r->end_reason);
    if (r->end_status) fprintf(out, " status=%" PRId64, r->end_status);
    break;
  case RECORDING_TRUNCATED:
    fputs(": TRUNCATED: ", out);
    put_human(out, r->error);
    fputs("; ", out);
    put_header_human(out, r);
    put_counts_human(out, r);
    fprintf(out, " lost=%" PRIu64, r->lost_events);
    break;
  default:
    if (r->error_line)
      fprintf(out, ": INVALID line %" PRIu64 ": ", r->error_line);
    else
      fputs(": INVALID: ", out);
    put_human(out, r->error);
    break;
  }
  if (r->warning[0]) {
    fputs("; warning: ", out);
    put_human(out, r->warning);
  }
  put_text_scan_human(out, ts);
  fputc('\n', out);
}

static void print_json(FILE *out, const char *file, const struct recording_report *r,
                       const struct text_scan *ts) {
  fputs("{\"file\":", out);
  put_json_str(out, file);
  fputs(",\"verdict\":", out);
  put_json_str(out, recording_verdict_name(r->verdict));
  fprintf(out, ",\"exit\":%d", r->verdict);
  if (r->have_header) {
    fprintf(out, ",\"format_version\":%" PRId64 ",\"tool\":", r->format_version);
    put_json_str(out, r->tool);
    fputs(",\"tool_version\":", out);
    put_json_str(out, r->tool_version);
    fputs(",\"mode\":", out);
    put_json_str(out, r->mode);
    fprintf(out, ",\"pid\":%" PRId64 ",\"backend\":", r->pid);
    put_json_str(out, r->backend_null ? NULL : r->backend);
    fputs(",\"host\":{\"kernel\":", out);
    put_json_str(out, r->kernel);
    fputs(",\"arch\":", out);
    put_json_str(out, r->arch);
    fputs(",\"hostname\":", out);
    put_json_str(out, r->hostname);
    fputs("},\"start_time\":", out);
    put_json_str(out, r->start_time);
  } else {
    fputs(",\"format_version\":null,\"tool\":null,\"tool_version\":null,\"mode\":null,\"pid\":null,"
          "\"backend\":null,\"host\":null,\"start_time\":null",
          out);
  }
  fprintf(out, ",\"lines\":%" PRIu64 ",\"events\":%" PRIu64 ",\"types\":{", r->lines, r->events);
  for (size_t i = 0; i < r->n_types; i++) {
    if (i) fputc(',', out);
    put_json_str(out, r->types[i].name);
    fprintf(out, ":%" PRIu64, r->types[i].count);
  }
  fprintf(out, "},\"other_types\":%" PRIu64 ",\"lost_events\":%" PRIu64, r->other_types, r->lost_events);
  if (r->have_end) {
    fprintf(out, ",\"end\":{\"events\":%" PRId64 ",\"lost\":%" PRId64 ",\"reason\":", r->end_events, r->lost);
    put_json_str(out, r->end_reason);
    fprintf(out, ",\"status\":%" PRId64 "}", r->end_status);
  } else {
    fputs(",\"end\":null", out);
  }
  if (r->error[0]) {
    fprintf(out, ",\"error\":{\"line\":%" PRIu64 ",\"message\":", r->error_line);
    put_json_str(out, r->error);
    fputc('}', out);
  } else {
    fputs(",\"error\":null", out);
  }
  fputs(",\"warning\":", out);
  put_json_str(out, r->warning[0] ? r->warning : NULL);
  if (ts->events)
    fprintf(out,
            ",\"raw_control_text\":{\"events\":%" PRIu64 ",\"first_seq\":%" PRId64
            ",\"member\":\"%s\",\"byte\":%u}",
            ts->events, ts->first_seq, ts->member, ts->first_byte);
  else
    fputs(",\"raw_control_text\":null", out);
  fputs("}\n", out);
}

int main(int argc, char **argv) {
  int quiet = 0, json = 0, nfiles = 0, opts_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
      nfiles++;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      opts_done = 1;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      quiet = 1;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf("%s\n"
             "Validate .asmtrace recordings (schema: docs/asmtrace-schema.md).\n"
             "  --json   one JSON report object per file instead of a summary line\n"
             "  --quiet  print only the files that are not valid\n"
             "FILE may be \"-\" for stdin.\n"
             "Exit: 0 all valid, 1 some truncated (none invalid), 2 some invalid or usage error.\n",
             usage);
      return 0;
    } else {
      fprintf(stderr, "asmtrace-check: unknown option '");
      put_human(stderr, a);
      fprintf(stderr, "' (%s)\n", usage);
      return 2;
    }
  }
  if (nfiles == 0) {
    fprintf(stderr, "asmtrace-check: no FILE given (%s)\n", usage);
    return 2;
  }

  int any_truncated = 0, any_invalid = 0;
  opts_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!opts_done && a[0] == '-' && strcmp(a, "-") != 0) {
      if (strcmp(a, "--") == 0) opts_done = 1;
      continue;
    }
    struct recording_report rep;
    struct text_scan ts;
    int v = validate(a, &rep, &ts);
    if (v == RECORDING_TRUNCATED) any_truncated = 1;
    else if (v != RECORDING_VALID) any_invalid = 1;
    if (quiet && v == RECORDING_VALID && !ts.events) continue;
    if (json)
      print_json(stdout, a, &rep, &ts);
    else
      print_human(stdout, a, &rep, &ts);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "asmtrace-check: error writing the report\n");
    return 2;
  }
  return any_invalid ? 2 : any_truncated ? 1 : 0;
}
