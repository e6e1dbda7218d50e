/* dataflow: the values flowing through ONE invocation of one function
 * (`asmspy --dataflow <pid> <sym|0xADDR[:LEN]|0xADDR+LEN> [--json] [--tid=<t>]
 * [--max=<n>]`).
 *
 * A region session of one sample: the backend runs the target to the
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
 * are not seen entering): auto.c. */
#include <asmspy/plugin.h>

#include "common/strbuf.h"
#include "plugins/common/region_view.h"
#include "plugins/views/dataflow/auto.h"
#include "plugins/views/dataflow/df_trace.h"
#include "plugins/views/dataflow/streams.h"
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
    [DF_OPT_MODULE] = {"module", "<m>", "--auto: only functions in modules whose name contains <m>"},
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
    [DF_OPT_INSNS] = {"insns", NULL,
                      "record each step's instruction bytes as executed (a self-contained recording)"},
    [DF_OPT_FPREGS] = {"fpregs", NULL,
                       "x87/SSE/AVX operand values with def-use; with --steps the whole "
                       "FP/vector register file"},
    [DF_OPT_CONTINUOUS] = {"continuous", NULL,
                           "capture invocation after invocation (a count [n] after the region "
                           "bounds them) until Ctrl-C or the target exits"},
    {NULL, NULL, NULL},
};

const char *const df_reg_names[G_NREGS] = {
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
    "rdi", "orig_rax", "rip", "cs", "rflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs",
    "gs"};

/* registers a call-out may clobber (SysV: caller-saved + return registers) */
static const uint8_t callout_defs[] = {G_RAX, G_RDX, G_RCX, G_RSI, G_RDI, G_R8,
                                       G_R9,  G_R10, G_R11, G_RSP, G_EFLAGS};

/* byte address -> defining step (open addressing) */
struct memdef {
  uint64_t *keys; /* addr + 1 (0 = empty) */
  int64_t *vals;
  size_t cap, n;
};

struct df_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct rv_region rv; /* the region, its name and the entry wait */
  int64_t max;
  struct df_trace tr; /* the invocation being captured */
  int64_t reg_def[G_NREGS];
  struct memdef md;
  int64_t pending; /* step whose written values await the post-execution state, -1 none */
  uint64_t executed, callouts;
  int entered, done;
  int32_t tid; /* the sampled thread */
  struct df_streams streams; /* the opt-in streams armed */
  uint64_t last_regs[G_NREGS]; /* the registers the latest instruction step saw */
  int last_regs_known;
  int64_t invocations;         /* --continuous: invocations rendered so far */
  struct asmspy_fpregs fp;     /* --fpregs: the thread's FP/vector state at the current event */
  int fp_ok;
  int64_t vdef[DF_VKEYS];      /* --fpregs: physical FP/vector register -> defining step */
  struct df_auto_opts auto_opts; /* --auto: the region is chosen by sampling */
  struct df_auto *autopick;
};

/* ---------------------------- memory defs ------------------------------- */

static size_t md_slot(const struct memdef *m, uint64_t key) {
  uint64_t h = key * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 20) & (m->cap - 1);
}

static int md_grow(struct memdef *m) {
  size_t nc = m->cap ? m->cap * 2 : 1024;
  uint64_t *k = calloc(nc, sizeof *k);
  int64_t *v = calloc(nc, sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  struct memdef n = {k, v, nc, 0};
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      size_t j = md_slot(&n, m->keys[i]);
      while (n.keys[j]) j = (j + 1) & (nc - 1);
      n.keys[j] = m->keys[i];
      n.vals[j] = m->vals[i];
      n.n++;
    }
  free(m->keys);
  free(m->vals);
  *m = n;
  return 0;
}

