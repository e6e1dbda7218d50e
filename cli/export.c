/* asmspy --export=perfetto|folded|dot <f.asmtrace|-> [--output=<file>]
 *
 * A recording that holds calls, converted for the usual timeline and
 * call-graph tools:
 *   perfetto  Chrome / Perfetto trace-event JSON ({"traceEvents":[...]},
 *             "B"/"E" pairs balanced and nested per thread), for
 *             ui.perfetto.dev and chrome://tracing;
 *   folded    folded stacks, "main;work;helper 42" per line, for
 *             flamegraph.pl and speedscope;
 *   dot       a Graphviz digraph, caller -> callee labelled with counts.
 *
 * The CLI knows no view by name (tests/abi/test_no_plugin_names.py): the
 * records are recognized by their declared schema (record_schema_find):
 *   - a call record: top-level INT "depth" and "tid" and STR "name" — one
 *     call each, nesting derived from depth order per thread (a record at
 *     depth d ends every open frame at depth >= d);
 *   - an executed instruction: a top-level member marked
 *     ASMSPY_FIELDF_INSN_ADDR, one marked ASMSPY_FIELDF_INSN_TEXT (whose
 *     mnemonic says call / ret) and INT "tid": a call pushes the function of
 *     that thread's next instruction ("sym"), a ret pops;
 *   - a call-graph record: ARRAYs "nodes" (with "addr") and "edges" (with
 *     "caller" / "callee" / "count"): counts only, no order — dot, and
 *     folded one level deep; the last such record is used.
 *
 * Time: a call log's records (the calls view: entry / leaf / exit with
 * "ts_ns") carry CLOCK_MONOTONIC time: the trace-event "ts" is that time and
 * a folded line's weight is the stack's self time in ns (the time in that
 * function at that stack, its callees' excluded: what `uftrace dump
 * --flame-graph` and inferno give), so the graph's widths are time. Other
 * call records and executed instructions carry no per-event clock (only the
 * header's start and the footer's end instant): the time base is then the
 * record's seq (one unit = one recorded event, written as 1 µs in "ts") and
 * folded weights are call counts; the output says which (perfetto's
 * "otherData", a '#' note on stderr for folded, a comment in the DOT).
 *
 * Names: perfetto gets "M" metadata events (process_name, thread_name and
 * their sort indexes) for every process and thread with calls, from what
 * the recording knows, best first: a record's "comm" for its tid / pid
 * ("tgid" or "pid", "leader"), a process's "exe" basename, the launched
 * command (header argv after "--"), else the module of the process's first
 * call (its executable when the main program's functions are traced).
 * A thread without its own name gets its process's (Linux's default comm).
 *
 * Input is data from elsewhere: every name is sanitized (ctl_escape.h) when
 * first seen, so no control byte or broken UTF-8 reaches the output, and
 * the output is written only once the whole recording read well. Exit 0
 * done (a truncated recording exports what was read, with a warning), 1 the
 * input is unusable (cannot be read, invalid, holds no calls), 2 usage. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "common/ctl_escape.h"
#include "common/strbuf.h"
#include "asmspy-internal/app_api.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#define NAME_MAX_BYTES 512     /* a sanitized name is cut to this */
#define FOLD_MAX_DEPTH 1024    /* deeper frames are not given their own folded path */
#define MAX_THREADS (1u << 20) /* distinct tids a recording may name */
#define MAX_FRAMES (1u << 24)  /* open frames over all threads */

enum fmt { FMT_PERFETTO, FMT_FOLDED, FMT_DOT };
enum kind { K_NONE = 0, K_CALL, K_INSN, K_GRAPH, K_OTHER };

