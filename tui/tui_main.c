/* tui_main: the TUI's loop — terminal, registry, screens — and its one
 * screen router.
 *
 * A screen's key function returns a struct tui_next (app.h): stay, or a
 * screen to enter and what it needs (a pid, a mode, a function, the
 * watch's arguments). route() is the only place that enters a screen and
 * sets app->screen: leaving the live view (or restarting it) detaches its
 * session first; a mode menu whose process cannot be read sends the user
 * back to a re-scanned process list, the reason kept on its message line.
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

/* ------------------------------------------------------- where to go -- */

struct tui_next tui_stay(void) {
  struct tui_next n;
  memset(&n, 0, sizeof n);
  n.screen = TUI_SCR_STAY;
  return n;
}

struct tui_next tui_go(enum tui_screen screen) {
  struct tui_next n = tui_stay();
  n.screen = screen;
  return n;
}

struct tui_next tui_go_procs(int rescan) {
  struct tui_next n = tui_go(TUI_SCR_PROCS);
  n.rescan = rescan;
  return n;
}

struct tui_next tui_go_modes(pid_t pid) {
  struct tui_next n = tui_go(TUI_SCR_MODES);
  n.pid = pid;
  return n;
}

struct tui_next tui_go_pick(enum tui_screen screen, const struct tui_mode *m) {
  struct tui_next n = tui_go(screen);
  n.mode = *m;
  return n;
}

struct tui_next tui_go_live(const struct tui_mode *m, pid_t pid, const char *symbol,
                            const char *name) {
  struct tui_next n = tui_go_pick(TUI_SCR_LIVE, m);
  n.pid = pid;
  n.has_symbol = symbol != NULL;
  if (symbol) snprintf(n.symbol, sizeof n.symbol, "%s", symbol);
  if (name) snprintf(n.name, sizeof n.name, "%s", name);
  return n;
}

struct tui_next tui_go_live_args(const struct tui_mode *m, pid_t pid, int argc,
                                 const char *const *argv, const char *name) {
  struct tui_next n = tui_go_live(m, pid, NULL, name);
  for (int i = 0; i < argc && n.nargs < 3; i++)
    snprintf(n.args[n.nargs++], sizeof n.args[0], "%s", argv[i]);
  return n;
}

/* ------------------------------------------------------------ router -- */

/* Enter to.screen. 0, or -1 when it cannot be entered (app->msg says why). */
static int enter(struct tui_app *app, const struct tui_next *to) {
  switch (to->screen) {
  case TUI_SCR_PROCS: tui_procs_enter(app, to->rescan); return 0;
  case TUI_SCR_MODES: return tui_modes_enter(app, to->pid);
  case TUI_SCR_SYMS: tui_syms_enter(app, &to->mode); return 0;
  case TUI_SCR_WATCH: tui_watch_enter(app, &to->mode); return 0;
  case TUI_SCR_MODULES: tui_mods_enter(app); return 0;
  case TUI_SCR_LIVE: tui_live_enter(app, to); return 0; /* a failed start shows why in the view */
  default: return 0;                                    /* QUIT: the loop ends */
  }
}

/* The one place screens change. */
static void route(struct tui_app *app, struct tui_next to) {
  while (to.screen != TUI_SCR_STAY) {
    /* leaving the live view, or restarting it: detach first, so the next
     * session attaches cleanly and the target runs on untouched */
    if (app->screen == TUI_SCR_LIVE) tui_live_stop(app);
    char kept[sizeof app->msg];
    snprintf(kept, sizeof kept, "%s", app->msg);
    if (enter(app, &to) != 0) { /* the process went away: back to a fresh list, saying so */
      to = tui_go_procs(1);
      to.keep_msg = 1;
      continue;
    }
    if (to.keep_msg) snprintf(app->msg, sizeof app->msg, "%s", kept);
    app->screen = to.screen;
    app->redraw = 1;
    return;
  }
}

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

/* Where the key leads from the current screen. */
static struct tui_next key(struct tui_app *app, int ch) {
  if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS) /* only quitting works on a tiny terminal */
    return ch == 3 ? tui_go(TUI_SCR_QUIT) : tui_stay();
  switch (app->screen) {
  case TUI_SCR_PROCS: return tui_procs_key(app, ch);
  case TUI_SCR_MODES: return tui_modes_key(app, ch);
  case TUI_SCR_SYMS: return tui_syms_key(app, ch);
  case TUI_SCR_LIVE: return tui_live_key(app, ch);
  case TUI_SCR_WATCH: return tui_watch_key(app, ch);
  case TUI_SCR_MODULES: return tui_mods_key(app, ch);
  default: return tui_stay();
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
  route(app, tui_go_procs(1));
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
    route(app, key(app, ch));
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
