/* scroll: pause and history for every TUI pane, without curses.
 *
 * One state machine for feeds and frames (the seed's "Pause and history"):
 *   live      the pane follows its content: a feed shows its newest lines
 *             (tail), a frame its first ones (head);
 *   paused    the content is frozen by the caller (it keeps the model it had)
 *             and the keys move through it. space toggles; moving up (any
 *             movement in a frame) pauses; in a feed, End or scrolling down
 *             past the newest line resumes.
 * Two ways to move: a scrolling pane moves its window (cursor = the bottom
 * line of a feed / the top line of a frame); a selecting pane moves a
 * highlighted cursor and keeps it visible (the tree's functions, the process
 * tree's nodes). The status bar shows `[PAUSED line/total]` from
 * tui_scroll_status(). */
#ifndef ASMSPY_TUI_SCROLL_H
#define ASMSPY_TUI_SCROLL_H

#include <stddef.h>

enum tui_skey {
  TUI_SK_NONE = 0,
  TUI_SK_UP,
  TUI_SK_DOWN,
  TUI_SK_PGUP,
  TUI_SK_PGDN,
  TUI_SK_HOME,
  TUI_SK_END,
  TUI_SK_PAUSE, /* space */
};

struct tui_scroll {
  int paused;
  int select;    /* 1: a highlighted cursor moves; 0: the window scrolls */
  int tail;      /* 1: live follows the newest line (a feed); 0: the first (a frame) */
  size_t cursor; /* select: the highlighted line; scroll: the anchor line */
  size_t top;    /* first visible line */
};

/* What a key did: the caller freezes its model on PAUSED and drops the
 * frozen copy on RESUMED. */
enum tui_sresult { TUI_SR_IGNORED = 0, TUI_SR_MOVED, TUI_SR_PAUSED, TUI_SR_RESUMED };

/* Bring the state in line with n lines in a window of h rows (live: follow
 * the tail/head; paused: clamp). Call before drawing. */
void tui_scroll_fit(struct tui_scroll *s, size_t n, int h);
/* Apply one key to a pane of n lines, h rows. A move key on a live pane
 * pauses first (PAUSED is returned; the move is applied too). */
enum tui_sresult tui_scroll_key(struct tui_scroll *s, enum tui_skey k, size_t n, int h);
/* "[PAUSED 12/2048]" while paused, "" while live. */
void tui_scroll_status(const struct tui_scroll *s, size_t n, char *buf, size_t cap);

#endif
