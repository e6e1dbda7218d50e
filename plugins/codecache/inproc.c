/* inproc.c — arming and ending a scope on the calling thread
 * (backend_ops.inproc_begin/inproc_end, ABI 1.4 + 1.12 arm_tail).
 *
 * begin prepares this thread's cache and the record buffer, then hands the
 * host an arm_tail: the host's asmspy_scope_begin jumps there instead of
 * returning, with rsp at its caller's return address. The tail is a
 * translated `ret` (cache.c): it pops that address into cc_tls.tgt and
 * enters the dispatcher, which continues at the translation of the
 * caller's next instruction. From there the thread runs translated code
 * until the translated path calls this scope's end entry; there it leaves
 * the cache (dispatch.c) and asmspy_scope_end runs natively, so no
 * instruction of libasmspy is ever recorded.
 *
 * Refusals (nothing armed): a scope open on this thread already
 * (-ASMSPY_E_ATTACH_BUSY), no arm_tail from the host (-ASMSPY_E_ABI: a
 * translator cannot start from inside begin), no cache memory
 * (-ASMSPY_E_NOMEM), and ASMSPY_FACT_UNSUITED where a JIT may patch code
 * under a translation (jit.c): the host then takes the next tier. A scope ended on another thread is an orphan: its
 * thread still runs translated code until its next dispatcher entry (its
 * budget is zeroed, so its next block leaves the cache), and the handle
 * is freed by a later begin/end once that thread let go. */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "plugins/codecache/inproc.h"
#include "plugins/codecache/jit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cc_handle *g_orphans;

static int my_tid(void) { return (int)syscall(SYS_gettid); }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void free_handle(struct cc_handle *h) {
  free(h->recs);
  free(h);
}

static void reclaim_orphans(void) {
  pthread_mutex_lock(&g_lock);
  for (struct cc_handle **pp = &g_orphans; *pp;) {
    struct cc_handle *h = *pp;
    if (h->acked) {
      *pp = h->next_orphan;
      free_handle(h);
    } else {
      pp = &h->next_orphan;
    }
  }
  pthread_mutex_unlock(&g_lock);
}

int cc_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                    void **handle) {
  (void)host;
  if (!handle) return -ASMSPY_E_USAGE;
  *handle = NULL;
  if (cc_tls.cur && cc_tls.cur->pid != getpid()) {
    /* a fork child's copy of its parent's open scope: not ours to end (a
     * vfork child never gets here: it may only exec or _exit) */
    cc_tls.cur = NULL;
  }
  if (cc_tls.cur) {
    if (!cc_tls.cur->orphaned) return -ASMSPY_E_ATTACH_BUSY; /* nested scope on this thread */
    cc_tls.cur->acked = 1; /* an orphan that left through a full buffer: let go */
    cc_tls.cur = NULL;
  }
  reclaim_orphans();
  if (!req || !ASMSPY_HAS(req, arm_tail) || !req->arm_tail) return -ASMSPY_E_ABI;
  struct cc_cache *c = cc_cache_get();
  if (!c) return -ASMSPY_E_NOMEM;
  if (c->end_entry != req->end_entry) { /* translations embed the end check */
    c->end_entry = req->end_entry;
    cc_cache_flush(c);
  }
  cc_cache_check_maps(c);
  char what[160];
  if (cc_foreign_code(c, what, sizeof what)) { /* jit.c: the host takes the next tier */
    if (getenv("ASMSPY_SCOPE_DEBUG"))
      fprintf(stderr, "asmspy scope: codecache declines: %s\n", what);
    return ASMSPY_FACT_UNSUITED;
  }
  uint64_t cap = req->max_insns ? req->max_insns : (1u << 20);
  struct cc_handle *h = calloc(1, sizeof *h);
  if (!h) return -ASMSPY_E_NOMEM;
  h->recs = malloc(cap * sizeof *h->recs);
  if (!h->recs) {
    free(h);
    return -ASMSPY_E_NOMEM;
  }
  h->cap = cap;
  h->max_insns = cap;
  h->region_start = req->region_start;
  h->region_len = req->region_len;
  h->end_entry = req->end_entry;
  h->end_arg = req->end_arg;
  h->tid = my_tid();
  h->pid = getpid();
  h->owner = &cc_tls;
  cc_tls.cursor = (uint64_t)(uintptr_t)h->recs;
  cc_tls.remain = cap;
  cc_tls.full = 0;
  cc_tls.cur = h;
  c->active = 1;
  *handle = h;
  *req->arm_tail = (void (*)(void))(uintptr_t)c->arm_tail;
  h->t_begin_ns = now_ns();
  return 0;
}

int cc_inproc_end(void *hv, asmspy_sink_fn sink, void *sink_ctx) {
  struct cc_handle *h = hv;
  if (!h) return -ASMSPY_E_USAGE;
  h->t_end_ns = now_ns();
  int me = my_tid();
  if (me != h->tid) {
    /* Thread hop: the arming thread may still run translated code. Zero
     * its budget (its next block leaves the cache) and keep the buffer
     * alive until it lets go. */
    h->orphaned = 1;
    h->owner->remain = 0;
    pthread_mutex_lock(&g_lock);
    h->next_orphan = g_orphans;
    g_orphans = h;
    pthread_mutex_unlock(&g_lock);
    if (sink) {
      char note[256];
      snprintf(note, sizeof note,
               "truncated: thread hop: the scope began on tid %d and ended on tid %d; the capture "
               "followed the arming thread and is discarded",
               h->tid, me);
      struct asmspy_event ev;
      memset(&ev, 0, sizeof ev);
      ASMSPY_INIT_HEADER(&ev);
      ev.type = ASMSPY_EV_NOTE;
      ev.u.note.text = note;
      sink(sink_ctx, &ev);
    }
    return 0;
  }
  struct cc_cache *c = cc_tls.cache;
  uint64_t nrec = (uint64_t)((uint32_t *)(uintptr_t)cc_tls.cursor - h->recs);
  int full = cc_tls.full != 0;
  if (c && c->active && !full) {
    /* Ended while this thread is still inside translated code: from a
     * signal handler that interrupted it (handlers run natively). After
     * sigreturn it goes on recording into this buffer until its next
     * dispatcher entry lets go (or its next block finds the budget zeroed
     * here): the buffer stays alive until then, as for a thread hop. */
    h->orphaned = 1;
    cc_tls.remain = 0;
    h->ended_inside = 1;
    cc_decode_emit(h, c, nrec, 0, sink, sink_ctx);
    pthread_mutex_lock(&g_lock);
    h->next_orphan = g_orphans;
    g_orphans = h;
    pthread_mutex_unlock(&g_lock);
    return 0;
  }
  cc_tls.cur = NULL;
  if (c) c->active = 0;
  cc_decode_emit(h, c, nrec, full, sink, sink_ctx);
  free_handle(h);
  reclaim_orphans();
  return 0;
}
