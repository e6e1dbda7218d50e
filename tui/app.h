/* app: the TUI's state, shared by its screens (internal to tui/).
 *
 *   process picker  -> mode select -> [symbol picker] -> live view
 *        ^  q/ESC           ^ b            b ^  q/ESC -> picker
 * Each screen is a file (screen_*.c, watch_prompt.c) with enter / draw /
 * key functions. A key function returns where to go next (struct
 * tui_next: TUI_SCR_STAY, or a screen and what it needs); the router in
 * tui_main.c enters it. No screen enters another screen (nor restarts
 * itself) or writes app->screen: tests/tui/check_screen_router.py holds
 * them to that. Only the live view runs a session (the tracer thread);
 * every other screen reads /proc and ELF files only. */
#ifndef ASMSPY_TUI_APP_H
#define ASMSPY_TUI_APP_H

#include <asmspy/asmspy.h>
#include <stdint.h>
#include <sys/types.h>

#include "asmspy-internal/app_api.h"
#include "tui/modes.h"
#include "tui/mod_list.h"
#include "tui/proc_list.h"
#include "tui/records.h"
#include "tui/scroll.h"
#include "tui/session.h"
#include "tui/sym_list.h"
#include "tui/watch_prompt.h"

enum tui_screen {
  TUI_SCR_PROCS = 0,
  TUI_SCR_MODES,
  TUI_SCR_SYMS,
  TUI_SCR_LIVE,
  TUI_SCR_QUIT,
  TUI_SCR_WATCH,
  TUI_SCR_MODULES,
  TUI_SCR_STAY /* a key's answer only: the current screen stays */
};

/* Where a key leads: what the router (tui_main.c) enters. Built by the
 * tui_go_* functions below; everything is a copy (a live view's own mode
 * and strings are reset when the next one starts). */
struct tui_next {
  enum tui_screen screen; /* TUI_SCR_STAY: nothing to enter */
  int rescan;             /* PROCS: re-scan /proc on the way in */
  int keep_msg;           /* the message line set before the way in stays on the screen */
  pid_t pid;              /* MODES, LIVE: the process */
  struct tui_mode mode;   /* SYMS, WATCH, LIVE: the mode picked for, or started */
  int has_symbol;         /* LIVE: symbol is the region argument (a function-picking mode) */
  char symbol[320];
  char name[320]; /* LIVE: what the header names it by ("": the mode alone) */
  int nargs;      /* LIVE: the mode's arguments given whole (PICK_DATA) */
  char args[3][320];
};

#define TUI_FILTER_MAX 96
#define TUI_SNAPSHOT_MS 250      /* frame period of snapshot views */
#define TUI_ACTIVE_WINDOW_MS 300 /* the process picker's CPU sample */

struct tui_picker {
  struct tui_proclist list;
  char filter[TUI_FILTER_MAX];
  size_t sel, top;
  int scanned;
};

struct tui_symscreen {
  struct tui_symlist list;
  char filter[TUI_FILTER_MAX];
  size_t sel, top;
  char msg[256];
};

/* The module chooser: the target's executable file mappings. */
struct tui_modscreen {
  struct tui_modlist list;
  size_t sel, top;
};

struct tui_live {
  struct tui_mode mode; /* what runs */
  pid_t pid;
  char symbol[320];  /* modes 2 and 9: the region argument */
  char args[3][320]; /* PICK_DATA: the address, --len=, --rw */
  int nargs;
  char symbol_name[256];
  struct tui_session *sess;
  struct tui_model feed;      /* the session's feed (frozen while paused) */
  struct tui_model frame_raw; /* its last frame as the view rendered it */
  struct tui_model
      frame; /* what is drawn: frame_raw, its rows sorted (a table); frozen while paused */
  struct tui_model aux;  /* a second pane: the selected function disassembled, or a PANE field */
  struct tui_model left; /* PANE: the latest record without its PANE part */
  uint64_t gen_seen;
  struct tui_scroll sc[2];
  int focus;      /* which pane the keys move (Tab in two-pane views) */
  int sort_index; /* a table: 0 = the view's order, k = mode.sort_keys[k - 1] (Tab) */
  size_t *perm;   /* a table of array rows, sorted: displayed row k is element perm[k] */
  size_t nperm;
  int cycle_index;      /* a table with option_caps: which value of mode.cycle_option (Tab) */
  char cycle_arg[80];   /* "--<cycle_option>=<value>" handed to the view */
  uint64_t aux_addr;    /* the function in the right pane (DRILL_FUNC in a feed) */
  int hoff;             /* horizontal scroll: columns hidden at the left (0: lines fitted) */
  char module_arg[600]; /* "--module=<globs>" from the module chooser (call modes) */
  /* data flow: slice navigation over the def-use links of the selected step */
  int df_operand;     /* which read of the selected step */
  size_t df_back[64]; /* lines walked from (Backspace walks back) */
  int df_nback;
  int ended;
  int rc;
};

