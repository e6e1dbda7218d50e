/* screen_live: the live view of a running session (and '8''s details).
 *
 * What is drawn is what the view emitted (tui/session.h): a feed, or for a
 * snapshot view its last complete frame. How is the view's choice, the
 * layout in its tui entry (ABI 1.8, enum asmspy_tui_layout); this file
 * knows layouts, never a view by name:
 *   FEED_CARRIED  each record's "carried" strings beside it (the syscall log);
 *   CALLS         a second pane disassembling the selected call's "addr";
 *   REGION        the latest record split into its assembly and its callees;
 *   RANKED        Tab re-sorts the frame's rows by fanout;
 *   TOPOLOGY      Tab cycles the option its option_caps names, Enter opens
 *                 the RANKED mode on the selected node;
 *   EDGES         Enter opens the DATAFLOW mode on the selected edge;
 *   DATAFLOW      walks a read to the step that defined it (dataflow_nav.c);
 *   FEED, SNAPSHOT and any layout this TUI does not know: drawn as emitted. */
#define _GNU_SOURCE
#include "common/strbuf.h"
#include "tui/app.h"
#include "tui/dataflow_nav.h"
#include "tui/disasm_ui.h"
#include "tui/draw.h"
#include "tui/text_fit.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_WINDOW_MS 600000 /* EDGES: one long window, redrawn as it fills */
#define HSCROLL_STEP 8  /* ←/→ (h/l): columns per key */
#define HSCROLL_MAX 4000

/* ------------------------------------------------------------- layout -- */

static int is_two_pane(const struct tui_live *lv) {
  return lv->mode.layout == ASMSPY_TUI_CALLS || (lv->mode.layout == ASMSPY_TUI_REGION && lv->left.nlines);
}

static int body_top(const struct tui_live *lv) { return is_two_pane(lv) ? 2 : 1; }
static int body_rows(const struct tui_live *lv) {
  int r = LINES - 1 - body_top(lv);
  return r > 0 ? r : 1;
}
static int left_width(const struct tui_live *lv) {
  return lv->mode.layout == ASMSPY_TUI_CALLS ? COLS * 55 / 100 : COLS * 60 / 100;
}

/* A live feed pane follows its newest line, except the data flow capture:
 * it reads top-down (its header, then step #0 onwards), so it opens at the
 * top and the walk keys move from there. */
static int follows_tail(const struct tui_live *lv, int pane, const struct tui_model *m) {
  return pane == 0 && m == &lv->feed && lv->mode.layout != ASMSPY_TUI_DATAFLOW;
}

static struct tui_model *pane_model(struct tui_live *lv, int pane) {
  if (pane == 1) return &lv->aux;
  switch (lv->mode.layout) {
  case ASMSPY_TUI_REGION: return lv->left.nlines ? &lv->left : &lv->feed;
  case ASMSPY_TUI_CALLS:
  case ASMSPY_TUI_FEED_CARRIED:
  case ASMSPY_TUI_FEED: return &lv->feed;
  default: return lv->frame.nlines ? &lv->frame : &lv->feed;
  }
}

/* ------------------------------------------------------ derived models -- */

