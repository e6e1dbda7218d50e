/* stream: the live instruction stream view (`asmspy --stream <pid> [n]`).
 * One line per executed instruction:
 *     function+0xoff [module]   <disasm>
 * prefixed [tid] while more than one task is followed, and always for a task
 * other than the session's own (a --follow child, down to its last step).
 * --json emits the same as `insn` events. Symbols and disassembly come from host services;
 * each instruction's rendered line is kept by address (struct line_ent), so
 * a hot loop costs one table hit and one copy per step. */
#define _GNU_SOURCE /* sigabbrev_np */
#include <asmspy/plugin.h>
#include "plugins/common/view_options.h"
#include "plugins/common/task_prefix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"
#include "plugins/common/task_record.h"

/* Its records (the `stream_records` table at the end of this file). */
enum { STREAM_REC_INSN, STREAM_REC_TASK, STREAM_REC_N };
static const struct asmspy_record_schema stream_records[STREAM_REC_N + 1];

#define STREAM_DEFAULT_N 20

/* One instruction's rendering, kept by address: a traced loop shows the
 * same few instructions over and over, and at code-cache speed (millions
 * per second) formatting, not capture, is the cost. An entry is valid for
 * the same target, address and bytes; an exec empties the cache (the same
 * bytes at the same address may then belong to another symbol). */
#define LINE_CACHE 4096u
struct line_ent {
  const struct asmspy_target *target;
  uint64_t ip;
  uint8_t bytes[16];
  uint8_t blen;
  uint8_t len; /* decoded length */
  uint8_t has_sym, valid;
  uint64_t off;
  char sym[128];
  char module[64];
  char disasm[128];
  char line[400]; /* "where [module] disasm", without the [tid] prefix */
};

struct stream_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want; /* negative: unlimited */
  int64_t shown;
  struct line_ent *lines; /* LINE_CACHE entries, direct-mapped by ip; NULL: none */
};

/* Its positionals (the CLI takes <pid> and n before the view sees the rest),
 * and its options: none of its own (the shared --tid/--follow/--json/...
 * are the CLI's). The table feeds parsing, --help, the man page, shell
 * completion and serve's checks. */
#define POSITIONALS "<pid> [n]"
static const struct asmspy_option stream_options[] = {
    {NULL, NULL, NULL},
};

static int stream_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                       void **state) {
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, stream_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, stream_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  struct stream_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : STREAM_DEFAULT_N;
  st->lines = calloc(LINE_CACHE, sizeof *st->lines); /* NULL: every line rendered anew */
  *state = st;
  return 0;
}

/* Render the instruction at ev into e (disassembly, symbol, the line). */
static void render(struct stream_state *st, const struct asmspy_event *ev, struct line_ent *e) {
  const struct asmspy_host_api *h = st->host;
  int len = h->disasm(ev->ip, ev->u.insn.bytes, ev->u.insn.len, e->disasm, sizeof e->disasm);
  if (len <= 0) len = ev->u.insn.len ? 1 : 0;
  e->len = (uint8_t)len;
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  sym.abi_version = ASMSPY_ABI_VERSION;
  sym.struct_size = sizeof sym;
  h->symbolize(ev->target, ev->ip, &sym);
  snprintf(e->module, sizeof e->module, "%s",
           sym.kind == ASMSPY_SYM_JIT ? "jit"
           : sym.module               ? sym.module
                                      : "?");
  e->has_sym = sym.name != NULL;
  snprintf(e->sym, sizeof e->sym, "%s", sym.name ? sym.name : "");
  e->off = sym.name ? sym.offset : 0;
  char where[144];
  if (sym.name)
    snprintf(where, sizeof where, "%.120s+0x%" PRIx64, sym.name, sym.offset);
  else
    snprintf(where, sizeof where, "0x%" PRIx64, ev->ip);
  char modcol[96];
  snprintf(modcol, sizeof modcol, "[%s]", e->module);
  snprintf(e->line, sizeof e->line, "%-20s %-24s %s", where, modcol, e->disasm);
  e->target = ev->target;
  e->ip = ev->ip;
  e->blen = ev->u.insn.len > sizeof e->bytes ? sizeof e->bytes : ev->u.insn.len;
  memcpy(e->bytes, ev->u.insn.bytes, e->blen);
  /* an address no module covers yet is looked up again next time: the
   * host learns a library's symbols a little after it is mapped */
  e->valid = sym.module != NULL;
}

/* The rendering of ev: from the cache when the same bytes at the same
 * address were rendered for the same target, else rendered now. */
static const struct line_ent *rendering(struct stream_state *st, const struct asmspy_event *ev,
                                        struct line_ent *scratch) {
  struct line_ent *e = st->lines ? &st->lines[(ev->ip ^ (ev->ip >> 12)) % LINE_CACHE] : scratch;
  uint8_t blen = ev->u.insn.len > sizeof e->bytes ? sizeof e->bytes : ev->u.insn.len;
  if (e->valid && e->ip == ev->ip && e->target == ev->target && e->blen == blen &&
      !memcmp(e->bytes, ev->u.insn.bytes, blen))
    return e;
  render(st, ev, e);
  return e;
}