static void md_set(struct memdef *m, uint64_t addr, int64_t step) {
  if ((m->n + 1) * 2 > m->cap && md_grow(m) != 0) return;
  uint64_t key = addr + 1;
  size_t j = md_slot(m, key);
  while (m->keys[j] && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  if (!m->keys[j]) {
    m->keys[j] = key;
    m->n++;
  }
  m->vals[j] = step;
}

static int64_t md_get(const struct memdef *m, uint64_t addr) {
  if (!m->cap) return -1;
  uint64_t key = addr + 1;
  size_t j = md_slot(m, key);
  while (m->keys[j]) {
    if (m->keys[j] == key) return m->vals[j];
    j = (j + 1) & (m->cap - 1);
  }
  return -1;
}

static int64_t md_get_ctx(const void *m, uint64_t addr) { return md_get(m, addr); }

/* ------------------------------ records --------------------------------- */

static struct rec *new_rec(struct rec **arr, size_t *n, size_t *cap) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 256;
    struct rec *a = realloc(*arr, nc * sizeof *a);
    if (!a) return NULL;
    *arr = a;
    *cap = nc;
  }
  struct rec *r = &(*arr)[(*n)++];
  memset(r, 0, sizeof *r);
  r->def = -1;
  return r;
}

static struct step *new_step(struct df_state *st) {
  if (st->tr.nsteps == st->tr.scap) {
    size_t nc = st->tr.scap ? st->tr.scap * 2 : 128;
    struct step *a = realloc(st->tr.steps, nc * sizeof *a);
    if (!a) return NULL;
    st->tr.steps = a;
    st->tr.scap = nc;
  }
  if ((st->streams.steps || st->streams.statediff) && st->tr.regcap < st->tr.scap) {
    uint64_t(*r)[G_NREGS] = realloc(st->tr.regs, st->tr.scap * sizeof *r);
    if (!r) return NULL;
    st->tr.regs = r;
    st->tr.regcap = st->tr.scap;
  }
  if (st->streams.steps && st->streams.fpregs && st->tr.fpcap < st->tr.scap) {
    struct asmspy_fpregs *f = realloc(st->tr.fp, st->tr.scap * sizeof *f);
    if (!f) return NULL;
    st->tr.fp = f;
    st->tr.fpcap = st->tr.scap;
  }
  struct step *s = &st->tr.steps[st->tr.nsteps++];
  memset(s, 0, sizeof *s);
  s->r0 = st->tr.nreads;
  s->w0 = st->tr.nwrites;
  s->c0 = st->tr.ncins;
  return s;
}

/* The register file step idx sees, for --steps / --statediff. */
static void snap_regs(struct df_state *st, size_t idx, const uint64_t *gpr) {
  if (!gpr || !st->tr.regs) return;
  memcpy(st->tr.regs[idx], gpr, sizeof st->tr.regs[idx]);
  st->tr.steps[idx].regs_known = 1;
}

/* --fpregs: the FP/vector state of the event's thread now; with --steps
 * also step idx's (>= 0) copy of it. */
static void fp_read(struct df_state *st, const struct asmspy_event *ev, int64_t idx) {
  if (!st->streams.fpregs) return;
  if (idx < 0) {
    memset(&st->fp, 0, sizeof st->fp);
    ASMSPY_INIT_HEADER(&st->fp);
    st->fp_ok = ev->target && st->host->read_fpregs(ev->target, ev->tid, &st->fp) == 0;
    if (!st->fp_ok) st->fp.have = 0;
  } else if (st->tr.fp) {
    st->tr.fp[idx] = st->fp;
  }
}

static void note_rsp(struct df_state *st, uint64_t rsp) {
  if (rsp && (!st->tr.min_rsp || rsp < st->tr.min_rsp)) st->tr.min_rsp = rsp;
}

static void set_u64(struct rec *r, uint64_t v) {
  memcpy(r->val, &v, 8);
  r->known = 1;
}

static void read_value(struct df_state *st, const struct asmspy_event *ev, struct rec *r) {
  size_t n = r->size < MEM_VAL_MAX ? r->size : MEM_VAL_MAX;
  memset(r->val, 0, sizeof r->val);
  r->known = ev->target && st->host->read_mem(ev->target, r->addr, r->val, n) == (ssize_t)n;
}

static int reg_ok(const struct asmspy_regs *regs, int g) {
  return regs && g >= 0 && (uint32_t)g < regs->ngpr && ASMSPY_HAS(regs, gpr);
}

/* The post-execution state of the pending step is visible now: fill its
 * written values. regs: the registers now (NULL = registers unknown, except
 * rax = retval when have_ret). A call's own writes are computed (the callee
 * already runs: rsp is the call's rsp - 8, rip the callee). */
