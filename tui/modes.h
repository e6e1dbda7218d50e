/* modes: the mode menu's data, without curses.
 *
 * The nine built-in modes as the seed numbers them, each mapped to the
 * headless mode (view plugin) that serves it, plus every other view the
 * registry holds (a third-party plugin becomes a mode with no TUI code of
 * its own). Availability comes from the same verdicts `asmspy --info` prints
 * (cli/procinfo.c judge_modes: the view's and the backend's probe, the
 * attach gates), so the menu says why a mode cannot start here instead of
 * starting it. */
#ifndef ASMSPY_TUI_MODES_H
#define ASMSPY_TUI_MODES_H

#include <asmspy/asmspy.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/procinfo.h"

#define TUI_MAX_MODES 48

enum tui_mode_kind {
  TUI_MODE_FEED = 0,   /* generic: feed, or the frame when the view snapshots */
  TUI_MODE_LOG,        /* 1: split feed, calls | carried strings */
  TUI_MODE_TRACE,      /* 2: two panes from the latest sample */
  TUI_MODE_STREAM,     /* 3 */
  TUI_MODE_GRAPH,      /* 4: frame, Tab toggles the sort */
  TUI_MODE_TREE,       /* 5: two panes, feed | disassembly of the selected call */
  TUI_MODE_PROCS,      /* 6: frame, Tab toggles the count, Enter drills in */
  TUI_MODE_SAMPLE,     /* 7 */
  TUI_MODE_INFO,       /* 8: no attach */
  TUI_MODE_DATAFLOW,   /* 9 */
};

struct tui_mode {
  char key; /* '1'..'9', then 'a', 'c', 'd', ... for extra views */
  enum tui_mode_kind kind;
  char title[64];
  char mode[32];   /* the headless mode: "log", "trace", ... */
  int pick_symbol; /* modes 2 and 9 trace one chosen function */
  int extra;       /* a registry view beyond the nine */
  int available;   /* 0: reason says why it cannot start here */
  int maybe;       /* available, but a gate /proc cannot judge may refuse it */
  char backend[32];
  char reason[512];
};

struct tui_modes {
  struct tui_mode v[TUI_MAX_MODES];
  size_t n;
};

/* Judge every mode for the process pi describes (procinfo_read with modes).
 * e: the registry (for the extra views). */
void tui_modes_judge(struct asmspy_engine *e, const struct procinfo *pi, struct tui_modes *out);
const struct tui_mode *tui_modes_by_key(const struct tui_modes *m, int key);

#endif
