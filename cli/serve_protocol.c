/* The --serve commands and control lines (docs/asmtrace-schema.md, "Serve
 * protocol").
 *
 * A `start` is translated into the very arguments the CLI would get for the
 * same run (`{"cmd":"start","mode":"trace","pid":42,"region":"work","max":2}`
 * becomes `--trace 42 work 2`), so the server validates and runs a mode with
 * the CLI's own code and can never drift from it: the parameter names ARE
 * the CLI's flag names. Everything a client sends is hostile until proven
 * otherwise: the parser never trusts a length, a type or an encoding, and
 * every refusal names its rule. */
#define _GNU_SOURCE
#include "cli/serve.h"
#include "asmspy-internal/app_api.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARG_STRING 4096 /* a parameter value, in bytes */
#define MAX_ID_STRING 256
#define MAX_ARGS 64

int serve_refuse(struct serve_refusal *why, const char *rule, const char *fmt, ...) {
  snprintf(why->rule, sizeof why->rule, "%s", rule);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why->msg, sizeof why->msg, fmt, ap);
  va_end(ap);
  return -1;
}

void serve_cmd_free(struct serve_cmd *cmd) {
  if (!cmd) return;
  free(cmd->id_json);
  free(cmd->mode);
  for (int i = 0; i < cmd->argc; i++) free(cmd->argv[i]);
  free(cmd->argv);
  for (size_t i = 0; cmd->launch && cmd->launch[i]; i++) free(cmd->launch[i]);
  free(cmd->launch);
  memset(cmd, 0, sizeof *cmd);
}

static const struct {
  const char *name;
  enum serve_verb verb;
} verbs[] = {
    {"start", SERVE_START}, {"pause", SERVE_PAUSE}, {"resume", SERVE_RESUME},
    {"stop", SERVE_STOP},   {"quit", SERVE_QUIT},
};

/* A client string may carry any byte JSON can encode; the ones we pass on
 * must be C strings (no NUL) of bounded length. */
static int plain_string(const struct json_value *v, size_t max) {
  return v && v->type == JSON_STRING && v->u.str.len <= max && strlen(v->u.str.s) == v->u.str.len;
}

