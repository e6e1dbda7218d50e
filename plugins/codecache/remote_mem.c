/* remote_mem.c — codecache's memory in a traced process (remote.h).
 *
 * Two kinds of shared mappings (memfds mapped in the target and here, so
 * asmspy writes with plain stores what the target runs):
 *   - the data mapping: the shared hash the target-side dispatcher looks
 *     up, then one slot per thread (its block, private stack, records);
 *   - code chunks (4 MiB, rwx in the target), each placed within rel32
 *     reach of the code it translates, like the in-process cache's.
 * Every mapping is MADV_DONTFORK: a child the program forks gets none of
 * them. Every one is listed for the leave, which unmaps them.
 *
 * Linking: a direct branch whose target was not translated yet goes
 * through an exit stub; once that target is translated, asmspy re-aims
 * the branch's rel32 at it. Other threads may be running that branch, so
 * the rel32 is 4-byte aligned (translate.c, align_rel32) and re-aimed by a
 * single aligned store. */
#define _GNU_SOURCE
#include "plugins/codecache/remote.h"

#include "plugins/codecache/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define MADV_DONTFORK_ 10

struct rmap {
  uint64_t addr, len;
  void *local;
};
static struct rmap g_maps[CC_MAX_CHUNKS + 1]; /* one session per asmspy process */
static unsigned g_nmaps;

static uint64_t map_shared(struct cc_remote *rm, uint64_t hint, uint64_t len, int prot,
                           void **local, char *why, size_t whycap) {
  if (g_nmaps == sizeof g_maps / sizeof *g_maps) {
    snprintf(why, whycap, "too many code chunks");
    return 0;
  }
  uint64_t a = ep_remote_shared(&rm->rem, hint, len, prot, "asmspy-codecache", local, why, whycap);
  if (!a) return 0;
  ep_remote_call(&rm->rem, SYS_madvise, a, len, MADV_DONTFORK_, 0, 0, 0);
  g_maps[g_nmaps++] = (struct rmap){a, len, *local};
  return a;
}

int rm_map_data(struct cc_remote *rm, char *why, size_t whycap) {
  g_nmaps = 0;
  void *local;
  rm->data_t =
      map_shared(rm, 0, RT_DATA_BYTES(rm->nslots), PROT_READ | PROT_WRITE, &local, why, whycap);
  rm->data = local;
  return rm->data_t ? 0 : -1;
}

int rm_map_chunk(struct cc_remote *rm, uint64_t near, struct cc_chunk *out) {
  uint64_t gap = ep_find_gap_near(rm->s->pid, near, near + 1, CC_CHUNK_SIZE);
  char why[256] = "";
  void *local = NULL;
  uint64_t a = gap ? map_shared(rm, gap, CC_CHUNK_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, &local,
                                why, sizeof why)
                   : 0;
  if (!a) {
    rm_note(rm, ASMSPY_NOTE_WARN, "codecache: no code memory near 0x%llx%s%s",
            (unsigned long long)near, why[0] ? ": " : "", why);
    return -1;
  }
  out->base = local;
  out->tbase = a;
  out->size = CC_CHUNK_SIZE;
  out->used = 0;
  return 0;
}

ssize_t rm_read_code(struct cc_remote *rm, uint64_t addr, void *buf, size_t n) {
  return rm->host->read_mem(rm->s->target, addr, buf, n);
}

void rm_unmap_all(struct cc_remote *rm) {
  for (unsigned i = 0; i < g_nmaps; i++) {
    ep_remote_call(&rm->rem, SYS_munmap, g_maps[i].addr, g_maps[i].len, 0, 0, 0, 0);
    munmap(g_maps[i].local, g_maps[i].len);
  }
  g_nmaps = 0;
}

void rm_forget_maps(struct cc_remote *rm) {
  (void)rm;
  for (unsigned i = 0; i < g_nmaps; i++) munmap(g_maps[i].local, g_maps[i].len);
  g_nmaps = 0;
}

int rm_in_cache(const struct cc_remote *rm, uint64_t addr) {
  (void)rm;
  for (unsigned i = 1; i < g_nmaps; i++) /* [0] is the data mapping */
    if (addr >= g_maps[i].addr && addr - g_maps[i].addr < g_maps[i].len) return 1;
  return 0;
}

