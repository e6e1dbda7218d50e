/* --fpregs: the x87/SSE/AVX(-512) side of the trace.
 *   operands: the vector, x87, mmx, opmask and mxcsr registers a step
 *     reads and writes (host->operands' vread/vwritten, ABI 1.10) become
 *     reads and writes like the gprs, with their values from the thread's
 *     XSAVE state (host->read_fpregs) and def-use over PHYSICAL registers:
 *     xmm3/ymm3/zmm3 are one register; st(i) is x87 register (TOP + i) & 7,
 *     so a value pushed by fld and read as st(1) two pushes later still
 *     points at its fld. A call-out defines them all (SysV: every one is
 *     caller-saved), without listing them as writes. The x87 registers a
 *     step loaded or changed (the states before and after it show which)
 *     are its writes even where Capstone names only the status word.
 *   --steps: the whole FP/vector register file each step saw — mxcsr, the
 *     x87 control/status/tag words, st(0)-st(7), every vector register at
 *     the widest width the CPU has, k0-k7. */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned top_of(const struct asmspy_fpregs *fp) { return (fp->fsw >> 11) & 7u; }

uint8_t fp_vkey(uint16_t vreg, const struct asmspy_fpregs *fp) {
  unsigned n = ASMSPY_VREG_NUM(vreg);
  switch (ASMSPY_VREG_CLASS(vreg)) {
  case ASMSPY_VREG_XMM:
  case ASMSPY_VREG_YMM:
  case ASMSPY_VREG_ZMM:
  case ASMSPY_VREG_V: return (uint8_t)(n & 31u); /* AArch64 b/h/s/d/q/v<n>: one register */
  case ASMSPY_VREG_ST: return (uint8_t)(32 + ((top_of(fp) + n) & 7u));
  case ASMSPY_VREG_MM: return (uint8_t)(32 + (n & 7u));
  case ASMSPY_VREG_K: return (uint8_t)(40 + (n & 7u));
  case ASMSPY_VREG_MXCSR: return 48;
  case ASMSPY_VREG_FPSW: return 49;
  default: return 50;
  }
}

void fp_value(const struct asmspy_host_api *h, const struct asmspy_fpregs *fp, struct rec *r,
              int after) {
  uint16_t id = r->vreg;
  if (after && ASMSPY_VREG_CLASS(id) == ASMSPY_VREG_ST) /* where that physical register sits now */
    id = ASMSPY_VREG(ASMSPY_VREG_ST, ((unsigned)r->vkey - 32u - top_of(fp)) & 7u);
  memset(r->val, 0, sizeof r->val);
  size_t n = h->vreg_value(fp, id, r->val, sizeof r->val);
  r->known = n > 0;
  if (n) r->size = (uint32_t)n;
}

int fp_x87_written(const struct asmspy_fpregs *pre, const struct asmspy_fpregs *post, unsigned p) {
  if (!(pre->have & post->have & ASMSPY_FP_X87) || !(post->ftw & (1u << p))) return 0;
  const uint8_t *after = post->st[(p - top_of(post)) & 7u],
                *before = pre->st[(p - top_of(pre)) & 7u];
  return !(pre->ftw & (1u << p)) || memcmp(before, after, 10) != 0;
}

/* the widest vector width the state holds */
static size_t vec_width(const struct asmspy_fpregs *fp) {
  return fp->have & ASMSPY_FP_AVX512 ? 64 : fp->have & ASMSPY_FP_AVX ? 32 : 16;
}

const struct asmspy_field df_fpregs_fields[] = {
    RF_HEX("mxcsr", 0, "SSE control/status"),
    RF_HEX("fcw", 0, "x87 control word"),
    RF_HEX("fsw", 0, "x87 status word (TOP in bits 11-13)"),
    RF_HEX("ftw", 0, "x87 abridged tag: bit i set = physical register i valid"),
    RF_ARRAY("st", "string", NULL, 0, "st(0)..st(7) in stack order, 80-bit extended, hex"),
    RF_ARRAY("vec", "string", NULL, 0,
             "vector register 0..n-1 at the widest width the CPU has (zmm, ymm or xmm), hex"),
    RF_ARRAY("k", "hex", NULL, 0, "AVX-512 opmasks k0..k7 (0 without AVX-512)"),
    RF_END,
};

static char *hex_le(struct df_arena *a, const uint8_t *b, size_t n) {
  char buf[2 * 64 + 4];
  df_fmt_bytes(b, (uint32_t)n, buf, sizeof buf);
  return df_strdup(a, buf);
}

