/* The per-thread code cache (cache.h): memory, tables, lifetime.
 *
 * One cache per thread, kept across that thread's scopes (a loop of scopes
 * translates its code once), dropped when the link map changes (a module
 * loaded or unloaded may put other code at a translated address) and
 * freed at thread exit — unless the thread exits from inside a scope
 * (pthread_exit runs the key destructor on translated code: the cache is
 * then leaked, a bounded cost, rather than unmapped under it). */
#define _GNU_SOURCE
#include "plugins/codecache/cache.h"

#include "plugins/codecache/emit.h"

#include <cpuid.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__thread struct cc_tls cc_tls __attribute__((tls_model("initial-exec"), visibility("hidden")));
int32_t cc_tls_off __attribute__((visibility("hidden")));

_Static_assert(offsetof(struct cc_tls, s_rsp) == CC_TLS_S_RSP, "tls layout");
_Static_assert(offsetof(struct cc_tls, pstack) == CC_TLS_PSTACK, "tls layout");
_Static_assert(offsetof(struct cc_tls, dispatch) == CC_TLS_DISPATCH, "tls layout");
_Static_assert(offsetof(struct cc_tls, tgt) == CC_TLS_TGT, "tls layout");
_Static_assert(offsetof(struct cc_tls, s_rax) == CC_TLS_S_RAX, "tls layout");
_Static_assert(offsetof(struct cc_tls, s_rcx) == CC_TLS_S_RCX, "tls layout");
_Static_assert(offsetof(struct cc_tls, cursor) == CC_TLS_CURSOR, "tls layout");
_Static_assert(offsetof(struct cc_tls, remain) == CC_TLS_REMAIN, "tls layout");
_Static_assert(offsetof(struct cc_tls, full) == CC_TLS_FULL, "tls layout");
_Static_assert(sizeof(struct cc_regs) == 17 * 8, "dispatch.S pushes 16 words above idx");

#define REACH ((int64_t)1 << 31)
#define REACH_MARGIN ((int64_t)64 << 20)

