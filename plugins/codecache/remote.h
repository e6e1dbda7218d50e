/* codecache for a running process: asmspy traces another process by
 * translation. The translations and the dispatcher live in shared memory
 * mapped into the target; asmspy writes them, the target runs them; the
 * target never decodes anything and loads no library. See
 * docs/codecache.md, "A running process".
 *
 *   remote.c         the session: attach, the stop loop, requests, signals, leave
 *   remote_mem.c     the shared mappings, the code reader, the shared hash, links
 *   remote_thread.c  a thread in and out of the cache, its records as events
 *   rdispatch.S      the dispatcher that runs in the target
 *
 * Each traced thread's gs base points at its block in the shared data
 * mapping: struct cc_tls's fields first (the offsets the translator
 * emits), then what the target-side dispatcher needs (CC_RT_*). */
#ifndef ASMSPY_CODECACHE_REMOTE_H
#define ASMSPY_CODECACHE_REMOTE_H

#include "plugins/codecache/cc.h"

#define CC_RT_HTAB 128       /* the shared hash: {original, translated} pairs */
#define CC_RT_HMASK 136      /* its slot count - 1 */
#define CC_RT_TGID 144       /* int32: the process, for tgkill */
#define CC_RT_TID 148        /* int32: this thread */
#define CC_RT_SIGNO 152      /* the signal a request raises (one the program ignores) */
#define CC_RT_REQ 160        /* 1 while a request is raised */
#define CC_RT_REQ_IDX 168    /* the exit stub that raised it (CC_RSTUB_* or a link stub) */
#define CC_RT_RESOLVED 176   /* asmspy's answer: where to go on; 0: leave for cc_tls.tgt natively */
#define CC_RT_UNANSWERED 184 /* requests whose signal did not get through (it may come later) */
#define CC_RT_SELF 192       /* the block's own address in the target (the futex's) */
#define CC_RT_TS 200         /* struct timespec: one wait of a blocked request (10 ms) */
#define CC_RT_TRIES 216      /* waits left */
#define CC_RT_CONT CC_RT_CONT_OFF /* CC_RSTUB_PROBE: where the translated code goes on */

#ifndef __ASSEMBLER__
#include <asmspy/plugin.h>
#include <sys/types.h>
#include <sys/user.h>

#include "plugins/codecache/cache.h"
#include "plugins/entrypatch/inject.h"

/* The target-side dispatcher (rdispatch.S), copied into the code cache. */
extern const unsigned char cc_rdisp_begin[], cc_rdisp_end[];
/* Between these two the program's registers sit on the private stack and
 * cc_tls.tgt holds an original address until an answer replaces it
 * (remote_thread.c maps such a thread back without stepping). */
extern const unsigned char cc_rdisp_saved[], cc_rdisp_restore[];

#define RT_MAX_THREADS 512u  /* slots at most; the data mapping holds rm->nslots of them */
#define RT_MIN_SLOTS 64u     /* at least; 4 per thread found at attach, up to RT_MAX_THREADS */
#define RT_RECS (128u << 10) /* block records a thread writes between two flushes */
#define RT_STACK (16u << 10) /* the dispatcher's private stack (a signal handler may run on it) */
#define RT_BLOCK 4096u       /* the thread's block (struct cc_tls + CC_RT_*), a page */
#define RT_SLOT (RT_BLOCK + RT_STACK + RT_RECS * 4u)
#define RT_HSLOTS (1u << 18) /* shared hash slots (16 bytes each) */
#define RT_HASH_BYTES ((uint64_t)RT_HSLOTS * 16u)
#define RT_DATA_BYTES(nslots) (RT_HASH_BYTES + (uint64_t)(nslots)*RT_SLOT)