int rm_place_dispatcher(struct cc_remote *rm, uint64_t near) {
  struct cc_chunk *ch;
  size_t n = (size_t)(cc_rdisp_end - cc_rdisp_begin);
  uint8_t *p = cc_code_room(&rm->c, near, n, &ch);
  if (!p) return -1;
  memcpy(p, cc_rdisp_begin, n);
  rm->disp_t = cc_chunk_addr(ch, p);
  cc_code_commit(ch, p + n);
  return 0;
}

void rm_reset_translations(struct cc_remote *rm) {
  struct cc_cache *c = &rm->c;
  struct cc_chunk chunks[CC_MAX_CHUNKS];
  unsigned n = c->nchunks;
  memcpy(chunks, c->chunks, sizeof chunks);
  struct cc_cache keep = *c; /* how it translates: segment, reader, chunk source, probes */
  cc_cache_fini(c);
  memset(c, 0, sizeof *c);
  c->seg = keep.seg, c->remote = keep.remote, c->read_code = keep.read_code;
  c->map_chunk = keep.map_chunk, c->probe_lo = keep.probe_lo, c->probe_len = keep.probe_len;
  c->code_volatile = keep.code_volatile;
  if (cc_cache_init(c)) return;
  struct cc_stub reserved = {CC_STUB_IBL, 0, 0, 0};
  while (c->nstubs <= CC_RSTUB_LAST) cc_stub_add(c, &reserved);
  memcpy(c->chunks, chunks, sizeof chunks);
  c->nchunks = n;
  size_t disp = (size_t)(cc_rdisp_end - cc_rdisp_begin);
  for (unsigned i = 0; i < n; i++) { /* emptied; the dispatcher stays where it is */
    struct cc_chunk *ch = &c->chunks[i];
    ch->used = rm->disp_t >= ch->tbase && rm->disp_t - ch->tbase < ch->size
                   ? ((rm->disp_t - ch->tbase + disp + 15) & ~(size_t)15)
                   : 0;
  }
  memset(rm->data, 0, RT_HASH_BYTES);
  rm->hcount = 0;
  free(rm->waiting), free(rm->wkeys), free(rm->whead);
  rm->waiting = NULL, rm->wkeys = NULL, rm->whead = NULL;
  rm->wmask = rm->wcount = rm->capwait = 0;
}

int rm_translated_in(const struct cc_remote *rm, uint64_t lo, uint64_t len, int only_unchecked) {
  for (uint64_t i = 0; i < rm->c.nblocks; i++) {
    const struct cc_block *b = &rm->c.blocks[i];
    if (only_unchecked && (b->flags & CC_CHECKED)) continue;
    if (b->orig < lo + len && lo < b->orig + b->nbytes) return 1;
  }
  return 0;
}

uint8_t *rm_local(const struct cc_remote *rm, uint64_t addr) {
  for (unsigned i = 0; i < rm->c.nchunks; i++) {
    const struct cc_chunk *ch = &rm->c.chunks[i];
    if (addr >= ch->tbase && addr - ch->tbase < ch->size) return ch->base + (addr - ch->tbase);
  }
  return NULL;
}

/* ------------------------------------------------------- the shared hash -- */

static int publish(struct cc_remote *rm, uint64_t orig, uint64_t code) {
  uint64_t *h = (uint64_t *)(void *)rm->data, mask = RT_HSLOTS - 1;
  if ((rm->hcount + 1) * 2 > RT_HSLOTS) return -1;
  uint64_t i = cc_hslot(orig, mask);
  while (h[2 * i] && h[2 * i] != orig) i = (i + 1) & mask;
  if (!h[2 * i]) rm->hcount++;
  h[2 * i + 1] = code;                                 /* the value first, */
  __atomic_store_n(&h[2 * i], orig, __ATOMIC_RELEASE); /* then the key the lookup matches */
  return 0;
}

/* ------------------------------------------------------------- linking -- */

/* Where the rel32 a stub's branch left runs, from where we wrote it. */
static uint64_t patch_addr(const struct cc_remote *rm, uint64_t local) {
  for (unsigned i = 0; i < rm->c.nchunks; i++) {
    const struct cc_chunk *ch = &rm->c.chunks[i];
    uint64_t b = (uint64_t)(uintptr_t)ch->base;
    if (local >= b && local - b < ch->size) return ch->tbase + (local - b);
  }
  return 0;
}