static uint64_t key_value(const char *line, const char *key) {
  const char *p = strstr(line, key);
  return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Graph rows by fanout (Tab): the rows carrying "fanout=" are re-ordered in
 * place, everything else (the title) stays where it is. */
static void graph_by_fanout(struct tui_live *lv) {
  const struct tui_model *m = &lv->frame_raw;
  size_t n = m->nlines, k = 0;
  size_t *rows = malloc((n ? n : 1) * sizeof *rows);
  if (!rows) return;
  for (size_t i = 0; i < n; i++)
    if (strstr(tui_model_line(m, i), "fanout=")) rows[k++] = i;
  /* insertion sort: stable, and a graph is a few hundred rows */
  for (size_t i = 1; i < k; i++) {
    size_t v = rows[i], j = i;
    const char *a = tui_model_line(m, v);
    uint64_t fa = key_value(a, "fanout="), ca = key_value(a, "calls="), ia = key_value(a, "inv=");
    while (j > 0) {
      const char *b = tui_model_line(m, rows[j - 1]);
      uint64_t fb = key_value(b, "fanout="), cb = key_value(b, "calls="), ib = key_value(b, "inv=");
      if (fb > fa || (fb == fa && (cb > ca || (cb == ca && ib >= ia)))) break;
      rows[j] = rows[j - 1];
      j--;
    }
    rows[j] = v;
  }
  struct strbuf b = {0};
  for (size_t i = 0, r = 0; i < n; i++) {
    const char *line = strstr(tui_model_line(m, i), "fanout=") ? tui_model_line(m, rows[r++])
                                                                 : tui_model_line(m, i);
    const char *was = strstr(line, "sorted by invocations");
    if (was)
      strbuf_addf(&b, "%s%.*ssorted by fanout (Tab)%s", i ? "\n" : "", (int)(was - line), line,
                  was + strlen("sorted by invocations"));
    else
      strbuf_addf(&b, "%s%s", i ? "\n" : "", line);
  }
  free(rows);
  if (!b.oom && b.s) tui_model_from_text(&lv->frame, "ranked", b.s);
  free(b.s);
}

/* "Assembly & functions": the latest sample record split into its assembly
 * (left) and the functions it called (right). */
static void trace_split(struct tui_live *lv) {
  const struct tui_model *m = &lv->feed;
  const struct tui_rec *r = NULL;
  for (size_t k = m->nrecs; k-- > 0 && !r;)
    if (strcmp(m->recs[k]->type, "note") != 0) r = m->recs[k]; /* the view's, not a note */
  if (!r) return;
  struct strbuf l = {0}, c = {0};
  int right = 0;
  for (uint32_t i = 0; i < r->nlines; i++) {
    const char *line = r->lines[i];
    if (!line[0] && !l.len && !right) continue; /* the record's leading blank line */
    if (strncmp(line, "  functions called:", 19) == 0) right = 1;
    struct strbuf *b = right ? &c : &l;
    strbuf_addf(b, "%s%s", b->len ? "\n" : "", line);
  }
  if (l.s) tui_model_from_text(&lv->left, r->type, l.s);
  if (c.s) tui_model_from_text(&lv->aux, r->type, c.s);
  free(l.s);
  free(c.s);
}

static void refresh_models(struct tui_live *lv) {
  if (!lv->sess) return;
  lv->gen_seen = tui_session_generation(lv->sess);
  tui_session_feed(lv->sess, &lv->feed);
  struct tui_model fr = {0};
  tui_session_frame(lv->sess, &fr);
  if (fr.nlines) {
    tui_model_free(&lv->frame_raw);
    lv->frame_raw = fr;
  } else {
    tui_model_free(&fr);
  }
  if (lv->mode.layout == ASMSPY_TUI_RANKED && lv->graph_by_fanout && lv->frame_raw.nlines)
    graph_by_fanout(lv);
  else
    tui_model_copy(&lv->frame, &lv->frame_raw);
  if (lv->mode.layout == ASMSPY_TUI_REGION) trace_split(lv);
}

/* An address member (a HEX field) of the record on line i of m: 1 and *out
 * set when the record has it (and it is not 0). */
static int line_addr(const struct tui_model *m, size_t i, const char *key, uint64_t *out) {
  const struct asmspy_value *v = tui_rec_get(tui_model_rec(m, i), key);
  if (!v || v->state != ASMSPY_VALUE_SET) return 0;
  *out = v->u.u;
  return *out != 0;
}

/* The call tree's right pane: the selected call's function, read live. */
static void tree_disasm(struct tui_live *lv) {
  struct tui_model *m = &lv->feed;
  if (!m->nlines) return;
  uint64_t addr = 0;
  int ok = line_addr(m, lv->sc[0].cursor, "addr", &addr);
  if (!ok || addr == lv->aux_addr) return;
  lv->aux_addr = addr;
  char *text = tui_disasm_function(lv->pid, addr);
  if (text) tui_model_from_text(&lv->aux, "disasm", text);
  free(text);
  lv->sc[1].cursor = lv->sc[1].top = 0;
}

/* ------------------------------------------------------- start / stop -- */

void tui_live_stop(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  if (lv->sess) {
    tui_bar(LINES - 1, " detaching ...", NULL);
    refresh();
    tui_session_stop(lv->sess);
    tui_session_free(lv->sess);
    lv->sess = NULL;
  }
  tui_df_reset(lv);
  tui_model_free(&lv->feed);
  tui_model_free(&lv->frame_raw);
  tui_model_free(&lv->frame);
  tui_model_free(&lv->aux);
  tui_model_free(&lv->left);
}

/* Both starts: symbol (modes 2 and 9) or argv (PICK_DATA) become the
 * session's arguments. */
static int live_start(struct tui_app *app, const struct tui_mode *m, pid_t pid, const char *symbol,
                      const char *symbol_name, int argc, const char *const *argv) {
  tui_live_stop(app);
  struct tui_live *lv = &app->live;
  memset(lv, 0, sizeof *lv);
  lv->mode = *m;
  lv->pid = pid;
  if (symbol) snprintf(lv->symbol, sizeof lv->symbol, "%s", symbol);
  if (symbol_name) snprintf(lv->symbol_name, sizeof lv->symbol_name, "%s", symbol_name);
  for (int i = 0; i < argc && lv->nargs < 3; i++)
    snprintf(lv->args[lv->nargs++], sizeof lv->args[0], "%s", argv[i]);
  lv->sc[0].tail = m->layout != ASMSPY_TUI_DATAFLOW;
  lv->sc[0].select = m->layout == ASMSPY_TUI_CALLS || m->layout == ASMSPY_TUI_TOPOLOGY ||
                     m->layout == ASMSPY_TUI_EDGES || m->layout == ASMSPY_TUI_DATAFLOW;
  lv->cycle_index = app->cycle_index;
  app->msg[0] = '\0';
  app->screen = TUI_SCR_LIVE;
  app->redraw = 1;

  if (m->layout == TUI_LAYOUT_INFO) { /* nothing is attached: /proc and ELF files only */
    struct procinfo pi;
    int err = procinfo_read(pid, app->engine, 0, &pi);
    char *text = err ? NULL : procinfo_text(&pi);
    char fallback[128];
    snprintf(fallback, sizeof fallback, "pid %d: %s", (int)pid, strerror(err ? err : ENOMEM));
    tui_model_from_text(&lv->frame, "procinfo", text ? text : fallback);
    free(text);
    procinfo_free(&pi);
    lv->ended = 1;
    return 0;
  }

  struct tui_session_cfg cfg = {.mode = m->mode, .pid = pid, .max = -1,
                                .snapshot_ms = TUI_SNAPSHOT_MS};
  /* a plugin's feed runs to its own n; one drawn with a live layout (the
   * call log) is live like the built-in modes */
  if ((m->extra && !m->live) || m->layout == ASMSPY_TUI_DATAFLOW) cfg.max = 0;
  if (m->layout == ASMSPY_TUI_EDGES) cfg.max = SAMPLE_WINDOW_MS;
  if (m->pick_data) cfg.max = -1; /* a watch runs until stopped */
  if (symbol) cfg.argv[cfg.argc++] = symbol;
  for (int i = 0; i < lv->nargs; i++) cfg.argv[cfg.argc++] = lv->args[i];
  if (m->layout == ASMSPY_TUI_TOPOLOGY && m->n_cycle_values) {
    snprintf(lv->cycle_arg, sizeof lv->cycle_arg, "--%s=%s", m->cycle_option,
             m->cycle_values[lv->cycle_index % m->n_cycle_values]);
    cfg.argv[cfg.argc++] = lv->cycle_arg;
  }
  if (m->takes_module && app->modules[0]) { /* the module chooser's pick */
    snprintf(lv->module_arg, sizeof lv->module_arg, "--module=%s", app->modules);
    cfg.argv[cfg.argc++] = lv->module_arg;
  }
  char err[256];
  lv->sess = tui_session_start(app->engine, &cfg, err, sizeof err);
  if (!lv->sess) {
    snprintf(app->msg, sizeof app->msg, "%s", err);
    lv->ended = 1;
    return -1;
  }
  return 0;
}

int tui_live_start(struct tui_app *app, const struct tui_mode *m, pid_t pid, const char *symbol,
                   const char *symbol_name) {
  return live_start(app, m, pid, symbol, symbol_name, 0, NULL);
}

int tui_live_start_args(struct tui_app *app, const struct tui_mode *m, pid_t pid, int argc,
                        const char *const *argv, const char *name) {
  return live_start(app, m, pid, NULL, name, argc, argv);
}

int tui_live_tick(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  if (!lv->sess) return 0;
  int changed = 0, rc;
  if (!lv->ended && tui_session_done(lv->sess, &rc)) {
    lv->ended = 1;
    lv->rc = rc;
    changed = 1;
  }
  if (!lv->sc[0].paused && !lv->sc[1].paused &&
      tui_session_generation(lv->sess) != lv->gen_seen) {
    refresh_models(lv);
    changed = 1;
  }
  return changed;
}

/* ---------------------------------------------------------------- draw -- */

/* The strings a syscall carried, printable: \n, \t, \xNN for the rest. */
static void carried_text(const struct tui_rec *r, char *out, size_t cap) {
  const struct asmspy_value *arr = tui_rec_get(r, "carried");
  size_t k = 0;
  out[0] = '\0';
  size_t n = arr && arr->state == ASMSPY_VALUE_SET ? (size_t)arr->u.array.n : 0;
  for (size_t i = 0; i < n && k + 8 < cap; i++) {
    const struct asmspy_value *s = &arr->u.array.items[i];
    if (s->state != ASMSPY_VALUE_SET || !s->u.str.s) continue;
    if (i && k + 4 < cap) k += (size_t)snprintf(out + k, cap - k, "  \xc2\xa6 ");
    for (size_t j = 0; j < s->u.str.len && k + 6 < cap; j++) {
      unsigned char c = (unsigned char)s->u.str.s[j];
      if (c == '\n')
        k += (size_t)snprintf(out + k, cap - k, "\\n");
      else if (c == '\t')
        k += (size_t)snprintf(out + k, cap - k, "\\t");
      else if (c < 0x20 || c == 0x7f)
        k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
      else
        out[k++] = (char)c, out[k] = '\0';
    }
  }
}

/* ------------------------------------------------------ column priorities --
 * A line wider than its pane keeps the part that matters (at hoff 0; the
 * horizontal scroll shows the rest as emitted):
 *   a value change (a record with "old" and "new": a watch hit)  "old -> new"
 *     stays at the right, the instruction before it is cut;
 *   a syscall (a record with "ret")  ") = retval ..." stays at the right, the
 *     middle of the arguments becomes '…';
 *   an executed instruction (a record with "disasm" and "module": the
 *     stream)  its columns are rebuilt at their widths, always: a long
 *     symbol keeps its +0xoff, a long module its end, the disassembly stays
 *     where the column says;
 *   a row ending in a [module] column (the graph, the tree)  the module is
 *     elided from the left ("[…_layout]"), or dropped when under 6 columns
 *     are left; the counts before it stay (the name is cut first);
 *   anything else  cut at a word with '…' (tf_cut). */

#define STREAM_WHERE_COLS 20 /* the stream's columns: "{-20:where} {-24:[module]} " */
#define STREAM_MODULE_COLS 24
#define MODULE_MIN_COLS 6
#define MODULE_BUDGET_COLS 16 /* a row's module column is given this much first */

static const char *rfind(const char *hay, const char *needle) {
  const char *last = NULL;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) last = p;
  return last;
}

