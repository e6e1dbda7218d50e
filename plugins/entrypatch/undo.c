/* undo.c: taking an agent out of a stopped process (see undo.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/undo.h"
#include "plugins/entrypatch/agent_layout.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define UNDO_MAX_THREADS 4096
#define STACK_SCAN_MAX (1u << 20) /* bytes of each stack scanned above its sp */

struct undo {
  struct ep_remote *rem;
  struct agent_state *st; /* the header only (up to `threads`) */
  uint64_t state;
  pid_t tids[UNDO_MAX_THREADS];
  uint64_t ips[UNDO_MAX_THREADS], sps[UNDO_MAX_THREADS];
  uint32_t nthreads;
  /* slots already given back (a slot is restored once: its newest frame) */
  uint64_t *done;
  size_t ndone, capdone;
  uint32_t still_hooked; /* slots that hold the hook and could not be restored */
};

static ssize_t rd(struct undo *u, uint64_t addr, void *buf, size_t n) {
  return u->rem->host->read_mem(u->rem->target, addr, buf, n);
}
static int wr(struct undo *u, uint64_t addr, const void *buf, size_t n) {
  return u->rem->host->write_mem(u->rem->target, addr, buf, n) == (ssize_t)n ? 0 : -1;
}

static int read_threads(struct undo *u) {
  const struct asmspy_seam_api *seam = u->rem->host->seam;
  u->nthreads = seam->list_threads(u->rem->seam, u->tids, UNDO_MAX_THREADS);
  for (uint32_t i = 0; i < u->nthreads; i++) {
    struct asmspy_regs regs;
    memset(&regs, 0, sizeof regs);
    ASMSPY_INIT_HEADER(&regs);
    if (seam->get_regs(u->rem->seam, u->tids[i], &regs) != 0) return -1;
    u->ips[i] = regs.ip;
    u->sps[i] = regs.sp;
  }
  return 0;
}

static int thread_live(const struct undo *u, int32_t tid) {
  for (uint32_t i = 0; i < u->nthreads; i++)
    if (u->tids[i] == tid) return 1;
  return 0;
}

static int slot_done(struct undo *u, uint64_t slot) {
  for (size_t i = 0; i < u->ndone; i++)
    if (u->done[i] == slot) return 1;
  if (u->ndone == u->capdone) {
    size_t cap = u->capdone ? u->capdone * 2 : 256;
    uint64_t *n = realloc(u->done, cap * sizeof *n);
    if (!n) return 1; /* out of memory: touch nothing more */
    u->done = n, u->capdone = cap;
  }
  u->done[u->ndone++] = slot;
  return 0;
}

/* ------------------------------------------------------- 2. entries -- */

/* calls_only: keep the unwinder hooks (they give hooked frames their real
 * return addresses before anything walks the stack) while frames are
 * still hooked. */
static void restore_entries(struct undo *u, struct ep_undo_report *rep, int calls_only) {
  uint32_t n = u->st->nfuncs < AGENT_MAX_FUNCS ? u->st->nfuncs : AGENT_MAX_FUNCS;
  struct agent_func *fn = calloc(n ? n : 1, sizeof *fn);
  if (!fn) return;
  uint64_t at = u->state + offsetof(struct agent_state, funcs);
  if (rd(u, at, fn, n * sizeof *fn) != (ssize_t)(n * sizeof *fn)) n = 0;
  for (uint32_t i = 0; i < n; i++) {
    const struct agent_func *f = &fn[i];
    if (f->len < 5 || f->len > AGENT_ORIG_MAX || !f->stub) continue;
    if (calls_only && AGENT_FN_KIND(f->kind) != AGENT_FN_CALL) continue;
    uint8_t now[AGENT_ORIG_MAX], ours[AGENT_ORIG_MAX];
    if (f->kind & AGENT_FN_GOT) { /* a GOT slot: the value back while it holds the stub */
      uint64_t val = 0;
      if (f->len != 8 || rd(u, f->addr, &val, 8) != 8 || val != f->stub) continue;
      if (wr(u, f->addr, f->orig, 8) == 0) rep->restored++;
      continue;
    }
    int64_t rel = (int64_t)(f->stub - (f->addr + 5));
    int32_t rel32 = (int32_t)rel;
    if (rel != rel32) continue;
    ours[0] = 0xe9;
    memcpy(ours + 1, &rel32, 4);
    memset(ours + 5, 0xcc, f->len - 5);
    /* only what still holds our jump: an exec or an unmapped library
     * replaced the rest */
    if (rd(u, f->addr, now, f->len) != (ssize_t)f->len || memcmp(now, ours, f->len) != 0) continue;
    if (wr(u, f->addr, f->orig, f->len) == 0) rep->restored++;
  }
  free(fn);
}

