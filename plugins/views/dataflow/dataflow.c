/* dataflow: the values flowing through ONE invocation of one function
 * (`asmspy --dataflow <pid> <sym|0xADDR[:LEN]|0xADDR+LEN> [n] [--json] [--tid=<t>]
 * [--max=<n>] [--steps] [--mem] [--blame] [--statediff] [--insns] [--fpregs]
 * [--continuous]`).
 *
 * A region session of one sample (--continuous: one after another, each
 * recorded afresh): the backend runs the target to the
 * region's entry and steps that invocation (call-outs at native speed).
 * Every INSN event arrives while the thread is stopped BEFORE the
 * instruction runs, with its registers. Per step this view asks the host
 * which registers and memory the instruction reads and writes
 * (host->operands) and records
 *   - each read's value now (registers from ev->regs, memory through
 *     host->read_mem: the pre-execution state);
 *   - each write's value at the next event that shows the post-execution
 *     state: the next INSN (its registers; memory read again), a CALLOUT
 *     (the call's own writes: rsp-8 and the return slot) or REGION_EXIT
 *     (rax = the return value; other registers unknown, memory read);
 *   - def-use: each read points at the step that last wrote that register
 *     or those memory bytes in this invocation, or is live-in (defined
 *     before the entry: arguments, callee-saved registers, caller memory).
 * A call-out is a synthetic step `callout <callee>` that defines what the
 * SysV ABI lets a callee clobber (rax rcx rdx rsi rdi r8-r11 rsp flags), so
 * a read of rax after `call helper` points at the call-out. Memory the
 * callee wrote is not seen (it ran natively). rip is not tracked: every
 * step shows its own address. The region plumbing (argument, resolve, entry
 * wait, "not seen entering"): plugins/common/region_view.h. --auto (sample
 * first, then capture the best candidate, walking the list while candidates
 * are not seen entering): auto.c. The recording: capture.c; the record:
 * render.c; the opt-in streams (--steps --mem --blame --statediff --insns
 * --fpregs): streams.h, a file each. --continuous (this file) renders each
 * invocation and starts over, until its count or the session ends. */
#include <asmspy/plugin.h>

#include "common/strbuf.h"
#include "plugins/common/region_view.h"
#include "plugins/views/dataflow/auto.h"
#include "plugins/views/dataflow/capture.h"
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

/* Its records (the `dataflow_records` table at the end of this file). */
enum { DF_REC_REGION, DF_REC_NOT_REACHED, DF_REC_DATAFLOW, DF_REC_AUTO, DF_REC_BLAME, DF_REC_N };
static const struct asmspy_record_schema dataflow_records[DF_REC_N + 1];

/* Its positionals (the region after the pid, or --auto instead), and the
 * options this mode accepts after them: parsing, --help, the man page,
 * shell completion and serve's checks read the table (the DF_OPT_* enum in
 * auto.h keeps open() and auto.c in step with it). */
#define POSITIONALS "<pid> <sym|0xADDR[:LEN]|0xADDR+LEN> [n]"
static const struct asmspy_option dataflow_options[] = {
    [DF_OPT_MAX] = {"max", "<n>", "bound the steps of the one invocation captured"},
    [DF_OPT_AUTO] = {"auto", NULL,
                     "instead of a region: sample first, then capture the hottest function"},
    [DF_OPT_MODULE] = {"module", "<m>",
                       "--auto: only functions in modules whose name contains <m>"},
    [DF_OPT_SAMPLER] = {"sampler", "<rung>",
                        "--auto: ibs, lbr, sw, ptrace or event:<name> (default: the first usable)"},
    [DF_OPT_WINDOW] = {"window", "<ms>", "--auto: how long to sample (1..60000, default 400)"},
    [DF_OPT_STEPS] = {"steps", NULL, "record the full register file each step saw (before it ran)"},
    [DF_OPT_MEM] = {"mem", NULL,
                    "record every memory access of each step (address, size, read/write, value)"},
    [DF_OPT_BLAME] = {"blame", NULL,
                      "after the trace: the backward slice of the return value and of each "
                      "memory range written that outlives the call"},
    [DF_OPT_STATEDIFF] = {"statediff", NULL,
                          "record per step only what it changed (registers, memory bytes)"},
    [DF_OPT_INSNS] =
        {"insns", NULL,
         "record each step's instruction bytes as executed (a self-contained recording)"},
    [DF_OPT_FPREGS] = {"fpregs", NULL,
                       "x87/SSE/AVX operand values with def-use; with --steps the whole "
                       "FP/vector register file"},
    [DF_OPT_CONTINUOUS] = {"continuous", NULL,
                           "capture invocation after invocation (a count [n] after the region "
                           "bounds them) until Ctrl-C or the target exits"},
    {NULL, NULL, NULL},
};