static pthread_key_t g_key;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void *map(size_t n) {
  void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Grow an mmap'd array to hold at least `need` elements of `elem` bytes. */
static int grow(void **arr, uint64_t *cap, uint64_t need, size_t elem) {
  if (need <= *cap) return 0;
  uint64_t nc = *cap ? *cap : 1024;
  while (nc < need) nc *= 2;
  size_t old = *cap * elem, want = (nc * elem + 4095) & ~(size_t)4095;
  void *p = *arr ? mremap(*arr, (old + 4095) & ~(size_t)4095, want, MREMAP_MAYMOVE) : map(want);
  if (!p || p == MAP_FAILED) return -1;
  *arr = p;
  *cap = want / elem;
  return 0;
}

void cc_cache_fini(struct cc_cache *c) {
  if (c->hkeys) munmap(c->hkeys, (c->hmask + 1) * 8);
  if (c->hvals) munmap(c->hvals, ((c->hmask + 1) * 4 + 4095) & ~(size_t)4095);
  if (c->blocks) munmap(c->blocks, (c->capblocks * sizeof *c->blocks + 4095) & ~(size_t)4095);
  if (c->lens) munmap(c->lens, (c->caplens + 4095) & ~(size_t)4095);
  if (c->bytes) munmap(c->bytes, (c->capbytes + 4095) & ~(size_t)4095);
  if (c->stubs) munmap(c->stubs, (c->capstubs * sizeof *c->stubs + 4095) & ~(size_t)4095);
  if (c->stack) munmap(c->stack, CC_STACK_SIZE);
  if (c->xsave) munmap(c->xsave, c->xsave_size);
  if (c->insn) cs_free(c->insn, 1);
  if (c->cs) cs_close(&c->cs);
}

static void cache_free(void *v) {
  struct cc_cache *c = v;
  if (!c) return;
  if (c->active) return; /* the thread exits from translated code: leak, never unmap under it */
  for (unsigned i = 0; i < c->nchunks; i++) munmap(c->chunks[i].base, c->chunks[i].size);
  cc_cache_fini(c);
  if (cc_tls.cache == c) cc_tls.cache = NULL;
  free(c);
}

static void once(void) {
  pthread_key_create(&g_key, cache_free);
  uint64_t tp;
  __asm__("movq %%fs:0, %0" : "=r"(tp)); /* the TCB's self pointer (x86-64 TLS ABI) */
  cc_tls_off = (int32_t)((int64_t)(uintptr_t)&cc_tls - (int64_t)tp);
}

static int hash_init(struct cc_cache *c, uint64_t slots) {
  uint64_t *k = map(slots * 8);
  uint32_t *v = map((slots * 4 + 4095) & ~(size_t)4095);
  if (!k || !v) {
    if (k) munmap(k, slots * 8);
    if (v) munmap(v, (slots * 4 + 4095) & ~(size_t)4095);
    return -1;
  }
  c->hkeys = k;
  c->hvals = v;
  c->hmask = slots - 1;
  c->hcount = 0;
  return 0;
}

static void hash_put(struct cc_cache *c, uint64_t key, uint32_t val) {
  uint64_t i = cc_hslot(key, c->hmask);
  while (c->hkeys[i] && c->hkeys[i] != key) i = (i + 1) & c->hmask;
  if (!c->hkeys[i]) c->hcount++;
  c->hkeys[i] = key;
  c->hvals[i] = val;
}

/* The generated pieces every thread's cache starts with: the exit tail the
 * dispatcher leaves through, and the arm tail the host's begin jumps to. */
static int make_tails(struct cc_cache *c) {
  struct cc_chunk *ch;
  uint8_t *p = cc_code_room(c, (uint64_t)(uintptr_t)&cc_dispatch, 64, &ch);
  if (!p) return -1;
  c->exit_tail = (uint64_t)(uintptr_t)p;
  p = cc_ld(&c->seg, p, R_SP, CC_TLS_S_RSP);
  p = cc_jmp_seg(&c->seg, p, CC_TLS_TGT);
  /* arm tail: exactly a translated `ret` (pop the caller's return address,
   * look it up as an indirect branch) */
  c->arm_tail = (uint64_t)(uintptr_t)p;
  p = cc_pop_seg(&c->seg, p, CC_TLS_TGT);
  p = cc_enter(&c->seg, p, CC_STUB_IBL);
  cc_code_commit(ch, p);
  return 0;
}

void cc_cache_flush(struct cc_cache *c) {
  for (unsigned i = 0; i < c->nchunks; i++) c->chunks[i].used = 0;
  memset(c->hkeys, 0, (c->hmask + 1) * 8);
  c->hcount = 0;
  c->nblocks = c->nlens = c->nbytes = 0;
  c->nstubs = 1; /* index 0 is the IBL */
  make_tails(c); /* the first chunk always has room after a flush */
}

int cc_cache_init(struct cc_cache *c) {
  if (hash_init(c, 1u << 14) || grow((void **)&c->stubs, &c->capstubs, 1, sizeof *c->stubs) ||
      cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK)
    return -1;
  cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
  c->insn = cs_malloc(c->cs);
  c->nstubs = 1;
  return c->insn ? 0 : -1;
}

static int phdr_counts(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  unsigned long long *out = data;
  out[0] = info->dlpi_adds;
  out[1] = info->dlpi_subs;
  return 1;
}

void cc_cache_check_maps(struct cc_cache *c) {
  unsigned long long n[2] = {0, 0};
  dl_iterate_phdr(phdr_counts, n);
  if (n[0] != c->dl_adds || n[1] != c->dl_subs) {
    c->dl_adds = n[0];
    c->dl_subs = n[1];
    cc_cache_flush(c);
  }
}

struct cc_cache *cc_cache_get(void) {
  if (cc_tls.cache) return cc_tls.cache;
  pthread_once(&g_once, once);
  unsigned a, b, cx, d;
  if (!__get_cpuid_count(0xd, 0, &a, &b, &cx, &d) || !b) return NULL;
  struct cc_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->xsave_size = ((size_t)b + 4095) & ~(size_t)4095;
  c->xsave = map(c->xsave_size); /* page-aligned, zeroed: a valid XSAVE header */
  c->stack = map(CC_STACK_SIZE);
  c->seg = (struct cc_seg){0x64, cc_tls_off};
  if (!c->xsave || !c->stack || cc_cache_init(c) || make_tails(c)) {
    cache_free(c);
    return NULL;
  }
  unsigned long long n[2] = {0, 0};
  dl_iterate_phdr(phdr_counts, n);
  c->dl_adds = n[0];
  c->dl_subs = n[1];
  /* private stack top: [0] this thread's tls block, [1] the exit tail,
   * [2] the xsave area (dispatch.S reads them relative to its rsp) */
  uint64_t *top = (uint64_t *)(uintptr_t)(c->stack + CC_STACK_SIZE - 64);
  top[0] = (uint64_t)(uintptr_t)&cc_tls;
  top[1] = c->exit_tail;
  top[2] = (uint64_t)(uintptr_t)c->xsave;
  cc_tls.pstack = (uint64_t)(uintptr_t)top;
  cc_tls.dispatch = (uint64_t)(uintptr_t)&cc_dispatch;
  cc_tls.cache = c;
  pthread_setspecific(g_key, c);
  return c;
}

static int reaches(const struct cc_chunk *ch, uint64_t near) {
  int64_t lo = (int64_t)(ch->tbase - near);
  int64_t hi = (int64_t)(ch->tbase + ch->size - near);
  return lo > -REACH + REACH_MARGIN && hi < REACH - REACH_MARGIN;
}

/* A new chunk near `near`: the kernel's choice if it lands in reach, else
 * hints stepping away from near in both directions. */
static struct cc_chunk *new_chunk(struct cc_cache *c, uint64_t near) {
  if (c->nchunks == CC_MAX_CHUNKS) return NULL;
  struct cc_chunk *ch = &c->chunks[c->nchunks];
  if (c->map_chunk) { /* in the traced process (remote.c) */
    if (c->map_chunk(c->remote, near, ch) || !reaches(ch, near)) return NULL;
    c->nchunks++;
    return ch;
  }
  const int prot = PROT_READ | PROT_WRITE | PROT_EXEC;
  for (int64_t step = 0; step < REACH - 2 * REACH_MARGIN; step += (int64_t)128 << 20) {
    for (int dir = -1; dir <= 1; dir += 2) {
      uint64_t hint = (near + (uint64_t)(dir * (step + ((int64_t)32 << 20)))) & ~(uint64_t)0xfffff;
      void *p = mmap((void *)(uintptr_t)hint, CC_CHUNK_SIZE, prot,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      ch->base = p;
      ch->tbase = (uint64_t)(uintptr_t)p;
      ch->size = CC_CHUNK_SIZE;
      ch->used = 0;
      if (reaches(ch, near)) {
        c->nchunks++;
        return ch;
      }
      munmap(p, CC_CHUNK_SIZE); /* an old kernel ignored NOREPLACE's placement */
    }
  }
  return NULL;
}

uint8_t *cc_code_room(struct cc_cache *c, uint64_t near, size_t want, struct cc_chunk **out) {
  for (unsigned i = 0; i < c->nchunks; i++) {
    struct cc_chunk *ch = &c->chunks[i];
    if (ch->size - ch->used >= want && reaches(ch, near)) {
      *out = ch;
      return ch->base + ch->used;
    }
  }
  struct cc_chunk *ch = new_chunk(c, near);
  if (!ch) return NULL;
  *out = ch;
  return ch->base;
}

void cc_code_commit(struct cc_chunk *ch, uint8_t *end) {
  ch->used = (size_t)(end - ch->base + 15) & ~(size_t)15;
}

int64_t cc_block_add(struct cc_cache *c, const struct cc_block *b, const uint8_t *lens,
                     const uint8_t *bytes) {
  if (grow((void **)&c->blocks, &c->capblocks, c->nblocks + 1, sizeof *c->blocks) ||
      grow((void **)&c->lens, &c->caplens, c->nlens + b->ninsn, 1) ||
      grow((void **)&c->bytes, &c->capbytes, c->nbytes + b->nbytes, 1))
    return -1;
  if ((c->hcount + 1) * 2 > c->hmask + 1) { /* rehash at half load */
    uint64_t *ok = c->hkeys, omask = c->hmask;
    uint32_t *ov = c->hvals;
    if (hash_init(c, (omask + 1) * 2)) {
      c->hkeys = ok, c->hvals = ov, c->hmask = omask;
      return -1;
    }
    for (uint64_t i = 0; i <= omask; i++)
      if (ok[i]) hash_put(c, ok[i], ov[i]);
    munmap(ok, (omask + 1) * 8);
    munmap(ov, ((omask + 1) * 4 + 4095) & ~(size_t)4095);
  }
  struct cc_block *nb = &c->blocks[c->nblocks];
  *nb = *b;
  nb->lens_off = (uint32_t)c->nlens;
  memcpy(c->lens + c->nlens, lens, b->ninsn);
  c->nlens += b->ninsn;
  nb->bytes_off = c->nbytes;
  memcpy(c->bytes + c->nbytes, bytes, b->nbytes);
  c->nbytes += b->nbytes;
  hash_put(c, b->orig, (uint32_t)(c->nblocks + 1));
  return (int64_t)c->nblocks++;
}

int cc_block_current(const struct cc_cache *c, const struct cc_block *b) {
  uint8_t now[CC_CHECKED_MAX_INSNS * 15];
  if (b->nbytes > sizeof now) return 0;
  if (c->read_code) {
    if (c->read_code(c->remote, b->orig, now, b->nbytes) != (ssize_t)b->nbytes) return 0;
  } else {
    memcpy(now, (const void *)(uintptr_t)b->orig, b->nbytes); /* it just ran: mapped */
  }
  return memcmp(now, c->bytes + b->bytes_off, b->nbytes) == 0;
}

int cc_block_repoint(const struct cc_block *b, uint64_t code) {
  int32_t rel;
  if (!(b->flags & CC_CHECKED) || (b->repoint_at & 3) || !cc_rel32(b->repoint_at + 4, code, &rel))
    return -1;
  __atomic_store_n((int32_t *)(uintptr_t)b->repoint, rel, __ATOMIC_RELEASE);
  return 0;
}

uint32_t cc_stub_add(struct cc_cache *c, const struct cc_stub *s) {
  if (grow((void **)&c->stubs, &c->capstubs, c->nstubs + 1, sizeof *c->stubs)) return 0;
  c->stubs[c->nstubs] = *s;
  return (uint32_t)c->nstubs++;
}
