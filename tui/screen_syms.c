/* screen_syms: the symbol picker (modes 2 and 9 trace one chosen function). */
#define _GNU_SOURCE
#include "tui/app.h"
#include "tui/draw.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LIST_TOP 3

static void arrange(struct tui_symscreen *s) {
  tui_symlist_arrange(&s->list, s->filter);
  if (s->sel >= s->list.nrows) s->sel = s->list.nrows ? s->list.nrows - 1 : 0;
}

static void load(struct tui_app *app) {
  struct tui_symscreen *s = &app->syms;
  tui_bar(LINES - 1, " loading symbols ...", NULL);
  refresh();
  int err = tui_symlist_load(&s->list, app->pid);
  if (err) snprintf(s->msg, sizeof s->msg, "pid %d: cannot load symbols: %s", (int)app->pid, strerror(err));
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
  if (s->list.pid != app->pid) {
    tui_symlist_free(&s->list);
    s->filter[0] = '\0';
    s->sel = s->top = 0;
  }
  s->msg[0] = '\0';
  load(app);
  app->screen = TUI_SCR_SYMS;
  app->redraw = 1;
}

void tui_syms_draw(struct tui_app *app) {
  struct tui_symscreen *s = &app->syms;
  struct tui_symlist *l = &s->list;
  erase();
  char left[320], right[64], line[1024];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s: pick a function   order: %s",
           (int)app->pid, app->comm, app->pending.key, app->pending.title, tui_ssort_name(l->sort));
  snprintf(right, sizeof right, "%zu of %zu ", l->nrows, l->n);
  tui_bar(0, left, right);
  snprintf(line, sizeof line, " filter: %s_", s->filter);
  tui_put(1, 0, COLS, line, TUI_A_BOLD, 0);
  int hot = l->sort == TUI_SSORT_HOT && l->hot_ranked;
  snprintf(line, sizeof line, "  %-18s %7s %s%-40s %s", "ADDRESS", "SIZE", hot ? "    HOT " : "", "NAME",
           "MODULE");
  tui_put(2, 0, COLS, line, TUI_A_DIM, 0);
  int rows = LINES - LIST_TOP - 2;
  if (rows < 1) rows = 1;
  if (s->sel < s->top) s->top = s->sel;
  if (s->sel >= s->top + (size_t)rows) s->top = s->sel + 1 - (size_t)rows;
  for (int r = 0; r < rows && s->top + (size_t)r < l->nrows; r++) {
    size_t k = s->top + (size_t)r;
    const struct tui_sym *y = &l->v[l->rows[k]];
    char hc[16] = "";
    if (hot) snprintf(hc, sizeof hc, "%7" PRIu64 " ", y->hot);
    snprintf(line, sizeof line, "  0x%016" PRIx64 " %7" PRIu64 " %s%-40s [%s]", y->start, y->size, hc,
             y->name, y->module);
    tui_put(LIST_TOP + r, 0, COLS, line, k == s->sel ? TUI_A_SELECT : TUI_A_NORMAL, k == s->sel);
  }
  if (!l->nrows) tui_put(LIST_TOP, 2, COLS - 2, "(no function matches the filter)", TUI_A_DIM, 0);
  const char *note = s->msg[0] ? s->msg : l->sort == TUI_SSORT_HOT ? l->note : "";
  if (note[0]) tui_put(LINES - 2, 0, COLS, note, TUI_A_WARN, 0);
  tui_bar(LINES - 1, " Enter trace it  type to filter  Tab order (address/hot edges/name)  F3 reload  ESC back",
          NULL);
}

void tui_syms_key(struct tui_app *app, int ch) {
  struct tui_symscreen *s = &app->syms;
  struct tui_symlist *l = &s->list;
  int rows = LINES - LIST_TOP - 2;
  if (rows < 1) rows = 1;
  switch (ch) {
  case KEY_UP: if (s->sel) s->sel--; return;
  case KEY_DOWN: if (s->sel + 1 < l->nrows) s->sel++; return;
  case KEY_PPAGE: s->sel = s->sel > (size_t)rows ? s->sel - (size_t)rows : 0; return;
  case KEY_NPAGE:
    s->sel = s->sel + (size_t)rows < l->nrows ? s->sel + (size_t)rows : (l->nrows ? l->nrows - 1 : 0);
    return;
  case KEY_HOME: s->sel = 0; return;
  case KEY_END: s->sel = l->nrows ? l->nrows - 1 : 0; return;
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
      tui_live_start(app, &app->pending, app->pid, spec, y->name);
    }
    return;
  case '\t':
    l->sort = (enum tui_ssort)((l->sort + 1) % TUI_SSORT_COUNT);
    if (l->sort == TUI_SSORT_HOT) {
      tui_bar(LINES - 1, " sampling hot edges ...", NULL);
      refresh();
      tui_symlist_rank_hot(l, app->engine);
    }
    arrange(s);
    s->sel = 0;
    return;
  case KEY_F(3): load(app); return;
  case 3: app->screen = TUI_SCR_QUIT; return;
  case 27:
    if (s->filter[0]) {
      s->filter[0] = '\0';
      arrange(s);
      return;
    }
    tui_modes_enter(app, app->pid);
    return;
  case 'q':
  case 'b':
    if (!s->filter[0]) {
      tui_modes_enter(app, app->pid);
      return;
    }
    break;
  default: break;
  }
  if (tui_filter_key(s->filter, sizeof s->filter, ch)) {
    arrange(s);
    s->sel = 0;
  }
}