struct tui_app {
  struct asmspy_engine *engine;
  enum tui_screen screen;
  struct tui_picker picker;
  /* the chosen process */
  pid_t pid;
  char comm[32];
  struct procinfo pi;
  int have_pi;
  struct tui_modes modes;
  size_t mode_sel;
  struct tui_symscreen syms;
  struct tui_mode pending;      /* the mode the symbol picker picks for */
  struct tui_watchprompt watch; /* a PICK_DATA mode's prompt */
  struct tui_live live;
  int cycle_index;           /* a table mode's option value (kept across its restarts) */
  struct tui_modscreen mods; /* the module chooser ('m' on the mode menu) */
  char modules[512];         /* the chosen modules, comma-separated ("" = the backend's default);
                        a call mode starts with --module=<this> (reset for a new target) */
  char msg[640];             /* the current screen's message line (a reason, an error) */
  char status[600];          /* the last line anything wrote to stderr */
  int redraw;
};

/* tui_main.c: where a key leads (the router enters it) */
struct tui_next tui_stay(void);
struct tui_next tui_go(enum tui_screen screen); /* QUIT, MODULES: nothing more to say */
struct tui_next tui_go_procs(int rescan);
struct tui_next tui_go_modes(pid_t pid);
struct tui_next tui_go_pick(enum tui_screen screen, const struct tui_mode *m); /* SYMS, WATCH */
/* The live view of m on pid; symbol (NULL: none) is a function-picking
 * mode's region argument, name what the header names it by (NULL: none). */
struct tui_next tui_go_live(const struct tui_mode *m, pid_t pid, const char *symbol,
                            const char *name);
/* The same with the mode's arguments given whole (argv[0..argc), at most 3). */
struct tui_next tui_go_live_args(const struct tui_mode *m, pid_t pid, int argc,
                                 const char *const *argv, const char *name);

/* Each screen: enter (called by the router only; it does not set
 * app->screen), draw, and key (returns where the key leads). */
/* screen_procs.c */
void tui_procs_enter(struct tui_app *app, int rescan);
void tui_procs_draw(struct tui_app *app);
struct tui_next tui_procs_key(struct tui_app *app, int ch);
/* 1 when the list was refreshed (new/exited processes, CPU%): redraw */
int tui_procs_tick(struct tui_app *app);
/* screen_modes.c: -1 (app->msg says why) when the process cannot be read */
int tui_modes_enter(struct tui_app *app, pid_t pid);
void tui_modes_draw(struct tui_app *app);
struct tui_next tui_modes_key(struct tui_app *app, int ch);
/* screen_syms.c */
void tui_syms_enter(struct tui_app *app, const struct tui_mode *m);
void tui_syms_draw(struct tui_app *app);
struct tui_next tui_syms_key(struct tui_app *app, int ch);
/* watch_prompt.c: a PICK_DATA mode's address / width / access prompt */
void tui_watch_enter(struct tui_app *app, const struct tui_mode *m);
void tui_watch_draw(struct tui_app *app);
struct tui_next tui_watch_key(struct tui_app *app, int ch);
/* screen_mods.c: the module chooser for call modes */
void tui_mods_enter(struct tui_app *app);
void tui_mods_draw(struct tui_app *app);
struct tui_next tui_mods_key(struct tui_app *app, int ch);
/* screen_live.c: start to's mode (the previous session stopped first);
 * -1 (app->msg says why, the view shows it) when the session could not start */
int tui_live_enter(struct tui_app *app, const struct tui_next *to);
void tui_live_stop(struct tui_app *app); /* detach, free the session and models */
void tui_live_draw(struct tui_app *app);
struct tui_next tui_live_key(struct tui_app *app, int ch);
/* 1 when the live view has something new to draw (polled by the loop) */
int tui_live_tick(struct tui_app *app);

/* Filter editing shared by the pickers: 1 when ch changed the filter. */
int tui_filter_key(char *filter, size_t cap, int ch);
/* Keys every screen maps the same way. */
int tui_key_is_back(int ch); /* ESC */

#endif
