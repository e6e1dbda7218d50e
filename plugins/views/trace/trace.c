/* trace: one function's executed assembly per invocation
 * (`asmspy --trace <pid> <sym|0xADDR[:LEN]|0xADDR+LEN> [n] [--tid=<t>]`).
 *
 * A region session: the backend runs the target to the region's entry,
 * steps one whole invocation (call-outs at native speed) and repeats, n
 * samples (default 3). Per sample this view prints the return value, the
 * executed vs distinct instruction counts, the basic blocks, the disassembly
 * in address order with an execution count per instruction, and the
 * functions called ranked by count (the seed's "Assembly & functions"). A
 * region that is never entered within the wait is reported as that fact
 * (the region plumbing: plugins/common/region_view.h). On a backend without
 * registers (intel_pt: invocations cut from control flow, pt_region.h) the
 * return value is unknown: `ret=?`, JSON "ret":null. */
#include <asmspy/plugin.h>

#include "common/strbuf.h"
#include "plugins/common/insn_class.h"
#include "plugins/common/region_view.h"
#include "plugins/common/view_options.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

/* Its records (the `trace_records` table at the end of this file). */
enum { TRACE_REC_REGION, TRACE_REC_NOT_REACHED, TRACE_REC_SAMPLE, TRACE_REC_N };
static const struct asmspy_record_schema trace_records[TRACE_REC_N + 1];

#define TRACE_DEFAULT_N 3

struct insn_stat {
  uint64_t addr;
  uint64_t count;
  uint8_t bytes[16];
  uint8_t len;
  int leader; /* starts a basic block in this sample */
};

struct callee_stat {
  uint64_t site, to;
  uint64_t count;
};

struct trace_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct rv_region rv; /* the region and how long its entry is waited for */
  int64_t want, done;
  /* the sample being captured */
  struct insn_stat *insns;
  size_t ninsns, cap;
  struct callee_stat *calls;
  size_t ncalls, ccap;
  uint64_t executed;
  uint64_t prev_ip, prev_next; /* fall-through of the previous instruction */
  int prev_branch;             /* the previous instruction was a jump */
};

/* Its positionals (the region after the pid), and its options: none of its
 * own. The table feeds parsing, --help, the man page, shell completion and
 * serve's checks. */
#define POSITIONALS "<pid> <sym|0xADDR[:LEN]|0xADDR+LEN> [n]"
static const struct asmspy_option trace_options[] = {
    {NULL, NULL, NULL},
};

static int trace_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  struct rv_region rv = {0};
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, trace_options, POSITIONALS, &ov);
  if (rc) return rc;
  for (uint32_t i = 0; i < ov.npos; i++) {
    rc = rv_take_spec(host, s, ov.pos[i], &rv, POSITIONALS);
    if (rc) return rc;
  }
  rc = rv_need_spec(host, s, &rv, POSITIONALS);
  if (rc) return rc;
  struct trace_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->rv = rv;
  st->want = s->max ? s->max : TRACE_DEFAULT_N;
  *state = st;
  return 0;
}

static int trace_configure(void *state, const struct asmspy_host_api *host,
                           struct asmspy_session *s) {
  struct trace_state *st = state;
  return rv_configure(&st->rv, host, s, "tracing");
}

static struct insn_stat *insn_for(struct trace_state *st, uint64_t addr) {
  for (size_t i = 0; i < st->ninsns; i++)
    if (st->insns[i].addr == addr) return &st->insns[i];
  if (st->ninsns == st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 64;
    struct insn_stat *n = realloc(st->insns, nc * sizeof *n);
    if (!n) return NULL;
    st->insns = n;
    st->cap = nc;
  }
  struct insn_stat *i = &st->insns[st->ninsns++];
  memset(i, 0, sizeof *i);
  i->addr = addr;
  return i;
}

static void on_insn(struct trace_state *st, const struct asmspy_event *ev) {
  struct insn_stat *i = insn_for(st, ev->ip);
  if (!i) return;
  if (!i->count) {
    memcpy(i->bytes, ev->u.insn.bytes, sizeof i->bytes);
    i->len = ev->u.insn.len;
  }
  i->count++;
  /* a basic block starts at the entry, at a branch target (control did not
   * fall through), and right after a conditional branch (taken or not) */
  if (st->executed == 0 || ev->ip != st->prev_next || st->prev_branch) i->leader = 1;
  uint32_t c = pi_event_class(st->host, ev);
  st->prev_ip = ev->ip;
  st->prev_next = c ? ev->ip + ASMSPY_INSN_LEN(c) : 0;
  st->prev_branch = (c & ASMSPY_INSN_JUMP) != 0; /* jmp, jcc, loop*, jrcxz */
  st->executed++;
}

/* A call-out: the callee ran at native speed; execution resumed at the
 * call's fall-through, which is therefore not a new block. */
