/* tests/intel_pt/pt_synth.h — synthesize Intel PT packet streams with
 * libipt's own encoder (pt_alloc_encoder / pt_enc_next), and the small
 * hand-assembled x86-64 program the streams describe.
 *
 * The program (offsets from its base B):
 *   0x00  31 c0              xor  eax, eax
 *   0x02  b9 03 00 00 00     mov  ecx, 3
 *   0x07  83 c0 02           add  eax, 2        <- loop
 *   0x0a  ff c9              dec  ecx
 *   0x0c  75 f9              jne  0x07          (taken, taken, not taken)
 *   0x0e  e8 0d 00 00 00     call 0x20
 *   0x13  ff e3              jmp  rbx           (indirect: a TIP says where)
 *   0x20  83 c0 01           add  eax, 1        <- the callee
 *   0x23  c3                 ret                (a TIP: captured with noretcomp)
 *   0x30  0f 05              syscall            (user-only trace: TIP.PGD)
 *   0x32  90                 nop                (where the syscall returns)
 *   0x33  0f 05              syscall
 * Everything else is int3 (cc).
 */
#ifndef ASMSPY_TESTS_INTEL_PT_SYNTH_H
#define ASMSPY_TESTS_INTEL_PT_SYNTH_H

#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYN_CODE_LEN 0x40u

static inline void syn_code(uint8_t *code) {
  static const uint8_t prog[] = {
      0x31, 0xc0,                   /* 0x00 xor eax,eax */
      0xb9, 0x03, 0x00, 0x00, 0x00, /* 0x02 mov ecx,3 */
      0x83, 0xc0, 0x02,             /* 0x07 add eax,2 */
      0xff, 0xc9,                   /* 0x0a dec ecx */
      0x75, 0xf9,                   /* 0x0c jne 0x07 */
      0xe8, 0x0d, 0x00, 0x00, 0x00, /* 0x0e call 0x20 */
      0xff, 0xe3,                   /* 0x13 jmp rbx */
  };
  memset(code, 0xcc, SYN_CODE_LEN);
  memcpy(code, prog, sizeof prog);
  static const uint8_t callee[] = {0x83, 0xc0, 0x01, 0xc3}; /* 0x20 add eax,1; ret */
  memcpy(code + 0x20, callee, sizeof callee);
  code[0x30] = 0x0f; /* 0x30 syscall */
  code[0x31] = 0x05;
  code[0x32] = 0x90; /* 0x32 nop */
  code[0x33] = 0x0f; /* 0x33 syscall */
  code[0x34] = 0x05;
}

/* syn_syscall_return(): the program, the return from its syscall, and the
 * next syscall, with a PSB+ in between while tracing was off (in the kernel). */
static const uint64_t syn_return_offsets[] = {0x00, 0x02, 0x07, 0x0a, 0x0c, 0x07, 0x0a, 0x0c, 0x07,
                                              0x0a, 0x0c, 0x0e, 0x20, 0x23, 0x13, 0x30, 0x32, 0x33};
#define SYN_RETURN_N (sizeof syn_return_offsets / sizeof syn_return_offsets[0])

/* The instructions the program runs from B to the syscall, in order. */
static const uint64_t syn_expected_offsets[] = {0x00, 0x02, 0x07, 0x0a, 0x0c, 0x07, 0x0a, 0x0c,
                                                0x07, 0x0a, 0x0c, 0x0e, 0x20, 0x23, 0x13, 0x30};
#define SYN_EXPECTED_N (sizeof syn_expected_offsets / sizeof syn_expected_offsets[0])

/* Its taken branches: from -> to (offsets), and whether a call / a ret. */
struct syn_branch {
  uint64_t from, to;
  int call, ret;
};
static const struct syn_branch syn_expected_branches[] = {{0x0c, 0x07, 0, 0},
                                                          {0x0c, 0x07, 0, 0},
                                                          {0x0e, 0x20, 1, 0},
                                                          {0x23, 0x13, 0, 1},
                                                          {0x13, 0x30, 0, 0}};
#define SYN_BRANCHES_N (sizeof syn_expected_branches / sizeof syn_expected_branches[0])

struct syn {
  struct pt_config cfg;
  struct pt_encoder *enc;
  uint8_t buf[4096];
  int bad; /* an encoder call failed: the test itself is broken */
};

static inline void syn_init(struct syn *s) {
  memset(s, 0, sizeof *s);
  pt_config_init(&s->cfg);
  s->cfg.begin = s->buf;
  s->cfg.end = s->buf + sizeof s->buf;
  s->enc = pt_alloc_encoder(&s->cfg);
  if (!s->enc) s->bad = 1;
}

