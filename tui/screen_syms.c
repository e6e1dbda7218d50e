/* screen_syms: the symbol picker (modes 2 and 9 trace one chosen function).
 *
 * Typing filters; when the filter is exactly a symbol's name that row is
 * selected at once (an exact match beats the first substring match), so
 * Enter traces what was typed. */
#define _GNU_SOURCE
#include "tui/app.h"
#include "tui/draw.h"
#include "tui/text_fit.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LIST_TOP 3
#define STATUS_MAX_ROWS 3
#define NAME_MIN 40 /* the NAME column's width when the names are shorter */

/* Re-filter or re-order; the selection: the exact match when the filter
 * is a name, else (reset) the first row, else where it was (clamped). */
static void arrange_sel(struct tui_symscreen *s, int reset) {
  tui_symlist_arrange(&s->list, s->filter);
  long exact = tui_symlist_exact(&s->list, s->filter);
  if (exact >= 0)
    s->sel = (size_t)exact;
  else if (reset)
    s->sel = 0;
  else if (s->sel >= s->list.nrows)
    s->sel = s->list.nrows ? s->list.nrows - 1 : 0;
}

static void arrange(struct tui_symscreen *s) { arrange_sel(s, 0); }

static void load(struct tui_app *app) {
  struct tui_symscreen *s = &app->syms;
  tui_bar(LINES - 1, " loading symbols ...", NULL);
  refresh();
  int err = tui_symlist_load(&s->list, app->pid);
  if (err)
    snprintf(s->msg, sizeof s->msg, "pid %d: cannot load symbols: %s", (int)app->pid,
             strerror(err));
  if (s->list.sort == TUI_SSORT_HOT) {
    tui_bar(LINES - 1, " sampling hot edges ...", NULL);
    refresh();
    tui_symlist_rank_hot(&s->list, app->engine);
  }
  arrange(s);
}

void tui_syms_enter(struct tui_app *app, const struct tui_mode *m) {
  struct tui_symscreen *s = &app->syms;
  app->pending = *m;
  app->msg[0] = '\0';
  if (s->list.pid != app->pid) tui_symlist_free(&s->list);
  /* a fresh filter every time the picker opens (the last one was for
   * another choice) */
  s->filter[0] = '\0';
  s->sel = s->top = 0;
  s->msg[0] = '\0';
  load(app);
}

/* Column widths for this terminal: NAME grows with the longest name shown
 * (from NAME_MIN) but leaves the module its room; fixed: the columns
 * before NAME. */
static int name_width(const struct tui_symlist *l, int fixed) {
  int longest = NAME_MIN;
  for (size_t k = 0; k < l->nrows; k++) {
    int w = tui_width(l->v[l->rows[k]].name);
    if (w > longest) longest = w;
  }
  int module_room = COLS >= 120 ? 24 : 16;
  int cap = COLS - fixed - 1 - module_room;
  if (longest > cap) longest = cap;
  return longest > 8 ? longest : 8;
}

/* The message lines: a message, the hot order's note, else the selected
 * symbol's name in full when its row cuts it. */
static enum tui_attr status_text(const struct tui_symscreen *s, int namew, char *buf, size_t cap) {
  const struct tui_symlist *l = &s->list;
  const char *note = s->msg[0] ? s->msg : l->sort == TUI_SSORT_HOT ? l->note : "";
  buf[0] = '\0';
  if (note[0]) {
    snprintf(buf, cap, "%s", note);
    return TUI_A_WARN;
  }
  if (s->sel < l->nrows) {
    const struct tui_sym *y = &l->v[l->rows[s->sel]];
    if (tui_width(y->name) > namew) snprintf(buf, cap, "%s [%s]", y->name, y->module);
  }
  return TUI_A_DIM;
}

static int fixed_cols(const struct tui_symlist *l) {
  return 2 + 18 + 1 + 7 + 1 + (l->sort == TUI_SSORT_HOT && l->hot_ranked ? 8 : 0);
}

static int list_rows(const struct tui_symscreen *s) {
  char text[1024];
  status_text(s, name_width(&s->list, fixed_cols(&s->list)), text, sizeof text);
  int st = tui_wrap_rows(text, COLS, STATUS_MAX_ROWS);
  int rows = LINES - LIST_TOP - 1 - (st > 0 ? st : 1);
  return rows > 0 ? rows : 1;
}

