/* asmspy --replay <f.asmtrace|-> [--session=<n>] [--disasm]
 *
 * Render a recording back to the human text the live run printed.
 *
 * The host knows no view's format (a third-party view is a mode too), so it
 * cannot re-derive a view's text from the view's fields. The writer
 * therefore records, on every event line that printed text, that text as
 * "human" (host/output.c), and replay prints it: the live text, byte for
 * byte, for every mode, including views written after this file. Notes go
 * where the live run put them: "# SKIP ..." on stdout, the others on stderr.
 * A recording written before "human" existed gets the line each record's
 * schema rebuilds from its fields (asmspy_record_schema.text: the stream's
 * instructions, the syscall log, the call tree have one).
 *
 * The input may also be a --serve transcript: the control lines are dropped
 * and one session's recording is replayed (--session=<n>: the session id of
 * its start ack; default the first session that produced a recording).
 *
 * --disasm prints the executed instructions of the recording (the members
 * the record schemas mark ASMSPY_FIELDF_INSN_ADDR / _INSN_TEXT) disassembled
 * from its codeimage bytes as they were at the event's logical time (the
 * version with the greatest `when` <= the event's seq), falling back to the
 * disasm strings recorded with the events where no codeimage covers an
 * address — never from the live process, whose code may have changed. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "asmspy-internal/app_api.h"
#include "cli/replay_render.h"
#include "common/ctl_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

/* A recording is data from elsewhere: whatever its strings hold, they reach
 * the terminal with their control bytes rendered visibly (ctl_escape.h), the
 * way the live writer renders them. */
static void put_text(FILE *f, const char *s, size_t len) { ctl_text_fput(f, s, len, 1); }

/* s sanitized into buf (for printf's field widths); "?" for NULL. */
static const char *clean(char *buf, size_t cap, const char *s) {
  if (!s) return "?";
  ctl_text_sanitize(buf, cap, s, strlen(s), 0);
  return buf;
}

static int is_control_type(const char *type) {
  return type && (!strcmp(type, "session") || !strcmp(type, "cmd") || !strcmp(type, "err"));
}

/* A serve transcript: copy session `want`'s recording (0 = the first one
 * with a header) into a temporary file. Returns it rewound, or NULL with
 * *found = 0 when no such session produced a recording. */
static FILE *slice_session(FILE *in, int64_t want, int *found) {
  FILE *out = tmpfile();
  *found = 0;
  if (!out) return NULL;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int64_t current = 0; /* the session the next header belongs to */
  int copying = 0, done = 0;
  while (!done && (n = getline(&line, &cap, in)) > 0) {
    size_t len = (size_t)n;
    if (line[len - 1] == '\n') len--;
    struct json_value *v = json_parse(line, len, NULL);
    const char *type = json_get_str(v, "type");
    if (is_control_type(type)) {
      int64_t id;
      const char *cmd = json_get_str(v, "cmd");
      if (!strcmp(type, "cmd") && cmd && !strcmp(cmd, "start") && json_get_int(v, "session", &id))
        current = id;
    } else if (!copying && type && !strcmp(type, "header")) {
      copying = want == 0 || current == want;
    }
    if (copying && !is_control_type(type)) {
      fwrite(line, 1, len, out);
      fputc('\n', out);
      *found = 1;
      if (type && !strcmp(type, "end")) done = 1;
    }
    json_free(v);
  }
  free(line);
  rewind(out);
  return out;
}

/* Recordings from before "human": the line the record's schema rebuilds
 * from its fields (asmspy_record_schema.text), when it has a template. */
static void render_fallback(const char *type, const struct json_value *ev) {
  struct strbuf b = {0};
  if (replay_text(record_schema_find(type), ev, &b) && b.s) printf("%s\n", b.s);
  free(b.s);
}

static int parse_addr(const char *s, uint64_t *out) {
  if (!s || strncmp(s, "0x", 2) != 0) return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s + 2, &end, 16);
  if (errno || !end || *end) return -1;
  *out = v;
  return 0;
}

/* One executed instruction, disassembled from the bytes it had at time t. */
static void disasm_at(const struct recording_codeimages *ci, uint64_t addr, uint64_t t,
                      const char *recorded, const char *prefix) {
  uint8_t bytes[16];
  uint64_t version = 0, when = 0;
  size_t n = recording_codeimages_at(ci, addr, t, bytes, sizeof bytes, &version, &when);
  char text[128];
  if (n && disasm_one(addr, bytes, n, text, sizeof text) > 0) {
    printf("%s0x%-14" PRIx64 " %-36s [codeimage v%" PRIu64 " @%" PRIu64 "]", prefix, addr, text,
           version, when);
    char b[256];
    if (recorded && strcmp(recorded, text) != 0)
      printf("  (recorded: %s)", clean(b, sizeof b, recorded));
    printf("\n");
  } else {
    char b[256];
    printf("%s0x%-14" PRIx64 " %-36s [recorded]\n", prefix, addr, clean(b, sizeof b, recorded));
  }
}

