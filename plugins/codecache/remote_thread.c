/* remote_thread.c — one thread of a traced process into and out of the
 * code cache, and its block records as instruction events (remote.h).
 *
 * In: asmspy points the stopped thread's gs base at its block and its rip
 * at the translation of where it was. A thread stopped inside an
 * interrupted syscall that the kernel would restart (rax -ERESTART*, rip
 * after the `syscall`) is sent to the translation of that syscall
 * instruction instead, with rax = the call number and orig_rax = -1: the
 * restart the kernel would have done, done in the cache.
 *
 * Out: every address of translated code that has an original equivalent
 * maps back exactly — a block's entry (its record not written yet), the
 * boundary before each copied instruction (the copies have the original
 * lengths, so an offset in the body is an offset in the original), and
 * the point right after a syscall's copy (where a thread blocked in it
 * sits; rcx gets the original return address). Anywhere else (the record
 * prefix, a stub, the dispatcher) the thread is single-stepped to the
 * next such point, a few dozen instructions at most. */
#define _GNU_SOURCE
#include "plugins/codecache/remote.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

void rm_note(struct cc_remote *rm, uint32_t level, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  rm->host->note(rm->s->out, level, "%s", buf);
}

struct rthread *rm_thread(struct cc_remote *rm, pid_t tid, int add) {
  for (size_t i = 0; i < rm->nth; i++)
    if (rm->th[i].tid == tid) return &rm->th[i];
  if (!add) return NULL;
  if (rm->nth == rm->cap) {
    size_t nc = rm->cap ? rm->cap * 2 : 16;
    struct rthread *n = realloc(rm->th, nc * sizeof *n);
    if (!n) return NULL;
    rm->th = n;
    rm->cap = nc;
  }
  struct rthread *t = &rm->th[rm->nth++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->slot = -1;
  return t;
}

void rm_forget(struct cc_remote *rm, pid_t tid) {
  for (size_t i = 0; i < rm->nth; i++)
    if (rm->th[i].tid == tid) {
      if (rm->th[i].slot >= 0) rm->slot_used[rm->th[i].slot] = 0;
      rm->th[i] = rm->th[--rm->nth];
      return;
    }
}

static uint8_t *slot_local(struct cc_remote *rm, int slot) {
  return rm->data + RT_HASH_BYTES + (uint64_t)slot * RT_SLOT;
}
static uint64_t slot_target(const struct cc_remote *rm, int slot) {
  return rm->data_t + RT_HASH_BYTES + (uint64_t)slot * RT_SLOT;
}
uint64_t *rm_block(struct cc_remote *rm, const struct rthread *t) {
  return (uint64_t *)(void *)slot_local(rm, t->slot);
}
#define F(off) ((off) / 8) /* a CC_TLS_* / CC_RT_* offset as an index of uint64_t */

int rm_get_regs(struct cc_remote *rm, pid_t tid, struct user_regs_struct *u) {
  size_t len = sizeof *u;
  return rm->host->seam->get_regset(rm->sm, tid, NT_PRSTATUS, u, &len);
}
int rm_set_regs(struct cc_remote *rm, pid_t tid, const struct user_regs_struct *u) {
  return rm->host->seam->set_regset(rm->sm, tid, NT_PRSTATUS, u, sizeof *u);
}

/* A free slot, its block set up for tid: empty record buffer, the
 * dispatcher, the shared hash, the request signal. */
static int take_slot(struct cc_remote *rm, struct rthread *t) {
  if (t->slot >= 0) return 0;
  for (unsigned i = 0; i < rm->nslots; i++) {
    if (rm->slot_used[i]) continue;
    rm->slot_used[i] = 1;
    t->slot = (int)i;
    uint8_t *b = slot_local(rm, t->slot);
    uint64_t bt = slot_target(rm, t->slot);
    memset(b, 0, RT_BLOCK);
    uint64_t *q = (uint64_t *)(void *)b;
    q[F(CC_TLS_PSTACK)] = bt + RT_BLOCK + RT_STACK - 64;
    q[F(CC_TLS_DISPATCH)] = rm->disp_t;
    q[F(CC_TLS_CURSOR)] = bt + RT_BLOCK + RT_STACK;
    q[F(CC_TLS_REMAIN)] = RT_RECS;
    q[F(CC_RT_HTAB)] = rm->data_t;
    q[F(CC_RT_HMASK)] = RT_HSLOTS - 1;
    int32_t ids[2] = {rm->s->pid, t->tid};
    memcpy(b + CC_RT_TGID, ids, sizeof ids);
    q[F(CC_RT_SIGNO)] = (uint64_t)rm->signo;
    q[F(CC_RT_SELF)] = bt;
    q[F(CC_RT_TS) + 1] = 10 * 1000 * 1000; /* tv_nsec: 10 ms */
    t->consumed = 0;
    return 0;
  }
  return -1;
}

/* Is gs base ours (0, or inherited from a traced thread's block)? */
static int gs_is_ours(const struct cc_remote *rm, uint64_t gs) {
  return gs == 0 || (gs >= rm->data_t && gs - rm->data_t < RT_DATA_BYTES(rm->nslots));
}

int rm_in_old_cache(const struct cc_remote *rm, uint64_t addr) {
  for (unsigned j = 0; j < rm->nold; j++)
    if (addr >= rm->old_lo[j] && addr < rm->old_hi[j]) return 1;
  return 0;
}

int rm_enter(struct cc_remote *rm, struct rthread *t) {
  if (rm->leaving) return -1;
  if (rm->s->tid && t->tid != rm->s->tid) return -1; /* --tid: that thread alone */
  struct user_regs_struct u;
  if (rm_get_regs(rm, t->tid, &u)) return -1;
  if (rm_in_old_cache(rm, u.rip)) return -1; /* in an earlier session's cache: not ours */
  t->foreign = 0; /* out (an unanswered request sent it native): a gs base there is stale */
  if (rm_in_old_cache(rm, u.gs_base)) u.gs_base = 0;
  if (!gs_is_ours(rm, u.gs_base)) {
    if (!rm->gs_refused++)
      rm_note(rm, ASMSPY_NOTE_WARN,
              "codecache: thread %d uses its gs base (0x%llx): it is not traced (translated code "
              "finds its state through gs)",
              (int)t->tid, (unsigned long long)u.gs_base);
    return -1;
  }
  if (rm_in_cache(rm, u.rip)) { /* in still: answered "native", not yet out of the dispatcher */
    t->in = 1;
    return 0;
  }
  uint64_t ip = u.rip;
  int64_t rax = (int64_t)u.rax;
  uint8_t prev[2];
  int restart = (int64_t)u.orig_rax >= 0 && rax >= -516 && rax <= -512 && rax != -515 &&
                rm_read_code(rm, ip - 2, prev, 2) == 2 && prev[0] == 0x0f && prev[1] == 0x05;
  if (restart) ip -= 2;
  const char *why = NULL;
  int64_t bi = rm_translate(rm, ip, t->tid, &why);
  if (bi < 0) {
    rm->untranslated++;
    rm->last_why = why, rm->last_why_ip = ip;
    return -1;
  }
  if (take_slot(rm, t)) {
    if (!rm->slots_full++)
      rm_note(rm, ASMSPY_NOTE_WARN,
              "codecache: more threads than the %u slots sized at attach: thread %d and any "
              "later one run untraced",
              rm->nslots, (int)t->tid);
    return -1;
  }
  u.gs_base = slot_target(rm, t->slot);
  u.rip = rm->c.blocks[bi].code;
  if (restart) { /* what the kernel's restart would have run: the syscall, again */
    u.rax = rax == -516 ? 219 /* restart_syscall */ : u.orig_rax;
    u.orig_rax = (uint64_t)-1;
  }
  int rc = rm_set_regs(rm, t->tid, &u);
  if (rm->debug > 1)
    fprintf(stderr, "codecache: enter tid %d at 0x%llx%s: rc %d\n", (int)t->tid,
            (unsigned long long)ip, restart ? " (restarting its syscall)" : "", rc);
  if (rc) return -1;
  t->in = 1;
  return 0;
}

/* ------------------------------------------------------------- events -- */

static void emit_block(struct cc_remote *rm, struct rthread *t, uint32_t id, int keep) {
  if (id >= rm->c.nblocks) return;
  const struct cc_block *b = &rm->c.blocks[id];
  unsigned n = keep >= 0 && (unsigned)keep < b->ninsn ? (unsigned)keep : b->ninsn;
  const uint8_t *code = rm->c.bytes + b->bytes_off;
  uint64_t ip = b->orig;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_INSN;
  ev.pid = rm->s->pid;
  ev.tid = t->tid;
  ev.nthreads = (uint32_t)rm->nth;
  ev.target = rm->s->target;
  ev.flags = ASMSPY_EVF_SP_UNKNOWN;
  for (unsigned i = 0; i < n && !rm->sink_stop; i++) {
    uint8_t len = rm->c.lens[b->lens_off + i];
    ev.ip = ip;
    if (!rm->s->region_len) ev.seq = ++rm->seq;
    memset(&ev.u, 0, sizeof ev.u);
    memcpy(ev.u.insn.bytes, code + (ip - b->orig), len);
    ev.u.insn.len = len;
    ip += len;
    if (rm->s->region_len) { /* --trace: one region's invocations (remote_region.c) */
      rm->emitted += (uint64_t)rm_region_insn(rm, t, &ev);
      continue;
    }
    rm->emitted++;
    if (rm->s->sink(rm->s->sink_ctx, &ev)) rm->sink_stop = 1;
  }
}

/* The thread's record buffer (*recs) and how many records it holds. */
static uint64_t records(struct cc_remote *rm, const struct rthread *t, const uint32_t **recs) {
  uint64_t *q = rm_block(rm, t);
  uint64_t recs_t = slot_target(rm, t->slot) + RT_BLOCK + RT_STACK;
  *recs = (const uint32_t *)(const void *)(slot_local(rm, t->slot) + RT_BLOCK + RT_STACK);
  uint64_t cur = __atomic_load_n(&q[F(CC_TLS_CURSOR)], __ATOMIC_ACQUIRE);
  uint64_t n = cur >= recs_t ? (cur - recs_t) / 4 : 0;
  return n > RT_RECS ? RT_RECS : n;
}

uint64_t rm_drain_some(struct cc_remote *rm, struct rthread *t, uint64_t max) {
  if (t->slot < 0 || rm->discard) return 0;
  const uint32_t *recs;
  uint64_t n = records(rm, t, &recs);
  uint64_t upto = n ? n - 1 : 0; /* the last block may be under way */
  uint64_t done = 0;
  for (; t->consumed < upto && done < max && !rm->sink_stop; t->consumed++, done++)
    emit_block(rm, t, recs[t->consumed], -1);
  return done;
}

void rm_drain(struct cc_remote *rm, struct rthread *t, int live, int keep) {
  if (t->slot < 0) return;
  if (rm->discard) { /* ASMSPY_CODECACHE_DISCARD: the capture's own cost, measured */
    t->consumed = RT_RECS;
    return;
  }
  const uint32_t *recs;
  uint64_t n = records(rm, t, &recs);
  uint64_t upto = live && n ? n - 1 : n; /* a running thread's last block may be under way */
  for (uint64_t i = t->consumed; i < upto && !rm->sink_stop; i++)
    emit_block(rm, t, recs[i], !live && i + 1 == n ? keep : -1);
  if (upto > t->consumed) t->consumed = upto;
}

/* ---------------------------------------------------------------- out -- */

/* The original state of a cache address, when it has one: *orig, and how
 * many instructions of the thread's last recorded block ran (*keep, -1:
 * all, or that block's record is not written yet), *rcx_fix: rcx must be
 * the original return address of a syscall. */
static int map_back(const struct cc_remote *rm, uint64_t pc, uint64_t *orig, int *keep,
                    int *rcx_fix) {
  *rcx_fix = 0;
  for (uint64_t i = 0; i < rm->c.nblocks; i++) {
    const struct cc_block *b = &rm->c.blocks[i];
    if (pc == b->code) {
      *orig = b->orig, *keep = -1;
      return 1;
    }
    if (b->sys_after && pc == b->sys_after) {
      *orig = b->orig + b->nbytes, *keep = -1, *rcx_fix = 1;
      return 1;
    }
    if (pc < b->body || pc - b->body >= 16u * b->ninsn) continue;
    uint64_t at = b->body, o = b->orig;
    /* the last instruction's boundary after it exists only when it was
     * copied (a block that fell off its cap); a terminator is rewritten */
    unsigned bounds = (b->flags & CC_TAIL_COPIED) ? b->ninsn : b->ninsn - 1u;
    for (unsigned k = 0; k <= bounds; k++) {
      if (pc == at) {
        *orig = o, *keep = (int)k;
        return 1;
      }
      if (k == b->ninsn) break;
      at += rm->c.lens[b->lens_off + k];
      o += rm->c.lens[b->lens_off + k];
    }
  }
  return 0;
}

#define LEAVE_MAX_STEPS 4096

/* One single-step of the thread (delivering sig); others' stops met on the
 * way are answered or deferred. 0: it stopped again, -1: it is gone. */
int rm_step(struct cc_remote *rm, struct rthread *t, int sig) {
  const struct asmspy_seam_api *seam = rm->host->seam;
  if (seam->step(rm->sm, t->tid, sig)) return -1;
  for (;;) {
    struct asmspy_stop st;
    memset(&st, 0, sizeof st);
    ASMSPY_INIT_HEADER(&st);
    if (seam->next_stop_timeout(rm->sm, &st, 2000)) return -1;
    if (st.kind == ASMSPY_STOP_TIMEOUT || st.kind == ASMSPY_STOP_NONE) return -1;
    if (st.kind == ASMSPY_STOP_INTERRUPTED) continue;
    if (st.tid != t->tid) { /* another thread: leaving too, or running on */
      struct rthread *o = rm_thread(rm, st.tid, 0);
      if (st.kind == ASMSPY_STOP_EXITED) {
        if (o) rm_drain(rm, o, 0, -1), rm_forget(rm, st.tid);
        continue;
      }
      if (st.kind == ASMSPY_STOP_SIGNAL && o && o->in && st.sig == rm->signo &&
          rm_block(rm, o)[F(CC_RT_REQ)]) {
        rm_answer(rm, o);
        seam->resume(rm->sm, st.tid, 0);
        continue;
      }
      if (rm->ndeferred < sizeof rm->deferred / sizeof *rm->deferred) {
        rm->deferred[rm->ndeferred++] = st; /* remote.c handles it after this leave */
        continue;
      }
      seam->resume(rm->sm, st.tid, st.kind == ASMSPY_STOP_SIGNAL ? st.sig : 0);
      continue;
    }
    if (st.kind == ASMSPY_STOP_EXITED) return -1;
    if (st.kind == ASMSPY_STOP_SIGNAL) {
      if (st.sig == rm->signo && rm_block(rm, t)[F(CC_RT_REQ)]) {
        rm_answer(rm, t); /* leaving: the answer sends it native */
        return 0;         /* still stopped: the caller looks again */
      }
      t->owed_sig = st.sig; /* delivered once it is out */
    }
    return 0;
  }
}

/* A thread stopped in the dispatcher with the program's registers on its
 * private stack and an original address in cc_tls.tgt (a lookup, a
 * request raised or waiting) is exactly where the program would be at
 * tgt: those registers, the flags lahf/seto kept, rsp from s_rsp. *u is
 * made that state (1); anywhere else 0 (the caller steps). A request it
 * had raised is withdrawn: its signal, still pending, comes later and is
 * counted unanswered (on_signal drops it). Without this a signal meeting a
 * thread in the dispatcher stepped some 20 instructions to get it out
 * (Go's preemption signals, 1 ms each). */
static int out_of_dispatcher(struct cc_remote *rm, struct rthread *t, struct user_regs_struct *u) {
  uint64_t lo = rm->disp_t + (uint64_t)(cc_rdisp_saved - cc_rdisp_begin);
  uint64_t hi = rm->disp_t + (uint64_t)(cc_rdisp_restore - cc_rdisp_begin);
  if (t->slot < 0 || u->rip < lo || u->rip >= hi) return 0;
  uint64_t *q = rm_block(rm, t);
  uint64_t tgt = q[F(CC_TLS_TGT)];
  if (!tgt || rm_in_cache(rm, tgt)) return 0; /* answered: on its way into the cache */
  const uint64_t *top =
      (const uint64_t *)(const void *)(slot_local(rm, t->slot) + RT_BLOCK + RT_STACK - 64);
  if (q[F(CC_RT_REQ)]) { /* withdrawn: nobody is to answer it now */
    q[F(CC_RT_UNANSWERED)]++;
    __atomic_store_n(&q[F(CC_RT_REQ)], 0, __ATOMIC_RELEASE);
  }
  uint64_t fw = top[-3]; /* lahf: SF ZF AF PF CF in bits 8..15; seto: OF in bit 0 */
  u->eflags = (u->eflags & ~0x8d5ull) | ((fw >> 8) & 0xd5) | ((fw & 1) << 11);
  u->rax = top[-2], u->rcx = top[-4], u->rdx = top[-5], u->rsi = top[-6], u->rdi = top[-7];
  u->r11 = top[-8], u->r10 = top[-9];
  u->rsp = q[F(CC_TLS_S_RSP)];
  u->rip = tgt;
  u->orig_rax = (uint64_t)-1; /* a futex wait it was in is not restarted */
  return 1;
}

int rm_leave(struct cc_remote *rm, struct rthread *t) {
  if (getenv("ASMSPY_CODECACHE_DEBUG")) {
    struct user_regs_struct u;
    rm_get_regs(rm, t->tid, &u);
    fprintf(stderr, "codecache: leaving tid %d in %d rip 0x%llx rax %lld orig_rax %lld\n",
            (int)t->tid, t->in, (unsigned long long)u.rip, (long long)u.rax, (long long)u.orig_rax);
  }
  if (t->slot < 0) return 0; /* never entered */
  t->leaving = 1;            /* a request met on the way is answered "native" */
  int rc = -1;
  for (int steps = 0; steps < LEAVE_MAX_STEPS; steps++) {
    struct user_regs_struct u;
    if (rm_get_regs(rm, t->tid, &u)) break;
    if (out_of_dispatcher(rm, t, &u)) {
      rm_drain(rm, t, 0, -1);
      t->in = 0;
      rc = rm_set_regs(rm, t->tid, &u) ? -1 : 0;
      break;
    }
    uint64_t orig;
    int keep, rcx_fix;
    if (!rm_in_cache(rm, u.rip)) { /* left through the dispatcher, natively */
      rm_drain(rm, t, 0, -1);
      t->in = 0;
      rc = 0;
      break;
    }
    if (getenv("ASMSPY_CODECACHE_DEBUG"))
      fprintf(stderr, "codecache: leave tid %d rip 0x%llx rcx 0x%llx step %d\n", (int)t->tid,
              (unsigned long long)u.rip, (unsigned long long)u.rcx, steps);
    if (map_back(rm, u.rip, &orig, &keep, &rcx_fix)) {
      rm_drain(rm, t, 0, keep);
      u.rip = orig;
      if (rcx_fix) u.rcx = orig;
      if (rm_set_regs(rm, t->tid, &u)) break;
      t->in = 0;
      rc = 0;
      break;
    }
    if (rm_step(rm, t, 0)) break;
  }
  t->leaving = 0;
  return rc;
}

/* ------------------------------------------------------------ requests -- */

void rm_answer(struct cc_remote *rm, struct rthread *t) {
  uint64_t *q = rm_block(rm, t);
  uint64_t idx = q[F(CC_RT_REQ_IDX)], tgt = q[F(CC_TLS_TGT)], go = 0;
  rm->requests++;
  if (idx == CC_RSTUB_FLUSH) { /* every record is complete: the next block's did not start */
    rm_drain(rm, t, 0, -1);
    rm->flushed_blocks += RT_RECS;
    q[F(CC_TLS_CURSOR)] = slot_target(rm, t->slot) + RT_BLOCK + RT_STACK;
    q[F(CC_TLS_REMAIN)] = RT_RECS;
    t->consumed = 0;
  }
  int native = rm->leaving || t->leaving || rm->sink_stop;
  if (idx == CC_RSTUB_PROBE) { /* --trace: the return value at a ret of the region */
    /* the program's rax is the first word rdispatch.S pushed, below the
     * stub index, at the top of the private stack */
    const uint64_t *top =
        (const uint64_t *)(const void *)(slot_local(rm, t->slot) + RT_BLOCK + RT_STACK - 64);
    unsigned slot = t->probe_tail++ % 16;
    t->probe_ip[slot] = tgt, t->probe_rax[slot] = top[-2];
    if (t->probe_tail - t->probe_head > 16) t->probe_head = t->probe_tail - 16;
    go = native ? 0 : q[F(CC_RT_CONT)];
  } else if (idx == CC_RSTUB_UNMAP) { /* munmap/mremap/mmap/mprotect (remote_maps.c) */
    const uint64_t *top =
        (const uint64_t *)(const void *)(slot_local(rm, t->slot) + RT_BLOCK + RT_STACK - 64);
    if (!native) go = rm_answer_map_call(rm, t, top, q[F(CC_RT_CONT)]);
  } else if (idx == CC_RSTUB_STALE) { /* a checked block's bytes changed (remote_maps.c) */
    if (!native) go = rm_answer_stale(rm, t, tgt, q[F(CC_RT_CONT)]);
  } else if (idx == CC_RSTUB_SIGRET) {
    t->catch_nr = native ? 0 : SYS_rt_sigreturn; /* it runs natively; caught at its exit */
  } else if (!native) {
    const char *why = NULL;
    int64_t bi = rm_translate(rm, tgt, t->tid, &why);
    if (bi >= 0) {
      go = rm->c.blocks[bi].code;
    } else {
      rm->untranslated++;
      rm->last_why = why, rm->last_why_ip = tgt;
    }
  }
  q[F(CC_RT_RESOLVED)] = go;
  if (!go) t->in = 0; /* it continues at tgt natively */
  /* answered: the request word cleared (after the answer); a thread waiting
   * on it (its signal was blocked) is woken */
  int waited = q[F(CC_RT_REQ)] == 2;
  __atomic_store_n(&q[F(CC_RT_REQ)], 0, __ATOMIC_RELEASE);
  if (waited) syscall(SYS_futex, &q[F(CC_RT_REQ)], 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
  if (rm->debug > 1)
    fprintf(stderr, "codecache: request tid %d stub %llu target 0x%llx -> 0x%llx%s\n", (int)t->tid,
            (unsigned long long)idx, (unsigned long long)tgt, (unsigned long long)go,
            t->catch_nr ? " (runs natively: caught at its exit)" : "");
}