static void finish_pending(struct df_state *st, const struct asmspy_event *ev,
                           const struct asmspy_regs *regs, int have_ret, uint64_t retval,
                           int at_callout, uint64_t callee) {
  if (st->pending < 0) return;
  struct step *s = &st->tr.steps[st->pending];
  for (size_t i = 0; i < s->nw; i++) {
    struct rec *w = &st->tr.writes[s->w0 + i];
    if (w->vreg) {
      if (st->fp_ok) fp_value(st->host, &st->fp, w, 1);
      else w->known = 0;
    } else if (w->is_mem) {
      read_value(st, ev, w);
    } else if (at_callout) {
      if (w->reg == G_RSP) set_u64(w, s->pre_rsp - 8);
      else if (w->reg == G_RIP) set_u64(w, callee);
      else w->known = 0;
    } else if (reg_ok(regs, w->reg)) {
      set_u64(w, regs->gpr[w->reg]);
    } else if (have_ret && w->reg == G_RAX) {
      set_u64(w, retval);
    } else {
      w->known = 0;
    }
  }
  st->pending = -1;
}

/* ------------------------------- events --------------------------------- */

/* --fpregs: r is FP/vector register vreg (named, keyed by the state before the step) */
static void vreg_rec(struct df_state *st, struct rec *r, uint16_t vreg) {
  r->vreg = vreg;
  r->vkey = fp_vkey(vreg, &st->fp);
  r->size = 0;
  st->host->vreg_name(vreg, r->vname, sizeof r->vname);
}

static void on_insn(struct df_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  const struct asmspy_regs *regs = ASMSPY_HAS(ev, regs) ? ev->regs : NULL;
  fp_read(st, ev, -1);
  finish_pending(st, ev, regs, 0, 0, 0, 0);
  struct asmspy_operands o;
  memset(&o, 0, sizeof o);
  ASMSPY_INIT_HEADER(&o);
  h->operands(ev->ip, ev->u.insn.bytes, ev->u.insn.len, regs, &o);
  struct step *s = new_step(st);
  if (!s) return;
  int64_t idx = (int64_t)(st->tr.nsteps - 1);
  s->addr = ev->ip;
  s->pre_rsp = reg_ok(regs, G_RSP) ? regs->gpr[G_RSP] : ev->u.insn.sp;
  snprintf(s->text, sizeof s->text, "%s", o.text);
  st->executed++;
  note_rsp(st, s->pre_rsp);
  st->last_regs_known = regs && regs->ngpr >= G_NREGS && ASMSPY_HAS(regs, gpr);
  if (st->last_regs_known) {
    memcpy(st->last_regs, regs->gpr, sizeof st->last_regs);
    snap_regs(st, (size_t)idx, st->last_regs);
  }
  fp_read(st, ev, idx);
  if (st->streams.insns) { /* the instruction's own length within the bytes read */
    char dis[128];
    int len = h->disasm(ev->ip, ev->u.insn.bytes, ev->u.insn.len, dis, sizeof dis);
    s->len = len > 0 && len <= (int)sizeof s->bytes ? (uint8_t)len : 0;
    memcpy(s->bytes, ev->u.insn.bytes, s->len);
  }
  /* reads, against the defs before this step */
  for (unsigned i = 0; i < o.nread && i < sizeof o.read; i++) {
    int g = o.read[i];
    if (g == G_RIP || g >= G_NREGS) continue;
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    r->reg = (uint8_t)g;
    r->size = 8;
    if (reg_ok(regs, g)) set_u64(r, regs->gpr[g]);
    r->def = st->reg_def[g];
    s->nr++;
  }
  for (unsigned i = 0; i < o.nmem && i < 4; i++) {
    if (!(o.mem[i].access & ASMSPY_MEM_READ)) continue;
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    r->is_mem = 1;
    r->addr = o.mem[i].addr;
    r->size = o.mem[i].size;
    read_value(st, ev, r);
    int64_t def = -1;
    for (uint32_t b = 0; b < r->size; b++) {
      int64_t d = md_get(&st->md, r->addr + b);
      if (d > def) def = d;
    }
    r->def = def;
    s->nr++;
  }
  for (unsigned i = 0; st->streams.fpregs && i < o.nvread && i < 8; i++) {
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    vreg_rec(st, r, o.vread[i]);
    if (st->fp_ok) fp_value(h, &st->fp, r, 0);
    r->def = st->vdef[r->vkey];
    s->nr++;
  }
  /* writes: this step is now their definition */
  for (unsigned i = 0; i < o.nwritten && i < sizeof o.written; i++) {
    int g = o.written[i];
    if (g == G_RIP || g >= G_NREGS) continue;
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->reg = (uint8_t)g;
    w->size = 8;
    st->reg_def[g] = idx;
    s->nw++;
  }
  for (unsigned i = 0; i < o.nmem && i < 4; i++) {
    if (!(o.mem[i].access & ASMSPY_MEM_WRITE)) continue;
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->is_mem = 1;
    w->addr = o.mem[i].addr;
    w->size = o.mem[i].size;
    if (st->streams.statediff) { /* the bytes before, to tell a change from a rewrite */
      size_t n = w->size < MEM_VAL_MAX ? w->size : MEM_VAL_MAX;
      size_t wi = (size_t)(w - st->tr.writes);
      if (wi >= st->tr.precap) {
        size_t nc = st->tr.wcap;
        uint8_t(*p)[MEM_VAL_MAX] = realloc(st->tr.pre, nc * sizeof *p);
        if (p) st->tr.pre = p, st->tr.precap = nc;
      }
      w->pre_known = wi < st->tr.precap &&
                     h->read_mem(ev->target, w->addr, st->tr.pre[wi], n) == (ssize_t)n;
    }
    for (uint32_t b = 0; b < w->size; b++) md_set(&st->md, w->addr + b, idx);
    s->nw++;
  }
  for (unsigned i = 0; st->streams.fpregs && i < o.nvwritten && i < 8; i++) {
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    vreg_rec(st, w, o.vwritten[i]); /* its value: from the state after the step */
    st->vdef[w->vkey] = idx;
    s->nw++;
  }
  st->pending = idx;
}

