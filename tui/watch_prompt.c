/* watch_prompt: the PICK_DATA modes' prompt screen (see watch_prompt.h). */
#define _GNU_SOURCE
#include "tui/watch_prompt.h"

#include "asmspy-internal/app_api.h"
#include "tui/app.h"
#include "tui/draw.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LIST_TOP 4

void tui_watch_enter(struct tui_app *app, const struct tui_mode *m) {
  struct tui_watchprompt *w = &app->watch;
  if (w->list.pid != app->pid || !w->list.rows) {
    tui_bar(LINES - 1, " loading data symbols ...", NULL);
    refresh();
    int err = tui_datalist_load(&w->list, app->pid);
    w->input[0] = '\0';
    snprintf(w->msg, sizeof w->msg, "%s", err ? strerror(err) : "");
    if (err)
      snprintf(w->msg, sizeof w->msg, "pid %d: cannot read its data symbols: %s", (int)app->pid,
               strerror(err));
  } else {
    w->msg[0] = '\0';
  }
  w->mode = *m;
  w->step = TUI_WSTEP_ADDR;
  w->sel = w->top = 0;
  tui_datalist_filter(&w->list, w->input);
  app->msg[0] = '\0';
}

/* The width --watch would pick: the widest of 8/4/2/1 that fits the symbol
 * (4 for a raw address) and to which addr is aligned. */
static unsigned default_len(uint64_t addr, uint64_t size) {
  uint64_t cap = size ? size : 4;
  for (unsigned l = 8; l > 1; l /= 2)
    if (l <= cap && addr % l == 0) return l;
  return 1;
}

static const char *spec_of(const struct tui_watchprompt *w) {
  if (w->input[0]) return w->input;
  return w->sel < w->list.nrows ? w->list.v[w->list.rows[w->sel]].name : "";
}

/* Step 1 -> 2: the address, resolved the way --watch resolves it. */
static void accept_addr(struct tui_app *app) {
  struct tui_watchprompt *w = &app->watch;
  char spec[256];
  snprintf(spec, sizeof spec, "%s", spec_of(w));
  int err = 0;
  struct asmspy_target *t = target_open(app->pid, &err);
  if (!t) {
    snprintf(w->msg, sizeof w->msg, "pid %d: %s", (int)app->pid, strerror(err));
    return;
  }
  char why[256];
  int rc = target_resolve_data(t, spec, &w->addr, &w->size, why, sizeof why);
  target_close(t);
  if (rc) {
    snprintf(w->msg, sizeof w->msg, "%s", why);
    return;
  }
  snprintf(w->input, sizeof w->input, "%s", spec);
  w->msg[0] = '\0';
  w->step = TUI_WSTEP_LEN;
}

/* Step 2 -> 3: a width the address is aligned to, inside the symbol. */
static void accept_len(struct tui_watchprompt *w, unsigned len) {
  if (w->addr % len) {
    snprintf(w->msg, sizeof w->msg,
             "0x%" PRIx64 " is not %u-byte aligned: a hardware watchpoint covers an aligned "
             "1/2/4/8 bytes; pick a smaller width",
             w->addr, len);
    return;
  }
  if (w->size && len > w->size) {
    snprintf(w->msg, sizeof w->msg, "%u bytes run past the symbol (%" PRIu64 " bytes left)", len,
             w->size);
    return;
  }
  w->len = len;
  w->msg[0] = '\0';
  w->step = TUI_WSTEP_ACCESS;
}

/* Step 3: the mode's live view, with --len= (and --rw). */
static struct tui_next start(struct tui_app *app, int rw) {
  struct tui_watchprompt *w = &app->watch;
  char len[16];
  snprintf(len, sizeof len, "--len=%u", w->len);
  const char *args[3] = {w->input, len, "--rw"};
  char title[300];
  snprintf(title, sizeof title, "%s (%u byte%s, %s)", w->input, w->len, w->len == 1 ? "" : "s",
           rw ? "reads and writes" : "writes");
  return tui_go_live_args(&w->mode, app->pid, rw ? 3 : 2, args, title);
}