/* A string member's value, or NULL. */
static const char *str_member(const struct json_value *obj, const struct asmspy_field *fields,
                              uint32_t flag) {
  for (const struct asmspy_field *f = fields; f && f->name; f++)
    if (f->flags & flag) return json_get_str(obj, f->name);
  return NULL;
}

/* The executed instruction obj (a record, or an element of one) describes:
 * 1 and *addr set when its schema marks an INSN_ADDR member and, with an
 * INSN_KIND member, that member says "instruction" (its first choice). */
static int insn_of(const struct json_value *obj, const struct asmspy_field *fields,
                   uint64_t *addr) {
  int found = 0;
  for (const struct asmspy_field *f = fields; f && f->name; f++) {
    if (f->flags & ASMSPY_FIELDF_INSN_KIND) {
      const char *kind = json_get_str(obj, f->name);
      size_t n = f->values ? strcspn(f->values, "|") : 0;
      if (!kind || strlen(kind) != n || strncmp(kind, f->values, n) != 0) return 0;
    }
    if ((f->flags & ASMSPY_FIELDF_INSN_ADDR) && parse_addr(json_get_str(obj, f->name), addr) == 0)
      found = 1;
  }
  return found;
}

/* --disasm: the instructions an event carries, at the event's time: the
 * record itself when its schema marks it as one instruction, else the
 * elements of its arrays whose members are marked so, under a heading. */
static void render_disasm(const char *type, const struct json_value *ev,
                          const struct recording_codeimages *ci) {
  const struct asmspy_record_schema *schema = record_schema_find(type);
  if (!schema) return;
  int64_t seq = 0;
  json_get_int(ev, "seq", &seq);
  uint64_t addr;
  if (insn_of(ev, schema->fields, &addr)) {
    disasm_at(ci, addr, (uint64_t)seq, str_member(ev, schema->fields, ASMSPY_FIELDF_INSN_TEXT), "");
    return;
  }
  int headed = 0;
  for (const struct asmspy_field *f = schema->fields; f->name; f++) {
    if (f->type != ASMSPY_FIELD_ARRAY || !f->fields) continue;
    int carries = 0;
    for (const struct asmspy_field *m = f->fields; m->name; m++)
      carries |= (m->flags & ASMSPY_FIELDF_INSN_ADDR) != 0;
    const struct json_value *arr = json_get(ev, f->name);
    if (!carries || !arr) continue;
    if (!headed) {
      struct strbuf h = {0};
      replay_heading(schema, ev, seq, &h);
      if (h.s) printf("%s\n", h.s);
      free(h.s);
      headed = 1;
    }
    for (size_t i = 0; i < json_array_len(arr); i++) {
      const struct json_value *in = json_array_at(arr, i);
      if (insn_of(in, f->fields, &addr)) /* a call-out step is not one */
        disasm_at(ci, addr, (uint64_t)seq, str_member(in, f->fields, ASMSPY_FIELDF_INSN_TEXT),
                  "  ");
    }
  }
}

enum { REPLAY_SESSION, REPLAY_DISASM };
const struct asmspy_option cli_replay_options[] = {
    [REPLAY_SESSION] = {"session", "<n>", "the session <n> of a --serve transcript"},
    [REPLAY_DISASM] = {"disasm", NULL,
                       "the executed instructions, disassembled from the recorded code bytes"},
    {NULL, NULL, NULL},
};

/* Step 1: the command line. 0, or CLI_EXIT_USAGE (one line printed). */
static int replay_args(int argc, char **argv, const char **path, int64_t *session, int *disasm) {
  struct asmspy_optval ov;
  if (cli_parse_options("replay", cli_replay_options, argc, argv, &ov)) return CLI_EXIT_USAGE;
  *disasm = ov.value[REPLAY_DISASM] != NULL;
  const char *sv = ov.value[REPLAY_SESSION];
  if (sv) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(sv, &end, 10);
    if (errno || !end || *end || end == sv || v <= 0)
      return cli_usage_error("--replay: invalid --session '%s': a session id (1, 2, ...)", sv);
    *session = v;
  }
  for (uint32_t i = 0; i < ov.npos; i++) {
    if (*path) return cli_usage_error("--replay takes one recording, got '%s' too", ov.pos[i]);
    *path = ov.pos[i];
  }
  if (!*path) return cli_usage_error("--replay needs a recording: --replay <f.asmtrace|->");
  return 0;
}

/* Step 2: open path ("-": stdin) and tell a --serve transcript (it starts
 * with a control line) from a recording (its header); *src then reads the
 * input from its start (a regular file seeks; stdin is spooled). 0, or the
 * exit code with the reason printed. */
