/* screen_mods: the module chooser ('m' on the mode menu).
 *
 * A call mode (one whose view takes --module: graph, tree, calls) patches
 * the main executable by default; on an interpreter the program runs in a
 * library and nothing shows. This screen lists the target's executable
 * file mappings; space picks one or more, Enter keeps the choice: every
 * call mode then starts with --module=<their basenames> until the target
 * changes. ESC leaves the choice as it was. */
#define _GNU_SOURCE
#include "tui/app.h"
#include "tui/draw.h"
#include "tui/text_fit.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LIST_TOP 3

void tui_mods_enter(struct tui_app *app) {
  struct tui_modscreen *s = &app->mods;
  int err = tui_modlist_load(&s->list, app->pid);
  app->msg[0] = '\0';
  if (err)
    snprintf(app->msg, sizeof app->msg, "pid %d: cannot read its maps: %s", (int)app->pid,
             strerror(-err));
  tui_modlist_pick(&s->list, app->modules);
  s->sel = s->top = 0;
}

static int list_rows(void) {
  int r = LINES - LIST_TOP - 3;
  return r > 0 ? r : 1;
}

void tui_mods_draw(struct tui_app *app) {
  struct tui_modscreen *s = &app->mods;
  const struct tui_modlist *l = &s->list;
  erase();
  char left[256], right[64], line[1200];
  snprintf(left, sizeof left,
           " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 modules for the call modes", (int)app->pid,
           app->comm);
  snprintf(right, sizeof right, "%zu modules ", l->n);
  tui_bar(0, left, right);
  char globs[512];
  tui_modlist_globs(l, globs, sizeof globs);
  snprintf(line, sizeof line, " --module=%s",
           globs[0] ? globs : "(none: the main executable only)");
  tui_put_cut(1, 0, COLS, line, TUI_A_BOLD, 0);
  snprintf(line, sizeof line, "  %-3s %-32s %9s  %s", "", "MODULE", "CODE", "PATH");
  tui_put(2, 0, COLS, line, TUI_A_DIM, 0);
  int rows = list_rows();
  if (s->sel < s->top) s->top = s->sel;
  if (s->sel >= s->top + (size_t)rows) s->top = s->sel + 1 - (size_t)rows;
  for (int r = 0; r < rows && s->top + (size_t)r < l->n; r++) {
    size_t k = s->top + (size_t)r;
    const struct tui_mod *m = &l->v[k];
    char name[160], size[32];
    tf_elide_left(m->base, 32, name, sizeof name);
    if (m->bytes >= 1u << 20)
      snprintf(size, sizeof size, "%.1f MB", (double)m->bytes / (1u << 20));
    else
      snprintf(size, sizeof size, "%" PRIu64 " KB", m->bytes >> 10);
    int pad = 32 - tui_width(name);
    snprintf(line, sizeof line, "  %s %s%*s %9s  %s%s",
             m->picked     ? "[x]"
             : m->main_exe ? "[=]"
                           : "[ ]",
             name, pad > 0 ? pad : 0, "", size, m->main_exe ? "(patched by default) " : "",
             m->path);
    tui_put_cut(LIST_TOP + r, 0, COLS, line, k == s->sel ? TUI_A_SELECT : TUI_A_NORMAL,
                k == s->sel);
  }
  if (!l->n) tui_put(LIST_TOP, 2, COLS - 2, "(no executable file mappings)", TUI_A_DIM, 0);
  if (app->msg[0])
    tui_put_cut(LINES - 2, 1, COLS - 2, app->msg, TUI_A_WARN, 0);
  else
    tui_put_cut(LINES - 2, 1, COLS - 2,
                "graph, tree and calls start with these modules patched too", TUI_A_DIM, 0);
  tui_keybar(LINES - 1, NULL,
             "space pick  Enter keep  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  c clear  ESC back");
}

struct tui_next tui_mods_key(struct tui_app *app, int ch) {
  struct tui_modscreen *s = &app->mods;
  struct tui_modlist *l = &s->list;
  size_t rows = (size_t)list_rows();
  switch (ch) {
  case KEY_UP:
    if (s->sel) s->sel--;
    return tui_stay();
  case KEY_DOWN:
    if (s->sel + 1 < l->n) s->sel++;
    return tui_stay();
  case KEY_PPAGE: s->sel = s->sel > rows ? s->sel - rows : 0; return tui_stay();
  case KEY_NPAGE:
    s->sel = s->sel + rows < l->n ? s->sel + rows : (l->n ? l->n - 1 : 0);
    return tui_stay();
  case KEY_HOME: s->sel = 0; return tui_stay();
  case KEY_END: s->sel = l->n ? l->n - 1 : 0; return tui_stay();
  case ' ':
    if (s->sel < l->n) {
      l->v[s->sel].picked = !l->v[s->sel].picked;
      if (s->sel + 1 < l->n) s->sel++;
    }
    return tui_stay();
  case 'c':
    for (size_t i = 0; i < l->n; i++) l->v[i].picked = 0;
    return tui_stay();
  case '\n':
  case '\r':
  case KEY_ENTER: {
    char globs[sizeof app->modules];
    tui_modlist_globs(l, globs, sizeof globs);
    snprintf(app->modules, sizeof app->modules, "%s", globs);
    return tui_go_modes(app->pid);
  }
  case 3: return tui_go(TUI_SCR_QUIT);
  case 27:
  case 'b':
  case 'q': return tui_go_modes(app->pid);
  default: return tui_stay();
  }
}
