/* host->read_fpregs / vreg_value / vreg_name: a stopped thread's x87, SSE,
 * AVX and AVX-512 state, for views that follow values through vector code
 * (--dataflow --fpregs).
 *
 * The kernel hands it out as an XSAVE image (PTRACE_GETREGSET
 * NT_X86_XSTATE), always in the standard (non-compacted) format: the 512
 * byte legacy FXSAVE area (x87 + mxcsr + xmm0-15), the 64 byte XSAVE header
 * (xstate_bv at 512: which components hold non-init state), then each
 * component at the offset CPUID leaf 0xD sub-leaf <component> gives in EBX.
 * A component whose xstate_bv bit is clear is in its initial state, which
 * for every component read here is all zeros. Where NT_X86_XSTATE is not
 * offered (no XSAVE), NT_PRFPREG (the FXSAVE area alone) still gives x87 and
 * SSE.
 *
 * Components used: 2 = YMM_Hi128 (the upper halves of ymm0-15), 5 = opmask
 * (k0-7), 6 = ZMM_Hi256 (the upper 256 bits of zmm0-15), 7 = Hi16_ZMM
 * (zmm16-31 whole). */
#define _GNU_SOURCE
#include "host/host.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif

enum { XS_LEGACY = 512, XS_HEADER = 64, XS_BV = 512 };
enum { C_X87 = 0, C_SSE = 1, C_YMM_HI = 2, C_OPMASK = 5, C_ZMM_HI256 = 6, C_HI16_ZMM = 7, C_N = 8 };

/* CPUID 0xD: the offset and size of each component in the standard format,
 * and the whole image's size for the features the OS enabled. */
struct xs_layout {
  int ready;
  uint32_t size;
  uint32_t off[C_N], len[C_N];
};

static const struct xs_layout *layout(void) {
  static struct xs_layout l;
  if (l.ready) return &l;
  l.ready = 1;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, NULL) >= 0xd) {
    __cpuid_count(0xd, 0, a, b, c, d);
    l.size = b;
    for (unsigned i = 2; i < C_N; i++) {
      __cpuid_count(0xd, i, a, b, c, d);
      l.len[i] = a;
      l.off[i] = b;
    }
  }
#endif
  return &l;
}

