/* screen_live: the live view of a running session (and '8''s details).
 *
 * What is drawn is what the view emitted (tui/session.h): a feed, or for a
 * snapshot view its last complete frame. How is decided by the roles of
 * the view's record fields (ABI 1.12, ASMSPY_FIELDF_SORT_KEY ..., read by
 * tui/roles.c; a view without roles by its layout), on one of three
 * generic screens; this file never names a view nor reads a view's text
 * for meaning:
 *   feed      the lines as they come; a CARRIED field's strings beside each
 *             line; a HIGHLIGHT field's rendering kept when a line is cut;
 *             records walked step by step (ASMSPY_TUI_DATAFLOW_STEPS:
 *             dataflow_nav.c);
 *   table     rows (records, or the elements of a record's ARRAY of
 *             objects) with a cursor: Tab cycles the SORT_KEY fields (or
 *             the option the view's option_caps names: a new session);
 *             Enter opens another mode on the selected row's DRILL_PID
 *             (a process) or DRILL_ADDR / DRILL_FUNC (a function);
 *   two panes a PANE field beside the rest of the latest record, or (a
 *             feed with a DRILL_FUNC field) the selected record's function
 *             disassembled live; Tab switches the pane that scrolls. */
#define _GNU_SOURCE
#include "common/strbuf.h"
#include "tui/app.h"
#include "tui/dataflow_nav.h"
#include "tui/disasm_ui.h"
#include "tui/draw.h"
#include "tui/roles.h"
#include "tui/text_fit.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EDGES_WINDOW_MS 600000 /* ASMSPY_TUI_EDGES: n is a window in ms: one long window */
#define HSCROLL_STEP 8         /* ←/→ (h/l): columns per key */
#define HSCROLL_MAX 4000

/* ------------------------------------------------------------- layout -- */

static int is_table(const struct tui_live *lv) { return lv->mode.screen == TUI_SCREEN_TABLE; }
/* two panes of a PANE field (else: the selected record's function) */
static int pane_field(const struct tui_live *lv) {
  return (lv->mode.roles & ASMSPY_FIELDF_PANE) != 0;
}
static int disasm_pane(const struct tui_live *lv) {
  return lv->mode.screen == TUI_SCREEN_TWO_PANE && !pane_field(lv);
}

static int is_two_pane(const struct tui_live *lv) {
  return disasm_pane(lv) || (lv->mode.screen == TUI_SCREEN_TWO_PANE && lv->left.nlines);
}

static int body_top(const struct tui_live *lv) { return is_two_pane(lv) ? 2 : 1; }
static int body_rows(const struct tui_live *lv) {
  int r = LINES - 1 - body_top(lv);
  return r > 0 ? r : 1;
}
static int left_width(const struct tui_live *lv) {
  return disasm_pane(lv) ? COLS * 55 / 100 : COLS * 60 / 100;
}

/* A live feed pane follows its newest line, except records walked step by
 * step: they read top-down (a header, then step #0 onwards), so they open
 * at the top and the walk keys move from there. */
static int follows_tail(const struct tui_live *lv, int pane, const struct tui_model *m) {
  return pane == 0 && m == &lv->feed && !lv->mode.walk;
}

static struct tui_model *pane_model(struct tui_live *lv, int pane) {
  if (pane == 1) return &lv->aux;
  if (lv->mode.screen == TUI_SCREEN_TWO_PANE)
    return pane_field(lv) && lv->left.nlines ? &lv->left : &lv->feed;
  return lv->frame.nlines ? &lv->frame : &lv->feed;
}

/* ------------------------------------------------------ derived models -- */

/* A row's sort key (largest first; a row without it sorts last). */
static int row_key(const struct tui_row *row, const char *key, int64_t *v) {
  return tui_row_i64(row, key, v);
}

static int before(int ha, int64_t a, int hb, int64_t b) { /* a sorts before b */
  if (ha != hb) return ha;
  return ha && a > b;
}

/* Stable insertion sort of idx[0..n) by keys (a table is a few hundred rows). */
static void sort_by(size_t *idx, size_t n, const int *have, const int64_t *keys) {
  for (size_t i = 1; i < n; i++) {
    size_t v = idx[i], j = i;
    while (j > 0 && before(have[v], keys[v], have[idx[j - 1]], keys[idx[j - 1]])) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = v;
  }
}

