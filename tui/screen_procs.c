/* screen_procs: the process picker (the first screen).
 *
 * The list refreshes itself every REFRESH_MS, as htop does: new processes
 * appear, exited ones go, CPU% is the share since the previous read. The
 * selection follows its pid (an exited one's place goes to the row that
 * took it); the filter, the scroll position and the tree view stay. */
#define _GNU_SOURCE
#include "tui/app.h"
#include "tui/draw.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#define LIST_TOP 3 /* bar, filter, column header */
#define REFRESH_MS 1500
#define STATUS_MAX_ROWS 3 /* the selected row's reason or command line, wrapped */

static pid_t selected_pid(const struct tui_app *app) {
  const struct tui_picker *p = &app->picker;
  return p->sel < p->list.nrows ? p->list.v[p->list.rows[p->sel]].b.pid : 0;
}

/* Select keep's row; when it is not shown, the row at index `fallback`
 * (clamped to the list). */
static void select_pid(struct tui_picker *p, pid_t keep, size_t fallback) {
  const struct tui_proclist *l = &p->list;
  p->sel = l->nrows ? (fallback < l->nrows ? fallback : l->nrows - 1) : 0;
  for (size_t i = 0; keep && i < l->nrows; i++)
    if (l->v[l->rows[i]].b.pid == keep) p->sel = i;
}

/* Re-arrange, keeping the selection on the same process when it is still
 * shown (else the first row). */
static void arrange(struct tui_app *app) {
  struct tui_picker *p = &app->picker;
  pid_t keep = selected_pid(app);
  tui_proclist_arrange(&p->list, p->filter);
  select_pid(p, keep, 0);
}

static void say_busy(const char *what) {
  tui_bar(LINES - 1, what, NULL);
  refresh();
}

/* Scan /proc and take the samples the current sort needs. */
static void rescan(struct tui_app *app) {
  struct tui_picker *p = &app->picker;
  if (tui_proclist_scan(&p->list) != 0) snprintf(app->msg, sizeof app->msg, "cannot read /proc");
  if (p->list.sort == TUI_PSORT_ACTIVE || p->list.sort == TUI_PSORT_SCAN) {
    say_busy(" sampling CPU time ...");
    tui_proclist_sample_active(&p->list, TUI_ACTIVE_WINDOW_MS);
  }
  if (p->list.sort == TUI_PSORT_SCAN) {
    say_busy(" scanning process memory for strings ...");
    tui_proclist_sample_strings(&p->list, 0);
  }
  p->scanned = 1;
  arrange(app);
}

int tui_procs_tick(struct tui_app *app) {
  struct tui_picker *p = &app->picker;
  if (!p->scanned || tui_proclist_age_ms(&p->list) < REFRESH_MS) return 0;
  /* the selected row's pid must be read before the list it points into is replaced */
  pid_t keep = selected_pid(app);
  if (tui_proclist_refresh(&p->list) != 0) return 0; /* /proc unreadable: keep what is shown */
  tui_proclist_arrange(&p->list, p->filter);
  select_pid(p, keep, p->sel); /* exited: the row that took its place */
  return 1;
}

void tui_procs_enter(struct tui_app *app, int do_rescan) {
  if (do_rescan || !app->picker.scanned) rescan(app);
}

static void sort_column(const struct tui_proclist *l, const struct tui_proc *p, char *buf,
                        size_t cap) {
  if (l->sort == TUI_PSORT_ACTIVE) {
    double pct = l->window_ms
                     ? 100.0 * (double)p->cpu_delta / (double)l->hz * 1000.0 / (double)l->window_ms
                     : 0.0;
    snprintf(buf, cap, "%6.1f ", pct);
  } else if (l->sort == TUI_PSORT_SCAN) {
    if (p->str >= 0)
      snprintf(buf, cap, "%6.1f ", p->str / 10.0);
    else
      snprintf(buf, cap, "%6s ", "-");
  } else {
    buf[0] = '\0';
  }
}

/* NAME column text: the tree connectors, then the name. A deep row drops its
 * outermost connector levels (3 columns each, shown as one '…') so the name
 * itself always fits. */