/* ---- a u64 -> u32 hash map (tids, trie children, edges, graph nodes) ---- */
struct map {
  uint64_t *keys;
  uint32_t *vals; /* UINT32_MAX: empty */
  size_t n, cap;
};
static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}
static int map_grow(struct map *m) {
  size_t nc = m->cap ? m->cap * 2 : 64;
  uint64_t *k = calloc(nc, sizeof *k);
  uint32_t *v = malloc(nc * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  memset(v, 0xff, nc * sizeof *v);
  for (size_t i = 0; i < m->cap; i++) {
    if (m->vals[i] == UINT32_MAX) continue;
    size_t j = mix(m->keys[i]) & (nc - 1);
    while (v[j] != UINT32_MAX) j = (j + 1) & (nc - 1);
    k[j] = m->keys[i];
    v[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = k;
  m->vals = v;
  m->cap = nc;
  return 0;
}
/* The value for key, or UINT32_MAX. */
static uint32_t map_get(const struct map *m, uint64_t key) {
  if (!m->cap) return UINT32_MAX;
  for (size_t j = mix(key) & (m->cap - 1); m->vals[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
    if (m->keys[j] == key) return m->vals[j];
  return UINT32_MAX;
}
static int map_put(struct map *m, uint64_t key, uint32_t val) {
  if ((m->n + 1) * 2 > m->cap && map_grow(m)) return -1;
  size_t j = mix(key) & (m->cap - 1);
  while (m->vals[j] != UINT32_MAX && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  if (m->vals[j] == UINT32_MAX) m->n++;
  m->keys[j] = key;
  m->vals[j] = val;
  return 0;
}
static void map_free(struct map *m) {
  free(m->keys);
  free(m->vals);
}

/* ---- interned, sanitized names ---- */
struct names {
  char **s;
  size_t n, cap;
  struct map by_hash; /* FNV hash -> first id with it; collisions chain through next */
  uint32_t *next;
};
static uint64_t fnv(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
/* The id of name (sanitized, cut to NAME_MAX_BYTES), or UINT32_MAX when memory is short. */
static uint32_t intern(struct names *t, const char *raw, size_t len) {
  char buf[NAME_MAX_BYTES];
  ctl_text_sanitize(buf, sizeof buf, raw, len, 0);
  if (!buf[0]) snprintf(buf, sizeof buf, "?");
  uint64_t h = fnv(buf);
  for (uint32_t id = map_get(&t->by_hash, h); id != UINT32_MAX; id = t->next[id])
    if (!strcmp(t->s[id], buf)) return id;
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 256;
    char **ns = realloc(t->s, nc * sizeof *ns);
    if (!ns) return UINT32_MAX;
    t->s = ns;
    uint32_t *nx = realloc(t->next, nc * sizeof *nx);
    if (!nx) return UINT32_MAX;
    t->next = nx;
    t->cap = nc;
  }
  char *copy = strdup(buf);
  if (!copy) return UINT32_MAX;
  uint32_t id = (uint32_t)t->n;
  t->s[id] = copy;
  t->next[id] = map_get(&t->by_hash, h);
  if (map_put(&t->by_hash, h, id)) {
    free(copy);
    return UINT32_MAX;
  }
  t->n++;
  return id;
}

/* ---- the state of one export ---- */
struct frame {
  uint32_t name, node;
  int64_t depth;
  uint64_t start, child; /* timed: when it opened; time spent in its callees */
};
struct thread {
  int64_t tid, pid;
  struct frame *stk;
  size_t n, cap;
  int pending_call; /* the last instruction was a call: the next one names the callee */
  uint64_t last_ts; /* timed: the latest instant seen on this thread */
  uint32_t tname;   /* its own name (a recorded comm), when tprio > 0 */
  int tprio, seen;  /* seen: it has calls (perfetto names it) */
};
/* A process's name: the best source seen so far (prio: 4 comm, 3 exe, 2 the
 * launched command, 1 the module of its first call). */
struct proc {
  int64_t pid;
  uint32_t name;
  int prio, emitted;
  int64_t order, nthreads; /* perfetto: its sort index, threads named so far */
};
#define MAX_PROCS 4096
struct node { /* the folded trie: one per distinct stack */
  uint32_t parent, name, depth;
  uint64_t count;
  uint64_t self_ns; /* timed: time in this stack's own frame */
};
struct edge {
  uint32_t caller, callee;
  uint64_t count;
};
struct ex {
  enum fmt fmt;
  enum kind kind;
  struct names names;
  struct thread *thr;
  size_t nthr, capthr;
  struct map tid_map;
  size_t frames; /* open frames, all threads */
  struct node *nodes;
  size_t nnodes, capnodes;
  struct map child; /* (parent << 32 | name) -> node */
  struct edge *edges;
  size_t nedges, capedges;
  struct map edge_map;
  uint64_t *calls_of; /* per name id: calls into it (dot's node labels) */
  size_t capcalls;
  uint64_t calls, deep, last_seq, events;
  int64_t header_pid;
  struct proc *procs;
  size_t nprocs, capprocs;
  FILE *out;    /* perfetto: the events, written as they come */
  int first_ev; /* perfetto: no event written yet */
  int timed;    /* call records carry ts_ns (a call backend's log): ts is time, in ns */
  uint64_t t0;  /* timed: the first call's start (perfetto's ts 0) */
  int oom;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  void *np = realloc(*p, nc * elem);
  if (!np) return -1;
  memset((char *)np + *cap * elem, 0, (nc - *cap) * elem);
  *p = np;
  *cap = nc;
  return 0;
}

static struct thread *thread_of(struct ex *x, int64_t tid, int64_t pid) {
  uint32_t i = map_get(&x->tid_map, (uint64_t)tid);
  if (i != UINT32_MAX) return &x->thr[i];
  if (x->nthr >= MAX_THREADS || grow((void **)&x->thr, &x->capthr, x->nthr + 1, sizeof *x->thr) ||
      map_put(&x->tid_map, (uint64_t)tid, (uint32_t)x->nthr))
    return NULL;
  struct thread *t = &x->thr[x->nthr++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->pid = pid;
  return t;
}

static void perfetto_event(struct ex *x, const char *ph, uint64_t ts, const struct thread *t,
                           uint32_t name) {
  struct strbuf b = {0};
  if (x->timed) ts = ts > x->t0 ? ts - x->t0 : 0;
  if (x->timed) /* microseconds, as the trace-event format wants them */
    strbuf_addf(&b,
                "%s\n{\"ph\":\"%s\",\"ts\":%" PRIu64 ".%03u,\"pid\":%" PRId64 ",\"tid\":%" PRId64
                ",\"name\":",
                x->first_ev ? "" : ",", ph, ts / 1000, (unsigned)(ts % 1000), t->pid, t->tid);
  else
    strbuf_addf(&b,
                "%s\n{\"ph\":\"%s\",\"ts\":%" PRIu64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                ",\"name\":",
                x->first_ev ? "" : ",", ph, ts, t->pid, t->tid);
  strbuf_json_str(&b, x->names.s[name]);
  strbuf_addf(&b, "}");
  if (b.oom)
    x->oom = 1;
  else
    fwrite(b.s, 1, b.len, x->out);
  free(b.s);
  x->first_ev = 0;
}

static void pop(struct ex *x, struct thread *t, uint64_t ts) {
  struct frame *f = &t->stk[--t->n];
  x->frames--;
  if (x->timed) {
    uint64_t dur = ts > f->start ? ts - f->start : 0;
    x->nodes[f->node].self_ns += dur > f->child ? dur - f->child : 0;
    if (t->n) t->stk[t->n - 1].child += dur;
  }
  if (x->fmt == FMT_PERFETTO) perfetto_event(x, "E", ts, t, f->name);
}

static uint32_t trie_child(struct ex *x, uint32_t parent, uint32_t name) {
  uint64_t key = (uint64_t)parent << 32 | name;
  uint32_t id = map_get(&x->child, key);
  if (id != UINT32_MAX) return id;
  if (grow((void **)&x->nodes, &x->capnodes, x->nnodes + 1, sizeof *x->nodes) ||
      map_put(&x->child, key, (uint32_t)x->nnodes)) {
    x->oom = 1;
    return parent;
  }
  struct node *nd = &x->nodes[x->nnodes];
  nd->parent = parent;
  nd->name = name;
  nd->depth = x->nodes[parent].depth + 1;
  nd->count = 0;
  nd->self_ns = 0;
  return (uint32_t)x->nnodes++;
}

static void count_edge(struct ex *x, uint32_t caller, uint32_t callee, uint64_t n) {
  uint64_t key = (uint64_t)caller << 32 | callee;
  uint32_t id = map_get(&x->edge_map, key);
  if (id == UINT32_MAX) {
    if (grow((void **)&x->edges, &x->capedges, x->nedges + 1, sizeof *x->edges) ||
        map_put(&x->edge_map, key, (uint32_t)x->nedges)) {
      x->oom = 1;
      return;
    }
    id = (uint32_t)x->nedges++;
    x->edges[id] = (struct edge){caller, callee, 0};
  }
  x->edges[id].count += n;
}

/* A frame named `name` opens on t at ts; `call` = it is a call (counted),
 * not the function a thread was first seen in. */
static void push(struct ex *x, struct thread *t, uint32_t name, int64_t depth, uint64_t ts,
                 int call) {
  if (x->frames >= MAX_FRAMES || grow((void **)&t->stk, &t->cap, t->n + 1, sizeof *t->stk)) {
    x->oom = 1;
    return;
  }
  uint32_t parent = t->n ? t->stk[t->n - 1].node : 0;
  uint32_t node = parent;
  if (x->nodes[parent].depth < FOLD_MAX_DEPTH)
    node = trie_child(x, parent, name);
  else if (call)
    x->deep++;
  if (call) {
    x->calls++;
    if (node != parent) x->nodes[node].count++;
    if (!grow((void **)&x->calls_of, &x->capcalls, name + 1, sizeof *x->calls_of))
      x->calls_of[name]++;
    if (t->n) count_edge(x, t->stk[t->n - 1].name, name, 1);
  }
  t->stk[t->n++] = (struct frame){name, node, depth, ts, 0};
  t->seen = 1;
  x->frames++;
  if (x->fmt == FMT_PERFETTO) perfetto_event(x, "B", ts, t, name);
}

/* ---- recognizing records by their schema ---- */
static const struct asmspy_field *field(const struct asmspy_field *fs, const char *name,
                                        uint32_t type) {
  for (const struct asmspy_field *f = fs; f && f->name; f++)
    if (!strcmp(f->name, name) && f->type == type) return f;
  return NULL;
}
static const struct asmspy_field *flagged(const struct asmspy_field *fs, uint32_t flag) {
  for (const struct asmspy_field *f = fs; f && f->name; f++)
    if (f->flags & flag) return f;
  return NULL;
}
static enum kind classify(const struct asmspy_record_schema *s) {
  if (!s) return K_OTHER;
  const struct asmspy_field *fs = s->fields;
  if (field(fs, "depth", ASMSPY_FIELD_INT) && field(fs, "tid", ASMSPY_FIELD_INT) &&
      field(fs, "name", ASMSPY_FIELD_STR))
    return K_CALL;
  if (flagged(fs, ASMSPY_FIELDF_INSN_ADDR) && flagged(fs, ASMSPY_FIELDF_INSN_TEXT) &&
      field(fs, "tid", ASMSPY_FIELD_INT))
    return K_INSN;
  const struct asmspy_field *nodes = field(fs, "nodes", ASMSPY_FIELD_ARRAY);
  const struct asmspy_field *edges = field(fs, "edges", ASMSPY_FIELD_ARRAY);
  if (nodes && edges && field(nodes->fields, "addr", ASMSPY_FIELD_HEX) &&
      field(edges->fields, "caller", ASMSPY_FIELD_HEX) &&
      field(edges->fields, "callee", ASMSPY_FIELD_HEX))
    return K_GRAPH;
  return K_OTHER;
}

/* The event types seen, with their kind (a recording has a handful). */
struct type_cache {
  char name[RECORDING_TYPE_NAME_MAX];
  enum kind kind;
  const struct asmspy_record_schema *schema;
};
static enum kind kind_of(struct type_cache *tc, size_t *n, const char *type,
                         const struct asmspy_record_schema **schema) {
  for (size_t i = 0; i < *n; i++)
    if (!strcmp(tc[i].name, type)) {
      *schema = tc[i].schema;
      return tc[i].kind;
    }
  *schema = record_schema_find(type);
  enum kind k = classify(*schema);
  if (*n < RECORDING_MAX_TYPES && strlen(type) < RECORDING_TYPE_NAME_MAX) {
    snprintf(tc[*n].name, sizeof tc[*n].name, "%s", type);
    tc[*n].schema = *schema;
    tc[(*n)++].kind = k;
  }
  return k;
}

/* The mnemonic of a disassembly, prefixes skipped: 1 call, -1 ret, 0 other. */
static int call_or_ret(const char *dis) {
  static const char *const prefixes[] = {"bnd",   "notrack", "rep",    "repz",   "repe", "repnz",
                                         "repne", "lock",    "data16", "addr32", NULL};
  const char *p = dis;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strcspn(p, " \t");
    int pre = 0;
    for (int i = 0; prefixes[i]; i++)
      if (strlen(prefixes[i]) == n && !strncmp(p, prefixes[i], n)) pre = 1;
    if (!pre) {
      if (n >= 4 && !strncmp(p, "call", 4)) return 1;
      if ((n == 2 && !strncmp(p, "bl", 2)) || (n == 3 && !strncmp(p, "blr", 3))) return 1;
      if (n >= 3 && !strncmp(p, "ret", 3)) return -1;
      return 0;
    }
    p += n;
  }
}

static int64_t int_or(const struct json_value *ev, const char *key, int64_t dflt) {
  int64_t v;
  return json_get_int(ev, key, &v) ? v : dflt;
}

/* ---- names of processes and threads (perfetto's "M" events) ---- */
static struct proc *proc_of(struct ex *x, int64_t pid) {
  for (size_t i = 0; i < x->nprocs; i++)
    if (x->procs[i].pid == pid) return &x->procs[i];
  if (x->nprocs >= MAX_PROCS ||
      grow((void **)&x->procs, &x->capprocs, x->nprocs + 1, sizeof *x->procs))
    return NULL;
  struct proc *p = &x->procs[x->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  return p;
}
/* The last path component of s[0..len) (a path or a bare name). */
static const char *base_name(const char *s, size_t *len) {
  while (*len > 1 && s[*len - 1] == '/') (*len)--;
  const char *b = memrchr(s, '/', *len);
  if (b && (size_t)(b + 1 - s) < *len) {
    *len -= (size_t)(b + 1 - s);
    return b + 1;
  }
  return s;
}
static void name_proc(struct ex *x, int64_t pid, const char *s, size_t len, int prio, int base) {
  if (!s || !len || pid <= 0) return;
  if (base) s = base_name(s, &len);
  struct proc *p = proc_of(x, pid);
  if (!p || p->prio >= prio) return;
  uint32_t id = intern(&x->names, s, len);
  if (id == UINT32_MAX) return;
  p->name = id;
  p->prio = prio;
}
static void name_thread(struct ex *x, int64_t tid, int64_t pid, const struct json_value *comm) {
  if (tid <= 0 || !comm || comm->type != JSON_STRING || !comm->u.str.len) return;
  struct thread *t = thread_of(x, tid, pid);
  if (!t) return;
  uint32_t id = intern(&x->names, comm->u.str.s, comm->u.str.len);
  if (id == UINT32_MAX) return;
  t->tname = id;
  t->tprio = 1;
  if (tid == pid) name_proc(x, pid, comm->u.str.s, comm->u.str.len, 4, 0); /* the leader's comm */
}
/* What one record (of any type) says about names: "comm" of a tid or a
 * pid, "exe", a "threads" array of {tid, comm}. */
static void learn_names(struct ex *x, const struct json_value *ev) {
  const struct json_value *comm = json_get(ev, "comm");
  const struct json_value *thr = json_get(ev, "threads");
  const char *exe = json_get_str(ev, "exe");
  if (!comm && !exe && (!thr || thr->type != JSON_ARRAY)) return;
  int64_t pid = int_or(ev, "tgid", int_or(ev, "pid", -1)), tid = int_or(ev, "tid", -1);
  if (pid <= 0 && tid <= 0) pid = x->header_pid;
  if (comm && comm->type == JSON_STRING) {
    if (tid > 0)
      name_thread(x, tid, pid > 0 ? pid : tid, comm);
    else
      name_proc(x, pid, comm->u.str.s, comm->u.str.len, 4, 0);
  }
  if (exe && (tid <= 0 || tid == pid)) name_proc(x, pid > 0 ? pid : tid, exe, strlen(exe), 3, 1);
  for (size_t i = 0; thr && thr->type == JSON_ARRAY && i < json_array_len(thr); i++) {
    const struct json_value *o = json_array_at(thr, i);
    name_thread(x, int_or(o, "tid", -1), pid, json_get(o, "comm"));
  }
}
/* The launched command (header argv: asmspy ... -- <cmd> ...) names the header's pid. */
static void learn_header_names(struct ex *x, const struct json_value *hdr) {
  const struct json_value *argv = json_get(hdr, "argv");
  for (size_t i = 0; argv && argv->type == JSON_ARRAY && i + 1 < json_array_len(argv); i++) {
    const struct json_value *a = json_array_at(argv, i), *cmd = json_array_at(argv, i + 1);
    if (a && a->type == JSON_STRING && a->u.str.len == 2 && !memcmp(a->u.str.s, "--", 2) && cmd &&
        cmd->type == JSON_STRING) {
      name_proc(x, x->header_pid, cmd->u.str.s, cmd->u.str.len, 2, 1);
      break;
    }
  }
}
/* The last resort: the module of a process's first call. */
static void learn_module(struct ex *x, const struct thread *t, const struct json_value *ev) {
  const struct json_value *m = json_get(ev, "module");
  if (!t->seen && m && m->type == JSON_STRING) name_proc(x, t->pid, m->u.str.s, m->u.str.len, 1, 1);
}

static void meta_event(struct strbuf *b, int *first, int64_t pid, int64_t tid, const char *what,
                       const char *name, int64_t index) {
  strbuf_addf(b,
              "%s\n{\"ph\":\"M\",\"ts\":0,\"pid\":%" PRId64 ",\"tid\":%" PRId64
              ",\"name\":\"%s\",\"args\":{",
              *first ? "" : ",", pid, tid, what);
  if (name) {
    strbuf_addf(b, "\"name\":");
    strbuf_json_str(b, name);
  } else {
    strbuf_addf(b, "\"sort_index\":%" PRId64, index);
  }
  strbuf_addf(b, "}}");
  *first = 0;
}
/* perfetto's metadata: every process and thread with calls, named. */
static void perfetto_meta(struct ex *x, struct strbuf *b) {
  int first = 1;
  for (size_t i = 0; i < x->nthr; i++) {
    const struct thread *t = &x->thr[i];
    if (!t->seen) continue;
    struct proc *p = proc_of(x, t->pid);
    if (!p) {
      x->oom = 1;
      return;
    }
    if (!p->emitted) { /* its first thread with calls: the process's own events */
      p->emitted = 1;
      p->order = (int64_t)(p - x->procs);
      if (p->prio) meta_event(b, &first, t->pid, t->tid, "process_name", x->names.s[p->name], 0);
      meta_event(b, &first, t->pid, t->tid, "process_sort_index", NULL, p->order);
    }
    const char *tn = t->tprio ? x->names.s[t->tname] : p->prio ? x->names.s[p->name] : NULL;
    if (tn) meta_event(b, &first, t->pid, t->tid, "thread_name", tn, 0);
    meta_event(b, &first, t->pid, t->tid, "thread_sort_index", NULL,
               t->tid == t->pid ? 0 : ++p->nthreads);
  }
}

static void on_call(struct ex *x, const struct json_value *ev, uint64_t seq) {
  int64_t tid = int_or(ev, "tid", 0), depth = int_or(ev, "depth", 0);
  struct thread *t = thread_of(x, tid, int_or(ev, "pid", x->header_pid));
  if (!t) {
    x->oom = 1;
    return;
  }
  learn_module(x, t, ev);
  const struct json_value *nv = json_get(ev, "name");
  const char *addr = json_get_str(ev, "addr");
  uint32_t name = nv && nv->type == JSON_STRING ? intern(&x->names, nv->u.str.s, nv->u.str.len)
                  : addr                        ? intern(&x->names, addr, strlen(addr))
                                                : intern(&x->names, "?", 1);
  if (name == UINT32_MAX) {
    x->oom = 1;
    return;
  }
  /* a call log (the calls view): entry / leaf / exit lines with real time */
  const char *what = json_get_str(ev, "what");
  int64_t ts_ns = int_or(ev, "ts_ns", -1);
  if (what && ts_ns >= 0) {
    /* instants stay absolute (the folded self times are exact differences);
     * perfetto's ts is taken from the first call's start, t0 */
    int64_t dur = int_or(ev, "duration_ns", 0);
    uint64_t at = (uint64_t)ts_ns;
    uint64_t start =
        !strcmp(what, "leaf") && dur > 0 && (uint64_t)dur <= at ? at - (uint64_t)dur : at;
    if (!x->timed && !x->calls) x->timed = 1, x->t0 = start;
    if (x->timed) {
      if (at > t->last_ts) t->last_ts = at;
      if (!strcmp(what, "exit")) {
        while (t->n && t->stk[t->n - 1].depth > depth) pop(x, t, at);
        if (t->n && t->stk[t->n - 1].depth == depth) pop(x, t, at);
        return;
      }
      while (t->n && t->stk[t->n - 1].depth >= depth) pop(x, t, start);
      push(x, t, name, depth, start, 1);
      if (!strcmp(what, "leaf")) pop(x, t, at);
      return;
    }
  }
  while (t->n && t->stk[t->n - 1].depth >= depth) pop(x, t, seq);
  push(x, t, name, depth, seq, 1);
}

static void on_insn(struct ex *x, const struct json_value *ev, uint64_t seq,
                    const struct asmspy_record_schema *s) {
  int64_t tid = int_or(ev, "tid", 0);
  struct thread *t = thread_of(x, tid, int_or(ev, "pid", x->header_pid));
  if (!t) {
    x->oom = 1;
    return;
  }
  learn_module(x, t, ev);
  const struct json_value *sv = json_get(ev, "sym");
  const char *ip = json_get_str(ev, flagged(s->fields, ASMSPY_FIELDF_INSN_ADDR)->name);
  const char *dis = json_get_str(ev, flagged(s->fields, ASMSPY_FIELDF_INSN_TEXT)->name);
  uint32_t name = sv && sv->type == JSON_STRING ? intern(&x->names, sv->u.str.s, sv->u.str.len)
                  : ip                          ? intern(&x->names, ip, strlen(ip))
                                                : intern(&x->names, "?", 1);
  if (name == UINT32_MAX) {
    x->oom = 1;
    return;
  }
  if (t->pending_call)
    push(x, t, name, (int64_t)t->n, seq, 1);
  else if (!t->n)
    push(x, t, name, 0, seq, 0); /* where the thread was first seen */
  t->pending_call = 0;
  switch (dis ? call_or_ret(dis) : 0) {
  case 1: t->pending_call = 1; break;
  case -1:
    if (t->n) pop(x, t, seq + 1); /* the ret ran in the callee: it ends after it */
    break;
  }
}

/* A call-graph record: its edges, counted at once (the reader owns the
 * JSON); a later record replaces an earlier one. */
static void on_graph(struct ex *x, const struct json_value *ev) {
  /* a later record replaces an earlier one (per TUI frame, then the end) */
  x->nedges = 0;
  map_free(&x->edge_map);
  memset(&x->edge_map, 0, sizeof x->edge_map);
  for (size_t i = 0; i < x->capcalls; i++) x->calls_of[i] = 0;
  x->calls = 0;
  struct map addr_name = {0}; /* (pid, addr) hash -> name id */
  const struct json_value *nodes = json_get(ev, "nodes"), *edges = json_get(ev, "edges");
  for (size_t i = 0; i < json_array_len(nodes); i++) {
    const struct json_value *n = json_array_at(nodes, i);
    const char *addr = json_get_str(n, "addr");
    if (!addr) continue;
    const struct json_value *nv = json_get(n, "name");
    uint32_t name = nv && nv->type == JSON_STRING ? intern(&x->names, nv->u.str.s, nv->u.str.len)
                                                  : intern(&x->names, addr, strlen(addr));
    if (name == UINT32_MAX ||
        map_put(&addr_name, fnv(addr) ^ mix((uint64_t)int_or(n, "pid", 0)), name)) {
      x->oom = 1;
      break;
    }
    if (!grow((void **)&x->calls_of, &x->capcalls, name + 1, sizeof *x->calls_of))
      x->calls_of[name] += (uint64_t)(int_or(n, "inv", 0) > 0 ? int_or(n, "inv", 0) : 0);
  }
  for (size_t i = 0; !x->oom && i < json_array_len(edges); i++) {
    const struct json_value *e = json_array_at(edges, i);
    const char *ca = json_get_str(e, "caller"), *ce = json_get_str(e, "callee");
    int64_t pid = int_or(e, "pid", 0), count = int_or(e, "count", 1);
    if (!ca || !ce || count <= 0) continue;
    uint32_t a = map_get(&addr_name, fnv(ca) ^ mix((uint64_t)pid));
    uint32_t b = map_get(&addr_name, fnv(ce) ^ mix((uint64_t)pid));
    if (a == UINT32_MAX) a = intern(&x->names, ca, strlen(ca));
    if (b == UINT32_MAX) b = intern(&x->names, ce, strlen(ce));
    if (a == UINT32_MAX || b == UINT32_MAX) {
      x->oom = 1;
      break;
    }
    count_edge(x, a, b, (uint64_t)count);
    x->calls += (uint64_t)count;
  }
  map_free(&addr_name);
}

/* ---- writing ---- */
/* A name for folded stacks: no ' ' (the weight's separator) and no ';'. */
static void put_folded_name(FILE *f, const char *s) {
  for (; *s; s++) fputc(*s == ' ' ? '_' : *s == ';' ? ':' : *s, f);
}

static void write_folded(struct ex *x, FILE *f) {
  uint32_t *path = malloc((FOLD_MAX_DEPTH + 2) * sizeof *path);
  if (!path) {
    x->oom = 1;
    return;
  }
  if (x->kind == K_GRAPH) {
    for (size_t i = 0; i < x->nedges; i++) {
      put_folded_name(f, x->names.s[x->edges[i].caller]);
      fputc(';', f);
      put_folded_name(f, x->names.s[x->edges[i].callee]);
      fprintf(f, " %" PRIu64 "\n", x->edges[i].count);
    }
  }
  for (size_t i = 1; x->kind != K_GRAPH && i < x->nnodes; i++) {
    uint64_t w = x->timed ? x->nodes[i].self_ns : x->nodes[i].count;
    if (!w) continue;
    size_t n = 0;
    for (uint32_t k = (uint32_t)i; k && n < FOLD_MAX_DEPTH + 1; k = x->nodes[k].parent)
      path[n++] = x->nodes[k].name;
    while (n--) {
      put_folded_name(f, x->names.s[path[n]]);
      if (n) fputc(';', f);
    }
    fprintf(f, " %" PRIu64 "\n", w);
  }
  free(path);
}

static void write_dot(struct ex *x, FILE *f, const char *path) {
  char b[256];
  ctl_text_sanitize(b, sizeof b, path, strlen(path), 0);
  fprintf(f, "// asmspy --export=dot of ");
  put_folded_name(f, b);
  fprintf(f, ": %" PRIu64 " calls; edge labels are call counts%s\n", x->calls,
          x->kind == K_GRAPH ? " (from a call-graph record)" : "");
  fprintf(f, "digraph calls {\n  node [shape=box, fontname=\"monospace\"];\n");
  unsigned char *used = calloc(x->names.n ? x->names.n : 1, 1);
  if (!used) {
    x->oom = 1;
    return;
  }
  for (size_t e = 0; e < x->nedges; e++) used[x->edges[e].caller] = used[x->edges[e].callee] = 1;
  for (size_t i = 0; i < x->names.n; i++) {
    uint64_t c = i < x->capcalls ? x->calls_of[i] : 0;
    if (!c && !used[i]) continue;
    fprintf(f, "  n%zu [label=", i);
    char lbl[NAME_MAX_BYTES + 64];
    snprintf(lbl, sizeof lbl, "%s\n%" PRIu64 " call%s", x->names.s[i], c, c == 1 ? "" : "s");
    fputc('"', f);
    for (const char *s = lbl; *s; s++) {
      if (*s == '\n')
        fputs("\\n", f);
      else {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
      }
    }
    fputs("\"];\n", f);
  }
  for (size_t e = 0; e < x->nedges; e++)
    fprintf(f, "  n%u -> n%u [label=\"%" PRIu64 "\"];\n", x->edges[e].caller, x->edges[e].callee,
            x->edges[e].count);
  fputs("}\n", f);
  free(used);
}

enum { EXPORT_FORMAT, EXPORT_OUTPUT };
const struct asmspy_option cli_export_options[] = {
    [EXPORT_FORMAT] = {"format", "perfetto|folded|dot",
                       "the output format (the same as --export=<format>)"},
    [EXPORT_OUTPUT] = {"output", "<file>", "write to <file> instead of stdout"},
    {NULL, NULL, NULL},
};

static int fail(const char *path, const char *fmt, const char *detail) {
  char b[256], d[512];
  ctl_text_sanitize(b, sizeof b, path, strlen(path), 0);
  ctl_text_sanitize(d, sizeof d, detail, strlen(detail), 0);
  fprintf(stderr, "asmspy: --export: %s: ", b);
  fprintf(stderr, fmt, d);
  fputc('\n', stderr);
  return CLI_EXIT_FAIL;
}

static void ex_free(struct ex *x) {
  for (size_t i = 0; i < x->names.n; i++) free(x->names.s[i]);
  free(x->names.s);
  free(x->names.next);
  map_free(&x->names.by_hash);
  for (size_t i = 0; i < x->nthr; i++) free(x->thr[i].stk);
  free(x->thr);
  map_free(&x->tid_map);
  free(x->nodes);
  map_free(&x->child);
  free(x->edges);
  map_free(&x->edge_map);
  free(x->calls_of);
  free(x->procs);
}

/* Step 1: the command line. Fills x->fmt, *path and *outpath; 0, or
 * CLI_EXIT_USAGE (one line printed). */
static int export_args(int argc, char **argv, struct ex *x, const char **path,
                       const char **outpath) {
  const char *fmt_arg = NULL;
  if (argc >= 1 && !strncmp(argv[0], "--export=", 9)) {
    fmt_arg = argv[0] + 9;
    argc--;
    argv++;
  }
  struct asmspy_optval ov;
  if (cli_parse_options("export", cli_export_options, argc, argv, &ov)) return CLI_EXIT_USAGE;
  const char *fv = ov.value[EXPORT_FORMAT];
  if (fmt_arg && fv && strcmp(fmt_arg, fv) != 0)
    return cli_usage_error("--export=%s and --format=%s disagree", fmt_arg, fv);
  if (!fmt_arg) fmt_arg = fv;
  if (!fmt_arg)
    return cli_usage_error("--export needs a format: --export=perfetto|folded|dot <f.asmtrace|->");
  if (!strcmp(fmt_arg, "perfetto"))
    x->fmt = FMT_PERFETTO;
  else if (!strcmp(fmt_arg, "folded"))
    x->fmt = FMT_FOLDED;
  else if (!strcmp(fmt_arg, "dot"))
    x->fmt = FMT_DOT;
  else {
    char b[64];
    ctl_text_sanitize(b, sizeof b, fmt_arg, strlen(fmt_arg), 0);
    return cli_usage_error("--export: unknown format '%s' (perfetto, folded or dot)", b);
  }
  *path = NULL;
  for (uint32_t i = 0; i < ov.npos; i++) {
    if (*path) return cli_usage_error("--export takes one recording, got '%s' too", ov.pos[i]);
    *path = ov.pos[i];
  }
  if (!*path)
    return cli_usage_error("--export needs a recording: --export=%s <f.asmtrace|->", fmt_arg);
  *outpath = ov.value[EXPORT_OUTPUT];
  if (*outpath && !**outpath) return cli_usage_error("--export: --output needs a file name");
  return 0;
}

/* Step 2: every event of rec into x (the first kind of call source seen:
 * call records, executed instructions or call-graph edges); perfetto's
 * events are written to x->out as they come. */
static void export_read(struct ex *x, struct recording *rec) {
  x->first_ev = 1;
  x->header_pid = int_or(recording_header(rec), "pid", 0);
  learn_header_names(x, recording_header(rec));
  /* node 0: the root of the folded trie */
  if (grow((void **)&x->nodes, &x->capnodes, 1, sizeof *x->nodes)) x->oom = 1;
  x->nnodes = 1;

  struct type_cache tc[RECORDING_MAX_TYPES];
  size_t ntc = 0;
  const struct json_value *ev;
  while (!x->oom && recording_next(rec, &ev) == 1) {
    const char *type = json_get_str(ev, "type");
    int64_t seq = int_or(ev, "seq", 0);
    x->events++;
    if (seq > 0) x->last_seq = (uint64_t)seq;
    const struct asmspy_record_schema *schema = NULL;
    enum kind k = kind_of(tc, &ntc, type ? type : "", &schema);
    if (x->fmt == FMT_PERFETTO) learn_names(x, ev);
    if (k == K_OTHER) continue;
    if (x->kind == K_NONE) x->kind = k;
    if (k != x->kind) continue; /* one source per export: the first kind seen */
    if (k == K_CALL)
      on_call(x, ev, x->last_seq);
    else if (k == K_INSN)
      on_insn(x, ev, x->last_seq, schema);
    else
      on_graph(x, ev);
  }
}

/* Step 3: is there something to export? CLI_EXIT_OK (with a note when the
 * recording is truncated), or CLI_EXIT_FAIL with the reason printed. */
static int export_verdict(const struct ex *x, const struct asmspy_recording_report *rep,
                          const char *path) {
  char d[320];
  if (x->oom)
    return fail(path, "%s", "out of memory (or over the limits on threads / open frames)");
  if (rep->verdict == RECORDING_INVALID) {
    snprintf(d, sizeof d, "line %" PRIu64 ": %s", rep->error_line, rep->error);
    return fail(path, "invalid recording at %s", d);
  }
  if (!x->calls && x->kind != K_GRAPH)
    return fail(path, "%s",
                "no calls to export (it needs per-call records of the call tree, executed "
                "instructions that call, or call-graph edges)");
  if (x->kind == K_GRAPH && (x->fmt == FMT_PERFETTO || !x->nedges))
    return fail(path, "%s",
                x->nedges ? "a call-graph recording holds counts, not a timeline: export it as "
                            "folded or dot"
                          : "no calls to export (the call graph has no edges)");
  if (rep->verdict == RECORDING_TRUNCATED) {
    ctl_text_sanitize(d, sizeof d, rep->error, strlen(rep->error), 0);
    fprintf(stderr, "# recording truncated (%s): exporting the %" PRIu64 " events read\n", d,
            x->events);
  }
  return CLI_EXIT_OK;
}

/* perfetto's tail: the source and how its ts were derived. */
static void export_perfetto_tail(const struct ex *x, FILE *tmp, const char *path) {
  char b[256];
  ctl_text_sanitize(b, sizeof b, path, strlen(path), 0);
  fputs("\n],\"otherData\":{\"tool\":\"asmspy --export\","
        "\"source\":",
        tmp);
  struct strbuf sb = {0};
  strbuf_json_str(&sb, b);
  if (sb.s) fputs(sb.s, tmp);
  free(sb.s);
  if (x->timed)
    fprintf(tmp,
            ",\"calls\":%" PRIu64 ",\"time_base\":\"ns\",\"time_note\":\"ts is the call "
            "log's CLOCK_MONOTONIC time in microseconds from its first call\","
            "\"derived_from\":\"a call log (entry, leaf and exit records with durations)\"}}\n",
            x->calls);
  else
    fprintf(tmp,
            ",\"calls\":%" PRIu64 ",\"time_base\":\"seq\",\"time_note\":\"the recording "
            "has no per-event timestamps: ts is the record's seq (1 unit = one recorded "
            "event), not wall time\",\"derived_from\":\"%s\"}}\n",
            x->calls,
            x->kind == K_CALL ? "call records (nesting from depth)"
                              : "executed instructions (call / ret)");
}

/* folded: the stacks, and what their weights mean (stderr). */
static void export_folded(struct ex *x, FILE *tmp) {
  write_folded(x, tmp);
  if (x->timed)
    fputs("# folded: weight = self time in ns (the call log's timestamps: the time in each "
          "stack's own function, its callees' time excluded)\n",
          stderr);
  else
    fprintf(stderr, "# folded: weight = number of calls (%s)\n",
            x->kind == K_GRAPH  ? "a call-graph record holds counts, no time; it gives one "
                                  "level: caller;callee"
            : x->kind == K_INSN ? "executed instructions carry no timestamps"
                                : "these call records carry no timestamps");
  if (x->deep)
    fprintf(stderr, "# folded: %" PRIu64 " calls deeper than %d frames are left out\n", x->deep,
            FOLD_MAX_DEPTH);
}

/* Step 4: close the frames still open, then write the format's body or
 * tail to tmp. CLI_EXIT_OK, or CLI_EXIT_FAIL (out of memory). */
static int export_write(struct ex *x, FILE *tmp, const char *path) {
  uint64_t end = x->last_seq + 1;
  if (x->timed) { /* open frames end at the last instant seen */
    end = 0;
    for (size_t i = 0; i < x->nthr; i++) end = end > x->thr[i].last_ts ? end : x->thr[i].last_ts;
  }
  for (size_t i = 0; i < x->nthr; i++)
    while (x->thr[i].n) pop(x, &x->thr[i], end);
  if (x->fmt == FMT_PERFETTO)
    export_perfetto_tail(x, tmp, path);
  else if (x->fmt == FMT_FOLDED)
    export_folded(x, tmp);
  else
    write_dot(x, tmp, path);
  return x->oom ? fail(path, "%s", "out of memory") : CLI_EXIT_OK;
}

/* Step 5 (perfetto): the array's opening and the metadata events, which
 * precede the events already in tmp, into head. */
static int export_perfetto_head(struct ex *x, struct strbuf *head, const char *path) {
  strbuf_addf(head, "{\"traceEvents\":[");
  size_t empty = head->len;
  perfetto_meta(x, head);
  if (head->len > empty && !x->first_ev) strbuf_addf(head, ",");
  return head->oom || x->oom ? fail(path, "%s", "out of memory") : CLI_EXIT_OK;
}

/* Step 6: head then tmp to outpath (NULL: stdout). */
static int export_copy_out(FILE *tmp, const struct strbuf *head, const char *outpath) {
  FILE *dst = stdout;
  if (outpath && !(dst = fopen(outpath, "we")))
    return fail(outpath, "cannot write: %s", strerror(errno));
  rewind(tmp);
  if (head->s) fwrite(head->s, 1, head->len, dst);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, tmp)) > 0) fwrite(buf, 1, n, dst);
  if (ferror(tmp) | (dst == stdout ? fflush(dst) != 0 : fclose(dst) != 0))
    return fail(outpath ? outpath : "-", "write failed: %s", strerror(errno));
  return CLI_EXIT_OK;
}

int cli_cmd_export(int argc, char **argv) {
  struct ex x;
  memset(&x, 0, sizeof x);
  const char *path = NULL, *outpath = NULL;
  int rc = export_args(argc, argv, &x, &path, &outpath);
  if (rc) return rc;

  struct recording *rec = recording_open(path);
  if (!rec) return fail(path, "cannot open: %s", strerror(errno));
  FILE *tmp = tmpfile(); /* the output, handed on only when the input read well */
  if (!tmp) {
    recording_close(rec);
    return fail(path, "%s", strerror(errno));
  }
  x.out = tmp;
  export_read(&x, rec);
  rc = export_verdict(&x, recording_get_report(rec), path);
  if (rc == CLI_EXIT_OK) rc = export_write(&x, tmp, path);
  struct strbuf head = {0}; /* perfetto: the array's opening and the metadata events */
  if (rc == CLI_EXIT_OK && x.fmt == FMT_PERFETTO) rc = export_perfetto_head(&x, &head, path);
  if (rc == CLI_EXIT_OK) rc = export_copy_out(tmp, &head, outpath);
  free(head.s);
  fclose(tmp);
  recording_close(rec);
  ex_free(&x);
  return rc;
}