static void symbol_name(struct df_state *st, struct asmspy_target *t, uint64_t addr, char *buf,
                        size_t cap) {
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  st->host->symbolize(t, addr, &sym);
  if (sym.name && sym.offset == 0)
    snprintf(buf, cap, "%s", sym.name);
  else if (sym.name)
    snprintf(buf, cap, "%s+0x%" PRIx64, sym.name, sym.offset);
  else
    snprintf(buf, cap, "0x%" PRIx64, addr);
}

static void on_callout(struct df_state *st, const struct asmspy_event *ev) {
  /* the thread is stopped at the callee's first instruction: the call's
   * own effects (return slot, rsp) are visible now */
  int64_t call = st->pending; /* the call instruction's step */
  fp_read(st, ev, -1);
  finish_pending(st, ev, NULL, 0, 0, 1, ev->u.branch.to);
  struct step *s = new_step(st);
  if (!s) return;
  int64_t idx = (int64_t)(st->tr.nsteps - 1);
  s->callout = 1;
  s->addr = ev->u.branch.from;
  s->callee = ev->u.branch.to;
  if (call >= 0) { /* the return slot the call pushed, which the callee's ret pops */
    s->pre_rsp = s->slot = st->tr.steps[call].pre_rsp - 8;
    s->slot_known = st->host->read_mem(ev->target, s->slot, &s->slot_val, 8) == 8;
    note_rsp(st, s->slot);
  }
  if (st->last_regs_known) { /* what the callee starts with: the call's effects only */
    uint64_t r[G_NREGS];
    memcpy(r, st->last_regs, sizeof r);
    r[G_RSP] = s->pre_rsp ? s->pre_rsp : r[G_RSP] - 8;
    r[G_RIP] = s->callee;
    snap_regs(st, (size_t)idx, r);
  }
  fp_read(st, ev, idx);
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = idx; /* SysV: all caller-saved */
  if (st->streams.blame) { /* its inputs, as far as the caller can tell: the argument registers */
    static const uint8_t args[] = {G_RDI, G_RSI, G_RDX, G_RCX, G_R8, G_R9};
    for (size_t i = 0; i < sizeof args; i++) {
      struct rec *r = new_rec(&st->tr.cins, &st->tr.ncins, &st->tr.ccap);
      if (!r) break;
      r->reg = args[i];
      r->size = 8;
      r->def = st->reg_def[args[i]];
      if (st->last_regs_known) set_u64(r, st->last_regs[args[i]]);
      s->nc++;
    }
  }
  char name[100];
  symbol_name(st, ev->target, ev->u.branch.to, name, sizeof name);
  snprintf(s->text, sizeof s->text, "callout %s", name);
  st->callouts++;
  for (size_t i = 0; i < sizeof callout_defs; i++) {
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->reg = callout_defs[i];
    w->size = 8;
    st->reg_def[callout_defs[i]] = idx;
    s->nw++;
  }
  st->pending = idx; /* its values: the registers at the next INSN */
}

