/* modes: the mode menu's data, without curses.
 *
 * One entry per view in the registry, built from the view's descriptor: its
 * tui entry (ABI 1.8) gives the menu key, the title, the screen layout it is
 * drawn with and whether it starts by picking a function; a view without one
 * is a feed with a host-assigned letter, titled by its description; a HIDDEN
 * view is left out. '8' (process details) is the TUI's own screen, not a
 * view. Availability comes from the same verdicts `asmspy --info` prints
 * (cli/procinfo.c: the view's and the backend's probe, the attach gates),
 * so the menu says why a mode cannot start here instead of starting it. */
#ifndef ASMSPY_TUI_MODES_H
#define ASMSPY_TUI_MODES_H

#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "asmspy-internal/app_api.h"
#include "tui/roles.h"

#define TUI_MAX_MODES 48

/* The TUI's own process-details screen ('8'): not a view, nothing attached. */
#define TUI_LAYOUT_INFO 0x100u
#define TUI_INFO_KEY '8'
/* The mode menu's module chooser (not a mode: never a host-assigned letter). */
#define TUI_MODULES_KEY 'm'

struct tui_mode {
  char key;        /* the view's '1'..'9', else 'a', 'c', 'd', ... (host-assigned) */
  uint32_t layout; /* enum asmspy_tui_layout, or TUI_LAYOUT_INFO */
  char title[64];
  char mode[32];    /* the headless mode: "log", "trace", ... */
  int pick_symbol;  /* ASMSPY_TUIF_PICK_SYMBOL: trace one chosen function */
  int pick_data;    /* ASMSPY_TUIF_PICK_DATA: watch one chosen address (watch_prompt.c) */
  int extra;        /* the key was assigned by the host (the view asked for none) */
  int live;         /* a plugin's view drawn with one of the host's live layouts (CALLS: the
                      call log): runs until stopped like the built-in modes */
  int takes_module; /* a call mode: the view takes --module=<globs> (the module chooser's) */
  int available;    /* 0: reason says why it cannot start here */
  int maybe;        /* available, but a gate /proc cannot judge may refuse it */
  char backend[32];
  char rung[32]; /* a sampler backend's --sampler=<rung> (hot edges: the ladder's pick) */
  char reason[512];
  /* How it is drawn (tui/roles.h): the roles its records carry, the screen
   * they give, its sort keys (Tab), and whether its records are walked
   * step by step (ASMSPY_TUI_DATAFLOW_STEPS) */
  uint32_t roles;
  int screen; /* enum tui_screen_kind */
  char sort_keys[TUI_MAX_SORT_KEYS][32];
  int n_sort_keys;
  int walk;
  /* a table whose view has option_caps: the option Tab cycles (the view's first option_caps option)
   * and its values, "" when none */
  char cycle_option[32];
  char cycle_values[4][32];
  int n_cycle_values;
};

struct tui_modes {
  struct tui_mode v[TUI_MAX_MODES];
  size_t n;
};

/* Judge every mode for the process pi describes (procinfo_read with modes).
 * e: the registry (for the extra views). */
void tui_modes_judge(struct asmspy_engine *e, const struct procinfo *pi, struct tui_modes *out);
const struct tui_mode *tui_modes_by_key(const struct tui_modes *m, int key);
/* A drill-down's destination (ASMSPY_FIELDF_DRILL_*): the first table mode
 * that needs no pick, other than `not_mode` (DRILL_PID), or the last mode
 * that starts by picking a function (DRILL_ADDR / DRILL_FUNC). NULL: none. */
const struct tui_mode *tui_modes_drill_pid(const struct tui_modes *m, const char *not_mode);
const struct tui_mode *tui_modes_drill_func(const struct tui_modes *m);

#endif
