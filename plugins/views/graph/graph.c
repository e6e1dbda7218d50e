/* graph: the whole-process call graph (`asmspy --graph <pid> [n]`).
 *
 * Built from the instruction stream. With exact sp on every step
 * (ASMSPY_SESS_EXACT_SP: singlestep) calls are verified against the stack;
 * without it (intel_pt: every branch, no registers) they are followed by
 * control flow alone (callcheck.h, "flow mode"). With sp: per thread, a
 * `call` instruction arms a pending call
 * {call site, fall-through, slot = sp before - 8}. At that thread's next
 * instruction events the call is verified against the machine state it left
 * behind: sp == slot and the 8 bytes at [sp] == the fall-through. Only then
 * is an edge caller -> callee attributed (callee = the function containing
 * the new ip, caller = the function containing the call site). A signal
 * arriving between the call and its first callee instruction runs the
 * handler below the slot: those events do not match, the call stays armed
 * and resolves after sigreturn; a pending call whose slot sp has risen above
 * is dropped (the return address is gone: a longjmp out of a handler).
 * The call checks and the thread table: plugins/common/callcheck.h.
 *
 * Per function and process: inv (times called), calls (calls made), fanout
 * (distinct callees), and with --sort=functions-called reach: the distinct
 * functions it calls directly or through its callees (the functions
 * reachable from it over the recorded edges). The three sorts rank by three
 * different questions: invocations = who is called most, fanout = who calls
 * the most different functions itself, functions-called = whose calls end
 * up in the most different functions (a dispatcher calling one helper that
 * calls fifty has fanout 1 but reach 51). Under --follow a forked child's calls are its own rows
 * (same code, same addresses, another process): every node and edge carries
 * its pid in JSON, and once the graph spans several processes each text row
 * starts with "[pid] ". On a call backend, uftrace's --filter / --notrace /
 * --depth decide which calls count (per thread, as `uftrace replay`
 * applies them: plugins/common/call_filter.h), and a function the backend
 * could not trace (ASMSPY_CALL_REFUSED) is a node marked not traced, with
 * the reason (text: `inv=-` and a closing `not traced: f (why)` list;
 * JSON: "traced":false,"why"), never one called 0 times. Names: no C++
 * parameter lists unless --demangle=full. n counts verified calls (default 200, negative = until exit).
 * Output at finish: the text table, one `graph` JSON event (nodes + edges),
 * or with --dot a Graphviz digraph; snapshot() renders the same mid-capture
 * (the TUI's periodic frame). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "common/strbuf.h"

#include "plugins/common/call_filter.h"
#include "plugins/common/call_select.h"
#include "host/demangle.h"
#include "plugins/common/callcheck.h"
#include "plugins/common/dot_out.h"
#include "plugins/common/signal_frame.h"
#include "plugins/common/view_options.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

/* Its record (the `graph_records` table at the end of this file). */
static const struct asmspy_record_schema graph_records[2];

#define GRAPH_DEFAULT_N 200
/* A JSON line is at most 1 MiB (docs/asmtrace-schema.md): stop adding nodes
 * and edges before that and say so ("truncated":true). */
#define JSON_BUDGET (1000u * 1000u)

enum sort_by { SORT_INVOCATIONS, SORT_FANOUT, SORT_FUNCTIONS_CALLED };
/* --sort's spellings, in enum order (also the record's `sort` token) */
static const char *const sort_names[] = {"invocations", "fanout", "functions-called"};

/* ---------------------------------------------------------- hash map -- */

/* Open addressing, (a, b) -> index. */
struct hslot {
  uint64_t a, b;
  uint32_t idx;
  uint32_t used;
};
struct hmap {
  struct hslot *slots;
  size_t cap, n;
};

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return h;
}

static int hmap_grow(struct hmap *m) {
  size_t nc = m->cap ? m->cap * 2 : 256;
  struct hslot *ns = calloc(nc, sizeof *ns);
  if (!ns) return -1;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].used) continue;
    size_t j = mix(m->slots[i].a, m->slots[i].b) & (nc - 1);
    while (ns[j].used) j = (j + 1) & (nc - 1);
    ns[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = ns;
  m->cap = nc;
  return 0;
}

/* The slot for (a, b); *created = 1 when it was just inserted (idx unset). */
static struct hslot *hmap_get(struct hmap *m, uint64_t a, uint64_t b, int *created) {
  *created = 0;
  if ((m->n + 1) * 2 > m->cap && hmap_grow(m) != 0) return NULL;
  size_t j = mix(a, b) & (m->cap - 1);
  while (m->slots[j].used) {
    if (m->slots[j].a == a && m->slots[j].b == b) return &m->slots[j];
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j].used = 1;
  m->slots[j].a = a;
  m->slots[j].b = b;
  m->n++;
  *created = 1;
  return &m->slots[j];
}

/* ------------------------------------------------------------- state -- */

struct node {
  int32_t pid;   /* the process it ran in (--follow: a forked child has its own rows) */
  uint64_t addr; /* entry address (or the address itself when no symbol covers it) */
  char *name;    /* NULL: no symbol */
  char *module;
  uint32_t kind; /* enum asmspy_sym_kind */
  uint64_t inv, calls, fanout;
  uint64_t reach;  /* --sort=functions-called: distinct functions reachable (render time) */
  const char *why; /* the call backend could not trace it (owned by names), else NULL */
};

