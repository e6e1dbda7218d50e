/* plugins/common/callcheck.h — verified-call tracking shared by the views
 * that follow calls in the single-step stream with exact sp (graph, tree).
 *
 * Plugins are separate shared modules that export one symbol and never link
 * each other, so the shared pieces live here as static inline functions: each
 * plugin compiles its own private copy of what it uses.
 *
 * Per thread, a `call` instruction arms a pending call {call site,
 * fall-through, slot = sp before - 8}. At that thread's next instruction
 * events the call is verified against the machine state it left behind:
 * sp == slot and the 8 bytes at [sp] == the fall-through (ip == fall-through
 * is `call $+5; pop`, a get-pc, never a call). A pending call whose slot sp
 * has risen above is dropped (the return address is gone).
 * AArch64 (common/arch_insn.h ARCH_LINK_GPR): `bl`/`blr` leave the stack
 * alone and the return address in x30, and a leaf never stores it nor moves
 * sp, so a return cannot be seen in sp: the views follow calls there in flow
 * mode (cc_flow_mode), by the address each ret reaches.
 *
 *   decode   the host's instruction class of an INSN event's bytes
 *            (plugins/common/insn_class.h: CALL / RET bits and the
 *            length), cc_event_sp (sp of an INSN event, or from its regs)
 *   calls    cc_drop_stale, cc_land (the pending call that lands at this
 *            event, verified), cc_arm (arm the call this event executes)
 *   flow     cc_flow_step: the same without sp (see "flow mode" below)
 *   threads  struct cc_threads: a table of per-thread records, each starting
 *            with a struct cc_thread (the view appends its own fields):
 *            cc_thread_for (find or add), cc_thread_find, cc_thread_remove
 */
#ifndef ASMSPY_PLUGINS_COMMON_CALLCHECK_H
#define ASMSPY_PLUGINS_COMMON_CALLCHECK_H

#include <asmspy/plugin.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/arch_insn.h"
#include "plugins/common/insn_class.h"

#define CC_PEND_MAX 32

struct cc_pending {
  uint64_t slot; /* sp at the callee's entry when the call is real */
  uint64_t ft;   /* the call's fall-through: the return address it pushes */
  uint64_t site; /* the call instruction */
  struct asmspy_target *target;
};

/* The head of every per-thread record in a struct cc_threads. */
struct cc_thread {
  int32_t tid;
  int npend;
  struct cc_pending pend[CC_PEND_MAX];
  int flow_ret; /* flow mode: the last instruction was a ret */
};

/* Per-thread records of elem_size bytes each (set elem_size before use). */
struct cc_threads {
  char *v;
  size_t n, cap, last;
  size_t elem_size;
};

/* ----------------------------------------------------------- decode -- */

