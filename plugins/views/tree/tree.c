/* tree: the whole-process live call tree (`asmspy --tree <pid> [n]`).
 *
 * One line per verified call, `-> name [module]`, indented two spaces per
 * depth, prefixed [tid] while more than one task is followed, and always for a
 * task other than the session's own (plugins/common/task_prefix.h).
 *
 * Without exact sp (ASMSPY_SESS_EXACT_SP unset: intel_pt) calls and depth
 * follow control flow alone (callcheck.h, "flow mode"): a frame is keyed on
 * its return address and a ret reaching it pops it and every frame above.
 *
 * With exact sp (singlestep), depth is a real per-thread return-address
 * stack keyed on sp. A call is verified exactly like --graph does
 * it (plugins/common/callcheck.h): the thread's next event must sit one
 * slot below the sp the call ran with, with the call's fall-through on top of
 * the stack. A verified call pushes a frame {slot = sp at the callee's
 * entry}. Before each event every frame whose slot is below the current sp
 * is popped — a frame is live
 * exactly while sp <= slot — so a ret, a longjmp over many frames and a C++
 * unwind all pop correctly, while a signal handler (which runs below the
 * interrupted frame) leaves the frames beneath it intact.
 *
 * Filters bound what is printed, never what is tracked: uftrace's
 * --filter / --notrace / --depth, per thread as `uftrace replay` applies
 * them (plugins/common/call_filter.h; the printed depth is the number of
 * printed frames below, so a --filter match starts at column 0);
 * --focus=<sym> is a --filter=*sym*; --module=<globs> also prints only
 * callees in those modules (and on a call backend patches them). The
 * other call-backend options (--patch, --max-funcs) choose what is
 * patched. Names: plugins/common/call_filter.h (no parameter lists unless
 * --demangle=full). Functions the call backend could not trace
 * (ASMSPY_CALL_REFUSED) end the output as `not traced: f (why)` lines.
 * n counts the printed lines (default 40).
 * --json: one `call` event per printed line (tid, and pid: under --follow the
 * process a forked child's call ran in). --dot: at finish, a digraph of
 * the printed tree (one node per line, parent -> child). */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "plugins/common/task_prefix.h"
#include "common/strbuf.h"

#include "plugins/common/call_filter.h"
#include "plugins/common/call_select.h"
#include "plugins/common/callcheck.h"
#include "plugins/common/dot_out.h"
#include "plugins/common/signal_frame.h"
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

/* Its records (the `tree_records` table at the end of this file). */
enum { TREE_REC_CALL, TREE_REC_DOT, TREE_REC_NOT_TRACED, TREE_REC_N };
static const struct asmspy_record_schema tree_records[TREE_REC_N + 1];

#define TREE_DEFAULT_N 40
#define FRAMES_MAX (1u << 16) /* per thread; deeper frames are tracked no further */

/* ------------------------------------------------------------- state -- */

struct frame {
  uint64_t slot;       /* the return-address slot: live while sp <= slot;
                       * flow mode: the return address itself */
  struct cf_mark mark; /* the filters' state it changed (call_filter.h) */
  int32_t dot_id;      /* this frame's printed line, else the nearest printed ancestor's, -1 */
};

struct thread_state {
  struct cc_thread cc; /* first: the record of a struct cc_threads */
  struct frame *frames;
  size_t nframes, cap;
  struct cf_tstate fs;
};

struct dot_node {
  char *label;
  int32_t tid;
};
struct dot_edge {
  int32_t parent, child;
};

#define TREE_RET_MEMO 1024
struct ret_memo {
  uint64_t ret;
  int is_signal;
};

struct tree_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want; /* negative: unlimited */
  int64_t shown;
  struct call_select select;
  struct call_filter filter;
  struct cf_names names;
  struct cf_globs modules; /* --module: the callees printed */
  int dot;
  struct cc_threads threads; /* of struct thread_state */
  struct dot_node *dnodes;
  size_t ndnodes, dncap;
  struct dot_edge *dedges;
  size_t ndedges, decap;
  int many_threads; /* some event had nthreads > 1 */
  int deep_noted, oom_noted;
  struct ret_memo rets[TREE_RET_MEMO]; /* call events: signal trampolines seen */
};

/* Its positionals, and the options this mode accepts after them: parsing,
 * --help, the man page, shell completion and serve's checks read the table
 * (the index enum keeps open() in step with it). */
