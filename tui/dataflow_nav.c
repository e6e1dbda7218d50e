/* dataflow_nav: the DATAFLOW layout's slice navigation, over the def-use
 * links the view records (plugins/views/dataflow: one `dataflow` record per
 * captured invocation; line 0 is its header, line k+1 is step #k, and its
 * JSON body holds every step's reads with the step that defined each, or
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
  json_free(lv->df_json);
  lv->df_json = NULL;
  tui_rec_unref((struct tui_rec *)lv->df_rec);
  lv->df_rec = NULL;
  lv->df_operand = 0;
  lv->df_nback = 0;
}

/* The trace step on line i of m: its JSON object, or NULL (not a step line). */
static const struct json_value *step_at(struct tui_live *lv, const struct tui_model *m, size_t i,
                                        size_t *rec_start) {
  if (i >= m->nlines) return NULL;
  const struct tui_rec *r = tui_model_rec(m, i);
  /* a record of the view (not a host note) with a JSON body */
  if (!r || strcmp(r->type, "note") == 0 || !r->json || m->lines[i].part == 0) return NULL;
  if (r != lv->df_rec) { /* parse this record's body once */
    tui_df_reset(lv);
    size_t len = strlen(r->json);
    char *obj = malloc(len + 3);
    if (!obj) return NULL;
    obj[0] = '{';
    memcpy(obj + 1, r->json, len);
    obj[len + 1] = '}';
    obj[len + 2] = '\0';
    lv->df_json = json_parse(obj, len + 2, NULL);
    free(obj);
    tui_rec_ref((struct tui_rec *)r);
    lv->df_rec = r;
  }
  *rec_start = tui_model_rec_start(m, m->lines[i].rec);
  return json_array_at(json_get(lv->df_json, ASMSPY_TUI_DATAFLOW_STEPS), m->lines[i].part - 1);
}

int tui_df_key(struct tui_live *lv, struct tui_model *m, int ch) {
  size_t start = 0;
  const struct json_value *step = step_at(lv, m, lv->sc[0].cursor, &start);
  size_t nreads = json_array_len(json_get(step, "reads"));
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
    const struct json_value *rd = json_array_at(json_get(step, "reads"), (size_t)lv->df_operand);
    int64_t def;
    if (!rd || !json_get_int(rd, "def", &def) || def < 0) return 1; /* live-in: nowhere to go */
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
  const struct json_value *step = step_at(lv, m, lv->sc[0].cursor, &start);
  if (!step) return;
  int64_t i = 0;
  json_get_int(step, "i", &i);
  const struct json_value *reads = json_get(step, "reads");
  size_t n = json_array_len(reads);
  if (!n) {
    snprintf(buf, cap, "step #%" PRId64 " reads nothing", i);
    return;
  }
  if (lv->df_operand >= (int)n) lv->df_operand = 0;
  const struct json_value *rd = json_array_at(reads, (size_t)lv->df_operand);
  const char *loc = json_get_str(rd, "loc"), *val = json_get_str(rd, "value");
  int64_t def;
  char from[64];
  if (json_get_int(rd, "def", &def) && def >= 0)
    snprintf(from, sizeof from, "defined by step #%" PRId64 " (Enter walks there)", def);
  else
    snprintf(from, sizeof from, "live-in: defined before the entry");
  snprintf(buf, cap, "step #%" PRId64 " read %d/%zu: %s=%s, %s%s", i, lv->df_operand + 1, n,
           loc ? loc : "?", val ? val : "?", from, lv->df_nback ? "; Backspace walks back" : "");
}