void tui_watch_draw(struct tui_app *app) {
  struct tui_watchprompt *w = &app->watch;
  erase();
  char left[320], right[64], line[600];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s: what to watch",
           (int)app->pid, app->comm, w->mode.key, w->mode.title);
  snprintf(right, sizeof right, "step %d of 3 ", (int)w->step + 1);
  tui_bar(0, left, right);
  if (w->step == TUI_WSTEP_ADDR) {
    snprintf(line, sizeof line, " address: %s_", w->input);
    tui_put(1, 0, COLS, line, TUI_A_BOLD, 0);
    tui_put(2, 0, COLS, "  a data symbol, sym+off or 0xADDR; the target's data symbols:", TUI_A_DIM,
            0);
    snprintf(line, sizeof line, "  %-18s %7s %-32s %s", "ADDRESS", "SIZE", "NAME", "MODULE");
    tui_put(3, 0, COLS, line, TUI_A_DIM, 0);
    int rows = LINES - LIST_TOP - 2;
    if (rows < 1) rows = 1;
    if (w->sel < w->top) w->top = w->sel;
    if (w->sel >= w->top + (size_t)rows) w->top = w->sel + 1 - (size_t)rows;
    for (int r = 0; r < rows && w->top + (size_t)r < w->list.nrows; r++) {
      size_t k = w->top + (size_t)r;
      const struct tui_datasym *d = &w->list.v[w->list.rows[k]];
      snprintf(line, sizeof line, "  0x%016" PRIx64 " %7" PRIu64 " %-32s [%s]", d->addr, d->size,
               d->name, d->module);
      tui_put(LIST_TOP + r, 0, COLS, line, k == w->sel ? TUI_A_SELECT : TUI_A_NORMAL, k == w->sel);
    }
    if (!w->list.nrows)
      tui_put(LIST_TOP, 2, COLS - 2,
              w->input[0] == '0' ? "(a raw address: Enter checks it is mapped)"
                                 : "(no data symbol matches)",
              TUI_A_DIM, 0);
  } else {
    snprintf(line, sizeof line, " watch %s = 0x%" PRIx64 "%s", w->input, w->addr,
             w->size ? "" : " (a raw address)");
    if (w->size)
      snprintf(line + strlen(line), sizeof line - strlen(line), " (%" PRIu64 " byte%s from there)",
               w->size, w->size == 1 ? "" : "s");
    tui_put(1, 0, COLS, line, TUI_A_BOLD, 0);
    if (w->step == TUI_WSTEP_LEN) {
      snprintf(line, sizeof line, " width: 1  2  4  8 bytes   (Enter: %u, as --watch picks it)",
               default_len(w->addr, w->size));
      tui_put(3, 0, COLS, line, TUI_A_NORMAL, 0);
    } else {
      snprintf(line, sizeof line, " width: %u byte%s", w->len, w->len == 1 ? "" : "s");
      tui_put(3, 0, COLS, line, TUI_A_DIM, 0);
      tui_put(5, 0, COLS, " access: w  writes only (Enter)", TUI_A_NORMAL, 0);
      tui_put(6, 0, COLS, "         r  reads and writes (--rw)", TUI_A_NORMAL, 0);
    }
  }
  if (w->msg[0]) tui_put(LINES - 2, 0, COLS, w->msg, TUI_A_WARN, 0);
  const char *keys =
      w->step == TUI_WSTEP_ADDR
          ? " type to filter  Tab complete  \xe2\x86\x91\xe2\x86\x93 pick  Enter next  ESC back"
      : w->step == TUI_WSTEP_LEN ? " 1 2 4 8 or Enter: the width  ESC back"
                                 : " w or Enter: writes  r: reads too  ESC back";
  tui_bar(LINES - 1, keys, NULL);
}

static void refilter(struct tui_watchprompt *w) {
  tui_datalist_filter(&w->list, w->input);
  w->sel = w->top = 0;
}

struct tui_next tui_watch_key(struct tui_app *app, int ch) {
  struct tui_watchprompt *w = &app->watch;
  if (ch == 3) return tui_go(TUI_SCR_QUIT);
  if (ch == 27) { /* one step back */
    w->msg[0] = '\0';
    if (w->step == TUI_WSTEP_ADDR && w->input[0]) {
      w->input[0] = '\0';
      refilter(w);
    } else if (w->step == TUI_WSTEP_ADDR) {
      return tui_go_modes(app->pid);
    } else {
      w->step = w->step == TUI_WSTEP_ACCESS ? TUI_WSTEP_LEN : TUI_WSTEP_ADDR;
    }
    return tui_stay();
  }
  int enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
  if (w->step == TUI_WSTEP_LEN) {
    if (ch == '1' || ch == '2' || ch == '4' || ch == '8') accept_len(w, (unsigned)(ch - '0'));
    if (enter) accept_len(w, default_len(w->addr, w->size));
    return tui_stay();
  }
  if (w->step == TUI_WSTEP_ACCESS) {
    if (ch == 'w' || ch == 'W' || enter) return start(app, 0);
    if (ch == 'r' || ch == 'R') return start(app, 1);
    return tui_stay();
  }
  int rows = LINES - LIST_TOP - 2;
  switch (ch) {
  case KEY_UP:
    if (w->sel) w->sel--;
    return tui_stay();
  case KEY_DOWN:
    if (w->sel + 1 < w->list.nrows) w->sel++;
    return tui_stay();
  case KEY_PPAGE: w->sel = w->sel > (size_t)rows ? w->sel - (size_t)rows : 0; return tui_stay();
  case KEY_NPAGE:
    w->sel = w->sel + (size_t)rows < w->list.nrows ? w->sel + (size_t)rows
                                                   : (w->list.nrows ? w->list.nrows - 1 : 0);
    return tui_stay();
  case '\t': {
    char out[sizeof w->input];
    if (tui_datalist_complete(&w->list, w->input, w->sel, out, sizeof out)) {
      snprintf(w->input, sizeof w->input, "%s", out);
      refilter(w);
    }
    return tui_stay();
  }
  default: break;
  }
  if (enter) {
    if (spec_of(w)[0]) accept_addr(app);
    return tui_stay();
  }
  if (tui_filter_key(w->input, sizeof w->input, ch)) {
    w->msg[0] = '\0';
    refilter(w);
  }
  return tui_stay();
}
