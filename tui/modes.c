/* modes: the mode menu's data (see modes.h). */
#include "tui/modes.h"

#include "host/host.h"

#include <stdio.h>
#include <string.h>

static const struct {
  char key;
  enum tui_mode_kind kind;
  const char *title;
  const char *mode;
  int pick_symbol;
} builtin[] = {
    {'1', TUI_MODE_LOG, "syscall log", "log", 0},
    {'2', TUI_MODE_TRACE, "assembly & functions", "trace", 1},
    {'3', TUI_MODE_STREAM, "live instruction stream", "stream", 0},
    {'4', TUI_MODE_GRAPH, "call graph", "graph", 0},
    {'5', TUI_MODE_TREE, "call tree", "tree", 0},
    {'6', TUI_MODE_PROCS, "process/thread topology", "procs", 0},
    {'7', TUI_MODE_SAMPLE, "hot edges (sampler)", "sample", 0},
    {'8', TUI_MODE_INFO, "process details", "info", 0},
    {'9', TUI_MODE_DATAFLOW, "data flow", "dataflow", 1},
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

/* Bounded copy (snprintf "%s" between two structs trips -Wrestrict). */
static void copy(char *dst, size_t cap, const char *src) {
  size_t n = strnlen(src, cap - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static const struct procinfo_mode *verdict(const struct procinfo *pi, const char *mode) {
  for (int i = 0; pi->have_modes && i < PROCINFO_N_MODES; i++)
    if (pi->modes[i].mode && strcmp(pi->modes[i].mode, mode) == 0) return &pi->modes[i];
  return NULL;
}

static int is_builtin(const char *mode) {
  for (size_t i = 0; i < NBUILTIN; i++)
    if (strcmp(builtin[i].mode, mode) == 0) return 1;
  return 0;
}

/* Mode 7 is the IBS-Op sampler: asmspy_run serves a sampling view with the
 * backend of its --sampler rung, "ibs" unless told (host/engine.c), while
 * --info's verdict names the first usable backend with the view's caps (a
 * weaker rung). The menu must say what starting the mode would do. */
static void sampler_verdict(struct asmspy_engine *e, struct tui_mode *m) {
  const char *name = sampler_backend_for("ibs");
  struct asmspy_plugin_info *b =
      name ? (struct asmspy_plugin_info *)asmspy_find_plugin(e, ASMSPY_KIND_BACKEND, name) : NULL;
  if (!b) {
    m->available = 0;
    snprintf(m->reason, sizeof m->reason, "the IBS-Op sampler backend (%s) is not installed",
             name ? name : "?");
    return;
  }
  asmspy_probe_plugin(e, b);
  copy(m->backend, sizeof m->backend, b->name);
  if (b->status != ASMSPY_USABLE) {
    m->available = 0;
    snprintf(m->reason, sizeof m->reason, "%s unavailable: %s", b->name, b->reason);
  }
}

void tui_modes_judge(struct asmspy_engine *e, const struct procinfo *pi, struct tui_modes *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < NBUILTIN; i++) {
    struct tui_mode *m = &out->v[out->n++];
    m->key = builtin[i].key;
    m->kind = builtin[i].kind;
    copy(m->title, sizeof m->title, builtin[i].title);
    copy(m->mode, sizeof m->mode, builtin[i].mode);
    m->pick_symbol = builtin[i].pick_symbol;
    m->available = 1;
    if (m->kind == TUI_MODE_INFO) {
      snprintf(m->backend, sizeof m->backend, "no attach");
      continue; /* /proc and the mapped ELF files only: always */
    }
    const struct procinfo_mode *v = verdict(pi, m->mode);
    if (!v) {
      m->available = 0;
      snprintf(m->reason, sizeof m->reason, "no verdict for mode '%s'", builtin[i].mode);
      continue;
    }
    copy(m->backend, sizeof m->backend, v->backend);
    m->available = v->status != PROCINFO_MODE_NO;
    m->maybe = v->status == PROCINFO_MODE_MAYBE;
    copy(m->reason, sizeof m->reason, v->reason);
    if (m->kind == TUI_MODE_SAMPLE) sampler_verdict(e, m);
  }
  /* every other view in the registry: a mode of its own */
  static const char keys[] = "acdefghijklmnoprstuvwxyz"; /* not b (back) or q (quit) */
  size_t k = 0;
  for (size_t i = 0; e && i < asmspy_plugin_count(e) && out->n < TUI_MAX_MODES; i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    if (!p->desc || p->kind != ASMSPY_KIND_VIEW || !p->desc->view || !p->desc->view->mode) continue;
    if (is_builtin(p->desc->view->mode) || k + 1 >= sizeof keys) continue;
    struct tui_mode *m = &out->v[out->n++];
    m->key = keys[k++];
    m->kind = TUI_MODE_FEED;
    m->extra = 1;
    copy(m->title, sizeof m->title, p->description ? p->description : p->name);
    copy(m->mode, sizeof m->mode, p->desc->view->mode);
    const struct procinfo_mode *v = verdict(pi, m->mode);
    if (v) { /* a mode --info judges (its backend and gates are known) */
      copy(m->backend, sizeof m->backend, v->backend);
      m->available = v->status != PROCINFO_MODE_NO;
      m->maybe = v->status == PROCINFO_MODE_MAYBE;
      copy(m->reason, sizeof m->reason, v->reason);
      continue;
    }
    asmspy_probe_plugin(e, (struct asmspy_plugin_info *)p);
    m->available = p->status == ASMSPY_USABLE;
    snprintf(m->backend, sizeof m->backend, "view %s", p->name);
    if (!m->available) snprintf(m->reason, sizeof m->reason, "view %s unavailable: %s", p->name, p->reason);
    /* the same attach gate every ptrace mode has */
    if (m->available && pi->attach.verdict == PROCINFO_ATTACH_NO) {
      m->available = 0;
      snprintf(m->reason, sizeof m->reason, "needs ptrace: %s", pi->attach.short_reason);
    }
  }
}

const struct tui_mode *tui_modes_by_key(const struct tui_modes *m, int key) {
  for (size_t i = 0; i < m->n; i++)
    if (m->v[i].key == key) return &m->v[i];
  return NULL;
}
