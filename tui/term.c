/* term: curses, stderr capture and signals (see term.h). */
#define _GNU_SOURCE
#include "tui/term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t quit_flag;
static int is_open;
static struct termios saved_tty;
static int have_tty;
static int saved_stderr = -1;
static int err_pipe = -1; /* read end */
static char err_buf[4096];
static size_t err_len;
static SCREEN *screen;

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction crash_prev[sizeof crash_signals / sizeof crash_signals[0]];

static void on_quit(int sig) {
  (void)sig;
  quit_flag = 1;
}

/* Async-signal-safe: termios and write only. */
static void restore_tty_now(void) {
  static const char reset[] = "\033[0m\033[?25h\033[?1049l\r\n";
  if (have_tty) tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
  ssize_t w = write(STDOUT_FILENO, reset, sizeof reset - 1);
  (void)w;
  if (saved_stderr >= 0) dup2(saved_stderr, STDERR_FILENO);
}

static void on_crash(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  restore_tty_now();
  /* Hand the signal to whoever had it (the default: a core; a sanitizer:
   * its report, now on the real stderr). A hardware fault (si_code > 0)
   * re-executes and faults again into it; a sent one (kill, abort) is
   * raised again. */
  for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
    if (crash_signals[i] == sig) sigaction(sig, &crash_prev[i], NULL);
  if (!info || info->si_code <= 0) raise(sig);
}

static void install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_quit;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_crash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
    sigaction(crash_signals[i], &sa, &crash_prev[i]);
}

static void capture_stderr(void) {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return;
  saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 10);
  if (saved_stderr < 0 || dup2(p[1], STDERR_FILENO) < 0) {
    close(p[0]);
    close(p[1]);
    if (saved_stderr >= 0) close(saved_stderr);
    saved_stderr = -1;
    return;
  }
  close(p[1]);
  err_pipe = p[0];
  setvbuf(stderr, NULL, _IOLBF, 0);
}

static void drain_pipe(void) {
  if (err_pipe < 0) return;
  while (err_len < sizeof err_buf - 1) {
    ssize_t n = read(err_pipe, err_buf + err_len, sizeof err_buf - 1 - err_len);
    if (n <= 0) break;
    err_len += (size_t)n;
  }
  if (err_len == sizeof err_buf - 1) err_buf[err_len - 1] = '\n'; /* a runaway line: cut */
}

int tui_term_stderr_line(char *buf, size_t cap) {
  drain_pipe();
  char *nl = memchr(err_buf, '\n', err_len);
  if (!nl) return 0;
  size_t len = (size_t)(nl - err_buf);
  snprintf(buf, cap, "%.*s", (int)len, err_buf);
  memmove(err_buf, nl + 1, err_len - len - 1);
  err_len -= len + 1;
  return 1;
}

int tui_term_open(void) {
  setlocale(LC_ALL, "");
  have_tty = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
  if (!getenv("ESCDELAY")) setenv("ESCDELAY", "25", 0); /* ESC is "back": no 1 s lag */
  screen = newterm(NULL, stdout, stdin);
  if (!screen) {
    fprintf(stderr, "asmspy: cannot start the TUI: no terminfo entry for TERM=%s\n",
            getenv("TERM") ? getenv("TERM") : "(unset)");
    return -1;
  }
  set_term(screen);
  raw(); /* Ctrl-C and Ctrl-Z arrive as keys (Ctrl-C quits): a stopped TUI would
            leave its target stopped under ptrace */
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(1, COLOR_BLACK, COLOR_CYAN); /* bars */
    init_pair(2, COLOR_RED, -1);           /* `!` and reasons */
    init_pair(3, COLOR_GREEN, -1);         /* ok */
    init_pair(4, COLOR_YELLOW, -1);        /* paused / maybe */
  }
  install_signals();
  capture_stderr();
  is_open = 1;
  return 0;
}

void tui_term_close(void) {
  if (!is_open) return;
  is_open = 0;
  endwin();
  delscreen(screen);
  screen = NULL;
  /* the real stderr back, then whatever was written to the pipe and not
   * shown (a last message explains a failure better on the terminal) */
  fflush(stderr);
  drain_pipe();
  if (saved_stderr >= 0) {
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    saved_stderr = -1;
  }
  if (err_pipe >= 0) close(err_pipe);
  err_pipe = -1;
  if (err_len) {
    ssize_t w = write(STDERR_FILENO, err_buf, err_len);
    (void)w;
    err_len = 0;
  }
  for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
    sigaction(crash_signals[i], &crash_prev[i], NULL);
}

int tui_term_quit_requested(void) { return quit_flag != 0; }