/* -------------------------------------------------------- 3. frames -- */

/* One recorded frame: its slot gets the real return address back if it
 * still holds the hook. */
static void give_back(struct undo *u, const struct agent_frame *f, struct ep_undo_report *rep) {
  if (slot_done(u, f->slot)) return;
  uint64_t now = 0;
  if (rd(u, f->slot, &now, 8) != 8 || now != u->st->ret_hook) return;
  if (wr(u, f->slot, &f->ret, 8) == 0)
    rep->unhooked++;
  else
    u->still_hooked++;
}

static int newest_first(const void *a, const void *b) {
  const struct agent_frame *x = a, *y = b;
  return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

static void unhook_threads(struct undo *u, struct ep_undo_report *rep) {
  struct agent_frame *frames = malloc(sizeof(struct agent_frame) * (AGENT_SHADOW + AGENT_GRAVE));
  if (!frames) return;
  for (uint32_t k = 0; k < AGENT_THREADS; k++) {
    uint64_t base = u->state + offsetof(struct agent_state, threads) +
                    (uint64_t)k * sizeof(struct agent_thread);
    struct {
      uint64_t key;
      int32_t tid;
      uint32_t depth, ngrave, pad_emit;
      uint64_t dropped, grave_mask;
      uint32_t ring, ring_gen;
      int32_t vfork_pid;
      uint32_t inherit;
    } head;
    _Static_assert(offsetof(struct agent_thread, frames) == sizeof head, "agent_thread head");
    if (rd(u, base, &head, sizeof head) != (ssize_t)sizeof head) break;
    rep->dropped += head.dropped;
    /* a dead thread's frames return nowhere, and its stack may be a new
     * thread's now: its slots are never written */
    if (head.key <= AGENT_KEY_DEAD || !thread_live(u, head.tid)) continue;
    uint32_t d = head.depth < AGENT_SHADOW ? head.depth : AGENT_SHADOW, n = 0;
    if (d && rd(u, base + offsetof(struct agent_thread, frames), frames, d * sizeof *frames) ==
                 (ssize_t)(d * sizeof *frames))
      n = d;
    if (head.ngrave && rd(u, base + offsetof(struct agent_thread, grave), frames + n,
                          AGENT_GRAVE * sizeof *frames) == (ssize_t)(AGENT_GRAVE * sizeof *frames))
      n += AGENT_GRAVE;
    /* of several records of one slot the newest is the live one: newest
     * first, each slot once (tail entries, ret 0, share their base's slot) */
    qsort(frames, n, sizeof *frames, newest_first);
    for (uint32_t i = 0; i < n; i++)
      if (frames[i].slot && frames[i].ret) give_back(u, &frames[i], rep);
    uint32_t zero[2] = {0, 0}; /* depth, ngrave */
    wr(u, base + offsetof(struct agent_thread, depth), zero, sizeof zero);
  }
  free(frames);
}

/* ----------------------------------------------------- 4. the unmap -- */

static int in_code(const struct undo *u, uint64_t a) {
  for (uint32_t r = 0; r < u->st->nregions && r < AGENT_MAX_REGIONS; r++)
    if (a >= u->st->regions[r].base && a < u->st->regions[r].base + u->st->regions[r].size)
      return 1;
  return 0;
}

/* The end of the mapping holding addr (from /proc/<pid>/maps), or 0. */
static uint64_t mapping_end(pid_t pid, uint64_t addr) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  uint64_t end = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long a, b;
    if (sscanf(line, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b) {
      end = b;
      break;
    }
  }
  fclose(f);
  return end;
}