static int rec_has(const struct tui_rec *r, const char *name) {
  const struct asmspy_value *v = tui_rec_get(r, name);
  return v && v->state != ASMSPY_VALUE_ABSENT;
}

static const char *rec_str(const struct tui_rec *r, const char *name) {
  const struct asmspy_value *v = tui_rec_get(r, name);
  return v && v->state == ASMSPY_VALUE_SET ? v->u.str.s : NULL;
}

static void copy_out(char *out, size_t cap, const char *s) { snprintf(out, cap, "%s", s); }

/* "{-20:where} {-24:[module]} disasm" with each column held to its width.
 * The columns are taken from the line itself (the host escaped what a
 * hostile name holds), found by the record's module. */
static int insn_columns(const struct tui_rec *r, const char *line, char *out, size_t cap) {
  const char *module = rec_str(r, "module"), *dis = rec_str(r, "disasm"), *sym = rec_str(r, "sym");
  if (!module || !dis) return 0;
  size_t pfx = 0; /* a "[tid] " prefix */
  if (line[0] == '[') {
    size_t d = 1;
    while (line[d] >= '0' && line[d] <= '9') d++;
    if (d > 1 && line[d] == ']' && line[d + 1] == ' ') pfx = d + 2;
  }
  char pat[300];
  snprintf(pat, sizeof pat, " [%s]", module);
  const char *mcol = line[pfx] ? strstr(line + pfx + 1, pat) : NULL;
  if (!mcol) return 0;
  size_t wlen = (size_t)(mcol - line) - pfx;
  while (wlen && line[pfx + wlen - 1] == ' ') wlen--;
  char where[1024], w[512], mod[600], m[512];
  snprintf(where, sizeof where, "%.*s", (int)wlen, line + pfx);
  const char *rest = mcol + strlen(pat);
  while (*rest == ' ') rest++;
  if (tf_width(where) <= STREAM_WHERE_COLS && tf_width(module) + 2 <= STREAM_MODULE_COLS) return 0;
  const char *plus = sym ? rfind(where, "+0x") : NULL;
  tf_keep_tail(where, plus ? (size_t)(plus - where) : strlen(where), STREAM_WHERE_COLS, w, sizeof w);
  tf_elide_left(module, STREAM_MODULE_COLS - 2, m, sizeof m);
  snprintf(mod, sizeof mod, "[%s]", m);
  int pw = STREAM_WHERE_COLS - tf_width(w), pm = STREAM_MODULE_COLS - tf_width(mod);
  snprintf(out, cap, "%.*s%s%*s %s%*s %s", (int)pfx, line, w, pw > 0 ? pw : 0, "", mod, pm > 0 ? pm : 0, "",
           rest);
  return 1;
}

