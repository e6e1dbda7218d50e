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
/* Only libasmspy's public API: the check itself is asmspy_recording_check,
 * JSON strings go through the host services table's json_escape. */
#include <asmspy/asmspy.h>
#include <asmspy/recording.h>

#include "common/ctl_escape.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "usage: asmtrace-check [--quiet] [--json] FILE...";

/* Print s for a human: control bytes (newlines too) become visible escapes
 * (\x1b), so a hostile recording cannot inject terminal escapes or extra
 * lines into the summary. */
static void put_human(FILE *out, const char *s) { ctl_text_fput(out, s, strlen(s), 0); }

/* The human text of a recording asmspy did not write may carry raw control
 * bytes (the report counts the events and names the first): the verdict
 * stands, but say so, since --replay will escape them. */
static void put_raw_control_human(FILE *out, const struct asmspy_recording_report *r) {
  if (!r->raw_control_events) return;
  fprintf(out,
          "; warning: seq %" PRId64 ": raw control byte 0x%02x in its %s text (a terminal would "
          "execute it; asmspy writes it as \\x%02x)",
          r->raw_control_first_seq, r->raw_control_byte, r->raw_control_member,
          r->raw_control_byte);
  if (r->raw_control_events > 1) fprintf(out, ", %" PRIu64 " events in all", r->raw_control_events);
}

/* Print s as a JSON string (with quotes), or null. */
static void put_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  size_t len = strlen(s);
  size_t need = 6 * len + 1; /* the longest escape, \u00XX, is 6 bytes per input byte */
  char small[512];
  char *buf = need <= sizeof small ? small : malloc(need);
  if (!buf) {
    fputs("null", out);
    return;
  }
  asmspy_host_api()->json_escape(buf, need, s, len);
  fprintf(out, "\"%s\"", buf);
  if (buf != small) free(buf);
}

static void put_header_human(FILE *out, const struct asmspy_recording_report *r) {
  fputs("mode=", out);
  put_human(out, r->mode);
  fprintf(out, " pid=%" PRId64 " backend=", r->pid);
  put_human(out, r->backend_null ? "null" : r->backend);
}

static void put_counts_human(FILE *out, const struct asmspy_recording_report *r) {
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

static void print_human(FILE *out, const char *file, const struct asmspy_recording_report *r) {
  put_human(out, file);
  switch (r->verdict) {
  case ASMSPY_RECORDING_VALID:
    fputs(": valid: ", out);
    put_header_human(out, r);
    put_counts_human(out, r);
    fprintf(out, " lost=%" PRId64 " end=", r->lost);
    put_human(out, r->end_reason);
    if (r->end_status) fprintf(out, " status=%" PRId64, r->end_status);
    break;
  case ASMSPY_RECORDING_TRUNCATED:
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
  put_raw_control_human(out, r);
  fputc('\n', out);
}

static void print_json(FILE *out, const char *file, const struct asmspy_recording_report *r) {
  fputs("{\"file\":", out);
  put_json_str(out, file);
  fputs(",\"verdict\":", out);
  put_json_str(out, asmspy_recording_verdict_name(r->verdict));
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
  fprintf(out, "},\"other_types\":%" PRIu64 ",\"lost_events\":%" PRIu64, r->other_types,
          r->lost_events);
  if (r->have_end) {
    fprintf(out, ",\"end\":{\"events\":%" PRId64 ",\"lost\":%" PRId64 ",\"reason\":", r->end_events,
            r->lost);
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
  if (r->raw_control_events)
    fprintf(out,
            ",\"raw_control_text\":{\"events\":%" PRIu64 ",\"first_seq\":%" PRId64
            ",\"member\":\"%s\",\"byte\":%u}",
            r->raw_control_events, r->raw_control_first_seq, r->raw_control_member,
            r->raw_control_byte);
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
    struct asmspy_recording_report rep;
    memset(&rep, 0, sizeof rep);
    ASMSPY_INIT_HEADER(&rep);
    int v = asmspy_recording_check(a, &rep);
    if (v < 0) { /* a library of another ABI major: nothing was checked */
      fprintf(stderr, "asmtrace-check: %s\n", asmspy_strerror(v));
      return 2;
    }
    if (v == ASMSPY_RECORDING_TRUNCATED)
      any_truncated = 1;
    else if (v != ASMSPY_RECORDING_VALID)
      any_invalid = 1;
    if (quiet && v == ASMSPY_RECORDING_VALID && !rep.raw_control_events) continue;
    if (json)
      print_json(stdout, a, &rep);
    else
      print_human(stdout, a, &rep);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "asmtrace-check: error writing the report\n");
    return 2;
  }
  return any_invalid ? 2 : any_truncated ? 1 : 0;
}