/* A word of agent code on a stack that something will resume: the
 * instruction pointer saved in a signal frame that interrupted the agent
 * (ucontext's gregs: rip, then eflags with its always-one bit 1, then
 * cs/gs/fs with the 64-bit user cs 0x33). A hooked slot is not looked for:
 * every hook is recorded before it is written, and every record was given
 * back above (one whose give-back failed is counted in still_hooked and
 * keeps the memory). Any other agent address above sp is a stale word in a
 * live frame's uninitialised locals (the agent's own spills, the resume
 * address its jump consumed) and refers to nothing. */
static int live_reference(const struct undo *u, const uint64_t *w, size_t i, size_t n) {
  if (!in_code(u, w[i])) return 0;
  return i + 2 < n && (w[i + 1] & 2) && w[i + 1] < (1ull << 22) && (w[i + 2] & 0xffff) == 0x33;
}

/* Is a thread inside agent code, or suspended inside it by a signal whose
 * handler runs now (its signal frame holds the interrupted rip)? Such a
 * thread may be between claiming a shadow-stack entry and hooking the slot
 * (or popping one): its frames must not be given back, nor the agent
 * unmapped, until it has left. Returns why, or NULL. */
static const char *busy(struct undo *u, char *why, size_t cap) {
  for (uint32_t i = 0; i < u->nthreads; i++)
    if (in_code(u, u->ips[i])) {
      snprintf(why, cap, "thread %d is inside the agent's code", (int)u->tids[i]);
      return why;
    }
  size_t bufcap = 64 << 10;
  uint64_t *buf = malloc(bufcap);
  if (!buf) {
    snprintf(why, cap, "out of memory scanning stacks");
    return why;
  }
  const char *res = NULL;
  for (uint32_t i = 0; i < u->nthreads && !res; i++) {
    uint64_t sp = u->sps[i] & ~7ull, end = mapping_end(u->rem->pid, sp);
    if (!end) continue;
    if (end - sp > STACK_SCAN_MAX) end = sp + STACK_SCAN_MAX;
    for (uint64_t at = sp; at < end && !res;) {
      size_t n = end - at < bufcap ? (size_t)(end - at) : bufcap;
      ssize_t got = rd(u, at, buf, n);
      if (got <= 0) break;
      for (size_t w = 0; w < (size_t)got / 8; w++)
        if (live_reference(u, buf, w, (size_t)got / 8)) {
          snprintf(why, cap,
                   "thread %d runs a signal handler that interrupted the agent's code (frame at "
                   "0x%llx)",
                   (int)u->tids[i], (unsigned long long)(at + w * 8));
          res = why;
          break;
        }
      at += (uint64_t)got;
    }
  }
  free(buf);
  return res;
}

/* Why the agent's memory must stay after the give-back, or NULL. */
static const char *still_used(struct undo *u, char *why, size_t cap) {
  if (u->still_hooked) {
    snprintf(why, cap, "%u hooked return slot(s) could not be given back", u->still_hooked);
    return why;
  }
  if (u->st->unhook_failed) {
    snprintf(why, cap, "the agent could not give %llu frame(s) their return address back",
             (unsigned long long)u->st->unhook_failed);
    return why;
  }
  return NULL;
}

static void unmap_all(struct undo *u, int skip_ring) {
  struct agent_state *st = u->st;
  for (uint32_t r = 0; r < st->nregions && r < AGENT_MAX_REGIONS; r++)
    if (st->regions[r].base)
      ep_remote_call(u->rem, SYS_munmap, st->regions[r].base, st->regions[r].size, 0, 0, 0, 0);
  if (st->gate_map.base)
    ep_remote_call(u->rem, SYS_munmap, st->gate_map.base, st->gate_map.size, 0, 0, 0, 0);
  if (!skip_ring && st->ring_map.base)
    ep_remote_call(u->rem, SYS_munmap, st->ring_map.base, st->ring_map.size, 0, 0, 0, 0);
  if (st->state_map.base) /* last: everything above was read from it */
    ep_remote_call(u->rem, SYS_munmap, st->state_map.base, st->state_map.size, 0, 0, 0, 0);
}