#define POSITIONALS "<pid> [n]"
enum { OPT_FOCUS, OPT_DOT, OPT_CALL_SELECT };
static const struct asmspy_option tree_options[] = {
    [OPT_FOCUS] = {"focus", "<sym>",
                   "only the subtrees rooted at calls of functions containing <sym>"},
    [OPT_DOT] = {"dot", NULL, "a Graphviz digraph instead of the indented tree"},
    CALL_SELECT_OPTIONS,
    {NULL, NULL, NULL},
};
#define OPT_MODULE (OPT_CALL_SELECT + 5)

/* ---------------------------------------------------------- helpers -- */

static void note_oom(struct tree_state *st) {
  if (st->oom_noted) return;
  st->oom_noted = 1;
  st->host->note(st->s->out, ASMSPY_NOTE_WARN, "--tree: out of memory; the tree is incomplete");
}

static struct thread_state *thread_for(struct tree_state *st, int32_t tid) {
  return (struct thread_state *)cc_thread_for(&st->threads, tid);
}

/* every frame ends through here: the filters' counts come back */
static void pop_frames_to(struct thread_state *t, size_t n) {
  while (t->nframes > n) cf_leave(&t->fs, &t->frames[--t->nframes].mark);
}

/* --module: a pattern without * ? [ is a substring (as the call backend reads it) */
static int module_printed(const struct tree_state *st, const char *module) {
  if (!st->modules.n) return 1;
  for (size_t i = 0; i < st->modules.n; i++) {
    const char *p = st->modules.pat[i];
    if (strpbrk(p, "*?[") ? cf_globs_match(&(struct cf_globs){NULL, &p, 1}, module)
                          : strstr(module, p) != NULL)
      return 1;
  }
  return 0;
}

static void forget_thread(struct tree_state *st, int32_t tid) {
  struct thread_state *t = (struct thread_state *)cc_thread_find(&st->threads, tid);
  if (!t) return;
  free(t->frames);
  cc_thread_remove(&st->threads, &t->cc);
}

static int push_frame(struct tree_state *st, struct thread_state *t, struct frame f) {
  if (t->nframes >= FRAMES_MAX) {
    if (!st->deep_noted) {
      st->deep_noted = 1;
      st->host->note(st->s->out, ASMSPY_NOTE_WARN,
                     "--tree: thread %d is more than %u frames deep; deeper frames are not tracked",
                     t->cc.tid, FRAMES_MAX);
    }
    return -1;
  }
  if (t->nframes == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 32;
    struct frame *nf = realloc(t->frames, nc * sizeof *nf);
    if (!nf) {
      note_oom(st);
      return -1;
    }
    t->frames = nf;
    t->cap = nc;
  }
  t->frames[t->nframes++] = f;
  return 0;
}

/* A printed line as a DOT node (and the edge from its printed parent). */
static int32_t dot_add(struct tree_state *st, const char *label, int32_t tid, int32_t parent) {
  if (st->ndnodes == st->dncap) {
    size_t nc = st->dncap ? st->dncap * 2 : 64;
    struct dot_node *nn = realloc(st->dnodes, nc * sizeof *nn);
    if (!nn) return -1;
    st->dnodes = nn;
    st->dncap = nc;
  }
  char *l = strdup(label);
  if (!l) return -1;
  int32_t id = (int32_t)st->ndnodes;
  st->dnodes[st->ndnodes++] = (struct dot_node){l, tid};
  if (parent >= 0) {
    if (st->ndedges == st->decap) {
      size_t nc = st->decap ? st->decap * 2 : 64;
      struct dot_edge *ne = realloc(st->dedges, nc * sizeof *ne);
      if (!ne) return id; /* the node stands; its edge is lost */
      st->dedges = ne;
      st->decap = nc;
    }
    st->dedges[st->ndedges++] = (struct dot_edge){parent, id};
  }
  return id;
}

/* ------------------------------------------------------------ events -- */

/* A verified call into ev->ip from `site`; its frame is keyed on `slot`
 * (see struct frame). Returns the consume verdict. */
