/* Argument parsing shared by every mode and command: one option table for
 * the options every mode takes, parsed together with the mode's own table
 * (the view's `options`) by the one parser (common/option_parse.h,
 * getopt_long underneath). Malformed input is rejected with exit status 2
 * and one line on stderr, never coerced: a pid of "12abc", "0" or "-3" is
 * an error, not pid 12, the caller's process group, or all. */
#include "cli/cli.h"
#include "common/ctl_escape.h"
#include "common/option_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options every mode takes (the view never sees them). --help, the man
 * page and shell completion list them from here. */
enum { SH_JSON, SH_RECORD, SH_BACKEND, SH_TID, SH_FOLLOW, SH_OUTPUT, SH_COUNT };
const struct asmspy_option cli_shared_options[] = {
    [SH_JSON] = {"json", NULL, "NDJSON events on stdout (a valid .asmtrace recording)"},
    [SH_RECORD] = {"record", "<f>", "also write the recording to <f> (text still printed)"},
    [SH_BACKEND] = {"backend", "<b>", "capture backend (default: the preferred usable one)"},
    [SH_TID] = {"tid", "<t>", "follow exactly thread t"},
    [SH_FOLLOW] = {"follow", NULL, "also trace forked children (exclusive with --tid)"},
    [SH_OUTPUT] = {"output", "<f>",
                   "the text (or --json) into <f>, not stdout (strace -o): "
                   "a --launch command keeps the terminal"},
    {NULL, NULL, NULL},
};

/* "asmspy: <text>" on stderr, one line: the text quotes what the user (or a
 * target) typed, so its control bytes and bidi controls are shown escaped
 * (common/ctl_escape.h), never handed to the terminal. */
static void error_line(const char *tail, const char *fmt, va_list ap) {
  char buf[2048];
  vsnprintf(buf, sizeof buf, fmt, ap);
  fputs("asmspy: ", stderr);
  ctl_text_fput(stderr, buf, strlen(buf), 0);
  fputs(tail, stderr);
  fflush(stderr);
}

int cli_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line(" (see asmspy --help)\n", fmt, ap);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

int cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line("\n", fmt, ap);
  va_end(ap);
  return CLI_EXIT_FAIL;
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

int cli_parse_options(const char *cmd, const struct asmspy_option *table, int argc, char **argv,
                      struct asmspy_optval *ov) {
  memset(ov, 0, sizeof *ov);
  ASMSPY_INIT_HEADER(ov);
  char err[512];
  if (asmspy_option_parse(table, argc, argv, ov, err, sizeof err) != 0)
    return cli_usage_error("--%s: %s", cmd, err);
  return 0;
}

const struct asmspy_option *cli_view_options(const struct asmspy_plugin_info *v) {
  if (!v || !v->desc || !v->desc->view) return NULL;
  const struct asmspy_view_ops *ops = v->desc->view;
  return ASMSPY_HAS(ops, options) ? ops->options : NULL;
}

int cli_view_has_table(const struct asmspy_plugin_info *v) {
  return v && v->desc && v->desc->view && ASMSPY_HAS(v->desc->view, options);
}

/* Hand one argument to the view: its text is copied into a->view_store (a
 * value given as "--name value" becomes "--name=value", the one spelling). */
static int view_arg(struct cli_mode_args *a, const char *name, const char *value) {
  if (a->view_argc >= CLI_MAX_VIEW_ARGS) return cli_usage_error("too many arguments");
  size_t room = sizeof a->view_store - a->view_used;
  char *dst = a->view_store + a->view_used;
  int n = name ? snprintf(dst, room, "--%s%s%s", name, value ? "=" : "", value ? value : "")
               : snprintf(dst, room, "%s", value);
  if (n < 0 || (size_t)n >= room) return cli_usage_error("arguments too long");
  a->view_used += (size_t)n + 1;
  a->view_argv[a->view_argc++] = dst;
  return 0;
}

/* The numeric positional after <pid> is a count of events for most modes
 * ("[n]") but a window in milliseconds for --sample ("[ms]"): a refusal
 * names it as the mode's usage does, so a duration is never called a count. */
static int refuse_zero(const char *mode, const char *positionals, const char *arg) {
  if (positionals && strstr(positionals, "[ms]"))
    return cli_usage_error("--%s: invalid window '%s': [ms] is the sampling window in "
                           "milliseconds and must be positive",
                           mode, arg);
  return cli_usage_error("--%s: [n] is '%s': count must be non-zero (negative = until the "
                         "target exits)",
                         mode, arg);
}

