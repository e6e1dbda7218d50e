/* asmspy: the CLI entry. Installs the stop signals, then dispatches the
 * first argument through the command table or to a view plugin's mode. */
#include "cli/cli.h"
#include "tui/tui.h"

#include <signal.h>
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
  const char *cmd = argv[1];
  if (strncmp(cmd, "--", 2) != 0 || !cmd[2])
    return cli_usage_error("expected --<command|mode>, got '%s'", cmd);
  cmd += 2;
  for (const struct cli_command *c = cli_commands; c->name; c++)
    if (strcmp(c->name, cmd) == 0) return c->run(argc - 2, argv + 2);
  /* --name=<value> for the commands that take one: the whole argument is
   * their argv[0] */
  const char *eq = strchr(cmd, '=');
  for (const struct cli_command *c = cli_commands; eq && c->name; c++)
    if (c->takes_value && strlen(c->name) == (size_t)(eq - cmd) &&
        strncmp(c->name, cmd, (size_t)(eq - cmd)) == 0)
      return c->run(argc - 1, argv + 1);
  if (strchr(cmd, '=')) return cli_usage_error("unknown option '%s'", argv[1]);
  return cli_run_mode(cmd, argc - 2, argv + 2, NULL);
}