static int on_call(struct tree_state *st, struct thread_state *t, const struct asmspy_event *ev,
                   uint64_t slot, uint64_t site, int leaf) {
  const struct asmspy_host_api *h = st->host;
  const struct cf_name *fn = cf_name_of(&st->names, ev->target, ev->ip);
  int named = fn->named;
  const char *name = fn->name;
  const char *module = fn->module;
  uint32_t kind = fn->kind;

  size_t depth = t->nframes; /* frames below this call on the thread's stack */
  const struct frame *parent = depth ? &t->frames[depth - 1] : NULL;
  struct frame f = {.slot = slot, .dot_id = parent ? parent->dot_id : -1};
  int shown = cf_enter(&st->filter, &t->fs, &f.mark, fn->match);
  long pdepth = f.mark.disp;
  /* a frame a forked child began inside (ASMSPY_EVF_CALL_INHERITED): its
   * calls go under it, as in the parent; its line is the parent's */
  int inherited = ev->type == ASMSPY_EV_CALL && (ev->flags & ASMSPY_EVF_CALL_INHERITED);
  int print = shown && !inherited && module_printed(st, module);
  int done = ASMSPY_CONSUME_MORE;

  if (print) {
    char mod[256], prefix[32] = "";
    module_col(mod, sizeof mod, module);
    if (task_prefixed(st->s, ev)) { /* a --follow child's last calls too */
      snprintf(prefix, sizeof prefix, "[%d] ", ev->tid);
      st->many_threads = 1;
    }
    if (st->dot) {
      char label[768];
      snprintf(label, sizeof label, "%s %s", name, mod);
      int32_t id = dot_add(st, label, ev->tid, f.dot_id);
      if (id < 0)
        note_oom(st);
      else
        f.dot_id = id;
    }
    int want_text = !st->dot && (!ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out));
    struct strbuf text = {0};
    if (want_text) strbuf_addf(&text, "%s%*s-> %s %s", prefix, (int)(2 * pdepth), "", name, mod);
    const struct asmspy_value v[] = {
        rv_int(ev->tid),
        rv_int(ev->pid),
        rv_int(pdepth),
        rv_int((int64_t)depth),
        named ? rv_strn(name, fn->name_len) : rv_null(),
        rv_str(module),
        rv_hex(ev->ip),
        rv_str(sym_kind_token(kind)),
        site ? rv_hex(site) : rv_absent(),
    };
    if (text.oom)
      note_oom(st);
    else
      rec_emit(h, st->s->out, &tree_records[TREE_REC_CALL], v, want_text ? text.s : NULL);
    free(text.s);
    st->shown++;
    if (st->want > 0 && st->shown >= st->want) done = ASMSPY_CONSUME_DONE;
  }
  /* entry only (ASMSPY_EVF_CALL_NOEXIT: setjmp, vfork): a leaf, no frame */
  if (leaf || push_frame(st, t, f) != 0) cf_leave(&t->fs, &f.mark); /* not tracked: undone now */
  return done;
}

static int on_insn(struct tree_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  struct thread_state *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  int done = ASMSPY_CONSUME_MORE;
  struct cc_pending pc;
  if (cc_flow_mode(st->s)) { /* flow mode */
    switch (cc_flow_step(&t->cc, h, ev, &pc)) {
    case CC_FLOW_CALL: return on_call(st, t, ev, pc.ft, pc.site, 0);
    case CC_FLOW_RET: /* pop to the frame whose return address this is, if any */
      for (size_t k = t->nframes; k-- > 0;)
        if (t->frames[k].slot == ev->ip) {
          pop_frames_to(t, k);
          break;
        }
      return done;
    default: return done;
    }
  }
  uint64_t sp;
  if (!cc_event_sp(ev, &sp)) return ASMSPY_CONSUME_MORE; /* nothing can be verified here */

  /* 1. pop every frame (and pending call) sp has risen above */
  size_t keep = t->nframes;
  while (keep && t->frames[keep - 1].slot < sp) keep--;
  pop_frames_to(t, keep);
  cc_drop_stale(&t->cc, sp);

  /* 2. a pending call that lands here: sp one slot down, its return address on top */
  if (cc_land(&t->cc, h, ev, sp, &pc)) done = on_call(st, t, ev, sp, pc.site, 0);

  /* 3. this instruction is a call: arm it */
  cc_arm(&t->cc, h, ev, sp);
  return done;
}

/* 1.9: a call backend reports entries and exits itself; frames nest by
 * their return slot exactly as in the sp-keyed mode: an entry or an exit
 * at slot s ends every frame at or below s (returned, or left by longjmp /
 * a throw); a tail call nests under the frame whose slot it reuses. */
/* Was this return address the kernel's signal trampoline? (remembered per
 * address: a read of target memory per call would be the hot path) */
static int signal_entry(struct tree_state *st, const struct asmspy_event *ev) {
  uint64_t ret = ev->u.call.ret;
  struct ret_memo *m = &st->rets[(ret ^ (ret >> 12)) & (TREE_RET_MEMO - 1)];
  if (m->ret != ret) {
    m->ret = ret;
    m->is_signal = ret_is_sigreturn(st->host, ev->target, ret);
  }
  return m->is_signal;
}

