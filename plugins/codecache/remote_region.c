/* remote_region.c — --trace on codecache: whole invocations of one code
 * region [start, start+len), cut out of a thread's translated instruction
 * stream (the records are complete: nothing is stepped).
 *
 * A sample begins when a thread executes the region's entry while no
 * sample is open (one thread at a time, as the stepping backend samples);
 * its instructions inside the region are reported; a call out of the
 * region is reported as a CALLOUT (call site -> callee) and the callee's
 * instructions are skipped until the thread is back at the call's
 * fall-through (a callback into the region meanwhile is the callee's,
 * skipped too, as stepping steps past it); a call into the region
 * (recursion) is followed, one level deeper. The sample ends at a `ret`
 * at its own level, or when the thread leaves the region other than by a
 * call (a tail jump, longjmp). The records carry no registers; the
 * return value is read at each `ret` inside the region, where the
 * translated code asks asmspy first (CC_RSTUB_PROBE: one stop per return),
 * and handed over in order; unknown (ASMSPY_EVF_SP_UNKNOWN) when not read. */
#define _GNU_SOURCE
#include "plugins/codecache/remote.h"

#include <string.h>

static int in_region(const struct asmspy_session *s, uint64_t ip) {
  return ip >= s->region_start && ip - s->region_start < s->region_len;
}

static void emit(struct cc_remote *rm, struct asmspy_event *ev) {
  ev->seq = ++rm->seq;
  if (!rm->sink_stop && rm->s->sink(rm->s->sink_ctx, ev)) rm->sink_stop = 1;
}

/* An event of the sampled thread (one at a time: no [tid] prefix). */
static void sample_event(const struct cc_remote *rm, struct asmspy_event *ev, uint32_t type,
                         pid_t tid, uint64_t ip) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = rm->s->pid;
  ev->tid = tid;
  ev->nthreads = 1;
  ev->ip = ip;
  ev->target = rm->s->target;
}

static void region_event(struct cc_remote *rm, uint32_t type, pid_t tid, uint64_t ip, int truncated,
                         int reached, const uint64_t *retval) {
  struct asmspy_event ev;
  sample_event(rm, &ev, type, tid, ip);
  if (retval) /* read at the ret (CC_RSTUB_PROBE) */
    ev.u.region.retval = *retval;
  else
    ev.flags = ASMSPY_EVF_SP_UNKNOWN; /* not read: the return value is not known */
  ev.u.region.start = rm->s->region_start;
  ev.u.region.len = rm->s->region_len;
  ev.u.region.sample = rm->rg.sample;
  ev.u.region.truncated = (uint32_t)truncated;
  ev.u.region.reached = (uint32_t)reached;
  emit(rm, &ev);
}

void rm_region_end(struct cc_remote *rm, uint64_t ip, int truncated) {
  if (!rm->rg.tid) return;
  region_event(rm, ASMSPY_EV_REGION_EXIT, rm->rg.tid, ip, truncated, 1, NULL);
  rm->rg.tid = 0;
}

/* The sample returned: its ret at ip, with the return value when read. */
static void region_returned(struct cc_remote *rm, uint64_t ip, const uint64_t *retval) {
  region_event(rm, ASMSPY_EV_REGION_EXIT, rm->rg.tid, ip, 0, 1, retval);
  rm->rg.tid = 0;
}

void rm_region_not_reached(struct cc_remote *rm) {
  rm->rg.sample++;
  region_event(rm, ASMSPY_EV_REGION_EXIT, 0, rm->s->region_start, 0, 0, NULL);
}

/* Is this thread's instruction part of the open sample? Opens one at the
 * entry; 0: not reported. */
static int sampled(struct cc_remote *rm, pid_t tid, uint64_t ip) {
  struct rm_region *r = &rm->rg;
  if (!r->tid) {
    if (ip != rm->s->region_start) return 0;
    memset(r, 0, offsetof(struct rm_region, sample));
    r->tid = tid;
    r->sample++;
    region_event(rm, ASMSPY_EV_REGION_ENTER, tid, ip, 0, 0, NULL);
  } else if (tid != r->tid) {
    return 0;
  }
  if (r->out_ret) { /* in a call out of the region: its callee runs unreported */
    if (ip != r->out_ret) return 0;
    r->out_ret = 0;
  } else if (r->call_ip) { /* the instruction after a call: where it went */
    uint64_t from = r->call_ip;
    r->call_ip = 0;
    if (!in_region(rm->s, ip)) {
      struct asmspy_event ev;
      sample_event(rm, &ev, ASMSPY_EV_CALLOUT, tid, from);
      ev.u.branch.from = from;
      ev.u.branch.to = ip;
      emit(rm, &ev);
      r->out_ret = r->call_ret;
      return 0;
    }
    r->depth++; /* recursion: one level deeper, still the sample */
  }
  if (!in_region(rm->s, ip)) { /* left other than by a call: a tail jump, longjmp */
    rm_region_end(rm, ip, 0);
    return 0;
  }
  return 1;
}

/* The return value the thread's probe read at the ret at ip (the probes
 * come in the order the thread ran them); 0 when none was read. */
static int probed(struct rthread *t, uint64_t ip, uint64_t *rax) {
  while (t->probe_head != t->probe_tail) {
    unsigned slot = t->probe_head++ % 16;
    if (t->probe_ip[slot] == ip) {
      *rax = t->probe_rax[slot];
      return 1;
    }
  }
  return 0;
}

int rm_region_insn(struct cc_remote *rm, struct rthread *t, struct asmspy_event *ev) {
  int inside = in_region(rm->s, ev->ip);
  uint32_t cls = inside ? rm->host->insn_class(ev->ip, ev->u.insn.bytes, ev->u.insn.len) : 0;
  uint64_t rax = 0;
  int have = (cls & ASMSPY_INSN_RET) && probed(t, ev->ip, &rax); /* every thread's, in order */
  if (!sampled(rm, t->tid, ev->ip)) return 0;
  struct rm_region *r = &rm->rg;
  ev->nthreads = 1;
  emit(rm, ev);
  r->steps++;
  if (cls & ASMSPY_INSN_CALL) {
    r->call_ip = ev->ip;
    r->call_ret = ev->ip + ev->u.insn.len;
  } else if ((cls & ASMSPY_INSN_RET) && r->depth-- == 0) {
    region_returned(rm, ev->ip, have ? &rax : NULL);
  } else if (rm->s->max_steps > 0 && r->steps >= (uint64_t)rm->s->max_steps) {
    rm_region_end(rm, ev->ip, 1);
  }
  return 1;
}