/* ------------------------------ view ops -------------------------------- */

static int df_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                   void **state) {
  struct rv_region rv = {0};
  struct df_auto_opts ao = {0};
  int64_t max = 0;
  struct asmspy_optval ov;
  char usage[1024];
  asmspy_option_synopsis(usage, sizeof usage, POSITIONALS, dataflow_options);
  int rc = vo_parse(host, s, dataflow_options, POSITIONALS, &ov);
  if (rc) return rc;
  struct df_streams streams = {
      .steps = ov.value[DF_OPT_STEPS] != NULL,
      .mem = ov.value[DF_OPT_MEM] != NULL,
      .blame = ov.value[DF_OPT_BLAME] != NULL,
      .statediff = ov.value[DF_OPT_STATEDIFF] != NULL,
      .insns = ov.value[DF_OPT_INSNS] != NULL,
      .fpregs = ov.value[DF_OPT_FPREGS] != NULL,
      .continuous = ov.value[DF_OPT_CONTINUOUS] != NULL,
  };
  if (s->max != 0 && !streams.continuous) { /* the count bounds --continuous's invocations */
    host->note(NULL, ASMSPY_NOTE_WARN,
               "--%s captures ONE invocation: no count (bound the steps with --max=<n>)", s->mode);
    return -ASMSPY_E_USAGE;
  }
  if (ov.value[DF_OPT_MAX]) {
    const char *a = ov.value[DF_OPT_MAX];
    char *end = NULL;
    errno = 0;
    long long v = strtoll(a, &end, 10);
    if (errno || *end || v <= 0) {
      host->note(NULL, ASMSPY_NOTE_WARN, "--%s: invalid --max '%s': must be a positive step count",
                 s->mode, a);
      return -ASMSPY_E_USAGE;
    }
    max = v;
  }
  rc = df_auto_take_opts(host, s, &ov, &ao);
  if (rc) return rc;
  for (uint32_t i = 0; i < ov.npos; i++) {
    rc = rv_take_spec(host, s, ov.pos[i], &rv, usage);
    if (rc) return rc;
  }
  rc = df_auto_check(host, s, &ao, &rv);
  if (rc) return rc;
  if (!ao.on) rc = rv_need_spec(host, s, &rv, usage);
  if (rc) return rc;
  if (!df_arch) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s needs a host that describes its arch (ABI 1.12)",
               s->mode);
    return -ASMSPY_E_ABI;
  }
  if (!ASMSPY_HAS(host, operands) || !host->operands) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s needs a host with operands() (ABI 1.3)", s->mode);
    return -ASMSPY_E_ABI;
  }
  if (streams.fpregs && (!ASMSPY_HAS(host, vreg_name) || !host->read_fpregs)) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s --fpregs needs a host with read_fpregs() (ABI 1.10)",
               s->mode);
    return -ASMSPY_E_ABI;
  }
  struct df_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->rv = rv;
  st->max = max;
  st->auto_opts = ao;
  st->streams = streams;
  st->rec_dataflow = &dataflow_records[DF_REC_DATAFLOW];
  st->rec_blame = &dataflow_records[DF_REC_BLAME];
  st->pending = -1;
  for (int g = 0; g < DF_NREGS; g++) st->reg_def[g] = -1;
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = -1;
  *state = st;
  return 0;
}

static int df_configure(void *state, const struct asmspy_host_api *host, struct asmspy_session *s) {
  struct df_state *st = state;
  int rc = st->auto_opts.on ? df_auto_configure(&st->autopick, &st->auto_opts, host, s, &st->rv,
                                                "data-flow capture of")
                            : rv_configure(&st->rv, host, s, "data-flow capture of");
  if (rc) return rc;
  s->max_steps = st->max; /* 0 = unbounded */
  /* --continuous runs until stopped: the wait for each next invocation is
   * unbounded unless the environment bounds it explicitly */
  if (st->streams.continuous && !getenv("ASMTEST_DF_ENTRY_WAIT_MS") &&
      !getenv("ASMSPY_ENTRY_WAIT_MS"))
    s->entry_wait_ms = st->rv.wait_ms = 0;
  return 0;
}

