/* screen_modes: mode select for the chosen process. */
#define _GNU_SOURCE
#include "tui/app.h"
#include "tui/draw.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MODES_TOP 4

int tui_modes_enter(struct tui_app *app, pid_t pid) {
  if (app->have_pi) procinfo_free(&app->pi);
  app->have_pi = 0;
  app->msg[0] = '\0';
  tui_bar(LINES - 1, " reading the process and probing the backends ...", NULL);
  refresh();
  /* the same verdicts `asmspy --info` prints; symbols are not needed here */
  int err = procinfo_read(pid, app->engine, PROCINFO_NO_SYMBOLS, &app->pi);
  if (err) {
    procinfo_free(&app->pi);
    snprintf(app->msg, sizeof app->msg, "pid %d: %s", (int)pid,
             err == ESRCH || err == ENOENT ? "no such process (it exited)" : strerror(err));
    return -1; /* the router goes back to the process list, the message kept */
  }
  app->have_pi = 1;
  /* A new target (picked from the process list, or another pid) starts in
   * the topology's safe default count (syscalls): a Tab to `calls`, which
   * single-steps the whole tree, is a choice about one target, never
   * carried over to the next. 'b' from a live view keeps it. */
  if (pid != app->pid || app->screen == TUI_SCR_PROCS) app->cycle_index = 0;
  /* the module choice is about one target's mappings */
  if (pid != app->pid || app->screen == TUI_SCR_PROCS) app->modules[0] = '\0';
  app->pid = pid;
  snprintf(app->comm, sizeof app->comm, "%s", app->pi.b.comm);
  tui_modes_judge(app->engine, &app->pi, &app->modes);
  if (app->mode_sel >= app->modes.n) app->mode_sel = 0;
  return 0;
}

/* Where starting m leads: its picker first, else its live view. */
static struct tui_next start_mode(struct tui_app *app, const struct tui_mode *m) {
  app->msg[0] = '\0';
  if (!m->available) {
    snprintf(app->msg, sizeof app->msg, "%c %s cannot start here: %s", m->key, m->title, m->reason);
    return tui_stay();
  }
  if (m->pick_symbol) return tui_go_pick(TUI_SCR_SYMS, m);
  if (m->pick_data) return tui_go_pick(TUI_SCR_WATCH, m);
  return tui_go_live(m, app->pid, NULL, NULL);
}

void tui_modes_draw(struct tui_app *app) {
  const struct procinfo *pi = &app->pi;
  erase();
  char left[256], right[96], line[1024];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pid %d %s   [%s]", (int)app->pid, pi->b.comm,
           pi->runtime[0] ? pi->runtime : "?");
  snprintf(right, sizeof right, "%d thread%s ", pi->b.threads, pi->b.threads == 1 ? "" : "s");
  tui_bar(0, left, right);
  char cmd[512] = "";
  for (size_t i = 0, k = 0; pi->argv && i < pi->argv_len && k + 1 < sizeof cmd; i++)
    cmd[k++] = pi->argv[i] ? pi->argv[i] : ' ', cmd[k] = '\0';
  snprintf(line, sizeof line, "  %.900s", cmd[0] ? cmd : pi->exe);
  tui_put_cut(1, 0, COLS, line, TUI_A_DIM, 0);
  snprintf(line, sizeof line, "  attach %s \xe2\x80\x94 %s",
           procinfo_verdict_name(pi->attach.verdict), pi->attach.reason);
  tui_put_cut(2, 0, COLS, line,
              pi->attach.verdict == PROCINFO_ATTACH_NO      ? TUI_A_BAD
              : pi->attach.verdict == PROCINFO_ATTACH_MAYBE ? TUI_A_WARN
                                                            : TUI_A_GOOD,
              0);
  int y = MODES_TOP;
  char full[700] = ""; /* the selected row's state when the row cuts it */
  enum tui_attr full_a = TUI_A_NORMAL;
  for (size_t i = 0; i < app->modes.n && y < LINES - 4; i++, y++) {
    const struct tui_mode *m = &app->modes.v[i];
    if (m->extra && (i == 0 || !app->modes.v[i - 1].extra)) {
      tui_put(y++, 2, COLS - 2, "views from plugins:", TUI_A_DIM, 0);
      if (y >= LINES - 4) break;
    }
    char state[640];
    if (!m->available)
      snprintf(state, sizeof state, "unavailable: %s", m->reason);
    else if (m->maybe)
      snprintf(state, sizeof state, "maybe: %s", m->reason);
    else if (m->takes_module && app->modules[0])
      snprintf(state, sizeof state, "ready (+%s)", app->modules);
    else
      snprintf(state, sizeof state, "ready%s",
               m->pick_symbol ? " (pick a function)"
               : m->pick_data ? " (pick an address)"
                              : "");
    snprintf(line, sizeof line, " %c  %-28.28s %-9.9s %-11.11s ", m->key, m->title, m->mode,
             m->backend);
    int sel = i == app->mode_sel;
    int used = tui_put(y, 0, COLS, line, sel ? TUI_A_SELECT : TUI_A_NORMAL, 0);
    enum tui_attr sa = !m->available ? TUI_A_BAD : m->maybe ? TUI_A_WARN : TUI_A_GOOD;
    tui_put_cut(y, used, COLS - used, state, sel ? TUI_A_SELECT : sa, sel);
    if (sel && tui_width(state) > COLS - used)
      snprintf(full, sizeof full, "%c %s: %s", m->key, m->title, state), full_a = sa;
  }
  /* the message, else the selected row's reason in full, wrapped below the menu */
  const char *below = app->msg[0] ? app->msg : full;
  int room = LINES - 2 - y;
  if (below[0]) {
    int n = tui_wrap_rows(below, COLS - 2, room > 2 ? room : 2);
    tui_wrap(LINES - 1 - n, 1, COLS - 2, n, below, app->msg[0] ? TUI_A_WARN : full_a);
  }
  tui_keybar(LINES - 1, NULL,
             "1-9 a-z Enter start a mode  m modules (call modes)  \xe2\x86\x91\xe2\x86\x93  b q "
             "ESC process list");
}

struct tui_next tui_modes_key(struct tui_app *app, int ch) {
  switch (ch) {
  case KEY_UP:
    if (app->mode_sel) app->mode_sel--;
    app->msg[0] = '\0';
    return tui_stay();
  case KEY_DOWN:
    if (app->mode_sel + 1 < app->modes.n) app->mode_sel++;
    app->msg[0] = '\0';
    return tui_stay();
  case '\n':
  case '\r':
  case KEY_ENTER:
    return app->mode_sel < app->modes.n ? start_mode(app, &app->modes.v[app->mode_sel])
                                        : tui_stay();
  case 'q':
  case 'b':
  case 27: app->msg[0] = '\0'; return tui_go_procs(0);
  case 3: return tui_go(TUI_SCR_QUIT);
  case TUI_MODULES_KEY:
    for (size_t i = 0; i < app->modes.n; i++)
      if (app->modes.v[i].takes_module) return tui_go(TUI_SCR_MODULES);
    snprintf(app->msg, sizeof app->msg, "no call mode here takes --module");
    return tui_stay();
  default: break;
  }
  const struct tui_mode *m = ch > 0 && ch < 128 ? tui_modes_by_key(&app->modes, ch) : NULL;
  if (!m) return tui_stay();
  app->mode_sel = (size_t)(m - app->modes.v);
  return start_mode(app, m);
}
