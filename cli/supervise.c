/* The supervisor: why a SIGKILLed asmspy leaves its target running.
 *
 * When a tracer dies, the kernel detaches its tracees as they are: a thread
 * single-stepped at that moment keeps EFLAGS.TF and a queued step SIGTRAP,
 * runs one instruction, and dies of SIGTRAP (measured here). Nothing in a
 * SIGKILLed process can run to prevent that. So the asmspy process the user
 * sees only supervises: the tracing session runs in a child (the one tracer
 * thread of the ptrace rules), which has PR_SET_PDEATHSIG. If the supervisor
 * is SIGKILLed, the kernel sends the child SIGTERM, the child's stop flag is
 * raised, and it leaves through the ordinary two-phase detach. If the
 * tracer itself is SIGKILLed (or crashes) after a backend patched the
 * target (entrypatch's function entries), the supervisor puts the old bytes
 * back from the undo journal the two share (host/undo_journal.h).
 * Ctrl-C, SIGTERM and SIGHUP to the supervisor are forwarded to the child.
 *
 * The headless modes also put the tracer in a process group of its own
 * (cli_supervise_own_group): `kill -9 -<pgid>` of asmspy's job (a shell's
 * `kill -9 %1`, a harness ending a process group) then kills only the
 * supervisor, and the tracer leaves as above. In asmspy's group, a stepping
 * tracer killed with it left every thread it stopped at a step with a
 * SIGTRAP that the kernel delivers once the tracer is gone: a Go program
 * (which catches SIGTRAP to crash), like any other, died of it (6/6). The
 * TUI, and a --launch whose command reads the terminal, stay in the
 * terminal's foreground group. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "asmspy-internal/app_api.h"

/* 1 MiB: ~14k journaled writes (entrypatch journals one per patched function) */
#define UNDO_JOURNAL_BYTES (1u << 20)

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static volatile pid_t supervised_child;

static void forward_signal(int sig) {
  if (supervised_child > 0) kill(supervised_child, sig);
}

static int supervise(int (*session)(void *arg), void *arg, int own_group) {
  if (getenv("ASMSPY_NO_SUPERVISOR")) return session(arg); /* debugging: one process */
  pid_t supervisor = getpid();
  /* what the tracer's backends patch is journaled here, shared with it
   * (host/undo_journal.h): put back below if it dies without leaving */
  (void)undo_journal_create(UNDO_JOURNAL_BYTES);
  fflush(NULL);
  /* A stop signal landing between fork() and the forwarding handler below
   * would only raise the supervisor's own flag, which nothing reads: the
   * session would run on (issue 24, 3/120 at 20-55 ms after start). So the
   * stop signals are held blocked across the fork: one that arrived before
   * it set the flag the child inherits; one that arrives after it stays
   * pending until forward_signal is in place, then reaches the child. */
  sigset_t stops, saved_mask;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGHUP);
  sigprocmask(SIG_BLOCK, &stops, &saved_mask);
  pid_t child = fork();
  if (child < 0) { /* cannot fork: trace in-process */
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    return session(arg);
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    /* the child keeps the inherited stop handlers (its flag); a signal sent
     * to it meanwhile was held pending and is delivered here */
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    if (getppid() != supervisor) raise(SIGTERM); /* it died before prctl took effect */
    if (own_group && setpgid(0, 0) == 0 &&
        signal(SIGTTOU, SIG_IGN) == SIG_DFL) /* a background group writes to the terminal */
      launch_child_default_signal(SIGTTOU);  /* ...but a launched command keeps the default */
    prctl(PR_SET_NAME, "asmspy-tracer");
    int rc = session(arg);
    fflush(NULL);
    _exit(rc);
  }
  supervised_child = child;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);                    /* the child owns stdout's fate */
  sigprocmask(SIG_SETMASK, &saved_mask, NULL); /* a held stop signal is forwarded now */
  int status;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return CLI_EXIT_FAIL;
  undo_journal_replay(); /* a normal leave cleared it: this restores nothing */
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  int sig = WTERMSIG(status);
  if (sig == SIGPIPE) return CLI_EXIT_OK; /* output closed (| head): not a failure */
  fprintf(stderr, "asmspy: tracer process died: %s\n", strsignal(sig));
  return CLI_EXIT_FAIL;
}

int cli_supervise(int (*session)(void *arg), void *arg) { return supervise(session, arg, 0); }

int cli_supervise_own_group(int (*session)(void *arg), void *arg) {
  return supervise(session, arg, 1);
}

/* The TUI under the same supervisor: its tracer thread single-steps too, so
 * a SIGKILLed asmspy must leave the target running exactly as above. The
 * child owns the terminal (same process group, inherited fds); if it dies
 * without restoring it (SIGKILL of the child itself), the supervisor puts
 * back the terminal modes it saw at start and leaves the alternate screen. */
int cli_supervise_terminal(int (*session)(void *arg), void *arg) {
  struct termios saved;
  int have = tcgetattr(STDIN_FILENO, &saved) == 0;
  int rc = cli_supervise(session, arg);
  struct termios now;
  if (have && tcgetattr(STDIN_FILENO, &now) == 0 &&
      (now.c_lflag != saved.c_lflag || now.c_iflag != saved.c_iflag ||
       now.c_oflag != saved.c_oflag)) {
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    static const char leave[] = "\033[?1049l\033[?25h\n";    /* rmcup, cursor on */
    if (write(STDOUT_FILENO, leave, sizeof leave - 1) < 0) { /* nothing more to do */
    }
  }
  return rc;
}