/* a call backend's thread, for the filters: its open frames by slot */
struct cframe {
  uint64_t slot;
  struct cf_mark mark;
};
struct cthread {
  int32_t tid;
  struct cframe *f;
  size_t n, cap;
  struct cf_tstate fs;
};

struct edge {
  uint32_t caller, callee;
  uint64_t count;
};

#define GRAPH_MEMO 4096 /* addresses remembered (power of two) */
struct addr_memo {
  uint64_t addr;
  int32_t pid;
  uint32_t node;
  uint32_t valid;
  uint32_t generation;
};

struct graph_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want; /* negative: unlimited */
  uint64_t recorded;
  enum sort_by sort;
  int dot;
  struct cc_threads threads; /* of struct cc_thread */
  struct node *nodes;
  size_t nnodes, ncap;
  struct edge *edges;
  size_t nedges, ecap;
  struct hmap node_map, edge_map;
  int oom_noted;
  struct call_select select; /* what a call backend patches */
  struct call_filter filter;
  struct cf_names names; /* the filters' matches per function, the refused */
  struct cthread *cthreads;
  size_t ncthreads, ctcap;
  struct addr_memo memo[GRAPH_MEMO];
  uint32_t nnodes_generation; /* bumped when an exec may have changed what addresses mean */
};

/* Its positionals, and the options this mode accepts after them: parsing,
 * --help, the man page, shell completion and serve's checks read the table
 * (the index enum keeps open() in step with it). */
#define POSITIONALS "<pid> [n]"
enum { OPT_SORT, OPT_DOT, OPT_CALL_SELECT };
static const struct asmspy_option graph_options[] = {
    [OPT_SORT] = {"sort", "invocations|fanout|functions-called",
                  "row order: times called (default), distinct direct callees (fanout), or "
                  "distinct functions reached through its calls, callees' callees too "
                  "(functions-called: adds a reach= column)"},
    [OPT_DOT] = {"dot", NULL, "a Graphviz digraph instead of the table"},
    CALL_SELECT_OPTIONS,
    {NULL, NULL, NULL},
};

/* ---------------------------------------------------------- helpers -- */

static const char *kind_marker(uint32_t kind) {
  switch (kind) {
  case ASMSPY_SYM_INTERNAL: return "[int]";
  case ASMSPY_SYM_EXTERNAL: return "[EXT]";
  case ASMSPY_SYM_JIT: return "[JIT]";
  default: return "[?]";
  }
}

static void forget_thread(struct graph_state *st, int32_t tid) {
  struct cc_thread *t = cc_thread_find(&st->threads, tid);
  if (t) cc_thread_remove(&st->threads, t);
}

static void note_oom(struct graph_state *st) {
  if (st->oom_noted) return;
  st->oom_noted = 1;
  st->host->note(st->s->out, ASMSPY_NOTE_WARN, "--graph: out of memory; the graph is incomplete");
}

/* The node of the function containing addr in process pid (created on first
 * sight). Keyed by (pid, function): a forked child runs the same code at the
 * same addresses as its parent, and its calls are its own rows. */
static int node_lookup(struct graph_state *st, int32_t pid, struct asmspy_target *target,
                       uint64_t addr, uint32_t *out);
/* a call backend delivers millions of calls a second between a few
 * hundred addresses: the last answer per address is remembered (named
 * functions only) */
static struct addr_memo *memo_slot(struct graph_state *st, int32_t pid, uint64_t addr) {
  return &st->memo[(addr ^ (addr >> 12) ^ (uint64_t)(uint32_t)pid * 0x9E3779B1u) &
                   (GRAPH_MEMO - 1)];
}

static const struct addr_memo *memo_find(struct graph_state *st, int32_t pid, uint64_t addr) {
  const struct addr_memo *m = memo_slot(st, pid, addr);
  return m->valid && m->addr == addr && m->pid == pid && m->generation == st->nnodes_generation
             ? m
             : NULL;
}

static int node_for(struct graph_state *st, int32_t pid, struct asmspy_target *target,
                    uint64_t addr, uint32_t *out) {
  const struct addr_memo *hit = memo_find(st, pid, addr);
  if (hit) {
    *out = hit->node;
    return 0;
  }
  struct addr_memo *m = memo_slot(st, pid, addr);
  int rc = node_lookup(st, pid, target, addr, out);
  /* only named answers: an unnamed address may be named later (a library
   * mapped since, a JIT's perf-map) */
  if (rc == 0 && st->nodes[*out].name)
    *m = (struct addr_memo){addr, pid, *out, 1, st->nnodes_generation};
  return rc;
}