/* A record whose rows are the elements of an ARRAY (element k = text line
 * k + 1), with its rows in key order; *perm (owned) maps row -> element. */
static struct tui_rec *sorted_rec(struct tui_rec *r, const struct asmspy_field *arr,
                                  const char *key, size_t **perm, size_t *nperm) {
  struct tui_elems e;
  tui_elems_of(r, arr, &e);
  size_t n = e.n < (r->nlines ? r->nlines - 1 : 0) ? e.n : (r->nlines ? r->nlines - 1 : 0);
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  int *have = malloc((n ? n : 1) * sizeof *have);
  int64_t *keys = malloc((n ? n : 1) * sizeof *keys);
  struct tui_rec *out = NULL;
  if (idx && have && keys) {
    for (size_t k = 0; k < n; k++) {
      struct tui_row row = tui_elems_row(&e, r, k);
      idx[k] = k;
      have[k] = row_key(&row, key, &keys[k]);
    }
    sort_by(idx, n, have, keys);
    struct strbuf b = {0};
    for (uint32_t i = 0; i < r->nlines; i++) {
      const char *line = i >= 1 && i <= n ? r->lines[1 + idx[i - 1]] : r->lines[i];
      strbuf_addf(&b, "%s%s", i ? "\n" : "", line);
    }
    if (b.s && !b.oom) out = tui_rec_new(r->type, r->typed, b.s);
    free(b.s);
  }
  if (out && !*perm) {
    *perm = idx;
    *nperm = n;
    idx = NULL;
  }
  free(idx);
  free(have);
  free(keys);
  tui_elems_free(&e);
  return out;
}

/* A table sorted by mode.sort_keys[sort_index - 1] into lv->frame: runs of
 * row records of one type are re-ordered among themselves, a record with
 * array rows has its row lines re-ordered; everything else stays. */
static void sort_table(struct tui_live *lv, const struct tui_model *base) {
  const char *key = lv->mode.sort_keys[lv->sort_index - 1];
  free(lv->perm);
  lv->perm = NULL;
  lv->nperm = 0;
  size_t n = base->nrecs;
  struct tui_rec **recs = malloc((n ? n : 1) * sizeof *recs);
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  int *have = malloc((n ? n : 1) * sizeof *have);
  int64_t *keys = malloc((n ? n : 1) * sizeof *keys);
  struct tui_reclist out = {0};
  if (!recs || !idx || !have || !keys) goto done;
  for (size_t i = 0; i < n; i++) {
    struct tui_row row = tui_rec_row(base->recs[i]);
    recs[i] = base->recs[i];
    idx[i] = i;
    have[i] = tui_rec_is_row(recs[i]) && row_key(&row, key, &keys[i]);
  }
  for (size_t i = 0; i < n;) {
    if (!tui_rec_is_row(recs[i])) {
      i++;
      continue;
    }
    size_t j = i + 1;
    while (j < n && tui_rec_is_row(recs[j]) && recs[j]->typed->schema == recs[i]->typed->schema)
      j++;
    sort_by(idx + i, j - i, have, keys);
    i = j;
  }
  for (size_t i = 0; i < n; i++) {
    struct tui_rec *r = recs[idx[i]];
    const struct asmspy_field *arr = r->typed ? tui_row_array(r->typed->schema) : NULL;
    struct tui_rec *s = arr ? sorted_rec(r, arr, key, &lv->perm, &lv->nperm) : NULL;
    tui_reclist_push(&out, s ? s : r);
    tui_rec_unref(s);
  }
  tui_model_from(&lv->frame, &out);
done:
  tui_reclist_free(&out);
  free(recs);
  free(idx);
  free(have);
  free(keys);
}

/* Two panes of a PANE field: the latest record of the view, its text split
 * where the field's part begins (a heading line, then one line per element,
 * one line when empty: the role's contract). */
