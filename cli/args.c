/* Argument parsing shared by every mode. Malformed input is rejected with
 * exit status 2 and one line on stderr, never coerced: a pid of "12abc",
 * "0" or "-3" is an error, not pid 12, the caller's process group, or all. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("asmspy: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs(" (see asmspy --help)\n", stderr);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

static int parse_int64(const char *s, int64_t *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || end == s) return -1;
  *out = v;
  return 0;
}

/* A decimal integer, possibly negative ("-1" is a count, not an option). */
static int looks_numeric(const char *s) {
  if (*s == '-') s++;
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

int cli_parse_pid(const char *s, pid_t *out) {
  int64_t v;
  if (parse_int64(s, &v) != 0) return cli_usage_error("invalid pid '%s': not a number", s);
  if (v <= 0 || v > INT_MAX) return cli_usage_error("invalid pid '%s': must be positive", s);
  *out = (pid_t)v;
  return 0;
}

int cli_parse_mode_args(const char *mode, int argc, char **argv, int need_pid,
                        struct cli_mode_args *a) {
  memset(a, 0, sizeof *a);
  int have_pid = 0, have_max = 0;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--json") == 0) {
      a->json = 1;
    } else if (strncmp(arg, "--record=", 9) == 0) {
      if (!arg[9]) return cli_usage_error("--record= needs a file name");
      a->record = arg + 9;
    } else if (strncmp(arg, "--backend=", 10) == 0) {
      if (!arg[10]) return cli_usage_error("--backend= needs a backend name");
      a->backend = arg + 10;
    } else if (strncmp(arg, "--tid=", 6) == 0) {
      int64_t t;
      if (parse_int64(arg + 6, &t) != 0 || t <= 0 || t > INT_MAX)
        return cli_usage_error("invalid --tid '%s': must be a positive thread id", arg + 6);
      a->tid = (pid_t)t;
    } else if (strcmp(arg, "--follow") == 0) {
      a->follow = 1;
    } else if (arg[0] == '-' && !looks_numeric(arg)) {
      /* mode-specific option: the view validates it */
      if (a->view_argc >= CLI_MAX_VIEW_ARGS) return cli_usage_error("too many arguments");
      a->view_argv[a->view_argc++] = argv[i];
    } else if (need_pid && !have_pid) {
      if (cli_parse_pid(arg, &a->pid)) return CLI_EXIT_USAGE;
      have_pid = 1;
    } else if (!have_max && looks_numeric(arg)) {
      if (parse_int64(arg, &a->max) != 0) return cli_usage_error("invalid count '%s'", arg);
      if (a->max == 0)
        return cli_usage_error("count must be non-zero (negative = until the target exits)");
      have_max = 1;
    } else {
      if (a->view_argc >= CLI_MAX_VIEW_ARGS) return cli_usage_error("too many arguments");
      a->view_argv[a->view_argc++] = argv[i];
    }
  }
  if (need_pid && !have_pid) return cli_usage_error("--%s needs a <pid>", mode);
  if (a->follow && a->tid)
    return cli_usage_error("--follow and --tid are mutually exclusive: one says exactly this "
                           "thread, the other this process and everything it spawns");
  return 0;
}
