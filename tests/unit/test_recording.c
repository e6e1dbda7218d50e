/* test_recording.c — unit test of host/recording.c, the .asmtrace reader and
 * validator (docs/asmtrace-schema.md).
 *
 * Builds good and bad recordings in temp files and asserts the exact verdict
 * (valid / truncated / invalid), the line number of the first error and a
 * piece of its message; then exercises the iterator API.
 *
 * Standalone: exit 0 when every check passes, 1 otherwise. Build, e.g.:
 *   gcc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -I include -I . -o /tmp/test_recording \
 *       tests/unit/test_recording.c host/recording.c host/json.c
 */
#define _GNU_SOURCE
#include "host/json.h"
#include "host/recording.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* ------------------------------------------------------------------------- */
/* Building recordings                                                        */
/* ------------------------------------------------------------------------- */

#define HDR                                                                                        \
  "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","         \
  "\"tool_version\":\"0.1.0\",\"mode\":\"stream\",\"pid\":1234,\"backend\":\"singlestep\","        \
  "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"hostname\":\"h\"},"                        \
  "\"start_time\":\"2026-12-02T09:00:00Z\",\"start_unix_ns\":123}\n"

/* A growable text. */
struct text {
  char *s;
  size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) abort();
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

static void add_bytes(struct text *t, const void *p, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
  memcpy(t->s + t->len, p, n);
  t->len += n;
  t->s[t->len] = '\0';
}

static void add_insn(struct text *t, int64_t seq) {
  add(t,
      "{\"type\":\"insn\",\"seq\":%" PRId64 ",\"tid\":1234,\"ip\":\"0x401%03" PRIx64
      "\",\"sym\":\"main\","
      "\"off\":%" PRId64
      ",\"module\":\"a.out\",\"bytes\":\"4889e5\",\"disasm\":\"mov rbp, rsp\"}\n",
      seq, (uint64_t)seq * 3, seq * 3);
}

static void add_end(struct text *t, int64_t events) {
  add(t,
      "{\"type\":\"end\",\"events\":%" PRId64 ",\"lost\":0,\"reason\":\"n_reached\",\"status\":0,"
      "\"end_unix_ns\":456}\n",
      events);
}

/* HDR + n insn events (+ the end footer when with_end). */
static struct text stream(int n, int with_end) {
  struct text t = {0};
  add(&t, "%s", HDR);
  for (int i = 1; i <= n; i++) add_insn(&t, i);
  if (with_end) add_end(&t, n);
  return t;
}

static char tmpdir[] = "/tmp/test_recording.XXXXXX";
static int file_no;

static char *write_file(const void *data, size_t len) {
  char *path;
  if (asprintf(&path, "%s/rec%d.asmtrace", tmpdir, file_no++) < 0) abort();
  FILE *f = fopen(path, "w");
  if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  return path;
}

/* Validate data; check verdict, error line and (when non-NULL) that the error
 * (or, for a valid verdict, the warning) contains `msg`. */
static void expect_at(const char *what, const void *data, size_t len, int verdict, uint64_t line,
                      const char *msg, struct asmspy_recording_report *out, int srcline) {
  char *path = write_file(data, len);
  struct asmspy_recording_report rep;
  memset(&rep, 0xA5, sizeof rep); /* the validator must fill everything it reports */
  int v = recording_validate_path(path, &rep);
  checks++;
  const char *text = verdict == RECORDING_VALID ? rep.warning : rep.error;
  int good = v == verdict && rep.verdict == verdict &&
             (verdict == RECORDING_VALID ? rep.error[0] == '\0' : 1) &&
             (verdict == RECORDING_VALID || rep.error_line == line) &&
             (!msg || strstr(text, msg) != NULL);
  if (!good) {
    failures++;
    fprintf(stderr,
            "FAIL %s:%d: %s: want %s line %" PRIu64 " \"%s\"; got %s (rc %d) line %" PRIu64
            " error \"%s\" warning \"%s\"\n",
            __FILE__, srcline, what, recording_verdict_name(verdict), line, msg ? msg : "",
            recording_verdict_name(v), v, rep.error_line, rep.error, rep.warning);
  }
  if (out) *out = rep;
  unlink(path);
  free(path);
}
#define EXPECT(what, t, verdict, line, msg)                                                        \
  expect_at((what), (t).s, (t).len, (verdict), (line), (msg), NULL, __LINE__)
#define EXPECT_STR(what, s, verdict, line, msg)                                                    \
  expect_at((what), (s), strlen(s), (verdict), (line), (msg), NULL, __LINE__)

/* HDR + events 1..2 + `line` (as event line 4) + end 3: for bad event lines. */
static void expect_bad_event(const char *what, const char *line, const char *msg, int srcline) {
  struct text t = stream(2, 0);
  add(&t, "%s\n", line);
  add_end(&t, 3);
  expect_at(what, t.s, t.len, RECORDING_INVALID, 4, msg, NULL, srcline);
  free(t.s);
}
#define BAD_EVENT(what, line, msg) expect_bad_event((what), (line), (msg), __LINE__)

/* A header with one member replaced: `from` (exact text in HDR) -> `to`. */
static void expect_header(const char *what, const char *from, const char *to, int verdict,
                          const char *msg, int srcline) {
  const char *hdr = HDR;
  const char *at = strstr(hdr, from);
  if (!at) {
    fprintf(stderr, "test bug: %s not in HDR\n", from);
    exit(1);
  }
  struct text t = {0};
  add_bytes(&t, hdr, (size_t)(at - hdr));
  add(&t, "%s%s", to, at + strlen(from));
  add_insn(&t, 1);
  add_end(&t, 1);
  expect_at(what, t.s, t.len, verdict, 1, msg, NULL, srcline);
  free(t.s);
}
#define HEADER(what, from, to, verdict, msg)                                                       \
  expect_header((what), (from), (to), (verdict), (msg), __LINE__)

