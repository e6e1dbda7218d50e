/* The one option parser (common/option_parse.h, host->parse_options) on its
 * own: both value spellings, choices, flags, positionals kept in order
 * (negative numbers among them), "--", no abbreviations, one-line
 * refusals, and a second call that starts afresh (getopt's globals). */
#include "../unit/check.h"
#include "common/option_parse.h"

#include <string.h>

static const struct asmspy_option table[] = {
    {"sort", "invocations|fanout", "order"}, {"depth", "<d>", "levels"}, {"dot", NULL, "graphviz"},
    {"do", NULL, "a prefix of dot"},         {NULL, NULL, NULL},
};

static char err[256];
static struct asmspy_optval ov;

static int parse(int argc, char **argv) {
  memset(&ov, 0, sizeof ov);
  ASMSPY_INIT_HEADER(&ov);
  err[0] = 0;
  return asmspy_option_parse(table, argc, argv, &ov, err, sizeof err);
}

#define ARGS(...) (sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), ((char *[]){__VA_ARGS__})

int main(void) {
  CHECK(parse(ARGS("work", "--sort=fanout", "--depth", "3", "-1", "--dot", "x")) == 0, "%s", err);
  CHECK(ov.nopt == 4, "nopt %u", ov.nopt);
  CHECK(ov.value[0] && !strcmp(ov.value[0], "fanout"), "--sort=fanout");
  CHECK(ov.value[1] && !strcmp(ov.value[1], "3"), "--depth 3");
  CHECK(ov.value[2] && !*ov.value[2] && ov.count[2] == 1, "--dot is a flag");
  CHECK(!ov.value[3], "--do not given (--dot is no prefix match the other way)");
  CHECK(ov.npos == 3 && !strcmp(ov.pos[0], "work") && !strcmp(ov.pos[1], "-1") &&
            !strcmp(ov.pos[2], "x"),
        "positionals in order, -1 among them (%u)", ov.npos);

  CHECK(parse(ARGS("--depth", "-2")) == 0 && !strcmp(ov.value[1], "-2"), "a negative value: %s",
        err);
  CHECK(parse(ARGS("--sort=fanout", "--sort=invocations")) == 0 && ov.count[0] == 2 &&
            !strcmp(ov.value[0], "invocations"),
        "the last value wins, both counted");
  CHECK(parse(ARGS("a", "--", "--dot", "-x")) == 0 && ov.npos == 3 && !ov.value[2] &&
            !strcmp(ov.pos[1], "--dot") && !strcmp(ov.pos[2], "-x"),
        "after --, everything is a positional");
  CHECK(parse(ARGS("-")) == 0 && ov.npos == 1 && !strcmp(ov.pos[0], "-"),
        "a lone - is a positional");

  CHECK(parse(ARGS("--sort=bogus")) == -ASMSPY_E_USAGE &&
            !strcmp(err, "invalid --sort 'bogus': one of invocations|fanout"),
        "choices: %s", err);
  CHECK(parse(ARGS("--so=fanout")) == -ASMSPY_E_USAGE && !strcmp(err, "unknown option '--so'"),
        "no abbreviations: %s", err);
  CHECK(parse(ARGS("--dep", "2")) == -ASMSPY_E_USAGE && !strcmp(err, "unknown option '--dep'"),
        "no abbreviations (separate value): %s", err);
  CHECK(parse(ARGS("--frob")) == -ASMSPY_E_USAGE && !strcmp(err, "unknown option '--frob'"), "%s",
        err);
  CHECK(parse(ARGS("-q")) == -ASMSPY_E_USAGE && !strcmp(err, "unknown option '-q'"), "%s", err);
  CHECK(parse(ARGS("--dot=1")) == -ASMSPY_E_USAGE && strstr(err, "'--dot' takes no value"), "%s",
        err);
  CHECK(parse(ARGS("--depth")) == -ASMSPY_E_USAGE && strstr(err, "--depth needs a value"), "%s",
        err);
  CHECK(parse(ARGS("--depth=")) == -ASMSPY_E_USAGE && strstr(err, "--depth= needs a value"), "%s",
        err);
  CHECK(!strchr(err, '\n'), "one line");

  /* a refusal mid-way leaves no state behind: the next call parses afresh */
  CHECK(parse(ARGS("--dot", "--frob", "--dot")) == -ASMSPY_E_USAGE, "refused");
  CHECK(parse(ARGS("--dot")) == 0 && ov.count[2] == 1 && ov.npos == 0, "fresh after a refusal");

  char *many[ASMSPY_OPT_MAX_POS + 1];
  for (int i = 0; i <= ASMSPY_OPT_MAX_POS; i++) many[i] = (char *)"p";
  CHECK(parse(ASMSPY_OPT_MAX_POS + 1, many) == -ASMSPY_E_USAGE && strstr(err, "too many"), "%s",
        err);

  char syn[256];
  asmspy_option_synopsis(syn, sizeof syn, "<pid> [n]", table);
  CHECK(!strcmp(syn, "<pid> [n] [--sort=invocations|fanout] [--depth=<d>] [--dot] [--do]"), "%s",
        syn);
  return check_summary("option_parse");
}