static void on_callout(struct trace_state *st, const struct asmspy_event *ev) {
  uint64_t from = ev->u.branch.from, to = ev->u.branch.to;
  for (size_t i = 0; i < st->ncalls; i++)
    if (st->calls[i].site == from && st->calls[i].to == to) {
      st->calls[i].count++;
      return;
    }
  if (st->ncalls == st->ccap) {
    size_t nc = st->ccap ? st->ccap * 2 : 16;
    struct callee_stat *n = realloc(st->calls, nc * sizeof *n);
    if (!n) return;
    st->calls = n;
    st->ccap = nc;
  }
  st->calls[st->ncalls++] = (struct callee_stat){from, to, 1};
}

static int by_addr(const void *a, const void *b) {
  const struct insn_stat *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}
static int by_count(const void *a, const void *b) {
  const struct callee_stat *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->site < y->site ? -1 : x->site > y->site;
}

static int render_sample(struct trace_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  uint64_t start = ev->u.region.start;
  /* an invocation with no instruction recorded leaves both arrays NULL, and
   * qsort(NULL, 0, ...) is undefined (its base must point to an object) */
  if (st->ninsns > 1) qsort(st->insns, st->ninsns, sizeof *st->insns, by_addr);
  if (st->ncalls > 1) qsort(st->calls, st->ncalls, sizeof *st->calls, by_count);
  size_t blocks = 0;
  for (size_t i = 0; i < st->ninsns; i++) blocks += st->insns[i].leader;
  char ret[24] = "?"; /* no registers: unknown */
  int ret_known = !(ev->flags & ASMSPY_EVF_SP_UNKNOWN);
  if (ret_known) snprintf(ret, sizeof ret, "%" PRId64, (int64_t)ev->u.region.retval);
  /* the per-instruction and per-callee rows, as JSON values (the TUI reads
   * the text's two tables, not these) */
  struct strbuf text = {0}, insns = {0}, calls = {0};
  strbuf_addf(&text,
              "\nsample #%" PRIu64 "   ret=%s   %zu insns (%" PRIu64 " executed), %zu blocks%s\n",
              ev->u.region.sample, ret, st->ninsns, st->executed, blocks,
              ev->u.region.truncated ? "   (truncated)" : "");
  strbuf_addf(&insns, "[");
  strbuf_addf(&text,
              "  assembly:                                      # <count>\u00d7 per instruction\n");
  for (size_t i = 0; i < st->ninsns; i++) {
    struct insn_stat *in = &st->insns[i];
    char dis[128], dis_e[256];
    h->disasm(in->addr, in->bytes, in->len, dis, sizeof dis);
    strbuf_addf(&text, "  %6" PRIu64 "\u00d7  +0x%-6" PRIx64 " %s\n", in->count, in->addr - start,
                dis);
    h->json_escape(dis_e, sizeof dis_e, dis, strlen(dis));
    strbuf_addf(&insns,
                "%s{\"off\":%" PRIu64 ",\"addr\":\"0x%" PRIx64 "\",\"count\":%" PRIu64
                ",\"disasm\":\"%s\"}",
                i ? "," : "", in->addr - start, in->addr, in->count, dis_e);
  }
  strbuf_addf(&insns, "]");
  strbuf_addf(&calls, "[");
  strbuf_addf(&text,
              "  functions called:                              # ranked most-called first\n");
  if (!st->ncalls) strbuf_addf(&text, "    (none)\n");
  for (size_t i = 0; i < st->ncalls; i++) {
    struct callee_stat *c = &st->calls[i];
    struct asmspy_symbol sym;
    memset(&sym, 0, sizeof sym);
    sym.abi_version = ASMSPY_ABI_VERSION;
    sym.struct_size = sizeof sym;
    h->symbolize(ev->target, c->to, &sym);
    char name[256];
    if (!c->to) /* an indirect call-out whose target the backend did not see (intel_pt) */
      snprintf(name, sizeof name, "(indirect: target not traced)");
    else if (sym.name && sym.offset == 0)
      snprintf(name, sizeof name, "%s", sym.name);
    else if (sym.name)
      snprintf(name, sizeof name, "%s+0x%" PRIx64, sym.name, sym.offset);
    else
      snprintf(name, sizeof name, "0x%" PRIx64, c->to);
    const char *module = sym.kind == ASMSPY_SYM_JIT ? "jit" : sym.module ? sym.module : "?";
    strbuf_addf(&text, "  %6" PRIu64 "\u00d7  +0x%-6" PRIx64 " ->  %s  [%s]\n", c->count,
                c->site - start, name, module);
    char name_e[512], mod_e[256];
    h->json_escape(name_e, sizeof name_e, name, strlen(name));
    h->json_escape(mod_e, sizeof mod_e, module, strlen(module));
    strbuf_addf(&calls,
                "%s{\"count\":%" PRIu64 ",\"site_off\":%" PRIu64
                ",\"callee\":\"%s\",\"addr\":\"0x%" PRIx64 "\",\"module\":\"%s\"}",
                i ? "," : "", c->count, c->site - start, name_e, c->to, mod_e);
  }
  strbuf_addf(&calls, "]");
  if (text.len && text.s[text.len - 1] == '\n') text.s[--text.len] = 0;
  const struct asmspy_value v[] = {
      rv_int((int64_t)ev->u.region.sample),
      rv_int(ev->tid),
      ret_known ? rv_int((int64_t)ev->u.region.retval) : rv_null(),
      rv_int((int64_t)st->ninsns),
      rv_int((int64_t)st->executed),
      rv_int((int64_t)blocks),
      rv_bool(ev->u.region.truncated),
      rv_json(insns.s),
      rv_json(calls.s),
  };
  rec_emit(h, st->s->out, &trace_records[TRACE_REC_SAMPLE], v, text.s);
  free(text.s);
  free(insns.s);
  free(calls.s);
  st->ninsns = st->ncalls = 0;
  st->executed = 0;
  st->done++;
  return st->want > 0 && st->done >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

static int trace_consume(void *state, const struct asmspy_event *ev) {
  struct trace_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_REGION_ENTER:
    st->ninsns = st->ncalls = 0;
    st->executed = 0;
    return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_INSN: on_insn(st, ev); return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_CALLOUT: on_callout(st, ev); return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_REGION_EXIT:
    if (!ev->u.region.reached) {
      rv_not_reached(&st->rv, st->host, st->s);
      return ASMSPY_CONSUME_DONE;
    }
    return render_sample(st, ev);
  default: return ASMSPY_CONSUME_MORE;
  }
}

