/* draw: clipped, sanitized curses output (see draw.h). */
#include "tui/draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static attr_t attr_of(enum tui_attr a) {
  int color = has_colors();
  switch (a) {
  case TUI_A_BAR: return color ? COLOR_PAIR(1) : A_REVERSE;
  case TUI_A_SELECT: return A_REVERSE;
  case TUI_A_BAD: return color ? COLOR_PAIR(2) | A_BOLD : A_BOLD;
  case TUI_A_GOOD: return color ? COLOR_PAIR(3) : A_NORMAL;
  case TUI_A_WARN: return color ? COLOR_PAIR(4) | A_BOLD : A_BOLD;
  case TUI_A_DIM: return A_DIM;
  case TUI_A_BOLD: return A_BOLD;
  default: return A_NORMAL;
  }
}

/* Decode one character: its wide value and byte length (an invalid byte
 * decodes as '?', length 1). */
static size_t next_char(const char *s, size_t left, wchar_t *wc) {
  mbstate_t st;
  memset(&st, 0, sizeof st);
  size_t n = mbrtowc(wc, s, left, &st);
  if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
    *wc = L'?';
    return 1;
  }
  return n;
}

static int char_width(wchar_t wc) {
  if (wc < 0x20 || wc == 0x7f) return -1; /* control: shown as '?' */
  int w = wcwidth(wc);
  return w < 0 ? -1 : w;
}

int tui_width(const char *utf8) {
  int cols = 0;
  size_t left = strlen(utf8);
  while (left) {
    wchar_t wc;
    size_t n = next_char(utf8, left, &wc);
    int w = char_width(wc);
    cols += w < 0 ? 1 : w;
    utf8 += n;
    left -= n;
  }
  return cols;
}

int tui_put(int y, int x, int width, const char *utf8, enum tui_attr a, int pad) {
  if (width <= 0 || y < 0 || y >= LINES || x >= COLS) return 0;
  if (x + width > COLS) width = COLS - x;
  wchar_t buf[1024];
  int used = 0, k = 0;
  size_t left = utf8 ? strlen(utf8) : 0;
  while (left && k < (int)(sizeof buf / sizeof buf[0]) - 1) {
    wchar_t wc;
    size_t n = next_char(utf8, left, &wc);
    int w = char_width(wc);
    if (w < 0) wc = L'?', w = 1;
    if (used + w > width) break;
    buf[k++] = wc;
    used += w;
    utf8 += n;
    left -= n;
  }
  while (pad && used < width && k < (int)(sizeof buf / sizeof buf[0]) - 1) buf[k++] = L' ', used++;
  buf[k] = L'\0';
  attr_t at = attr_of(a);
  attron(at);
  mvaddnwstr(y, x, buf, k);
  attroff(at);
  return used;
}

void tui_bar(int y, const char *left, const char *right) {
  tui_put(y, 0, COLS, left, TUI_A_BAR, 1);
  int rw = right ? tui_width(right) : 0;
  int lw = tui_width(left);
  if (right && rw + lw + 2 <= COLS) tui_put(y, COLS - rw - 1, rw, right, TUI_A_BAR, 0);
}

int tui_check_size(void) {
  if (COLS >= TUI_MIN_COLS && LINES >= TUI_MIN_ROWS) return 1;
  erase();
  char msg[128];
  snprintf(msg, sizeof msg, "terminal too small: %dx%d, asmspy needs at least %dx%d", COLS, LINES,
           TUI_MIN_COLS, TUI_MIN_ROWS);
  /* wrap the message over the rows we have */
  int len = (int)strlen(msg), w = COLS > 0 ? COLS : 1;
  for (int y = 0, at = 0; at < len && y < LINES; y++, at += w) {
    char part[129];
    snprintf(part, sizeof part, "%.*s", w, msg + at);
    mvaddstr(y, 0, part);
  }
  refresh();
  return 0;
}
