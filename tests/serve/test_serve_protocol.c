/* The --serve command parser (cli/serve_protocol.c), without a server:
 * what a start translates to (the CLI's own arguments) and which rule each
 * kind of malformed command is refused under. */
#include "cli/serve.h"
#include "host/json.h"

#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"

/* The modes as the server would answer from the registry: a view that
 * declares --max and --auto (the shape of dataflow's table), the others
 * with no such options. */
static const struct asmspy_option one_invocation_options[] = {
    {"max", "<n>", "bound the steps"}, {"auto", NULL, "pick the function"}, {NULL, NULL, NULL}};
static const struct asmspy_option *fake_options_of(void *ctx, const char *mode) {
  (void)ctx;
  return strcmp(mode, "dataflow") == 0 ? one_invocation_options : NULL;
}
static const char *fake_auto_mode(void *ctx) {
  (void)ctx;
  return "dataflow";
}
static const struct serve_modes fake_modes = {fake_options_of, fake_auto_mode, NULL};

static int parse(const char *line, struct serve_cmd *cmd, struct serve_refusal *why) {
  memset(why, 0, sizeof *why);
  return serve_parse_command(line, strlen(line), &fake_modes, cmd, why);
}

/* start translates to exactly these CLI arguments */
static void expect_args(const char *line, const char *view_mode, int bounded,
                        const char *const *want) {
  struct serve_cmd cmd;
  struct serve_refusal why;
  int rc = parse(line, &cmd, &why);
  CHECK(rc == 0, "%s refused: %s: %s", line, why.rule, why.msg);
  if (rc) return;
  CHECK(cmd.verb == SERVE_START, "%s: verb %d", line, cmd.verb);
  CHECK(!strcmp(cmd.view_mode, view_mode), "%s: view mode %s, want %s", line, cmd.view_mode,
        view_mode);
  CHECK(cmd.bounded == bounded, "%s: bounded %d", line, cmd.bounded);
  int n = 0;
  while (want[n]) n++;
  CHECK(cmd.argc == n, "%s: %d args, want %d", line, cmd.argc, n);
  for (int i = 0; i < n && i < cmd.argc; i++)
    CHECK(!strcmp(cmd.argv[i], want[i]), "%s: arg %d is '%s', want '%s'", line, i, cmd.argv[i],
          want[i]);
  CHECK(cmd.argv && cmd.argv[cmd.argc] == NULL, "%s: argv not NULL-terminated", line);
  serve_cmd_free(&cmd);
}

static void expect_refused(const char *line, size_t len, const char *rule) {
  struct serve_cmd cmd;
  struct serve_refusal why;
  memset(&why, 0, sizeof why);
  int rc = serve_parse_command(line, len, &fake_modes, &cmd, &why);
  CHECK(rc == -1, "accepted: %.80s", line);
  CHECK(!strcmp(why.rule, rule), "%.80s: rule '%s' (%s), want '%s'", line, why.rule, why.msg, rule);
  CHECK(why.msg[0], "%.80s: no message", line);
  serve_cmd_free(&cmd);
}
#define REFUSED(lit, rule) expect_refused(lit, sizeof lit - 1, rule)