/* A row ending in " [module]": the module gives way first. */
static int module_column(const char *line, int width, char *out, size_t cap) {
  size_t len = strlen(line);
  if (!len || line[len - 1] != ']') return 0;
  const char *open = rfind(line, " [");
  if (!open) return 0;
  size_t before = (size_t)(open - line);
  while (before && line[before - 1] == ' ') before--;
  char head[2048], inner[512], m[512];
  snprintf(head, sizeof head, "%.*s", (int)before, line);
  snprintf(inner, sizeof inner, "%.*s", (int)(len - (size_t)(open - line) - 3), open + 2);
  if (strchr(inner, ' ')) return 0; /* an operand ("[rip + 0x10]"), not a module */
  int gap = (int)((size_t)(open - line) - before) + 1; /* the spaces before '[' */
  /* the column where '[' is: the same on every row of a table */
  int need = tf_width_n(line, (size_t)(open - line) + 1) + MODULE_BUDGET_COLS - width;
  /* the name column's padding (the run of spaces before "inv=") gives
   * columns first: the same amount on every row keeps the counts aligned */
  char *counts = strstr(head, " inv=");
  if (need > 0 && counts) {
    char *run = counts;
    while (run > head && run[-1] == ' ') run--;
    int spare = (int)(counts - run) - 1; /* two spaces stay */
    int take = need < spare ? need : spare;
    if (take > 0) memmove(counts - take, counts, strlen(counts) + 1);
  }
  int room = width - tf_width(head) - gap;
  if (room < MODULE_MIN_COLS && gap > 2) { /* its padding goes first */
    gap = 2;
    room = width - tf_width(head) - gap;
  }
  if (room >= MODULE_MIN_COLS) {
    tf_elide_left(inner, room - 2, m, sizeof m);
    snprintf(out, cap, "%s%*s[%s]", head, gap, "", m);
    return 1;
  }
  /* no room for the module: drop it; counts ("inv=", "calls=") stay, the name is cut */
  counts = strstr(head, "inv=");
  if (counts && tf_width(head) > width) {
    size_t t = (size_t)(counts - head);
    while (t && head[t - 1] == ' ') t--;
    if (t && head[t] == ' ') t++; /* one space stays before the counts */
    tf_keep_tail(head, t, width, out, cap);
  } else if (tf_width(head) > width) {
    int cut;
    size_t keep = tf_cut(head, width, &cut);
    snprintf(out, cap, "%.*s%s", (int)keep, head, cut ? TF_ELLIPSIS : "");
  } else {
    copy_out(out, cap, head);
  }
  return 1;
}