/* ------------------------------------------------------------------------- */

static void test_valid(void) {
  struct text t = {0};
  add(&t, "%s", HDR);
  add_insn(&t, 1);
  add_insn(&t, 2);
  add(&t, "{\"type\":\"note\",\"seq\":3,\"level\":\"warn\",\"text\":\"caf\\u00e9 \\\"x\\\"\"}\n");
  add(&t, "{\"type\":\"lost\",\"seq\":4,\"count\":5}\n");
  add(&t, "{\"type\":\"task\",\"seq\":5,\"what\":\"clone\",\"tid\":1234,\"child\":1240}\n");
  add(&t, "{\"type\":\"task\",\"seq\":6,\"what\":\"exit\",\"tid\":1240,\"code\":0}\n");
  add(&t, "{\"type\":\"insn\",\"seq\":7,\"tid\":1240,\"ip\":\"0xFFFFFFFFFFFFFFFF\",\"sym\":null,"
          "\"off\":0,"
          "\"module\":\"?\",\"bytes\":\"0f05\",\"disasm\":\"syscall\",\"extra\":[1,{\"future\":"
          "true}]}\n");
  add(&t, "{\"type\":\"end\",\"events\":7,\"lost\":5,\"reason\":\"target_exited\",\"status\":3,"
          "\"end_unix_ns\":456}\n");
  struct asmspy_recording_report rep;
  expect_at("valid", t.s, t.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
  CHECK(rep.have_header && rep.format_version == 1, "header");
  CHECK(strcmp(rep.mode, "stream") == 0 && rep.pid == 1234, "mode %s pid %" PRId64, rep.mode,
        rep.pid);
  CHECK(strcmp(rep.backend, "singlestep") == 0 && !rep.backend_null, "backend %s", rep.backend);
  CHECK(strcmp(rep.tool, "asmspy") == 0 && strcmp(rep.tool_version, "0.1.0") == 0, "tool");
  CHECK(strcmp(rep.kernel, "6.1.0") == 0 && strcmp(rep.arch, "x86_64") == 0 &&
            strcmp(rep.hostname, "h") == 0,
        "host");
  CHECK(strcmp(rep.start_time, "2026-12-02T09:00:00Z") == 0, "start_time");
  CHECK(rep.events == 7 && rep.lines == 9, "events %" PRIu64 " lines %" PRIu64, rep.events,
        rep.lines);
  CHECK(recording_type_count(&rep, "insn") == 3 && recording_type_count(&rep, "note") == 1 &&
            recording_type_count(&rep, "lost") == 1 && recording_type_count(&rep, "task") == 2 &&
            recording_type_count(&rep, "syscall") == 0,
        "type counts");
  CHECK(rep.n_types == 4 && strcmp(rep.types[0].name, "insn") == 0 &&
            strcmp(rep.types[3].name, "task") == 0,
        "types in order of first appearance");
  CHECK(rep.other_types == 0, "other_types");
  CHECK(rep.lost_events == 5 && rep.lost == 5, "lost");
  CHECK(rep.have_end && rep.end_events == 7 && strcmp(rep.end_reason, "target_exited") == 0 &&
            rep.end_status == 3,
        "footer");
  CHECK(rep.error_line == 0 && rep.error[0] == '\0' && rep.warning[0] == '\0',
        "no problem reported");
  free(t.s);

  /* zero events; backend null; pid 0; no hostname; no start_unix_ns; every reason */
  static const char *reasons[] = {"n_reached", "target_exited", "interrupted", "error",
                                  "completed"};
  for (size_t i = 0; i < 5; i++) {
    struct text z = {0};
    add(&z,
        "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","
        "\"tool_version\":\"0.1.0\",\"mode\":\"backends\",\"pid\":0,\"backend\":null,"
        "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\"},\"start_time\":\"t\"}\n"
        "{\"type\":\"end\",\"events\":0,\"lost\":0,\"reason\":\"%s\",\"status\":-1}\n",
        reasons[i]);
    expect_at("zero events", z.s, z.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
    CHECK(rep.backend_null && rep.backend[0] == '\0' && rep.pid == 0 && rep.events == 0 &&
              rep.n_types == 0,
          "zero-event report");
    CHECK(strcmp(rep.end_reason, reasons[i]) == 0 && rep.end_status == -1, "reason %s", reasons[i]);
    free(z.s);
  }

  /* CRLF line ends: the '\r' is JSON whitespace */
  EXPECT_STR(
      "crlf",
      "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","
      "\"tool_version\":\"0.1.0\",\"mode\":\"stream\",\"pid\":1,\"backend\":null,"
      "\"host\":{\"kernel\":\"k\",\"arch\":\"a\"},\"start_time\":\"t\"}\r\n"
      "{\"type\":\"end\",\"events\":0,\"lost\":0,\"reason\":\"completed\",\"status\":0}\r\n",
      RECORDING_VALID, 0, NULL);

  /* the end footer without its final newline: valid, with a warning */
  t = stream(2, 1);
  t.s[--t.len] = '\0';
  EXPECT("no final newline", t, RECORDING_VALID, 0, "no newline at end of file");
  free(t.s);

  /* many events */
  t = stream(5000, 1);
  expect_at("5000 events", t.s, t.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
  CHECK(rep.events == 5000 && recording_type_count(&rep, "insn") == 5000, "5000 counted");
  free(t.s);
}

static void test_truncated(void) {
  struct asmspy_recording_report rep;
  struct text t = stream(17, 0);
  expect_at("missing end", t.s, t.len, RECORDING_TRUNCATED, 0, "no end footer after 17 events",
            &rep, __LINE__);
  CHECK(rep.events == 17 && rep.have_header && !rep.have_end, "truncated report keeps the events");
  free(t.s);

  t = stream(0, 0);
  EXPECT("header only", t, RECORDING_TRUNCATED, 0, "no end footer after 0 events");
  free(t.s);

  /* the writer was killed mid-line: the last line is cut (no '\n') */
  t = stream(5, 0);
  add(&t, "{\"type\":\"insn\",\"seq\":6,\"tid\":1234,\"ip\":\"0x4");
  expect_at("cut mid-line", t.s, t.len, RECORDING_TRUNCATED, 7, "cut mid-write", &rep, __LINE__);
  CHECK(rep.events == 5, "the cut line is not counted (%" PRIu64 ")", rep.events);
  free(t.s);

  /* a cut end footer is a truncation too */
  t = stream(3, 1);
  t.len -= 10;
  t.s[t.len] = '\0';
  EXPECT("cut footer", t, RECORDING_TRUNCATED, 5, "no end footer after 3 events");
  free(t.s);

  /* but a cut header is not a recording at all */
  EXPECT_STR("cut header", "{\"type\":\"header\",\"format\":\"asm", RECORDING_INVALID, 1,
             "not JSON");
}

static void test_invalid_structure(void) {
  struct text t;

  EXPECT_STR("empty file", "", RECORDING_INVALID, 1, "empty file");

  t = stream(3, 0);
  add_end(&t, 4);
  EXPECT("end count mismatch (more)", t, RECORDING_INVALID, 5,
         "end.events is 4 but 3 event lines precede it");
  free(t.s);
  t = stream(3, 0);
  add_end(&t, 2);
  EXPECT("end count mismatch (fewer)", t, RECORDING_INVALID, 5, "end.events is 2");
  free(t.s);

  t = stream(0, 0);
  add_insn(&t, 1);
  add_insn(&t, 2);
  add_insn(&t, 4);
  add_end(&t, 3);
  EXPECT("seq gap", t, RECORDING_INVALID, 4, "seq gap: expected 3, got 4");
  free(t.s);

  t = stream(0, 0);
  add_insn(&t, 2);
  add_end(&t, 1);
  EXPECT("seq starts at 2", t, RECORDING_INVALID, 2, "seq must start at 1, got 2");
  free(t.s);

  t = stream(0, 0);
  add_insn(&t, 0);
  add_end(&t, 1);
  EXPECT("seq starts at 0", t, RECORDING_INVALID, 2, "seq must start at 1, got 0");
  free(t.s);

  t = stream(2, 0);
  add_insn(&t, 2);
  add_end(&t, 3);
  EXPECT("seq repeated", t, RECORDING_INVALID, 4, "seq gap: expected 3, got 2");
  free(t.s);

  t = stream(2, 0);
  add(&t, "this is not json\n");
  add_end(&t, 2);
  EXPECT("garbage line", t, RECORDING_INVALID, 4, "not JSON");
  free(t.s);

  t = stream(2, 0);
  add(&t, "{\"type\":\"insn\",\"seq\":3,}\n");
  add_end(&t, 3);
  EXPECT("trailing comma", t, RECORDING_INVALID, 4, "not JSON");
  free(t.s);

  t = stream(1, 0);
  add(&t, "[1,2,3]\n");
  EXPECT("array line", t, RECORDING_INVALID, 3, "not a JSON object (got array)");
  free(t.s);
  t = stream(1, 0);
  add(&t, "42\n");
  EXPECT("number line", t, RECORDING_INVALID, 3, "not a JSON object (got int)");
  free(t.s);
  EXPECT_STR("string as header", "\"header\"\n", RECORDING_INVALID, 1,
             "not a JSON object (got string)");

  t = stream(2, 1);
  add(&t, "{\"type\":\"note\",\"seq\":3,\"level\":\"info\",\"text\":\"late\"}\n");
  EXPECT("event after end", t, RECORDING_INVALID, 5, "after the end footer");
  free(t.s);
  t = stream(2, 1);
  add(&t, "\n");
  EXPECT("blank line after end", t, RECORDING_INVALID, 5, "after the end footer");
  free(t.s);
  t = stream(2, 1);
  add_end(&t, 2);
  EXPECT("second end", t, RECORDING_INVALID, 5, "after the end footer");
  free(t.s);
  t = stream(2, 1);
  add(&t, "x");
  EXPECT("junk without newline after end", t, RECORDING_INVALID, 5, "after the end footer");
  free(t.s);

  t = stream(1, 0);
  add(&t, "\n");
  add_insn(&t, 2);
  add_end(&t, 2);
  EXPECT("empty line", t, RECORDING_INVALID, 3, "empty line");
  free(t.s);

  t = stream(1, 0);
  add(&t, "%s", HDR);
  add_end(&t, 1);
  EXPECT("duplicate header", t, RECORDING_INVALID, 3, "duplicate header");
  free(t.s);

  t = (struct text){0};
  add_insn(&t, 1);
  add_end(&t, 1);
  EXPECT("no header", t, RECORDING_INVALID, 1, "the first line must be the header");
  free(t.s);
  EXPECT_STR("end first",
             "{\"type\":\"end\",\"events\":0,\"lost\":0,\"reason\":\"completed\",\"status\":0}\n",
             RECORDING_INVALID, 1, "got type \"end\"");

  t = stream(1, 0);
  add(&t, "{\"seq\":2,\"level\":\"info\",\"text\":\"x\"}\n");
  EXPECT("type missing", t, RECORDING_INVALID, 3, "missing \"type\"");
  free(t.s);
  t = stream(1, 0);
  add(&t, "{\"type\":7,\"seq\":2}\n");
  EXPECT("type not a string", t, RECORDING_INVALID, 3, "\"type\" must be a non-empty string");
  free(t.s);
  t = stream(1, 0);
  add(&t, "{\"type\":\"\",\"seq\":2}\n");
  EXPECT("empty type", t, RECORDING_INVALID, 3, "non-empty");
  free(t.s);

  /* a NUL byte inside a line */
  t = stream(1, 0);
  add_bytes(&t, "{\"type\":\"x\",\"seq\":2}\0\n", 21);
  add_end(&t, 2);
  EXPECT("NUL byte", t, RECORDING_INVALID, 3, "not JSON");
  free(t.s);
  /* invalid UTF-8 in a string */
  t = stream(1, 0);
  add(&t, "{\"type\":\"note\",\"seq\":2,\"level\":\"info\",\"text\":\"\xFF\"}\n");
  add_end(&t, 2);
  EXPECT("bad UTF-8", t, RECORDING_INVALID, 3, "UTF-8");
  free(t.s);
  /* duplicate keys are ambiguous: rejected */
  t = stream(1, 0);
  add(&t, "{\"type\":\"lost\",\"seq\":2,\"count\":1,\"count\":2}\n");
  add_end(&t, 2);
  EXPECT("duplicate key", t, RECORDING_INVALID, 3, "duplicate key \"count\"");
  free(t.s);
}

static void test_long_lines(void) {
  /* a 2 MiB line: an error at that line, not a crash or a 2 MiB buffer */
  struct text t = stream(2, 0);
  size_t big = 2u << 20;
  char *junk = malloc(big);
  memset(junk, 'a', big);
  add(&t, "{\"type\":\"note\",\"seq\":3,\"level\":\"info\",\"text\":\"");
  add_bytes(&t, junk, big);
  add(&t, "\"}\n");
  add_end(&t, 3);
  EXPECT("2 MiB line", t, RECORDING_INVALID, 4, "longer than 1048576 bytes");
  free(t.s);

  /* a 2 MiB header with no newline at all */
  t = (struct text){0};
  add_bytes(&t, junk, big);
  EXPECT("2 MiB first line", t, RECORDING_INVALID, 1, "longer than");
  free(t.s);
  free(junk);

  /* exactly RECORDING_MAX_LINE bytes (without '\n'): accepted; one more: not */
  const char *pre = "{\"type\":\"note\",\"seq\":1,\"level\":\"info\",\"text\":\"";
  size_t fill = RECORDING_MAX_LINE - strlen(pre) - 2;
  for (int extra = 0; extra <= 1; extra++) {
    t = stream(0, 0);
    add(&t, "%s", pre);
    char *a = malloc(fill + (size_t)extra);
    memset(a, 'b', fill + (size_t)extra);
    add_bytes(&t, a, fill + (size_t)extra);
    free(a);
    add(&t, "\"}\n");
    add_end(&t, 1);
    if (extra)
      EXPECT("1 MiB + 1 line", t, RECORDING_INVALID, 2, "longer than");
    else
      EXPECT("1 MiB line", t, RECORDING_VALID, 0, NULL);
    free(t.s);
  }
}

static void test_header(void) {
  HEADER("bad format", "\"format\":\"asmtrace\"", "\"format\":\"asmtrace2\"", RECORDING_INVALID,
         "header.format must be \"asmtrace\"");
  HEADER("no format", "\"format\":\"asmtrace\",", "", RECORDING_INVALID,
         "header.format must be \"asmtrace\"");
  HEADER("format_version 0", "\"format_version\":1", "\"format_version\":0", RECORDING_INVALID,
         "format_version 0 is not supported");
  HEADER("format_version -1", "\"format_version\":1", "\"format_version\":-1", RECORDING_INVALID,
         "not supported");
  HEADER("format_version string", "\"format_version\":1", "\"format_version\":\"1\"",
         RECORDING_INVALID, "header.format_version must be an integer");
  HEADER("format_version 1.0", "\"format_version\":1", "\"format_version\":1.0", RECORDING_INVALID,
         "header.format_version must be an integer");
  HEADER("format_version missing", "\"format_version\":1,", "", RECORDING_INVALID,
         "header.format_version is missing");
  HEADER("format_version 2", "\"format_version\":1", "\"format_version\":2", RECORDING_VALID,
         "format_version 2 is newer than this reader");
  HEADER("tool missing", "\"tool\":\"asmspy\",", "", RECORDING_INVALID, "header.tool is missing");
  HEADER("tool_version number", "\"tool_version\":\"0.1.0\"", "\"tool_version\":1",
         RECORDING_INVALID, "header.tool_version must be a string");
  HEADER("mode null", "\"mode\":\"stream\"", "\"mode\":null", RECORDING_INVALID,
         "header.mode must be a string");
  HEADER("pid -1", "\"pid\":1234", "\"pid\":-1", RECORDING_INVALID,
         "header.pid must be an integer >= 0");
  HEADER("pid string", "\"pid\":1234", "\"pid\":\"1234\"", RECORDING_INVALID, "header.pid must be");
  HEADER("pid missing", "\"pid\":1234,", "", RECORDING_INVALID, "header.pid is missing");
  HEADER("backend number", "\"backend\":\"singlestep\"", "\"backend\":3", RECORDING_INVALID,
         "header.backend must be a string or null");
  HEADER("backend missing", "\"backend\":\"singlestep\",", "", RECORDING_INVALID,
         "header.backend is missing");
  HEADER("host string", "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"hostname\":\"h\"}",
         "\"host\":\"h\"", RECORDING_INVALID, "header.host must be an object");
  HEADER("host.kernel missing", "\"kernel\":\"6.1.0\",", "", RECORDING_INVALID,
         "header.host.kernel is missing");
  HEADER("host.arch number", "\"arch\":\"x86_64\"", "\"arch\":64", RECORDING_INVALID,
         "header.host.arch must be a string");
  HEADER("start_time missing", ",\"start_time\":\"2026-12-02T09:00:00Z\"", "", RECORDING_INVALID,
         "header.start_time is missing");
  HEADER("start_unix_ns string", "\"start_unix_ns\":123", "\"start_unix_ns\":\"123\"",
         RECORDING_INVALID, "header.start_unix_ns must be an integer >= 0");
  HEADER("extra header members are fine", "\"start_unix_ns\":123",
         "\"start_unix_ns\":123,\"argv\":[\"asmspy\",\"--stream\"],\"future\":{\"x\":1}",
         RECORDING_VALID, NULL);

  /* a newer version is read with the same rules: bad lines still fail */
  struct text t = {0};
  add(&t, "%s", HDR);
  char *p = strstr(t.s, "\"format_version\":1");
  p[strlen("\"format_version\":")] = '2';
  add_insn(&t, 1);
  add_insn(&t, 3);
  add_end(&t, 2);
  EXPECT("format_version 2 with a seq gap", t, RECORDING_INVALID, 3, "seq gap");
  free(t.s);
}

static void test_syscall_events(void) {
  /* the syscall log's events: decoded text, ret (null = never returned), carried strings */
  struct text t = stream(0, 0);
  add(&t, "{\"type\":\"syscall\",\"seq\":1,\"tid\":7,\"nr\":1,\"name\":\"write\","
          "\"text\":\"write(fd=1, \\\"hi\\\", 2) = 2\",\"ret\":2,\"carried\":[\"hi\"]}\n");
  add(&t, "{\"type\":\"syscall\",\"seq\":2,\"tid\":7,\"nr\":231,\"name\":\"exit_group\","
          "\"text\":\"exit_group(0) = ?\",\"ret\":null,\"carried\":[]}\n");
  add(&t, "{\"type\":\"signal\",\"seq\":3,\"tid\":7,\"signo\":10,\"name\":\"SIGUSR1\"}\n");
  add_end(&t, 3);
  EXPECT("syscall and signal events", t, RECORDING_VALID, 0, NULL);
  free(t.s);
  t = stream(0, 0);
  add(&t, "{\"type\":\"syscall\",\"seq\":1,\"nr\":1,\"name\":\"write\",\"text\":\"x\","
          "\"ret\":\"2\",\"carried\":[]}\n");
  add_end(&t, 1);
  EXPECT("syscall without tid", t, RECORDING_INVALID, 2, "tid");
  free(t.s);
  t = stream(0, 0);
  add(&t, "{\"type\":\"syscall\",\"seq\":1,\"tid\":1,\"nr\":1,\"name\":\"write\",\"text\":\"x\","
          "\"ret\":2,\"carried\":[1]}\n");
  add_end(&t, 1);
  EXPECT("syscall carried not strings", t, RECORDING_INVALID, 2, "carried");
  free(t.s);
}

static void test_graph_call_events(void) {
  /* --graph: one graph event with nodes and edges arrays; --tree: call events */
  struct text t = stream(0, 0);
  add(&t, "{\"type\":\"graph\",\"seq\":1,\"pid\":1,\"sort\":\"invocations\",\"nodes\":["
          "{\"addr\":\"0x10\",\"name\":\"main\",\"module\":\"a\",\"kind\":\"internal\","
          "\"inv\":0,\"calls\":1,\"fanout\":1},{\"addr\":\"0x20\",\"name\":null,\"module\":\"?\","
          "\"kind\":\"unknown\",\"inv\":1,\"calls\":0,\"fanout\":0}],"
          "\"edges\":[{\"caller\":\"0x10\",\"callee\":\"0x20\",\"count\":1}]}\n");
  add(&t, "{\"type\":\"call\",\"seq\":2,\"tid\":7,\"depth\":0,\"name\":\"work\","
          "\"module\":\"victim\",\"addr\":\"0x30\",\"kind\":\"internal\"}\n");
  add(&t, "{\"type\":\"call\",\"seq\":3,\"tid\":7,\"depth\":1,\"name\":null,\"module\":\"?\"}\n");
  add_end(&t, 3);
  struct asmspy_recording_report rep;
  expect_at("graph and call events", t.s, t.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
  CHECK(recording_type_count(&rep, "graph") == 1 && recording_type_count(&rep, "call") == 2,
        "graph and call counted");
  free(t.s);

  BAD_EVENT("graph without edges", "{\"type\":\"graph\",\"seq\":3,\"nodes\":[]}",
            "graph.edges is missing");
  BAD_EVENT("graph without nodes", "{\"type\":\"graph\",\"seq\":3,\"edges\":[]}",
            "graph.nodes is missing");
  BAD_EVENT("graph nodes not an array", "{\"type\":\"graph\",\"seq\":3,\"nodes\":{},\"edges\":[]}",
            "graph.nodes must be");
  BAD_EVENT("graph edge not an object", "{\"type\":\"graph\",\"seq\":3,\"nodes\":[],\"edges\":[1]}",
            "graph.edges must be");
  BAD_EVENT("call without tid",
            "{\"type\":\"call\",\"seq\":3,\"depth\":0,\"name\":\"f\",\"module\":\"m\"}",
            "call.tid is missing");
  BAD_EVENT("call negative depth",
            "{\"type\":\"call\",\"seq\":3,\"tid\":1,\"depth\":-1,\"name\":\"f\",\"module\":\"m\"}",
            "call.depth must be");
  BAD_EVENT("call without name",
            "{\"type\":\"call\",\"seq\":3,\"tid\":1,\"depth\":0,\"module\":\"m\"}",
            "call.name is missing");
  BAD_EVENT("call module not a string",
            "{\"type\":\"call\",\"seq\":3,\"tid\":1,\"depth\":0,\"name\":\"f\",\"module\":3}",
            "call.module must be");
}

static void test_events(void) {
  /* unknown event types: accepted with a valid seq, counted per type */
  struct text t = stream(1, 0);
  add(&t, "{\"type\":\"future_kind\",\"seq\":2,\"nr\":1,\"name\":\"write\"}\n");
  add(&t, "{\"type\":\"graph\",\"seq\":3,\"nodes\":[],\"edges\":[]}\n");
  add(&t, "{\"type\":\"future_kind\",\"seq\":4}\n");
  add_end(&t, 4);
  struct asmspy_recording_report rep;
  expect_at("unknown types", t.s, t.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
  CHECK(recording_type_count(&rep, "future_kind") == 2 &&
            recording_type_count(&rep, "graph") == 1 && recording_type_count(&rep, "insn") == 1 &&
            rep.events == 4,
        "unknown types counted");
  free(t.s);

  /* ... but they need a seq too */
  BAD_EVENT("unknown type without seq", "{\"type\":\"syscall\",\"nr\":1}",
            "syscall.seq is missing");
  BAD_EVENT("seq string", "{\"type\":\"syscall\",\"seq\":\"3\"}", "syscall.seq must be an integer");
  BAD_EVENT("seq double", "{\"type\":\"syscall\",\"seq\":3.0}", "syscall.seq must be an integer");

  /* more types than the table: counted as other */
  t = stream(0, 0);
  for (int i = 1; i <= RECORDING_MAX_TYPES + 5; i++)
    add(&t, "{\"type\":\"t%d\",\"seq\":%d}\n", i, i);
  add(&t, "{\"type\":\"a_type_name_that_is_much_too_long_for_the_table\",\"seq\":%d}\n",
      RECORDING_MAX_TYPES + 6);
  add_end(&t, RECORDING_MAX_TYPES + 6);
  expect_at("many types", t.s, t.len, RECORDING_VALID, 0, NULL, &rep, __LINE__);
  CHECK(rep.n_types == RECORDING_MAX_TYPES && rep.other_types == 6,
        "n_types %" PRIu64 " other %" PRIu64, rep.n_types, rep.other_types);
  free(t.s);

  /* insn */
  const char *good =
      "{\"type\":\"insn\",\"seq\":3,\"tid\":1,\"ip\":\"0x10\",\"sym\":\"f\",\"off\":0,"
      "\"module\":\"m\",\"bytes\":\"90\",\"disasm\":\"nop\"}";
  t = stream(2, 0);
  add(&t, "%s\n", good);
  add_end(&t, 3);
  EXPECT("good insn", t, RECORDING_VALID, 0, NULL);
  free(t.s);

  struct {
    const char *from, *to, *msg;
  } insn_cases[] = {
      {"\"ip\":\"0x10\"", "\"ip\":\"0x\"", "insn.ip must be a \"0x\" hex string"},
      {"\"ip\":\"0x10\"", "\"ip\":\"10\"", "insn.ip must be a \"0x\" hex string"},
      {"\"ip\":\"0x10\"", "\"ip\":\"0x1g\"", "insn.ip must be a \"0x\" hex string"},
      {"\"ip\":\"0x10\"", "\"ip\":16", "insn.ip must be a \"0x\" hex string"},
      {"\"ip\":\"0x10\"", "\"ip\":\"0x10000000000000000\"", "insn.ip must be a \"0x\" hex string"},
      {"\"ip\":\"0x10\",", "", "insn.ip is missing"},
      {"\"tid\":1", "\"tid\":\"1\"", "insn.tid must be an integer"},
      {"\"tid\":1,", "", "insn.tid is missing"},
      {"\"sym\":\"f\"", "\"sym\":0", "insn.sym must be a string or null"},
      {"\"sym\":\"f\",", "", "insn.sym is missing"},
      {"\"off\":0", "\"off\":-1", "insn.off must be an integer >= 0"},
      {"\"off\":0", "\"off\":0.5", "insn.off must be an integer >= 0"},
      {"\"module\":\"m\"", "\"module\":null", "insn.module must be a string"},
      {"\"bytes\":\"90\"", "\"bytes\":\"9\"", "insn.bytes must be a hex string"},
      {"\"bytes\":\"90\"", "\"bytes\":\"\"", "insn.bytes must be a hex string"},
      {"\"bytes\":\"90\"", "\"bytes\":\"zz\"", "insn.bytes must be a hex string"},
      {"\"bytes\":\"90\"", "\"bytes\":\"000102030405060708090a0b0c0d0e0f10\"",
       "insn.bytes must be a hex string"},
      {"\"bytes\":\"90\"", "\"bytes\":[144]", "insn.bytes must be a hex string"},
      {"\"disasm\":\"nop\"", "\"disasm\":false", "insn.disasm must be a string"},
  };
  for (size_t i = 0; i < sizeof insn_cases / sizeof insn_cases[0]; i++) {
    const char *at = strstr(good, insn_cases[i].from);
    struct text line = {0};
    add_bytes(&line, good, (size_t)(at - good));
    add(&line, "%s%s", insn_cases[i].to, at + strlen(insn_cases[i].from));
    char what[64];
    snprintf(what, sizeof what, "insn case %zu", i);
    BAD_EVENT(what, line.s, insn_cases[i].msg);
    free(line.s);
  }
  /* boundaries that are fine: 16 hex digits of ip, 32 hex digits of bytes, upper case */
  t = stream(2, 0);
  add(&t, "{\"type\":\"insn\",\"seq\":3,\"tid\":-1,\"ip\":\"0xFfFfFfFfFfFfFfFf\",\"sym\":null,"
          "\"off\":9,"
          "\"module\":\"\",\"bytes\":\"000102030405060708090A0B0C0D0E0F\",\"disasm\":\"\"}\n");
  add_end(&t, 3);
  EXPECT("insn boundaries", t, RECORDING_VALID, 0, NULL);
  free(t.s);

  /* note */
  BAD_EVENT("note level", "{\"type\":\"note\",\"seq\":3,\"level\":\"error\",\"text\":\"x\"}",
            "note.level must be one of \"info\", \"warn\", \"skip\"");
  BAD_EVENT("note level missing", "{\"type\":\"note\",\"seq\":3,\"text\":\"x\"}",
            "note.level is missing");
  BAD_EVENT("note text", "{\"type\":\"note\",\"seq\":3,\"level\":\"skip\",\"text\":null}",
            "note.text must be a string");
  /* lost */
  BAD_EVENT("lost negative", "{\"type\":\"lost\",\"seq\":3,\"count\":-1}",
            "lost.count must be an integer >= 0");
  BAD_EVENT("lost missing", "{\"type\":\"lost\",\"seq\":3}", "lost.count is missing");
  /* task */
  BAD_EVENT("task what", "{\"type\":\"task\",\"seq\":3,\"what\":\"spawn\",\"tid\":1}",
            "task.what must be one of \"clone\", \"fork\", \"exec\", \"exit\"");
  BAD_EVENT("task tid", "{\"type\":\"task\",\"seq\":3,\"what\":\"exec\"}", "task.tid is missing");
  BAD_EVENT("task child",
            "{\"type\":\"task\",\"seq\":3,\"what\":\"fork\",\"tid\":1,\"child\":\"2\"}",
            "task.child must be an integer");
  BAD_EVENT("task code", "{\"type\":\"task\",\"seq\":3,\"what\":\"exit\",\"tid\":1,\"code\":null}",
            "task.code must be an integer");

  /* end */
  struct {
    const char *line, *msg;
  } ends[] = {
      {"{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"done\",\"status\":0}",
       "end.reason must be one of"},
      {"{\"type\":\"end\",\"events\":2,\"lost\":0,\"status\":0}", "end.reason is missing"},
      {"{\"type\":\"end\",\"events\":2,\"lost\":-3,\"reason\":\"error\",\"status\":0}",
       "end.lost must be an integer >= 0"},
      {"{\"type\":\"end\",\"events\":2,\"reason\":\"error\",\"status\":0}", "end.lost is missing"},
      {"{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"error\"}", "end.status is missing"},
      {"{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"error\",\"status\":\"0\"}",
       "end.status must be an integer"},
      {"{\"type\":\"end\",\"events\":\"2\",\"lost\":0,\"reason\":\"error\",\"status\":0}",
       "end.events must be an integer >= 0"},
      {"{\"type\":\"end\",\"lost\":0,\"reason\":\"error\",\"status\":0}", "end.events is missing"},
      {"{\"type\":\"end\",\"events\":2,\"lost\":0,\"reason\":\"error\",\"status\":0,\"end_unix_"
       "ns\":-5}",
       "end.end_unix_ns must be an integer >= 0"},
  };
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
    t = stream(2, 0);
    add(&t, "%s\n", ends[i].line);
    char what[32];
    snprintf(what, sizeof what, "end case %zu", i);
    expect_at(what, t.s, t.len, RECORDING_INVALID, 4, ends[i].msg, NULL, __LINE__);
    free(t.s);
  }
}

/* ------------------------------------------------------------------------- */
/* Iterator                                                                   */
/* ------------------------------------------------------------------------- */

static void test_iterator(void) {
  struct text t = stream(0, 0);
  add_insn(&t, 1);
  add(&t, "{\"type\":\"note\",\"seq\":2,\"level\":\"info\",\"text\":\"a\\nb\"}\n");
  add(&t, "{\"type\":\"future\",\"seq\":3,\"payload\":{\"k\":[1,2]}}\n");
  add_insn(&t, 4);
  add_end(&t, 4);
  char *path = write_file(t.s, t.len);

  struct recording *rec = recording_open(path);
  CHECK(rec != NULL, "open %s", path);
  if (rec) {
    const struct json_value *h = recording_header(rec);
    CHECK(h && strcmp(json_get_str(h, "mode"), "stream") == 0, "header available right after open");
    CHECK(recording_footer(rec) == NULL, "no footer yet");
    const struct json_value *ev;
    int64_t seq = 0, want = 1;
    const char *types[] = {"insn", "note", "future", "insn"};
    int r;
    while ((r = recording_next(rec, &ev)) == 1) {
      CHECK(want <= 4, "too many events");
      if (want > 4) break;
      CHECK(json_get_int(ev, "seq", &seq) && seq == want, "seq %" PRId64 " want %" PRId64, seq,
            want);
      CHECK(strcmp(json_get_str(ev, "type"), types[want - 1]) == 0, "type of event %" PRId64, want);
      if (want == 2) CHECK(strcmp(json_get_str(ev, "text"), "a\nb") == 0, "note text decoded");
      if (want == 3) {
        const struct json_value *k = json_get(json_get(ev, "payload"), "k");
        CHECK(json_array_len(k) == 2, "unknown event's payload readable");
      }
      want++;
    }
    CHECK(r == 0 && want == 5, "iteration ended with %d after %" PRId64 " events", r, want - 1);
    CHECK(recording_next(rec, &ev) == 0 && ev == NULL, "0 again after the end");
    const struct asmspy_recording_report *rep = recording_get_report(rec);
    CHECK(rep->verdict == RECORDING_VALID && rep->events == 4, "iterator report");
    int64_t n = 0;
    CHECK(json_get_int(recording_footer(rec), "events", &n) && n == 4, "footer available");
    recording_close(rec);
  }
  unlink(path);
  free(path);
  free(t.s);

  /* invalid in the middle: events before the error, then -1 for good */
  t = stream(3, 0);
  add_insn(&t, 5);
  add_end(&t, 4);
  path = write_file(t.s, t.len);
  rec = recording_open(path);
  if (rec) {
    const struct json_value *ev;
    int n = 0, r;
    while ((r = recording_next(rec, &ev)) == 1) n++;
    CHECK(r == -1 && n == 3, "invalid: %d after %d events", r, n);
    CHECK(recording_next(rec, &ev) == -1 && ev == NULL, "-1 again");
    const struct asmspy_recording_report *rep = recording_get_report(rec);
    CHECK(rep->verdict == RECORDING_INVALID && rep->error_line == 5 &&
              strstr(rep->error, "seq gap"),
          "iterator error report: line %" PRIu64 " %s", rep->error_line, rep->error);
    recording_close(rec);
  } else {
    CHECK(0, "open");
  }
  unlink(path);
  free(path);
  free(t.s);

  /* bad header: open succeeds, the first next() says -1 */
  path = write_file("{\"type\":\"header\"}\n", 18);
  rec = recording_open(path);
  CHECK(rec && recording_header(rec) == NULL, "bad header: open works, no header");
  if (rec) {
    const struct json_value *ev;
    CHECK(recording_next(rec, &ev) == -1, "bad header: next is -1");
    CHECK(recording_get_report(rec)->error_line == 1, "bad header line");
    recording_close(rec);
  }
  unlink(path);
  free(path);

  /* truncated: all events, then 0 with the TRUNCATED verdict */
  t = stream(6, 0);
  path = write_file(t.s, t.len);
  rec = recording_open(path);
  if (rec) {
    int n = 0, r;
    while ((r = recording_next(rec, NULL)) == 1) n++;
    CHECK(r == 0 && n == 6 && recording_get_report(rec)->verdict == RECORDING_TRUNCATED,
          "truncated iteration");
    recording_close(rec);
  }
  unlink(path);
  free(path);
  free(t.s);

  /* FILE* entry points */
  t = stream(3, 1);
  FILE *f = tmpfile();
  fwrite(t.s, 1, t.len, f);
  rewind(f);
  struct asmspy_recording_report rep;
  CHECK(recording_validate(f, &rep) == RECORDING_VALID && rep.events == 3,
        "recording_validate(FILE*)");
  CHECK(recording_validate(f, NULL) == RECORDING_INVALID, "at EOF it is an empty file");
  rewind(f);
  rec = recording_open_file(f);
  int n = 0;
  while (recording_next(rec, NULL) == 1) n++;
  CHECK(n == 3, "recording_open_file: %d events", n);
  recording_close(rec);
  CHECK(fseek(f, 0, SEEK_SET) == 0, "the FILE* is still open after recording_close");
  fclose(f);

  /* "-" = stdin */
  path = write_file(t.s, t.len);
  fflush(stdout);
  if (freopen(path, "r", stdin)) {
    CHECK(recording_validate_path("-", &rep) == RECORDING_VALID && rep.events == 3,
          "stdin via \"-\"");
  } else {
    CHECK(0, "freopen stdin: %s", strerror(errno));
  }
  unlink(path);
  free(path);
  free(t.s);

  /* paths that cannot be read */
  CHECK(recording_validate_path("/nonexistent/x.asmtrace", &rep) == RECORDING_INVALID &&
            rep.error_line == 0 && strstr(rep.error, "cannot open") != NULL,
        "missing file: %s", rep.error);
  errno = 0;
  CHECK(recording_open("/nonexistent/x.asmtrace") == NULL && errno == ENOENT,
        "open of a missing file");
  CHECK(recording_validate_path(tmpdir, &rep) == RECORDING_INVALID, "a directory is invalid: %s",
        rep.error);
  CHECK(recording_next(NULL, NULL) == -1 && recording_get_report(NULL) == NULL, "NULL rec");
  recording_close(NULL);

  CHECK(strcmp(recording_verdict_name(0), "valid") == 0 &&
            strcmp(recording_verdict_name(1), "truncated") == 0 &&
            strcmp(recording_verdict_name(2), "invalid") == 0,
        "verdict names");
}

int main(void) {
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_valid();
  test_truncated();
  test_invalid_structure();
  test_long_lines();
  test_header();
  test_events();
  test_syscall_events();
  test_graph_call_events();
  test_iterator();
  rmdir(tmpdir);
  return check_summary("test_recording");
}
