/* --statediff: per step only what it changed.
 *   registers: the register file the step saw vs the one the next step saw
 *     (for the last step, and after a step whose successor's registers are
 *     unknown: the values it wrote, as observed). rip is left out: it
 *     changes at every step and each step shows its own address.
 *   memory: each range the step wrote, when its bytes after differ from
 *     its bytes before (read just before the step ran) — a write of the
 *     value already there is not a change.
 *   with --fpregs: the FP/vector registers whose value differs between the
 *     state the step saw and the one the next step saw (fpregs.c).
 * A call-out's change is what the callee left in the registers (its
 * memory writes ran natively and are not seen). */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>
#include <string.h>

static const struct asmspy_field diff_reg_fields[] = {
    RF_STR("reg", 0, "the register"),
    RF_HEX("before", 0, "its value before the step"),
    RF_HEX("after", 0, "its value after"),
    RF_END,
};
static const struct asmspy_field diff_mem_fields[] = {
    RF_HEX("addr", 0, "the range written"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("before", 0, "its bytes before the step, hex"),
    RF_STR("after", 0, "its bytes after, hex"),
    RF_END,
};
static const struct asmspy_field diff_fp_fields[] = {
    RF_STR("reg", 0, "xmm/ymm/zmm<n> (the widest the CPU has), st(i), k<n>, mxcsr, fsw, fcw"),
    RF_STR("before", 0, "its value before the step, hex (\"empty\": an x87 register loaded)"),
    RF_STR("after", 0, "its value after"),
    RF_END,
};
const struct asmspy_field df_diff_fields[] = {
    RF_ARRAY("regs", "object", diff_reg_fields, 0,
             "registers whose value the step changed (rip left out)"),
    RF_ARRAY("mem", "object", diff_mem_fields, 0, "memory the step wrote with a different value"),
    RF_ARRAY(
        "fp", "object", diff_fp_fields, OPT,
        "--fpregs: FP/vector registers whose value the step changed (not after the last step)"),
    RF_END,
};

/* the FP states before and after step i, when both were kept (--fpregs) */
static int fp_pair(const struct df_trace *t, size_t i, const struct asmspy_fpregs **pre,
                   const struct asmspy_fpregs **post) {
  if (!t->fp || i + 1 >= t->nsteps) return 0;
  *pre = &t->fp[i];
  *post = &t->fp[i + 1];
  return 1;
}

/* register g after step i, if observed */
static int reg_after(const struct df_trace *t, size_t i, int g, uint64_t *out) {
  if (i + 1 < t->nsteps && t->steps[i + 1].regs_known) {
    *out = t->regs[i + 1][g];
    return 1;
  }
  const struct step *s = &t->steps[i];
  for (size_t k = 0; k < s->nw; k++) {
    const struct rec *w = &t->writes[s->w0 + k];
    if (!w->is_mem && w->reg == g && w->known) {
      memcpy(out, w->val, 8);
      return 1;
    }
  }
  return 0;
}

/* the changed registers of step i: n, and the k-th (register, before, after) */
static size_t changed_regs(const struct df_trace *t, size_t i, size_t k, int *g_out,
                           uint64_t *before, uint64_t *after) {
  if (!t->steps[i].regs_known) return 0;
  size_t n = 0;
  for (int g = 0; g < (int)df_arch->nregs; g++) {
    uint64_t v;
    if (g == df_arch->reg_ip || !reg_after(t, i, g, &v) || v == t->regs[i][g]) continue;
    if (n == k && g_out) {
      *g_out = g;
      *before = t->regs[i][g];
      *after = v;
    }
    n++;
  }
  return n;
}

static const uint8_t *pre_of(const struct df_trace *t, const struct rec *w) {
  return t->pre[w - t->writes];
}

static int mem_changed(const struct df_trace *t, const struct rec *w) {
  size_t n = df_rec_nbytes(w);
  return w->is_mem && w->known && w->pre_known && memcmp(pre_of(t, w), w->val, n) != 0;
}

struct asmspy_value statediff_value(const struct df_trace *t, size_t i, struct df_arena *a) {
  const struct step *s = &t->steps[i];
  size_t nr = changed_regs(t, i, 0, NULL, NULL, NULL), nm = 0;
  for (size_t k = 0; k < s->nw; k++) nm += mem_changed(t, &t->writes[s->w0 + k]);
  struct asmspy_value *ri = df_values(a, nr), *mi = df_values(a, nm), *obj = df_values(a, 3);
  if (!ri || !mi || !obj) return rv_absent();
  for (size_t k = 0; k < nr; k++) {
    int g;
    uint64_t b, af;
    changed_regs(t, i, k, &g, &b, &af);
    struct asmspy_value *v = df_values(a, 3);
    if (!v) return rv_absent();
    v[0] = rv_str(df_reg_name((unsigned)g));
    v[1] = rv_hex(b);
    v[2] = rv_hex(af);
    ri[k] = rv_object(v);
  }
  size_t m = 0;
  for (size_t k = 0; k < s->nw; k++) {
    const struct rec *w = &t->writes[s->w0 + k];
    if (!mem_changed(t, w)) continue;
    struct asmspy_value *v = df_values(a, 4);
    char b[2 * VAL_MAX + 4], af[2 * VAL_MAX + 4];
    df_fmt_bytes(pre_of(t, w), df_rec_nbytes(w), b, sizeof b);
    df_fmt_bytes(w->val, df_rec_nbytes(w), af, sizeof af);
    char *bs = df_strdup(a, b), *as = df_strdup(a, af);
    if (!v || !bs || !as) return rv_absent();
    v[0] = rv_hex(w->addr);
    v[1] = rv_int(w->size);
    v[2] = rv_str(bs);
    v[3] = rv_str(as);
    mi[m++] = rv_object(v);
  }
  obj[0] = rv_array(ri, nr);
  obj[1] = rv_array(mi, nm);
  obj[2] = rv_absent();
  const struct asmspy_fpregs *pre, *post;
  if (t->fp) {
    size_t nf = fp_pair(t, i, &pre, &post) ? fp_diff(pre, post, 0, NULL, 0, NULL, NULL, 0) : 0;
    struct asmspy_value *fi = df_values(a, nf);
    if (!fi) return rv_absent();
    for (size_t k = 0; k < nf; k++) {
      char nm[16], b[2 * VAL_MAX + 4], af[2 * VAL_MAX + 4];
      fp_diff(pre, post, k, nm, sizeof nm, b, af, sizeof b);
      struct asmspy_value *v = df_values(a, 3);
      char *ns = df_strdup(a, nm), *bs = df_strdup(a, b), *as = df_strdup(a, af);
      if (!v || !ns || !bs || !as) return rv_absent();
      v[0] = rv_str(ns);
      v[1] = rv_str(bs);
      v[2] = rv_str(as);
      fi[k] = rv_object(v);
    }
    obj[2] = rv_array(fi, nf);
  }
  return rv_object(obj);
}

void statediff_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  const struct step *s = &t->steps[i];
  size_t nr = changed_regs(t, i, 0, NULL, NULL, NULL);
  strbuf_addf(text, "\n        diff:");
  size_t shown = 0;
  for (size_t k = 0; k < nr; k++, shown++) {
    int g;
    uint64_t b, af;
    changed_regs(t, i, k, &g, &b, &af);
    strbuf_addf(text, " %s 0x%" PRIx64 "->0x%" PRIx64, df_reg_name((unsigned)g), b, af);
  }
  for (size_t k = 0; k < s->nw; k++) {
    const struct rec *w = &t->writes[s->w0 + k];
    if (!mem_changed(t, w)) continue;
    char b[2 * VAL_MAX + 4], af[2 * VAL_MAX + 4];
    df_fmt_bytes(pre_of(t, w), df_rec_nbytes(w), b, sizeof b);
    df_fmt_bytes(w->val, df_rec_nbytes(w), af, sizeof af);
    strbuf_addf(text, " [0x%" PRIx64 "] %s->%s", w->addr, b, af);
    shown++;
  }
  const struct asmspy_fpregs *pre, *post;
  size_t nf = fp_pair(t, i, &pre, &post) ? fp_diff(pre, post, 0, NULL, 0, NULL, NULL, 0) : 0;
  for (size_t k = 0; k < nf; k++, shown++) {
    char nm[16], b[2 * VAL_MAX + 4], af[2 * VAL_MAX + 4];
    fp_diff(pre, post, k, nm, sizeof nm, b, af, sizeof b);
    strbuf_addf(text, " %s %s->%s", nm, b, af);
  }
  if (!shown) strbuf_addf(text, " (nothing)");
}