static int stream_insn(struct stream_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  struct line_ent scratch;
  const struct line_ent *e = rendering(st, ev, &scratch);
  char text[448];
  size_t n = 0;
  if (task_prefixed(st->s, ev)) /* a child's last step too */
    n = (size_t)snprintf(text, sizeof text, "[%d] ", (int)ev->tid);
  size_t ll = strlen(e->line);
  if (n + ll >= sizeof text) ll = sizeof text - n - 1;
  memcpy(text + n, e->line, ll);
  text[n + ll] = 0;
  st->shown++;
  int done = st->want > 0 && st->shown >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
  const struct asmspy_value v[] = {
      rv_int(ev->tid),
      rv_hex(ev->ip),
      rv_str(e->has_sym ? e->sym : NULL), /* NULL: null */
      rv_int((int64_t)e->off),
      rv_str(e->module),
      rv_bytes(ev->u.insn.bytes, (size_t)e->len),
      rv_str(e->disasm),
  };
  rec_emit(h, st->s->out, &stream_records[STREAM_REC_INSN], v, text);
  return done;
}

static int stream_task(struct stream_state *st, const struct asmspy_event *ev) {
  if (ev->u.task.what == ASMSPY_TASK_EXEC && st->lines) /* another image: renderings go */
    memset(st->lines, 0, LINE_CACHE * sizeof *st->lines);
  const char *what = task_record_what(ev);
  char text[160];
  const struct asmspy_value v[] = {rv_str(what), rv_int(ev->tid), rv_int(ev->u.task.child),
                                   rv_int(ev->u.task.code)};
  /* u.task.code is the exit status, or -signal: said as strace says it
   * ("exited with 3", "killed by SIGTERM"), never as a bare negative number */
  if (ev->u.task.what == ASMSPY_TASK_EXIT && ev->u.task.code >= 0)
    snprintf(text, sizeof text, "# [%d] exited with %d", ev->tid, ev->u.task.code);
  else if (ev->u.task.what == ASMSPY_TASK_EXIT)
    snprintf(text, sizeof text, "# [%d] killed by SIG%s", ev->tid,
             sigabbrev_np(-ev->u.task.code) ? sigabbrev_np(-ev->u.task.code) : "?");
  else if (ev->u.task.what == ASMSPY_TASK_EXEC)
    snprintf(text, sizeof text, "# [%d] exec", ev->tid);
  else
    snprintf(text, sizeof text, "# [%d] %s -> %d", ev->tid, what, ev->u.task.child);
  rec_emit(st->host, st->s->out, &stream_records[STREAM_REC_TASK], v, text);
  return ASMSPY_CONSUME_MORE;
}

static int stream_consume(void *state, const struct asmspy_event *ev) {
  struct stream_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_INSN: return stream_insn(st, ev);
  case ASMSPY_EV_TASK: return stream_task(st, ev);
  default: return ASMSPY_CONSUME_MORE;
  }
}

static int stream_finish(void *state, int end_status) {
  (void)state;
  (void)end_status;
  return 0;
}

static void stream_close(void *state) {
  struct stream_state *st = state;
  if (st) free(st->lines);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field insn_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the thread"),
    RF_HEX("ip", INSN_ADDR, "the instruction's address"),
    RF_STR("sym", NUL, "the enclosing symbol (null: none covers it)"),
    RF_INT("off", 0, 0, "offset from the symbol"),
    RF_STR("module", 0, "mapping basename (jit for perf-map code)"),
    RF_BYTES("bytes", 1, 16, 0, "the instruction's bytes, hex"),
    RF_STR("disasm", INSN_TEXT, "Intel-syntax disassembly"),
    RF_END,
};

static const struct asmspy_record_schema stream_records[STREAM_REC_N + 1] = {
    [STREAM_REC_INSN] = {"insn", "one executed instruction", insn_fields,
                         "{-20:{?sym:{sym}+0x{off:x}|{ip}}} {-24:[{module}]} {disasm}"},
    [STREAM_REC_TASK] = {"task", TASK_RECORD_MEANING, task_record_fields, NULL},
    [STREAM_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry stream_tui = {'3', ASMSPY_TUI_FEED, 0,
                                                   "live instruction stream"};

static const struct asmspy_view_ops stream_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "stream",
    .caps_required = ASMSPY_CAP_INSN_STREAM,
    .usage = POSITIONALS,
    .open = stream_open,
    .consume = stream_consume,
    .finish = stream_finish,
    .close = stream_close,
    .options = stream_options,
    .option_caps = NULL,
    .records = stream_records,
    .tui = &stream_tui,
};

static const struct asmspy_plugin stream_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "stream",
    .description = "live instruction stream: function+off [module] and disassembly per step",
    .caps = ASMSPY_CAP_INSN_STREAM,
    .view = &stream_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(stream_plugin)