/* A parameter name that can become a CLI flag: [a-z][a-z0-9_-]{0,31}. */
static int flag_name(const char *k) {
  size_t n = strlen(k);
  if (n == 0 || n > 32 || k[0] < 'a' || k[0] > 'z') return 0;
  for (size_t i = 0; i < n; i++) {
    char c = k[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return 0;
  }
  return 1;
}

/* The key as a safe C string for messages (keys are arbitrary UTF-8). */
static void key_for_msg(const struct json_member *m, char *out, size_t cap) {
  size_t n = json_escape(out, cap - 3, m->key, m->key_len > 60 ? 60 : m->key_len);
  if (m->key_len > 60) memcpy(out + n, "...", 4);
}

static int push_arg(struct serve_cmd *cmd, struct serve_refusal *why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int push_arg(struct serve_cmd *cmd, struct serve_refusal *why, const char *fmt, ...) {
  if (cmd->argc >= MAX_ARGS) return serve_refuse(why, "param", "start: too many parameters");
  char **n = realloc(cmd->argv, (size_t)(cmd->argc + 2) * sizeof *n);
  if (!n) return serve_refuse(why, "internal", "out of memory");
  cmd->argv = n;
  va_list ap;
  va_start(ap, fmt);
  int rc = vasprintf(&cmd->argv[cmd->argc], fmt, ap);
  va_end(ap);
  if (rc < 0) return serve_refuse(why, "internal", "out of memory");
  cmd->argv[++cmd->argc] = NULL;
  return 0;
}

static int want_int(const struct json_value *v, const char *what, int64_t min, int64_t max,
                    int64_t *out, struct serve_refusal *why) {
  if (!v || v->type != JSON_INT || v->u.i < min || v->u.i > max)
    return serve_refuse(why, "param",
                        "start.%s must be an integer in %" PRId64 "..%" PRId64 " (got %s)", what,
                        min, max, v ? json_type_name(v->type) : "nothing");
  *out = v->u.i;
  return 0;
}

/* "launch": ["cmd", "arg", ...] */
static int take_launch(struct serve_cmd *cmd, const struct json_value *v,
                       struct serve_refusal *why) {
  size_t n = json_array_len(v);
  if (!v || v->type != JSON_ARRAY || n == 0 || n > MAX_ARGS)
    return serve_refuse(why, "param",
                        "start.launch must be a non-empty array of at most %d strings", MAX_ARGS);
  cmd->launch = calloc(n + 1, sizeof *cmd->launch);
  if (!cmd->launch) return serve_refuse(why, "internal", "out of memory");
  for (size_t i = 0; i < n; i++) {
    const struct json_value *a = json_array_at(v, i);
    if (!plain_string(a, MAX_ARG_STRING) || (i == 0 && a->u.str.len == 0))
      return serve_refuse(why, "param",
                          "start.launch[%zu] must be a string without NUL bytes "
                          "(at most %d bytes)",
                          i, MAX_ARG_STRING);
    cmd->launch[i] = strdup(a->u.str.s);
    if (!cmd->launch[i]) return serve_refuse(why, "internal", "out of memory");
  }
  return 0;
}

static int declares(const struct asmspy_option *t, const char *name) {
  for (; t && t->name; t++)
    if (strcmp(t->name, name) == 0) return 1;
  return 0;
}

/* start.mode: the mode, and the view it runs ("auto": the view declaring
 * --auto). */
static int take_mode(const struct json_value *o, const struct serve_modes *modes,
                     struct serve_cmd *cmd, int *is_auto, struct serve_refusal *why) {
  const struct json_value *mode = json_get(o, "mode");
  if (!mode)
    return serve_refuse(why, "param",
                        "start needs \"mode\" (a mode `asmspy --help` lists, or "
                        "auto)");
  if (!plain_string(mode, 32) || !flag_name(mode->u.str.s))
    return serve_refuse(why, "mode", "start.mode must be a mode name such as \"log\"");
  cmd->mode = strdup(mode->u.str.s);
  if (!cmd->mode) return serve_refuse(why, "internal", "out of memory");
  /* "auto" names the run of the view declaring --auto */
  *is_auto = strcmp(cmd->mode, "auto") == 0;
  cmd->view_mode = cmd->mode;
  if (*is_auto) {
    cmd->view_mode = modes && modes->auto_mode ? modes->auto_mode(modes->ctx) : NULL;
    if (!cmd->view_mode)
      return serve_refuse(why, "mode", "start.mode \"auto\": no installed view declares --auto");
  }
  return 0;
}

/* start.pid or start.launch, then start.max: the count n, or the view's
 * own --max=<n> bound (max_is_flag). */
static int take_target(const struct json_value *o, int max_is_flag, struct serve_cmd *cmd,
                       struct serve_refusal *why) {
  const struct json_value *pid = json_get(o, "pid"), *launch = json_get(o, "launch");
  if (pid && launch)
    return serve_refuse(why, "param", "start takes \"pid\" or \"launch\", not both");
  if (!pid && !launch)
    return serve_refuse(why, "param", "start needs \"pid\" (a positive integer) or \"launch\"");
  int64_t v = 0;
  if (pid) {
    if (want_int(pid, "pid", 1, INT_MAX, &v, why)) return -1;
    if (push_arg(cmd, why, "%" PRId64, v)) return -1;
  } else if (take_launch(cmd, launch, why)) {
    return -1;
  }
  cmd->bounded = 1;
  const struct json_value *max = json_get(o, "max");
  if (max) {
    if (max_is_flag) {
      if (want_int(max, "max", 1, INT64_MAX, &v, why)) return -1;
      if (push_arg(cmd, why, "--max=%" PRId64, v)) return -1;
    } else {
      if (want_int(max, "max", INT64_MIN + 1, INT64_MAX, &v, why)) return -1;
      if (v == 0)
        return serve_refuse(why, "param",
                            "start.max must be non-zero (negative = until the "
                            "target exits)");
      if (push_arg(cmd, why, "%" PRId64, v)) return -1;
      cmd->bounded = v > 0;
    }
  }
  return 0;
}

/* One more start parameter: the mode's positional (region / addr), --tid,
 * or the mode's own flag. The members take_mode / take_target read are
 * skipped. */
static int take_param(const struct json_member *m, int *positional, struct serve_cmd *cmd,
                      struct serve_refusal *why) {
  int64_t v = 0;
  const char *k = m->key;
  const struct json_value *val = &m->value;
  if (strlen(k) != m->key_len)
    return serve_refuse(why, "param", "a parameter name holds a NUL byte");
  if (!strcmp(k, "cmd") || !strcmp(k, "id") || !strcmp(k, "mode") || !strcmp(k, "pid") ||
      !strcmp(k, "launch") || !strcmp(k, "max"))
    return 0;
  if (!strcmp(k, "region") || !strcmp(k, "addr")) { /* the mode's positional argument */
    if ((*positional)++)
      return serve_refuse(why, "param", "start takes one of \"region\" / \"addr\", once");
    if (!plain_string(val, MAX_ARG_STRING) || val->u.str.len == 0 || val->u.str.s[0] == '-')
      return serve_refuse(why, "param",
                          "start.%s must be a non-empty string not starting with "
                          "'-' (sym, 0xADDR, 0xADDR:LEN)",
                          k);
    if (push_arg(cmd, why, "%s", val->u.str.s)) return -1;
    return 0;
  }
  if (!strcmp(k, "json"))
    return serve_refuse(why, "param", "start.json: a served session always streams NDJSON");
  char kmsg[400];
  key_for_msg(m, kmsg, sizeof kmsg);
  if (!flag_name(k))
    return serve_refuse(why, "param",
                        "start: '%s' is not a parameter name (the CLI's flag "
                        "names: lower case, digits, '-', '_')",
                        kmsg);
  if (!strcmp(k, "tid")) {
    if (want_int(val, "tid", 1, INT_MAX, &v, why)) return -1;
    if (push_arg(cmd, why, "--tid=%" PRId64, v)) return -1;
    return 0;
  }
  /* every other parameter is the mode's own flag, validated by its view:
   * true -> --name, false -> absent, integer/string -> --name=value */
  switch (val->type) {
  case JSON_BOOL:
    if (val->u.boolean && push_arg(cmd, why, "--%s", k)) return -1;
    break;
  case JSON_INT:
    if (push_arg(cmd, why, "--%s=%" PRId64, k, val->u.i)) return -1;
    break;
  case JSON_STRING:
    if (!plain_string(val, MAX_ARG_STRING))
      return serve_refuse(why, "param",
                          "start.%s must be a string without NUL bytes, at most "
                          "%d bytes",
                          kmsg, MAX_ARG_STRING);
    if (push_arg(cmd, why, "--%s=%s", k, val->u.str.s)) return -1;
    break;
  default:
    return serve_refuse(why, "param",
                        "start.%s must be a string, an integer or a boolean (got "
                        "%s)",
                        kmsg, json_type_name(val->type));
  }
  return 0;
}

/* start: mode + the mode's parameters -> the CLI's arguments. */
static int parse_start(const struct json_value *o, const struct serve_modes *modes,
                       struct serve_cmd *cmd, struct serve_refusal *why) {
  int is_auto = 0;
  if (take_mode(o, modes, cmd, &is_auto, why)) return -1;
  /* a view that captures ONE invocation has no count: its `max` is its own
   * --max=<n> bound (the CLI's name), every other mode's is the count n */
  const struct asmspy_option *vopts =
      modes && modes->options_of ? modes->options_of(modes->ctx, cmd->view_mode) : NULL;
  int max_is_flag = declares(vopts, "max");

  if (take_target(o, max_is_flag, cmd, why)) return -1;
  if (is_auto && push_arg(cmd, why, "--auto")) return -1;

  int positional = 0;
  for (size_t i = 0; i < o->u.obj.n; i++)
    if (take_param(&o->u.obj.members[i], &positional, cmd, why)) return -1;
  if (!cmd->argv && !(cmd->argv = calloc(1, sizeof *cmd->argv))) /* always NULL-terminated */
    return serve_refuse(why, "internal", "out of memory");
  return 0;
}

/* The client's "id", echoed on the ack or refusal so it can match them. */
static int take_id(const struct json_value *o, struct serve_cmd *cmd, struct serve_refusal *why) {
  const struct json_value *id = json_get(o, "id");
  if (!id) return 0;
  struct strbuf b = {0};
  if (id->type == JSON_INT)
    strbuf_addf(&b, "%" PRId64, id->u.i);
  else if (id->type == JSON_STRING && id->u.str.len <= MAX_ID_STRING)
    strbuf_json_strn(&b, id->u.str.s, id->u.str.len);
  else
    return serve_refuse(why, "param", "\"id\" must be an integer or a string of at most %d bytes",
                        MAX_ID_STRING);
  if (b.oom) {
    free(b.s);
    return serve_refuse(why, "internal", "out of memory");
  }
  cmd->id_json = b.s;
  return 0;
}

int serve_parse_command(const char *line, size_t len, const struct serve_modes *modes,
                        struct serve_cmd *cmd, struct serve_refusal *why) {
  memset(cmd, 0, sizeof *cmd);
  struct json_error jerr;
  struct json_value *o = json_parse(line, len, &jerr);
  if (!o) {
    serve_refuse(why, "json", "not JSON: %s (column %zu)", jerr.msg, jerr.offset + 1);
    return -1;
  }
  int rc = -1;
  if (o->type != JSON_OBJECT) {
    serve_refuse(why, "json", "a command is a JSON object, got %s", json_type_name(o->type));
    goto out;
  }
  if (take_id(o, cmd, why)) goto out;
  const struct json_value *c = json_get(o, "cmd");
  if (!c || c->type != JSON_STRING) {
    serve_refuse(why, "cmd",
                 "a command needs \"cmd\": \"start\", \"pause\", \"resume\", "
                 "\"stop\" or \"quit\"");
    goto out;
  }
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    if (strlen(c->u.str.s) == c->u.str.len && strcmp(c->u.str.s, verbs[i].name) == 0) {
      cmd->verb = verbs[i].verb;
      cmd->verb_name = verbs[i].name;
    }
  if (!cmd->verb) {
    char esc[100];
    json_escape(esc, sizeof esc, c->u.str.s, c->u.str.len > 40 ? 40 : c->u.str.len);
    serve_refuse(why, "cmd", "unknown cmd \"%s%s\" (start, pause, resume, stop, quit)", esc,
                 c->u.str.len > 40 ? "..." : "");
    goto out;
  }
  if (cmd->verb == SERVE_START) {
    rc = parse_start(o, modes, cmd, why);
    goto out;
  }
  for (size_t i = 0; i < o->u.obj.n; i++) { /* the other verbs take nothing */
    const char *k = o->u.obj.members[i].key;
    if (strcmp(k, "cmd") != 0 && strcmp(k, "id") != 0) {
      char kmsg[400];
      key_for_msg(&o->u.obj.members[i], kmsg, sizeof kmsg);
      serve_refuse(why, "param", "%s takes no parameters (got '%s')", cmd->verb_name, kmsg);
      goto out;
    }
  }
  rc = 0;
out:
  json_free(o);
  if (rc) {
    /* keep the id (and the verb) for the refusal line; drop the rest */
    char *id = cmd->id_json;
    const char *verb = cmd->verb_name;
    cmd->id_json = NULL;
    serve_cmd_free(cmd);
    cmd->id_json = id;
    cmd->verb_name = verb;
  }
  return rc;
}

void serve_ack_line(struct strbuf *b, const struct serve_cmd *cmd, uint64_t line, int session) {
  strbuf_addf(b, "{\"type\":\"cmd\",\"cmd\":\"%s\",\"line\":%" PRIu64, cmd->verb_name, line);
  if (session > 0) strbuf_addf(b, ",\"session\":%d", session);
  if (cmd->verb == SERVE_START) {
    strbuf_addf(b, ",\"mode\":");
    strbuf_json_str(b, cmd->mode);
    strbuf_addf(b, ",\"args\":[");
    for (int i = 0; i < cmd->argc; i++) {
      if (i) strbuf_addf(b, ",");
      strbuf_json_str(b, cmd->argv[i]);
    }
    strbuf_addf(b, "]");
  }
  if (cmd->id_json) strbuf_addf(b, ",\"id\":%s", cmd->id_json);
  strbuf_addf(b, "}");
}

void serve_err_line(struct strbuf *b, const struct serve_refusal *why, uint64_t line,
                    const char *verb, const char *id_json, int session) {
  strbuf_addf(b, "{\"type\":\"err\",\"rule\":");
  strbuf_json_str(b, why->rule);
  strbuf_addf(b, ",\"error\":");
  strbuf_json_str(b, why->msg);
  if (line) strbuf_addf(b, ",\"line\":%" PRIu64, line);
  strbuf_addf(b, ",\"cmd\":");
  if (verb)
    strbuf_json_str(b, verb);
  else
    strbuf_addf(b, "null");
  if (session > 0) strbuf_addf(b, ",\"session\":%d", session);
  if (id_json) strbuf_addf(b, ",\"id\":%s", id_json);
  strbuf_addf(b, "}");
}