static void tree_name(const struct tui_proc *p, int tree, int width, char *buf, size_t cap) {
  const char *prefix = tree ? p->prefix : "";
  int cut = 0;
  while (tui_width(prefix) + (int)strnlen(p->b.comm, 16) + (cut ? 1 : 0) > width - 1 &&
         (strncmp(prefix, "\xe2\x94\x82  ", 5) == 0 || strncmp(prefix, "   ", 3) == 0)) {
    prefix += prefix[0] == ' ' ? 3 : 5;
    cut = 1;
  }
  snprintf(buf, cap, "%s%s%.16s", cut ? "\xe2\x80\xa6" : "", prefix, p->b.comm);
}

/* The message line: a message, else the selected process's reason it
 * cannot be traced, else its command line (shown in full, wrapped, since
 * the row itself may cut it). */
static enum tui_attr status_text(const struct tui_app *app, char *buf, size_t cap) {
  const struct tui_picker *p = &app->picker;
  const struct tui_proclist *l = &p->list;
  buf[0] = '\0';
  if (app->msg[0]) {
    snprintf(buf, cap, "%s", app->msg);
    return TUI_A_WARN;
  }
  if (p->sel >= l->nrows) return TUI_A_DIM;
  const struct tui_proc *pr = &l->v[l->rows[p->sel]];
  if (pr->a.verdict != PROCINFO_ATTACH_YES) {
    int no = pr->a.verdict == PROCINFO_ATTACH_NO;
    snprintf(buf, cap, "%s pid %d cannot be traced%s: %s", no ? "!" : "?", (int)pr->b.pid,
             no ? "" : " (maybe)", pr->a.reason);
    return no ? TUI_A_BAD : TUI_A_WARN;
  }
  snprintf(buf, cap, "pid %d: %s", (int)pr->b.pid, pr->cmdline);
  return TUI_A_DIM;
}

/* Rows the list gets: the screen less the bars and the message lines. */
static int list_rows(const struct tui_app *app) {
  char text[1400];
  status_text(app, text, sizeof text);
  int st = tui_wrap_rows(text, COLS, STATUS_MAX_ROWS);
  int rows = LINES - LIST_TOP - 1 - (st > 0 ? st : 1);
  return rows > 0 ? rows : 1;
}

