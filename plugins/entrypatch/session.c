/* session.c: one call capture of a running process (or a --launch'ed one,
 * run through ld.so to its entry point first).
 *
 *   1. attach: every thread stopped (the seam); an agent already in the
 *      process is refused (a live session) or undone first (agents.c);
 *   2. choose and plan the functions (select.c, plan.c, patchable.c): none
 *      whose patched bytes hold a thread's ip, an ip saved on a thread's
 *      stack, or the target of a branch anywhere in its module, none
 *      already jumping into anonymous code (another tool's patch);
 *   3. map the agent's memory (inject.c) and write the code regions, the
 *      function table and the gate; then the jumps over each entry, and
 *      the stubs' addresses into the GOT slots got.c allowed;
 *   4. detach: the target runs at native speed outside the trampolines;
 *   5. read the rings (reader.c) until the view has enough, the session is
 *      stopped (Ctrl-C, SIGTERM, asmspy's supervisor killed) or the target
 *      is gone;
 *   6. attach again (no thread inside agent code) and undo (undo.c):
 *      disarm the gate, restore every patched byte that still holds our
 *      jump (an exec may have replaced the image), give every hooked
 *      frame its real return address back, and unmap all of the agent's
 *      memory unless a stack still refers to it; read the last records,
 *      detach. */
#define _GNU_SOURCE
#include "plugins/entrypatch/session.h"
#include "plugins/entrypatch/jitranges.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/agents.h"
#include "plugins/entrypatch/got.h"
#include "plugins/entrypatch/inject.h"
#include "plugins/entrypatch/patchable.h"
#include "plugins/entrypatch/plan.h"
#include "plugins/entrypatch/proc_stat.h"
#include "plugins/entrypatch/reader.h"
#include "plugins/entrypatch/runtime.h"
#include "plugins/entrypatch/region.h"
#include "plugins/entrypatch/select.h"
#include "plugins/entrypatch/undo.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096
#define REGION_SPAN (1ull << 30) /* functions one code region serves span at most 1 GiB */
#define SCAN_MAX (256u << 10)    /* bytes of a function body scanned for branches */
#define GPR_FS_BASE 21           /* asmspy_regs.gpr index (user_regs_struct order) */
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

struct region {
  uint64_t lo, hi;     /* the functions it serves */
  uint32_t first, n;   /* its patches: [first, first + n) */
  uint64_t base, size; /* where it is mapped */
};

struct ep_run {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct asmspy_out *out;
  csh cs;
  struct ep_patch *patches;
  uint32_t npatches;
  struct region regions[AGENT_MAX_REGIONS];
  uint32_t nregions;
  struct agent_func *funcs;
  uint64_t state, gate, ring;
  uint64_t state_size;
  void *ring_local;
  uint64_t ring_size;
  pid_t tids[MAX_THREADS];
  uint64_t ips[MAX_THREADS], sps[MAX_THREADS], fs[MAX_THREADS];
  uint32_t nthreads;
  uint32_t tid_offset;
  /* refusals, by reason (the first of each reason is named) */
  struct {
    char reason[160];
    char example[96];
    uint32_t count;
  } refused[16];
  uint32_t nrefused_kinds, nrefused;
  /* every refused function with its entry, for the REFUSED events */
  struct refused_fn {
    uint64_t addr;
    char *why;
  } * refused_fns;
  uint32_t nrefused_fns, refused_fns_cap;
  struct asmspy_session leave_session; /* the second attach's (see attach_for_leave) */
};

