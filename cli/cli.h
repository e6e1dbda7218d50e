/* The asmspy CLI: a consumer of libasmspy through its public API
 * (include/asmspy/) and the application API (include/asmspy-internal/
 * app_api.h), linked as libasmspy_app.a; never host/. One file per concern:
 * main.c (signals, dispatch through the command table), commands.c (the
 * built-in commands), args.c (argument parsing shared by every mode). */
#ifndef ASMSPY_CLI_H
#define ASMSPY_CLI_H

#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

#define CLI_MAX_VIEW_ARGS 64

/* Options every mode shares; the rest goes to the view as argc/argv. */
struct cli_mode_args {
  pid_t pid;
  int64_t max;          /* 0 = the view's default */
  const char *max_text; /* max as typed (--syms: a numeric filter), or NULL */
  pid_t tid;
  int follow;
  int json;
  const char *record;
  const char *output; /* --output=<f>: the writer's text/JSON stream into <f> */
  const char *backend;
  int view_argc;
  char *view_argv[CLI_MAX_VIEW_ARGS]; /* point into view_store (keep a copy's source alive) */
  size_t view_used;
  char view_store[8192];
};

/* The options every mode takes (--json, --record, --backend, --tid,
 * --follow, --output): parsed here, never seen by the view. */
extern const struct asmspy_option cli_shared_options[];

/* Parse argv[0..argc) for `mode`: the `shared` options (cli_shared_options
 * for a mode, a command's own table for --syms / --info) and the view's
 * `view` table, in one getopt_long pass; the positionals are the <pid>
 * (need_pid), the count, then the view's own. positionals is the mode's
 * usage ("<pid> [ms]"): a refused number is named as it says (NULL: "[n]"). The view's options reach it
 * in view_argv as "--name" / "--name=value". view_has_table 0 (a view from
 * before ABI 1.8) passes unknown --options through unchecked. Returns 0 or
 * CLI_EXIT_USAGE (one line printed). */
int cli_parse_mode_args(const char *mode, int argc, char **argv, int need_pid,
                        const struct asmspy_option *shared, const struct asmspy_option *view,
                        int view_has_table, const char *positionals, struct cli_mode_args *out);
/* A command's options against its table: 0, or CLI_EXIT_USAGE with
 * "asmspy: --<cmd>: <reason>" printed. */
int cli_parse_options(const char *cmd, const struct asmspy_option *table, int argc, char **argv,
                      struct asmspy_optval *ov);
/* A view plugin's option table (NULL: none, or a view from before 1.8). */
const struct asmspy_option *cli_view_options(const struct asmspy_plugin_info *v);
int cli_view_has_table(const struct asmspy_plugin_info *v);
int cli_parse_pid(const char *s, pid_t *out);
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "asmspy: <text>" (escaped, one line) for a failure; returns CLI_EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

extern volatile int cli_stop_flag;

/* One built-in command. --help, the man page, shell completion and the
 * command's own parsing read the same entry. */
struct cli_command {
  const char *name; /* "--name" on the command line */
  int (*run)(int argc, char **argv);
  const char *positionals;             /* its non-option arguments: "<pid> [filter]" */
  const struct asmspy_option *options; /* its options; NULL = none */
  const char *help;
  int takes_value; /* also "--name=<value>": run() then gets that argument as argv[0] */
  int hidden;      /* machinery (--man, --complete): not listed */
};
extern const struct cli_command cli_commands[];
const struct cli_command *cli_find_command(const char *name);
/* Each command's option table (its file parses with it). */
extern const struct asmspy_option cli_info_options[];
extern const struct asmspy_option cli_list_options[];
extern const struct asmspy_option cli_replay_options[];
extern const struct asmspy_option cli_export_options[];
int cli_run_mode(const char *mode, int argc, char **argv, char *const *launch_argv);
/* The CLI exit status for an asmspy_run() result (0 answered, 1 failed, 2 usage). */
int cli_exit_code_for(int rc);
/* Run session(arg) in a supervised child (see supervise.c); returns its exit code. */
int cli_supervise(int (*session)(void *arg), void *arg);
/* The same, with the tracer in a process group of its own (headless modes:
 * a SIGKILL of asmspy's process group then still ends the session cleanly;
 * supervise.c says why). */
int cli_supervise_own_group(int (*session)(void *arg), void *arg);
/* cli_supervise for the TUI: also restores the terminal if the child died
 * without doing so. */
int cli_supervise_terminal(int (*session)(void *arg), void *arg);
void cli_print_usage(FILE *f);
/* usage.c: --help [<mode|command>], generated from the tables and the registry. */
int cli_cmd_help(int argc, char **argv);
/* man.c: asmspy(1) in roff, from the same tables (meson builds asmspy.1 with it). */
int cli_cmd_man(int argc, char **argv);
/* complete.c: shell completion: the candidates for a command line, and the
 * bash / zsh scripts that ask for them. */
int cli_cmd_complete(int argc, char **argv);
int cli_cmd_completion(int argc, char **argv);

/* info.c / list.c: the no-attach commands (host/procinfo.c, the application API, does the reading). */
int cli_cmd_info(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);
/* serve.c / replay.c: asmspy as a capture host, and recordings rendered back. */
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);
/* export.c: a recording's calls as Perfetto JSON, folded stacks or DOT. */
int cli_cmd_export(int argc, char **argv);

#endif