int main(void) {
  expect_args("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":42,\"max\":20}", "log", 1,
              (const char *const[]){"42", "20", NULL});
  expect_args("{\"cmd\":\"start\",\"mode\":\"stream\",\"pid\":42,\"max\":-1,\"follow\":true}",
              "stream", 0, (const char *const[]){"42", "-1", "--follow", NULL});
  expect_args(
      "{\"cmd\":\"start\",\"mode\":\"trace\",\"pid\":7,\"region\":\"work\",\"max\":2,\"tid\":9}",
      "trace", 1, (const char *const[]){"7", "2", "work", "--tid=9", NULL});
  /* dataflow has no count: its max is its own --max=<n> */
  expect_args(
      "{\"cmd\":\"start\",\"mode\":\"dataflow\",\"pid\":7,\"region\":\"0x1000:16\",\"max\":5}",
      "dataflow", 1, (const char *const[]){"7", "--max=5", "0x1000:16", NULL});
  expect_args(
      "{\"cmd\":\"start\",\"mode\":\"auto\",\"pid\":7,\"module\":\"victim\",\"sampler\":\"sw\"}",
      "dataflow", 1, (const char *const[]){"7", "--auto", "--module=victim", "--sampler=sw", NULL});
  expect_args("{\"cmd\":\"start\",\"mode\":\"tree\",\"pid\":3,\"depth\":2,\"dot\":true,\"focus\":"
              "\"work\",\"x\":false}",
              "tree", 1, (const char *const[]){"3", "--depth=2", "--dot", "--focus=work", NULL});
  expect_args("{\"id\":\"a1\",\"cmd\":\"start\",\"mode\":\"log\",\"launch\":[\"/bin/true\",\"x\"]}",
              "log", 1, (const char *const[]){NULL});

  struct serve_cmd cmd;
  struct serve_refusal why;
  CHECK(parse("{\"cmd\":\"start\",\"mode\":\"log\",\"launch\":[\"/bin/true\",\"x\"],\"id\":\"a1\"}",
              &cmd, &why) == 0,
        "launch");
  CHECK(cmd.launch && !strcmp(cmd.launch[0], "/bin/true") && !strcmp(cmd.launch[1], "x") &&
            !cmd.launch[2],
        "launch argv");
  CHECK(cmd.id_json && !strcmp(cmd.id_json, "\"a1\""), "id echoed as JSON: %s", cmd.id_json);
  struct strbuf b = {0};
  serve_ack_line(&b, &cmd, 3, 1);
  struct json_value *ack = json_parse(b.s, b.len, NULL);
  CHECK(ack && !strcmp(json_get_str(ack, "type"), "cmd") &&
            !strcmp(json_get_str(ack, "cmd"), "start"),
        "ack: %s", b.s);
  int64_t v = 0;
  CHECK(json_get_int(ack, "session", &v) && v == 1 && json_get_int(ack, "line", &v) && v == 3,
        "ack: %s", b.s);
  json_free(ack);
  free(b.s);
  serve_cmd_free(&cmd);

  static const char *const other_verbs[] = {"pause", "resume", "stop", "quit"};
  for (size_t i = 0; i < 4; i++) {
    const char *verb = other_verbs[i];
    char line[64];
    snprintf(line, sizeof line, "{\"cmd\":\"%s\",\"id\":7}", verb);
    CHECK(parse(line, &cmd, &why) == 0, "%s refused: %s", verb, why.msg);
    CHECK(cmd.id_json && !strcmp(cmd.id_json, "7"), "%s id", verb);
    serve_cmd_free(&cmd);
  }

  /* refusals, each with its rule */
  REFUSED("", "json");
  REFUSED("{\"cmd\":\"start\"", "json");
  REFUSED("{\"cmd\":\"start\",}", "json");
  REFUSED("[1,2]", "json");
  REFUSED("null", "json");
  REFUSED("\"start\"", "json");
  REFUSED("{\"cmd\":\"sta\\u0000rt\"}", "cmd");
  REFUSED("{\"cmd\":\"a\0b\"}", "json"); /* a raw NUL byte is not JSON */
  REFUSED("\xff\xfe{}", "json");
  REFUSED("{\"cmd\":\"\xc3\x28\"}", "json"); /* invalid UTF-8 */
  REFUSED("{}", "cmd");
  REFUSED("{\"cmd\":3}", "cmd");
  REFUSED("{\"cmd\":\"launch\"}", "cmd");
  REFUSED("{\"cmd\":\"start\",\"cmd\":\"stop\"}", "json"); /* duplicate key */
  REFUSED("{\"cmd\":\"stop\",\"pid\":3}", "param");
  REFUSED("{\"cmd\":\"quit\",\"id\":[1]}", "param");
  REFUSED("{\"cmd\":\"start\"}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":7,\"pid\":1}", "mode");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"Log\",\"pid\":1}", "mode");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\"}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":\"12\"}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":0}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":-4}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":4294967297}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1.5}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"max\":0}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"max\":true}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"dataflow\",\"pid\":1,\"max\":-1}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"launch\":[\"x\"]}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"launch\":[]}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"launch\":[1]}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"trace\",\"pid\":1,\"region\":5}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"trace\",\"pid\":1,\"region\":\"--json\"}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"trace\",\"pid\":1,\"region\":\"a\",\"addr\":\"b\"}",
          "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"tid\":\"x\"}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"json\":true}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"Depth\":1}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"de pth\":1}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"depth\":[1]}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"depth\":null}", "param");
  REFUSED("{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"focus\":\"a\\u0000b\"}", "param");

  /* a huge value is refused, not truncated into something else */
  size_t big = 10000;
  char *line = malloc(big + 100);
  int n = snprintf(line, big + 100, "{\"cmd\":\"start\",\"mode\":\"log\",\"pid\":1,\"focus\":\"");
  memset(line + n, 'a', big);
  strcpy(line + n + big, "\"}");
  expect_refused(line, strlen(line), "param");
  free(line);

  /* the refusal line */
  struct serve_refusal r;
  serve_refuse(&r, "one-session", "session %d is running", 4);
  b = (struct strbuf){0};
  serve_err_line(&b, &r, 9, "start", "\"x\"", 4);
  struct json_value *err = json_parse(b.s, b.len, NULL);
  CHECK(err && !strcmp(json_get_str(err, "type"), "err") &&
            !strcmp(json_get_str(err, "rule"), "one-session") &&
            !strcmp(json_get_str(err, "cmd"), "start") && !strcmp(json_get_str(err, "id"), "x"),
        "err line: %s", b.s);
  json_free(err);
  free(b.s);
  return check_summary("serve_protocol");
}