struct asmspy_value fpregs_value(const struct df_trace *t, size_t i, struct df_arena *a) {
  if (!t->fp || !t->fp[i].have) return rv_absent();
  const struct asmspy_fpregs *fp = &t->fp[i];
  size_t w = vec_width(fp);
  struct asmspy_value *v = df_values(a, 7), *st = df_values(a, 8), *vec = df_values(a, fp->nvec),
                      *k = df_values(a, 8);
  if (!v || !st || !vec || !k) return rv_absent();
  for (int j = 0; j < 8; j++) {
    char *s = hex_le(a, fp->st[j], 10);
    if (!s) return rv_absent();
    st[j] = rv_str(s);
    k[j] = rv_hex(fp->k[j]);
  }
  for (uint32_t j = 0; j < fp->nvec && j < 32; j++) {
    char *s = hex_le(a, fp->zmm[j], w);
    if (!s) return rv_absent();
    vec[j] = rv_str(s);
  }
  v[0] = rv_hex(fp->mxcsr);
  v[1] = rv_hex(fp->fcw);
  v[2] = rv_hex(fp->fsw);
  v[3] = rv_hex(fp->ftw);
  v[4] = rv_array(st, 8);
  v[5] = rv_array(vec, fp->nvec < 32 ? fp->nvec : 32);
  v[6] = rv_array(k, 8);
  return rv_object(v);
}

static int all_zero(const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b[i]) return 0;
  return 1;
}

/* The text line: the control words, the valid x87 registers, and the
 * vector / opmask registers that are not zero (all of them are in the JSON). */
void fpregs_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  if (!t->fp || !t->fp[i].have) {
    strbuf_addf(text, "\n        fpregs: (not observed)");
    return;
  }
  const struct asmspy_fpregs *fp = &t->fp[i];
  size_t w = vec_width(fp);
  const char *vn = w == 64 ? "zmm" : w == 32 ? "ymm" : "xmm";
  char buf[2 * 64 + 4];
  strbuf_addf(text, "\n        fpregs: mxcsr=0x%" PRIx32 " fcw=0x%x fsw=0x%x ftw=0x%x", fp->mxcsr,
              fp->fcw, fp->fsw, fp->ftw);
  for (unsigned j = 0; j < 8; j++)
    if (fp->ftw & (1u << ((top_of(fp) + j) & 7u))) {
      df_fmt_bytes(fp->st[j], 10, buf, sizeof buf);
      strbuf_addf(text, " st(%u)=%s", j, buf);
    }
  size_t zero = 0;
  for (uint32_t j = 0; j < fp->nvec && j < 32; j++) {
    if (all_zero(fp->zmm[j], w)) {
      zero++;
      continue;
    }
    df_fmt_bytes(fp->zmm[j], (uint32_t)w, buf, sizeof buf);
    strbuf_addf(text, " %s%u=%s", vn, j, buf);
  }
  for (unsigned j = 0; j < 8; j++)
    if (fp->k[j]) strbuf_addf(text, " k%u=0x%" PRIx64, j, fp->k[j]);
  if (zero) strbuf_addf(text, " (%zu %s registers 0)", zero, vn);
}

/* the k-th change; returns the number of changes */
size_t fp_diff(const struct asmspy_fpregs *pre, const struct asmspy_fpregs *post, size_t k,
               char *name, size_t ncap, char *before, char *after, size_t vcap) {
  size_t n = 0;
  if (!pre->have || !post->have) return 0;
#define FP_CHANGE(nm_fmt, nm_arg, b, a, len)                                                       \
  do {                                                                                             \
    if (n++ == k && name) {                                                                        \
      snprintf(name, ncap, nm_fmt, nm_arg);                                                        \
      df_fmt_bytes(b, (uint32_t)(len), before, vcap);                                              \
      df_fmt_bytes(a, (uint32_t)(len), after, vcap);                                               \
    }                                                                                              \
  } while (0)
  size_t w = vec_width(post);
  const char *vn = w == 64 ? "zmm" : w == 32 ? "ymm" : "xmm";
  for (uint32_t j = 0; j < post->nvec && j < 32; j++)
    if (memcmp(pre->zmm[j], post->zmm[j], w)) {
      char nm[8];
      snprintf(nm, sizeof nm, "%s%u", vn, j);
      FP_CHANGE("%s", nm, pre->zmm[j], post->zmm[j], w);
    }
  for (unsigned p = 0; p < 8; p++)
    if (fp_x87_written(pre, post, p)) {
      FP_CHANGE("st(%u)", (p - top_of(post)) & 7u, pre->st[(p - top_of(pre)) & 7u],
                post->st[(p - top_of(post)) & 7u], 10);
      if (n - 1 == k && name && !(pre->ftw & (1u << p))) snprintf(before, vcap, "empty");
    }
  for (unsigned j = 0; j < 8; j++)
    if (pre->k[j] != post->k[j])
      FP_CHANGE("k%u", j, (const uint8_t *)&pre->k[j], (const uint8_t *)&post->k[j], 8);
  if (pre->mxcsr != post->mxcsr)
    FP_CHANGE("%s", "mxcsr", (const uint8_t *)&pre->mxcsr, (const uint8_t *)&post->mxcsr, 4);
  if (pre->fsw != post->fsw)
    FP_CHANGE("%s", "fsw", (const uint8_t *)&pre->fsw, (const uint8_t *)&post->fsw, 2);
  if (pre->fcw != post->fcw)
    FP_CHANGE("%s", "fcw", (const uint8_t *)&pre->fcw, (const uint8_t *)&post->fcw, 2);
#undef FP_CHANGE
  return n;
}