static int on_call_event(struct tree_state *st, const struct asmspy_event *ev) {
  if (ev->u.call.what == ASMSPY_CALL_REFUSED) {
    cf_refused(&st->names, ev);
    return ASMSPY_CONSUME_MORE;
  }
  struct thread_state *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  uint64_t slot = ev->u.call.slot;
  /* a handler the kernel entered: no call made it (stepping does not show
   * it either); its own calls nest where the interrupted code was */
  if (signal_entry(st, ev)) return ASMSPY_CONSUME_MORE;
  /* a tail call (a PLT stub's jump into its library too) nests under the
   * frame whose slot it reuses, as uftrace shows it; both end together */
  int tail = ev->u.call.what == ASMSPY_CALL_ENTRY && (ev->flags & ASMSPY_EVF_CALL_TAIL);
  size_t keep = t->nframes;
  while (keep && (tail ? t->frames[keep - 1].slot < slot : t->frames[keep - 1].slot <= slot))
    keep--;
  pop_frames_to(t, keep);
  if (ev->u.call.what != ASMSPY_CALL_ENTRY) return ASMSPY_CONSUME_MORE;
  /* the call site is not known here */
  return on_call(st, t, ev, slot, 0, (ev->flags & ASMSPY_EVF_CALL_NOEXIT) != 0);
}

static int on_task(struct tree_state *st, const struct asmspy_event *ev) {
  if (ev->u.task.what == ASMSPY_TASK_EXIT) {
    forget_thread(st, ev->tid);
  } else if (ev->u.task.what == ASMSPY_TASK_EXEC) {
    struct thread_state *t = thread_for(st, ev->tid);
    if (t) pop_frames_to(t, 0), t->cc.npend = 0; /* a new image, a new stack */
    cf_names_clear(&st->names);
  }
  return ASMSPY_CONSUME_MORE;
}

static int tree_consume(void *state, const struct asmspy_event *ev) {
  struct tree_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_INSN: return on_insn(st, ev);
  case ASMSPY_EV_CALL: return on_call_event(st, ev);
  case ASMSPY_EV_TASK: return on_task(st, ev);
  default: return ASMSPY_CONSUME_MORE;
  }
}

/* ------------------------------------------------------------ output -- */

/* --dot: the digraph of the tree printed so far, through host->emit. */
static int render_dot(struct tree_state *st) {
  const struct asmspy_host_api *h = st->host;
  struct strbuf b = {0};
  strbuf_addf(&b, "digraph asmspy_calltree {\n");
  strbuf_addf(&b, "  label=\"asmspy call tree: pid %d, %zu calls\";\n", (int)st->s->pid,
              st->ndnodes);
  dot_layout(&b, "rounded");
  for (size_t i = 0; i < st->ndnodes; i++) {
    strbuf_addf(&b, "  c%zu [label=\"", i);
    if (st->many_threads) strbuf_addf(&b, "[%d] ", st->dnodes[i].tid);
    add_dot_str(&b, st->dnodes[i].label);
    strbuf_addf(&b, "\"];\n");
  }
  for (size_t i = 0; i < st->ndedges; i++)
    strbuf_addf(&b, "  c%d -> c%d;\n", st->dedges[i].parent, st->dedges[i].child);
  strbuf_addf(&b, "}");
  if (b.oom) {
    note_oom(st);
    free(b.s);
    return 0;
  }
  const struct asmspy_value v[] = {rv_str("dot"), rv_int((int64_t)st->ndnodes),
                                   rv_int((int64_t)st->ndedges)};
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  rec_emit(h, st->s->out, &tree_records[TREE_REC_DOT], v, want_text ? b.s : NULL);
  free(b.s);
  return 0;
}

static int tree_finish(void *state, int end_status) {
  struct tree_state *st = state;
  cf_emit_not_traced_all(st->host, st->s->out, &tree_records[TREE_REC_NOT_TRACED], &st->names);
  if (!st->dot) return 0;
  if (end_status < 0 && st->ndnodes == 0) return 0; /* nothing was traced */
  return render_dot(st);
}

/* What finish() would render now: the digraph with --dot. Without it the
 * tree is a feed (its `call` lines are the output) and there is nothing to
 * re-render, so a snapshot emits nothing. */
static int tree_snapshot(void *state) {
  struct tree_state *st = state;
  return st->dot ? render_dot(st) : 0;
}

/* -------------------------------------------------------------- view -- */