void tui_syms_draw(struct tui_app *app) {
  struct tui_symscreen *s = &app->syms;
  struct tui_symlist *l = &s->list;
  erase();
  char left[320], right[64], line[1024];
  snprintf(left, sizeof left,
           " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s: pick a function   order: %s",
           (int)app->pid, app->comm, app->pending.key, app->pending.title, tui_ssort_name(l->sort));
  snprintf(right, sizeof right, "%zu of %zu ", l->nrows, l->n);
  /* a narrow terminal: the order and the count move to the filter's line */
  int narrow = tui_width(left) + tui_width(right) + 2 > COLS;
  if (narrow) {
    snprintf(left, sizeof left,
             " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s: pick a function", (int)app->pid,
             app->comm, app->pending.key, app->pending.title);
    snprintf(right, sizeof right, "order: %s   %zu of %zu ", tui_ssort_name(l->sort), l->nrows,
             l->n);
  }
  tui_bar(0, left, narrow ? NULL : right);
  snprintf(line, sizeof line, " filter: %s_", s->filter);
  int fw = tui_put(1, 0, COLS, line, TUI_A_BOLD, 0);
  if (narrow && fw + tui_width(right) + 2 <= COLS)
    tui_put(1, COLS - tui_width(right), tui_width(right), right, TUI_A_DIM, 0);
  int hot = l->sort == TUI_SSORT_HOT && l->hot_ranked;
  int namew = name_width(l, fixed_cols(l));
  snprintf(line, sizeof line, "  %-18s %7s %s%-*s %s", "ADDRESS", "SIZE", hot ? "    HOT " : "",
           namew, "NAME", "MODULE");
  tui_put(2, 0, COLS, line, TUI_A_DIM, 0);
  int rows = list_rows(s);
  if (s->sel < s->top) s->top = s->sel;
  if (s->sel >= s->top + (size_t)rows) s->top = s->sel + 1 - (size_t)rows;
  for (int r = 0; r < rows && s->top + (size_t)r < l->nrows; r++) {
    size_t k = s->top + (size_t)r;
    const struct tui_sym *y = &l->v[l->rows[k]];
    char hc[16] = "", name[512];
    if (hot) snprintf(hc, sizeof hc, "%7" PRIu64 " ", y->hot);
    /* a name too long for its column ends at a word with '…' (in full below when selected) */
    int cut;
    size_t keep = tf_cut(y->name, namew, &cut);
    snprintf(name, sizeof name, "%.*s%s", (int)keep, y->name, cut ? TF_ELLIPSIS : "");
    int pad = namew - tui_width(name);
    /* the module takes what is left: a long one ends in '…' inside its brackets */
    char mod[300];
    int room = COLS - fixed_cols(l) - namew - 1;
    size_t mkeep = tf_cut(y->module, room - 2, &cut);
    snprintf(mod, sizeof mod, "[%.*s%s]", (int)mkeep, y->module, cut ? TF_ELLIPSIS : "");
    snprintf(line, sizeof line, "  0x%016" PRIx64 " %7" PRIu64 " %s%s%*s %s", y->start, y->size, hc,
             name, pad > 0 ? pad : 0, "", mod);
    tui_put_cut(LIST_TOP + r, 0, COLS, line, k == s->sel ? TUI_A_SELECT : TUI_A_NORMAL,
                k == s->sel);
  }
  if (!l->nrows) tui_put(LIST_TOP, 2, COLS - 2, "(no function matches the filter)", TUI_A_DIM, 0);
  char text[1024];
  enum tui_attr a = status_text(s, namew, text, sizeof text);
  int st = tui_wrap_rows(text, COLS, STATUS_MAX_ROWS);
  if (st > 0) tui_wrap(LINES - 1 - st, 0, COLS, st, text, a);
  tui_keybar(LINES - 1, NULL,
             s->filter[0] ? "Enter trace it  type to filter  Tab order (address/hot edges/name)  "
                            "F3 reload  ESC clear filter"
                          : "Enter trace it  type to filter  Tab order (address/hot edges/name)  "
                            "F3 reload  ESC back");
}

struct tui_next tui_syms_key(struct tui_app *app, int ch) {
  struct tui_symscreen *s = &app->syms;
  struct tui_symlist *l = &s->list;
  int rows = list_rows(s);
  switch (ch) {
  case KEY_UP:
    if (s->sel) s->sel--;
    return tui_stay();
  case KEY_DOWN:
    if (s->sel + 1 < l->nrows) s->sel++;
    return tui_stay();
  case KEY_PPAGE: s->sel = s->sel > (size_t)rows ? s->sel - (size_t)rows : 0; return tui_stay();
  case KEY_NPAGE:
    s->sel =
        s->sel + (size_t)rows < l->nrows ? s->sel + (size_t)rows : (l->nrows ? l->nrows - 1 : 0);
    return tui_stay();
  case KEY_HOME: s->sel = 0; return tui_stay();
  case KEY_END: s->sel = l->nrows ? l->nrows - 1 : 0; return tui_stay();
  case '\n':
  case '\r':
  case KEY_ENTER:
    if (s->sel < l->nrows) {
      const struct tui_sym *y = &l->v[l->rows[s->sel]];
      /* the address names exactly this symbol (a name may exist in several
       * modules); an unsized one only by name */
      char spec[320];
      if (y->size)
        snprintf(spec, sizeof spec, "0x%" PRIx64, y->start);
      else
        snprintf(spec, sizeof spec, "%s", y->name);
      return tui_go_live(&app->pending, app->pid, spec, y->name);
    }
    return tui_stay();
  case '\t':
    l->sort = (enum tui_ssort)((l->sort + 1) % TUI_SSORT_COUNT);
    if (l->sort == TUI_SSORT_HOT) {
      tui_bar(LINES - 1, " sampling hot edges ...", NULL);
      refresh();
      tui_symlist_rank_hot(l, app->engine);
    }
    arrange_sel(s, 1);
    return tui_stay();
  case KEY_F(3): load(app); return tui_stay();
  case 3: return tui_go(TUI_SCR_QUIT);
  case 27:
    if (s->filter[0]) {
      s->filter[0] = '\0';
      arrange_sel(s, 1);
      return tui_stay();
    }
    return tui_go_modes(app->pid);
  case 'q':
  case 'b':
    if (!s->filter[0]) return tui_go_modes(app->pid);
    break;
  default: break;
  }
  if (tui_filter_key(s->filter, sizeof s->filter, ch)) arrange_sel(s, 1);
  return tui_stay();
}