static void note(struct ep_run *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(struct ep_run *r, int level, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r->host->note(r->out, level, "entrypatch: %s", buf);
}

static void refuse(struct ep_run *r, const char *name, const char *why) {
  r->nrefused++;
  if (getenv("ASMSPY_ENTRYPATCH_DEBUG")) fprintf(stderr, "entrypatch: refused %s: %s\n", name, why);
  /* the reason without its "+N" detail, so equal reasons fold */
  char key[160];
  snprintf(key, sizeof key, "%s", why);
  char *paren = strstr(key, " (");
  if (paren) *paren = '\0';
  for (uint32_t i = 0; i < r->nrefused_kinds; i++)
    if (!strcmp(r->refused[i].reason, key)) {
      r->refused[i].count++;
      return;
    }
  if (r->nrefused_kinds == sizeof r->refused / sizeof r->refused[0]) return;
  uint32_t i = r->nrefused_kinds++;
  snprintf(r->refused[i].reason, sizeof r->refused[i].reason, "%s", key);
  snprintf(r->refused[i].example, sizeof r->refused[i].example, "%s", name);
  r->refused[i].count = 1;
}

/* A refused function whose entry is known: also listed for its
 * ASMSPY_CALL_REFUSED event (emit_refused). */
static void refuse_at(struct ep_run *r, uint64_t addr, const char *name, const char *why) {
  refuse(r, name, why);
  /* A GOT slot is a second way into a function, tried only where it is
   * safe (got.c): one that is not hooked is said in the summary above, but
   * it is no function the views should list as not traced (every program
   * has __libc_start_main@got and __cxa_finalize@got). */
  size_t nl = name ? strlen(name) : 0;
  if (nl > 4 && strcmp(name + nl - 4, "@got") == 0) return;
  if (r->nrefused_fns == r->refused_fns_cap) {
    uint32_t cap = r->refused_fns_cap ? r->refused_fns_cap * 2 : 64;
    struct refused_fn *v = realloc(r->refused_fns, cap * sizeof *v);
    if (!v) return;
    r->refused_fns = v, r->refused_fns_cap = cap;
  }
  char *copy = strdup(why);
  if (copy) r->refused_fns[r->nrefused_fns++] = (struct refused_fn){addr, copy};
}

/* ABI 1.12: one ASMSPY_CALL_REFUSED per refused function, tid 0, before
 * the first call event (the reader numbers its events after these). */
static void emit_refused(struct ep_run *r, uint64_t *seq) {
  struct asmspy_event ev;
  for (uint32_t i = 0; i < r->nrefused_fns; i++) {
    memset(&ev, 0, sizeof ev);
    ASMSPY_INIT_HEADER(&ev);
    ev.type = ASMSPY_EV_CALL;
    ev.pid = r->s->pid;
    ev.seq = ++*seq;
    ev.target = r->s->target;
    ev.ip = ev.u.call.func = r->refused_fns[i].addr;
    ev.u.call.what = ASMSPY_CALL_REFUSED;
    ev.u.call.why = r->refused_fns[i].why;
    if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
      fprintf(stderr, "entrypatch: REFUSED event 0x%llx: %s\n", (unsigned long long)ev.ip,
              ev.u.call.why);
    if (r->s->sink(r->s->sink_ctx, &ev)) break;
  }
}

static void free_refused(struct ep_run *r) {
  for (uint32_t i = 0; i < r->nrefused_fns; i++) free(r->refused_fns[i].why);
  free(r->refused_fns);
}

/* ---------------------------------------------------------- threads -- */

static int read_threads(struct ep_run *r, struct asmspy_seam *sm) {
  const struct asmspy_seam_api *seam = r->host->seam;
  r->nthreads = seam->list_threads(sm, r->tids, MAX_THREADS);
  for (uint32_t i = 0; i < r->nthreads; i++) {
    struct asmspy_regs regs;
    memset(&regs, 0, sizeof regs);
    ASMSPY_INIT_HEADER(&regs);
    if (seam->get_regs(sm, r->tids[i], &regs) != 0) return -1;
    r->ips[i] = regs.ip;
    r->sps[i] = regs.sp;
    r->fs[i] = regs.ngpr > GPR_FS_BASE ? regs.gpr[GPR_FS_BASE] : 0;
  }
  return 0;
}

static int ip_inside(const struct ep_run *r, uint64_t lo, uint64_t hi) {
  for (uint32_t i = 0; i < r->nthreads; i++)
    if (r->ips[i] >= lo && r->ips[i] < hi) return 1;
  return 0;
}

/* ------------------------------------------------------------ plan -- */

/* vfork children borrow their parent's thread pointer: the agent tells them
 * apart through a hook on vfork's entry (AGENT_FN_VFORK: the caller's slot
 * is marked, the return not hooked). The program's own PLT entries of
 * vfork are hooked: they sit in the main module, whose branches are
 * scanned anyway (libc's vfork would cost a scan of libc). One the
 * selection chose is there already, traced entry only (AGENT_FN_VFORK |
 * AGENT_FN_NOEXIT, select.c: the ENTRY is recorded in the parent's slot);
 * one added here records nothing (--patch did not ask for it). */
static long add_vfork_hooks(struct ep_run *r, struct ep_candidate **candp, long n) {
  static const char *const names[] = {"vfork@plt", "__vfork@plt"};
  if (!ASMSPY_HAS(r->host, resolve_region)) return n;
  for (size_t j = 0; j < sizeof names / sizeof names[0]; j++) {
    uint64_t start = 0, len = 0;
    char err[256];
    if (r->host->resolve_region(r->s->target, names[j], &start, &len, err, sizeof err) != 0 ||
        !start)
      continue;
    long at = 0;
    while (at < n && (*candp)[at].addr < start) at++;
    if (at < n && (*candp)[at].addr == start) continue; /* already there */
    struct ep_candidate *nv = realloc(*candp, ((size_t)n + 1) * sizeof *nv);
    if (!nv) return n;
    *candp = nv;
    memmove(&nv[at + 1], &nv[at], (size_t)(n - at) * sizeof *nv);
    nv[at] = (struct ep_candidate){start, len ? len : 16, names[j], NULL, AGENT_FN_VFORK};
    n++;
  }
  return n;
}

static int plan_all(struct ep_run *r) {
  struct ep_candidate *cand = NULL;
  uint64_t capped = 0, twice = 0;
  struct ep_patchable *whole =
      ep_patchable_open(r->host, r->s->target, r->s->pid, r->sps, r->nthreads);
  if (!whole) return -ASMSPY_E_NOMEM;
  long n = ep_select(r->host, r->s, ep_patchable_maps(whole), &cand, &capped, &twice);
  if (n < 0) {
    ep_patchable_close(whole);
    return -ASMSPY_E_NOMEM;
  }
  n = add_vfork_hooks(r, &cand, n);
  /* every candidate's entry: rel8 branches into it are looked for nearby */
  uint64_t *entries = malloc(((size_t)n + 1) * sizeof *entries);
  size_t nentries = 0;
  for (long i = 0; entries && i < n; i++)
    if (!(cand[i].kind & AGENT_FN_GOT)) entries[nentries++] = cand[i].addr;
  int expected = entries && ep_patchable_expect(whole, entries, nentries) == 0;
  free(entries);
  r->patches = calloc((size_t)n + 1, sizeof *r->patches);
  uint8_t *buf = malloc(SCAN_MAX);
  /* GOT slots (-fno-plt calls): got.c decides, against the module's code */
  struct ep_got *got = ep_got_open(ep_patchable_maps(whole));
  if (!r->patches || !buf || !expected || !got) {
    free(cand), free(buf);
    ep_got_close(got);
    ep_patchable_close(whole);
    return -ASMSPY_E_NOMEM;
  }
  for (long i = 0; i < n; i++) {
    if (cand[i].kind & AGENT_FN_GOT) {
      char why[256];
      struct ep_patch p;
      if (ep_got_plan(got, r->host, r->s->target, cand[i].addr, cand[i].name, &p, why,
                      sizeof why) != 0) {
        refuse_at(r, cand[i].addr, cand[i].name, why);
      } else {
        p.kind = cand[i].kind; /* | AGENT_FN_NOEXIT, AGENT_FN_VFORK: setjmp@got, vfork@got */
        r->patches[r->npatches++] = p;
      }
      continue;
    }
    uint64_t want = cand[i].size < SCAN_MAX ? cand[i].size : SCAN_MAX;
    ssize_t got = want ? r->host->read_mem(r->s->target, cand[i].addr, buf, want) : 0;
    char why[256];
    struct ep_patch p;
    /* the vfork hook is no traced function: when it cannot be placed,
     * vfork children are logged under their parent's tid (debug note) */
    int hook = cand[i].kind == AGENT_FN_VFORK;
#define REFUSE(why_)                                                                               \
  do {                                                                                             \
    if (!hook)                                                                                     \
      refuse_at(r, cand[i].addr, cand[i].name, why_);                                              \
    else if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))                                                    \
      fprintf(stderr, "entrypatch: no vfork hook at %s: %s\n", cand[i].name, why_);                \
  } while (0)
    if (got < (ssize_t)(want < EP_MAX_DISPLACED ? want : EP_MAX_DISPLACED) || got <= 0) {
      REFUSE("its code cannot be read");
      continue;
    }
    if (ep_plan_function(r->cs, cand[i].addr, cand[i].size, buf, (size_t)got, &p, why,
                         sizeof why) != 0) {
      REFUSE(why);
      continue;
    }
    p.kind = cand[i].kind;
    p.name = cand[i].name;
    if (ip_inside(r, p.addr + 1, p.addr + p.len)) {
      REFUSE("a thread's instruction pointer is inside its first bytes");
      continue;
    }
    if (ep_patchable_check(whole, &p, why, sizeof why) != 0) {
      REFUSE(why);
      continue;
    }
#undef REFUSE
    r->patches[r->npatches++] = p;
  }
  free(buf);
  free(cand);
  ep_got_close(got);
  ep_patchable_close(whole);
  if (capped)
    note(r, ASMSPY_NOTE_INFO, "%llu more functions matched past the cap (--max-funcs)",
         (unsigned long long)capped);
  return 0;
}