static int replay_open(const char *path, int64_t session, FILE **src, int *transcript) {
  FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
  if (!in) {
    fprintf(stderr, "asmspy: --replay: cannot open %s: %s\n", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  int c = fgetc(in);
  char first[64] = "";
  size_t nfirst = 0;
  while (c != EOF && c != '\n' && nfirst < sizeof first - 1) {
    first[nfirst++] = (char)c;
    c = fgetc(in);
  }
  first[nfirst] = 0;
  *transcript = strstr(first, "\"type\":\"cmd\"") || strstr(first, "\"type\":\"err\"") ||
                strstr(first, "\"type\":\"session\"");
  if (session && !*transcript) {
    fprintf(stderr,
            "asmspy: --replay: --session applies to a --serve transcript; %s is a "
            "recording\n",
            path);
    if (in != stdin) fclose(in);
    return CLI_EXIT_USAGE;
  }
  *src = NULL;
  if (in != stdin && fseek(in, 0, SEEK_SET) == 0) {
    *src = in;
  } else {
    *src = tmpfile();
    if (*src) {
      fputs(first, *src);
      if (c == '\n')
        fputc('\n', *src);
      else if (c != EOF)
        fputc(c, *src);
      char buf[65536];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, *src);
      rewind(*src);
    }
  }
  if (!*src) {
    fprintf(stderr, "asmspy: --replay: %s\n", strerror(errno));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* Step 3, a transcript: the recording of the session asked for (0: the
 * first that produced one) into *rf. 0, or CLI_EXIT_FAIL (printed). */
static int replay_slice(FILE *src, const char *path, int64_t session, FILE **rf) {
  int found = 0;
  *rf = slice_session(src, session, &found);
  if (*rf && found) return 0;
  fprintf(stderr, "asmspy: --replay: %s: %s\n", path,
          !*rf      ? strerror(errno)
          : session ? "no recording for that session in this transcript"
                    : "no session in this transcript produced a recording");
  if (*rf) fclose(*rf);
  *rf = NULL;
  return CLI_EXIT_FAIL;
}

/* Step 4: one event as it was shown live: its recorded text (or, for a
 * recording from before "human", the fallback rendering), a note to its
 * stream, --disasm's instructions; code images are kept for --disasm. */
static void replay_event(const struct json_value *ev, struct recording_codeimages *ci, int disasm,
                         int has_human) {
  const char *type = json_get_str(ev, "type");
  if (!strcmp(type, "codeimage")) {
    recording_codeimages_add(ci, ev);
    return;
  }
  if (!strcmp(type, "note")) {
    const char *level = json_get_str(ev, "level"), *text = json_get_str(ev, "text");
    int skip = level && !strcmp(level, "skip");
    FILE *f = skip ? stdout : stderr;
    fputs(skip ? "# SKIP " : "# ", f);
    if (text) put_text(f, text, strlen(text));
    fputc('\n', f);
    return;
  }
  if (disasm) {
    render_disasm(type, ev, ci);
    return;
  }
  const struct json_value *human = json_get(ev, "human");
  if (human && human->type == JSON_STRING) {
    put_text(stdout, human->u.str.s, human->u.str.len);
    fputc('\n', stdout);
  } else if (json_get(ev, "human_omitted")) {
    int64_t seq = 0;
    json_get_int(ev, "seq", &seq);
    char b[64];
    fprintf(stderr, "# (the text of %s event %" PRId64 " was over the line cap and not recorded)\n",
            clean(b, sizeof b, type), seq);
  } else if (!has_human) {
    render_fallback(type, ev);
  }
}

/* Step 5: the reader's verdict: CLI_EXIT_FAIL for an invalid recording, a
 * note for a truncated one. */
static int replay_verdict(const struct asmspy_recording_report *rep, const char *path) {
  char b[512];
  if (rep->verdict == RECORDING_INVALID) {
    fprintf(stderr, "asmspy: --replay: %s: invalid at line %" PRIu64 ": %s\n", path,
            rep->error_line, clean(b, sizeof b, rep->error));
    return CLI_EXIT_FAIL;
  }
  if (rep->verdict == RECORDING_TRUNCATED)
    fprintf(stderr, "# recording truncated: %s\n", clean(b, sizeof b, rep->error));
  return CLI_EXIT_OK;
}

int cli_cmd_replay(int argc, char **argv) {
  const char *path = NULL;
  int64_t session = 0;
  int disasm = 0, transcript = 0;
  int rc = replay_args(argc, argv, &path, &session, &disasm);
  if (rc) return rc;
  FILE *src = NULL;
  if ((rc = replay_open(path, session, &src, &transcript))) return rc;
  FILE *rf = src;
  if (transcript && (rc = replay_slice(src, path, session, &rf))) {
    if (src != stdin) fclose(src);
    return rc;
  }

  struct recording *rec = recording_open_file(rf);
  struct recording_codeimages *ci = recording_codeimages_new();
  if (!rec || !ci) {
    fprintf(stderr, "asmspy: --replay: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  /* a writer that records "human" says so in the header: an event without
   * it printed nothing live; only older recordings need the fallback */
  const struct json_value *hh = json_get(recording_header(rec), "human");
  int has_human = hh && hh->type == JSON_BOOL && hh->u.boolean;
  const struct json_value *ev;
  while (recording_next(rec, &ev) == 1) replay_event(ev, ci, disasm, has_human);
  fflush(stdout);
  rc = replay_verdict(recording_get_report(rec), path);
  recording_close(rec);
  recording_codeimages_free(ci);
  if (rf != src) fclose(rf);
  if (src != stdin) fclose(src);
  return rc;
}
