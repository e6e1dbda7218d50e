/* Byte emitters for the few x86-64 forms the translator writes. Every one
 * leaves rflags alone (mov, lea, push imm, pop m, jmp, jrcxz): translated
 * code runs between two program instructions and must not change what the
 * next one sees. %fs:/%gs:disp32 operands address struct cc_tls (cc.h,
 * struct cc_seg). */
#ifndef ASMSPY_CODECACHE_EMIT_H
#define ASMSPY_CODECACHE_EMIT_H

#include "plugins/codecache/cc.h"

#include <string.h>

static inline uint8_t *cc_put32(uint8_t *p, uint32_t v) {
  memcpy(p, &v, 4);
  return p + 4;
}

/* segment-absolute modrm tail: mod 00, rm 100 (SIB), SIB 0x25 (no base,
 * no index), disp32 */
static inline uint8_t *cc_seg_mem(const struct cc_seg *g, uint8_t *p, unsigned reg, int field) {
  *p++ = (uint8_t)(0x04 | (reg << 3));
  *p++ = 0x25;
  return cc_put32(p, (uint32_t)(g->off + field));
}

enum { R_AX = 0, R_CX = 1, R_SP = 4 };

/* mov %reg, %seg:field */
static inline uint8_t *cc_st(const struct cc_seg *g, uint8_t *p, unsigned reg, int field) {
  *p++ = g->prefix, *p++ = 0x48, *p++ = 0x89;
  return cc_seg_mem(g, p, reg, field);
}
/* mov %seg:field, %reg */
static inline uint8_t *cc_ld(const struct cc_seg *g, uint8_t *p, unsigned reg, int field) {
  *p++ = g->prefix, *p++ = 0x48, *p++ = 0x8b;
  return cc_seg_mem(g, p, reg, field);
}
/* pop %seg:field */
static inline uint8_t *cc_pop_seg(const struct cc_seg *g, uint8_t *p, int field) {
  *p++ = g->prefix, *p++ = 0x8f;
  return cc_seg_mem(g, p, 0, field);
}
/* jmp *%seg:field */
static inline uint8_t *cc_jmp_seg(const struct cc_seg *g, uint8_t *p, int field) {
  *p++ = g->prefix, *p++ = 0xff;
  return cc_seg_mem(g, p, 4, field);
}
/* movb $v, %seg:field */
static inline uint8_t *cc_movb_seg(const struct cc_seg *g, uint8_t *p, int field, uint8_t v) {
  *p++ = g->prefix, *p++ = 0xc6;
  p = cc_seg_mem(g, p, 0, field);
  *p++ = v;
  return p;
}
/* movl $v, %seg:field */
static inline uint8_t *cc_movl_seg(const struct cc_seg *g, uint8_t *p, int field, uint32_t v) {
  *p++ = g->prefix, *p++ = 0xc7;
  p = cc_seg_mem(g, p, 0, field);
  return cc_put32(p, v);
}
/* The 64-bit value v into the quadword at %seg:field, as two movl: no
 * register, no flag touched. */
static inline uint8_t *cc_movq_seg(const struct cc_seg *g, uint8_t *p, int field, uint64_t v) {
  p = cc_movl_seg(g, p, field, (uint32_t)v);
  return cc_movl_seg(g, p, field + 4, (uint32_t)(v >> 32));
}
/* movabs $v, %rcx */
static inline uint8_t *cc_mov_rcx_imm(uint8_t *p, uint64_t v) {
  *p++ = 0x48, *p++ = 0xb9;
  memcpy(p, &v, 8);
  return p + 8;
}
/* jmp *0(%rip); .quad target — reaches anywhere */
static inline uint8_t *cc_jmp_abs(uint8_t *p, uint64_t target) {
  *p++ = 0xff, *p++ = 0x25;
  p = cc_put32(p, 0);
  memcpy(p, &target, 8);
  return p + 8;
}
/* The program's 64-bit return address onto its stack, as `call` would:
 * push $lo32 (sign-extended) then movl $hi32, 4(%rsp). */
static inline uint8_t *cc_push_ret(uint8_t *p, uint64_t ret) {
  *p++ = 0x68;
  p = cc_put32(p, (uint32_t)ret);
  *p++ = 0xc7, *p++ = 0x44, *p++ = 0x24, *p++ = 0x04;
  return cc_put32(p, (uint32_t)(ret >> 32));
}
/* lea d32(%rsp), %rsp */
static inline uint8_t *cc_lea_rsp(uint8_t *p, int32_t d) {
  *p++ = 0x48, *p++ = 0x8d, *p++ = 0xa4, *p++ = 0x24;
  return cc_put32(p, (uint32_t)d);
}
/* Enter the dispatcher with exit stub `idx`: the program's rsp saved, the
 * private stack loaded (nothing is written below the program's rsp), idx
 * pushed there. 31 bytes. */
#define CC_ENTER_BYTES 31
static inline uint8_t *cc_enter(const struct cc_seg *g, uint8_t *p, uint32_t idx) {
  p = cc_st(g, p, R_SP, CC_TLS_S_RSP);
  p = cc_ld(g, p, R_SP, CC_TLS_PSTACK);
  *p++ = 0x68;
  p = cc_put32(p, idx);
  return cc_jmp_seg(g, p, CC_TLS_DISPATCH);
}

#endif