int cli_parse_mode_args(const char *mode, int argc, char **argv, int need_pid,
                        const struct asmspy_option *shared, const struct asmspy_option *view,
                        int view_has_table, const char *positionals, struct cli_mode_args *a) {
  memset(a, 0, sizeof *a);
  /* One table: the shared options, then the view's (a view option that
   * shadows a shared one is the shared one). */
  struct asmspy_option merged[ASMSPY_OPT_MAX + 1];
  int from_view[ASMSPY_OPT_MAX]; /* merged index -> view index, -1 = shared */
  int n = 0;
  for (int i = 0; shared[i].name && n < ASMSPY_OPT_MAX; i++)
    from_view[n] = -1, merged[n++] = shared[i];
  for (int i = 0; view && view[i].name; i++) {
    if (asmspy_option_index(shared, view[i].name) >= 0) continue;
    if (n >= ASMSPY_OPT_MAX) return cli_usage_error("--%s declares too many options", mode);
    from_view[n] = i;
    merged[n++] = view[i];
  }
  memset(&merged[n], 0, sizeof merged[n]);

  /* A view from before ABI 1.8 declares no table: its options are passed
   * through to it unchecked, as they always were (only the shared ones are
   * parsed here). */
  char *args[4096];
  int nargs = 0;
  if (argc > 4096) return cli_usage_error("too many arguments");
  for (int i = 0; i < argc; i++) {
    const char *t = argv[i];
    if (!view_has_table && t[0] == '-' && t[1] == '-' && t[2] &&
        asmspy_option_index(shared, t + 2) < 0) {
      if (view_arg(a, NULL, t)) return CLI_EXIT_USAGE;
      continue;
    }
    args[nargs++] = argv[i];
  }

  struct asmspy_optval ov;
  if (cli_parse_options(mode, merged, nargs, args, &ov)) return CLI_EXIT_USAGE;
  const char *tid = NULL;
  for (int i = 0; i < n; i++) {
    const char *v = ov.value[i];
    if (!v) continue;
    if (from_view[i] >= 0) {
      if (view_arg(a, merged[i].name, merged[i].arg ? v : NULL)) return CLI_EXIT_USAGE;
      continue;
    }
    switch (asmspy_option_index(cli_shared_options, merged[i].name)) {
    case SH_JSON: a->json = 1; break;
    case SH_RECORD: a->record = v; break;
    case SH_BACKEND: a->backend = v; break;
    case SH_TID: tid = v; break;
    case SH_FOLLOW: a->follow = 1; break;
    case SH_OUTPUT: a->output = v; break;
    default: break;
    }
  }
  if (tid) {
    int64_t t;
    if (parse_int64(tid, &t) != 0 || t <= 0 || t > INT_MAX)
      return cli_usage_error("invalid --tid '%s': must be a positive thread id", tid);
    a->tid = (pid_t)t;
  }
  /* positionals, in order: the pid, the first number (the count), then the
   * view's own (a region, an address) */
  int have_pid = 0, have_max = 0;
  /* a mode whose usage names no [n] or [ms] (--syms <pid> [filter], --info
   * <pid>) takes no count: a number there is its own argument */
  int takes_count = !positionals || strstr(positionals, "[n]") || strstr(positionals, "[ms]");
  for (uint32_t i = 0; i < ov.npos; i++) {
    const char *arg = ov.pos[i];
    if (need_pid && !have_pid) {
      if (cli_parse_pid(arg, &a->pid)) return CLI_EXIT_USAGE;
      have_pid = 1;
    } else if (takes_count && !have_max && looks_numeric(arg)) {
      if (parse_int64(arg, &a->max) != 0)
        return cli_usage_error("--%s: invalid number '%s': out of range", mode, arg);
      if (a->max == 0) return refuse_zero(mode, positionals, arg);
      a->max_text = arg;
      have_max = 1;
    } else if (view_arg(a, NULL, arg)) {
      return CLI_EXIT_USAGE;
    }
  }
  if (need_pid && !have_pid) return cli_usage_error("--%s needs a <pid>", mode);
  if (!need_pid && a->tid) /* need_pid 0: --launch, the pid is not known yet */
    return cli_usage_error("--launch %s: --tid names a thread of a running process; a launched "
                           "command has none yet (attach with --%s <pid> --tid=<t> instead)",
                           mode, mode);
  if (a->follow && a->tid)
    return cli_usage_error("--follow and --tid are mutually exclusive: one says exactly this "
                           "thread, the other this process and everything it spawns");
  return 0;
}