static int df_consume(void *state, const struct asmspy_event *ev) {
  struct df_state *st = state;
  if (st->done) return ASMSPY_CONSUME_DONE;
  switch (ev->type) {
  case ASMSPY_EV_REGION_ENTER:
    st->entered = 1;
    st->tid = ev->tid;
    return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_INSN:
    if (st->entered) df_on_insn(st, ev);
    return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_CALLOUT:
    if (st->entered) df_on_callout(st, ev);
    return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_REGION_EXIT:
    if (!ev->u.region.reached) {
      if (!st->invocations && df_auto_missed(st->autopick))
        return ASMSPY_CONSUME_MORE; /* retry() moves on */
      st->done = 1;
      rv_not_reached(&st->rv, st->host, st->s);
      df_auto_exhausted(st->autopick);
      return ASMSPY_CONSUME_DONE;
    }
    /* the thread is stopped after the last step: rax is the return value
     * (unless cut short), memory is readable, other registers unknown */
    df_fp_read(st, ev, -1);
    df_finish_pending(st, ev, NULL, !ev->u.region.truncated, ev->u.region.retval, 0, 0);
    df_render(st, ev);
    st->invocations++;
    if (st->streams.continuous && !(st->s->max > 0 && st->invocations >= st->s->max)) {
      df_reset_invocation(st);
      return ASMSPY_CONSUME_MORE;
    }
    st->done = 1;
    return ASMSPY_CONSUME_DONE;
  default: return ASMSPY_CONSUME_MORE;
  }
}

/* The capture ended inside the invocation (the target died, Ctrl-C, a
 * detach): what was stepped is still the truth, so it is shown, truncated. */
static int df_finish(void *state, int end_status) {
  struct df_state *st = state;
  if (!st || !st->entered || st->done) return 0;
  st->done = 1;
  struct asmspy_event last;
  memset(&last, 0, sizeof last);
  ASMSPY_INIT_HEADER(&last);
  last.type = ASMSPY_EV_REGION_EXIT;
  last.tid = st->tid;
  last.u.region.truncated = 1;
  last.u.region.reached = 1;
  st->fp_ok = 0;                                  /* nor is the FP state after the last step */
  df_finish_pending(st, &last, NULL, 0, 0, 0, 0); /* no target: its writes are unknown */
  st->host->note(st->s->out, ASMSPY_NOTE_WARN,
                 "%s: the capture ended before the invocation returned (%s); showing the %" PRIu64
                 " steps taken",
                 st->rv.name, end_status ? st->host->strerror(end_status) : "stopped",
                 st->executed);
  df_render(st, &last);
  return 0;
}

/* --auto: the candidate was never seen entering; the next one, if any. */
static int df_retry(void *state, int status, struct asmspy_session *s) {
  struct df_state *st = state;
  return df_auto_retry(st->autopick, status, s, &st->rv);
}