/* One thread of the traced process, as asmspy keeps it. */
struct rthread {
  pid_t tid;
  int slot;          /* its block in the data mapping; -1: none yet */
  int in;            /* entered: its gs base is set and it may run translated code */
  int catch_nr;      /* a syscall it runs natively (rt_sigreturn, an unmap that emptied the
                        cache): at that syscall's exit it goes back in; 0: none */
  int catch_maps;    /* that call changes mappings (rm->maps_changing counts it) */
  int foreign;       /* met inside an earlier (killed) session's cache: entered once out */
  int owed_sig;      /* a signal met while it was being brought out, delivered on resume */
  int leaving;       /* being brought out: a request it raises is answered "native" */
  int stopped;       /* the session's leave: it reported its stop */
  uint64_t consumed; /* records of its buffer already turned into events */
  uint64_t late;     /* our signals that came after their request had gone native */
  /* --trace: the return values read at the region's `ret`s, in order (a
   * ring the region filter takes them from as it meets those rets) */
  uint64_t probe_ip[16], probe_rax[16];
  unsigned probe_head, probe_tail;
};

/* --trace: the invocation being reported (remote_region.c). */
struct rm_region {
  pid_t tid;         /* the sampled thread; 0: no sample open */
  int depth;         /* calls into the region (recursion) within the sample */
  uint64_t call_ip;  /* the call just reported: the next instruction says where it went */
  uint64_t call_ret; /* its fall-through */
  uint64_t out_ret;  /* in a call out of the region: back at this address */
  uint64_t steps;    /* instructions reported in this sample */
  uint64_t sample;   /* samples begun (kept across samples: the fields above are reset) */
};

struct cc_remote {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct asmspy_seam *sm;
  struct ep_remote rem; /* injected calls run in rem.tid, a stopped thread */
  struct cc_cache c;
  uint8_t *data; /* the shared data mapping: hash, then the thread slots */
  uint64_t data_t;
  uint64_t hcount;
  uint64_t disp_t; /* the dispatcher, in the first code chunk */
  int signo;
  struct rthread *th;
  size_t nth, cap;
  uint8_t slot_used[RT_MAX_THREADS];
  unsigned nslots;   /* thread slots in the data mapping */
  uint32_t *waiting; /* link stubs not linked yet, chained by target (remote_mem.c) */
  uint64_t *wkeys;
  uint32_t *whead;
  uint64_t wmask, wcount, capwait;
  uint64_t emitted, seq;
  struct rm_region rg; /* --trace (s->region_len) */
  int sink_stop, leaving, gs_refused, slots_full;
  int flush_req;    /* an unmap takes translated code away: remote.c drops every translation */
  uint64_t flushes; /* times it did */
  int discard;      /* ASMSPY_CODECACHE_DISCARD: records dropped, not decoded */
  int debug;        /* ASMSPY_CODECACHE_DEBUG: 1 accounting, 2 every stop */
  uint64_t flushed_blocks;         /* block records handed over by full buffers */
  struct asmspy_stop deferred[32]; /* other threads' stops met while one was stepped out */
  unsigned ndeferred;
  uint64_t requests, untranslated, signals_in;
  const char *last_why;
  uint64_t last_why_ip;
  /* which code may change (remote_maps.c): the executable mappings as last
   * read, each volatile or not; re-read when an address is in none, or
   * after a call changed them */
  struct rm_xmap *xmaps;
  size_t nxmaps, capxmaps;
  int xmaps_stale;     /* read them again before the next answer */
  int maps_changing;   /* mprotect / mmap(MAP_FIXED) calls running natively: all volatile */
  uint64_t stale_hits; /* checked blocks found changed, translated again */
  /* the mappings an earlier asmspy's session left (it was killed) while a
   * thread still ran in them at attach: removed once none does */
  uint64_t old_lo[64], old_hi[64];
  unsigned nold;
};

struct rm_xmap {
  uint64_t lo, hi;
  int vol; /* writable, or not backed by a file (anonymous, memfd, deleted, shared: a JIT's) */
};

/* remote_mem.c */
int rm_map_data(struct cc_remote *rm, char *why, size_t whycap);
int rm_map_chunk(struct cc_remote *rm, uint64_t near, struct cc_chunk *out);
ssize_t rm_read_code(struct cc_remote *rm, uint64_t addr, void *buf, size_t n);
int rm_place_dispatcher(struct cc_remote *rm, uint64_t near);
/* The block at orig, translated and published (index), or -1 with *why. */
int64_t rm_translate(struct cc_remote *rm, uint64_t orig, pid_t in_tid, const char **why);
/* The same, translated anew even when it was before (its bytes changed). */
int64_t rm_translate_again(struct cc_remote *rm, uint64_t orig, pid_t in_tid, const char **why);
int rm_in_cache(const struct cc_remote *rm, uint64_t addr);
void rm_unmap_all(struct cc_remote *rm);
/* Our side only: the process's image (and its side) went with an exec. */
void rm_forget_maps(struct cc_remote *rm);
/* Every translation dropped (no thread runs one: all are out, or waiting in
 * the dispatcher); the code chunks stay mapped, emptied, the dispatcher kept. */