static inline size_t syn_len(const struct syn *s) {
  uint64_t off = 0;
  if (!s->enc || pt_enc_get_offset(s->enc, &off) < 0) return 0;
  return (size_t)off;
}

static inline void syn_done(struct syn *s) {
  if (s->enc) pt_free_encoder(s->enc);
  s->enc = NULL;
}

static inline void syn_put(struct syn *s, const struct pt_packet *p) {
  if (!s->enc || pt_enc_next(s->enc, p) <= 0) {
    fprintf(stderr, "pt_enc_next failed for packet type %d\n", (int)p->type);
    s->bad = 1;
  }
}

static inline void syn_simple(struct syn *s, enum pt_packet_type t) {
  struct pt_packet p;
  memset(&p, 0, sizeof p);
  p.type = t;
  syn_put(s, &p);
}

static inline void syn_psb(struct syn *s) { syn_simple(s, ppt_psb); }
static inline void syn_psbend(struct syn *s) { syn_simple(s, ppt_psbend); }
static inline void syn_ovf(struct syn *s) { syn_simple(s, ppt_ovf); }

static inline void syn_mode64(struct syn *s) {
  struct pt_packet p;
  memset(&p, 0, sizeof p);
  p.type = ppt_mode;
  p.payload.mode.leaf = pt_mol_exec;
  p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
  syn_put(s, &p);
}

static inline void syn_ip(struct syn *s, enum pt_packet_type t, uint64_t ip) {
  struct pt_packet p;
  memset(&p, 0, sizeof p);
  p.type = t;
  p.payload.ip.ipc = pt_ipc_sext_48;
  p.payload.ip.ip = ip;
  syn_put(s, &p);
}

static inline void syn_ip_suppressed(struct syn *s, enum pt_packet_type t) {
  struct pt_packet p;
  memset(&p, 0, sizeof p);
  p.type = t;
  p.payload.ip.ipc = pt_ipc_suppressed;
  syn_put(s, &p);
}

/* TNT-8 with n outcomes; bits[0] is the first branch (the MSB of the
 * payload, as libipt's encoder orders them). */
static inline void syn_tnt(struct syn *s, const char *outcomes) {
  struct pt_packet p;
  memset(&p, 0, sizeof p);
  p.type = ppt_tnt_8;
  uint64_t payload = 0;
  uint8_t n = 0;
  for (const char *c = outcomes; *c; c++, n++) payload = (payload << 1) | (*c == 't');
  p.payload.tnt.bit_size = n;
  p.payload.tnt.payload = payload;
  syn_put(s, &p);
}

/* The program's whole run as one stream:
 *   PSB PSBEND MODE.exec(64) TIP.PGE(B) TNT(t t n) TIP(B+0x13) TIP(B+0x30) TIP.PGD
 * With mid_psb, a second PSB+ (PSB MODE.exec FUP(B+0x07) PSBEND) sits
 * between the loop's second and third outcome, where the hardware would put
 * one: the IP in its FUP is where the CPU was at that moment. *psb2 gets
 * that PSB's offset. */
static inline size_t syn_program(struct syn *s, uint64_t B, int mid_psb, size_t *psb2) {
  syn_psb(s);
  syn_psbend(s);
  syn_mode64(s);
  syn_ip(s, ppt_tip_pge, B);
  if (mid_psb) {
    syn_tnt(s, "tt");
    if (psb2) *psb2 = syn_len(s);
    syn_psb(s);
    syn_mode64(s);
    syn_ip(s, ppt_fup, B + 0x07);
    syn_psbend(s);
    syn_tnt(s, "n");
  } else {
    syn_tnt(s, "ttn");
  }
  syn_ip(s, ppt_tip, B + 0x13);      /* ret */
  syn_ip(s, ppt_tip, B + 0x30);      /* jmp rbx */
  syn_ip_suppressed(s, ppt_tip_pgd); /* syscall: into the (untraced) kernel */
  return syn_len(s);
}

/* The program's stream, then: PSB PSBEND (no FUP: tracing is off at that
 * moment) MODE.exec TIP.PGE(B+0x32) TIP.PGD — the syscall returned to user
 * space and the next one left it again. */
static inline size_t syn_syscall_return(struct syn *s, uint64_t B) {
  syn_program(s, B, 1, NULL);
  syn_psb(s);
  syn_psbend(s);
  syn_mode64(s);
  syn_ip(s, ppt_tip_pge, B + 0x32);
  syn_ip_suppressed(s, ppt_tip_pgd);
  return syn_len(s);
}

#endif