static void df_close(void *state) {
  struct df_state *st = state;
  if (!st) return;
  df_auto_free(st->autopick);
  free(st->tr.steps);
  free(st->tr.regs);
  free(st->tr.fp);
  free(st->tr.pre);
  free(st->tr.cins);
  free(st->tr.reads);
  free(st->tr.writes);
  free(st->md.keys);
  free(st->md.vals);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field df_read_fields[] = {
    RF_STR("loc", 0,
           "register (rbx, rflags; with --fpregs xmm3, ymm0, st(1), k2, mxcsr) or [0xaddr]"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("value", NUL, "the value before the step, hex (null: unreadable)"),
    {.name = "def",
     .type = ASMSPY_FIELD_INT,
     .flags = NUL,
     .min = 0,
     .meaning = "the step that defined it (null: live-in)"},
    RF_BOOL("live_in", 0, "defined before the invocation"),
    RF_END,
};
static const struct asmspy_field df_write_fields[] = {
    RF_STR("loc", 0, "as for reads"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("value", NUL, "the value after the step (null: not observable)"),
    RF_END,
};
static const struct asmspy_field df_step_fields[] = {
    RF_INT("i", 0, 0, "step index (defs refer to it)"),
    RF_ENUM("kind", "insn|callout", INSN_KIND, "an instruction, or a call out of the region"),
    RF_INT("off", 0, 0, "offset from the region start"),
    RF_HEX("addr", INSN_ADDR, "the step's address"),
    RF_STR("disasm", INSN_TEXT, "its disassembly"),
    RF_HEX("callee", OPT, "a call-out's target"),
    RF_ARRAY("reads", "object", df_read_fields, 0, "values read"),
    RF_ARRAY("writes", "object", df_write_fields, 0, "values written"),
    RF_OBJECT("regs", df_regs_fields, OPT,
              "--steps: the register file the step saw before it ran (absent: not observed)"),
    RF_ARRAY("mem", "object", df_mem_fields, OPT,
             "--mem: every memory access of the step, implicit stack slots included"),
    RF_OBJECT("diff", df_diff_fields, OPT, "--statediff: only what the step changed"),
    RF_BYTES("bytes", 1, 16, OPT, "--insns: the instruction bytes as executed (not on a call-out)"),
    RF_OBJECT("fpregs", df_fpregs_fields, OPT,
              "--steps --fpregs: the x87/SSE/AVX register file the step saw"),
    RF_END,
};
static const struct asmspy_field dataflow_fields[] = {
    RF_STR("name", TITLE, "the region"),
    RF_HEX("start", OPT, "its start"),
    RF_INT("len", 0, OPT, "its length"),
    RF_INT("tid", ANY_INT, OPT, "the captured thread"),
    RF_INT("invocation", 1, OPT, "--continuous: which invocation this is (1, 2, ...)"),
    {.name = "ret",
     .type = ASMSPY_FIELD_INT,
     .flags = NUL | OPT,
     .min = ANY_INT,
     .meaning = "return value (signed), null when truncated"},
    RF_INT("steps", 0, 0, "instructions executed in the region"),
    RF_INT("callouts", 0, OPT, "calls out of the region (run natively)"),
    RF_BOOL("truncated", 0, "--max=<n> cut it"),
    RF_INT("records", 0, OPT, "reads + writes recorded"),
    RF_ARRAY("trace", "object", df_step_fields, 0, "the steps in order"),
    RF_END,
};

static const struct asmspy_record_schema dataflow_records[DF_REC_N + 1] = {
    [DF_REC_REGION] = RV_REGION_SCHEMA,
    [DF_REC_NOT_REACHED] = RV_NOT_REACHED_SCHEMA,
    [DF_REC_DATAFLOW] = {"dataflow", "the value trace of ONE invocation", dataflow_fields, NULL},
    [DF_REC_AUTO] = {"auto", "--auto: the pick, and each candidate tried", df_auto_fields, NULL},
    [DF_REC_BLAME] = {"blame", "--blame: the backward slice of one result of the invocation",
                      df_blame_fields, NULL},
    [DF_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry dataflow_tui = {'9', ASMSPY_TUI_DATAFLOW,
                                                     ASMSPY_TUIF_PICK_SYMBOL, "data flow"};

static const struct asmspy_view_ops df_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "dataflow",
    .caps_required = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_REGION | ASMSPY_CAP_EXACT_SP,
    .usage = POSITIONALS,
    .open = df_open,
    .consume = df_consume,
    .finish = df_finish,
    .close = df_close,
    .configure = df_configure,
    .retry = df_retry,
    .options = dataflow_options,
    .option_caps = NULL,
    .records = dataflow_records,
    .tui = &dataflow_tui,
};

static const struct asmspy_plugin df_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "dataflow",
    .description = "values read and written by each step of ONE invocation, with def-use",
    .caps = ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_REGION,
    .view = &df_ops,
    .plugin_version = "0.1.0",
    .min_host_minor = 12, /* host->arch: the register ids it follows */
};

/* The entry keeps host->arch (the register ids, names and calling
 * convention) and describes the --steps register file from it. */
ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  if (host && ASMSPY_HAS(host, arch) && host->arch && host->arch->nregs <= DF_NREGS &&
      ASMSPY_HAS(host->arch, reg_order)) {
    df_arch = host->arch;
    regfile_describe(df_arch);
  }
  return &df_plugin;
}
