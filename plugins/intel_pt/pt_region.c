/* pt_region — see pt_region.h. */
#include "plugins/intel_pt/pt_region.h"

#include "plugins/common/insn_class.h" /* pi_event_class, pi_call_rel_target */

#include <stdlib.h>
#include <string.h>

struct seg_thread {
  int32_t tid;
  int open;         /* an invocation is open */
  uint64_t depth;   /* recursive entries inside the open invocation */
  uint64_t sample;  /* its number */
  int call_pending; /* the last instruction was an indirect call */
  uint64_t call_site, call_ft;
  struct asmspy_event last; /* pid/target/nthreads for the events we make */
};

struct ptr_seg {
  struct ptr_seg_opts o;
  struct seg_thread *t;
  size_t n, cap;
  uint64_t entered;
  int stop;
};

struct ptr_seg *ptr_seg_new(const struct ptr_seg_opts *o) {
  if (!o || !o->sink || !o->host || !o->len) return NULL;
  struct ptr_seg *g = calloc(1, sizeof *g);
  if (g) g->o = *o;
  return g;
}

void ptr_seg_free(struct ptr_seg *g) {
  if (!g) return;
  free(g->t);
  free(g);
}

uint64_t ptr_seg_entered(const struct ptr_seg *g) { return g ? g->entered : 0; }

static int in_region(const struct ptr_seg *g, uint64_t ip) {
  return ip >= g->o.start && ip - g->o.start < g->o.len;
}

static struct seg_thread *thread_for(struct ptr_seg *g, int32_t tid) {
  for (size_t i = 0; i < g->n; i++)
    if (g->t[i].tid == tid) return &g->t[i];
  if (g->n == g->cap) {
    size_t nc = g->cap ? 2 * g->cap : 8;
    struct seg_thread *nt = realloc(g->t, nc * sizeof *nt);
    if (!nt) return NULL;
    g->t = nt;
    g->cap = nc;
  }
  struct seg_thread *t = &g->t[g->n++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

/* Hand an event on. Events are restamped from the session's counter: the
 * ones made here are inserted before or after the decoded event that caused
 * them, and seq must keep increasing in that order. */
static int forward(struct ptr_seg *g, const struct asmspy_event *ev) {
  if (g->stop) return 1;
  struct asmspy_event copy = *ev;
  if (g->o.seq) copy.seq = ++*g->o.seq;
  if (g->o.sink(g->o.sink_ctx, &copy)) g->stop = 1;
  return g->stop;
}

/* An event of ours for thread t, stamped like its last decoded event. */
static void make(const struct seg_thread *t, struct asmspy_event *ev, uint16_t type, uint64_t ip) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = t->last.pid;
  ev->tid = t->tid;
  ev->nthreads = t->last.nthreads;
  ev->target = t->last.target;
  ev->ip = ip;
}

static int region_event(struct ptr_seg *g, struct seg_thread *t, uint16_t type, uint64_t ip,
                        int truncated) {
  struct asmspy_event ev;
  make(t, &ev, type, ip);
  ev.u.region.start = g->o.start;
  ev.u.region.len = g->o.len;
  ev.u.region.sample = t->sample;
  ev.u.region.reached = 1;
  ev.u.region.truncated = (uint32_t)truncated;
  if (type == ASMSPY_EV_REGION_EXIT) ev.flags |= ASMSPY_EVF_SP_UNKNOWN; /* retval unknown */
  return forward(g, &ev);
}

static int close_open(struct ptr_seg *g, struct seg_thread *t, uint64_t ip, int truncated) {
  if (!t->open) return g->stop;
  t->open = 0;
  t->depth = 0;
  t->call_pending = 0;
  return region_event(g, t, ASMSPY_EV_REGION_EXIT, ip, truncated);
}

static int callout(struct ptr_seg *g, struct seg_thread *t, uint64_t site, uint64_t to) {
  struct asmspy_event ev;
  make(t, &ev, ASMSPY_EV_CALLOUT, site);
  ev.u.branch.from = site;
  ev.u.branch.to = to;
  return forward(g, &ev);
}

static int on_insn(struct ptr_seg *g, struct seg_thread *t, const struct asmspy_event *ev) {
  /* an indirect call's outcome: back at its fall-through = a call-out that
   * returned; at the region's entry = recursion */
  if (t->call_pending) {
    t->call_pending = 0;
    if (ev->ip == t->call_ft) {
      if (callout(g, t, t->call_site, 0)) return 1;
    } else if (ev->ip == g->o.start) {
      t->depth++;
      goto record;
    }
  }
  if (ev->ip == g->o.start && t->open && t->depth == 0) {
    /* back at the entry with no exit seen: a tail jump out, or lost trace */
    if (close_open(g, t, ev->ip, 1)) return 1;
  }
  if (!t->open) {
    if (ev->ip != g->o.start) return 0; /* mid-invocation: wait for an entry */
    t->open = 1;
    t->depth = 0;
    t->sample = ++g->entered;
    if (region_event(g, t, ASMSPY_EV_REGION_ENTER, ev->ip, 0)) return 1;
  }
record:
  if (forward(g, ev)) return 1;
  uint32_t c = pi_event_class(g->o.host, ev);
  if (c & ASMSPY_INSN_CALL) {
    uint64_t to = pi_call_rel_target(c, ev->ip, ev->u.insn.bytes); /* 0: indirect */
    uint64_t ft = ev->ip + ASMSPY_INSN_LEN(c);
    if (!to) {
      t->call_pending = 1, t->call_site = ev->ip, t->call_ft = ft;
    } else if (to == g->o.start) {
      t->depth++; /* recursion: its instructions belong to this invocation */
    } else if (!in_region(g, to)) {
      return callout(g, t, ev->ip, to);
    }
  } else if (c & ASMSPY_INSN_RET) {
    if (t->depth) {
      t->depth--;
    } else {
      t->open = 0;
      return region_event(g, t, ASMSPY_EV_REGION_EXIT, ev->ip, 0);
    }
  }
  return 0;
}

int ptr_seg_event(struct ptr_seg *g, const struct asmspy_event *ev) {
  if (g->stop) return 1;
  struct seg_thread *t = ev->tid ? thread_for(g, ev->tid) : NULL;
  if (t) t->last = *ev;
  switch (ev->type) {
  case ASMSPY_EV_INSN: return t ? on_insn(g, t, ev) : forward(g, ev);
  case ASMSPY_EV_BRANCH: return 0; /* the region views read INSN and CALLOUT */
  case ASMSPY_EV_LOST:
    if (t && close_open(g, t, ev->ip, 1)) return 1;
    return forward(g, ev);
  case ASMSPY_EV_TASK:
    if (t && ev->u.task.what == ASMSPY_TASK_EXIT && close_open(g, t, ev->ip, 1)) return 1;
    return forward(g, ev);
  default: return forward(g, ev);
  }
}

void ptr_seg_finish(struct ptr_seg *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n && !g->stop; i++) close_open(g, &g->t[i], g->t[i].last.ip, 1);
}