static int node_lookup(struct graph_state *st, int32_t pid, struct asmspy_target *target,
                       uint64_t addr, uint32_t *out) {
  const struct asmspy_host_api *h = st->host;
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  h->symbolize(target, addr, &sym);
  int named = sym.name != NULL && sym.kind != ASMSPY_SYM_UNKNOWN;
  uint64_t key = named ? sym.start : addr;
  int created;
  struct hslot *slot = hmap_get(&st->node_map, (uint64_t)(uint32_t)pid, key, &created);
  if (!slot) return -1;
  if (!created) {
    *out = slot->idx;
    return 0;
  }
  if (st->nnodes == st->ncap) {
    size_t nc = st->ncap ? st->ncap * 2 : 64;
    struct node *nn = realloc(st->nodes, nc * sizeof *nn);
    if (!nn) {
      slot->used = 0; /* undo: nothing probes past a hole we created last */
      st->node_map.n--;
      return -1;
    }
    st->nodes = nn;
    st->ncap = nc;
  }
  struct node *n = &st->nodes[st->nnodes];
  memset(n, 0, sizeof *n);
  n->pid = pid;
  n->addr = key;
  n->kind = named ? sym.kind : ASMSPY_SYM_UNKNOWN;
  if (named) {
    char simple[1024];
    if (!st->filter.full_names) demangle_simplify(sym.name, simple, sizeof simple);
    n->name = strdup(st->filter.full_names ? sym.name : simple);
  } else {
    n->name = NULL;
  }
  n->module = strdup(sym.module ? sym.module : "?");
  slot->idx = (uint32_t)st->nnodes;
  *out = slot->idx;
  st->nnodes++;
  return 0;
}

/* A verified call of ev's thread: the call site and the callee run in the
 * same process (a call never crosses a fork: the child starts with no
 * pending call), ev->pid. */
static int record_edge(struct graph_state *st, const struct cc_pending *pc,
                       const struct asmspy_event *ev) {
  uint32_t caller, callee;
  if (node_for(st, ev->pid, pc->target, pc->site, &caller) != 0 ||
      node_for(st, ev->pid, ev->target, ev->ip, &callee) != 0) {
    note_oom(st);
    return -1;
  }
  int created;
  struct hslot *slot = hmap_get(&st->edge_map, caller, callee, &created);
  if (!slot) {
    note_oom(st);
    return -1;
  }
  if (created) {
    if (st->nedges == st->ecap) {
      size_t nc = st->ecap ? st->ecap * 2 : 64;
      struct edge *ne = realloc(st->edges, nc * sizeof *ne);
      if (!ne) {
        slot->used = 0;
        st->edge_map.n--;
        note_oom(st);
        return -1;
      }
      st->edges = ne;
      st->ecap = nc;
    }
    st->edges[st->nedges] = (struct edge){caller, callee, 0};
    slot->idx = (uint32_t)st->nedges++;
    st->nodes[caller].fanout++;
  }
  st->edges[slot->idx].count++;
  st->nodes[caller].calls++;
  st->nodes[callee].inv++;
  return 0;
}

/* ------------------------------------------------------------ events -- */

