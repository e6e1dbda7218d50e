/* tui_main: the TUI's loop — terminal, registry, screens.
 *
 * One thread (this one) draws and reads keys; a live view's session runs on
 * its own tracer thread (session.c). The loop wakes every tick to drain the
 * captured stderr and to pick up new session output, redraws on change,
 * resize (KEY_RESIZE) or a key, and leaves through tui_live_stop (the
 * two-phase detach) and tui_term_close on every path: q, Ctrl-C, SIGINT,
 * SIGTERM, SIGHUP. */
#define _GNU_SOURCE
#include "tui/tui.h"

#include "tui/app.h"
#include "tui/disasm_ui.h"
#include "tui/draw.h"
#include "tui/term.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_MS 100

int tui_filter_key(char *filter, size_t cap, int ch) {
  size_t len = strlen(filter);
  if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
    if (!len) return 0;
    filter[len - 1] = '\0';
    return 1;
  }
  if (ch >= 0x20 && ch < 0x7f && len + 1 < cap) {
    filter[len] = (char)ch;
    filter[len + 1] = '\0';
    return 1;
  }
  return 0;
}

int tui_key_is_back(int ch) { return ch == 27; }

static void draw(struct tui_app *app) {
  if (!tui_check_size()) return;
  switch (app->screen) {
  case TUI_SCR_PROCS: tui_procs_draw(app); break;
  case TUI_SCR_MODES: tui_modes_draw(app); break;
  case TUI_SCR_SYMS: tui_syms_draw(app); break;
  case TUI_SCR_LIVE: tui_live_draw(app); break;
  case TUI_SCR_WATCH: tui_watch_draw(app); break;
  case TUI_SCR_MODULES: tui_mods_draw(app); break;
  default: break;
  }
  refresh();
}

static void key(struct tui_app *app, int ch) {
  if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS) { /* only quitting works on a tiny terminal */
    if (ch == 3) app->screen = TUI_SCR_QUIT;
    return;
  }
  switch (app->screen) {
  case TUI_SCR_PROCS: tui_procs_key(app, ch); break;
  case TUI_SCR_MODES: tui_modes_key(app, ch); break;
  case TUI_SCR_SYMS: tui_syms_key(app, ch); break;
  case TUI_SCR_LIVE: tui_live_key(app, ch); break;
  case TUI_SCR_WATCH: tui_watch_key(app, ch); break;
  case TUI_SCR_MODULES: tui_mods_key(app, ch); break;
  default: break;
  }
}

/* A line somebody wrote to stderr: into the live feed, or the message line. */
static void stderr_lines(struct tui_app *app) {
  char line[512];
  while (tui_term_stderr_line(line, sizeof line)) {
    snprintf(app->status, sizeof app->status, "%s", line);
    if (app->screen == TUI_SCR_LIVE && app->live.sess)
      tui_session_note(app->live.sess, "stderr", line);
    else
      snprintf(app->msg, sizeof app->msg, "%s", line);
    app->redraw = 1;
  }
}

int tui_main(void) {
  struct tui_app *app = calloc(1, sizeof *app);
  if (!app) return 1;
  if (tui_term_open() != 0) {
    free(app);
    return 1;
  }
  tui_bar(0, " asmspy \xe2\x80\x94 loading plugins ...", NULL);
  refresh();
  /* probes run lazily, each once, the first time a screen needs a verdict */
  app->engine = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!app->engine) {
    tui_term_close();
    fprintf(stderr, "asmspy: cannot open the plugin registry\n");
    free(app);
    return 1;
  }
  timeout(TICK_MS);
  tui_procs_enter(app, 1);
  app->redraw = 1;
  while (app->screen != TUI_SCR_QUIT && !tui_term_quit_requested()) {
    stderr_lines(app);
    if (app->screen == TUI_SCR_LIVE && tui_live_tick(app)) app->redraw = 1;
    if (app->screen == TUI_SCR_PROCS && tui_procs_tick(app)) app->redraw = 1;
    if (app->redraw) {
      draw(app);
      app->redraw = 0;
    }
    int ch = getch();
    if (ch == ERR) continue; /* the tick */
    app->redraw = 1;
    if (ch == KEY_RESIZE) continue;
    key(app, ch);
  }
  tui_live_stop(app); /* detach before the terminal goes: the target runs on */
  tui_term_close();
  tui_disasm_close();
  tui_symlist_free(&app->syms.list);
  tui_datalist_free(&app->watch.list);
  tui_modlist_free(&app->mods.list);
  tui_proclist_free(&app->picker.list);
  if (app->have_pi) procinfo_free(&app->pi);
  asmspy_engine_close(app->engine);
  free(app);
  return 0;
}