static void pane_split(struct tui_live *lv) {
  const struct tui_model *m = &lv->feed;
  const struct tui_rec *r = NULL;
  const struct asmspy_field *pf = NULL;
  for (size_t k = m->nrecs; k-- > 0 && !r;) {
    const struct tui_rec *c = m->recs[k];
    const struct asmspy_field *f =
        c->typed ? tui_field_with(c->typed->schema->fields, ASMSPY_FIELDF_PANE, NULL) : NULL;
    if (f) r = c, pf = f;
  }
  if (!r) return;
  struct tui_elems e;
  tui_elems_of(r, pf, &e);
  size_t tail = (e.n ? e.n : 1) + 1;
  tui_elems_free(&e);
  if (tail > r->nlines) return;
  size_t at = r->nlines - tail;
  struct strbuf l = {0}, c = {0};
  for (uint32_t i = 0; i < r->nlines; i++) {
    const char *line = r->lines[i];
    if (!line[0] && !l.len && i < at) continue; /* the record's leading blank lines */
    struct strbuf *b = i >= at ? &c : &l;
    strbuf_addf(b, "%s%s", b->len ? "\n" : "", line);
  }
  if (l.s) tui_model_from_text(&lv->left, r->type, l.s);
  if (c.s) tui_model_from_text(&lv->aux, r->type, c.s);
  free(l.s);
  free(c.s);
}

static void apply_sort(struct tui_live *lv) {
  const struct tui_model *base = lv->frame_raw.nlines ? &lv->frame_raw : &lv->feed;
  if (is_table(lv) && lv->sort_index > 0 && base->nlines)
    sort_table(lv, base);
  else
    tui_model_copy(&lv->frame, &lv->frame_raw);
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
  apply_sort(lv);
  if (lv->mode.screen == TUI_SCREEN_TWO_PANE && pane_field(lv)) pane_split(lv);
}

/* The first set, non-zero member of r with `role` (a function's address). */
static int rec_role_addr(const struct tui_rec *r, uint32_t role, uint64_t *out) {
  if (!r || !r->typed) return 0;
  struct tui_row row = tui_rec_row(r);
  size_t from = 0;
  for (const struct asmspy_field *f; (f = tui_field_with(row.fields, role, &from));)
    if (tui_row_u64(&row, f->name, out) && *out) return 1;
  return 0;
}

/* Two panes of a feed with a DRILL_FUNC field: the selected record's function, read live. */
static void func_disasm(struct tui_live *lv) {
  struct tui_model *m = &lv->feed;
  if (!m->nlines) return;
  uint64_t addr = 0;
  int ok = rec_role_addr(tui_model_rec(m, lv->sc[0].cursor), ASMSPY_FIELDF_DRILL_FUNC, &addr);
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
  free(lv->perm);
  lv->perm = NULL;
  lv->nperm = 0;
}