void tui_procs_draw(struct tui_app *app) {
  struct tui_picker *p = &app->picker;
  struct tui_proclist *l = &p->list;
  erase();
  char left[256], right[64];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pick a process   sort: %s   %s",
           tui_psort_name(l->sort), l->tree ? "tree" : "list");
  snprintf(right, sizeof right, "%zu of %zu ", l->nrows, l->n);
  tui_bar(0, left, right);
  char line[1400];
  snprintf(line, sizeof line, " filter: %s_", p->filter);
  tui_put(1, 0, COLS, line, TUI_A_BOLD, 0);
  char scol[16] = "";
  if (l->sort != TUI_PSORT_PID)
    snprintf(scol, sizeof scol, "%6s ", l->sort == TUI_PSORT_ACTIVE ? "CPU%" : "STR");
  /* the tree's connectors need room; on a narrow terminal less, so the command shows */
  int namew = !l->tree ? 16 : COLS >= 100 ? 34 : 26;
  snprintf(line, sizeof line, "  %7s %-9s %s%-*s %s", "PID", "USER", scol, namew, "NAME",
           "COMMAND");
  tui_put(2, 0, COLS, line, TUI_A_DIM, 0);

  if (p->sel >= l->nrows) p->sel = l->nrows ? l->nrows - 1 : 0;
  int rows = list_rows(app);
  if (p->sel < p->top) p->top = p->sel;
  if (p->sel >= p->top + (size_t)rows) p->top = p->sel + 1 - (size_t)rows;
  for (int r = 0; r < rows && p->top + (size_t)r < l->nrows; r++) {
    size_t k = p->top + (size_t)r;
    const struct tui_proc *pr = &l->v[l->rows[k]];
    char sc[16], name[160];
    sort_column(l, pr, sc, sizeof sc);
    tree_name(pr, l->tree, namew, name, sizeof name);
    /* pad the name by display width (tree connectors are multi-byte) */
    int pad = namew - tui_width(name);
    snprintf(line, sizeof line, "  %7d %-9.9s %s%s%*s %s", (int)pr->b.pid, pr->b.user, sc, name,
             pad > 0 ? pad : 0, "", pr->cmdline);
    int y = LIST_TOP + r;
    int sel = k == p->sel;
    /* the command line is the last column: cut at a word, in full below when selected */
    tui_put_cut(y, 0, COLS, line, sel ? TUI_A_SELECT : TUI_A_NORMAL, sel);
    if (pr->a.verdict == PROCINFO_ATTACH_NO)
      tui_put(y, 0, 1, "!", TUI_A_BAD, 0);
    else if (pr->a.verdict == PROCINFO_ATTACH_MAYBE)
      tui_put(y, 0, 1, "?", TUI_A_WARN, 0);
  }
  if (!l->nrows) tui_put(LIST_TOP, 2, COLS - 2, "(no process matches the filter)", TUI_A_DIM, 0);

  char text[1400];
  enum tui_attr a = status_text(app, text, sizeof text);
  int st = tui_wrap_rows(text, COLS, STATUS_MAX_ROWS);
  if (st > 0) tui_wrap(LINES - 1 - st, 0, COLS, st, text, a);
  /* as htop: while a filter is typed, letters (q too) go into it and ESC
   * leaves it; q quits once the filter is empty */
  if (p->filter[0])
    tui_keybar(LINES - 1, NULL,
               "Enter select  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  type to filter  F2 tree  F3 "
               "rescan  ESC clear filter");
  else
    tui_keybar(LINES - 1, NULL,
               "Enter select  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  type to filter  Tab sort  F2 "
               "tree  F3 rescan  q quit");
}

struct tui_next tui_procs_key(struct tui_app *app, int ch) {
  struct tui_picker *p = &app->picker;
  struct tui_proclist *l = &p->list;
  int rows = list_rows(app);
  app->msg[0] = '\0';
  switch (ch) {
  case KEY_UP:
    if (p->sel) p->sel--;
    return tui_stay();
  case KEY_DOWN:
    if (p->sel + 1 < l->nrows) p->sel++;
    return tui_stay();
  case KEY_PPAGE: p->sel = p->sel > (size_t)rows ? p->sel - (size_t)rows : 0; return tui_stay();
  case KEY_NPAGE:
    p->sel =
        p->sel + (size_t)rows < l->nrows ? p->sel + (size_t)rows : (l->nrows ? l->nrows - 1 : 0);
    return tui_stay();
  case KEY_HOME: p->sel = 0; return tui_stay();
  case KEY_END: p->sel = l->nrows ? l->nrows - 1 : 0; return tui_stay();
  case '\n':
  case '\r':
  case KEY_ENTER: return p->sel < l->nrows ? tui_go_modes(l->v[l->rows[p->sel]].b.pid) : tui_stay();
  case '\t':
    if (p->filter[0]) {
      snprintf(app->msg, sizeof app->msg,
               "Tab changes the sort when the filter is empty (ESC clears it)");
      return tui_stay();
    }
    l->sort = (enum tui_psort)((l->sort + 1) % TUI_PSORT_COUNT);
    rescan(app);
    return tui_stay();
  case KEY_F(2):
    l->tree = !l->tree;
    arrange(app);
    return tui_stay();
  case KEY_F(3): rescan(app); return tui_stay();
  case 3: /* Ctrl-C */ return tui_go(TUI_SCR_QUIT);
  case 27: /* ESC */
    if (p->filter[0]) {
      p->filter[0] = '\0';
      arrange(app);
    }
    return tui_stay();
  case 'q':
    if (!p->filter[0]) return tui_go(TUI_SCR_QUIT);
    break;
  default: break;
  }
  if (tui_filter_key(p->filter, sizeof p->filter, ch)) {
    p->sel = 0;
    arrange(app);
    p->sel = 0;
  }
  return tui_stay();
}
