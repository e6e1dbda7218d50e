/* calls: the time-ordered call log of a process, with durations, like
 * `uftrace replay` (`asmspy --calls <pid> [n]`).
 *
 *   # DURATION     TID     FUNCTION
 *               [  4242] | work() {
 *      0.085 us [  4242] |   helper();
 *      1.920 us [  4242] | } (* work *)      [printed with C comment marks]
 *
 * Built from ASMSPY_EV_CALL events (a call backend: entrypatch), so it needs
 * ASMSPY_CAP_CALLS. Per thread, an entry is held back until the thread's
 * next event: if that is its own exit the call prints as one leaf line
 * `name();` with its duration, otherwise as `name() {` and later
 * a closing line (`} ` + the name in a C comment) with the duration. Frames nest by their return slot: an
 * entry or exit at slot s closes every frame at or below s first (left by
 * longjmp or an exception: the closing comment says `name: unwound`).
 *
 * --depth=<d> prints d levels; --focus=<sym> only the calls under <sym>
 * (re-based); the selection options (--module, --filter, --exclude,
 * --max-funcs) choose what the backend patches. n counts entries (default
 * 200; negative = until the target exits or Ctrl-C). --json: one `call`
 * record per printed line (type `call_log`). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "common/strbuf.h"

#include "plugins/common/call_select.h"
#include "plugins/common/record_emit.h"
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLS_DEFAULT_N 200
#define FRAMES_MAX 4096

static const struct asmspy_record_schema calls_records[2];

#define POSITIONALS "<pid> [n]"
enum { OPT_DEPTH, OPT_FOCUS, OPT_CALL_SELECT };
static const struct asmspy_option calls_options[] = {
    [OPT_DEPTH] = {"depth", "<d>", "print d levels of calls (default: all)"},
    [OPT_FOCUS] = {"focus", "<sym>", "only the calls under <sym> (its subtree, re-based)"},
    CALL_SELECT_OPTIONS,
    {NULL, NULL, NULL},
};

struct frame {
  uint64_t slot, func, ts;
  int printed;    /* its `name() {` line is out (else: held back, a leaf so far) */
  int in_focus;   /* printed: within --focus (or no focus) */
  int32_t depth;  /* printed depth (re-based under --focus) */
};

struct thread {
  int32_t tid;
  struct frame *frames;
  size_t n, cap;
};

struct calls_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want, entries;
  long max_depth;
  const char *focus;
  struct call_select select;
  struct thread *threads;
  size_t nthreads, tcap;
  int header_done, oom_noted;
  uint64_t lost;
};