/* Both starts: symbol (a function-picking mode) or argv (PICK_DATA) become
 * the session's arguments. */
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
  lv->sc[0].tail = !m->walk;
  lv->sc[0].select = m->screen == TUI_SCREEN_TABLE || disasm_pane(lv) || m->walk;
  lv->cycle_index = app->cycle_index;
  app->msg[0] = '\0';

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

  struct tui_session_cfg cfg = {
      .mode = m->mode, .pid = pid, .max = -1, .snapshot_ms = TUI_SNAPSHOT_MS};
  /* a plugin's feed runs to its own n; one drawn with a live layout (the
   * call log) is live like the built-in modes */
  if ((m->extra && !m->live) || m->walk) cfg.max = 0;
  if (m->layout == ASMSPY_TUI_EDGES) cfg.max = EDGES_WINDOW_MS;
  if (m->pick_data) cfg.max = -1; /* a watch runs until stopped */
  if (symbol) cfg.argv[cfg.argc++] = symbol;
  for (int i = 0; i < lv->nargs; i++) cfg.argv[cfg.argc++] = lv->args[i];
  if (m->n_cycle_values) {
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

int tui_live_enter(struct tui_app *app, const struct tui_next *to) {
  const char *argv[3];
  int argc = 0;
  for (; argc < to->nargs && argc < 3; argc++) argv[argc] = to->args[argc];
  return live_start(app, &to->mode, to->pid, to->has_symbol ? to->symbol : NULL, to->name, argc,
                    argv);
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
  if (!lv->sc[0].paused && !lv->sc[1].paused && tui_session_generation(lv->sess) != lv->gen_seen) {
    refresh_models(lv);
    changed = 1;
  }
  return changed;
}

/* ---------------------------------------------------------------- draw -- */

/* The strings of a record's CARRIED field, printable: \n, \t, \xNN for the rest. */
static void carried_text(const struct tui_rec *r, char *out, size_t cap) {
  const struct asmspy_field *f =
      r && r->typed ? tui_field_with(r->typed->schema->fields, ASMSPY_FIELDF_CARRIED, NULL) : NULL;
  const struct asmspy_value *arr = f ? tui_rec_get(r, f->name) : NULL;
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
 *   a record with HIGHLIGHT fields  the line's tail from their rendering
 *     (with the short tokens joining it: ") = ", " -> ") stays at the
 *     right, the middle becomes '…';
 *   an executed instruction (a record with "disasm" and "module")  its
 *     columns are rebuilt at their widths, always: a long symbol keeps its
 *     +0xoff, a long module its end, the disassembly stays in its column;
 *   a row ending in a [module] column  the module is elided from the left
 *     ("[…_layout]"), or dropped when under 6 columns are left; the counts
 *     after the name column's padding stay (the name is cut first);
 *   anything else  cut at a word with '…' (tf_cut). */

static const char *rfind(const char *hay, const char *needle) {
  const char *last = NULL;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) last = p;
  return last;
}

static const char *rec_str(const struct tui_rec *r, const char *name) {
  const struct asmspy_value *v = tui_rec_get(r, name);
  return v && v->state == ASMSPY_VALUE_SET ? v->u.str.s : NULL;
}

static void copy_out(char *out, size_t cap, const char *s) { snprintf(out, cap, "%s", s); }

static int is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* The last whole-word occurrence of w in line (NULL: none). */
static const char *last_word(const char *line, const char *w) {
  size_t n = strlen(w);
  const char *last = NULL;
  if (!n) return NULL;
  for (const char *p = strstr(line, w); p; p = strstr(p + 1, w))
    if ((p == line || !is_alnum(p[-1])) && !is_alnum(p[n])) last = p;
  return last;
}

/* A short token that joins a value to the line: all punctuation ("=",
 * "->") or a number ("-1"). */
static int joiner(const char *s, size_t n) {
  if (!n || n > 4) return 0;
  int punct = 1, num = 1;
  for (size_t i = 0; i < n; i++) {
    if (is_alnum(s[i])) punct = 0;
    if (!((s[i] >= '0' && s[i] <= '9') || (i == 0 && s[i] == '-'))) num = 0;
  }
  return punct || num;
}

/* Where the tail a record's HIGHLIGHT fields keep starts in line (NULL:
 * none found): the earliest of their renderings, then left over up to two
 * joining tokens and the punctuation closing the token before them. */
static const char *highlight_tail(const struct tui_rec *r, const char *line) {
  if (!r || !r->typed) return NULL;
  struct tui_row row = tui_rec_row(r);
  const char *at = NULL;
  size_t from = 0;
  for (const struct asmspy_field *f;
       (f = tui_field_with(row.fields, ASMSPY_FIELDF_HIGHLIGHT, &from));) {
    const struct asmspy_value *v = tui_rec_get(r, f->name);
    if (!v || v->state != ASMSPY_VALUE_SET) continue;
    char a[80] = "", b[80] = "";
    if (f->type == ASMSPY_FIELD_INT) {
      snprintf(a, sizeof a, "%" PRId64, v->u.i);
      snprintf(b, sizeof b, "0x%" PRIx64, (uint64_t)v->u.i);
    } else if (f->type == ASMSPY_FIELD_HEX) {
      snprintf(a, sizeof a, "0x%" PRIx64, v->u.u);
    } else if ((f->type == ASMSPY_FIELD_STR || f->type == ASMSPY_FIELD_ENUM) && v->u.str.s) {
      snprintf(a, sizeof a, "%s", v->u.str.s);
    }
    const char *p = last_word(line, a);
    if (!p && b[0]) p = last_word(line, b);
    if (p && (!at || p < at)) at = p;
  }
  if (!at) return NULL;
  for (int k = 0; k < 2; k++) { /* the joining tokens before it */
    const char *e = at;
    while (e > line && e[-1] == ' ') e--;
    const char *s = e;
    while (s > line && s[-1] != ' ') s--;
    if (s == e || !joiner(s, (size_t)(e - s))) break;
    at = s;
  }
  const char *e = at; /* the punctuation closing the token before: "NULL)" */
  while (e > line && e[-1] == ' ') e--;
  const char *s = e;
  while (s > line && s[-1] != ' ' && !is_alnum(s[-1])) s--;
  if (s < e && s > line && s[-1] != ' ')
    at = s;
  else if (at > line && at[-1] == ' ')
    at--; /* and one space before it */
  return at;
}

#define INSN_WHERE_COLS 20 /* an executed instruction's columns: "{-20:where} {-24:[module]} " */
#define INSN_MODULE_COLS 24
#define MODULE_MIN_COLS 6
#define MODULE_BUDGET_COLS 16 /* a row's module column is given this much first */

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
  if (tf_width(where) <= INSN_WHERE_COLS && tf_width(module) + 2 <= INSN_MODULE_COLS) return 0;
  const char *plus = sym ? rfind(where, "+0x") : NULL;
  tf_keep_tail(where, plus ? (size_t)(plus - where) : strlen(where), INSN_WHERE_COLS, w, sizeof w);
  tf_elide_left(module, INSN_MODULE_COLS - 2, m, sizeof m);
  snprintf(mod, sizeof mod, "[%s]", m);
  int pw = INSN_WHERE_COLS - tf_width(w), pm = INSN_MODULE_COLS - tf_width(mod);
  snprintf(out, cap, "%.*s%s%*s %s%*s %s", (int)pfx, line, w, pw > 0 ? pw : 0, "", mod,
           pm > 0 ? pm : 0, "", rest);
  return 1;
}

