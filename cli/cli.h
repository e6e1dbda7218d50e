/* The asmspy CLI: a thin consumer of libasmspy. One file per concern:
 * main.c (signals, dispatch through the command table), commands.c (the
 * built-in commands), args.c (argument parsing shared by every mode). */
#ifndef ASMSPY_CLI_H
#define ASMSPY_CLI_H

#include <asmspy/asmspy.h>
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
  int64_t max; /* 0 = the view's default */
  pid_t tid;
  int follow;
  int json;
  const char *record;
  const char *backend;
  int view_argc;
  char *view_argv[CLI_MAX_VIEW_ARGS];
};

/* Parse argv[0..argc) for `mode`. need_pid: a <pid> positional is required.
 * Returns 0 or CLI_EXIT_USAGE (message printed). */
int cli_parse_mode_args(const char *mode, int argc, char **argv, int need_pid,
                        struct cli_mode_args *out);
int cli_parse_pid(const char *s, pid_t *out);
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

extern volatile int cli_stop_flag;

struct cli_command {
  const char *name; /* "--name" on the command line */
  int (*run)(int argc, char **argv);
  const char *synopsis;
  const char *help;
  int takes_value; /* also "--name=<value>": run() then gets that argument as argv[0] */
};
extern const struct cli_command cli_commands[];
int cli_run_mode(const char *mode, int argc, char **argv, char *const *launch_argv);
/* The CLI exit status for an asmspy_run() result (0 answered, 1 failed, 2 usage). */
int cli_exit_code_for(int rc);
/* Run session(arg) in a supervised child (see supervise.c); returns its exit code. */
int cli_supervise(int (*session)(void *arg), void *arg);
/* cli_supervise for the TUI: also restores the terminal if the child died
 * without doing so. */
int cli_supervise_terminal(int (*session)(void *arg), void *arg);
void cli_print_usage(FILE *f);

/* info.c / list.c: the no-attach commands (cli/procinfo.c does the reading). */
int cli_cmd_info(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);
/* serve.c / replay.c: asmspy as a capture host, and recordings rendered back. */
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_replay(int argc, char **argv);

#endif
