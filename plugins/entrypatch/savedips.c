/* savedips.c: code pointers on the stopped threads' stacks (savedips.h). */
#include "plugins/entrypatch/savedips.h"

#include <stdlib.h>
#include <string.h>

static int add(struct ep_addr_set *s, uint64_t a) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    uint64_t *nv = realloc(s->v, cap * sizeof *nv);
    if (!nv) return -1;
    s->v = nv, s->cap = cap;
  }
  s->v[s->n++] = a;
  return 0;
}

int ep_saved_ips_add_words(struct ep_addr_set *s, const uint64_t *words, size_t n,
                           const struct ep_maps *maps) {
  /* consecutive words mostly point into the same mapping: remember it */
  const struct ep_mapping *last = NULL;
  for (size_t i = 0; i < n; i++) {
    uint64_t w = words[i];
    if (maps) {
      if (!last || w < last->lo || w >= last->hi) {
        const struct ep_mapping *g = ep_maps_find(maps, w);
        if (!g || !ep_mapping_is_exec_file(g)) continue;
        last = g;
      }
    }
    if (add(s, w) != 0) return -1;
  }
  return 0;
}

int ep_saved_ips_collect(const struct asmspy_host_api *host, struct asmspy_target *t,
                         const struct ep_maps *maps, const uint64_t *sps, uint32_t nthreads,
                         struct ep_addr_set *s) {
  uint64_t *buf = malloc(EP_STACK_SCAN_MAX);
  if (!buf) return -1;
  uint64_t total = 0;
  int rc = 0;
  for (uint32_t i = 0; i < nthreads && !rc && total < EP_STACK_SCAN_TOTAL; i++) {
    uint64_t sp = sps[i] & ~7ull;
    const struct ep_mapping *g = ep_maps_find(maps, sp);
    if (!g) continue; /* sp in no mapping: nothing a signal could have saved there */
    uint64_t len = g->hi - sp;
    if (len > EP_STACK_SCAN_MAX) len = EP_STACK_SCAN_MAX;
    ssize_t got = host->read_mem(t, sp, buf, (size_t)len);
    if (got <= 0) continue;
    total += (uint64_t)got;
    rc = ep_saved_ips_add_words(s, buf, (size_t)got / 8, maps);
  }
  free(buf);
  return rc;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

void ep_addr_set_seal(struct ep_addr_set *s) {
  if (!s->n) return;
  qsort(s->v, s->n, sizeof *s->v, cmp_u64);
  size_t k = 1;
  for (size_t i = 1; i < s->n; i++)
    if (s->v[i] != s->v[k - 1]) s->v[k++] = s->v[i];
  s->n = k;
}

uint64_t ep_addr_set_hit(const struct ep_addr_set *s, uint64_t lo, uint64_t hi) {
  /* the first element > lo */
  size_t a = 0, b = s->n;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (s->v[mid] <= lo)
      a = mid + 1;
    else
      b = mid;
  }
  return a < s->n && s->v[a] < hi ? s->v[a] : 0;
}

void ep_addr_set_free(struct ep_addr_set *s) {
  free(s->v);
  memset(s, 0, sizeof *s);
}