static int trace_finish(void *state, int end_status) {
  (void)state;
  (void)end_status;
  return 0;
}

static void trace_close(void *state) {
  struct trace_state *st = state;
  if (!st) return;
  free(st->insns);
  free(st->calls);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field sample_insn_fields[] = {
    RF_INT("off", 0, 0, "offset from the region start"),
    RF_HEX("addr", INSN_ADDR, "the instruction's address"),
    RF_INT("count", 1, 0, "times executed in this invocation"),
    RF_STR("disasm", INSN_TEXT, "its disassembly"),
    RF_END,
};
static const struct asmspy_field sample_call_fields[] = {
    RF_INT("count", 1, 0, "times called"),
    RF_INT("site_off", 0, 0, "the call instruction's offset"),
    RF_STR("callee", 0, "the callee's name"),
    RF_HEX("addr", 0, "the callee's address"),
    RF_STR("module", 0, "the callee's module"),
    RF_END,
};
static const struct asmspy_field sample_fields[] = {
    RF_INT("sample", 1, TITLE, "1-based invocation number"),
    RF_INT("tid", ANY_INT, 0, "the thread that ran it"),
    {.name = "ret",
     .type = ASMSPY_FIELD_INT,
     .flags = NUL | TITLE | ASMSPY_FIELDF_HIGHLIGHT,
     .min = ANY_INT,
     .meaning = "rax at the return; null on a backend without registers (intel_pt)"},
    RF_INT("distinct", 0, 0, "distinct instructions executed"),
    RF_INT("executed", 0, 0, "instructions executed (with repeats; call-outs not stepped)"),
    RF_INT("blocks", 0, 0, "basic blocks"),
    RF_BOOL("truncated", 0, "the step bound cut it short"),
    RF_ARRAY("insns", "object", sample_insn_fields, 0,
             "per distinct instruction, in address order"),
    RF_ARRAY("calls", "object", sample_call_fields, ASMSPY_FIELDF_PANE,
             "functions called out, most-called first"),
    RF_END,
};

static const struct asmspy_record_schema trace_records[TRACE_REC_N + 1] = {
    [TRACE_REC_REGION] = RV_REGION_SCHEMA,
    [TRACE_REC_NOT_REACHED] = RV_NOT_REACHED_SCHEMA,
    [TRACE_REC_SAMPLE] = {"sample", "one invocation of the region", sample_fields, NULL},
    [TRACE_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry trace_tui = {'2', ASMSPY_TUI_REGION, ASMSPY_TUIF_PICK_SYMBOL,
                                                  "assembly & functions"};

static const struct asmspy_view_ops trace_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "trace",
    .caps_required = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_REGION,
    .usage = POSITIONALS,
    .open = trace_open,
    .consume = trace_consume,
    .finish = trace_finish,
    .close = trace_close,
    .configure = trace_configure,
    .caps_wanted = ASMSPY_CAP_EXACT_SP, /* registers: the return value */
    .options = trace_options,
    .option_caps = NULL,
    .records = trace_records,
    .tui = &trace_tui,
};

static const struct asmspy_plugin trace_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "trace",
    .description = "one function's executed assembly per invocation, with counts and callees",
    .caps = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_REGION,
    .view = &trace_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(trace_plugin)
