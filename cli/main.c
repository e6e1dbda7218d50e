/* asmspy: the CLI entry. Installs the stop signals, then dispatches the
 * first argument through the command table or to a view plugin's mode. */
#include "cli/cli.h"
#include "tui/tui.h"

#include "common/option_parse.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* Ctrl-C / SIGTERM / a closed stdout pipe stop the capture through the flag,
 * so the engine returns through its two-phase detach. No SA_RESTART: the
 * tracer's blocked waitpid must return EINTR and notice the flag. */
/* The flag alone has a window: a signal landing after the loop checked
 * the flag and before it entered waitpid leaves the tracer blocked until
 * the target's next stop — forever if the stepped thread sits in a
 * blocking syscall. So a stop also arms a repeating 100 ms SIGALRM (a
 * no-op handler, no SA_RESTART): every blocked wait returns EINTR and sees
 * the flag within 100 ms. */
static void on_wake(int sig) { (void)sig; }

static void on_stop_signal(int sig) {
  (void)sig;
  cli_stop_flag = 1;
  struct itimerval tick = {{0, 100000}, {0, 100000}};
  setitimer(ITIMER_REAL, &tick, NULL);
}

static void install_stop_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigaction(SIGPIPE, &sa, NULL);
  sa.sa_handler = on_wake;
  sigaction(SIGALRM, &sa, NULL);
}

/* The TUI runs in the supervised child (cli/supervise.c): a SIGKILLed
 * asmspy must not take a single-stepped target with it. */
static int tui_session(void *arg) {
  (void)arg;
  return tui_main();
}

static int is_help(const char *t) { return strcmp(t, "--help") == 0 || strcmp(t, "-h") == 0; }

/* The command named by "--name" (or "--name=<value>" for one that takes a
 * value), or NULL. */
static const struct cli_command *command_of(const char *t) {
  if (t[0] != '-' || t[1] != '-' || !t[2]) return NULL;
  const char *name = t + 2, *eq = strchr(name, '=');
  for (const struct cli_command *c = cli_commands; c->name; c++) {
    if (!eq && strcmp(c->name, name) == 0) return c;
    if (eq && c->takes_value && strlen(c->name) == (size_t)(eq - name) &&
        strncmp(c->name, name, (size_t)(eq - name)) == 0)
      return c;
  }
  return NULL;
}

/* Is "--name" a mode (a view plugin's)? The registry is opened once. */
static int is_mode(const char *t, struct asmspy_engine **e) {
  if (t[0] != '-' || t[1] != '-' || !t[2] || strchr(t, '=')) return 0;
  if (!*e) *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  return *e && asmspy_find_view_for_mode(*e, t + 2) != NULL;
}

/* Where the command or mode is among argv[1..argc), like strace and perf
 * take their options in any order: options every mode shares (and a
 * mode's own, or a value) may come before it. Stops at "--" (a --launch
 * command's own arguments). Returns its index, or -1. */
static int find_subject(int argc, char **argv, struct asmspy_engine **e) {
  for (int i = 1; i < argc; i++) {
    const char *t = argv[i];
    if (strcmp(t, "--") == 0) break;
    if (t[0] != '-' || t[1] != '-' || !t[2]) continue; /* a positional, a value */
    if (command_of(t)) return i;
    int sh = asmspy_option_index(cli_shared_options, t + 2);
    if (sh >= 0) {
      if (cli_shared_options[sh].arg && !strchr(t, '=')) i++; /* --record <f> */
      continue;
    }
    if (is_mode(t, e)) return i;
  }
  return -1;
}

/* No command or mode among the arguments: one line saying what was wrong. */
static int no_subject(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *t = argv[i];
    if (t[0] == '-' && t[1] == '-' && t[2]) {
      int sh = asmspy_option_index(cli_shared_options, t + 2);
      if (sh < 0) {
        if (strchr(t, '='))
          return cli_usage_error("unknown option '%.*s'", (int)strcspn(t, "="), t);
        return cli_usage_error("unknown option '%s': no command or mode of that name", t);
      }
      if (cli_shared_options[sh].arg && !strchr(t, '=')) i++;
      continue;
    }
    return cli_usage_error("expected --<command|mode>, got '%s'", t);
  }
  return cli_usage_error("no command or mode given (%s is an option of the modes: asmspy "
                         "--<mode> ... %s)",
                         argv[1], argv[1]);
}

/* The argument vector with the options moved after the mode (main): read
 * until exit, held here so a leak checker sees it referenced. */
char **cli_reordered_argv;

int main(int argc, char **argv) {
  install_stop_handlers();
  if (argc < 2) {
    /* no arguments on a terminal: the interactive TUI (tui/) */
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
      return cli_supervise_terminal(tui_session, NULL);
    cli_print_usage(stderr);
    fprintf(stderr, "\nasmspy: give a command or mode (the interactive TUI needs a terminal on "
                    "stdin and stdout)\n");
    return CLI_EXIT_USAGE;
  }
  /* -h is --help, first (--help [<mode|command>]) or anywhere before "--" */
  if (is_help(argv[1])) return cli_cmd_help(argc - 2, argv + 2);
  struct asmspy_engine *e = NULL;
  int at = command_of(argv[1]) ? 1 : find_subject(argc, argv, &e);
  if (e) asmspy_engine_close(e);
  int help = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) help |= is_help(argv[i]);
  if (help) {
    if (at < 0 || is_help(argv[at])) return cli_cmd_help(0, argv + argc);
    const char *name = argv[at] + 2;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "%.*s", (int)strcspn(name, "="), name);
    /* --launch <mode> ... -h: the mode's options */
    if (strcmp(cmd, "launch") == 0 && at + 1 < argc && argv[at + 1][0] != '-')
      return cli_cmd_help(1, (char *[]){argv[at + 1], NULL});
    return cli_cmd_help(1, (char *[]){cmd, NULL});
  }
  if (at < 0) return no_subject(argc, argv);
  if (at > 1) {
    /* the options before the command or mode go right after it (after a
     * --launch's mode), in the order given: its own parser reads them */
    char **v = calloc((size_t)argc + 1, sizeof *v);
    if (!v) return CLI_EXIT_FAIL;
    int n = 0, skip = at;
    v[n++] = argv[0];
    v[n++] = argv[at];
    if (strcmp(argv[at], "--launch") == 0 && at + 1 < argc && argv[at + 1][0] != '-')
      v[n++] = argv[++skip];
    for (int i = 1; i < at; i++) v[n++] = argv[i];
    for (int i = skip + 1; i < argc; i++) v[n++] = argv[i];
    v[n] = NULL;
    cli_reordered_argv = v; /* lives as long as the process: a global holds it */
    argv = v;
  }
  const char *cmd = argv[1] + 2;
  const struct cli_command *c = command_of(argv[1]);
  if (c) return strchr(cmd, '=') ? c->run(argc - 1, argv + 1) : c->run(argc - 2, argv + 2);
  return cli_run_mode(cmd, argc - 2, argv + 2, NULL);
}
