/* The per-thread code cache: code chunks placed within rel32 reach of the
 * code they translate, the original->translated hash, the block table the
 * records index, and the exit-stub table. Everything here is mmap'd, never
 * malloc'd: the dispatcher grows these tables while the program may hold
 * malloc's arena lock (a `ret` inside malloc goes through the dispatcher),
 * and glibc's lock is not recursive. */
#ifndef ASMSPY_CODECACHE_CACHE_H
#define ASMSPY_CODECACHE_CACHE_H

#include "plugins/codecache/cc.h"

#include <capstone/capstone.h>
#include <sys/types.h>

struct cc_remote;

#define CC_BLOCK_MAX_INSNS 48
#define CC_BLOCK_CODE_MAX 8192  /* bytes one block's translation may take */
#define CC_PLT_STUB 1u          /* block flag: [endbr64] jmp *slot(%rip) */
#define CC_TAIL_COPIED 2u       /* block flag: its last instruction was copied (no terminator) */
#define CC_CHECKED 4u           /* block flag: its code may change; it compares its bytes first */
#define CC_CHECKED_MAX_INSNS 16 /* a checked block's cap: its check grows with its bytes */

struct cc_block {
  uint64_t orig;      /* original start */
  uint64_t code;      /* translated entry (an address where the code runs) */
  uint64_t body;      /* where its first original instruction's copy runs: the copies
                         follow one another with their original lengths (remote.c maps a
                         thread stopped between two of them back to the original) */
  uint32_t lens_off;  /* its instruction lengths in cache->lens */
  uint64_t bytes_off; /* its original bytes, as translated, in cache->bytes */
  uint64_t sys_after; /* remote: where a thread blocked in its trailing syscall sits, else 0 */
  uint16_t ninsn;
  uint16_t nbytes; /* original bytes covered */
  uint32_t flags;
  /* CC_CHECKED: the rel32 of the `jmp` at its entry (where this process
   * writes it). That jmp leads to the check of its bytes; once they
   * changed, it is re-aimed at the new translation, so every branch linked
   * to this block goes there. */
  uint64_t repoint, repoint_at; /* ... and where it runs */
};

/* Exit stubs a traced process's dispatcher (remote.c) treats apart: the
 * block that found the record buffer full (asmspy empties it), and an
 * rt_sigreturn about to run (asmspy lets it run natively). cc_tls.tgt
 * holds the original address. remote.c reserves these indices. */
#define CC_RSTUB_FLUSH 1u
#define CC_RSTUB_SIGRET 2u
#define CC_RSTUB_PROBE 3u /* a `ret` of --trace's region: asmspy reads the return value */
#define CC_RSTUB_UNMAP                                                                             \
  4u /* a munmap/mremap/mmap/mprotect: asmspy drops its translations of
                            what goes or turns writable, and reads the mappings again */
#define CC_RSTUB_STALE                                                                             \
  5u /* a checked block's bytes changed: asmspy translates them again
                             (CC_RT_CONT: the target's address of the block's repoint) */
#define CC_RSTUB_LAST CC_RSTUB_STALE

enum cc_stub_kind {
  CC_STUB_IBL = 0, /* index 0: an indirect branch, target in cc_tls.tgt */
  CC_STUB_LINK,    /* a direct branch not linked yet: translate, patch */
  CC_STUB_END,     /* a call of the scope's end entry: ours (rdi) or not */
  CC_STUB_SYSCALL, /* after a syscall that may have created a task (target: the next insn) */
};

struct cc_stub {
  uint32_t kind;
  uint64_t
      target;     /* original address (LINK: the branch target; END: the call; SYSCALL: after it) */
  uint64_t patch; /* LINK: address of the rel32 to re-aim once translated */
  uint64_t cont;  /* END: the translated continuation (another scope's end call) */
};

/* Code memory. base is where this process writes it; tbase where the
 * code runs: the same in this process, the target's address of a shared
 * mapping when asmspy translates for a traced process (remote.c). */
struct cc_chunk {
  uint8_t *base;
  uint64_t tbase;
  size_t size, used;
};
static inline uint64_t cc_chunk_addr(const struct cc_chunk *ch, const uint8_t *p) {
  return ch->tbase + (uint64_t)(p - ch->base);
}

#define CC_MAX_CHUNKS 32
#define CC_CHUNK_SIZE (4u << 20)
#define CC_STACK_SIZE (256u << 10)