static void fit_line(const struct tui_model *m, size_t i, const char *line, int width, char *out,
                     size_t cap) {
  const struct tui_rec *r = tui_model_rec(m, i);
  if (r && m->lines[i].part == 0 && insn_columns(r, line, out, cap)) line = out;
  if (tf_width(line) <= width) {
    if (line != out) copy_out(out, cap, line);
    return;
  }
  char tmp[4096];
  copy_out(tmp, sizeof tmp, line);
  line = tmp;
  const char *tail = NULL;
  if (r && rec_has(r, "old") && rec_has(r, "new")) { /* a value change: from the old value on */
    const char *arrow = rfind(line, " -> ");
    if (arrow) {
      const char *t = arrow;
      while (t > line && t[-1] != ' ') t--; /* the old value */
      tail = t > line ? t - 1 : t;           /* and one space before it */
    }
  } else if (r && rec_has(r, "ret")) { /* a syscall: from its closing parenthesis on */
    tail = rfind(line, ") = ");
  }
  if (tail) {
    tf_keep_tail(line, (size_t)(tail - line), width, out, cap);
    return;
  }
  if (module_column(line, width, out, cap)) return;
  int cut;
  size_t keep = tf_cut(line, width, &cut);
  snprintf(out, cap, "%.*s%s", (int)keep, line, cut ? TF_ELLIPSIS : "");
}

/* FEED_CARRIED: the carried strings' pane, beside the calls: a share of a
 * wide terminal, none below 100 columns (the call and its result first). */
static int carried_split(int width) {
  if (width >= 120) return width * 7 / 10;
  if (width >= 100) return width * 3 / 4;
  return width;
}

