/* draw: curses output helpers shared by the TUI screens.
 *
 * Text from views and from /proc is UTF-8 of unknown trust: every string is
 * decoded, control characters become '?', and output is clipped by display
 * columns (wcwidth), never by bytes, so a line never wraps into the next row
 * or cuts a character in half. */
#ifndef ASMSPY_TUI_DRAW_H
#define ASMSPY_TUI_DRAW_H

#include <curses.h>

#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 12

enum tui_attr { TUI_A_NORMAL = 0, TUI_A_BAR, TUI_A_SELECT, TUI_A_BAD, TUI_A_GOOD, TUI_A_WARN,
                TUI_A_DIM, TUI_A_BOLD };

/* Draw text at (y, x) in at most `width` columns; pad: fill the rest of the
 * width with spaces (bars, the highlighted row). Returns the columns used. */
int tui_put(int y, int x, int width, const char *utf8, enum tui_attr a, int pad);
/* A full-width bar with left and right parts. */
void tui_bar(int y, const char *left, const char *right);
/* The terminal is smaller than the TUI needs: say so (and nothing else). */
int tui_check_size(void);
/* Display columns of a UTF-8 string (invalid bytes count one each). */
int tui_width(const char *utf8);

#endif