static uint64_t le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static uint32_t le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint16_t le16(const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

/* A component's bytes in the image, or NULL when the image does not reach
 * it; *init = its xstate_bv bit is clear (all zeros). */
static const uint8_t *component(const uint8_t *img, size_t len, unsigned c, size_t need,
                                int *init) {
  const struct xs_layout *l = layout();
  if (len < XS_LEGACY + XS_HEADER || !l->off[c] || l->len[c] < need) return NULL;
  if ((size_t)l->off[c] + need > len) return NULL;
  *init = !(le64(img + XS_BV) & (1ull << c));
  return img + l->off[c];
}

uint32_t fpregs_decode_xsave(const uint8_t *img, size_t len, struct asmspy_fpregs *o) {
  uint32_t have = 0;
  o->nvec = 16;
  if (len >= XS_LEGACY) { /* the FXSAVE area: x87 and SSE */
    o->fcw = le16(img + 0);
    o->fsw = le16(img + 2);
    o->ftw = img[4];
    o->fop = le16(img + 6);
    o->fip = le64(img + 8);
    o->fdp = le64(img + 16);
    o->mxcsr = le32(img + 24);
    o->mxcsr_mask = le32(img + 28);
    for (int i = 0; i < 8; i++) memcpy(o->st[i], img + 32 + 16 * i, 10);
    for (int i = 0; i < 16; i++) memcpy(o->zmm[i], img + 160 + 16 * i, 16);
    have |= ASMSPY_FP_X87 | ASMSPY_FP_SSE;
  }
  int init = 0;
  const uint8_t *p = component(img, len, C_YMM_HI, 16 * 16, &init);
  if (p) {
    for (int i = 0; i < 16; i++)
      if (init)
        memset(o->zmm[i] + 16, 0, 16);
      else
        memcpy(o->zmm[i] + 16, p + 16 * i, 16);
    have |= ASMSPY_FP_AVX;
  }
  int init_k = 0, init_hi = 0, init_16 = 0;
  const uint8_t *k = component(img, len, C_OPMASK, 8 * 8, &init_k);
  const uint8_t *hi = component(img, len, C_ZMM_HI256, 16 * 32, &init_hi);
  const uint8_t *z16 = component(img, len, C_HI16_ZMM, 16 * 64, &init_16);
  if ((have & ASMSPY_FP_AVX) && k && hi && z16) {
    for (int i = 0; i < 8; i++) o->k[i] = init_k ? 0 : le64(k + 8 * i);
    for (int i = 0; i < 16; i++)
      if (init_hi)
        memset(o->zmm[i] + 32, 0, 32);
      else
        memcpy(o->zmm[i] + 32, hi + 32 * i, 32);
    for (int i = 0; i < 16; i++)
      if (init_16)
        memset(o->zmm[16 + i], 0, 64);
      else
        memcpy(o->zmm[16 + i], z16 + 64 * i, 64);
    o->nvec = 32;
    have |= ASMSPY_FP_AVX512;
  }
  return have;
}

int fpregs_read(struct asmspy_target *t, int32_t tid, struct asmspy_fpregs *out) {
  (void)t; /* ptrace answers for tid: ESRCH when it is not stopped under us */
  if (!out || out->struct_size < offsetof(struct asmspy_fpregs, have) + sizeof out->have)
    return -EINVAL;
  size_t cap = out->struct_size < sizeof *out ? out->struct_size : sizeof *out;
  struct asmspy_fpregs full;
  memset(&full, 0, sizeof full);
  ASMSPY_INIT_HEADER(&full);
#if defined(__x86_64__)
  /* one image buffer for the process (one tracer thread; --fpregs reads
   * it at every step, so no allocation per call) */
  static uint8_t *img;
  static size_t size;
  if (!img) {
    const struct xs_layout *l = layout();
    size_t want = l->size > XS_LEGACY + XS_HEADER ? l->size : 4096;
    if (!(img = calloc(1, want))) return -ENOMEM;
    size = want;
  }
  size_t len = size;
  int rc = seam_read_regset(tid, NT_X86_XSTATE, img, &len);
  if (rc == -EIO || rc == -EINVAL || rc == -ENODEV) { /* no XSAVE: the FXSAVE area alone */
    len = XS_LEGACY;
    rc = seam_read_regset(tid, NT_PRFPREG, img, &len);
  }
  if (rc == 0) full.have = fpregs_decode_xsave(img, len, &full);
  if (rc != 0) return rc;
#elif defined(__aarch64__)
  /* 1.12: the FP/SIMD regset (struct user_fpsimd_state): v0-v31, then
   * fpsr and fpcr */
  struct {
    uint8_t v[32][16];
    uint32_t fpsr, fpcr, pad[2];
  } simd;
  size_t len = sizeof simd;
  int rc = seam_read_regset(tid, NT_PRFPREG, &simd, &len);
  if (rc != 0) return rc;
  if (len < sizeof simd.v) return -EIO;
  for (unsigned i = 0; i < 32; i++) memcpy(full.zmm[i], simd.v[i], 16);
  full.nvec = 32;
  full.have = ASMSPY_FP_ASIMD;
#else
  (void)tid;
  return -ENODEV;
#endif
  full.struct_size = (uint32_t)cap;
  memcpy(out, &full, cap);
  return 0;
}

/* The bytes of one register inside fp: its size, 0 if fp does not hold it. */
static size_t locate(const struct asmspy_fpregs *fp, uint16_t vreg, const uint8_t **at) {
  unsigned n = ASMSPY_VREG_NUM(vreg);
  uint32_t have = ASMSPY_HAS(fp, have) ? fp->have : 0;
  int wide = n < 16 || (have & ASMSPY_FP_AVX512);
  switch (ASMSPY_VREG_CLASS(vreg)) {
  case ASMSPY_VREG_XMM:
    if (!(have & ASMSPY_FP_SSE) || n >= 32 || !wide || !ASMSPY_HAS(fp, zmm)) return 0;
    *at = fp->zmm[n];
    return 16;
  case ASMSPY_VREG_YMM:
    if (!(have & ASMSPY_FP_AVX) || n >= 32 || !wide || !ASMSPY_HAS(fp, zmm)) return 0;
    *at = fp->zmm[n];
    return 32;
  case ASMSPY_VREG_ZMM:
    if (!(have & ASMSPY_FP_AVX512) || n >= 32 || !ASMSPY_HAS(fp, zmm)) return 0;
    *at = fp->zmm[n];
    return 64;
  case ASMSPY_VREG_ST:
    if (!(have & ASMSPY_FP_X87) || n >= 8) return 0;
    *at = fp->st[n];
    return 10;
  case ASMSPY_VREG_MM: { /* mm<n> is physical register n; st(i) = physical (TOP + i) & 7 */
    if (!(have & ASMSPY_FP_X87) || n >= 8) return 0;
    unsigned top = (fp->fsw >> 11) & 7u;
    *at = fp->st[(n - top) & 7u];
    return 8;
  }
  case ASMSPY_VREG_K:
    if (!(have & ASMSPY_FP_AVX512) || n >= 8 || !ASMSPY_HAS(fp, k)) return 0;
    *at = (const uint8_t *)&fp->k[n];
    return 8;
  case ASMSPY_VREG_V:
    if (!(have & ASMSPY_FP_ASIMD) || n >= 32 || !ASMSPY_HAS(fp, zmm)) return 0;
    *at = fp->zmm[n];
    return 16;
  case ASMSPY_VREG_MXCSR:
    if (!(have & ASMSPY_FP_SSE) || n) return 0;
    *at = (const uint8_t *)&fp->mxcsr;
    return 4;
  case ASMSPY_VREG_FPSW:
    if (!(have & ASMSPY_FP_X87) || n) return 0;
    *at = (const uint8_t *)&fp->fsw;
    return 2;
  default: return 0;
  }
}

size_t fpregs_vreg_value(const struct asmspy_fpregs *fp, uint16_t vreg, uint8_t *buf, size_t cap) {
  const uint8_t *at = NULL;
  if (!fp || !buf) return 0;
  size_t n = locate(fp, vreg, &at);
  if (!n || cap < n) return 0;
  memcpy(buf, at, n);
  return n;
}

const char *fpregs_vreg_name(uint16_t vreg, char *buf, size_t cap) {
  unsigned n = ASMSPY_VREG_NUM(vreg);
  if (!buf || !cap) return "";
  switch (ASMSPY_VREG_CLASS(vreg)) {
  case ASMSPY_VREG_XMM: snprintf(buf, cap, "xmm%u", n); break;
  case ASMSPY_VREG_YMM: snprintf(buf, cap, "ymm%u", n); break;
  case ASMSPY_VREG_ZMM: snprintf(buf, cap, "zmm%u", n); break;
  case ASMSPY_VREG_ST: snprintf(buf, cap, "st(%u)", n); break;
  case ASMSPY_VREG_MM: snprintf(buf, cap, "mm%u", n); break;
  case ASMSPY_VREG_K: snprintf(buf, cap, "k%u", n); break;
  case ASMSPY_VREG_MXCSR: snprintf(buf, cap, "mxcsr"); break;
  case ASMSPY_VREG_FPSW: snprintf(buf, cap, "fpsw"); break;
  case ASMSPY_VREG_V: snprintf(buf, cap, "v%u", n); break;
  default: snprintf(buf, cap, "vreg%#x", (unsigned)vreg); break;
  }
  return buf;
}