static void draw_pane(struct tui_live *lv, int pane, int x, int width, int split_log) {
  struct tui_model *m = pane_model(lv, pane);
  struct tui_scroll *sc = &lv->sc[pane];
  int top = body_top(lv), rows = body_rows(lv);
  int lw = split_log ? carried_split(width) : width;
  int side = lw < width;
  for (int r = 0; r < rows; r++) {
    size_t i = sc->top + (size_t)r;
    const char *line = tui_model_line(m, i);
    if (!line) break;
    int sel = sc->select && i == sc->cursor;
    int tw = side ? lw - 1 : width;
    char fitted[4096];
    if (lv->hoff > 0)
      line = tf_skip_cols(line, lv->hoff);
    else {
      fit_line(m, i, line, tw, fitted, sizeof fitted);
      line = fitted;
    }
    tui_put(top + r, x, tw, line, sel ? TUI_A_SELECT : TUI_A_NORMAL, sel);
    if (!side) continue;
    tui_put(top + r, x + lw - 1, 1, "\xe2\x94\x82", TUI_A_DIM, 0);
    if (m->lines[i].part != 0) continue;
    char carried[1024];
    carried_text(tui_model_rec(m, i), carried, sizeof carried);
    tui_put(top + r, x + lw + 1, width - lw - 1, carried, TUI_A_GOOD, 0);
  }
}

static const char *keys_for(const struct tui_live *lv) {
  static char buf[160];
  switch (lv->mode.layout) {
  case ASMSPY_TUI_RANKED: return "Tab sort  space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b modes  q processes ";
  case ASMSPY_TUI_TOPOLOGY:
    if (!lv->mode.cycle_option[0])
      return "Enter graph of node  space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93  b modes  q processes ";
    snprintf(buf, sizeof buf, "Tab %s  Enter graph of node  space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93  b modes  q processes ", lv->mode.cycle_option);
    return buf;
  case ASMSPY_TUI_EDGES: return "Enter data flow  space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93  b modes  q processes ";
  case ASMSPY_TUI_CALLS:
  case ASMSPY_TUI_REGION: return "Tab pane  space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b modes  q processes ";
  case ASMSPY_TUI_DATAFLOW: return "\xe2\x86\x90\xe2\x86\x92 operand  Enter walk to its definition  space pause  h/l scroll  \xe2\x86\x91\xe2\x86\x93  b modes  q processes ";
  case TUI_LAYOUT_INFO: return "F3 re-read  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  b modes  q processes ";
  default: return "space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b modes  q processes ";
  }
}