static struct thread *thread_for(struct calls_state *st, int32_t tid) {
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) return &st->threads[i];
  if (st->nthreads == st->tcap) {
    size_t nc = st->tcap ? st->tcap * 2 : 16;
    struct thread *nt = realloc(st->threads, nc * sizeof *nt);
    if (!nt) return NULL;
    st->threads = nt;
    st->tcap = nc;
  }
  struct thread *t = &st->threads[st->nthreads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

static void name_of(struct calls_state *st, const struct asmspy_event *ev, uint64_t func,
                    char *name, size_t cap, const char **module) {
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  st->host->symbolize(ev->target, func, &sym);
  if (sym.name && sym.kind != ASMSPY_SYM_UNKNOWN)
    snprintf(name, cap, "%s", sym.name);
  else
    snprintf(name, cap, "0x%" PRIx64, func);
  *module = sym.module ? sym.module : "?";
}

/* "   1.234 us" like uftrace (us below 1 ms, then ms, then s). */
static void fmt_duration(char *buf, size_t cap, uint64_t ns) {
  if (ns < 1000000ull)
    snprintf(buf, cap, "%8.3f us", (double)ns / 1e3);
  else if (ns < 1000000000ull)
    snprintf(buf, cap, "%8.3f ms", (double)ns / 1e6);
  else
    snprintf(buf, cap, "%8.3f  s", (double)ns / 1e9);
}

/* One printed line: what = entry | leaf | exit. */
static void print_line(struct calls_state *st, const struct asmspy_event *ev, uint64_t func,
                       int32_t depth, const char *what, int64_t duration, uint64_t ts,
                       int unwound) {
  const struct asmspy_host_api *h = st->host;
  char name[512], dur[32] = "", text[600];
  const char *module;
  name_of(st, ev, func, name, sizeof name, &module);
  if (duration >= 0) fmt_duration(dur, sizeof dur, (uint64_t)duration);
  /* a demangled C++ name carries its parameter list already */
  const char *parens = strchr(name, '(') ? "" : "()";
  if (!strcmp(what, "entry"))
    snprintf(text, sizeof text, "%s%s {", name, parens);
  else if (!strcmp(what, "leaf"))
    snprintf(text, sizeof text, "%s%s;%s", name, parens, unwound ? " /* unwound */" : "");
  else
    snprintf(text, sizeof text, "} /* %s%s */", name, unwound ? ": unwound" : "");
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  struct strbuf line = {0};
  if (want_text) { /* uftrace's column header rides on the first line */
    if (!st->header_done) strbuf_addf(&line, "# DURATION     TID     FUNCTION\n");
    st->header_done = 1;
    strbuf_addf(&line, "%11s [%6d] | %*s%s", dur, ev->tid, 2 * depth, "", text);
  }
  const struct asmspy_value v[] = {
      rv_int(ev->tid),       rv_int(ev->pid),        rv_int(depth),
      rv_str(what),          rv_str(name),           rv_str(module),
      rv_hex(func),          rv_int((int64_t)ts),    duration >= 0 ? rv_int(duration) : rv_absent(),
      rv_bool(unwound),      rv_str(dur),            rv_str(text),
  };
  if (line.oom) {
    if (!st->oom_noted) h->note(st->s->out, ASMSPY_NOTE_WARN, "calls: out of memory");
    st->oom_noted = 1;
  } else {
    rec_emit(h, st->s->out, &calls_records[0], v, want_text ? line.s : NULL);
  }
  free(line.s);
}

/* Close the top frame at time ts: a held-back entry becomes a leaf line. */
static void close_top(struct calls_state *st, struct thread *t, const struct asmspy_event *ev,
                      uint64_t ts, int unwound) {
  struct frame *f = &t->frames[--t->n];
  if (!f->in_focus) return;
  int64_t d = ts >= f->ts ? (int64_t)(ts - f->ts) : 0;
  print_line(st, ev, f->func, f->depth, f->printed ? "exit" : "leaf", d, ts, unwound);
}

/* The held-back entry on top (if any) now has a child: print its `{`. */
static void open_top(struct calls_state *st, struct thread *t, const struct asmspy_event *ev) {
  if (!t->n) return;
  struct frame *f = &t->frames[t->n - 1];
  if (f->printed || !f->in_focus) return;
  f->printed = 1;
  print_line(st, ev, f->func, f->depth, "entry", -1, f->ts, 0);
}

static int on_call(struct calls_state *st, const struct asmspy_event *ev) {
  struct thread *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  uint64_t slot = ev->u.call.slot, ts = ev->u.call.ts_ns;
  int is_entry = ev->u.call.what == ASMSPY_CALL_ENTRY;
  /* frames below this slot are gone (longjmp, a throw); on an exit, the
   * frame at this very slot is the one returning */
  while (t->n && t->frames[t->n - 1].slot < slot) close_top(st, t, ev, ts, 1);
  if (!is_entry) {
    if (t->n && t->frames[t->n - 1].slot == slot)
      close_top(st, t, ev, ts, (ev->flags & ASMSPY_EVF_CALL_UNWOUND) != 0);
    return ASMSPY_CONSUME_MORE;
  }
  /* a frame at this very slot returned without us seeing it, unless this
   * is a tail call (or a PLT stub's jump into its library): that nests
   * under the frame whose slot it reuses, as uftrace shows it, and both
   * exits come together */
  if (!(ev->flags & ASMSPY_EVF_CALL_TAIL))
    while (t->n && t->frames[t->n - 1].slot == slot) close_top(st, t, ev, ts, 0);
  const struct frame *parent = t->n ? &t->frames[t->n - 1] : NULL;
  struct frame f = {.slot = slot, .func = ev->u.call.func, .ts = ts};
  if (!st->focus) {
    f.in_focus = 1;
    f.depth = (int32_t)t->n;
  } else if (parent && parent->in_focus) {
    f.in_focus = 1;
    f.depth = parent->depth + 1;
  } else {
    char name[512];
    const char *module;
    name_of(st, ev, f.func, name, sizeof name, &module);
    f.in_focus = strstr(name, st->focus) != NULL;
    f.depth = 0;
  }
  if (st->max_depth && f.depth >= st->max_depth) f.in_focus = 0;
  open_top(st, t, ev);
  if (t->n == t->cap) {
    if (t->cap >= FRAMES_MAX) return ASMSPY_CONSUME_MORE; /* deeper than we track */
    size_t nc = t->cap ? t->cap * 2 : 32;
    struct frame *nf = realloc(t->frames, nc * sizeof *nf);
    if (!nf) return ASMSPY_CONSUME_MORE;
    t->frames = nf;
    t->cap = nc;
  }
  t->frames[t->n++] = f;
  if (f.in_focus) st->entries++;
  return st->want > 0 && st->entries >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

static int calls_consume(void *state, const struct asmspy_event *ev) {
  struct calls_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_CALL: return on_call(st, ev);
  case ASMSPY_EV_LOST: st->lost += ev->u.lost.count; return ASMSPY_CONSUME_MORE;
  default: return ASMSPY_CONSUME_MORE;
  }
}

static int calls_finish(void *state, int end_status) {
  struct calls_state *st = state;
  (void)end_status;
  if (st->lost)
    st->host->note(st->s->out, ASMSPY_NOTE_WARN,
                   "calls: %llu call records were lost (the reader fell behind)",
                   (unsigned long long)st->lost);
  return 0;
}

static int calls_configure(void *state, const struct asmspy_host_api *host,
                           struct asmspy_session *s) {
  (void)host;
  call_select_apply(&((struct calls_state *)state)->select, s);
  return 0;
}

static int calls_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, calls_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, calls_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  long max_depth = 0;
  if (ov.value[OPT_DEPTH]) {
    char *end = NULL;
    errno = 0;
    max_depth = strtol(ov.value[OPT_DEPTH], &end, 10);
    if (errno || *end || max_depth <= 0)
      return vo_refuse(host, s, calls_options, POSITIONALS,
                       "--depth must be a positive number of levels, got '%s'",
                       ov.value[OPT_DEPTH]);
  }
  struct call_select select;
  if (call_select_read(&ov, OPT_CALL_SELECT, &select) != 0)
    return vo_refuse(host, s, calls_options, POSITIONALS,
                     "--max-funcs must be a positive number of functions, got '%s'",
                     ov.value[OPT_CALL_SELECT + 3]);
  struct calls_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : CALLS_DEFAULT_N;
  st->max_depth = max_depth;
  st->focus = ov.value[OPT_FOCUS];
  st->select = select;
  *state = st;
  return 0;
}