/* ------------------------------ rendering ------------------------------- */


/* "0x.." of a little-endian value (most significant digit first, no
 * leading zeros). */
void df_fmt_bytes(const uint8_t *val, uint32_t size, char *out, size_t cap) {
  size_t n = size < VAL_MAX ? size : VAL_MAX;
  char hex[2 * VAL_MAX + 1];
  size_t k = 0;
  for (size_t i = n; i-- > 0;) k += (size_t)snprintf(hex + k, sizeof hex - k, "%02x", val[i]);
  hex[k] = 0;
  const char *p = hex;
  while (p[0] == '0' && p[1]) p++;
  snprintf(out, cap, "0x%s", k ? p : "0");
}

static void fmt_val(const struct rec *r, char *out, size_t cap) {
  df_fmt_bytes(r->val, df_rec_nbytes(r), out, cap);
}

void df_fmt_loc(const struct rec *r, char *out, size_t cap) {
  if (r->vreg)
    snprintf(out, cap, "%s", r->vname);
  else if (r->is_mem)
    snprintf(out, cap, "[0x%" PRIx64 "]", r->addr);
  else
    snprintf(out, cap, "%s", r->reg < G_NREGS ? df_reg_names[r->reg] : "?");
}

/* Where the typed values of one `dataflow` record live while it is emitted:
 * per step its 13 members, per read 5, per write 3, and the loc / value
 * strings they point at. */
#define DF_STEP_MEMBERS 13 /* df_step_fields */
struct df_values {
  struct asmspy_value *steps, *step_items, *reads, *read_items, *writes, *write_items;
  char (*rloc)[40], (*rval)[136], (*wloc)[40], (*wval)[136];
};

static void df_values_free(struct df_values *v) {
  free(v->steps), free(v->step_items), free(v->reads), free(v->read_items);
  free(v->writes), free(v->write_items), free(v->rloc), free(v->rval), free(v->wloc), free(v->wval);
}

static int df_values_alloc(struct df_values *v, size_t nsteps, size_t nreads, size_t nwrites) {
  nsteps += !nsteps, nreads += !nreads, nwrites += !nwrites; /* never calloc(0) */
  v->steps = calloc(nsteps * DF_STEP_MEMBERS, sizeof *v->steps);
  v->step_items = calloc(nsteps, sizeof *v->step_items);
  v->reads = calloc(nreads * 5, sizeof *v->reads);
  v->read_items = calloc(nreads, sizeof *v->read_items);
  v->writes = calloc(nwrites * 3, sizeof *v->writes);
  v->write_items = calloc(nwrites, sizeof *v->write_items);
  v->rloc = calloc(nreads, sizeof *v->rloc);
  v->rval = calloc(nreads, sizeof *v->rval);
  v->wloc = calloc(nwrites, sizeof *v->wloc);
  v->wval = calloc(nwrites, sizeof *v->wval);
  return v->steps && v->step_items && v->reads && v->read_items && v->writes && v->write_items &&
                 v->rloc && v->rval && v->wloc && v->wval
             ? 0
             : -1;
}