static int on_insn(struct graph_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  struct cc_thread *t = cc_thread_for(&st->threads, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  int done = ASMSPY_CONSUME_MORE;
  struct cc_pending pc;
  if (cc_flow_mode(st->s)) { /* flow mode */
    if (cc_flow_step(t, h, ev, &pc) == CC_FLOW_CALL && record_edge(st, &pc, ev) == 0) {
      st->recorded++;
      if (st->want > 0 && st->recorded >= (uint64_t)st->want) done = ASMSPY_CONSUME_DONE;
    }
    return done;
  }
  uint64_t sp;
  if (!cc_event_sp(ev, &sp)) return ASMSPY_CONSUME_MORE; /* cannot verify anything here */

  /* 1. a pending call whose slot sp has risen above is gone */
  cc_drop_stale(t, sp);

  /* 2. the call that lands here: sp one slot down, the return address on top */
  if (cc_land(t, h, ev, sp, &pc) && record_edge(st, &pc, ev) == 0) {
    st->recorded++;
    if (st->want > 0 && st->recorded >= (uint64_t)st->want) done = ASMSPY_CONSUME_DONE;
  }

  /* 3. this instruction is a call: arm it */
  cc_arm(t, h, ev, sp);
  return done;
}

/* 1.9: a call backend (entrypatch) reports each entry itself: the callee is
 * the function entered, the caller the function holding the return address
 * (one byte back: the call instruction's own last byte, as a call at the
 * very end of a function returns past it). No verification is needed: the
 * entry ran. */
static struct cthread *cthread_for(struct graph_state *st, int32_t tid) {
  for (size_t i = 0; i < st->ncthreads; i++)
    if (st->cthreads[i].tid == tid) return &st->cthreads[i];
  if (st->ncthreads == st->ctcap) {
    size_t nc = st->ctcap ? st->ctcap * 2 : 16;
    struct cthread *nt = realloc(st->cthreads, nc * sizeof *nt);
    if (!nt) return NULL;
    st->cthreads = nt;
    st->ctcap = nc;
  }
  struct cthread *t = &st->cthreads[st->ncthreads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

static void cthread_pop_to(struct cthread *t, size_t n) {
  while (t->n > n) cf_leave(&t->fs, &t->f[--t->n].mark);
}

/* The filters on a call backend's stream: frames nest by their return
 * slot, as in --calls and --tree. Returns 1 when this entry counts. */
static int call_filtered_in(struct graph_state *st, const struct asmspy_event *ev) {
  struct cthread *t = cthread_for(st, ev->tid);
  if (!t) return 1;
  uint64_t slot = ev->u.call.slot;
  int entry = ev->u.call.what == ASMSPY_CALL_ENTRY;
  int tail = entry && (ev->flags & ASMSPY_EVF_CALL_TAIL);
  size_t keep = t->n;
  while (keep && (tail || !entry ? t->f[keep - 1].slot < slot : t->f[keep - 1].slot <= slot))
    keep--;
  if (!entry) { /* its own exit: the frame at this slot ends too */
    if (keep && t->f[keep - 1].slot == slot) keep--;
    cthread_pop_to(t, keep);
    return 0;
  }
  cthread_pop_to(t, keep);
  const struct cf_name *fn = cf_name_of(&st->names, ev->target, ev->u.call.func);
  struct cframe f = {.slot = slot};
  int shown = cf_enter(&st->filter, &t->fs, &f.mark, fn->match);
  /* entry only (ASMSPY_EVF_CALL_NOEXIT: setjmp, vfork): counted, a leaf */
  if (ev->flags & ASMSPY_EVF_CALL_NOEXIT) {
    cf_leave(&t->fs, &f.mark);
    return shown;
  }
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 32;
    struct cframe *nf = nc <= (1u << 16) ? realloc(t->f, nc * sizeof *nf) : NULL;
    if (!nf) {
      cf_leave(&t->fs, &f.mark);
      return shown;
    }
    t->f = nf;
    t->cap = nc;
  }
  t->f[t->n++] = f;
  return shown;
}

static int on_call_event(struct graph_state *st, const struct asmspy_event *ev) {
  if (ev->u.call.what == ASMSPY_CALL_REFUSED) {
    const struct cf_name *n = cf_refused(&st->names, ev);
    uint32_t idx;
    if (n && node_for(st, ev->pid, ev->target, ev->u.call.func, &idx) == 0)
      st->nodes[idx].why = n->why;
    return ASMSPY_CONSUME_MORE;
  }
  if (cf_active(&st->filter) &&
      (ev->u.call.what == ASMSPY_CALL_ENTRY || ev->u.call.what == ASMSPY_CALL_EXIT)) {
    if (!call_filtered_in(st, ev)) return ASMSPY_CONSUME_MORE;
  }
  if (ev->u.call.what != ASMSPY_CALL_ENTRY) return ASMSPY_CONSUME_MORE;
  /* a frame a forked child began inside: the parent's call, counted there */
  if (ev->flags & ASMSPY_EVF_CALL_INHERITED) return ASMSPY_CONSUME_MORE;
  struct cc_pending pc = {.site = ev->u.call.ret - 1, .target = ev->target};
  /* a signal handler entered by the kernel: no call made it (as stepping
   * sees it). The restorer is unnamed, so only unnamed callers are read. */
  if (!memo_find(st, ev->pid, pc.site)) {
    struct asmspy_symbol sym;
    memset(&sym, 0, sizeof sym);
    ASMSPY_INIT_HEADER(&sym);
    st->host->symbolize(ev->target, pc.site, &sym);
    if ((!sym.name || sym.kind == ASMSPY_SYM_UNKNOWN) &&
        ret_is_sigreturn(st->host, ev->target, ev->u.call.ret))
      return ASMSPY_CONSUME_MORE;
  }
  if (record_edge(st, &pc, ev) != 0) return ASMSPY_CONSUME_MORE;
  st->recorded++;
  return st->want > 0 && st->recorded >= (uint64_t)st->want ? ASMSPY_CONSUME_DONE
                                                            : ASMSPY_CONSUME_MORE;
}

static int on_task(struct graph_state *st, const struct asmspy_event *ev) {
  if (ev->u.task.what == ASMSPY_TASK_EXIT) {
    forget_thread(st, ev->tid);
    for (size_t i = 0; i < st->ncthreads; i++)
      if (st->cthreads[i].tid == ev->tid) {
        free(st->cthreads[i].f);
        st->cthreads[i] = st->cthreads[--st->ncthreads];
        break;
      }
  } else if (ev->u.task.what == ASMSPY_TASK_EXEC) {
    /* the old image is gone, and with it every thread of the process */
    for (size_t i = 0; i < st->threads.n; i++) cc_thread_at(&st->threads, i)->npend = 0;
    st->nnodes_generation++; /* its addresses mean something else now */
    for (size_t i = 0; i < st->ncthreads; i++) cthread_pop_to(&st->cthreads[i], 0);
    cf_names_clear(&st->names);
  }
  return ASMSPY_CONSUME_MORE;
}

static int graph_consume(void *state, const struct asmspy_event *ev) {
  struct graph_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_INSN: return on_insn(st, ev);
  case ASMSPY_EV_CALL: return on_call_event(st, ev);
  case ASMSPY_EV_TASK: return on_task(st, ev);
  default: return ASMSPY_CONSUME_MORE;
  }
}

/* ------------------------------------------------------------ output -- */

static const char *display_name(const struct node *n, char *buf, size_t cap) {
  if (n->name) return n->name;
  snprintf(buf, cap, "0x%" PRIx64, n->addr);
  return buf;
}

static int cmp_nodes(const void *pa, const void *pb, void *ctx) {
  const struct graph_state *st = ctx;
  const struct node *a = &st->nodes[*(const uint32_t *)pa], *b = &st->nodes[*(const uint32_t *)pb];
#define DESC(f)                                                                                    \
  if (a->f != b->f) return a->f > b->f ? -1 : 1
  if (st->sort == SORT_FUNCTIONS_CALLED) {
    DESC(reach);
    DESC(fanout);
    DESC(calls);
    DESC(inv);
  } else if (st->sort == SORT_FANOUT) {
    DESC(fanout);
    DESC(calls);
    DESC(inv);
  } else {
    DESC(inv);
    DESC(calls);
    DESC(fanout);
  }
#undef DESC
  char ba[32], bb[32];
  int c = strcmp(display_name(a, ba, sizeof ba), display_name(b, bb, sizeof bb));
  if (c) return c;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_edges(const void *pa, const void *pb) {
  const struct edge *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (a->caller != b->caller) return a->caller < b->caller ? -1 : 1;
  return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static void add_json_str(struct graph_state *st, struct strbuf *b, const char *s) {
  if (!s) {
    strbuf_addf(b, "null");
    return;
  }
  size_t len = strlen(s);
  char *esc = malloc(6 * len + 1);
  if (!esc) {
    b->oom = 1;
    return;
  }
  st->host->json_escape(esc, 6 * len + 1, s, len);
  strbuf_addf(b, "\"%s\"", esc);
  free(esc);
}

static const char *dot_colour(uint32_t kind) {
  switch (kind) {
  case ASMSPY_SYM_INTERNAL: return "#cfe2ff"; /* blue: the target's own code */
  case ASMSPY_SYM_EXTERNAL: return "#ffe5b4"; /* orange: shared libraries, PLT */
  case ASMSPY_SYM_JIT: return "#d4f7d4";      /* green: JIT */
  default: return "#e6e6e6";                  /* grey: no symbol */
  }
}

/* How many distinct processes the nodes ran in (--follow: more than one). */
static int cmp_pid(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
  return a < b ? -1 : a > b;
}

static size_t count_pids(const struct graph_state *st) {
  if (st->nnodes == 0) return 0;
  int32_t *p = malloc(st->nnodes * sizeof *p);
  if (!p) return 2; /* unknown: prefix every row rather than mislabel one */
  for (size_t i = 0; i < st->nnodes; i++) p[i] = st->nodes[i].pid;
  qsort(p, st->nnodes, sizeof *p, cmp_pid);
  size_t n = 1;
  for (size_t i = 1; i < st->nnodes; i++) n += p[i] != p[i - 1];
  free(p);
  return n;
}

/* One row per (process, function); once the graph spans several processes
 * (--follow) every row starts with its process, "[pid] ", like the [tid]
 * prefix of the other views, and the title counts the processes. */
static void render_text(struct graph_state *st, const uint32_t *order, size_t npids,
                        struct strbuf *b) {
  strbuf_addf(b, "call graph \xe2\x80\x94 %zu function%s, sorted by %s (pid %d", st->nnodes,
              st->nnodes == 1 ? "" : "s", sort_names[st->sort], (int)st->s->pid);
  if (npids > 1) strbuf_addf(b, "; %zu processes, rows by [pid]", npids);
  strbuf_addf(b, ")");
  for (size_t i = 0; i < st->nnodes; i++) {
    const struct node *n = &st->nodes[order[i]];
    char nb[32], mod[256], prefix[24] = "";
    module_col(mod, sizeof mod, n->module);
    if (npids > 1) snprintf(prefix, sizeof prefix, "[%d] ", (int)n->pid);
    if (n->why && !n->inv) /* not traced: how often it ran is not known */
      strbuf_addf(b, "\n%s%s %-30s inv=%-7s calls=%-7" PRIu64 " fanout=%-5" PRIu64, prefix,
                  kind_marker(n->kind), display_name(n, nb, sizeof nb), "-", n->calls, n->fanout);
    else
      strbuf_addf(b, "\n%s%s %-30s inv=%-7" PRIu64 " calls=%-7" PRIu64 " fanout=%-5" PRIu64, prefix,
                  kind_marker(n->kind), display_name(n, nb, sizeof nb), n->inv, n->calls,
                  n->fanout);
    if (st->sort == SORT_FUNCTIONS_CALLED) strbuf_addf(b, " reach=%-5" PRIu64, n->reach);
    strbuf_addf(b, " %s", mod);
  }
  for (size_t k = 0; k < st->names.nrefused; k++)
    strbuf_addf(b, "\nnot traced: %s (%s)", st->names.refused[k]->name, st->names.refused[k]->why);
}

static void render_dot(struct graph_state *st, const uint32_t *order, const struct edge *edges,
                       size_t npids, struct strbuf *b) {
  strbuf_addf(b, "digraph asmspy_callgraph {\n");
  strbuf_addf(b, "  label=\"asmspy call graph: pid %d, ", (int)st->s->pid);
  if (npids > 1) strbuf_addf(b, "%zu processes, ", npids);
  strbuf_addf(b, "%zu functions, %" PRIu64 " calls\";\n", st->nnodes, st->recorded);
  dot_layout(b, "\"rounded,filled\"");
  strbuf_addf(b, "  edge [fontname=\"Helvetica\"];\n");
  for (size_t i = 0; i < st->nnodes; i++) {
    const struct node *n = &st->nodes[order[i]];
    char nb[32], mod[256];
    module_col(mod, sizeof mod, n->module);
    strbuf_addf(b, "  n%" PRIu32 " [label=\"", order[i]);
    if (npids > 1) strbuf_addf(b, "[%d] ", (int)n->pid);
    add_dot_str(b, display_name(n, nb, sizeof nb));
    strbuf_addf(b, "\\n");
    add_dot_str(b, mod);
    strbuf_addf(b, "\\ninv=%" PRIu64 " calls=%" PRIu64 " fanout=%" PRIu64, n->inv, n->calls,
                n->fanout);
    if (st->sort == SORT_FUNCTIONS_CALLED) strbuf_addf(b, " reach=%" PRIu64, n->reach);
    strbuf_addf(b, "\", fillcolor=\"%s\"];\n", dot_colour(n->kind));
  }
  for (size_t i = 0; i < st->nedges; i++)
    strbuf_addf(b, "  n%" PRIu32 " -> n%" PRIu32 " [label=\"%" PRIu64 "\"];\n", edges[i].caller,
                edges[i].callee, edges[i].count);
  strbuf_addf(b, "}");
}

/* The graph's nodes and edges as JSON arrays (the rows no consumer reads
 * typed: the record carries them as JSON values). Both together stay within
 * JSON_BUDGET, counted as the whole body's length (head: the members before
 * them); *truncated says rows were left out. */
static void render_json(struct graph_state *st, const uint32_t *order, const struct edge *edges,
                        size_t head, struct strbuf *nb, struct strbuf *eb, int *truncated) {
  struct strbuf *b = nb;
  size_t base = head - nb->len; /* nb starts with "[" */
  *truncated = 0;
  size_t emitted = 0;
  for (size_t i = 0; i < st->nnodes; i++) {
    if (base + b->len > JSON_BUDGET) {
      *truncated = 1;
      break;
    }
    const struct node *n = &st->nodes[order[i]];
    strbuf_addf(b, "%s{\"pid\":%d,\"addr\":\"0x%" PRIx64 "\",\"name\":", emitted++ ? "," : "",
                (int)n->pid, n->addr);
    add_json_str(st, b, n->name);
    strbuf_addf(b, ",\"module\":");
    add_json_str(st, b, n->module);
    strbuf_addf(b, ",\"kind\":\"%s\"", sym_kind_token(n->kind));
    if (n->why && !n->inv) {
      strbuf_addf(b, ",\"traced\":false,\"why\":");
      add_json_str(st, b, n->why);
    } else {
      strbuf_addf(b, ",\"inv\":%" PRIu64, n->inv);
    }
    strbuf_addf(b, ",\"calls\":%" PRIu64 ",\"fanout\":%" PRIu64, n->calls, n->fanout);
    if (st->sort == SORT_FUNCTIONS_CALLED) strbuf_addf(b, ",\"reach\":%" PRIu64, n->reach);
    strbuf_addf(b, "}");
  }
  strbuf_addf(nb, "]");
  /* the body so far: head, the nodes, then `,"edges":[` */
  base = head - 1 + nb->len + strlen(",\"edges\":[") - eb->len;
  b = eb;
  emitted = 0;
  for (size_t i = 0; i < st->nedges; i++) {
    if (base + b->len > JSON_BUDGET) {
      *truncated = 1;
      break;
    }
    const struct edge *e = &edges[i];
    strbuf_addf(b,
                "%s{\"pid\":%d,\"caller\":\"0x%" PRIx64 "\",\"callee\":\"0x%" PRIx64
                "\",\"count\":%" PRIu64 "}",
                emitted++ ? "," : "", (int)st->nodes[e->caller].pid, st->nodes[e->caller].addr,
                st->nodes[e->callee].addr, e->count);
  }
  strbuf_addf(eb, "]");
}

/* --sort=functions-called: per node, how many distinct functions its calls
 * reach over the recorded edges (a breadth-first walk per node over the
 * edges grouped by caller; itself counted only when a cycle leads back).
 * O(nodes x edges) at render time, only when this sort is asked for. */
static int compute_reach(struct graph_state *st) {
  size_t n = st->nnodes;
  if (n == 0) return 0;
  uint32_t *first = calloc(n + 1, sizeof *first); /* out-edges of i: adj[first[i]..first[i+1]) */
  uint32_t *adj = malloc((st->nedges ? st->nedges : 1) * sizeof *adj);
  uint32_t *seen = calloc(n, sizeof *seen); /* the walk that last visited it (1-based) */
  uint32_t *queue = malloc(n * sizeof *queue);
  if (!first || !adj || !seen || !queue) {
    free(first), free(adj), free(seen), free(queue);
    return -1;
  }
  for (size_t e = 0; e < st->nedges; e++) first[st->edges[e].caller + 1]++;
  for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
  uint32_t *fill = queue; /* borrowed as a per-caller cursor while filling adj */
  memcpy(fill, first, n * sizeof *fill);
  for (size_t e = 0; e < st->nedges; e++) adj[fill[st->edges[e].caller]++] = st->edges[e].callee;
  for (size_t root = 0; root < n; root++) {
    uint32_t walk = (uint32_t)root + 1;
    size_t head = 0, tail = 0;
    uint64_t count = 0;
    for (uint32_t k = first[root]; k < first[root + 1]; k++)
      if (seen[adj[k]] != walk) seen[adj[k]] = walk, queue[tail++] = adj[k], count++;
    while (head < tail) {
      uint32_t v = queue[head++];
      for (uint32_t k = first[v]; k < first[v + 1]; k++)
        if (seen[adj[k]] != walk) seen[adj[k]] = walk, queue[tail++] = adj[k], count++;
    }
    st->nodes[root].reach = count;
  }
  free(first), free(adj), free(seen), free(queue);
  return 0;
}

/* Render the graph as it stands through host->emit: finish() at the end,
 * snapshot() while the capture runs. The state is left untouched (the edge
 * map indexes st->edges, so the edges are sorted in a copy), so a capture
 * can go on after a snapshot. */
static int graph_render(struct graph_state *st) {
  const struct asmspy_host_api *h = st->host;
  uint32_t *order = malloc((st->nnodes ? st->nnodes : 1) * sizeof *order);
  struct edge *edges = malloc((st->nedges ? st->nedges : 1) * sizeof *edges);
  if (!order || !edges) {
    free(order);
    free(edges);
    note_oom(st);
    return -ASMSPY_E_NOMEM;
  }
  if (st->sort == SORT_FUNCTIONS_CALLED && compute_reach(st) != 0) {
    free(order);
    free(edges);
    note_oom(st);
    return -ASMSPY_E_NOMEM;
  }
  for (size_t i = 0; i < st->nnodes; i++) order[i] = (uint32_t)i;
  qsort_r(order, st->nnodes, sizeof *order, cmp_nodes, st);
  /* edges: most-taken first */
  if (st->nedges) memcpy(edges, st->edges, st->nedges * sizeof *edges);
  qsort(edges, st->nedges, sizeof *edges, cmp_edges);

  struct strbuf text = {0}, nodes = {0}, edges_json = {0};
  /* the rows are built for a typed consumer too: the TUI sorts the table by
   * the nodes' SORT_KEY members (their element k is text line k + 1) */
  int want_json = 1;
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  size_t npids = count_pids(st);
  if (want_text) {
    if (st->dot)
      render_dot(st, order, edges, npids, &text);
    else
      render_text(st, order, npids, &text);
  }
  const char *sort = sort_names[st->sort];
  int truncated = 0;
  if (want_json) {
    /* the length of the body before the nodes' rows, for the budget */
    int head = snprintf(
        NULL, 0, "\"pid\":%d,\"sort\":\"%s\",\"functions\":%zu,\"calls\":%" PRIu64 "%s,\"nodes\":[",
        (int)st->s->pid, sort, st->nnodes, st->recorded, st->dot ? ",\"format\":\"dot\"" : "");
    strbuf_addf(&nodes, "[");
    strbuf_addf(&edges_json, "[");
    render_json(st, order, edges, (size_t)head, &nodes, &edges_json, &truncated);
  }
  const struct asmspy_value v[] = {
      rv_int(st->s->pid),
      rv_str(sort),
      rv_int((int64_t)st->nnodes),
      rv_int((int64_t)st->recorded),
      st->dot ? rv_str("dot") : rv_absent(),
      want_json ? rv_json(nodes.s) : rv_array(NULL, 0),
      want_json ? rv_json(edges_json.s) : rv_array(NULL, 0),
      truncated ? rv_bool(1) : rv_absent(),
  };
  if (text.oom || nodes.oom || edges_json.oom)
    note_oom(st);
  else
    rec_emit(h, st->s->out, &graph_records[0], v, want_text ? text.s : NULL);
  free(text.s);
  free(nodes.s);
  free(edges_json.s);
  free(order);
  free(edges);
  return 0;
}

static int graph_finish(void *state, int end_status) {
  struct graph_state *st = state;
  /* nothing was traced at all (attach refused, ...): no graph to claim */
  if (end_status < 0 && st->recorded == 0) return 0;
  return graph_render(st);
}

/* The TUI's periodic frame: the same table finish() prints, mid-capture. */
static int graph_snapshot(void *state) { return graph_render(state); }

/* -------------------------------------------------------------- view -- */

static int graph_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  enum sort_by sort = SORT_INVOCATIONS;
  int dot = 0;
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, graph_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, graph_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  /* the parser checked the value is one of the choices */
  for (int i = 0; ov.value[OPT_SORT] && i <= SORT_FUNCTIONS_CALLED; i++)
    if (strcmp(ov.value[OPT_SORT], sort_names[i]) == 0) sort = (enum sort_by)i;
  dot = ov.value[OPT_DOT] != NULL;
  struct call_select select;
  if (call_select_read(&ov, OPT_CALL_SELECT, &select) != 0)
    return vo_refuse(host, s, graph_options, POSITIONALS,
                     "--max-funcs must be a positive number of functions, got '%s'",
                     ov.value[OPT_CALL_SELECT + 6]);
  struct graph_state *st = calloc(1, sizeof *st);
  if (!st) {
    call_select_free(&select);
    return -ASMSPY_E_NOMEM;
  }
  char err[256];
  if (cf_init(&st->filter, select.include, select.exclude, NULL, select.depth, select.demangle, err,
              sizeof err) != 0) {
    call_select_free(&select);
    free(st);
    return vo_refuse(host, s, graph_options, POSITIONALS, "%s", err);
  }
  cf_names_init(&st->names, host, &st->filter);
  st->select = select;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : GRAPH_DEFAULT_N;
  st->sort = sort;
  st->dot = dot;
  st->threads.elem_size = sizeof(struct cc_thread);
  *state = st;
  return 0;
}

/* A call backend patches what the selection options name. */
static int graph_configure(void *state, const struct asmspy_host_api *host,
                           struct asmspy_session *s) {
  (void)host;
  call_select_apply(&((struct graph_state *)state)->select, s);
  return 0;
}

static void graph_close(void *state) {
  struct graph_state *st = state;
  if (!st) return;
  for (size_t i = 0; i < st->nnodes; i++) {
    free(st->nodes[i].name);
    free(st->nodes[i].module);
  }
  free(st->nodes);
  free(st->edges);
  free(st->threads.v);
  free(st->node_map.slots);
  free(st->edge_map.slots);
  for (size_t i = 0; i < st->ncthreads; i++) free(st->cthreads[i].f);
  free(st->cthreads);
  cf_names_free(&st->names);
  cf_free(&st->filter);
  call_select_free(&st->select);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field graph_node_fields[] = {
    RF_INT("pid", 1, OPT, "the process it ran in (several under --follow)"),
    RF_HEX("addr", OPT, "the function's entry"),
    RF_STR("name", NUL | OPT, "its name"),
    RF_STR("module", NUL | OPT, "its module"),
    RF_ENUM("kind", "internal|external|jit|unknown", OPT, "what kind of code it is"),
    RF_INT("inv", 0, OPT | ASMSPY_FIELDF_SORT_KEY, "times called (absent when not traced)"),
    RF_BOOL("traced", OPT, "false: the call backend could not trace it (why says why)"),
    RF_STR("why", OPT, "why it is not traced (e.g. a call in its first 5 bytes)"),
    RF_INT("calls", 0, OPT | ASMSPY_FIELDF_SORT_KEY, "calls it made"),
    RF_INT("fanout", 0, OPT | ASMSPY_FIELDF_SORT_KEY, "distinct callees"),
    RF_INT("reach", 0, OPT,
           "--sort=functions-called: distinct functions it calls directly or through its callees"),
    RF_END,
};
static const struct asmspy_field graph_edge_fields[] = {
    RF_INT("pid", 1, OPT, "the process whose nodes caller and callee are"),
    RF_HEX("caller", OPT, "the calling node's address"),
    RF_HEX("callee", OPT, "the called node's address"),
    RF_INT("count", 0, OPT, "times taken"),
    RF_END,
};
static const struct asmspy_field graph_fields[] = {
    RF_INT("pid", 0, OPT, "the target"),
    RF_ENUM("sort", "invocations|fanout|functions-called", OPT, "the row order"),
    RF_INT("functions", 0, OPT, "node count"),
    RF_INT("calls", 0, OPT, "verified calls recorded"),
    RF_ENUM("format", "dot", OPT, "--dot: the human text is a Graphviz digraph"),
    RF_ARRAY("nodes", "object", graph_node_fields, 0, "per function and process, in sort order"),
    RF_ARRAY("edges", "object", graph_edge_fields, 0, "caller -> callee pairs"),
    RF_BOOL("truncated", OPT, "nodes/edges cut to fit 1 MiB"),
    RF_END,
};

static const struct asmspy_record_schema graph_records[2] = {
    {"graph", "the whole call graph, one record at the end (and per TUI frame)", graph_fields,
     NULL},
    {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry graph_tui = {'4', ASMSPY_TUI_RANKED, 0, "call graph"};

static const struct asmspy_view_ops graph_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "graph",
    .caps_required = ASMSPY_CAP_INSN_STREAM,
    .usage = POSITIONALS,
    .open = graph_open,
    .consume = graph_consume,
    .finish = graph_finish,
    .close = graph_close,
    .snapshot = graph_snapshot,
    .configure = graph_configure,
    .caps_wanted = ASMSPY_CAP_EXACT_SP, /* verified calls; flow mode without */
    .options = graph_options,
    .option_caps = NULL,
    .records = graph_records,
    .tui = &graph_tui,
    .caps_alternative = ASMSPY_CAP_CALLS, /* entrypatch: entries, not instructions */
};

static const struct asmspy_plugin graph_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "graph",
    .description = "whole-process call graph: verified caller->callee edges, inv/calls/fanout",
    .caps = ASMSPY_CAP_INSN_STREAM,
    .view = &graph_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(graph_plugin)