static inline int cc_event_sp(const struct asmspy_event *ev, uint64_t *sp) {
  if (!(ev->flags & ASMSPY_EVF_SP_UNKNOWN)) {
    *sp = ev->u.insn.sp;
    return 1;
  }
  if (ASMSPY_HAS(ev, regs) && ev->regs) {
    *sp = ev->regs->sp;
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------ calls -- */

/* Drop every pending call whose slot sp has risen above. */
static inline void cc_drop_stale(struct cc_thread *t, uint64_t sp) {
  int k = 0;
  for (int i = 0; i < t->npend; i++)
    if (t->pend[i].slot >= sp) t->pend[k++] = t->pend[i];
  t->npend = k;
}

/* The pending call that lands at ev (sp one slot down, the newest first) is
 * taken off the list into *pc; returns 1 when it is verified (the return
 * address on top of the stack, ip not its own fall-through), else 0. */
static inline int cc_land(struct cc_thread *t, const struct asmspy_host_api *h,
                          const struct asmspy_event *ev, uint64_t sp, struct cc_pending *pc) {
  for (int i = t->npend - 1; i >= 0; i--) {
    if (t->pend[i].slot != sp) continue;
    *pc = t->pend[i];
    memmove(&t->pend[i], &t->pend[i + 1], (size_t)(t->npend - i - 1) * sizeof *pc);
    t->npend--;
    uint64_t ret = 0;
    return ev->ip != pc->ft &&
           h->read_mem(ev->target, sp, &ret, sizeof ret) == (ssize_t)sizeof ret && ret == pc->ft;
  }
  return 0;
}

/* When ev's instruction is a call, arm it (the oldest pending call makes
 * room when CC_PEND_MAX are armed). */
static inline void cc_arm(struct cc_thread *t, const struct asmspy_host_api *h,
                          const struct asmspy_event *ev, uint64_t sp) {
  uint32_t c = pi_event_class(h, ev);
  if (!(c & ASMSPY_INSN_CALL)) return;
  uint32_t len = ASMSPY_INSN_LEN(c);
  if (t->npend == CC_PEND_MAX) {
    memmove(&t->pend[0], &t->pend[1], (CC_PEND_MAX - 1) * sizeof t->pend[0]);
    t->npend--;
  }
  t->pend[t->npend++] = (struct cc_pending){
      .slot = sp - 8, .ft = ev->ip + (uint64_t)len, .site = ev->ip, .target = ev->target};
}

/* -------------------------------------------------------- flow mode -- */

/* Without exact sp (ASMSPY_SESS_EXACT_SP unset: a backend that reports
 * every branch but no registers, i.e. Intel PT) a call is followed by
 * control flow alone. The decoder follows every branch, so the thread's
 * next instruction event after a call IS the call's target: the call lands
 * there (unless that is its own fall-through: a get-pc `call $+5`). A ret
 * is matched by the address it reaches: the frame whose return address
 * that is, and every frame above it, are gone; a longjmp (no ret) is
 * noticed at the next ret that reaches a lower frame. perf's thread-stack
 * does the same for PT. What this cannot see: a signal delivered exactly
 * between a call and its target's first instruction (the handler would be
 * taken for the callee). */
enum { CC_FLOW_NONE = 0, CC_FLOW_CALL = 1, CC_FLOW_RET = 2 };

/* Does session s follow calls by control flow? Without exact sp, and
 * always where a call leaves the stack alone (AArch64's link register). */
static inline int cc_flow_mode(const struct asmspy_session *s) {
  return ARCH_LINK_GPR >= 0 || !(s->flags & ASMSPY_SESS_EXACT_SP);
}

/* One instruction event of t in flow mode. Returns CC_FLOW_CALL when the
 * call armed by t's previous event lands here (*pc: that call), or
 * CC_FLOW_RET when t's previous event was a ret (ev->ip is where it
 * returned to); then arms what this event's instruction is. */
static inline int cc_flow_step(struct cc_thread *t, const struct asmspy_host_api *h,
                               const struct asmspy_event *ev, struct cc_pending *pc) {
  int what = CC_FLOW_NONE;
  memset(pc, 0, sizeof *pc);
  if (t->npend) {
    *pc = t->pend[t->npend - 1];
    t->npend = 0;
    if (ev->ip != pc->ft) what = CC_FLOW_CALL;
  } else if (t->flow_ret) {
    what = CC_FLOW_RET;
  }
  t->flow_ret = 0;
  uint32_t c = pi_event_class(h, ev);
  if (c & ASMSPY_INSN_CALL) {
    t->pend[0] = (struct cc_pending){
        .slot = 0, .ft = ev->ip + ASMSPY_INSN_LEN(c), .site = ev->ip, .target = ev->target};
    t->npend = 1;
  } else if (c & ASMSPY_INSN_RET) {
    t->flow_ret = 1;
  }
  return what;
}

/* ---------------------------------------------------------- threads -- */

static inline struct cc_thread *cc_thread_at(struct cc_threads *tt, size_t i) {
  return (struct cc_thread *)(void *)(tt->v + i * tt->elem_size);
}

/* The record of tid, or NULL. */
static inline struct cc_thread *cc_thread_find(struct cc_threads *tt, int32_t tid) {
  for (size_t i = 0; i < tt->n; i++)
    if (cc_thread_at(tt, i)->tid == tid) return cc_thread_at(tt, i);
  return NULL;
}

/* The record of tid, added (zeroed) on first sight; NULL when out of memory. */
static inline struct cc_thread *cc_thread_for(struct cc_threads *tt, int32_t tid) {
  if (tt->last < tt->n && cc_thread_at(tt, tt->last)->tid == tid) return cc_thread_at(tt, tt->last);
  for (size_t i = 0; i < tt->n; i++)
    if (cc_thread_at(tt, i)->tid == tid) {
      tt->last = i;
      return cc_thread_at(tt, i);
    }
  if (tt->n == tt->cap) {
    size_t nc = tt->cap ? tt->cap * 2 : 8;
    char *nv = realloc(tt->v, nc * tt->elem_size);
    if (!nv) return NULL;
    tt->v = nv;
    tt->cap = nc;
  }
  struct cc_thread *t = cc_thread_at(tt, tt->n);
  memset(t, 0, tt->elem_size);
  t->tid = tid;
  tt->last = tt->n++;
  return t;
}

/* Remove t (a record of tt): the last record takes its place. */
static inline void cc_thread_remove(struct cc_threads *tt, struct cc_thread *t) {
  struct cc_thread *lastrec = cc_thread_at(tt, --tt->n);
  if (t != lastrec) memcpy(t, lastrec, tt->elem_size);
  tt->last = 0;
}

#endif /* ASMSPY_PLUGINS_COMMON_CALLCHECK_H */