static void render(struct df_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  int truncated = ev->u.region.truncated != 0;
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  uint64_t records = st->tr.nreads + st->tr.nwrites;
  struct strbuf text = {0};
  struct df_values dv = {0};
  struct df_arena arena = {0}; /* the streams' values */
  if (df_values_alloc(&dv, st->tr.nsteps, st->tr.nreads, st->tr.nwrites) != 0) {
    df_values_free(&dv);
    h->note(st->s->out, ASMSPY_NOTE_WARN, "dataflow: out of memory rendering %zu steps", st->tr.nsteps);
    return;
  }
  char ret_s[32];
  if (truncated)
    snprintf(ret_s, sizeof ret_s, "?");
  else
    snprintf(ret_s, sizeof ret_s, "%" PRId64, (int64_t)ev->u.region.retval);
  strbuf_addf(&text, "data flow \u2014 %s @ 0x%" PRIx64 " of pid %d   ret=%s   %" PRIu64 " steps, %" PRIu64
              " records%s",
       st->rv.name, st->rv.start, (int)st->s->pid, ret_s, st->executed, records,
       truncated ? "   (truncated)" : "");
  if (st->callouts) strbuf_addf(&text, "   %" PRIu64 " call-outs", st->callouts);
  strbuf_addf(&text, "\n");
  for (size_t i = 0; i < st->tr.nsteps; i++) {
    const struct step *s = &st->tr.steps[i];
    if (want_text) strbuf_addf(&text, "#%-4zu +0x%-5" PRIx64 " %-34s", i, s->addr - st->rv.start, s->text);
    if (want_text && s->nr) strbuf_addf(&text, "   r:");
    for (size_t k = 0; k < s->nr; k++) {
      size_t g = s->r0 + k;
      const struct rec *r = &st->tr.reads[g];
      df_fmt_loc(r, dv.rloc[g], sizeof dv.rloc[g]);
      fmt_val(r, dv.rval[g], sizeof dv.rval[g]);
      if (want_text) {
        strbuf_addf(&text, " %s=%s", dv.rloc[g], r->known ? dv.rval[g] : "?");
        if (r->def >= 0) strbuf_addf(&text, "(#%" PRId64 ")", r->def);
        else strbuf_addf(&text, "(in)");
      }
      struct asmspy_value *rv = &dv.reads[5 * g];
      rv[0] = rv_str(dv.rloc[g]);
      rv[1] = rv_int(r->size);
      rv[2] = r->known ? rv_str(dv.rval[g]) : rv_null();
      rv[3] = r->def >= 0 ? rv_int(r->def) : rv_null();
      rv[4] = rv_bool(r->def < 0);
      dv.read_items[g] = rv_object(rv);
    }
    if (want_text && s->nw) strbuf_addf(&text, "   w:");
    for (size_t k = 0; k < s->nw; k++) {
      size_t g = s->w0 + k;
      const struct rec *w = &st->tr.writes[g];
      df_fmt_loc(w, dv.wloc[g], sizeof dv.wloc[g]);
      fmt_val(w, dv.wval[g], sizeof dv.wval[g]);
      if (want_text) strbuf_addf(&text, " %s=%s", dv.wloc[g], w->known ? dv.wval[g] : "?");
      struct asmspy_value *wv = &dv.writes[3 * g];
      wv[0] = rv_str(dv.wloc[g]);
      wv[1] = rv_int(w->size);
      wv[2] = w->known ? rv_str(dv.wval[g]) : rv_null();
      dv.write_items[g] = rv_object(wv);
    }
    struct asmspy_value *sv = &dv.steps[DF_STEP_MEMBERS * i];
    sv[0] = rv_int((int64_t)i);
    sv[1] = rv_str(s->callout ? "callout" : "insn");
    sv[2] = rv_int((int64_t)(s->addr - st->rv.start));
    sv[3] = rv_hex(s->addr);
    sv[4] = rv_str(s->text);
    sv[5] = s->callout ? rv_hex(s->callee) : rv_absent();
    sv[6] = rv_array(&dv.read_items[s->r0], s->nr);
    sv[7] = rv_array(&dv.write_items[s->w0], s->nw);
    /* the opt-in streams: a member each, and an indented line under the step */
    const struct df_streams *on = &st->streams;
    sv[8] = on->steps ? regfile_value(&st->tr, i, &arena) : rv_absent();
    sv[9] = on->mem ? memlog_value(&st->tr, i, &arena) : rv_absent();
    sv[10] = on->statediff ? statediff_value(&st->tr, i, &arena) : rv_absent();
    sv[11] = on->insns ? insns_value(&st->tr, i) : rv_absent();
    sv[12] = on->steps && on->fpregs ? fpregs_value(&st->tr, i, &arena) : rv_absent();
    if (want_text) {
      if (on->insns) insns_text(&st->tr, i, &text);
      if (on->steps) regfile_text(&st->tr, i, &text);
      if (on->steps && on->fpregs) fpregs_text(&st->tr, i, &text);
      if (on->mem) memlog_text(&st->tr, i, &text);
      if (on->statediff) statediff_text(&st->tr, i, &text);
    }
    dv.step_items[i] = rv_object(sv);
    if (want_text) strbuf_addf(&text, "\n");
  }
  if (arena.oom) {
    h->note(st->s->out, ASMSPY_NOTE_WARN, "dataflow: out of memory rendering the streams");
    df_arena_free(&arena);
    df_values_free(&dv);
    free(text.s);
    return;
  }
  if (text.len && text.s[text.len - 1] == '\n') text.s[--text.len] = 0;
  const struct asmspy_value v[] = {
      rv_str(st->rv.name),
      rv_hex(st->rv.start),
      rv_int((int64_t)st->rv.len),
      rv_int(ev->tid),
      st->streams.continuous ? rv_int(st->invocations + 1) : rv_absent(),
      truncated ? rv_null() : rv_int((int64_t)ev->u.region.retval),
      rv_int((int64_t)st->executed),
      rv_int((int64_t)st->callouts),
      rv_bool(truncated),
      rv_int((int64_t)records),
      rv_array(dv.step_items, st->tr.nsteps),
  };
  rec_emit(h, st->s->out, &dataflow_records[DF_REC_DATAFLOW], v, text.s);
  free(text.s);
  df_values_free(&dv);
  df_arena_free(&arena);
  if (st->streams.blame) {
    struct df_blame_in in = {
        .ret_known = !truncated,
        .ret = ev->u.region.retval,
        .ret_def = st->reg_def[G_RAX],
        .invocation = st->streams.continuous ? st->invocations + 1 : 0,
        .mem_def = md_get_ctx,
        .mem_ctx = &st->md,
    };
    blame_emit(&st->tr, &in, h, st->s->out, &dataflow_records[DF_REC_BLAME]);
  }
}

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
  st->pending = -1;
  for (int g = 0; g < G_NREGS; g++) st->reg_def[g] = -1;
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = -1;
  *state = st;
  return 0;
}