/* A function whose first bytes already jump into anonymous executable
 * memory was patched by someone else (uftrace -P, frida, a JIT's hook):
 * patching over it would make our leave restore their jump, or theirs
 * restore ours. Refused. */
static void drop_foreign_patches(struct ep_run *r) {
  struct ep_anon_exec anon;
  if (ep_anon_exec_load(r->s->pid, &anon) != 0) return;
  uint32_t keep = 0;
  for (uint32_t i = 0; i < r->npatches; i++) {
    uint64_t to;
    if (!(r->patches[i].kind & AGENT_FN_GOT) && /* a slot's value was checked by got.c */
        ep_foreign_jump(&anon, r->patches[i].addr, r->patches[i].orig, r->patches[i].len, &to)) {
      refuse_at(r, r->patches[i].addr, r->patches[i].name,
                "its first bytes already jump into anonymous code (another tool's patch)");
      continue;
    }
    r->patches[keep++] = r->patches[i];
  }
  r->npatches = keep;
  ep_anon_exec_free(&anon);
}

/* Patches are in address order: cut them into regions of at most
 * REGION_SPAN, each mapped in a free gap within rel32 reach. */
static int place_regions(struct ep_run *r, struct ep_remote *rem) {
  for (uint32_t i = 0; i < r->npatches;) {
    if (r->nregions == AGENT_MAX_REGIONS) {
      note(r, ASMSPY_NOTE_WARN,
           "functions spread over more than %d GiB-wide areas: the rest "
           "are not patched",
           AGENT_MAX_REGIONS);
      r->npatches = i;
      break;
    }
    struct region *g = &r->regions[r->nregions];
    g->first = i;
    g->lo = r->patches[i].addr;
    while (i < r->npatches && r->patches[i].addr - g->lo < REGION_SPAN) i++;
    g->n = i - g->first;
    g->hi = r->patches[i - 1].addr + r->patches[i - 1].len;
    g->size = ep_region_size(g->n);
    uint64_t gap = ep_find_gap_near(r->s->pid, g->lo, g->hi, g->size);
    g->base =
        gap ? ep_remote_map(rem, gap, g->size, PROT_READ | PROT_EXEC, "asmspy-agent-code") : 0;
    if (!g->base) {
      for (uint32_t k = g->first; k < g->first + g->n; k++)
        refuse_at(r, r->patches[k].addr, r->patches[k].name,
                  "no free address range within a rel32 jump of it");
      /* drop them: shift the rest down */
      memmove(&r->patches[g->first], &r->patches[g->first + g->n],
              (r->npatches - g->first - g->n) * sizeof *r->patches);
      r->npatches -= g->n;
      i = g->first;
      continue;
    }
    r->nregions++;
  }
  return 0;
}

