/* reader.c: draining the agent's rings into CALL events (see reader.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/reader.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rdtsc_now(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

void ep_reader_init(struct ep_reader *r, struct ring_area *ring, const struct agent_func *funcs,
                    uint32_t nfuncs, const struct asmspy_session *s) {
  memset(r, 0, sizeof *r);
  r->ring = ring;
  r->funcs = funcs;
  r->nfuncs = nfuncs;
  r->s = s;
  memset(&r->ev, 0, sizeof r->ev);
  ASMSPY_INIT_HEADER(&r->ev);
  r->ev.type = ASMSPY_EV_CALL;
  r->ev.pid = s->pid;
  r->ev.target = s->target;
  r->tsc0 = rdtsc_now();
  r->ns0 = mono_ns();
  /* a first rate over 2 ms; refined by every later calibrate() */
  struct timespec d = {0, 2000000};
  nanosleep(&d, NULL);
  ep_reader_calibrate(r);
}

void ep_reader_calibrate(struct ep_reader *r) {
  uint64_t t = rdtsc_now(), n = mono_ns();
  if (t > r->tsc0 && n > r->ns0) r->ns_per_tick = (double)(n - r->ns0) / (double)(t - r->tsc0);
  /* ASMSPY_CALLS_NOWAIT=1: a full ring drops at once (what the agent alone
   * costs, measured by bench/run_calls_bench.sh; counts are then partial) */
  const char *nowait = getenv("ASMSPY_CALLS_NOWAIT");
  uint64_t ticks = r->ns_per_tick > 0 ? (uint64_t)(EP_BEAT_TIMEOUT_NS / r->ns_per_tick) : 0;
  if (nowait && !strcmp(nowait, "1")) ticks = 0;
  __atomic_store_n(&r->ring->beat_ticks, ticks, __ATOMIC_RELAXED);
}

void ep_reader_beat(struct ep_reader *r) {
  __atomic_store_n(&r->ring->reader_beat, rdtsc_now(), __ATOMIC_RELEASE);
}

static uint64_t to_ns(const struct ep_reader *r, uint64_t tsc) {
  double d = ((double)(int64_t)(tsc - r->tsc0)) * r->ns_per_tick;
  return r->ns0 + (uint64_t)(int64_t)d;
}

/* The next written record of ring k, or NULL. */
static const struct ring_rec *peek(struct ep_reader *r, uint32_t k, int final) {
  struct ring_head *h = &r->ring->heads[k];
  for (;;) {
    uint64_t tail = r->tail[k];
    const struct ring_rec *rec = &r->ring->recs[k][tail & (AGENT_RING - 1)];
    /* the record's own seq says it is written: no look at head needed */
    if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) == (uint32_t)(tail + 1)) return rec;
    if (!final || tail >= __atomic_load_n(&h->head, __ATOMIC_ACQUIRE)) return NULL;
    r->tail[k] = tail + 1; /* final: claimed but never written (a thread died): skip */
  }
}

static void publish_tails(struct ep_reader *r, const uint32_t *live, uint32_t nlive) {
  for (uint32_t i = 0; i < nlive; i++)
    __atomic_store_n(&r->ring->heads[live[i]].tail, r->tail[live[i]], __ATOMIC_RELEASE);
}

static int deliver(struct ep_reader *r, uint32_t k, const struct ring_rec *rec) {
  uint32_t what = REC_WHAT(rec->word), flags = REC_FLAGS(rec->word), fn = REC_FUNC(rec->word);
  if (what == REC_TID) { /* the slot belongs to a new thread now */
    r->tid[k] = (int32_t)rec->ret;
    r->depth[k] = 0;
    return 0;
  }
  if ((what != REC_ENTRY && what != REC_EXIT) || fn >= r->nfuncs) return 0;
  /* one event reused: only what differs per record is written */
  struct asmspy_event *evp = &r->ev;
#define ev (*evp)
  ev.flags = 0;
  ev.tid = r->tid[k] ? r->tid[k] : r->s->pid;
  ev.nthreads = r->threads;
  ev.seq = ++r->seq;
  ev.ip = r->funcs[fn].addr;
  ev.u.call.func = ev.ip;
  ev.u.call.ret = rec->ret;
  ev.u.call.slot = rec->slot;
  ev.u.call.ts_ns = to_ns(r, rec->tsc);
  if (what == REC_ENTRY) {
    ev.u.call.what = ASMSPY_CALL_ENTRY;
    ev.u.call.depth = r->depth[k];
    if (!(flags & REC_F_NOEXIT)) r->depth[k]++;
    r->calls++;
  } else {
    ev.u.call.what = ASMSPY_CALL_EXIT;
    if (r->depth[k]) r->depth[k]--;
    ev.u.call.depth = r->depth[k];
  }
  if (flags & REC_F_UNWOUND) ev.flags |= ASMSPY_EVF_CALL_UNWOUND;
  if (flags & REC_F_TAIL) ev.flags |= ASMSPY_EVF_CALL_TAIL;
  if (flags & REC_F_NOEXIT) ev.flags |= ASMSPY_EVF_CALL_NOEXIT;
#undef ev
  return r->s->sink(r->s->sink_ctx, evp) ? -1 : 0;
}

static int report_loss(struct ep_reader *r, uint32_t k) {
  uint64_t lost = __atomic_load_n(&r->ring->heads[k].lost, __ATOMIC_RELAXED);
  if (lost <= r->lost_seen[k]) return 0;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_LOST;
  ev.pid = r->s->pid;
  ev.tid = r->tid[k];
  ev.seq = ++r->seq;
  ev.target = r->s->target;
  ev.u.lost.count = lost - r->lost_seen[k];
  r->lost += ev.u.lost.count;
  r->lost_seen[k] = lost;
  return r->s->sink(r->s->sink_ctx, &ev) ? -1 : 0;
}

int64_t ep_reader_drain(struct ep_reader *r, int final) {
  if (!final) ep_reader_beat(r);
  uint32_t live[AGENT_THREADS], nlive = 0;
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    if (!__atomic_load_n(&r->ring->heads[k].used, __ATOMIC_ACQUIRE)) continue;
    if (!r->tid[k]) r->tid[k] = r->ring->heads[k].tid;
    live[nlive++] = k;
  }
  r->threads = nlive;
  int64_t n = 0;
  /* merge the rings by timestamp: the oldest ready record first. A batch
   * at most: a target that writes as fast as we read must not keep the
   * caller from checking its stop flag. */
  while (n < EP_DRAIN_BATCH || final) {
    const struct ring_rec *best = NULL;
    uint32_t bk = 0;
    if (nlive == 1) /* one thread: its ring is already in order */
      best = peek(r, bk = live[0], final);
    else
      for (uint32_t i = 0; i < nlive; i++) {
        const struct ring_rec *rec = peek(r, live[i], final);
        if (rec && (!best || (int64_t)(rec->tsc - best->tsc) < 0)) best = rec, bk = live[i];
      }
    if (!best) break;
    struct ring_rec copy = *best;
    r->tail[bk]++;
    if ((n & 4095) == 4095) publish_tails(r, live, nlive); /* room for the agent, now and then */
    if (deliver(r, bk, &copy) < 0) {
      publish_tails(r, live, nlive);
      return -1;
    }
    n++;
  }
  publish_tails(r, live, nlive);
  for (uint32_t i = 0; i < nlive; i++)
    if (report_loss(r, live[i]) < 0) return -1;
  return n;
}
