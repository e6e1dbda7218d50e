/* scroll: the pause/history state machine (see scroll.h). */
#include "tui/scroll.h"

#include <stdio.h>

static size_t page(int h) { return h > 1 ? (size_t)h - 1 : 1; }

/* Window from the cursor: a scrolling feed anchors its bottom line, a
 * scrolling frame its top line, a selecting pane keeps the cursor inside. */
static void place(struct tui_scroll *s, size_t n, int h) {
  size_t rows = h > 0 ? (size_t)h : 1;
  if (n == 0) {
    s->cursor = s->top = 0;
    return;
  }
  if (s->cursor >= n) s->cursor = n - 1;
  if (!s->select) {
    if (s->tail) {
      s->top = s->cursor + 1 > rows ? s->cursor + 1 - rows : 0;
    } else {
      /* a frame's anchor is its top line; never scroll past its end */
      size_t max_top = n > rows ? n - rows : 0;
      if (s->cursor > max_top) s->cursor = max_top;
      s->top = s->cursor;
    }
    return;
  }
  if (s->cursor < s->top) s->top = s->cursor;
  if (s->cursor >= s->top + rows) s->top = s->cursor + 1 - rows;
  size_t max_top = n > rows ? n - rows : 0;
  if (s->top > max_top) s->top = max_top;
}

void tui_scroll_fit(struct tui_scroll *s, size_t n, int h) {
  if (!s->paused) s->cursor = s->tail ? (n ? n - 1 : 0) : 0;
  if (!s->paused && !s->tail) s->top = 0;
  place(s, n, h);
}

enum tui_sresult tui_scroll_key(struct tui_scroll *s, enum tui_skey k, size_t n, int h) {
  if (k == TUI_SK_NONE) return TUI_SR_IGNORED;
  if (k == TUI_SK_PAUSE) {
    s->paused = !s->paused;
    tui_scroll_fit(s, n, h);
    return s->paused ? TUI_SR_PAUSED : TUI_SR_RESUMED;
  }
  /* a feed resumes with End, or by scrolling down past its newest line */
  if (s->tail && s->paused &&
      (k == TUI_SK_END || ((k == TUI_SK_DOWN || k == TUI_SK_PGDN) && s->cursor + 1 >= n))) {
    s->paused = 0;
    tui_scroll_fit(s, n, h);
    return TUI_SR_RESUMED;
  }
  if (s->tail && !s->paused && (k == TUI_SK_DOWN || k == TUI_SK_PGDN || k == TUI_SK_END))
    return TUI_SR_IGNORED; /* already at the newest line */
  enum tui_sresult r = TUI_SR_MOVED;
  if (!s->paused) {
    tui_scroll_fit(s, n, h); /* freeze exactly what was on screen */
    s->paused = 1;
    r = TUI_SR_PAUSED;
  }
  size_t last = n ? n - 1 : 0;
  /* a scrolling feed's cursor is its bottom line: it cannot sit above row h */
  size_t first = (!s->select && s->tail && h > 0 && (size_t)h - 1 < n) ? (size_t)h - 1 : 0;
  if (!s->select && s->tail && (size_t)h > n) first = last;
  switch (k) {
  case TUI_SK_UP: s->cursor = s->cursor > first ? s->cursor - 1 : first; break;
  case TUI_SK_DOWN: s->cursor = s->cursor < last ? s->cursor + 1 : last; break;
  case TUI_SK_PGUP: s->cursor = s->cursor > first + page(h) ? s->cursor - page(h) : first; break;
  case TUI_SK_PGDN: s->cursor = s->cursor + page(h) < last ? s->cursor + page(h) : last; break;
  case TUI_SK_HOME: s->cursor = first; break;
  case TUI_SK_END: s->cursor = last; break;
  default: break;
  }
  place(s, n, h);
  return r;
}

void tui_scroll_status(const struct tui_scroll *s, size_t n, char *buf, size_t cap) {
  if (!cap) return;
  if (!s->paused) {
    buf[0] = '\0';
    return;
  }
  snprintf(buf, cap, "[PAUSED %zu/%zu]", n ? s->cursor + 1 : 0, n);
}