static void calls_close(void *state) {
  struct calls_state *st = state;
  if (!st) return;
  for (size_t i = 0; i < st->nthreads; i++) free(st->threads[i].frames);
  free(st->threads);
  free(st);
}

static const struct asmspy_field call_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the thread"),
    RF_INT("pid", 1, 0, "its process"),
    RF_INT("depth", 0, 0, "printed depth (re-based under --focus)"),
    RF_ENUM("what", "entry|leaf|exit", 0,
            "entry: `name() {` (it called others); leaf: `name();` (entered and left, nothing "
            "recorded in between); exit: `} /* name */`"),
    RF_STR("name", 0, "the function (0x... when no symbol covers it)"),
    RF_STR("module", 0, "its module"),
    RF_HEX("addr", 0, "its entry address"),
    RF_INT("ts_ns", 0, 0, "CLOCK_MONOTONIC ns of the entry (entry) or of the exit (leaf, exit)"),
    RF_INT("duration_ns", 0, OPT, "leaf, exit: ns from entry to exit"),
    RF_BOOL("unwound", 0, "left without returning (longjmp, an exception)"),
    RF_STR("duration", 0, "the duration as printed (empty for an entry)"),
    RF_STR("text", 0, "the function column as printed"),
    RF_END,
};

static const struct asmspy_record_schema calls_records[2] = {
    {"call_log", "one line of the call log", call_fields, "{duration} [{tid}] | {*depth:  }{text}"},
    {.type = NULL},
};

static const struct asmspy_tui_entry calls_tui = {0, ASMSPY_TUI_CALLS, 0, "call log (durations)"};

static const struct asmspy_view_ops calls_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "calls",
    .caps_required = ASMSPY_CAP_CALLS,
    .usage = POSITIONALS,
    .open = calls_open,
    .consume = calls_consume,
    .finish = calls_finish,
    .close = calls_close,
    .configure = calls_configure,
    .options = calls_options,
    .records = calls_records,
    .tui = &calls_tui,
};

static const struct asmspy_plugin calls_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "calls",
    .description = "time-ordered call log with durations (uftrace replay), from a call backend",
    .caps = ASMSPY_CAP_CALLS,
    .view = &calls_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(calls_plugin)
