/* sym_list: the symbol picker's data (see sym_list.h). */
#define _GNU_SOURCE
#include "tui/sym_list.h"

#include "asmspy-internal/app_api.h"
#include "common/hot_rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOT_WINDOW_MS 500 /* one IBS-Op sample window for the ranking */

const char *tui_ssort_name(enum tui_ssort s) {
  switch (s) {
  case TUI_SSORT_HOT: return "hot edges";
  case TUI_SSORT_NAME: return "name";
  default: return "address";
  }
}

static int copy_table(struct tui_symlist *l) {
  size_t n = symtab_count(l->table);
  free(l->v);
  l->v = calloc(n ? n : 1, sizeof *l->v);
  l->n = 0;
  if (!l->v) return ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const struct symtab_entry *e = symtab_at(l->table, i);
    l->v[l->n++] = (struct tui_sym){e->start, e->size, e->name, e->module, e->kind, 0};
  }
  l->hot_ranked = 0;
  return 0;
}

int tui_symlist_load(struct tui_symlist *l, pid_t pid) {
  if (l->table && l->pid == pid) {
    if (symtab_reload(l->table) != 0) return errno ? errno : ESRCH;
  } else {
    if (l->table) symtab_free(l->table);
    l->table = symtab_load(pid);
    if (!l->table) return errno ? errno : ESRCH;
    l->pid = pid;
  }
  return copy_table(l);
}

struct hot_ctx {
  struct hr_table edges;
};

static int hot_sink(void *ctx_, const struct asmspy_event *ev) {
  struct hot_ctx *ctx = ctx_;
  if (ev->type == ASMSPY_EV_BRANCH)
    hr_add(&ctx->edges, ev->u.branch.from, ev->u.branch.to, 1, ev->flags);
  return 0;
}

/* The --auto rule for entries (common/hot_rank.h): taken branches
 * landing on a function's first byte from outside it, counted per function.
 * Only the ladder's first rung (the entry-edge sampler: IBS-Op today; each
 * backend declares its rung and order) observes that; a weaker rung would
 * rank loops entered once, so there is no fallback down the ladder here. */
void tui_symlist_rank_hot(struct tui_symlist *l, struct asmspy_engine *e) {
  for (size_t i = 0; i < l->n; i++) l->v[i].hot = 0;
  l->hot_ranked = 0;
  struct asmspy_plugin_info *rung = (struct asmspy_plugin_info *)sampler_default(e);
  if (!rung) {
    snprintf(l->note, sizeof l->note,
             "address order: hot edges need an entry-edge sample, and no sampler backend is "
             "installed");
    return;
  }
  asmspy_probe_plugin(e, rung);
  if (rung->status != ASMSPY_USABLE) {
    snprintf(l->note, sizeof l->note,
             "address order: hot edges need an entry-edge sample (the --auto ranking), and "
             "%s is unavailable: %s",
             rung->name, rung->reason);
    return;
  }
  int err = 0;
  struct asmspy_target *t = target_open(l->pid, &err);
  if (!t) {
    snprintf(l->note, sizeof l->note, "address order: hot edges: pid %d: %s", (int)l->pid,
             strerror(err));
    return;
  }
  static volatile int never_stop; /* the window ends the sample */
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "symbol-ranking"; /* the picker's own sampling, no view */
  s.pid = l->pid;
  s.max = -1;
  s.stop = &never_stop;
  s.target = t;
  s.window_ms = HOT_WINDOW_MS;
  struct hot_ctx ctx = {{0}};
  char used[16];
  sampler_ladder_set_engine(e);
  int rc = host_run_sampler(&s, rung->desc->backend->sampler_rung, HOT_WINDOW_MS, hot_sink, &ctx,
                            used, sizeof used);
  sampler_ladder_set_engine(NULL);
  size_t nf = 0;
  struct hr_func *f = rc >= 0 ? hr_functions(asmspy_host_api(), t, &ctx.edges, 1, NULL, &nf) : NULL;
  for (size_t k = 0; k < nf; k++)
    for (size_t i = 0; i < l->n; i++)
      if (l->v[i].start == f[k].start) l->v[i].hot += f[k].samples;
  if (rc < 0)
    snprintf(l->note, sizeof l->note, "address order: the %s sample failed: %s", rung->name,
             asmspy_strerror(rc));
  else
    snprintf(l->note, sizeof l->note,
             "hot edges: %zu functions entered in %" PRIu64 " branch samples over %d ms (%s)", nf,
             ctx.edges.total, HOT_WINDOW_MS, rung->name);
  l->hot_ranked = rc >= 0 && nf > 0;
  free(f);
  hr_free(&ctx.edges);
  target_close(t);
}

static int cmp_syms(const void *x, const void *y, void *ctx) {
  const struct tui_symlist *l = ctx;
  const struct tui_sym *a = &l->v[*(const size_t *)x], *b = &l->v[*(const size_t *)y];
  if (l->sort == TUI_SSORT_HOT && l->hot_ranked && a->hot != b->hot)
    return a->hot > b->hot ? -1 : 1;
  if (l->sort == TUI_SSORT_NAME) {
    int c = strcmp(a->name, b->name);
    if (c) return c;
  }
  return a->start < b->start ? -1 : a->start > b->start;
}

static int matches(const struct tui_sym *s, const char *filter) {
  const char *t = filter;
  if (!t) return 1;
  for (;;) {
    while (*t == ' ') t++;
    if (!*t) return 1;
    size_t len = strcspn(t, " ");
    int hit = 0;
    for (const char *h = s->name; *h && !hit; h++) hit = strncasecmp(h, t, len) == 0;
    for (const char *h = s->module; *h && !hit; h++) hit = strncasecmp(h, t, len) == 0;
    if (!hit) return 0;
    t += len;
  }
}

int tui_symlist_arrange(struct tui_symlist *l, const char *filter) {
  free(l->rows);
  l->nrows = 0;
  l->rows = malloc((l->n ? l->n : 1) * sizeof *l->rows);
  if (!l->rows) return -1;
  for (size_t i = 0; i < l->n; i++)
    if (matches(&l->v[i], filter)) l->rows[l->nrows++] = i;
  qsort_r(l->rows, l->nrows, sizeof *l->rows, cmp_syms, l);
  return 0;
}

long tui_symlist_exact(const struct tui_symlist *l, const char *filter) {
  if (!filter) return -1;
  while (*filter == ' ') filter++;
  size_t len = strlen(filter);
  while (len && filter[len - 1] == ' ') len--;
  if (!len) return -1;
  long folded = -1;
  for (size_t k = 0; k < l->nrows; k++) {
    const char *name = l->v[l->rows[k]].name;
    if (strlen(name) != len) continue;
    if (strncmp(name, filter, len) == 0) return (long)k;
    if (folded < 0 && strncasecmp(name, filter, len) == 0) folded = (long)k;
  }
  return folded;
}

void tui_symlist_free(struct tui_symlist *l) {
  if (l->table) symtab_free(l->table);
  free(l->v);
  free(l->rows);
  memset(l, 0, sizeof *l);
}