static int tree_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                     void **state) {
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, tree_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, tree_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  struct call_select select;
  if (call_select_read(&ov, OPT_CALL_SELECT, &select) != 0) {
    call_select_free(&select);
    return vo_refuse(host, s, tree_options, POSITIONALS,
                     "--max-funcs must be a positive number of functions, got '%s'",
                     ov.value[OPT_CALL_SELECT + 6]);
  }
  struct tree_state *st = calloc(1, sizeof *st);
  if (!st) {
    call_select_free(&select);
    return -ASMSPY_E_NOMEM;
  }
  char err[256];
  if (cf_init(&st->filter, select.include, select.exclude, ov.value[OPT_FOCUS], select.depth,
              select.demangle, err, sizeof err) != 0 ||
      cf_globs_parse(&st->modules, ov.value[OPT_MODULE]) != 0) {
    call_select_free(&select);
    cf_free(&st->filter);
    free(st);
    return vo_refuse(host, s, tree_options, POSITIONALS, "%s", err);
  }
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : TREE_DEFAULT_N;
  st->select = select;
  st->dot = ov.value[OPT_DOT] != NULL;
  st->threads.elem_size = sizeof(struct thread_state);
  cf_names_init(&st->names, host, &st->filter);
  *state = st;
  return 0;
}

/* It runs on the same call backend as --calls: every selection option. */
static int tree_configure(void *state, const struct asmspy_host_api *host,
                          struct asmspy_session *s) {
  (void)host;
  call_select_apply(&((struct tree_state *)state)->select, s);
  return 0;
}

static void tree_close(void *state) {
  struct tree_state *st = state;
  if (!st) return;
  for (size_t i = 0; i < st->threads.n; i++)
    free(((struct thread_state *)cc_thread_at(&st->threads, i))->frames);
  free(st->threads.v);
  for (size_t i = 0; i < st->ndnodes; i++) free(st->dnodes[i].label);
  free(st->dnodes);
  free(st->dedges);
  cf_names_free(&st->names);
  cf_free(&st->filter);
  cf_globs_free(&st->modules);
  call_select_free(&st->select);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field call_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the calling thread"),
    RF_INT("pid", 1, OPT, "the calling thread's process (a forked child's under --follow)"),
    RF_INT("depth", 0, 0, "printed depth (printed frames below it: re-based under --filter)"),
    RF_INT("stack_depth", 0, OPT, "live frames on the thread's real stack"),
    RF_STR("name", NUL, "the callee (null: no symbol)"),
    RF_STR("module", 0, "the callee's module"),
    RF_HEX("addr", OPT | ASMSPY_FIELDF_DRILL_FUNC, "the called address"),
    RF_ENUM("kind", "internal|external|jit|unknown", OPT, "what kind of code the callee is"),
    RF_HEX("site", OPT, "the call instruction's address"),
    RF_END,
};
static const struct asmspy_field dot_fields[] = {
    RF_ENUM("format", "dot", 0, "the human text is a Graphviz digraph"),
    RF_INT("nodes", 0, 0, "node count of the digraph"),
    RF_INT("edges", 0, 0, "edge count of the digraph"),
    RF_END,
};

static const struct asmspy_record_schema tree_records[TREE_REC_N + 1] = {
    [TREE_REC_CALL] = {"call", "one verified call, printed as it happens", call_fields,
                       "{*depth:  }-> {?name:{name}|?} [{module}]"},
    [TREE_REC_DOT] = {"tree", "--dot: the digraph of the calls printed (one, at the end)",
                      dot_fields, NULL},
    [TREE_REC_NOT_TRACED] = CF_NOT_TRACED_SCHEMA,
    [TREE_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry tree_tui = {'5', ASMSPY_TUI_CALLS, 0, "call tree"};

static const struct asmspy_view_ops tree_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "tree",
    .caps_required = ASMSPY_CAP_INSN_STREAM,
    .usage = POSITIONALS,
    .open = tree_open,
    .consume = tree_consume,
    .finish = tree_finish,
    .snapshot = tree_snapshot,
    .close = tree_close,
    .configure = tree_configure,
    .caps_wanted = ASMSPY_CAP_EXACT_SP, /* sp-keyed frames; flow mode without */
    .options = tree_options,
    .option_caps = NULL,
    .records = tree_records,
    .tui = &tree_tui,
    .caps_alternative = ASMSPY_CAP_CALLS, /* entrypatch: entries and exits */
};

static const struct asmspy_plugin tree_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "tree",
    .description = "whole-process live call tree: verified calls indented by a real call stack",
    .caps = ASMSPY_CAP_INSN_STREAM,
    .view = &tree_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(tree_plugin)
