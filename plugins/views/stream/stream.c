/* stream: the live instruction stream view (`asmspy --stream <pid> [n]`).
 * One line per executed instruction:
 *     function+0xoff [module]   <disasm>
 * prefixed [tid] while more than one task is followed, and always for a task
 * other than the session's own (a --follow child, down to its last step).
 * --json emits the same as `insn` events. Symbols and disassembly come from host services,
 * both cached per address there, so a hot loop costs a table hit per step. */
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

struct stream_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want; /* negative: unlimited */
  int64_t shown;
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
  *state = st;
  return 0;
}

static int stream_insn(struct stream_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  char disasm[128];
  int len = h->disasm(ev->ip, ev->u.insn.bytes, ev->u.insn.len, disasm, sizeof disasm);
  if (len <= 0) len = ev->u.insn.len ? 1 : 0;

  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  sym.abi_version = ASMSPY_ABI_VERSION;
  sym.struct_size = sizeof sym;
  h->symbolize(ev->target, ev->ip, &sym);
  const char *module = sym.kind == ASMSPY_SYM_JIT ? "jit" : sym.module ? sym.module : "?";

  char where[160];
  if (sym.name)
    snprintf(where, sizeof where, "%s+0x%" PRIx64, sym.name, sym.offset);
  else
    snprintf(where, sizeof where, "0x%" PRIx64, ev->ip);
  char modcol[96];
  snprintf(modcol, sizeof modcol, "[%s]", module);

  char prefix[32];
  task_prefix(st->s, ev, prefix, sizeof prefix); /* a child's last step too */
  char text[512];
  snprintf(text, sizeof text, "%s%-20s %-24s %s", prefix, where, modcol, disasm);
  st->shown++;
  int done = st->want > 0 && st->shown >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
  const struct asmspy_value v[] = {
      rv_int(ev->tid),
      rv_hex(ev->ip),
      rv_str(sym.name), /* NULL: null */
      rv_int((int64_t)(sym.name ? sym.offset : 0)),
      rv_str(module),
      rv_bytes(ev->u.insn.bytes, (size_t)len),
      rv_str(disasm),
  };
  rec_emit(h, st->s->out, &stream_records[STREAM_REC_INSN], v, text);
  return done;
}

static int stream_task(struct stream_state *st, const struct asmspy_event *ev) {
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

static void stream_close(void *state) { free(state); }

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