struct cc_cache {
  struct cc_chunk chunks[CC_MAX_CHUNKS];
  unsigned nchunks;
  uint64_t *hkeys; /* open addressing: original start -> block index + 1 */
  uint32_t *hvals;
  uint64_t hmask, hcount;
  struct cc_block *blocks;
  uint64_t nblocks, capblocks;
  uint8_t *lens;
  uint64_t nlens, caplens;
  uint8_t *bytes; /* each block's original bytes when it was translated: what ran */
  uint64_t nbytes, capbytes;
  struct cc_stub *stubs;
  uint64_t nstubs, capstubs;
  uint8_t *stack; /* private stack (CC_STACK_SIZE) */
  uint8_t *xsave; /* the dispatcher's vector-state area (64-aligned, zeroed header) */
  size_t xsave_size;
  uint64_t exit_tail;                  /* mov %fs:s_rsp,%rsp; jmp *%fs:tgt */
  uint64_t arm_tail;                   /* pop %fs:tgt; enter the dispatcher as an indirect branch */
  uint64_t end_entry;                  /* the end entry the translations were made for */
  unsigned long long dl_adds, dl_subs; /* the link map the cache was built under */
  int active;                          /* the thread is running translated code */
  csh cs;
  cs_insn *insn;
  struct cc_seg seg; /* how generated code addresses struct cc_tls (cc.h) */
  /* remote, --trace: each `ret` in [probe_lo, probe_lo + probe_len) first
   * asks asmspy (CC_RSTUB_PROBE), which reads the return value there */
  uint64_t probe_lo, probe_len;
  /* Translating for another process (remote.c); NULL in this one: the
   * original code is read through read_code, new code memory comes from
   * map_chunk (a shared mapping placed in the target, *base ours). */
  struct cc_remote *remote;
  /* Can the code at addr change while translated (JIT code, writable or
   * not backed by a file)? Its blocks are then checked (CC_CHECKED).
   * NULL: never (scopes: jit.c declines a process with such code). */
  int (*code_volatile)(struct cc_cache *c, uint64_t addr);
  ssize_t (*read_code)(struct cc_remote *rm, uint64_t addr, void *buf, size_t n);
  int (*map_chunk)(struct cc_remote *rm, uint64_t near, struct cc_chunk *out);
};

/* Set up the tables, Capstone and the first stub of a cache whose
 * seg/remote/read_code/map_chunk are filled in (cc_cache_get does it for
 * this thread). 0 or -1. */
int cc_cache_init(struct cc_cache *c);
/* Free what cc_cache_init and the translations allocated in this process
 * (a remote cache's chunks are the caller's to unmap). */
void cc_cache_fini(struct cc_cache *c);

/* This thread's cache, created on first use (natively, at begin). */
struct cc_cache *cc_cache_get(void);
/* Drop every translation (a module was loaded or unloaded, end_entry moved). */
void cc_cache_flush(struct cc_cache *c);
/* Flush when the link map changed since the translations were made. */
void cc_cache_check_maps(struct cc_cache *c);
/* Room for up to `want` bytes of code within rel32 reach of `near`; commit
 * what was used with cc_code_commit. NULL: no memory within reach. */
uint8_t *cc_code_room(struct cc_cache *c, uint64_t near, size_t want, struct cc_chunk **chunk);
void cc_code_commit(struct cc_chunk *chunk, uint8_t *end);
static inline uint64_t cc_hslot(uint64_t a, uint64_t mask) {
  return ((a * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

/* Block index + 1 of the translation of orig, 0 if none. Inline: fast.c,
 * compiled general-registers-only, uses it on the dispatcher's hot path. */
static inline uint32_t cc_lookup(const struct cc_cache *c, uint64_t orig) {
  uint64_t i = cc_hslot(orig, c->hmask);
  while (c->hkeys[i]) {
    if (c->hkeys[i] == orig) return c->hvals[i];
    i = (i + 1) & c->hmask;
  }
  return 0;
}
/* Append a block and hash it; returns its index, or -1 (no memory).
 * bytes: its b->nbytes original bytes, as translated. */
int64_t cc_block_add(struct cc_cache *c, const struct cc_block *b, const uint8_t *lens,
                     const uint8_t *bytes);
/* Are block b's original bytes still what it translated? (this process) */
int cc_block_current(const struct cc_cache *c, const struct cc_block *b);
/* Aim checked block b's entry at code (one aligned store: other threads
 * may be running that jmp). 0, or -1 when out of reach. */
int cc_block_repoint(const struct cc_block *b, uint64_t code);
/* Append an exit stub; its index (never 0: index 0 is the IBL), or 0. */
uint32_t cc_stub_add(struct cc_cache *c, const struct cc_stub *s);
/* Does a rel32 whose instruction ends at `from` reach `to`? */
static inline int cc_rel32(uint64_t from, uint64_t to, int32_t *rel) {
  int64_t d = (int64_t)(to - from);
  if (d < INT32_MIN || d > INT32_MAX) return 0;
  if (rel) *rel = (int32_t)d;
  return 1;
}

#endif
