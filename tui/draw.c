/* draw: clipped, sanitized curses output (see draw.h). */
#include "tui/draw.h"

#include "tui/text_fit.h"

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

int tui_width(const char *utf8) { return tf_width(utf8); }

int tui_put(int y, int x, int width, const char *utf8, enum tui_attr a, int pad) {
  if (width <= 0 || y < 0 || y >= LINES || x >= COLS) return 0;
  if (x + width > COLS) width = COLS - x;
  wchar_t buf[1024];
  int used = 0, k = 0;
  size_t left = utf8 ? strlen(utf8) : 0;
  while (left && k < (int)(sizeof buf / sizeof buf[0]) - 1) {
    wchar_t wc;
    size_t n = tf_next(utf8, left, &wc);
    int w = tf_char_width(wc);
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

int tui_put_cut(int y, int x, int width, const char *utf8, enum tui_attr a, int pad) {
  if (!utf8) utf8 = "";
  if (x + width > COLS) width = COLS - x;
  int cut;
  size_t keep = tf_cut(utf8, width, &cut);
  if (!cut) return tui_put(y, x, width, utf8, a, pad);
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s" TF_ELLIPSIS, (int)(keep < 1000 ? keep : 1000), utf8);
  return tui_put(y, x, width, buf, a, pad);
}

int tui_wrap_rows(const char *text, int width, int max_rows) {
  struct tf_line lines[TUI_WRAP_MAX];
  if (max_rows > TUI_WRAP_MAX) max_rows = TUI_WRAP_MAX;
  return tf_wrap(text, width, lines, max_rows, NULL);
}

int tui_wrap(int y, int x, int width, int max_rows, const char *text, enum tui_attr a) {
  struct tf_line lines[TUI_WRAP_MAX];
  if (max_rows > TUI_WRAP_MAX) max_rows = TUI_WRAP_MAX;
  int n = tf_wrap(text, width, lines, max_rows, NULL);
  for (int i = 0; i < n; i++) {
    char part[1024];
    snprintf(part, sizeof part, "%.*s%s", (int)(lines[i].len < 1000 ? lines[i].len : 1000),
             text + lines[i].off, lines[i].ellipsis ? TF_ELLIPSIS : "");
    tui_put(y + i, x, width, part, a, 0);
  }
  return n;
}

void tui_bar(int y, const char *left, const char *right) {
  tui_put(y, 0, COLS, "", TUI_A_BAR, 1);
  int rw = right ? tui_width(right) : 0;
  int lw = tui_width(left);
  if (right && rw + lw + 2 <= COLS) {
    tui_put(y, 0, lw, left, TUI_A_BAR, 0);
    tui_put(y, COLS - rw - 1, rw, right, TUI_A_BAR, 0);
  } else {
    tui_put_cut(y, 0, COLS - 1, left, TUI_A_BAR, 0); /* the title wins over the right part */
  }
}

void tui_keybar(int y, const char *status, const char *hints) {
  char kept[512];
  if (!status) status = "";
  int sw = tf_footer(status, hints, COLS, kept, sizeof kept);
  tui_put(y, 0, COLS, "", TUI_A_BAR, 1);
  int hw = tui_width(kept);
  if (!status[0]) { /* a bar of hints only: from the left, as a menu reads */
    tui_put(y, 1, COLS - 1, kept, TUI_A_BAR, 0);
    return;
  }
  tui_put_cut(y, 0, sw, status, TUI_A_BAR, 0);
  if (hw) tui_put(y, COLS - hw - 1 > 0 ? COLS - hw - 1 : 0, hw, kept, TUI_A_BAR, 0);
}

/* The too-small message, longest wording first: the first that word-wraps
 * into the rows there are without breaking a word (a size like 60x12 is
 * one word) is shown. */
int tui_check_size(void) {
  if (COLS >= TUI_MIN_COLS && LINES >= TUI_MIN_ROWS) return 1;
  erase();
  char msgs[4][128];
  snprintf(msgs[0], sizeof msgs[0], "terminal too small: %dx%d, asmspy needs at least %dx%d", COLS,
           LINES, TUI_MIN_COLS, TUI_MIN_ROWS);
  snprintf(msgs[1], sizeof msgs[1], "too small: %dx%d, needs %dx%d", COLS, LINES, TUI_MIN_COLS,
           TUI_MIN_ROWS);
  snprintf(msgs[2], sizeof msgs[2], "needs %dx%d", TUI_MIN_COLS, TUI_MIN_ROWS);
  snprintf(msgs[3], sizeof msgs[3], "%dx%d", TUI_MIN_COLS, TUI_MIN_ROWS);
  int w = COLS > 0 ? COLS : 1, rows = LINES > 0 ? LINES : 1;
  const char *pick = msgs[3];
  for (int i = 0; i < 4; i++) {
    struct tf_line lines[TUI_WRAP_MAX];
    int hard, max = rows < TUI_WRAP_MAX ? rows : TUI_WRAP_MAX;
    int n = tf_wrap(msgs[i], w, lines, max, &hard);
    if (!hard && n > 0 && !lines[n - 1].ellipsis) {
      pick = msgs[i];
      break;
    }
  }
  /* the last resort (smaller than "60x12"): clipped, never wrapped */
  if (tf_width(pick) > w && pick == msgs[3])
    tui_put(0, 0, w, pick, TUI_A_NORMAL, 0);
  else
    tui_wrap(0, 0, w, rows, pick, TUI_A_NORMAL);
  refresh();
  return 0;
}
