/* maps.c: /proc/<pid>/maps parsed into address-ordered mappings (maps.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/maps.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Paths go into one growing arena; mappings keep offsets into it until the
 * end, when the arena stops moving and offsets become pointers. */
struct arena {
  char *buf;
  size_t len, cap;
};

static long arena_add(struct arena *a, const char *s, size_t n) {
  if (a->len + n + 1 > a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 4096;
    while (cap < a->len + n + 1) cap *= 2;
    char *nb = realloc(a->buf, cap);
    if (!nb) return -1;
    a->buf = nb, a->cap = cap;
  }
  memcpy(a->buf + a->len, s, n);
  a->buf[a->len + n] = '\0';
  long at = (long)a->len;
  a->len += n + 1;
  return at;
}

int ep_maps_parse(FILE *f, struct ep_maps *m) {
  memset(m, 0, sizeof *m);
  struct arena names = {0};
  size_t cap = 0;
  char *line = NULL;
  size_t linecap = 0;
  int rc = 0;
  while (getline(&line, &linecap, f) > 0) {
    uint64_t lo, hi, off, inode;
    unsigned maj, min;
    char perms[8];
    int pathpos = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &lo, &hi,
               perms, &off, &maj, &min, &inode, &pathpos) < 7)
      continue;
    const char *path = pathpos ? line + pathpos : "";
    size_t plen = strcspn(path, "\n");
    long at = arena_add(&names, path, plen);
    if (at < 0) {
      rc = -1;
      break;
    }
    if (m->n == cap) {
      size_t ncap = cap ? cap * 2 : 256;
      struct ep_mapping *nv = realloc(m->v, ncap * sizeof *nv);
      if (!nv) {
        rc = -1;
        break;
      }
      m->v = nv, cap = ncap;
    }
    m->v[m->n++] = (struct ep_mapping){lo,
                                       hi,
                                       off,
                                       inode,
                                       (maj << 16) | (min & 0xffff),
                                       strchr(perms, 'x') != NULL,
                                       (const char *)(intptr_t)at};
  }
  free(line);
  if (rc) {
    free(m->v), free(names.buf);
    memset(m, 0, sizeof *m);
    return -1;
  }
  m->paths = names.buf;
  for (size_t i = 0; i < m->n; i++) m->v[i].path = m->paths + (intptr_t)m->v[i].path;
  return 0;
}

int ep_maps_read(pid_t pid, struct ep_maps *m) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) {
    memset(m, 0, sizeof *m);
    return -1;
  }
  int rc = ep_maps_parse(f, m);
  fclose(f);
  return rc;
}

void ep_maps_free(struct ep_maps *m) {
  free(m->v);
  free(m->paths);
  memset(m, 0, sizeof *m);
}

const struct ep_mapping *ep_maps_find(const struct ep_maps *m, uint64_t addr) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (addr < m->v[mid].lo)
      hi = mid;
    else if (addr >= m->v[mid].hi)
      lo = mid + 1;
    else
      return &m->v[mid];
  }
  return NULL;
}

int ep_mapping_is_exec_file(const struct ep_mapping *g) { return g->exec && g->path[0] == '/'; }

int ep_mapping_same_file(const struct ep_mapping *a, const struct ep_mapping *b) {
  if (a->inode || b->inode) return a->inode == b->inode && a->dev == b->dev;
  return strcmp(a->path, b->path) == 0;
}
