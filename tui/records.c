/* records: reference-counted session output for the TUI (see records.h). */
#include "tui/records.h"

#include <stdlib.h>
#include <string.h>

/* One allocation per record (the stream view emits one per executed
 * instruction): the struct, its line pointers, then type and text; a typed
 * record's values are a second (asmspy_record_copy). */
struct tui_rec *tui_rec_new(const char *type, const struct asmspy_record *typed, const char *text) {
  if (!type) type = "";
  size_t tl = strlen(type) + 1, xl = text ? strlen(text) + 1 : 0;
  uint32_t n = 0;
  if (text) {
    n = 1;
    for (const char *p = text; *p; p++) n += *p == '\n';
  }
  size_t head = sizeof(struct tui_rec) + (size_t)n * sizeof(char *);
  struct tui_rec *r = malloc(head + tl + xl);
  if (!r) return NULL;
  r->typed = NULL;
  if (typed && !(r->typed = asmspy_record_copy(typed))) {
    free(r);
    return NULL;
  }
  char *at = (char *)r + head;
  r->refs = 1;
  r->lines = (char **)(r + 1);
  r->type = memcpy(at, type, tl);
  at += tl;
  r->nlines = n;
  if (text) {
    char *p = memcpy(at, text, xl);
    for (uint32_t i = 0; i < n; i++) {
      r->lines[i] = p;
      char *nl = strchr(p, '\n');
      if (nl) *nl = '\0', p = nl + 1;
    }
  }
  return r;
}

void tui_rec_ref(struct tui_rec *r) {
  if (r) __atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
}

void tui_rec_unref(struct tui_rec *r) {
  if (r && __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    free(r->typed);
    free(r);
  }
}

const struct asmspy_value *tui_rec_get(const struct tui_rec *r, const char *name) {
  return r ? asmspy_record_get(r->typed, name) : NULL;
}

struct tui_rec *tui_reclist_at(const struct tui_reclist *l, size_t i) {
  return i < l->n ? l->v[(l->head + i) & (l->cap - 1)] : NULL;
}

static int grow(struct tui_reclist *l) {
  size_t nc = l->cap ? l->cap * 2 : 256;
  struct tui_rec **nv = malloc(nc * sizeof *nv);
  if (!nv) return -1;
  for (size_t i = 0; i < l->n; i++) nv[i] = tui_reclist_at(l, i);
  free(l->v);
  l->v = nv;
  l->cap = nc;
  l->head = 0;
  return 0;
}

static void drop_oldest(struct tui_reclist *l) {
  struct tui_rec *r = l->v[l->head];
  l->nlines -= r->nlines;
  l->head = (l->head + 1) & (l->cap - 1);
  l->n--;
  tui_rec_unref(r);
}

int tui_reclist_push(struct tui_reclist *l, struct tui_rec *r) {
  if (l->n == l->cap && grow(l) != 0) return -1;
  tui_rec_ref(r);
  l->v[(l->head + l->n) & (l->cap - 1)] = r;
  l->n++;
  l->nlines += r->nlines;
  l->pushed_lines += r->nlines;
  while (l->max_lines && l->n > 1 && l->nlines > l->max_lines) drop_oldest(l);
  return 0;
}

void tui_reclist_clear(struct tui_reclist *l) {
  while (l->n) drop_oldest(l);
  l->head = 0;
}

void tui_reclist_free(struct tui_reclist *l) {
  tui_reclist_clear(l);
  free(l->v);
  l->v = NULL;
  l->cap = 0;
  l->pushed_lines = 0;
}

void tui_model_free(struct tui_model *m) {
  for (size_t i = 0; i < m->nrecs; i++) tui_rec_unref(m->recs[i]);
  free(m->recs);
  free(m->rec_first);
  free(m->lines);
  memset(m, 0, sizeof *m);
}

int tui_model_from(struct tui_model *m, const struct tui_reclist *l) {
  tui_model_free(m);
  if (!l->n) return 0;
  m->recs = malloc(l->n * sizeof *m->recs);
  m->rec_first = malloc(l->n * sizeof *m->rec_first);
  m->lines = malloc((l->nlines ? l->nlines : 1) * sizeof *m->lines);
  if (!m->recs || !m->rec_first || !m->lines) {
    tui_model_free(m);
    return -1;
  }
  for (size_t i = 0; i < l->n; i++) {
    struct tui_rec *r = tui_reclist_at(l, i);
    tui_rec_ref(r);
    m->recs[m->nrecs] = r;
    m->rec_first[m->nrecs] = m->nlines;
    for (uint32_t k = 0; k < r->nlines; k++)
      m->lines[m->nlines++] = (struct tui_mline){(uint32_t)m->nrecs, k};
    m->nrecs++;
  }
  return 0;
}

int tui_model_from_text(struct tui_model *m, const char *type, const char *text) {
  struct tui_reclist l = {0};
  struct tui_rec *r = tui_rec_new(type, NULL, text);
  int rc = r ? tui_reclist_push(&l, r) : -1;
  tui_rec_unref(r);
  if (rc == 0) rc = tui_model_from(m, &l);
  tui_reclist_free(&l);
  return rc;
}

const char *tui_model_line(const struct tui_model *m, size_t i) {
  if (i >= m->nlines) return NULL;
  return m->recs[m->lines[i].rec]->lines[m->lines[i].part];
}

const struct tui_rec *tui_model_rec(const struct tui_model *m, size_t i) {
  return i < m->nlines ? m->recs[m->lines[i].rec] : NULL;
}

size_t tui_model_rec_start(const struct tui_model *m, size_t k) {
  return k < m->nrecs ? m->rec_first[k] : m->nlines;
}

int tui_model_copy(struct tui_model *dst, const struct tui_model *src) {
  struct tui_model m = {0};
  if (src->nrecs) {
    m.recs = malloc(src->nrecs * sizeof *m.recs);
    m.rec_first = malloc(src->nrecs * sizeof *m.rec_first);
    m.lines = malloc((src->nlines ? src->nlines : 1) * sizeof *m.lines);
    if (!m.recs || !m.rec_first || !m.lines) {
      tui_model_free(&m);
      tui_model_free(dst);
      return -1;
    }
    for (size_t i = 0; i < src->nrecs; i++) tui_rec_ref(src->recs[i]);
    memcpy(m.recs, src->recs, src->nrecs * sizeof *m.recs);
    memcpy(m.rec_first, src->rec_first, src->nrecs * sizeof *m.rec_first);
    memcpy(m.lines, src->lines, src->nlines * sizeof *m.lines);
    m.nrecs = src->nrecs;
    m.nlines = src->nlines;
  }
  tui_model_free(dst);
  *dst = m;
  return 0;
}
