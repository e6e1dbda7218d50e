/* text_fit: fitting UTF-8 text into terminal columns, without curses.
 *
 * The rules every screen shares, so that a narrow terminal (80x24) loses
 * whole words rather than halves of them:
 *   - widths are display columns (wcwidth), never bytes; a control
 *     character or an invalid byte counts as one column (draw.c shows '?');
 *   - a cut ends at the last break point that fits — a word boundary
 *     (before a space, '(' or '['), or a separator (after '/', ',', ';',
 *     '|' or a single ':') — and is marked with '…'; only a word longer
 *     than half the room is cut inside (a hex number), still marked '…';
 *   - wrapping breaks a line at a word boundary when one keeps half the
 *     line, else at a separator ("/a/long/" + "path"), else inside;
 *   - key hints ("Enter select  ↑↓ PgUp/PgDn  q quit": groups two spaces
 *     apart, each a key and what it does) are shortened or dropped whole,
 *     by priority, never cut: see tf_footer.
 * Unit-tested in tests/tui/test_text_fit.c. */
#ifndef ASMSPY_TUI_TEXT_FIT_H
#define ASMSPY_TUI_TEXT_FIT_H

#include <stddef.h>
#include <wchar.h>

#define TF_ELLIPSIS "\xe2\x80\xa6" /* … : one column */

/* Decode one character at s (left bytes): its value and byte length; an
 * invalid or truncated sequence decodes as '?' of length 1. */
size_t tf_next(const char *s, size_t left, wchar_t *wc);
/* Columns of one decoded character: -1 for a control character (shown as
 * one '?'), else wcwidth. */
int tf_char_width(wchar_t wc);
/* Display columns of the first n bytes of s (tf_width: all of it). */
int tf_width_n(const char *s, size_t n);
int tf_width(const char *s);

/* How much of s fits in width columns. All of it: returns strlen(s) and
 * *cut = 0. Otherwise *cut = 1 and the result is the bytes to keep before
 * a '…' (which needs one more column): up to the last break point that
 * fits, or, when that would keep less than half the width, as many whole
 * characters as fit. Spaces before the cut are not kept. */
size_t tf_cut(const char *s, int width, int *cut);

struct tf_line {
  size_t off, len; /* bytes of the text on this line */
  int ellipsis;    /* the text goes on but the rows ran out: draw '…' after it */
};

/* Word-wrap s into lines of width columns, at most max_rows of them
 * (lines has room for max_rows). Lines break at break points; a word wider
 * than a whole line is broken inside (*hard, when given, counts those).
 * Returns the lines used (0 for an empty s). */
int tf_wrap(const char *s, int width, struct tf_line *lines, int max_rows, int *hard);

/* Fit s into width columns keeping its end from byte `tail` on, whole: the
 * part that matters (a syscall's "= retval", a watch hit's "old -> new")
 * stays at the right and the head before it is cut (tf_cut's rules) with
 * '…' joining the two: "openat(AT_FDCWD, "/usr/li…) = 3". When even the
 * tail does not fit, "…" and the tail cut at its right. s fitting whole is
 * copied. Writes out (NUL-terminated, cut to cap). */
void tf_keep_tail(const char *s, size_t tail, int width, char *out, size_t cap);
/* Fit s into width columns by dropping its start: '…' then its last
 * columns ("…/lib/libpython3.12.so"). s fitting whole is copied. */
void tf_elide_left(const char *s, int width, char *out, size_t cap);
/* s after its first cols display columns (a horizontal scroll's window);
 * a wide character straddling the edge is skipped whole. */
const char *tf_skip_cols(const char *s, int cols);

/* A footer: the status (may be "") on the left and key hints on the right
 * of a cols-wide bar, a space of margin at each end. When both do not fit,
 * in this order until they do: movement hints (a key starting with ↑,
 * PgUp, PgDn, Home or End) shrink to their first key ("↑↓"); a hint
 * ending in a parenthesis ("Tab order (address/name)") loses it; movement
 * hints are dropped; then the other hints are dropped from the right — the first
 * hint (the screen's main action) last, the ways out (b, q, ESC) never —
 * while the status asks for up to half the bar (at least TF_STATUS_MIN
 * columns); whatever the kept hints leave is the status's (cut with '…'
 * by the caller).
 * Writes the kept hints (two spaces apart) to out and returns the columns
 * the status may use. */
#define TF_STATUS_MIN 32
int tf_footer(const char *status, const char *hints, int cols, char *out, size_t cap);

#endif
