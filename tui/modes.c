/* modes: the mode menu's data (see modes.h), from the view descriptors. */
#include "tui/modes.h"

#include "asmspy-internal/app_api.h"

#include <stdio.h>
#include <string.h>

/* Bounded copy (snprintf "%s" between two structs trips -Wrestrict). */
static void copy(char *dst, size_t cap, const char *src) {
  size_t n = strnlen(src, cap - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static const struct procinfo_mode *verdict(const struct procinfo *pi, const char *mode) {
  for (size_t i = 0; pi->have_modes && i < pi->n_modes; i++)
    if (pi->modes[i].mode && strcmp(pi->modes[i].mode, mode) == 0) return &pi->modes[i];
  return NULL;
}

static int key_taken(const struct tui_modes *out, char key) {
  return tui_modes_by_key(out, key) != NULL;
}

/* A table with option_caps: Tab cycles the values of the view's first option_caps option
 * (procs: --count=syscalls|calls), the default value first. */
static void cycle_from_option_caps(const struct asmspy_view_ops *v, struct tui_mode *m) {
  if (!ASMSPY_HAS(v, option_caps) || !v->option_caps || !v->option_caps[0].option) return;
  const struct asmspy_option_caps *t = v->option_caps;
  copy(m->cycle_option, sizeof m->cycle_option, t[0].option);
  for (int pass = 0; pass < 2; pass++) /* the default value first */
    for (size_t i = 0; t[i].option && m->n_cycle_values < 4; i++)
      if (!strcmp(t[i].option, t[0].option) && t[i].value && !!t[i].is_default == !pass)
        copy(m->cycle_values[m->n_cycle_values++], sizeof m->cycle_values[0], t[i].value);
}

/* One view's menu entry (its key is assigned by the caller). 0: leave it
 * out (HIDDEN). */
static int entry_for(const struct asmspy_plugin_info *p, struct tui_mode *m) {
  const struct asmspy_view_ops *v = p->desc->view;
  const struct asmspy_tui_entry *t = ASMSPY_HAS(v, tui) ? v->tui : NULL;
  if (t && (t->flags & ASMSPY_TUIF_HIDDEN)) return 0;
  memset(m, 0, sizeof *m);
  m->key = t && t->key >= '1' && t->key <= '9' ? t->key : 0;
  /* no tui entry: a feed, or its frames when it renders snapshots */
  int snapshots = ASMSPY_HAS(v, snapshot) && v->snapshot;
  m->layout = t && t->layout ? t->layout : snapshots ? ASMSPY_TUI_SNAPSHOT : ASMSPY_TUI_FEED;
  copy(m->title, sizeof m->title,
       t && t->title                         ? t->title
       : p->description && p->description[0] ? p->description
                                             : p->name);
  copy(m->mode, sizeof m->mode, v->mode);
  m->pick_symbol = t && (t->flags & ASMSPY_TUIF_PICK_SYMBOL);
  m->pick_data = t && (t->flags & ASMSPY_TUIF_PICK_DATA);
  /* a plain feed or snapshot of a plugin's view may summarise at its own n
   * (hello); a view asking for a live layout (the call log) runs live */
  m->live = t && t->layout && t->layout != ASMSPY_TUI_FEED && t->layout != ASMSPY_TUI_SNAPSHOT;
  /* a call mode (graph, tree, calls): it takes the call backend's --module;
   * a function-picking mode's --module means something else (dataflow --auto) */
  const struct asmspy_option *opts = ASMSPY_HAS(v, options) ? v->options : NULL;
  for (size_t i = 0; opts && opts[i].name && !m->pick_symbol && !m->pick_data; i++)
    if (!strcmp(opts[i].name, "module")) m->takes_module = 1;
  const struct asmspy_record_schema *recs = ASMSPY_HAS(v, records) ? v->records : NULL;
  m->roles = tui_schema_roles(recs);
  m->screen = (int)tui_screen_for(m->roles, m->layout);
  m->n_sort_keys = (int)tui_sort_keys(recs, m->sort_keys, TUI_MAX_SORT_KEYS);
  m->walk = m->layout == ASMSPY_TUI_DATAFLOW;
  if (m->screen == TUI_SCREEN_TABLE) cycle_from_option_caps(v, m);
  return 1;
}

/* The sampler rung the mode's backend serves (its descriptor's
 * sampler_rung): what the ladder picked for a sampling mode. */
static void rung_of(struct asmspy_engine *e, struct tui_mode *m) {
  const struct asmspy_plugin_info *b =
      m->backend[0] ? asmspy_find_plugin(e, ASMSPY_KIND_BACKEND, m->backend) : NULL;
  const struct asmspy_backend_ops *ops = b && b->desc ? b->desc->backend : NULL;
  if (ops && ASMSPY_HAS(ops, sampler_order) && ops->sampler_rung)
    copy(m->rung, sizeof m->rung, ops->sampler_rung);
}

static void judge_entry(struct asmspy_engine *e, const struct procinfo *pi,
                        const struct asmspy_plugin_info *p, struct tui_mode *m) {
  const struct procinfo_mode *v = verdict(pi, m->mode);
  if (v) { /* the mode's --info verdict (its backend and gates) */
    copy(m->backend, sizeof m->backend, v->backend);
    rung_of(e, m);
    m->available = v->status != PROCINFO_MODE_NO;
    m->maybe = v->status == PROCINFO_MODE_MAYBE;
    copy(m->reason, sizeof m->reason, v->reason);
    return;
  }
  /* no verdicts (procinfo read without modes): the view's own probe */
  asmspy_probe_plugin(e, (struct asmspy_plugin_info *)p);
  m->available = p->status == ASMSPY_USABLE;
  snprintf(m->backend, sizeof m->backend, "view %s", p->name);
  if (!m->available)
    snprintf(m->reason, sizeof m->reason, "view %s unavailable: %s", p->name, p->reason);
}

static void add_info(struct tui_modes *out) {
  struct tui_mode *m = &out->v[out->n++];
  memset(m, 0, sizeof *m);
  m->key = TUI_INFO_KEY;
  m->layout = TUI_LAYOUT_INFO;
  copy(m->title, sizeof m->title, "process details");
  copy(m->mode, sizeof m->mode, "info");
  m->available = 1;
  snprintf(m->backend, sizeof m->backend, "no attach"); /* /proc and the ELF files only */
}

void tui_modes_judge(struct asmspy_engine *e, const struct procinfo *pi, struct tui_modes *out) {
  memset(out, 0, sizeof *out);
  const struct asmspy_plugin_info *views[TUI_MAX_MODES];
  size_t nv = procinfo_views(e, views, TUI_MAX_MODES - 1);
  static const char letters[] =
      "acdefghijklnoprstuvwxyz"; /* not b (back), m (modules) or q (quit) */
  size_t next_letter = 0;
  int info_added = 0;
  for (size_t i = 0; i < nv && out->n < TUI_MAX_MODES; i++) {
    struct tui_mode m;
    if (!entry_for(views[i], &m)) continue;
    if (m.key && (m.key == TUI_INFO_KEY || key_taken(out, m.key))) m.key = 0;
    if (!m.key) { /* the host assigns a letter */
      if (next_letter + 1 >= sizeof letters) continue;
      m.key = letters[next_letter++];
      m.extra = 1;
    }
    /* the TUI's own '8' sits in the numbered part, in key order */
    if (!info_added && (m.extra || m.key > TUI_INFO_KEY) && out->n < TUI_MAX_MODES) {
      add_info(out);
      info_added = 1;
    }
    if (out->n >= TUI_MAX_MODES) break;
    judge_entry(e, pi, views[i], &m);
    out->v[out->n++] = m;
  }
  if (!info_added && out->n < TUI_MAX_MODES) add_info(out);
}

const struct tui_mode *tui_modes_by_key(const struct tui_modes *m, int key) {
  for (size_t i = 0; i < m->n; i++)
    if (m->v[i].key == key) return &m->v[i];
  return NULL;
}

const struct tui_mode *tui_modes_drill_pid(const struct tui_modes *m, const char *not_mode) {
  for (size_t i = 0; i < m->n; i++) {
    const struct tui_mode *t = &m->v[i];
    if (t->screen == TUI_SCREEN_TABLE && t->layout != TUI_LAYOUT_INFO && !t->pick_symbol &&
        !t->pick_data && strcmp(t->mode, not_mode) != 0)
      return t;
  }
  return NULL;
}

const struct tui_mode *tui_modes_drill_func(const struct tui_modes *m) {
  for (size_t i = m->n; i-- > 0;)
    if (m->v[i].pick_symbol) return &m->v[i];
  return NULL;
}
