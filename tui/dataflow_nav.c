/* dataflow_nav: the DATAFLOW layout's slice navigation, over the def-use
 * links the view records (plugins/views/dataflow: one `dataflow` record per
 * captured invocation; line 0 is its header, line k+1 is step #k, and its
 * typed values hold every step's reads with the step that defined each, or
 * live_in). Select a step, pick one of its reads with the left/right keys,
 * Enter walks to the step that defined it; Backspace walks back. */
#define _GNU_SOURCE
#include "tui/dataflow_nav.h"

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_df_reset(struct tui_live *lv) {
  lv->df_operand = 0;
  lv->df_nback = 0;
}

/* One step of a `dataflow` record's trace: its members (the schema's step
 * fields) and their values. */
struct df_step {
  const struct asmspy_field *fields;
  const struct asmspy_value *values;
};

/* The trace step on line i of m (1 with *step set), or 0: not a step line. */
static int step_at(const struct tui_model *m, size_t i, size_t *rec_start, struct df_step *step) {
  if (i >= m->nlines || m->lines[i].part == 0) return 0;
  const struct tui_rec *r = tui_model_rec(m, i);
  /* a record of the view (typed: host notes never are) */
  if (!r || !r->typed) return 0;
  const struct asmspy_field *steps_f =
      asmspy_field_of(r->typed->schema->fields, ASMSPY_TUI_DATAFLOW_STEPS);
  const struct asmspy_value *trace = tui_rec_get(r, ASMSPY_TUI_DATAFLOW_STEPS);
  size_t k = m->lines[i].part - 1;
  if (!steps_f || !trace || trace->state != ASMSPY_VALUE_SET || k >= trace->u.array.n) return 0;
  step->fields = steps_f->fields;
  step->values = trace->u.array.items[k].u.object.values;
  if (!step->fields || !step->values) return 0;
  *rec_start = tui_model_rec_start(m, m->lines[i].rec);
  return 1;
}

/* A step's integer member (0 when absent or null). */
static int64_t step_int(const struct df_step *st, const char *name, int *have) {
  const struct asmspy_value *v = asmspy_value_of(st->fields, st->values, name);
  int ok = v && v->state == ASMSPY_VALUE_SET;
  if (have) *have = ok;
  return ok ? v->u.i : 0;
}

/* The reads of a step: n, and read k as a df_step of its own members. */
static size_t step_reads(const struct df_step *st, size_t k, struct df_step *read) {
  const struct asmspy_field *f = asmspy_field_of(st->fields, "reads");
  const struct asmspy_value *v = asmspy_value_of(st->fields, st->values, "reads");
  if (!f || !v || v->state != ASMSPY_VALUE_SET) return 0;
  if (read && k < v->u.array.n) {
    read->fields = f->fields;
    read->values = v->u.array.items[k].u.object.values;
  }
  return (size_t)v->u.array.n;
}

static const char *read_str(const struct df_step *rd, const char *name) {
  const struct asmspy_value *v = asmspy_value_of(rd->fields, rd->values, name);
  return v && v->state == ASMSPY_VALUE_SET ? v->u.str.s : NULL;
}

int tui_df_key(struct tui_live *lv, struct tui_model *m, int ch) {
  size_t start = 0;
  struct df_step step;
  size_t nreads = step_at(m, lv->sc[0].cursor, &start, &step) ? step_reads(&step, 0, NULL) : 0;
  switch (ch) {
  case KEY_LEFT:
    if (nreads) lv->df_operand = (lv->df_operand + (int)nreads - 1) % (int)nreads;
    return 1;
  case KEY_RIGHT:
    if (nreads) lv->df_operand = (lv->df_operand + 1) % (int)nreads;
    return 1;
  case '\n':
  case '\r':
  case KEY_ENTER: {
    struct df_step rd;
    int have = 0;
    if ((size_t)lv->df_operand >= nreads) return 1;
    step_reads(&step, (size_t)lv->df_operand, &rd);
    int64_t def = step_int(&rd, "def", &have);
    if (!have || def < 0) return 1; /* live-in: nowhere to go */
    size_t to = start + 1 + (size_t)def;
    if (to >= m->nlines) return 1;
    if (lv->df_nback < (int)(sizeof lv->df_back / sizeof lv->df_back[0]))
      lv->df_back[lv->df_nback++] = lv->sc[0].cursor;
    lv->sc[0].paused = 1;
    lv->sc[0].cursor = to;
    lv->df_operand = 0;
    return 1;
  }
  case KEY_BACKSPACE:
  case 127:
  case 8:
    if (lv->df_nback) {
      lv->sc[0].cursor = lv->df_back[--lv->df_nback];
      lv->df_operand = 0;
    }
    return 1;
  default: return 0;
  }
}

void tui_df_status(struct tui_live *lv, struct tui_model *m, char *buf, size_t cap) {
  size_t start = 0;
  buf[0] = '\0';
  struct df_step step;
  if (!step_at(m, lv->sc[0].cursor, &start, &step)) return;
  int64_t i = step_int(&step, "i", NULL);
  size_t n = step_reads(&step, 0, NULL);
  if (!n) {
    snprintf(buf, cap, "step #%" PRId64 " reads nothing", i);
    return;
  }
  if (lv->df_operand >= (int)n) lv->df_operand = 0;
  struct df_step rd;
  step_reads(&step, (size_t)lv->df_operand, &rd);
  const char *loc = read_str(&rd, "loc"), *val = read_str(&rd, "value");
  int have = 0;
  int64_t def = step_int(&rd, "def", &have);
  char from[64];
  if (have && def >= 0)
    snprintf(from, sizeof from, "defined by step #%" PRId64 " (Enter walks there)", def);
  else
    snprintf(from, sizeof from, "live-in: defined before the entry");
  snprintf(buf, cap, "step #%" PRId64 " read %d/%zu: %s=%s, %s%s", i, lv->df_operand + 1, n,
           loc ? loc : "?", val ? val : "?", from, lv->df_nback ? "; Backspace walks back" : "");
}