/* ----------------------------------------------------------- write -- */

static int write_field(struct ep_run *r, uint64_t addr, const void *v, size_t n) {
  return r->host->write_mem(r->s->target, addr, v, n) == (ssize_t)n ? 0 : -1;
}

/* Record a write in the host's undo journal first: if asmspy's tracer dies
 * before uninstall(), its supervisor puts the old bytes back. */
static int journal(struct ep_run *r, uint64_t addr, const void *old_bytes, const void *new_bytes,
                   size_t len) {
  if (!ASMSPY_HAS(r->host, undo_push)) return 0; /* an older host: no journal */
  return r->host->undo_push(r->s->target, addr, old_bytes, new_bytes, len);
}

/* install, step 1: the private state, the wipe-on-fork gate, the shared
 * ring (its header: owner, lossy or not) */
static int map_agent_memory(struct ep_run *r, struct ep_remote *rem, char *why, size_t whycap) {
  r->state_size = (sizeof(struct agent_state) + 4095) & ~4095ull;
  r->state = ep_remote_map(rem, 0, r->state_size, PROT_READ | PROT_WRITE, "asmspy-agent-state");
  r->gate = ep_remote_map(rem, 0, 4096, PROT_READ | PROT_WRITE, "asmspy-agent-gate");
  if (!r->state || !r->gate) {
    snprintf(why, whycap, "mmap in the target failed");
    return -ASMSPY_E_INTERNAL;
  }
  int64_t adv = ep_remote_call(rem, SYS_madvise, r->gate, 4096, MADV_WIPEONFORK, 0, 0, 0);
  if (adv != 0) {
    snprintf(why, whycap,
             "madvise(MADV_WIPEONFORK) in the target: %s (kernel 4.14+ needed: a forked child "
             "must not write into the parent's ring)",
             strerror((int)-adv));
    return -ASMSPY_E_NO_KERNEL;
  }
  r->ring_size = (sizeof(struct ring_area) + 4095) & ~4095ull;
  r->ring = ep_remote_shared(rem, 0, r->ring_size, PROT_READ | PROT_WRITE, "asmspy-calls",
                             &r->ring_local, why, whycap);
  if (!r->ring) return -ASMSPY_E_INTERNAL;
  struct ring_area *ra = r->ring_local;
  ra->magic = AGENT_MAGIC;
  ra->owner_pid = (int32_t)getpid();
  /* ASMSPY_CALLS_LOSSY=1 (or the older ASMSPY_CALLS_NOWAIT=1): a full ring
   * drops at once and counts, instead of making the thread wait */
  const char *lossy = getenv("ASMSPY_CALLS_LOSSY"), *nowait = getenv("ASMSPY_CALLS_NOWAIT");
  ra->lossy = (lossy && !strcmp(lossy, "1")) || (nowait && !strcmp(nowait, "1"));
  return 0;
}

/* install, step 2: the code regions (blob + stubs), built here, written
 * there; fills the function table r->funcs */
static int write_code_regions(struct ep_run *r, char *why, size_t whycap) {
  r->funcs = calloc(AGENT_MAX_FUNCS, sizeof *r->funcs);
  if (!r->funcs) return -ASMSPY_E_NOMEM;
  for (uint32_t g = 0; g < r->nregions; g++) {
    struct region *rg = &r->regions[g];
    uint8_t *img = malloc(rg->size);
    uint32_t bad = 0;
    if (!img) return -ASMSPY_E_NOMEM;
    if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
      fprintf(
          stderr, "entrypatch: region %u at 0x%llx (+0x%llx) serves 0x%llx-0x%llx (%u: %s...)\n", g,
          (unsigned long long)rg->base, (unsigned long long)rg->size, (unsigned long long)rg->lo,
          (unsigned long long)rg->hi, rg->n, r->patches[rg->first].name);
    if (ep_region_build(r->cs, img, rg->size, rg->base, r->state, &r->patches[rg->first], rg->n,
                        rg->first, r->funcs, &bad, why, whycap) != 0 ||
        write_field(r, rg->base, img, rg->size) != 0) {
      free(img);
      if (why[0]) {
        size_t l = strlen(why);
        snprintf(why + l, whycap - l, " (%s at 0x%llx)", r->patches[rg->first + bad].name,
                 (unsigned long long)r->patches[rg->first + bad].addr);
      } else {
        snprintf(why, whycap, "writing the agent's code into the target failed");
      }
      return -ASMSPY_E_INTERNAL;
    }
    free(img);
  }
  return 0;
}

