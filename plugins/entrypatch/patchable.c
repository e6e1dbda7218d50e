/* patchable.c: a planned patch against the whole process (patchable.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/patchable.h"
#include "plugins/entrypatch/branchscan.h"
#include "plugins/entrypatch/savedips.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READ_CHUNK (1u << 20) /* code read from the target per read_mem */

enum module_state { MODULE_SCANNED, MODULE_TOO_BIG, MODULE_UNREADABLE };

struct module_scan {
  const struct ep_mapping *first; /* its first executable mapping (the key) */
  enum module_state state;
  struct ep_branch_map *branches; /* one per executable mapping of the file */
  size_t nbranches;
};

struct ep_patchable {
  const struct asmspy_host_api *host;
  struct asmspy_target *t;
  struct ep_maps maps;
  csh cs; /* detail off: the sweep only needs lengths and bytes */
  struct module_scan *modules;
  size_t nmodules, modcap;
  struct ep_addr_set saved;
  uint64_t *entries; /* the candidates' entries, sorted (ep_patchable_expect) */
  size_t nentries;
  uint8_t *chunk;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct ep_patchable *ep_patchable_open(const struct asmspy_host_api *host, struct asmspy_target *t,
                                       pid_t pid, const uint64_t *sps, uint32_t nthreads) {
  struct ep_patchable *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->host = host, g->t = t;
  g->chunk = malloc(READ_CHUNK);
  if (!g->chunk || ep_maps_read(pid, &g->maps) != 0 ||
      cs_open(CS_ARCH_X86, CS_MODE_64, &g->cs) != CS_ERR_OK) {
    ep_maps_free(&g->maps);
    free(g->chunk), free(g);
    return NULL;
  }
  if (ep_saved_ips_collect(host, t, &g->maps, sps, nthreads, &g->saved) != 0) {
    ep_patchable_close(g);
    return NULL;
  }
  ep_addr_set_seal(&g->saved);
  return g;
}

const struct ep_maps *ep_patchable_maps(const struct ep_patchable *g) { return &g->maps; }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int ep_patchable_expect(struct ep_patchable *g, const uint64_t *entries, size_t n) {
  free(g->entries);
  g->nentries = 0;
  g->entries = malloc((n ? n : 1) * sizeof *g->entries);
  if (!g->entries) return -1;
  memcpy(g->entries, entries, n * sizeof *entries);
  qsort(g->entries, n, sizeof *g->entries, cmp_u64);
  g->nentries = n;
  return 0;
}

/* Where rel8 branches into (e, e + EP_MAX_DISPLACED) can come from, with
 * a run-up before it for the sweep to fall into step with the
 * instructions (x86 decoding resynchronises within a few instructions). */
#define WINDOW_BEFORE 512u
#define WINDOW_AFTER (uint64_t)((EP_MAX_DISPLACED) + 160)

enum pass { PASS_REL32_BYTES, PASS_DECODE };

/* One pass over [lo, hi) of the target, read in chunks. 0, or -1 (a read
 * failed). */
static int sweep(struct ep_patchable *g, struct module_scan *m, uint64_t lo, uint64_t hi,
                 enum pass pass) {
  for (uint64_t at = lo; at < hi;) {
    size_t want = hi - at < READ_CHUNK ? (size_t)(hi - at) : READ_CHUNK;
    ssize_t got = g->host->read_mem(g->t, at, g->chunk, want);
    if (got <= 0) return -1;
    int last = at + (uint64_t)got >= hi;
    size_t used = pass == PASS_DECODE ? ep_branch_scan_code(g->cs, g->chunk, (size_t)got, at, last,
                                                            m->branches, m->nbranches)
                                      : ep_branch_scan_rel32_bytes(g->chunk, (size_t)got, at, last,
                                                                   m->branches, m->nbranches);
    at += used ? used : (size_t)got; /* a short read that ends mid-instruction */
  }
  return 0;
}

/* Mark every direct branch target in m's executable mappings: rel8 and
 * rel32 ones by decoding the windows around the candidates (merged where
 * they overlap: the whole text when candidates are dense), rel32 ones from
 * the code between the windows by the byte pass (a stray pattern there
 * marks a random address: ~1 function in 1000 of libc refused for
 * nothing; inside the windows the decoding is exact). --module=libc: ~80
 * ms; three functions of node's 30 MB picked by --filter: ~40 ms for the
 * byte pass instead of ~2 s of decoding. */
static void scan_module(struct ep_patchable *g, struct module_scan *m) {
  uint64_t bytes = 0;
  size_t n = 0;
  for (size_t i = 0; i < g->maps.n; i++) {
    const struct ep_mapping *x = &g->maps.v[i];
    if (!x->exec || !ep_mapping_same_file(x, m->first)) continue;
    bytes += x->hi - x->lo;
    n++;
  }
  if (bytes > EP_BRANCH_SCAN_MAX) {
    m->state = MODULE_TOO_BIG;
    return;
  }
  m->state = MODULE_UNREADABLE;
  m->branches = calloc(n, sizeof *m->branches);
  if (!m->branches) return;
  for (size_t i = 0; i < g->maps.n; i++) {
    const struct ep_mapping *x = &g->maps.v[i];
    if (!x->exec || !ep_mapping_same_file(x, m->first)) continue;
    if (ep_branch_map_init(&m->branches[m->nbranches], x->lo, x->hi) != 0) return;
    m->nbranches++;
  }
  double t0 = now_ms();
  uint64_t decoded = 0;
  for (size_t k = 0; k < m->nbranches; k++) {
    uint64_t lo = m->branches[k].lo, hi = m->branches[k].hi;
    uint64_t gap = lo; /* the byte pass has covered [lo, gap) */
    size_t c = 0;      /* the candidates in this mapping (entries are sorted) */
    while (c < g->nentries && g->entries[c] < lo) c++;
    while (c < g->nentries && g->entries[c] < hi) {
      uint64_t e = g->entries[c];
      uint64_t wlo = e - lo > WINDOW_BEFORE ? e - WINDOW_BEFORE : lo;
      uint64_t whi = hi - e > WINDOW_AFTER ? e + WINDOW_AFTER : hi;
      for (c++; c < g->nentries && g->entries[c] < hi; c++) {
        uint64_t next_lo = g->entries[c] - lo > WINDOW_BEFORE ? g->entries[c] - WINDOW_BEFORE : lo;
        if (next_lo > whi) break;
        whi = hi - g->entries[c] > WINDOW_AFTER ? g->entries[c] + WINDOW_AFTER : hi;
      }
      /* the byte pass up to the window; its last patterns may reach into
       * the window's first bytes (an instruction the decoding starts after) */
      if (wlo > gap && sweep(g, m, gap, wlo + 6 < hi ? wlo + 6 : hi, PASS_REL32_BYTES) != 0) return;
      if (sweep(g, m, wlo, whi, PASS_DECODE) != 0) return;
      decoded += whi - wlo;
      gap = whi;
    }
    if (gap < hi && sweep(g, m, gap, hi, PASS_REL32_BYTES) != 0) return;
  }
  m->state = MODULE_SCANNED;
  if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
    fprintf(stderr, "entrypatch: branch scan of %s: %llu bytes of code (%llu decoded) in %.1f ms\n",
            m->first->path, (unsigned long long)bytes, (unsigned long long)decoded, now_ms() - t0);
}

static struct module_scan *module_of(struct ep_patchable *g, const struct ep_mapping *x) {
  for (size_t i = 0; i < g->nmodules; i++)
    if (ep_mapping_same_file(g->modules[i].first, x)) return &g->modules[i];
  if (g->nmodules == g->modcap) {
    size_t cap = g->modcap ? g->modcap * 2 : 16;
    struct module_scan *nv = realloc(g->modules, cap * sizeof *nv);
    if (!nv) return NULL;
    g->modules = nv, g->modcap = cap;
  }
  struct module_scan *m = &g->modules[g->nmodules++];
  memset(m, 0, sizeof *m);
  /* the key: the file's first executable mapping (maps are in address order) */
  m->first = x;
  for (size_t i = 0; i < g->maps.n; i++)
    if (g->maps.v[i].exec && ep_mapping_same_file(&g->maps.v[i], x)) {
      m->first = &g->maps.v[i];
      break;
    }
  scan_module(g, m);
  return m;
}

int ep_patchable_check(struct ep_patchable *g, const struct ep_patch *p, char *why, size_t cap) {
  const struct ep_mapping *x = ep_maps_find(&g->maps, p->addr);
  if (!x || !ep_mapping_is_exec_file(x) || p->addr + p->len > x->hi) {
    snprintf(why, cap, "not in an executable file mapping");
    return -1;
  }
  struct module_scan *m = module_of(g, x);
  if (!m) {
    snprintf(why, cap, "out of memory");
    return -1;
  }
  if (m->state == MODULE_TOO_BIG) {
    snprintf(why, cap,
             "its module has too much code to scan for branches into its first bytes (over %llu "
             "MiB)",
             (unsigned long long)(EP_BRANCH_SCAN_MAX >> 20));
    return -1;
  }
  if (m->state == MODULE_UNREADABLE) {
    snprintf(why, cap, "its module's code cannot be read to scan for branches into it");
    return -1;
  }
  uint64_t hit = 0;
  for (size_t k = 0; k < m->nbranches && !hit; k++)
    hit = ep_branch_map_hit(&m->branches[k], p->addr, p->addr + p->len);
  if (hit) {
    if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
      fprintf(stderr, "entrypatch: a branch lands at 0x%llx, inside %s's first %u bytes\n",
              (unsigned long long)hit, p->name ? p->name : "?", p->len);
    snprintf(why, cap, "a direct branch in its module lands in its first bytes (+%llu)",
             (unsigned long long)(hit - p->addr));
    return -1;
  }
  hit = ep_addr_set_hit(&g->saved, p->addr, p->addr + p->len);
  if (hit) {
    snprintf(why, cap,
             "an instruction pointer saved on a thread's stack, by a signal frame or a context, "
             "is inside its first bytes (+%llu)",
             (unsigned long long)(hit - p->addr));
    return -1;
  }
  return 0;
}

void ep_patchable_close(struct ep_patchable *g) {
  if (!g) return;
  for (size_t i = 0; i < g->nmodules; i++) {
    for (size_t k = 0; k < g->modules[i].nbranches; k++)
      ep_branch_map_free(&g->modules[i].branches[k]);
    free(g->modules[i].branches);
  }
  free(g->modules);
  free(g->entries);
  ep_addr_set_free(&g->saved);
  ep_maps_free(&g->maps);
  cs_close(&g->cs);
  free(g->chunk);
  free(g);
}
