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
 * a closing line (`} ` + the name in a C comment) with the duration. Frames
 * nest by their return slot (the stack grows down): an entry or exit at
 * slot s first closes every open frame whose slot is below s — those frames
 * are gone (longjmp or an exception, through traced functions or not): the
 * closing comment says `name: unwound`.
 *
 * The whole story: a call that never returns is closed when its thread
 * exits or execs (ASMSPY_EV_TASK): `} (* f: no return (exit) *)`; calls
 * still open when the session ends print `} (* f: still running at
 * detach *)` (or `no return (exit)` when the target exited without its
 * threads' exits being reported); the functions the backend could not
 * trace (ASMSPY_CALL_REFUSED) end the log as `not traced: f (why)` lines.
 *
 * uftrace's filters (--filter / --notrace / --depth, plugins/common/
 * call_filter.h) decide what is printed, per thread, as `uftrace replay`
 * does; --focus=<sym> is a --filter=*sym*; the selection options (--patch,
 * --module, --max-funcs) choose what the backend patches. n counts printed
 * entries (default 200; negative = until the target exits or Ctrl-C).
 * --json: one `call_log` record per printed line, `not_traced` per refused
 * function.
 *
 * Speed: each function is symbolized and named once (call_filter.c's
 * cache), each thread's `[  tid] | ` column is formatted once, a line is
 * formatted by hand (no printf). When nobody reads the typed values (text
 * to a file or a pipe: the common case, and the fast one), the lines are
 * formatted straight into a 64 KiB batch handed to the host's writer in
 * one emit (one sanitizing scan and one fwrite per batch instead of per
 * line): the batch goes out when full, when it holds lines older than
 * CALLS_BATCH_NS of the target's time, before anything else is written, and
 * at the end. To a terminal the lines go out one by one, as they come. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include "plugins/common/call_filter.h"
#include "plugins/common/call_select.h"
#include "plugins/common/record_emit.h"
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALLS_DEFAULT_N 200
#define LINE_MAX_BYTES 4096                /* one line at most (depth and name are capped) */
#define BATCH_BYTES (64u * 1024u)          /* lines handed to the writer at once */
#define CALLS_BATCH_NS (100ull * 1000000u) /* a batched line waits at most this (target time) */
#define FRAMES_MAX 4096

enum { REC_CALL, REC_NOT_TRACED, REC_N };
static const struct asmspy_record_schema calls_records[REC_N + 1];

#define POSITIONALS "<pid> [n]"
enum { OPT_FOCUS, OPT_CALL_SELECT };
static const struct asmspy_option calls_options[] = {
    [OPT_FOCUS] = {"focus", "<sym>", "only the calls under functions whose name contains <sym>"},
    CALL_SELECT_OPTIONS,
    {NULL, NULL, NULL},
};

struct frame {
  uint64_t slot, ts;
  const struct cf_name *fn;
  struct cf_mark mark;
  int32_t shown_parent; /* the nearest shown frame below it, -1 */
  uint8_t printed;      /* its `name() {` line is out (else: held back, a leaf so far) */
  uint8_t inherited;    /* a frame the thread began inside (ASMSPY_EVF_CALL_INHERITED:
                           a forked child's copy of its parent's): opened in the
                           parent's log, closed here only if it returns here */
};

struct thread {
  int32_t tid, pid;
  char tidcol[24]; /* ` [  4242] | `, formatted once */
  uint8_t tidcol_len;
  struct frame *frames;
  size_t n, cap;
  struct cf_tstate fs;
  int32_t top_shown; /* index of the top shown frame, -1 */
};

/* why a frame ends */
enum close_why { C_RETURN, C_UNWOUND, C_EXIT, C_EXEC, C_DETACH, C_NOEXIT };