/* install, step 3: the state's header, its function table, the gate (armed
 * last, journaled: a killed asmspy's supervisor disarms it) */
static int write_state(struct ep_run *r, char *why, size_t whycap) {
  uint64_t magic = AGENT_MAGIC, armed = 1, disarmed = 0;
  uint64_t ret_hook = r->regions[0].base + ep_blob_return_off();
  uint32_t nfuncs = r->npatches;
  /* what a later session needs to undo this one, should asmspy be killed */
  int32_t owner = (int32_t)getpid();
  uint32_t nregions = r->nregions;
  struct agent_mapping maps[AGENT_MAX_REGIONS + 3];
  memset(maps, 0, sizeof maps);
  for (uint32_t g = 0; g < r->nregions; g++)
    maps[g] = (struct agent_mapping){r->regions[g].base, r->regions[g].size};
  maps[AGENT_MAX_REGIONS] = (struct agent_mapping){r->state, r->state_size};
  maps[AGENT_MAX_REGIONS + 1] = (struct agent_mapping){r->gate, 4096};
  maps[AGENT_MAX_REGIONS + 2] = (struct agent_mapping){r->ring, r->ring_size};
  _Static_assert(offsetof(struct agent_state, state_map) ==
                     offsetof(struct agent_state, regions) + AGENT_MAX_REGIONS * sizeof maps[0],
                 "regions, state_map, gate_map, ring_map are consecutive");
  /* the program's JIT code: calls made from it are traced entry only */
  struct agent_mapping jit[AGENT_MAX_JIT];
  uint32_t njit = 0;
  struct ep_maps pm;
  if (ep_maps_read(r->s->pid, &pm) == 0) {
    njit = (uint32_t)ep_jit_ranges(&pm, maps, AGENT_MAX_REGIONS + 3, jit, AGENT_MAX_JIT);
    ep_maps_free(&pm);
  }
  uint64_t gen = 1;
  int32_t pid = r->s->pid;
  uint32_t follow = (r->s->flags & ASMSPY_SESS_FOLLOW) != 0;
  if (write_field(r, r->state + offsetof(struct agent_state, owner_pid), &owner, 4) ||
      write_field(r, r->state + offsetof(struct agent_state, follow), &follow, 4) ||
      write_field(r, r->gate + offsetof(struct agent_gate, gen), &gen, 8) ||
      write_field(r, r->gate + offsetof(struct agent_gate, pid), &pid, 4) ||
      write_field(r, r->state + offsetof(struct agent_state, nregions), &nregions, 4) ||
      (njit &&
       write_field(r, r->state + offsetof(struct agent_state, jit), jit, njit * sizeof *jit)) ||
      write_field(r, r->state + offsetof(struct agent_state, njit), &njit, 4) ||
      write_field(r, r->state + offsetof(struct agent_state, regions), maps, sizeof maps) ||
      write_field(r, r->state + offsetof(struct agent_state, gate), &r->gate, 8) ||
      write_field(r, r->state + offsetof(struct agent_state, ret_hook), &ret_hook, 8) ||
      write_field(r, r->state + offsetof(struct agent_state, tid_offset), &r->tid_offset, 4) ||
      write_field(r, r->state + offsetof(struct agent_state, nfuncs), &nfuncs, 4) ||
      write_field(r, r->state + offsetof(struct agent_state, funcs), r->funcs,
                  nfuncs * sizeof *r->funcs) ||
      write_field(r, r->state, &magic, 8) ||
      write_field(r, r->gate + offsetof(struct agent_gate, ring), &r->ring, 8) ||
      journal(r, r->gate + offsetof(struct agent_gate, armed), &disarmed, &armed, 8) != 0 ||
      write_field(r, r->gate + offsetof(struct agent_gate, armed), &armed, 8)) {
    snprintf(why, whycap, "writing the agent's state into the target failed");
    return -ASMSPY_E_INTERNAL;
  }
  return 0;
}

/* install, step 4 (last): the jumps over each entry, journaled first
 * (every thread is stopped) */
static int write_entry_jumps(struct ep_run *r, char *why, size_t whycap) {
  for (uint32_t i = 0; i < r->npatches; i++) {
    uint8_t bytes[sizeof r->patches[i].orig];
    ep_entry_patch_bytes(&r->patches[i], bytes);
    if (journal(r, r->patches[i].addr, r->patches[i].orig, bytes, r->patches[i].len) != 0) {
      note(r, ASMSPY_NOTE_WARN, "the undo journal is full: %u functions left unpatched",
           r->npatches - i);
      r->npatches = i;
      break;
    }
    if (write_field(r, r->patches[i].addr, bytes, r->patches[i].len) != 0) {
      snprintf(why, whycap, "writing the jump at %s failed", r->patches[i].name);
      r->npatches = i; /* restore only what was written */
      return -ASMSPY_E_INTERNAL;
    }
  }
  return 0;
}

static int install(struct ep_run *r, struct ep_remote *rem, char *why, size_t whycap) {
  int rc = map_agent_memory(r, rem, why, whycap);
  if (!rc) rc = write_code_regions(r, why, whycap);
  if (!rc) rc = write_state(r, why, whycap);
  if (!rc) rc = write_entry_jumps(r, why, whycap);
  return rc;
}

