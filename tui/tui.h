/* The interactive TUI: `asmspy` with no arguments on a terminal.
 * An ncurses front end over the same engine (asmspy_run) and the same view
 * plugins the headless modes use; the only code in asmspy that links curses.
 * docs/tui.md describes the screens. */
#ifndef ASMSPY_TUI_TUI_H
#define ASMSPY_TUI_TUI_H

/* Run the TUI on the terminal (stdin/stdout). Returns the process exit
 * status: 0, or 1 when the terminal could not be set up. */
int tui_main(void);

#endif