static int df_configure(void *state, const struct asmspy_host_api *host, struct asmspy_session *s) {
  struct df_state *st = state;
  int rc = st->auto_opts.on
               ? df_auto_configure(&st->autopick, &st->auto_opts, host, s, &st->rv,
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

/* --continuous: forget the invocation just rendered (the arrays are kept
 * for the next one). */
static void reset_invocation(struct df_state *st) {
  st->tr.nsteps = st->tr.nreads = st->tr.nwrites = st->tr.ncins = 0;
  st->tr.min_rsp = 0;
  if (st->md.cap) memset(st->md.keys, 0, st->md.cap * sizeof *st->md.keys);
  st->md.n = 0;
  for (int g = 0; g < G_NREGS; g++) st->reg_def[g] = -1;
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = -1;
  st->pending = -1;
  st->executed = st->callouts = 0;
  st->entered = 0;
  st->last_regs_known = 0;
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
    if (st->entered) on_insn(st, ev);
    return ASMSPY_CONSUME_MORE;
  case ASMSPY_EV_CALLOUT:
    if (st->entered) on_callout(st, ev);
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
    fp_read(st, ev, -1);
    finish_pending(st, ev, NULL, !ev->u.region.truncated, ev->u.region.retval, 0, 0);
    render(st, ev);
    st->invocations++;
    if (st->streams.continuous && !(st->s->max > 0 && st->invocations >= st->s->max)) {
      reset_invocation(st);
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
  st->fp_ok = 0; /* nor is the FP state after the last step */
  finish_pending(st, &last, NULL, 0, 0, 0, 0); /* no target: its writes are unknown */
  st->host->note(st->s->out, ASMSPY_NOTE_WARN,
                 "%s: the capture ended before the invocation returned (%s); showing the %" PRIu64
                 " steps taken",
                 st->rv.name, end_status ? st->host->strerror(end_status) : "stopped",
                 st->executed);
  render(st, &last);
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
    RF_STR("loc", 0, "register (rbx, rflags) or [0xaddr]"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("value", NUL, "the value before the step, hex (null: unreadable)"),
    {.name = "def", .type = ASMSPY_FIELD_INT, .flags = NUL, .min = 0,
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
    {.name = "ret", .type = ASMSPY_FIELD_INT, .flags = NUL | OPT, .min = ANY_INT,
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
static const struct asmspy_tui_entry dataflow_tui = {'9', ASMSPY_TUI_DATAFLOW, ASMSPY_TUIF_PICK_SYMBOL, "data flow"};

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
};

ASMSPY_PLUGIN_ENTRY_FOR(df_plugin)
