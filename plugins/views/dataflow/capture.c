/* The recording of one invocation (capture.h): per INSN event the step's
 * reads (values now, defs from the maps), its writes (values at the next
 * event that shows them), and what the opt-in streams keep of the state
 * the step saw; per CALLOUT the synthetic step that stands for the callee. */
#include "plugins/views/dataflow/capture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct asmspy_arch *df_arch; /* host->arch: dataflow.c's entry sets it */

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

int64_t df_md_get(const void *m, uint64_t addr) { return md_get(m, addr); }

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
    uint64_t(*r)[DF_NREGS] = realloc(st->tr.regs, st->tr.scap * sizeof *r);
    if (!r) return NULL;
    st->tr.regs = r;
    st->tr.regcap = st->tr.scap;
  }
  if ((st->streams.steps || st->streams.statediff) && st->streams.fpregs &&
      st->tr.fpcap < st->tr.scap) {
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
void df_fp_read(struct df_state *st, const struct asmspy_event *ev, int64_t idx) {
  if (!st->streams.fpregs) return;
  if (idx < 0) {
    st->fp_prev = st->fp;
    st->fp_prev_ok = st->fp_ok;
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

/* register id g's value in regs (the arch's pseudo registers included) */
static int reg_get(const struct asmspy_regs *regs, int g, uint64_t *v) {
  return regs && ASMSPY_HAS(regs, gpr) && asmspy_reg_value(df_arch, regs, g, v);
}

/* The post-execution state of the pending step is visible now: fill its
 * written values. regs: the registers now (NULL = registers unknown, except
 * the return register = retval when have_ret). A call's own writes are
 * computed (the callee already runs: sp is the call's sp less what it
 * pushed, ip the callee, the link register the call's fall-through). */
/* --fpregs: the x87 registers step idx loaded or changed, as the states
 * before and after it show, are its writes too — Capstone names only the
 * status word for fld/fmulp/fadd, not the stack slot they fill. */
static void x87_writes(struct df_state *st, int64_t idx) {
  struct step *s = &st->tr.steps[idx];
  for (unsigned p = 0; p < 8; p++) {
    if (s->w0 + s->nw != st->tr.nwrites) return; /* its writes must stay contiguous */
    if (!fp_x87_written(&st->fp_prev, &st->fp, p)) continue;
    int listed = 0;
    for (size_t k = 0; k < s->nw; k++)
      listed |= st->tr.writes[s->w0 + k].vreg && st->tr.writes[s->w0 + k].vkey == 32 + p;
    if (listed) continue;
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) return;
    uint16_t id = ASMSPY_VREG(ASMSPY_VREG_ST, (p - ((st->fp.fsw >> 11) & 7u)) & 7u);
    w->vreg = id;
    w->vkey = (uint8_t)(32 + p);
    st->host->vreg_name(id, w->vname, sizeof w->vname);
    fp_value(st->host, &st->fp, w, 1);
    st->vdef[w->vkey] = idx;
    s->nw++;
  }
}

void df_finish_pending(struct df_state *st, const struct asmspy_event *ev,
                       const struct asmspy_regs *regs, int have_ret, uint64_t retval,
                       int at_callout, uint64_t callee) {
  if (st->pending < 0) return;
  struct step *s = &st->tr.steps[st->pending];
  const struct asmspy_arch *a = df_arch;
  for (size_t i = 0; i < s->nw; i++) {
    struct rec *w = &st->tr.writes[s->w0 + i];
    uint64_t v;
    if (w->vreg) {
      if (st->fp_ok)
        fp_value(st->host, &st->fp, w, 1);
      else
        w->known = 0;
    } else if (w->is_mem) {
      read_value(st, ev, w);
    } else if (at_callout) {
      if (w->reg == a->reg_sp)
        set_u64(w, s->pre_rsp - a->call_push);
      else if (w->reg == a->reg_ip)
        set_u64(w, callee);
      else if (w->reg == a->reg_link && a->insn_align >= 4)
        set_u64(w, s->addr + a->insn_align);
      else
        w->known = 0;
    } else if (reg_get(regs, w->reg, &v)) {
      set_u64(w, v);
    } else if (have_ret && w->reg == a->reg_ret) {
      set_u64(w, retval);
    } else {
      w->known = 0;
    }
  }
  if (!s->callout && st->fp_ok && st->fp_prev_ok) x87_writes(st, st->pending);
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

/* What the opt-in streams keep of the state step idx saw: the register
 * file (--steps / --statediff), the FP state (--fpregs) and the
 * instruction's bytes (--insns). */
static void snap_state(struct df_state *st, const struct asmspy_event *ev,
                       const struct asmspy_regs *regs, struct step *s, int64_t idx) {
  const struct asmspy_arch *a = df_arch;
  st->last_regs_known = regs && ASMSPY_HAS(regs, gpr) && regs->ngpr >= a->ngpr;
  if (st->last_regs_known) { /* the whole register file, pseudo registers included */
    memset(st->last_regs, 0, sizeof st->last_regs);
    for (uint32_t g = 0; g < a->nregs; g++) reg_get(regs, (int)g, &st->last_regs[g]);
    snap_regs(st, (size_t)idx, st->last_regs);
  }
  df_fp_read(st, ev, idx);
  if (st->streams.insns) { /* the instruction's own length within the bytes read */
    char dis[128];
    int len = st->host->disasm(ev->ip, ev->u.insn.bytes, ev->u.insn.len, dis, sizeof dis);
    s->len = len > 0 && len <= (int)sizeof s->bytes ? (uint8_t)len : 0;
    memcpy(s->bytes, ev->u.insn.bytes, s->len);
  }
}

/* The step's reads (registers, memory, FP/vector registers) with their
 * values now and their defs: the steps that last wrote them, before this
 * one's writes are counted. */
static void add_reads(struct df_state *st, const struct asmspy_event *ev,
                      const struct asmspy_regs *regs, const struct asmspy_operands *o,
                      struct step *s) {
  const struct asmspy_arch *a = df_arch;
  uint64_t v;
  for (unsigned i = 0; i < o->nread && i < sizeof o->read; i++) {
    int g = o->read[i];
    if (g == a->reg_ip || g >= (int)a->nregs) continue;
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    r->reg = (uint8_t)g;
    r->size = 8;
    if (reg_get(regs, g, &v)) set_u64(r, v);
    r->def = st->reg_def[g];
    s->nr++;
  }
  for (unsigned i = 0; i < o->nmem && i < 4; i++) {
    if (!(o->mem[i].access & ASMSPY_MEM_READ)) continue;
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    r->is_mem = 1;
    r->addr = o->mem[i].addr;
    r->size = o->mem[i].size;
    read_value(st, ev, r);
    int64_t def = -1; /* the latest writer of any of its bytes */
    for (uint32_t b = 0; b < r->size; b++) {
      int64_t d = md_get(&st->md, r->addr + b);
      if (d > def) def = d;
    }
    r->def = def;
    s->nr++;
  }
  for (unsigned i = 0; st->streams.fpregs && i < o->nvread && i < 8; i++) {
    struct rec *r = new_rec(&st->tr.reads, &st->tr.nreads, &st->tr.rcap);
    if (!r) break;
    vreg_rec(st, r, o->vread[i]);
    if (st->fp_ok) fp_value(st->host, &st->fp, r, 0);
    r->def = st->vdef[r->vkey];
    s->nr++;
  }
}

/* --statediff: the bytes memory write w is about to overwrite, to tell a
 * change from a rewrite of the same value. */
static void save_pre_bytes(struct df_state *st, const struct asmspy_event *ev, struct rec *w) {
  size_t n = w->size < MEM_VAL_MAX ? w->size : MEM_VAL_MAX;
  size_t wi = (size_t)(w - st->tr.writes);
  if (wi >= st->tr.precap) {
    size_t nc = st->tr.wcap;
    uint8_t(*p)[MEM_VAL_MAX] = realloc(st->tr.pre, nc * sizeof *p);
    if (p) st->tr.pre = p, st->tr.precap = nc;
  }
  w->pre_known = wi < st->tr.precap &&
                 st->host->read_mem(ev->target, w->addr, st->tr.pre[wi], n) == (ssize_t)n;
}

/* The step's writes: step idx is now their definition. Their values are
 * filled when the next event shows the state after it
 * (df_finish_pending). */
static void add_writes(struct df_state *st, const struct asmspy_event *ev,
                       const struct asmspy_operands *o, struct step *s, int64_t idx) {
  const struct asmspy_arch *a = df_arch;
  for (unsigned i = 0; i < o->nwritten && i < sizeof o->written; i++) {
    int g = o->written[i];
    if (g == a->reg_ip || g >= (int)a->nregs) continue;
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->reg = (uint8_t)g;
    w->size = 8;
    st->reg_def[g] = idx;
    s->nw++;
  }
  for (unsigned i = 0; i < o->nmem && i < 4; i++) {
    if (!(o->mem[i].access & ASMSPY_MEM_WRITE)) continue;
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->is_mem = 1;
    w->addr = o->mem[i].addr;
    w->size = o->mem[i].size;
    if (st->streams.statediff) save_pre_bytes(st, ev, w);
    for (uint32_t b = 0; b < w->size; b++) md_set(&st->md, w->addr + b, idx);
    s->nw++;
  }
  for (unsigned i = 0; st->streams.fpregs && i < o->nvwritten && i < 8; i++) {
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    vreg_rec(st, w, o->vwritten[i]); /* its value: from the state after the step */
    st->vdef[w->vkey] = idx;
    s->nw++;
  }
}

void df_on_insn(struct df_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  const struct asmspy_arch *a = df_arch;
  const struct asmspy_regs *regs = ASMSPY_HAS(ev, regs) ? ev->regs : NULL;
  uint64_t v;
  df_fp_read(st, ev, -1);
  df_finish_pending(st, ev, regs, 0, 0, 0, 0);
  struct asmspy_operands o;
  memset(&o, 0, sizeof o);
  ASMSPY_INIT_HEADER(&o);
  h->operands(ev->ip, ev->u.insn.bytes, ev->u.insn.len, regs, &o);
  struct step *s = new_step(st);
  if (!s) return;
  int64_t idx = (int64_t)(st->tr.nsteps - 1);
  s->addr = ev->ip;
  s->pre_rsp = reg_get(regs, a->reg_sp, &v) ? v : ev->u.insn.sp;
  snprintf(s->text, sizeof s->text, "%s", o.text);
  st->executed++;
  note_rsp(st, s->pre_rsp);
  snap_state(st, ev, regs, s, idx);
  add_reads(st, ev, regs, &o, s);
  add_writes(st, ev, &o, s, idx);
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

void df_on_callout(struct df_state *st, const struct asmspy_event *ev) {
  /* the thread is stopped at the callee's first instruction: the call's
   * own effects (return slot, rsp) are visible now */
  const struct asmspy_arch *a = df_arch;
  int64_t call = st->pending; /* the call instruction's step */
  df_fp_read(st, ev, -1);
  df_finish_pending(st, ev, NULL, 0, 0, 1, ev->u.branch.to);
  struct step *s = new_step(st);
  if (!s) return;
  int64_t idx = (int64_t)(st->tr.nsteps - 1);
  s->callout = 1;
  s->addr = ev->u.branch.from;
  s->callee = ev->u.branch.to;
  if (call >= 0 &&
      a->call_push) { /* the return slot the call pushed, which the callee's ret pops */
    s->pre_rsp = s->slot = st->tr.steps[call].pre_rsp - a->call_push;
    s->slot_known = st->host->read_mem(ev->target, s->slot, &s->slot_val, 8) == 8;
    note_rsp(st, s->slot);
  } else if (call >= 0) { /* the return address went to the link register */
    s->pre_rsp = st->tr.steps[call].pre_rsp;
  }
  if (st->last_regs_known) { /* what the callee starts with: the call's effects only */
    uint64_t r[DF_NREGS];
    memcpy(r, st->last_regs, sizeof r);
    if (a->reg_sp >= 0) r[a->reg_sp] = s->pre_rsp ? s->pre_rsp : r[a->reg_sp] - a->call_push;
    if (a->reg_ip >= 0) r[a->reg_ip] = s->callee;
    if (a->reg_link >= 0 && call >= 0) r[a->reg_link] = s->addr + a->insn_align;
    snap_regs(st, (size_t)idx, r);
  }
  df_fp_read(st, ev, idx);
  /* SysV: every vector register is caller-saved (AAPCS64 keeps the low
   * half of v8-v15: a def here is conservative) */
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = idx;
  if (st->streams.blame) { /* its inputs, as far as the caller can tell: the argument registers */
    for (uint32_t i = 0; i < a->nargs && i < sizeof a->args; i++) {
      struct rec *r = new_rec(&st->tr.cins, &st->tr.ncins, &st->tr.ccap);
      if (!r) break;
      r->reg = a->args[i];
      r->size = 8;
      r->def = st->reg_def[a->args[i]];
      if (st->last_regs_known) set_u64(r, st->last_regs[a->args[i]]);
      s->nc++;
    }
  }
  char name[100];
  symbol_name(st, ev->target, ev->u.branch.to, name, sizeof name);
  snprintf(s->text, sizeof s->text, "callout %s", name);
  st->callouts++;
  for (uint32_t i = 0; i < a->nclobber && i < sizeof a->clobber; i++) { /* what a call may change */
    struct rec *w = new_rec(&st->tr.writes, &st->tr.nwrites, &st->tr.wcap);
    if (!w) break;
    w->reg = a->clobber[i];
    w->size = 8;
    st->reg_def[a->clobber[i]] = idx;
    s->nw++;
  }
  st->pending = idx; /* its values: the registers at the next INSN */
}

/* --continuous: forget the invocation just rendered (the arrays are kept
 * for the next one). */
void df_reset_invocation(struct df_state *st) {
  st->tr.nsteps = st->tr.nreads = st->tr.nwrites = st->tr.ncins = 0;
  st->tr.min_rsp = 0;
  if (st->md.cap) memset(st->md.keys, 0, st->md.cap * sizeof *st->md.keys);
  st->md.n = 0;
  for (int g = 0; g < DF_NREGS; g++) st->reg_def[g] = -1;
  for (int k = 0; k < DF_VKEYS; k++) st->vdef[k] = -1;
  st->pending = -1;
  st->executed = st->callouts = 0;
  st->entered = 0;
  st->last_regs_known = 0;
}