/* The end of the widest run of 2+ spaces in s (a name column's padding:
 * what follows it are the counts), or NULL. */
static char *padding_end(char *s) {
  char *best = NULL;
  size_t bestn = 1;
  for (char *p = s; *p;) {
    if (*p != ' ') {
      p++;
      continue;
    }
    char *q = p;
    while (*q == ' ') q++;
    if ((size_t)(q - p) > bestn && *q) best = q, bestn = (size_t)(q - p);
    p = q;
  }
  return best;
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
  /* the name column's padding (the widest run of spaces before the counts)
   * gives columns first: the same amount on every row keeps them aligned */
  char *counts = padding_end(head);
  if (need > 0 && counts) {
    char *run = counts;
    while (run > head && run[-1] == ' ') run--;
    int spare = (int)(counts - run) - 2; /* two spaces stay */
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
  /* no room for the module: drop it; the counts stay, the name is cut */
  counts = padding_end(head);
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
  const char *tail = r && m->lines[i].part == 0 ? highlight_tail(r, line) : NULL;
  if (tail) {
    tf_keep_tail(line, (size_t)(tail - line), width, out, cap);
    return;
  }
  if (module_column(line, width, out, cap)) return;
  int cut;
  size_t keep = tf_cut(line, width, &cut);
  snprintf(out, cap, "%.*s%s", (int)keep, line, cut ? TF_ELLIPSIS : "");
}

/* CARRIED: the strings' pane, beside the lines: a share of a wide
 * terminal, none below 100 columns (the line and its result first). */
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

#define KEYS_TAIL                                                                                  \
  "space pause  \xe2\x86\x90\xe2\x86\x92 scroll  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn Home/End  b "  \
  "modes  q processes "

static const char *keys_for(const struct tui_live *lv) {
  static char buf[240];
  if (lv->mode.layout == TUI_LAYOUT_INFO)
    return "F3 re-read  \xe2\x86\x91\xe2\x86\x93 PgUp/PgDn  b modes  q processes ";
  if (lv->mode.walk)
    return "\xe2\x86\x90\xe2\x86\x92 operand  Enter walk to its definition  space pause  h/l "
           "scroll  \xe2\x86\x91\xe2\x86\x93  b modes  q processes ";
  if (is_two_pane(lv)) return "Tab pane  " KEYS_TAIL;
  if (!is_table(lv)) return KEYS_TAIL;
  char tab[64] = "", enter[32] = "";
  if (lv->mode.n_cycle_values)
    snprintf(tab, sizeof tab, "Tab %s  ", lv->mode.cycle_option);
  else if (lv->mode.n_sort_keys)
    snprintf(tab, sizeof tab, "Tab sort  ");
  if (lv->mode.roles &
      (ASMSPY_FIELDF_DRILL_PID | ASMSPY_FIELDF_DRILL_ADDR | ASMSPY_FIELDF_DRILL_FUNC))
    snprintf(enter, sizeof enter, "Enter open row  ");
  snprintf(buf, sizeof buf, "%s%s%s", tab, enter, KEYS_TAIL);
  return buf;
}

/* Step 1: fit every pane's scroll to its model first (a function pane
 * follows the left's cursor, so it is disassembled here). */
static void fit_panes(struct tui_live *lv, int two) {
  for (int p = 0; p < (two ? 2 : 1); p++) {
    struct tui_model *m = pane_model(lv, p);
    if (!lv->sc[p].paused) lv->sc[p].tail = follows_tail(lv, p, m);
    tui_scroll_fit(&lv->sc[p], m->nlines, body_rows(lv));
  }
  if (disasm_pane(lv)) {
    func_disasm(lv);
    tui_scroll_fit(&lv->sc[1], lv->aux.nlines, body_rows(lv));
  }
}

/* Step 2: the title bar: the process, the mode, what serves it. */
static void draw_title(const struct tui_app *app, const struct tui_live *lv) {
  char left[512], right[160];
  snprintf(left, sizeof left, " asmspy \xe2\x80\x94 pid %d %s \xe2\x80\x94 %c %s%s%s", (int)lv->pid,
           lv->pid == app->pid ? app->comm : "", lv->mode.key, lv->mode.title,
           lv->symbol_name[0] ? ": " : "", lv->symbol_name);
  if (lv->cycle_arg[0]) /* the option decides the backend (its option_caps) */
    snprintf(right, sizeof right, "%s %s ", lv->mode.mode, lv->cycle_arg);
  else if (lv->mode.rung[0]) /* a sampler: the rung the ladder picked (short: fits 80 columns) */
    snprintf(right, sizeof right, "%s (rung %s) ", lv->mode.backend, lv->mode.rung);
  else if (lv->module_arg[0]) /* the module chooser's pick, patched too */
    snprintf(right, sizeof right, "%s +%.60s via %s ", lv->mode.mode,
             lv->module_arg + strlen("--module="), lv->mode.backend);
  else
    snprintf(right, sizeof right, "%s via %s ", lv->mode.mode, lv->mode.backend);
  tui_bar(0, left, right);
}

/* Step 3a: two panes, each under its title: the mode's, and what the right
 * pane's field means (its schema's meaning). */
static void draw_two_panes(struct tui_live *lv) {
  int lw = left_width(lv);
  char lt[160], rt[200];
  snprintf(lt, sizeof lt, "%s", lv->mode.title);
  const struct asmspy_field *f = NULL;
  for (size_t k = lv->feed.nrecs; k-- > 0 && !f;) {
    const struct tui_rec *c = lv->feed.recs[k];
    if (c->typed)
      f = tui_field_with(c->typed->schema->fields,
                         disasm_pane(lv) ? ASMSPY_FIELDF_DRILL_FUNC : ASMSPY_FIELDF_PANE, NULL);
  }
  if (disasm_pane(lv))
    snprintf(rt, sizeof rt, "selected: %s (disassembled live)",
             f && f->meaning ? f->meaning : "function");
  else
    snprintf(rt, sizeof rt, "%s", f && f->meaning ? f->meaning : "");
  char t[256];
  snprintf(t, sizeof t, "%s%s", lv->focus == 0 ? "\xe2\x96\xb6 " : "  ", lt);
  tui_put_cut(1, 0, lw - 1, t, lv->focus == 0 ? TUI_A_BOLD : TUI_A_DIM, 0);
  snprintf(t, sizeof t, "%s%s", lv->focus == 1 ? "\xe2\x96\xb6 " : "  ", rt);
  tui_put_cut(1, lw + 1, COLS - lw - 1, t, lv->focus == 1 ? TUI_A_BOLD : TUI_A_DIM, 0);
  draw_pane(lv, 0, 0, lw - 1, 0);
  for (int y = 1; y < LINES - 1; y++) tui_put(y, lw - 1, 1, "\xe2\x94\x82", TUI_A_DIM, 0);
  draw_pane(lv, 1, lw + 1, COLS - lw - 1, 0);
}

/* Step 3b: one pane (a CARRIED field's strings beside the lines). */
static void draw_one_pane(struct tui_live *lv) {
  draw_pane(lv, 0, 0, COLS,
            (lv->mode.roles & ASMSPY_FIELDF_CARRIED) || lv->mode.layout == ASMSPY_TUI_FEED_CARRIED);
  if (!pane_model(lv, 0)->nlines)
    tui_put(1, 1, COLS - 1,
            lv->ended ? "(nothing was captured)" : "(waiting for the first events ...)", TUI_A_DIM,
            0);
}

/* What the session is doing, in words. */
static const char *session_state(const struct tui_live *lv) {
  return lv->mode.layout == TUI_LAYOUT_INFO            ? "snapshot (nothing attached)"
         : !lv->ended                                  ? "tracing"
         : lv->rc == 0 || lv->rc == ASMSPY_FACT_EXITED ? "ended"
         : lv->rc == ASMSPY_RUN_SKIPPED                ? "skipped"
                                                       : asmspy_strerror(lv->rc);
}

/* Step 4: the status line: pause state, session state, the table's order,
 * the keys. */
static void draw_status(struct tui_app *app, struct tui_live *lv, int two) {
  int pane = two ? lv->focus : 0;
  char ps[64], st[700];
  tui_scroll_status(&lv->sc[pane], pane_model(lv, pane)->nlines, ps, sizeof ps);
  if (lv->hoff > 0) { /* the lines as emitted, from column hoff: say so */
    size_t k = strlen(ps);
    snprintf(ps + k, sizeof ps - k, "%s[col %d]", k ? " " : "[LIVE] ", lv->hoff + 1);
  }
  const char *state = session_state(lv);
  char order[64] = "";
  if (is_table(lv) && lv->sort_index > 0)
    snprintf(order, sizeof order, "  sorted by %s (Tab)", lv->mode.sort_keys[lv->sort_index - 1]);
  if (app->msg[0])
    snprintf(st, sizeof st, " %s", app->msg);
  else if (lv->mode.layout == TUI_LAYOUT_INFO)
    snprintf(st, sizeof st, " %s%s%s", ps, ps[0] ? " " : "", state);
  else if (lv->mode.walk && ps[0]) {
    char nav[400];
    tui_df_status(lv, pane_model(lv, 0), nav, sizeof nav);
    snprintf(st, sizeof st, " %s %s", ps, nav[0] ? nav : state);
  } else
    snprintf(st, sizeof st, " %s %s%s", ps[0] ? ps : "[LIVE]", state, order);
  tui_keybar(LINES - 1, st, keys_for(lv));
}

void tui_live_draw(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  erase();
  int two = is_two_pane(lv);
  fit_panes(lv, two);
  draw_title(app, lv);
  if (two)
    draw_two_panes(lv);
  else
    draw_one_pane(lv);
  draw_status(app, lv, two);
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

/* The table row under the cursor: a row record, or an element of a
 * record's row array (through the sort's permutation). 0: not a row. */
static int cursor_row(struct tui_live *lv, struct tui_row *row, struct tui_elems *e) {
  const struct tui_model *m = pane_model(lv, 0);
  size_t i = lv->sc[0].cursor;
  const struct tui_rec *r = tui_model_rec(m, i);
  memset(e, 0, sizeof *e);
  if (!r) return 0;
  if (tui_rec_is_row(r)) {
    *row = tui_rec_row(r);
    return 1;
  }
  const struct asmspy_field *arr = r->typed ? tui_row_array(r->typed->schema) : NULL;
  size_t part = m->lines[i].part;
  if (!arr || part == 0) return 0;
  size_t k = part - 1;
  if (lv->sort_index > 0 && lv->perm) {
    if (k >= lv->nperm) return 0;
    k = lv->perm[k];
  }
  tui_elems_of(r, arr, e);
  *row = tui_elems_row(e, r, k);
  return row->fields != NULL && (row->values || row->json);
}

/* Enter on a table row: its DRILL_PID opens the first other table mode on
 * that process (the router detaches the current session first, so the
 * next attaches cleanly); its DRILL_ADDR / DRILL_FUNC (the last that lies
 * in a known function) opens the last function-picking mode on that
 * function. */
static struct tui_next drill(struct tui_app *app) {
  struct tui_live *lv = &app->live;
  struct tui_row row;
  struct tui_elems e;
  if (!cursor_row(lv, &row, &e)) {
    tui_elems_free(&e);
    snprintf(app->msg, sizeof app->msg, "select a row first (space pauses, arrows move)");
    return tui_stay();
  }
  int64_t pid = 0;
  uint64_t addr = 0, start = 0;
  const char *name = NULL;
  int have_pid = 0, have_func = 0, wants_pid = 0, wants_func = 0;
  size_t from = 0;
  for (const struct asmspy_field *f;
       (f = tui_field_with(row.fields, ASMSPY_FIELDF_DRILL_PID, &from));) {
    wants_pid = 1;
    if (!have_pid && tui_row_i64(&row, f->name, &pid) && pid > 0) have_pid = 1;
  }
  size_t n = 0;
  while (row.fields && row.fields[n].name) n++;
  for (size_t k = n; k-- > 0 && !have_func;) {
    if (!(row.fields[k].flags & (ASMSPY_FIELDF_DRILL_ADDR | ASMSPY_FIELDF_DRILL_FUNC))) continue;
    wants_func = 1;
    have_func = tui_row_u64(&row, row.fields[k].name, &addr) && addr &&
                tui_function_at(lv->pid, addr, &start, &name);
  }
  tui_elems_free(&e);
  if (have_pid) {
    const struct tui_mode *t = tui_modes_drill_pid(&app->modes, lv->mode.mode);
    if (!t || !t->available) {
      snprintf(app->msg, sizeof app->msg, "no table mode can start here: %s",
               t ? t->reason : "none");
      return tui_stay();
    }
    return tui_go_live(t, (pid_t)pid, NULL, NULL);
  }
  if (have_func) {
    const struct tui_mode *t = tui_modes_drill_func(&app->modes);
    if (!t || !t->available) {
      snprintf(app->msg, sizeof app->msg, "no function mode can start here: %s",
               t ? t->reason : "none");
      return tui_stay();
    }
    char spec[32], nm[256];
    snprintf(spec, sizeof spec, "0x%" PRIx64, start);
    snprintf(nm, sizeof nm, "%s", name ? name : spec);
    return tui_go_live(t, lv->pid, spec, nm);
  }
  snprintf(app->msg, sizeof app->msg, "%s",
           wants_func  ? "select a row inside a sized function first"
           : wants_pid ? "select a row with a process first"
                       : "this row opens nothing");
  return tui_stay();
}

/* Where a key leads: 'b' the mode menu, q/ESC the process list (the router
 * detaches first), a restart (Tab to another option value, F3 on the
 * details) this same view anew; else the view stays. */
struct tui_next tui_live_key(struct tui_app *app, int ch) {
  struct tui_live *lv = &app->live;
  app->msg[0] = '\0';
  if (lv->mode.walk && tui_df_key(lv, pane_model(lv, 0), ch)) return tui_stay();
  switch (ch) {
  case 'b': return tui_go_modes(app->pid);
  case 'q':
  case 27: return tui_go_procs(1);
  case 3: return tui_go(TUI_SCR_QUIT);
  case '\t':
    if (is_two_pane(lv)) {
      lv->focus = !lv->focus;
    } else if (is_table(lv) && lv->mode.n_cycle_values) {
      /* another value is another backend: a new session */
      app->cycle_index = (app->cycle_index + 1) % lv->mode.n_cycle_values;
      return tui_go_live(&lv->mode, lv->pid, NULL, NULL);
    } else if (is_table(lv) && lv->mode.n_sort_keys) {
      lv->sort_index = (lv->sort_index + 1) % (lv->mode.n_sort_keys + 1);
      apply_sort(lv);
    }
    return tui_stay();
  case '\n':
  case '\r':
  case KEY_ENTER: return is_table(lv) ? drill(app) : tui_stay();
  case KEY_F(3):
    if (lv->mode.layout == TUI_LAYOUT_INFO) return tui_go_live(&lv->mode, lv->pid, NULL, NULL);
    return tui_stay();
  default: break;
  }
  if (ch == KEY_LEFT || ch == KEY_RIGHT || ch == 'h' || ch == 'l') { /* the horizontal window */
    int right = ch == KEY_RIGHT || ch == 'l';
    lv->hoff += right ? HSCROLL_STEP : -HSCROLL_STEP;
    if (lv->hoff < 0) lv->hoff = 0;
    if (lv->hoff > HSCROLL_MAX) lv->hoff = HSCROLL_MAX;
    return tui_stay();
  }
  enum tui_skey k = skey_of(ch);
  if (k != TUI_SK_NONE) scroll_key(lv, k);
  return tui_stay();
}
