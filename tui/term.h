/* term: the terminal's lifecycle for the TUI.
 *
 * Owns everything that must be undone on every exit path:
 *   - curses (newterm on the real terminal; endwin on close);
 *   - stderr: while curses draws, fd 2 is a pipe the UI drains
 *     (tui_term_stderr_line), so a stray message from the engine, a plugin
 *     or a library ("asmspy: pid 9: no such process") becomes a status line
 *     instead of garbage on the screen; close restores the real stderr and
 *     replays what was not shown yet;
 *   - signals: SIGINT, SIGTERM and SIGHUP only raise a quit flag (the UI
 *     loop stops the session through its two-phase detach and closes the
 *     terminal); a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) restores
 *     the tty modes and leaves the alternate screen before the previous
 *     disposition runs.
 */
#ifndef ASMSPY_TUI_TERM_H
#define ASMSPY_TUI_TERM_H

#include <stddef.h>

/* 0, or -1 with a message on stderr (not a terminal, no terminfo entry). */
int tui_term_open(void);
void tui_term_close(void);
/* Set by SIGINT / SIGTERM / SIGHUP. */
int tui_term_quit_requested(void);
/* One complete line written to stderr since the last call: 1 and buf
 * filled, or 0 when none is pending. */
int tui_term_stderr_line(char *buf, size_t cap);

#endif
