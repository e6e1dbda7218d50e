/* The user documentation's facts that are not option tables, kept once:
 * the environment variables asmspy reads, each mode's default count, the
 * manual's examples and the TUI's keys. `asmspy --help env` and the man
 * page (cli/man.c) print them; tests/cli/test_docs.sh checks README.md's
 * environment table against `asmspy --help env` and every getenv() of an
 * ASMSPY_ name in the sources against this table. */
#ifndef ASMSPY_CLI_DOC_TABLES_H
#define ASMSPY_CLI_DOC_TABLES_H

#include <stdio.h>

struct cli_env_var {
  const char *name;  /* ASMSPY_... */
  const char *value; /* what to set it to: "1", "<ms>", "<dirs>" */
  const char *help;  /* one line: what it does, its default */
};

struct cli_mode_default {
  const char *mode; /* the --<mode> name */
  const char *n;    /* what [n] (or [ms]) means when omitted */
};

struct cli_example {
  const char *command;
  const char *what;
};

struct cli_tui_key {
  const char *keys;
  const char *what;
};

extern const struct cli_env_var cli_env_vars[]; /* NULL-name terminated */
extern const struct cli_mode_default cli_mode_defaults[];
extern const struct cli_example cli_examples[];
extern const struct cli_tui_key cli_tui_keys[];

/* `asmspy --help env`: one variable per line. */
void cli_print_env(FILE *f);

#endif