void rm_reset_translations(struct cc_remote *rm);
/* Is any original byte of [lo, lo+len) translated? only_unchecked: by a
 * block that does not check its bytes. */
int rm_translated_in(const struct cc_remote *rm, uint64_t lo, uint64_t len, int only_unchecked);
/* Where this process writes the byte of a code chunk that runs at addr
 * (NULL: not in one). */
uint8_t *rm_local(const struct cc_remote *rm, uint64_t addr);

/* remote_maps.c */
/* cc_cache.code_volatile: may the code at addr change under a translation? */
int rm_code_volatile(struct cc_cache *c, uint64_t addr);
/* A munmap/mremap/mmap/mprotect asks first (CC_RSTUB_UNMAP): its rax and
 * arguments as pushed. Returns where the copy goes on (0: the call runs
 * natively, the thread caught at its exit: t->catch_nr set). */
uint64_t rm_answer_map_call(struct cc_remote *rm, struct rthread *t, const uint64_t *top,
                            uint64_t cont);
/* At the exit of a call rm_answer_map_call let run natively. */
void rm_map_call_done(struct cc_remote *rm, struct rthread *t);
/* CC_RSTUB_STALE: the checked block of orig whose entry's rel32 runs at
 * repoint_at found its bytes changed. Where to go on (0: native). */
uint64_t rm_answer_stale(struct cc_remote *rm, struct rthread *t, uint64_t orig,
                         uint64_t repoint_at);

/* remote_thread.c */
/* Is addr in the mappings an earlier session left (rm->old_lo/hi)? */
int rm_in_old_cache(const struct cc_remote *rm, uint64_t addr);
struct rthread *rm_thread(struct cc_remote *rm, pid_t tid, int add);
void rm_forget(struct cc_remote *rm, pid_t tid);
uint64_t *rm_block(struct cc_remote *rm, const struct rthread *t); /* its struct cc_tls, ours */
int rm_get_regs(struct cc_remote *rm, pid_t tid, struct user_regs_struct *u);
int rm_set_regs(struct cc_remote *rm, pid_t tid, const struct user_regs_struct *u);
/* Into the cache at its current state (stopped, native). 0, or it stays native. */
int rm_enter(struct cc_remote *rm, struct rthread *t);
/* Out of the cache to the equivalent native state (stopped), stepping
 * through code that has no original equivalent. 0, or -1 (gone, or stuck). */
int rm_leave(struct cc_remote *rm, struct rthread *t);
/* One single-step (delivering sig); 0: stopped again, -1: gone. */
int rm_step(struct cc_remote *rm, struct rthread *t, int sig);
/* Its records as instruction events: all but the last (still running) when
 * live, else all, the last cut to `keep` instructions when keep >= 0. */
void rm_drain(struct cc_remote *rm, struct rthread *t, int live, int keep);
/* A running thread's records, at most max blocks of them; how many. The
 * live drain takes threads in turns (remote.c): a thread whose buffer holds
 * a hundred thousand blocks does not crowd the others out of a count. */
uint64_t rm_drain_some(struct cc_remote *rm, struct rthread *t, uint64_t max);
/* The request the thread raised (stopped at its tgkill): answered. */
void rm_answer(struct cc_remote *rm, struct rthread *t);
void rm_note(struct cc_remote *rm, uint32_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* remote_region.c: --trace. An instruction of a thread's stream: reported
 * when it belongs to the open sample (1), else 0. */
int rm_region_insn(struct cc_remote *rm, struct rthread *t, struct asmspy_event *ev);
void rm_region_end(struct cc_remote *rm, uint64_t ip, int truncated);
void rm_region_not_reached(struct cc_remote *rm);

/* remote.c */
int cc_remote_run(const struct asmspy_host_api *host, const struct asmspy_session *s);
#endif
#endif