struct calls_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want, entries;
  struct call_select select;
  struct call_filter filter;
  struct cf_names names;
  struct thread *threads;
  size_t nthreads, tcap;
  size_t last; /* the thread of the last event (most events come from it) */
  int header_done, oom_noted;
  uint64_t lost;
  /* what the writer wants, asked once: -1 not asked yet */
  int want_text, text_only;
  /* the batch (text_only, not to a terminal): lines separated by '\n',
   * the last one without it (the writer adds it) */
  char *batch;
  size_t blen;
  uint64_t batch_ts; /* the target's time of its first line */
  uint64_t now_ts;   /* the target's time of the event being consumed */
  char line[LINE_MAX_BYTES];
};

/* ---- hand formatting (no printf on the per-call path) ---- */

static char *put_udec(char *p, uint64_t v, int w);

static char *put_str(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}

/* ` [%6d] | ` (a negative tid: `-` and 5 digits) */
static void tid_column(struct thread *t) {
  char *p = t->tidcol;
  p = put_str(p, " [", 2);
  if (t->tid >= 0) {
    p = put_udec(p, (uint64_t)t->tid, 6);
  } else {
    *p++ = '-';
    p = put_udec(p, (uint64_t) - (int64_t)t->tid, 5);
  }
  p = put_str(p, "] | ", 4);
  t->tidcol_len = (uint8_t)(p - t->tidcol);
}

static struct thread *thread_for(struct calls_state *st, int32_t tid, int32_t pid) {
  if (st->last < st->nthreads && st->threads[st->last].tid == tid) return &st->threads[st->last];
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) return &st->threads[st->last = i];
  if (st->nthreads == st->tcap) {
    size_t nc = st->tcap ? st->tcap * 2 : 16;
    struct thread *nt = realloc(st->threads, nc * sizeof *nt);
    if (!nt) return NULL;
    st->threads = nt;
    st->tcap = nc;
  }
  struct thread *t = &st->threads[st->nthreads];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->pid = pid;
  t->top_shown = -1;
  tid_column(t);
  st->last = st->nthreads++;
  return t;
}

