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

enum tui_attr {
  TUI_A_NORMAL = 0,
  TUI_A_BAR,
  TUI_A_SELECT,
  TUI_A_BAD,
  TUI_A_GOOD,
  TUI_A_WARN,
  TUI_A_DIM,
  TUI_A_BOLD
};

/* Draw text at (y, x) in at most `width` columns; pad: fill the rest of the
 * width with spaces (bars, the highlighted row). Returns the columns used. */
int tui_put(int y, int x, int width, const char *utf8, enum tui_attr a, int pad);
/* tui_put, but text too long for the width ends at a word boundary with
 * '…' (text_fit.h's tf_cut) instead of mid-word. */
int tui_put_cut(int y, int x, int width, const char *utf8, enum tui_attr a, int pad);
/* Word-wrap text from row y down, at most max_rows rows of width columns
 * (the last ends in '…' when it still does not fit). Returns the rows
 * drawn; tui_wrap_rows: the rows it would take, drawing nothing. */
#define TUI_WRAP_MAX 16
int tui_wrap(int y, int x, int width, int max_rows, const char *text, enum tui_attr a);
int tui_wrap_rows(const char *text, int width, int max_rows);
/* A full-width title bar with left and right parts: when both do not fit,
 * the right part goes and the left is cut at a word with '…'. */
void tui_bar(int y, const char *left, const char *right);
/* A full-width footer: a status (may be NULL) and key hints, groups two
 * spaces apart ("Enter select  Tab sort  q quit"). On a narrow terminal
 * hints are shortened or dropped whole by priority, never cut, and the
 * way out (b, q, ESC) always stays (text_fit.h's tf_footer); the status
 * is cut at a word with '…'. Without a status the hints start at the left. */
void tui_keybar(int y, const char *status, const char *hints);
/* The terminal is smaller than the TUI needs: say so (and nothing else),
 * naming the minimum size, worded to fit without breaking a number. */
int tui_check_size(void);
/* Display columns of a UTF-8 string (invalid bytes count one each). */
int tui_width(const char *utf8);

#endif
