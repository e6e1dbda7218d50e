/* jitranges.c: the program's JIT code ranges (jitranges.h). */
#include "plugins/entrypatch/jitranges.h"

#include <string.h>

/* Memory no file backs: "" or a name the program gave it ([anon:...]).
 * Not the stack, heap or the kernel's pages ([vdso], [vsyscall]). */
static int anonymous(const struct ep_mapping *g) {
  return g->path[0] == '\0' || strncmp(g->path, "[anon:", 6) == 0;
}

static int overlaps(uint64_t lo, uint64_t hi, const struct agent_mapping *ours, size_t nours) {
  for (size_t i = 0; i < nours; i++)
    if (ours[i].size && lo < ours[i].base + ours[i].size && ours[i].base < hi) return 1;
  return 0;
}

/* Keep the cap largest: replace the smallest kept one when r is larger. */
static void keep(struct agent_mapping *out, size_t *n, size_t cap, struct agent_mapping r) {
  if (*n < cap) {
    out[(*n)++] = r;
    return;
  }
  size_t small = 0;
  for (size_t i = 1; i < cap; i++)
    if (out[i].size < out[small].size) small = i;
  if (cap && r.size > out[small].size) out[small] = r;
}

size_t ep_jit_ranges(const struct ep_maps *m, const struct agent_mapping *ours, size_t nours,
                     struct agent_mapping *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < m->n; i++) {
    const struct ep_mapping *g = &m->v[i];
    if (!g->exec || !anonymous(g) || overlaps(g->lo, g->hi, ours, nours)) continue;
    /* grow over the contiguous anonymous neighbours (the reserved rest of
     * the code cache), never into a mapping of ours */
    size_t lo = i, hi = i;
    while (lo > 0 && anonymous(&m->v[lo - 1]) && m->v[lo - 1].hi == m->v[lo].lo &&
           !overlaps(m->v[lo - 1].lo, m->v[lo - 1].hi, ours, nours))
      lo--;
    while (hi + 1 < m->n && anonymous(&m->v[hi + 1]) && m->v[hi + 1].lo == m->v[hi].hi &&
           !overlaps(m->v[hi + 1].lo, m->v[hi + 1].hi, ours, nours))
      hi++;
    keep(out, &n, cap, (struct agent_mapping){m->v[lo].lo, m->v[hi].hi - m->v[lo].lo});
    i = hi; /* the next executable mapping after this run starts a new range */
  }
  return n;
}