static void link_stub(struct cc_remote *rm, uint32_t idx, uint64_t code) {
  struct cc_stub *s = &rm->c.stubs[idx];
  uint64_t at = patch_addr(rm, s->patch);
  int32_t rel;
  if (!at || (at & 3) || !cc_rel32(at + 4, code, &rel)) return;
  __atomic_store_n((int32_t *)(uintptr_t)s->patch, rel, __ATOMIC_RELEASE);
  s->kind = CC_STUB_IBL; /* linked: never again */
}

static int wait_grow(struct cc_remote *rm, uint64_t nstubs) {
  if (nstubs > rm->capwait) {
    uint64_t nc = rm->capwait ? rm->capwait * 2 : 4096;
    while (nc < nstubs) nc *= 2;
    uint32_t *w = realloc(rm->waiting, nc * sizeof *w);
    if (!w) return -1;
    rm->waiting = w;
    rm->capwait = nc;
  }
  if ((rm->wcount + 1) * 2 > rm->wmask) { /* the target -> first stub table, rehashed */
    uint64_t nm = rm->wmask ? rm->wmask * 2 + 1 : 4095;
    uint64_t *k = calloc(nm + 1, sizeof *k);
    uint32_t *hd = calloc(nm + 1, sizeof *hd);
    if (!k || !hd) {
      free(k), free(hd);
      return -1;
    }
    for (uint64_t i = 0; rm->wkeys && i <= rm->wmask; i++) {
      if (!rm->wkeys[i]) continue;
      uint64_t j = cc_hslot(rm->wkeys[i], nm);
      while (k[j]) j = (j + 1) & nm;
      k[j] = rm->wkeys[i], hd[j] = rm->whead[i];
    }
    free(rm->wkeys), free(rm->whead);
    rm->wkeys = k, rm->whead = hd, rm->wmask = nm;
  }
  return 0;
}

static uint64_t wslot(const struct cc_remote *rm, uint64_t target) {
  uint64_t j = cc_hslot(target, rm->wmask);
  while (rm->wkeys[j] && rm->wkeys[j] != target) j = (j + 1) & rm->wmask;
  return j;
}

/* The stubs a translation just made wait for their targets. */
static void wait_for_targets(struct cc_remote *rm, uint64_t from) {
  if (wait_grow(rm, rm->c.nstubs)) return; /* unlinked: they go through the dispatcher */
  for (uint64_t i = from; i < rm->c.nstubs; i++) {
    if (rm->c.stubs[i].kind != CC_STUB_LINK) continue;
    if (wait_grow(rm, rm->c.nstubs)) return;
    uint64_t j = wslot(rm, rm->c.stubs[i].target);
    if (!rm->wkeys[j]) rm->wkeys[j] = rm->c.stubs[i].target, rm->wcount++;
    rm->waiting[i] = rm->whead[j];
    rm->whead[j] = (uint32_t)i;
  }
}

/* Link every stub waiting for orig, now at code. */
static void link_waiting(struct cc_remote *rm, uint64_t orig, uint64_t code) {
  if (!rm->wkeys) return;
  uint64_t j = wslot(rm, orig);
  if (!rm->wkeys[j]) return;
  for (uint32_t i = rm->whead[j]; i; i = rm->waiting[i])
    if (rm->c.stubs[i].kind == CC_STUB_LINK && rm->c.stubs[i].target == orig)
      link_stub(rm, i, code);
  rm->whead[j] = 0; /* the key stays: open addressing keeps its chain of probes */
}

int64_t rm_translate(struct cc_remote *rm, uint64_t orig, pid_t in_tid, const char **why) {
  uint32_t hit = cc_lookup(&rm->c, orig);
  if (hit) return hit - 1;
  return rm_translate_again(rm, orig, in_tid, why);
}

int64_t rm_translate_again(struct cc_remote *rm, uint64_t orig, pid_t in_tid, const char **why) {
  rm->rem.tid = in_tid; /* a new chunk is mapped by a call in this (stopped) thread */
  uint64_t from = rm->c.nstubs;
  int kind;
  int64_t bi = cc_translate(&rm->c, orig, why, &kind);
  if (bi < 0) return -1;
  uint64_t code = rm->c.blocks[bi].code;
  if (publish(rm, orig, code)) {
    *why = "the shared hash is full";
    return -1;
  }
  wait_for_targets(rm, from);
  link_waiting(rm, orig, code);
  return bi;
}