/* v right-aligned in width w (v < 10^w assumed, else printed wider) */
static char *put_udec(char *p, uint64_t v, int w) {
  char tmp[24];
  int n = 0;
  do tmp[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  for (int i = n; i < w; i++) *p++ = ' ';
  while (n) *p++ = tmp[--n];
  return p;
}

/* "%8.3f us" / ms / " s" like uftrace, from integer ns */
static char *put_duration(char *p, uint64_t ns) {
  uint64_t whole, frac;
  const char *unit;
  if (ns < 1000000ull) {
    whole = ns / 1000, frac = ns % 1000, unit = " us";
  } else if (ns < 1000000000ull) {
    uint64_t r = (ns + 500) / 1000; /* us, rounded to the printed 3 decimals of ms */
    whole = r / 1000, frac = r % 1000, unit = " ms";
  } else {
    uint64_t r = (ns + 500000) / 1000000;
    whole = r / 1000, frac = r % 1000, unit = "  s";
  }
  if (whole < 10000) { /* the usual case, without the general loop */
    p[0] = whole >= 1000 ? (char)('0' + whole / 1000) : ' ';
    p[1] = whole >= 100 ? (char)('0' + whole / 100 % 10) : ' ';
    p[2] = whole >= 10 ? (char)('0' + whole / 10 % 10) : ' ';
    p[3] = (char)('0' + whole % 10);
    p += 4;
  } else {
    p = put_udec(p, whole, 4);
  }
  *p++ = '.';
  *p++ = (char)('0' + frac / 100);
  *p++ = (char)('0' + frac / 10 % 10);
  *p++ = (char)('0' + frac % 10);
  return put_str(p, unit, 3);
}

static const char *const close_note[] = {
    [C_RETURN] = NULL,
    [C_UNWOUND] = "unwound",
    [C_EXIT] = "no return (exit)",
    [C_EXEC] = "no return (exec)",
    [C_DETACH] = "still running at detach",
    [C_NOEXIT] = NULL, /* entry only (setjmp, vfork): a leaf with no duration */
};
static const char *const ended_token[] = {
    [C_EXIT] = "exit", [C_EXEC] = "exec", [C_DETACH] = "detach"};
static const char *const what_token[] = {"entry", "leaf", "exit"};
enum { W_ENTRY, W_LEAF, W_EXIT };

/* The batch to the writer (the writer ends its last line). */
static void flush_batch(struct calls_state *st) {
  if (!st->blen) return;
  st->batch[st->blen - 1] = 0; /* its last '\n' */
  st->host->emit(st->s->out, calls_records[REC_CALL].type, NULL, st->batch);
  st->blen = 0;
}

/* Ask the writer once what it wants; text alone (nobody reads the typed
 * values) is batched unless it goes to a terminal. */
static void ask_writer(struct calls_state *st) {
  const struct asmspy_host_api *h = st->host;
  st->want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  st->text_only = st->want_text && ASMSPY_HAS(h, wants_values) && h->wants_values &&
                  !h->wants_values(st->s->out);
  if (st->text_only && !isatty(STDOUT_FILENO)) st->batch = malloc(BATCH_BYTES);
}

/* One printed line. duration < 0: none (an entry, a call that never
 * returned). */
static void print_line(struct calls_state *st, const struct thread *t, const struct cf_name *fn,
                       int32_t depth, int what, int64_t duration, uint64_t ts, enum close_why why) {
  const struct asmspy_host_api *h = st->host;
  if (depth > 500) depth = 500; /* the line buffer's bound */
  if (st->want_text < 0) ask_writer(st);
  char *line = st->line;
  if (st->batch) {
    /* room for the longest line; lines not older than CALLS_BATCH_NS */
    if (st->blen &&
        (st->blen > BATCH_BYTES - LINE_MAX_BYTES || st->now_ts - st->batch_ts > CALLS_BATCH_NS))
      flush_batch(st);
    if (!st->blen) st->batch_ts = st->now_ts;
    line = st->batch + st->blen;
  }
  char *p = line;
  if (st->want_text && !st->header_done) { /* uftrace's column header rides on the first line */
    static const char hdr[] = "# DURATION     TID     FUNCTION\n";
    p = put_str(p, hdr, sizeof hdr - 1);
    st->header_done = 1;
  }
  char *dur = p;
  if (duration >= 0)
    p = put_duration(p, (uint64_t)duration);
  else
    p = put_str(p, "           ", 11);
  size_t dur_len = (size_t)(p - dur);
  p = put_str(p, t->tidcol, t->tidcol_len);
  /* the indent 16 spaces a store: the bytes past it are overwritten below
   * (LINE_MAX_BYTES has room for the overshoot) */
  static const char spaces[16] = "                ";
  for (int32_t k = 0; k < depth * 2; k += 16) memcpy(p + k, spaces, 16);
  p += depth * 2;
  char *text = p;
  size_t nlen = fn->name_len < 1024 ? fn->name_len : 1024;
  const char *note = close_note[why];
  if (what == W_EXIT) {
    p = put_str(p, "} /* ", 5);
    p = put_str(p, fn->name, nlen);
    if (note) p = put_str(p, ": ", 2), p = put_str(p, note, strlen(note));
    p = put_str(p, " */", 3);
  } else {
    p = put_str(p, fn->name, nlen);
    /* --demangle=full: the name carries its parameter list already */
    if (!(st->filter.full_names && memchr(fn->name, '(', nlen))) p = put_str(p, "()", 2);
    if (what == W_ENTRY) {
      p = put_str(p, " {", 2);
    } else {
      *p++ = ';';
      if (note)
        p = put_str(p, " /* ", 4), p = put_str(p, note, strlen(note)), p = put_str(p, " */", 3);
    }
  }
  if (st->batch) {
    *p++ = '\n';
    st->blen = (size_t)(p - st->batch);
    return;
  }
  *p = 0;
  size_t text_len = (size_t)(p - text);
  if (st->text_only) {
    /* nobody reads the typed record (text to a terminal): the line alone,
     * without building 13 values per call */
    h->emit(st->s->out, calls_records[REC_CALL].type, NULL, line);
    return;
  }
  const struct asmspy_value v[] = {
      rv_int(t->tid),
      rv_int(t->pid),
      rv_int(depth),
      rv_strn(what_token[what], strlen(what_token[what])),
      rv_strn(fn->name, nlen),
      rv_str(fn->module),
      rv_hex(fn->addr),
      rv_int((int64_t)ts),
      duration >= 0 ? rv_int(duration) : rv_absent(),
      rv_bool(why == C_UNWOUND),
      duration >= 0 ? rv_strn(dur, dur_len) : rv_strn("", 0),
      rv_strn(text, text_len),
      why >= C_EXIT && why <= C_DETACH ? rv_str(ended_token[why]) : rv_absent(),
  };
  rec_emit(h, st->s->out, &calls_records[REC_CALL], v, st->want_text ? line : NULL);
}

/* Close the top frame at time ts (ts 0: unknown, no duration). */
static void close_top(struct calls_state *st, struct thread *t, uint64_t ts, enum close_why why) {
  struct frame *f = &t->frames[--t->n];
  if ((f->mark.flags & CF_F_SHOWN) && f->inherited && why >= C_EXIT) {
    t->top_shown = f->shown_parent; /* the parent's log has its story */
  } else if (f->mark.flags & CF_F_SHOWN) {
    /* an inherited frame's entry time is not known here: no duration
     * (uftrace prints the child's `} fork` so too) */
    int64_t d = why >= C_EXIT || f->inherited ? -1 : ts >= f->ts ? (int64_t)(ts - f->ts) : 0;
    print_line(st, t, f->fn, f->mark.disp, f->printed ? W_EXIT : W_LEAF, d, ts ? ts : f->ts, why);
    t->top_shown = f->shown_parent;
  }
  cf_leave(&t->fs, &f->mark);
}

static void close_all(struct calls_state *st, struct thread *t, enum close_why why) {
  while (t->n) close_top(st, t, 0, why);
}

static int on_call(struct calls_state *st, const struct asmspy_event *ev) {
  if (ev->u.call.what == ASMSPY_CALL_REFUSED) {
    cf_refused(&st->names, ev);
    return ASMSPY_CONSUME_MORE;
  }
  if (ev->u.call.what != ASMSPY_CALL_ENTRY && ev->u.call.what != ASMSPY_CALL_EXIT)
    return ASMSPY_CONSUME_MORE;
  struct thread *t = thread_for(st, ev->tid, ev->pid);
  if (!t) return ASMSPY_CONSUME_MORE;
  uint64_t slot = ev->u.call.slot, ts = ev->u.call.ts_ns;
  st->now_ts = ts;
  int is_entry = ev->u.call.what == ASMSPY_CALL_ENTRY;
  /* entry only (ASMSPY_EVF_CALL_NOEXIT: setjmp, vfork, too deep to hook):
   * no exit will come, so it is a leaf now */
  int noexit = is_entry && (ev->flags & ASMSPY_EVF_CALL_NOEXIT);
  /* the stack grows down: an open frame whose return slot is below this
   * event's slot is gone (longjmp, a throw — through traced functions or
   * not); on an exit, the frame at this very slot is the one returning */
  while (t->n && t->frames[t->n - 1].slot < slot) close_top(st, t, ts, C_UNWOUND);
  if (!is_entry) {
    if (t->n && t->frames[t->n - 1].slot == slot)
      close_top(st, t, ts, (ev->flags & ASMSPY_EVF_CALL_UNWOUND) ? C_UNWOUND : C_RETURN);
    return ASMSPY_CONSUME_MORE;
  }
  /* a frame at this very slot returned without us seeing it, unless this
   * is a tail call (or a PLT stub's jump into its library): that nests
   * under the frame whose slot it reuses, as uftrace shows it, and both
   * exits come together */
  if (!(ev->flags & ASMSPY_EVF_CALL_TAIL))
    while (t->n && t->frames[t->n - 1].slot == slot) close_top(st, t, ts, C_RETURN);
  if (t->n == t->cap) {
    if (t->cap >= FRAMES_MAX) return ASMSPY_CONSUME_MORE; /* deeper than we track */
    size_t nc = t->cap ? t->cap * 2 : 32;
    struct frame *nf = realloc(t->frames, nc * sizeof *nf);
    if (!nf) return ASMSPY_CONSUME_MORE;
    t->frames = nf;
    t->cap = nc;
  }
  struct frame *f = &t->frames[t->n];
  f->slot = slot;
  f->ts = ts;
  f->fn = cf_name_of(&st->names, ev->target, ev->u.call.func);
  f->printed = 0;
  f->inherited = 0;
  f->shown_parent = t->top_shown;
  int shown = cf_enter(&st->filter, &t->fs, &f->mark, f->fn->match);
  t->n++;
  if (ev->flags & ASMSPY_EVF_CALL_INHERITED) {
    /* a frame the thread began inside (a forked child): its calls go under
     * it, at the depth and with the filter state the parent had; its line
     * is the parent's */
    f->inherited = 1;
    f->printed = 1;
    if (shown) t->top_shown = (int32_t)(t->n - 1);
    if (noexit) close_top(st, t, 0, C_NOEXIT);
    return ASMSPY_CONSUME_MORE;
  }
  if (!shown) {
    if (noexit) close_top(st, t, 0, C_NOEXIT);
    return ASMSPY_CONSUME_MORE;
  }
  /* the held-back shown frame below now has a child: print its `{` */
  if (t->top_shown >= 0) {
    struct frame *pf = &t->frames[t->top_shown];
    if (!pf->printed) {
      pf->printed = 1;
      print_line(st, t, pf->fn, pf->mark.disp, W_ENTRY, -1, pf->ts, C_RETURN);
    }
  }
  t->top_shown = (int32_t)(t->n - 1);
  st->entries++;
  if (noexit) close_top(st, t, 0, C_NOEXIT);
  return st->want > 0 && st->entries >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

static void forget_thread(struct calls_state *st, struct thread *t) {
  free(t->frames);
  size_t i = (size_t)(t - st->threads);
  st->threads[i] = st->threads[--st->nthreads];
  st->last = 0;
}

/* A thread exited or exec'd: what it had open never returns. */
static int on_task(struct calls_state *st, const struct asmspy_event *ev) {
  uint32_t what = ev->u.task.what;
  if (what != ASMSPY_TASK_EXIT && what != ASMSPY_TASK_EXEC) return ASMSPY_CONSUME_MORE;
  for (size_t i = 0; i < st->nthreads; i++) {
    struct thread *t = &st->threads[i];
    /* an exec ends every thread of its process (the others vanish) */
    if (t->tid != ev->tid && !(what == ASMSPY_TASK_EXEC && t->pid == ev->pid)) continue;
    close_all(st, t, what == ASMSPY_TASK_EXIT ? C_EXIT : C_EXEC);
    if (what == ASMSPY_TASK_EXIT) {
      forget_thread(st, t);
      break;
    }
    t->fs = (struct cf_tstate){0};
    t->top_shown = -1;
  }
  if (what == ASMSPY_TASK_EXEC) cf_names_clear(&st->names); /* a new image, new addresses */
  return ASMSPY_CONSUME_MORE;
}

static int calls_consume(void *state, const struct asmspy_event *ev) {
  struct calls_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_CALL: return on_call(st, ev);
  case ASMSPY_EV_TASK: return on_task(st, ev);
  case ASMSPY_EV_LOST: st->lost += ev->u.lost.count; return ASMSPY_CONSUME_MORE;
  default: return ASMSPY_CONSUME_MORE;
  }
}

static int calls_finish(void *state, int end_status) {
  struct calls_state *st = state;
  /* what is still open: the target exited without its threads' exits
   * being reported (no return), or we leave it running */
  enum close_why why = end_status == ASMSPY_FACT_EXITED ? C_EXIT : C_DETACH;
  for (size_t i = 0; i < st->nthreads; i++) close_all(st, &st->threads[i], why);
  flush_batch(st);
  cf_emit_not_traced_all(st->host, st->s->out, &calls_records[REC_NOT_TRACED], &st->names);
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
  struct call_select select;
  if (call_select_read(&ov, OPT_CALL_SELECT, &select) != 0) {
    call_select_free(&select);
    return vo_refuse(host, s, calls_options, POSITIONALS,
                     "--max-funcs must be a positive number of functions, got '%s'",
                     ov.value[OPT_CALL_SELECT + 6]);
  }
  struct calls_state *st = calloc(1, sizeof *st);
  if (!st) {
    call_select_free(&select);
    return -ASMSPY_E_NOMEM;
  }
  char err[256];
  if (cf_init(&st->filter, select.include, select.exclude, ov.value[OPT_FOCUS], select.depth,
              select.demangle, err, sizeof err) != 0) {
    call_select_free(&select);
    free(st);
    return vo_refuse(host, s, calls_options, POSITIONALS, "%s", err);
  }
  st->host = host;
  st->s = s;
  st->want_text = -1;
  st->want = s->max ? s->max : CALLS_DEFAULT_N;
  st->select = select;
  cf_names_init(&st->names, host, &st->filter);
  *state = st;
  return 0;
}

static void calls_close(void *state) {
  struct calls_state *st = state;
  if (!st) return;
  flush_batch(st); /* finish() does it; a run cut short may not reach it */
  free(st->batch);
  for (size_t i = 0; i < st->nthreads; i++) free(st->threads[i].frames);
  free(st->threads);
  cf_names_free(&st->names);
  cf_free(&st->filter);
  call_select_free(&st->select);
  free(st);
}

static const struct asmspy_field call_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the thread"),
    RF_INT("pid", 1, 0, "its process"),
    RF_INT("depth", 0, 0,
           "printed depth (shown frames below it: re-based under --filter / --focus)"),
    RF_ENUM("what", "entry|leaf|exit", 0,
            "entry: `name() {` (it called others); leaf: `name();` (entered and left, nothing "
            "recorded in between); exit: `} /* name */`"),
    RF_STR("name", 0, "the function (0x... when no symbol covers it)"),
    RF_STR("module", 0, "its module"),
    RF_HEX("addr", ASMSPY_FIELDF_DRILL_FUNC, "its entry address"),
    RF_INT("ts_ns", 0, 0, "CLOCK_MONOTONIC ns of the entry (entry) or of the exit (leaf, exit)"),
    RF_INT("duration_ns", 0, OPT, "leaf, exit: ns from entry to exit"),
    RF_BOOL("unwound", 0, "left without returning (longjmp, an exception)"),
    RF_STR("duration", 0, "the duration as printed (empty for an entry)"),
    RF_STR("text", 0, "the function column as printed"),
    RF_ENUM("ended", "exit|exec|detach", OPT,
            "a call that never returned: its thread exited (exit) or exec'd (exec), or it was "
            "still running when the session ended (detach)"),
    RF_END,
};

static const struct asmspy_record_schema calls_records[REC_N + 1] = {
    [REC_CALL] = {"call_log", "one line of the call log", call_fields,
                  "{duration} [{tid}] | {*depth:  }{text}"},
    [REC_NOT_TRACED] = CF_NOT_TRACED_SCHEMA,
    [REC_N] = {.type = NULL},
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