void tui_live_draw(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  erase();
  /* fit every pane first: the tree's right pane follows the left's cursor */
  int two = is_two_pane(lv);
  for (int p = 0; p < (two ? 2 : 1); p++) {
    struct tui_model *m = pane_model(lv, p);
    if (!lv->sc[p].paused) lv->sc[p].tail = follows_tail(lv, p, m);
    tui_scroll_fit(&lv->sc[p], m->nlines, body_rows(lv));
  }
  if (lv->mode.layout == ASMSPY_TUI_CALLS) {
    tree_disasm(lv);
    tui_scroll_fit(&lv->sc[1], lv->aux.nlines, body_rows(lv));
  }

  char left[512], right[160];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s%s%s", (int)lv->pid,
           lv->pid == app->pid ? app->comm : "", lv->mode.key, lv->mode.title,
           lv->symbol_name[0] ? ": " : "", lv->symbol_name);
  if (lv->cycle_arg[0]) /* the option decides the backend (its option_caps) */
    snprintf(right, sizeof right, "%s %s ", lv->mode.mode, lv->cycle_arg);
  else if (lv->mode.rung[0]) /* a sampler: the rung the ladder picked (short: fits 80 columns) */
    snprintf(right, sizeof right, "%s (rung %s) ", lv->mode.backend, lv->mode.rung);
  else if (lv->module_arg[0]) /* the module chooser's pick, patched too */
    snprintf(right, sizeof right, "%s +%.60s via %s ", lv->mode.mode, lv->module_arg + strlen("--module="),
             lv->mode.backend);
  else
    snprintf(right, sizeof right, "%s via %s ", lv->mode.mode, lv->mode.backend);
  tui_bar(0, left, right);

  if (two) {
    int lw = left_width(lv);
    const char *lt = lv->mode.layout == ASMSPY_TUI_CALLS ? "calls (-> function [module], indented by depth)"
                                                    : "assembly (executions per instruction)";
    const char *rt = lv->mode.layout == ASMSPY_TUI_CALLS ? "selected function (read live)"
                                                    : "functions called";
    char t[256];
    snprintf(t, sizeof t, "%s%s", lv->focus == 0 ? "\xe2\x96\xb6 " : "  ", lt);
    tui_put_cut(1, 0, lw - 1, t, lv->focus == 0 ? TUI_A_BOLD : TUI_A_DIM, 0);
    snprintf(t, sizeof t, "%s%s", lv->focus == 1 ? "\xe2\x96\xb6 " : "  ", rt);
    tui_put_cut(1, lw + 1, COLS - lw - 1, t, lv->focus == 1 ? TUI_A_BOLD : TUI_A_DIM, 0);
    draw_pane(lv, 0, 0, lw - 1, 0);
    for (int r = 1; r < LINES - 1; r++) tui_put(r, lw - 1, 1, "\xe2\x94\x82", TUI_A_DIM, 0);
    draw_pane(lv, 1, lw + 1, COLS - lw - 1, 0);
  } else {
    draw_pane(lv, 0, 0, COLS, lv->mode.layout == ASMSPY_TUI_FEED_CARRIED);
    if (!pane_model(lv, 0)->nlines)
      tui_put(1, 1, COLS - 1,
              lv->ended ? "(nothing was captured)" : "(waiting for the first events ...)", TUI_A_DIM, 0);
  }

  /* status: pause state, session state, keys */
  int pane = two ? lv->focus : 0;
  char ps[64], st[700];
  tui_scroll_status(&lv->sc[pane], pane_model(lv, pane)->nlines, ps, sizeof ps);
  if (lv->hoff > 0) { /* the lines as emitted, from column hoff: say so */
    size_t k = strlen(ps);
    snprintf(ps + k, sizeof ps - k, "%s[col %d]", k ? " " : "[LIVE] ", lv->hoff + 1);
  }
  const char *state = lv->mode.layout == TUI_LAYOUT_INFO ? "snapshot (nothing attached)"
                      : !lv->ended                  ? "tracing"
                      : lv->rc == 0 || lv->rc == ASMSPY_FACT_EXITED ? "ended"
                      : lv->rc == ASMSPY_RUN_SKIPPED ? "skipped"
                                                     : asmspy_strerror(lv->rc);
  if (app->msg[0])
    snprintf(st, sizeof st, " %s", app->msg);
  else if (lv->mode.layout == TUI_LAYOUT_INFO)
    snprintf(st, sizeof st, " %s%s%s", ps, ps[0] ? " " : "", state);
  else if (lv->mode.layout == ASMSPY_TUI_DATAFLOW && ps[0]) {
    char nav[400];
    tui_df_status(lv, pane_model(lv, 0), nav, sizeof nav);
    snprintf(st, sizeof st, " %s %s", ps, nav[0] ? nav : state);
  } else
    snprintf(st, sizeof st, " %s %s", ps[0] ? ps : "[LIVE]", state);
  tui_keybar(LINES - 1, st, keys_for(lv));
}

/* ----------------------------------------------------------------- keys -- */

static enum tui_skey skey_of(int ch) {
  switch (ch) {
  case KEY_UP: return TUI_SK_UP;
  case KEY_DOWN: return TUI_SK_DOWN;
  case KEY_PPAGE: return TUI_SK_PGUP;
  case KEY_NPAGE: return TUI_SK_PGDN;
  case KEY_HOME: return TUI_SK_HOME;
  case KEY_END: return TUI_SK_END;
  case ' ': return TUI_SK_PAUSE;
  default: return TUI_SK_NONE;
  }
}

static void scroll_key(struct tui_live *lv, enum tui_skey k) {
  int two = is_two_pane(lv), pane = two ? lv->focus : 0, other = 1 - pane;
  struct tui_model *m = pane_model(lv, pane);
  enum tui_sresult r = tui_scroll_key(&lv->sc[pane], k, m->nlines, body_rows(lv));
  /* one pause for the whole view: both panes freeze and resume together */
  if (r == TUI_SR_PAUSED && two) {
    tui_scroll_fit(&lv->sc[other], pane_model(lv, other)->nlines, body_rows(lv));
    lv->sc[other].paused = 1;
  } else if (r == TUI_SR_RESUMED) {
    lv->sc[other].paused = 0;
    lv->sc[0].paused = lv->sc[1].paused = 0;
    refresh_models(lv);
  }
}

/* TOPOLOGY: Enter opens the RANKED mode (the call graph) of the selected
 * node's process (the topology session detaches first, so the graph
 * attaches cleanly). */