/* The agent's state header read from the target (and, with threads, every
 * thread's registers), or NULL: no such state, or another layout. */
static struct undo *undo_open(struct ep_remote *rem, uint64_t state, int threads) {
  struct undo *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  u->rem = rem;
  u->state = state;
  u->st = malloc(sizeof *u->st);
  size_t head = offsetof(struct agent_state, threads);
  if (u->st && rd(u, state, u->st, head) == (ssize_t)head && u->st->magic == AGENT_MAGIC &&
      (!threads || read_threads(u) == 0))
    return u;
  free(u->st);
  free(u);
  return NULL;
}

static void undo_close(struct undo *u) {
  free(u->done);
  free(u->st);
  free(u);
}

int ep_undo_agent(struct ep_remote *rem, uint64_t state, int skip_ring,
                  struct ep_undo_report *rep) {
  memset(rep, 0, sizeof *rep);
  struct undo *u = undo_open(rem, state, 1);
  if (!u) return -1;
  rep->nfuncs = u->st->nfuncs;
  rep->owner_pid = u->st->owner_pid;
  rep->claim_fail = u->st->claim_fail;
  rep->reclaimed = u->st->reclaimed;
  rep->evicted = u->st->unhooked;
  rep->unmatched = u->st->unmatched;
  rep->jit_entry_only = u->st->jit_entry_only;
  rep->jit_last_func = u->st->jit_last_func;
  /* 1. no more records */
  uint64_t zero = 0;
  if (u->st->gate) wr(u, (uint64_t)u->st->gate + offsetof(struct agent_gate, armed), &zero, 8);
  /* 2. the entries; 3. the frames, only when no thread is inside agent
   * code (busy): then they stay as they are and return through the agent
   * as before, and the unwinder hooks stay with them (restore_entries) */
  const char *why = busy(u, rep->kept, sizeof rep->kept);
  int inside = why != NULL;
  rep->inside = inside;
  restore_entries(u, rep, inside);
  if (!inside) {
    unhook_threads(u, rep);
    why = still_used(u, rep->kept, sizeof rep->kept);
  }
  /* 4. the memory */
  if (!why) {
    unmap_all(u, skip_ring);
    rep->unmapped = 1;
  } else if (!inside && !skip_ring && u->st->gate && u->st->ring_map.base) {
    /* the code stays for what may still return through it, but the ring
     * (most of the memory) can go: the agent reaches it only through the
     * gate, read by a thread inside its code, and none is */
    if (wr(u, (uint64_t)u->st->gate + offsetof(struct agent_gate, ring), &zero, 8) == 0 &&
        ep_remote_call(rem, SYS_munmap, u->st->ring_map.base, u->st->ring_map.size, 0, 0, 0, 0) ==
            0) {
      struct agent_mapping none = {0, 0};
      wr(u, state + offsetof(struct agent_state, ring_map), &none, sizeof none);
    }
  }
  undo_close(u);
  return 0;
}

int ep_undo_entries(struct ep_remote *rem, uint64_t state) {
  struct undo *u = undo_open(rem, state, 0);
  if (!u) return -1;
  struct ep_undo_report rep;
  memset(&rep, 0, sizeof rep);
  uint64_t zero = 0;
  if (u->st->gate) wr(u, (uint64_t)u->st->gate + offsetof(struct agent_gate, armed), &zero, 8);
  restore_entries(u, &rep, 1);
  undo_close(u);
  return (int)rep.restored;
}

int ep_agent_busy(struct ep_remote *rem, uint64_t state, char *why, size_t whycap) {
  struct undo *u = undo_open(rem, state, 1);
  if (!u) {
    snprintf(why, whycap, "the agent's state cannot be read");
    return 1;
  }
  int res = busy(u, why, whycap) != NULL;
  undo_close(u);
  return res;
}