/* Put back every entry that still holds our jump; disarm the gate. */
static void uninstall(struct ep_run *r) {
  for (uint32_t i = 0; i < r->npatches; i++) {
    const struct ep_patch *p = &r->patches[i];
    uint8_t now[sizeof p->orig], ours[sizeof p->orig];
    ep_entry_patch_bytes(p, ours);
    if (r->host->read_mem(r->s->target, p->addr, now, p->len) != (ssize_t)p->len ||
        memcmp(now, ours, p->len) != 0)
      continue; /* not ours any more (an exec, an unmapped library) */
    write_field(r, p->addr, p->orig, p->len);
  }
  uint64_t zero = 0;
  if (r->gate) write_field(r, r->gate + offsetof(struct agent_gate, armed), &zero, 8);
  if (ASMSPY_HAS(r->host, undo_clear)) r->host->undo_clear(r->s->target);
}

/* ------------------------------------------------------------- run -- */

/* Gone, or a zombie nobody reaped yet (a launched child is ours to reap:
 * the engine does it after the run). */
static int target_gone(pid_t pid) { return ep_proc_gone(pid); }

static void summary(struct ep_run *r) {
  uint32_t entry_only = 0;
  for (uint32_t i = 0; i < r->npatches; i++)
    entry_only += (r->patches[i].kind & AGENT_FN_NOEXIT) != 0;
  char only[96] = "";
  if (entry_only) snprintf(only, sizeof only, " (%u entry only: they return twice)", entry_only);
  note(r, ASMSPY_NOTE_INFO, "%u functions patched%s in %u code region(s), %u refused", r->npatches,
       only, r->nregions, r->nrefused);
  for (uint32_t i = 0; i < r->nrefused_kinds; i++)
    note(r, ASMSPY_NOTE_INFO, "  refused %u: %s (e.g. %s)", r->refused[i].count,
         r->refused[i].reason, r->refused[i].example);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int capture(struct ep_run *r, struct ep_reader *rd) {
  const struct asmspy_session *s = r->s;
  unsigned idle = 0;
  for (;;) {
    int64_t n = ep_reader_drain(rd, 0);
    if (n < 0) return 0; /* the view has what it asked for */
    if (s->stop && *s->stop) return 0;
    if (n > 0) {
      idle = 0;
      continue;
    }
    ep_reader_beat(rd);
    if (++idle % 64 == 0) {
      ep_reader_calibrate(rd);
      /* --follow: the children it forked may outlive it */
      if (target_gone(s->pid) && !((s->flags & ASMSPY_SESS_FOLLOW) && ep_reader_children_alive(rd)))
        return ASMSPY_FACT_EXITED;
    }
    /* just after records came: look again soon (a thread that filled its
     * ring waits for us; 8192 records take it ~0.2 ms), idle: every 1 ms */
    if (idle < 256) {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    } else {
      sleep_ms(1);
    }
  }
}

/* Attach for the leave: never cut short by the session's stop flag (it is
 * usually what brought us here), and not while a thread stands inside agent
 * code (it could be about to hook a return): let it run a moment, retry. */
static struct asmspy_seam *attach_for_leave(struct ep_run *r) {
  const struct asmspy_seam_api *seam = r->host->seam;
  /* the seam keeps a pointer to its session: it lives in r */
  struct asmspy_session *again = &r->leave_session;
  *again = *r->s;
  again->flags &= ~(ASMSPY_SESS_LAUNCHED | ASMSPY_SESS_TO_ENTRY);
  again->tid = 0;
  again->stop = NULL;
  again->flags &= ~ASMSPY_SESS_FOLLOW; /* the target alone is undone; children keep theirs */
  for (int tries = 0; tries < 200; tries++) {
    if (target_gone(r->s->pid)) return NULL;
    struct asmspy_seam *sm = NULL;
    if (seam->attach(again, &sm) != 0) {
      sleep_ms(5);
      continue;
    }
    /* disarmed and the entries put back first: a thread waiting for the
     * reader inside agent code (backpressure) drops its record and leaves,
     * and no new call enters the agent, so those inside it soon leave */
    char why[256];
    struct ep_remote rem = {r->host, sm, r->s->target, r->s->pid, 0};
    int inside = read_threads(r, sm) != 0;
    rem.tid = r->tids[0];
    if (!inside) ep_undo_entries(&rem, r->state);
    if (!inside) inside = ep_agent_busy(&rem, r->state, why, sizeof why);
    if (!inside || tries == 199) return sm;
    seam->detach(sm);
    sleep_ms(1);
  }
  return NULL;
}

/* What the undo said, where it matters to the user. */
static void report_undo(struct ep_run *r, const struct ep_undo_report *u) {
  if (u->claim_fail)
    note(r, ASMSPY_NOTE_WARN,
         "%llu calls not recorded: no thread slot was free (more than %u threads alive at once)",
         (unsigned long long)u->claim_fail, AGENT_THREADS);
  if (u->reclaimed)
    note(r, ASMSPY_NOTE_INFO, "%llu thread slots of exited threads were reused",
         (unsigned long long)u->reclaimed);
  if (u->jit_entry_only) {
    uint64_t k = u->jit_last_func;
    const char *eg = k && k <= r->npatches && r->patches[k - 1].name ? r->patches[k - 1].name : "";
    note(r, ASMSPY_NOTE_INFO,
         "%llu calls made from the program's JIT code were traced entry only (its runtime reads "
         "their return addresses): no return, no duration%s%s",
         (unsigned long long)u->jit_entry_only, *eg ? "; e.g. " : "", eg);
  }
  if (u->unmatched)
    note(r, ASMSPY_NOTE_WARN, "%llu returns found no record of their frame",
         (unsigned long long)u->unmatched);
  if (!u->unmapped)
    note(r, ASMSPY_NOTE_INFO,
         "the agent's memory stays mapped in the target (%s); the next session removes it",
         u->kept);
}

static void leave(struct ep_run *r, struct ep_reader *rd, int reader_ready) {
  struct asmspy_seam *sm = attach_for_leave(r);
  if (sm) {
    struct ep_remote rem = {r->host, sm, r->s->target, r->s->pid, r->tids[0]};
    struct ep_undo_report u;
    if (ep_undo_agent(&rem, r->state, 0, &u) == 0)
      report_undo(r, &u);
    else
      uninstall(r); /* the state cannot be read: put back what we know */
    if (ASMSPY_HAS(r->host, undo_clear)) r->host->undo_clear(r->s->target);
  }
  if (reader_ready && ep_reader_drain(rd, 1) >= 0) ep_reader_finish(rd);
  if (sm) r->host->seam->detach(sm);
}

/* What an earlier session left comes first (agents.c): undone, retried
 * while a thread stands inside its code (a return through a hooked frame
 * takes a moment), each retry after letting the target run briefly. */
static int clear_leftovers(struct ep_run *r, const struct asmspy_session *first,
                           struct asmspy_seam **sm, struct ep_remote *rem, char *why,
                           size_t whycap) {
  uint32_t undone = 0, restored = 0, total = 0, total_restored = 0;
  int inside = 0;
  for (int tries = 0;; tries++) {
    if (ep_agents_clear(rem, &undone, &restored, &inside, why, whycap) != 0) {
      note(r, ASMSPY_NOTE_WARN, "%s", why);
      return -ASMSPY_E_ATTACH_BUSY;
    }
    total += undone, total_restored += restored;
    if (!undone) break;
    if (!inside || tries == 100) {
      if (read_threads(r, *sm) != 0) return -ASMSPY_E_ATTACH_GONE; /* stepped by the undo */
      break;
    }
    r->host->seam->detach(*sm);
    *sm = NULL;
    sleep_ms(1);
    if (r->host->seam->attach(first, sm) != 0 || read_threads(r, *sm) != 0)
      return -ASMSPY_E_ATTACH_GONE;
    rem->seam = *sm;
    rem->tid = r->tids[0];
  }
  if (total)
    note(r, ASMSPY_NOTE_INFO,
         "removed what an earlier asmspy left in this process (%u entries restored)",
         total_restored);
  return 0;
}

int ep_session_suits(const struct asmspy_host_api *host, const struct asmspy_session *s, char *why,
                     size_t whycap) {
  (void)host;
  /* a runtime that walks or moves its stacks (runtime.c) */
  if (ep_runtime_refusal(s->pid, why, whycap)) return ASMSPY_FACT_UNSUITED;
  return 0;
}

/* run, step 0: what refuses the session before any attach. */
static int refuse_early(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  const struct asmspy_seam_api *seam = host->seam;
  if (!ASMSPY_HAS(seam, inject_syscall) || !ASMSPY_HAS(host, symbol_at)) return -ASMSPY_E_ABI;
  char unsuited[512] = "";
  if (ep_session_suits(host, s, unsuited, sizeof unsuited) != 0) {
    host->note(s->out, ASMSPY_NOTE_WARN, "entrypatch: %s", unsuited);
    return ASMSPY_FACT_UNSUITED;
  }
  /* another asmspy's live agent: refused before any attach (no fallback:
   * any other backend would trace through that agent's code) */
  if (ep_agents_in_the_way(host, s->target, s->pid, unsuited, sizeof unsuited) != 0) {
    host->note(s->out, ASMSPY_NOTE_WARN, "entrypatch: %s", unsuited);
    return -ASMSPY_E_ATTACH_BUSY;
  }
  return 0;
}

static void run_free(struct ep_run *r) {
  if (r->ring_local) munmap(r->ring_local, r->ring_size);
  free(r->funcs);
  free(r->patches);
  free_refused(r);
  cs_close(&r->cs);
  free(r);
}

/* run, step 1: every thread stopped (a launched command: at its entry
 * point), each with a thread pointer, and what an earlier session left
 * removed. *sm NULL: the target went away between two attaches. */
static int attach_first(struct ep_run *r, struct asmspy_session *first, struct asmspy_seam **sm,
                        struct ep_remote *rem, char *why, size_t whycap) {
  const struct asmspy_session *s = r->s;
  *first = *s;
  if (s->flags & ASMSPY_SESS_LAUNCHED) first->flags |= ASMSPY_SESS_TO_ENTRY;
  /* --follow: forked children are followed by the agent (each joins with
   * rings of its own), not by ptrace: the seam holds the target alone */
  first->flags &= ~ASMSPY_SESS_FOLLOW;
  *sm = NULL;
  int rc = r->host->seam->attach(first, sm);
  if (rc) return rc;
  rc = read_threads(r, *sm);
  for (uint32_t i = 0; !rc && i < r->nthreads; i++)
    if (!r->fs[i]) {
      note(r, ASMSPY_NOTE_SKIP,
           "thread %d has no thread pointer yet (fs base 0: a static program before its TLS "
           "setup?): the agent finds its per-thread state through it",
           (int)r->tids[i]);
      rc = -ASMSPY_E_NO_KERNEL;
    }
  *rem = (struct ep_remote){r->host, *sm, s->target, s->pid, r->tids[0]};
  if (!rc) rc = clear_leftovers(r, first, sm, rem, why, whycap);
  return rc;
}

/* run, steps 2 and 3: plan, place the code regions, install. */
static int plan_and_install(struct ep_run *r, struct ep_remote *rem, char *why, size_t whycap) {
  r->tid_offset = ep_probe_tid_offset(r->host, r->s->target, r->tids, r->fs, r->nthreads);
  int rc = plan_all(r);
  drop_foreign_patches(r);
  if (!rc && r->npatches == 0) {
    uint64_t seq = 0;
    summary(r);
    emit_refused(r, &seq);
    note(r, ASMSPY_NOTE_SKIP, "nothing to patch (see the refusals above; --module, --filter)");
    rc = ASMSPY_FACT_NO_EVENTS;
  }
  if (!rc) rc = place_regions(r, rem);
  if (!rc && r->npatches == 0) rc = ASMSPY_FACT_NO_EVENTS;
  if (!rc) {
    rc = install(r, rem, why, whycap);
    if (rc) note(r, ASMSPY_NOTE_WARN, "%s", why);
  }
  return rc;
}

/* A failed install: nothing runs through a half-written agent. Every
 * thread was stopped all along, so nobody entered the agent and all of its
 * memory can go. */
static void abandon(struct ep_run *r, struct ep_remote *rem, struct asmspy_seam *sm) {
  uninstall(r);
  for (uint32_t g = 0; g < r->nregions; g++)
    ep_remote_call(rem, SYS_munmap, r->regions[g].base, r->regions[g].size, 0, 0, 0, 0);
  if (r->state) ep_remote_call(rem, SYS_munmap, r->state, r->state_size, 0, 0, 0, 0);
  if (r->gate) ep_remote_call(rem, SYS_munmap, r->gate, 4096, 0, 0, 0, 0);
  if (r->ring) ep_remote_call(rem, SYS_munmap, r->ring, r->ring_size, 0, 0, 0, 0);
  r->host->seam->detach(sm);
}

/* What the reader saw, once the session is over. */
static void report_capture(struct ep_run *r, const struct ep_reader *rd) {
  if (rd->lost)
    note(r, ASMSPY_NOTE_WARN, "%llu call records lost (%s)", (unsigned long long)rd->lost,
         rd->ring->lossy ? "ASMSPY_CALLS_LOSSY: a full ring drops instead of waiting"
                         : "a full ring whose reader was gone, or no free ring");
  if (rd->execs)
    note(r, ASMSPY_NOTE_INFO,
         "%u process(es) exec'd another program: its calls are not traced (the agent does not "
         "survive an exec)",
         rd->execs);
  if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
    fprintf(stderr,
            "entrypatch: %llu calls, %llu lost, %llu after the capture closed, %u "
            "followed processes\n",
            (unsigned long long)rd->calls, (unsigned long long)rd->lost,
            (unsigned long long)rd->late, rd->children);
}

int ep_session_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  int rc = refuse_early(host, s);
  if (rc) return rc;
  struct ep_run *r = calloc(1, sizeof *r);
  if (!r) return -ASMSPY_E_NOMEM;
  r->host = host;
  r->s = s;
  r->out = s->out;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &r->cs) != CS_ERR_OK) {
    free(r);
    return -ASMSPY_E_NO_LIB;
  }
  cs_option(r->cs, CS_OPT_DETAIL, CS_OPT_ON);

  /* 1. every thread stopped */
  struct asmspy_session first;
  struct asmspy_seam *sm;
  struct ep_remote rem;
  char why[512] = "";
  rc = attach_first(r, &first, &sm, &rem, why, sizeof why);
  if (!sm) { /* the attach failed, or the target went away between two attaches */
    run_free(r);
    return rc;
  }
  /* 2., 3. plan and install */
  if (!rc) rc = plan_and_install(r, &rem, why, sizeof why);
  if (rc) {
    abandon(r, &rem, sm);
    run_free(r);
    return rc;
  }
  summary(r);
  struct ep_reader rd;
  ep_reader_init(&rd, r->ring_local, r->funcs, r->npatches, s, r->state);
  emit_refused(r, &rd.seq);

  /* 4. let it run */
  host->seam->detach(sm);
  /* 5. read */
  int result = capture(r, &rd);
  /* 6. leave: no thread waits for the reader any more (those waiting are
   * released before the leave stops them) */
  ep_reader_close(&rd);
  leave(r, &rd, 1);
  report_capture(r, &rd);
  if (result == 0 && target_gone(s->pid)) result = ASMSPY_FACT_EXITED;
  run_free(r);
  return result;
}