static void procs_drill(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  struct tui_model *m = pane_model(lv, 0);
  const struct asmspy_value *v = tui_rec_get(tui_model_rec(m, lv->sc[0].cursor), "tgid");
  int64_t tgid = v && v->state == ASMSPY_VALUE_SET ? v->u.i : 0;
  int ok = tgid > 0;
  const struct tui_mode *graph = tui_modes_by_layout(&app->modes, ASMSPY_TUI_RANKED);
  if (!ok) {
    snprintf(app->msg, sizeof app->msg, "select a node or thread row first (space pauses, arrows move)");
    return;
  }
  if (!graph || !graph->available) {
    snprintf(app->msg, sizeof app->msg, "the call graph cannot start here: %s", graph ? graph->reason : "?");
    return;
  }
  struct tui_mode g = *graph;
  tui_live_start(app, &g, (pid_t)tgid, NULL, NULL);
}

/* EDGES: Enter captures the DATAFLOW mode of the selected row's function:
 * an edge's (a sampled branch, or a call edge from sampled stacks) scoped to
 * where control went (to), else where it came from (from); a residency row
 * (a rung that saw only ips) to its site (ip) or its function (start). */
static void sample_drill(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  const struct tui_model *pm = pane_model(lv, 0);
  size_t at = lv->sc[0].cursor;
  uint64_t addr = 0, start = 0;
  const char *name = NULL;
  static const char *const keys[] = {"to", "from", "ip", "start"};
  int ok = 0;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !ok; k++)
    ok = line_addr(pm, at, keys[k], &addr) && tui_function_at(lv->pid, addr, &start, &name);
  const struct tui_mode *df = tui_modes_by_layout(&app->modes, ASMSPY_TUI_DATAFLOW);
  if (!ok) {
    snprintf(app->msg, sizeof app->msg, "select an edge (or a site) inside a sized function first");
    return;
  }
  if (!df || !df->available) {
    snprintf(app->msg, sizeof app->msg, "data flow cannot start here: %s", df ? df->reason : "?");
    return;
  }
  char spec[32], nm[256];
  snprintf(spec, sizeof spec, "0x%" PRIx64, start);
  snprintf(nm, sizeof nm, "%s", name);
  struct tui_mode d = *df;
  tui_live_start(app, &d, lv->pid, spec, nm);
}

void tui_live_key(struct tui_app *app, int ch) {
  struct tui_live *lv = &app->live;
  app->msg[0] = '\0';
  if (lv->mode.layout == ASMSPY_TUI_DATAFLOW && tui_df_key(lv, pane_model(lv, 0), ch)) return;
  switch (ch) {
  case 'b':
    tui_live_stop(app);
    tui_modes_enter(app, app->pid);
    return;
  case 'q':
  case 27:
    tui_live_stop(app);
    tui_procs_enter(app, 1);
    return;
  case 3: app->screen = TUI_SCR_QUIT; return;
  case '\t':
    if (is_two_pane(lv)) {
      lv->focus = !lv->focus;
    } else if (lv->mode.layout == ASMSPY_TUI_RANKED) {
      lv->graph_by_fanout = !lv->graph_by_fanout;
      if (lv->graph_by_fanout && lv->frame_raw.nlines)
        graph_by_fanout(lv);
      else
        tui_model_copy(&lv->frame, &lv->frame_raw);
    } else if (lv->mode.layout == ASMSPY_TUI_TOPOLOGY) {
      /* another value is another backend: a new session */
      app->cycle_index = lv->mode.n_cycle_values ? (app->cycle_index + 1) % lv->mode.n_cycle_values : 0;
      struct tui_mode m = lv->mode;
      tui_live_start(app, &m, lv->pid, NULL, NULL);
    }
    return;
  case '\n':
  case '\r':
  case KEY_ENTER:
    if (lv->mode.layout == ASMSPY_TUI_TOPOLOGY) procs_drill(app);
    if (lv->mode.layout == ASMSPY_TUI_EDGES) sample_drill(app);
    return;
  case KEY_F(3):
    if (lv->mode.layout == TUI_LAYOUT_INFO) {
      struct tui_mode m = lv->mode;
      tui_live_start(app, &m, lv->pid, NULL, NULL);
    }
    return;
  default: break;
  }
  if (ch == KEY_LEFT || ch == KEY_RIGHT || ch == 'h' || ch == 'l') { /* the horizontal window */
    int right = ch == KEY_RIGHT || ch == 'l';
    lv->hoff += right ? HSCROLL_STEP : -HSCROLL_STEP;
    if (lv->hoff < 0) lv->hoff = 0;
    if (lv->hoff > HSCROLL_MAX) lv->hoff = HSCROLL_MAX;
    return;
  }
  enum tui_skey k = skey_of(ch);
  if (k != TUI_SK_NONE) scroll_key(lv, k);
}
