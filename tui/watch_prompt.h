/* watch_prompt: what a PICK_DATA mode (the data watchpoint, --watch) asks
 * before it starts, as a TUI screen of three steps:
 *   1. the address: a data symbol, sym+off or 0xADDR, typed with the
 *      target's data symbols listed below it, filtered as you type; Tab
 *      completes (the common prefix of the matches, else the selected
 *      row), Enter checks it with the host's resolve_data (the same rules
 *      as --watch) and moves on;
 *   2. the width: 1, 2, 4 or 8 bytes (Enter: the symbol's own, as --watch
 *      picks it), aligned to the address;
 *   3. the access: w writes only (Enter), r reads and writes (--rw).
 * Then the mode runs as `--watch <pid> <addr> --len=<n> [--rw]` until
 * stopped. ESC steps back one step (from the first: the mode menu). */
#ifndef ASMSPY_TUI_WATCH_PROMPT_H
#define ASMSPY_TUI_WATCH_PROMPT_H

#include <stdint.h>

#include "tui/data_list.h"
#include "tui/modes.h"

enum tui_wstep { TUI_WSTEP_ADDR = 0, TUI_WSTEP_LEN, TUI_WSTEP_ACCESS };

struct tui_watchprompt {
  struct tui_mode mode; /* the mode that asked */
  enum tui_wstep step;
  char input[256];
  size_t sel, top;
  struct tui_datalist list;
  uint64_t addr, size; /* the resolved address (step 1) */
  unsigned len;        /* step 2 */
  char msg[320];
};

#endif
