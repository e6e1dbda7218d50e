/* translate.c — one basic block of the program, copied into the code cache
 * with its control flow redirected (docs/codecache.md).
 *
 * Layout of a translated block:
 *
 *   full:  mov %fs:s_rcx,%rcx; movb $1,%fs:full; jmp *orig     (buffer full: go native)
 *   entry: [a check exit: the scope's end call, or a syscall whose number
 *           is not known here]
 *          record: save rcx; rcx = remain; jrcxz full; remain--;
 *                  *cursor++ = block id; restore rcx
 *          the block's instructions (rip-relative operands re-aimed)
 *          its terminator (below)
 *          exit stubs of its direct branches not linked yet
 *
 * Terminators: jmp/jcc/loop rel -> jumps to the translated successor (or
 * an exit stub that translates it and patches the jump); call rel ->
 * push the ORIGINAL return address, jump to the callee's translation (the
 * program's stack never holds a cache address: unwinders, backtrace(3)
 * and longjmp see original code only); ret, jmp/call indirect -> the
 * target into cc_tls.tgt, then the dispatcher's lookup. Everything the
 * translator does not handle ends the block before it; as a block's first
 * instruction it fails the translation, and the dispatcher leaves the
 * cache there (native, the scope truncated with the reason). */
#define _GNU_SOURCE
#include "plugins/codecache/translate.h"

#include "plugins/codecache/emit.h"
#include "plugins/common/x86_calltarget.h"
#include "plugins/common/x86_riprel.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum kind {
  K_PLAIN,
  K_JMP,   /* jmp rel */
  K_JCC,   /* jcc rel */
  K_LOOP,  /* loop*, jrcxz/jecxz: rel8 only */
  K_CALL,  /* call rel32 */
  K_ICALL, /* call *op */
  K_IJMP,  /* jmp *op */
  K_RET,   /* ret [imm16] */
  K_SYSCALL,
  K_BAD, /* not translated: far transfers, interrupts, xbegin, ... */
};

static int is_clone_nr(uint64_t nr) {
  return nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == 435 /* clone3 */;
}

static enum kind classify(const cs_insn *in) {
  switch (in->id) {
  case X86_INS_SYSCALL: return K_SYSCALL;
  case X86_INS_RET: return K_RET;
  case X86_INS_LOOP:
  case X86_INS_LOOPE:
  case X86_INS_LOOPNE:
  case X86_INS_JRCXZ:
  case X86_INS_JECXZ:
  case X86_INS_JCXZ: return K_LOOP;
  case X86_INS_LJMP:
  case X86_INS_LCALL:
  case X86_INS_RETF:
  case X86_INS_RETFQ:
  case X86_INS_IRET:
  case X86_INS_IRETD:
  case X86_INS_IRETQ:
  case X86_INS_INT:
  case X86_INS_INT1:
  case X86_INS_INT3:
  case X86_INS_INTO:
  case X86_INS_XBEGIN:
  case X86_INS_HLT:
  case X86_INS_UD2:
  case X86_INS_SYSENTER:
  case X86_INS_SYSEXIT:
  case X86_INS_SYSRET: return K_BAD;
  default: break;
  }
  const cs_x86 *x = &in->detail->x86;
  int imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
  if (in->id == X86_INS_JMP) return imm ? K_JMP : K_IJMP;
  if (in->id == X86_INS_CALL) return imm ? K_CALL : K_ICALL;
  if (x86_in_group(in, CS_GRP_JUMP)) return imm ? K_JCC : K_BAD;
  if (x86_in_group(in, CS_GRP_CALL) || x86_in_group(in, CS_GRP_RET) ||
      x86_in_group(in, CS_GRP_INT) || x86_in_group(in, CS_GRP_IRET))
    return K_BAD;
  return K_PLAIN;
}

uint64_t cc_call_target(const uint8_t *p, uint64_t ip) { return x86_direct_call_target(p, ip); }

/* Is the page after the one holding a mapped? (decoding may run into it) */
static int next_page_mapped(uint64_t a) {
  unsigned char v;
  uint64_t pg = (a | 4095) + 1;
  return mincore((void *)(uintptr_t)pg, 1, &v) == 0;
}

/* Up to 15 bytes of original code at a into buf: what a decoder may need.
 * In this process, the rest of a's page and the next page when it is
 * mapped; in a traced one, what the cache's reader gets (it stops at an
 * unmapped page too). Returns the count. */
static size_t code_bytes(struct cc_cache *c, uint64_t a, uint8_t buf[15]) {
  if (c->read_code) {
    ssize_t n = c->read_code(c->remote, a, buf, 15);
    return n > 0 ? (size_t)n : 0;
  }
  size_t room = 4096 - (a & 4095);
  size_t n = room < 15 && !next_page_mapped(a) ? room : 15;
  memcpy(buf, (const void *)(uintptr_t)a, n);
  return n;
}

/* The length of an instruction Capstone 4 does not know: a VEX (C4/C5) or
 * EVEX (62) form (AVX-512 in glibc's string functions) or a hint NOP
 * (rdsspq in libgcc's unwinder), and where its rip-relative disp32 sits
 * (*rip_off, 0: none). None of these transfers control, so copying them
 * is enough. 0: not one of these. */
/* modrm + SIB + displacement length from modrm at b[k]; *rip_off set for
 * a rip-relative operand. 0 when past n. */
static unsigned modrm_tail(const uint8_t *b, size_t n, unsigned k, int *rip_off) {
  if (k >= n) return 0;
  uint8_t modrm = b[k];
  unsigned len = k + 1, mod = modrm >> 6, rm = modrm & 7;
  if (mod != 3 && rm == 4) {
    if (len >= n) return 0;
    if (mod == 0 && (b[len] & 7) == 5) len += 4;
    len++;
  }
  if (mod == 1)
    len += 1;
  else if (mod == 2)
    len += 4;
  else if (mod == 0 && rm == 5) {
    *rip_off = (int)len;
    len += 4;
  }
  return len <= n ? len : 0;
}

static unsigned vex_length(const uint8_t *b, size_t n, int *rip_off) {
  unsigned k, map;
  *rip_off = 0;
  if (n < 4) return 0;
  /* the hint-NOP space 0F 18..1F /r (rdssp, endbr64, nop forms Capstone 4
   * does not all know), after legacy prefixes and REX */
  unsigned q = 0;
  while (q < n && q < 4 &&
         (b[q] == 0x66 || b[q] == 0xf2 || b[q] == 0xf3 || b[q] == 0x2e || b[q] == 0x3e ||
          b[q] == 0x67))
    q++;
  if (q < n && (b[q] & 0xf0) == 0x40) q++;
  if (q + 2 < n && b[q] == 0x0f && b[q + 1] >= 0x18 && b[q + 1] <= 0x1f)
    return modrm_tail(b, n, q + 2, rip_off);
  if (n < 5) return 0;
  if (b[0] == 0x62) {
    k = 4, map = b[1] & 7;
  } else if (b[0] == 0xc4) {
    k = 3, map = b[1] & 0x1f;
  } else if (b[0] == 0xc5) {
    k = 2, map = 1;
  } else {
    return 0;
  }
  uint8_t op = b[k];
  unsigned len = modrm_tail(b, n, k + 1, rip_off);
  if (!len) return 0;
  int imm = map == 3 ||
            (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6)));
  if (map == 0 || map == 4 || map > 6) return 0; /* maps this sketch does not know */
  len += imm ? 1 : 0;
  return len <= n && len <= 15 ? len : 0;
}

/* the instruction decode() filled by vex_length: its disp32, or 0 (per
 * thread: in-process, every thread translates its own cache) */
static __thread int g_raw_rip_off;

static int decode(struct cc_cache *c, uint64_t a) {
  uint8_t buf[15];
  size_t n = code_bytes(c, a, buf);
  const uint8_t *code = buf;
  uint64_t addr = a;
  size_t size = n;
  g_raw_rip_off = 0;
  if (n && cs_disasm_iter(c->cs, &code, &size, &addr, c->insn)) return 1;
  /* Capstone 4 does not know it: a VEX/EVEX form, copied as raw bytes */
  int rip_off;
  unsigned len = vex_length(buf, n, &rip_off);
  if (!len) return 0;
  cs_insn *in = c->insn;
  in->id = X86_INS_INVALID;
  in->address = a;
  in->size = (uint16_t)len;
  memcpy(in->bytes, buf, len);
  memset(in->detail, 0, sizeof *in->detail);
  g_raw_rip_off = rip_off;
  return 1;
}

/* Skip legacy prefixes; returns the index of the first non-prefix byte. */
static int skip_prefixes(const uint8_t *b, int n, int *has66) {
  int k = 0;
  *has66 = 0;
  while (k < n && (b[k] == 0x66 || b[k] == 0x67 || b[k] == 0xf2 || b[k] == 0xf3 || b[k] == 0x2e ||
                   b[k] == 0x3e || b[k] == 0x26 || b[k] == 0x36 || b[k] == 0x64 || b[k] == 0x65)) {
    if (b[k] == 0x66) *has66 = 1;
    k++;
  }
  return k;
}

/* `mov <the operand of jmp/call *op>, %rax` at p (to run at p). NULL when
 * the form is not handled. */
static uint8_t *load_operand(uint8_t *p, uint64_t p_at, const cs_insn *in) {
  const uint8_t *b = in->bytes;
  int n = in->size, has66, k = 0;
  uint8_t *start = p;
  while (k < n && (b[k] == 0x64 || b[k] == 0x65 || b[k] == 0x67 || b[k] == 0x2e || b[k] == 0x3e ||
                   b[k] == 0xf2 || b[k] == 0x66)) {
    if (b[k] == 0x66) return NULL;
    if (b[k] == 0x64 || b[k] == 0x65 || b[k] == 0x67) *p++ = b[k]; /* segment, address size */
    k++; /* notrack, hints, bnd: dropped */
  }
  (void)has66;
  uint8_t rex = 0;
  if (k < n && (b[k] & 0xf0) == 0x40) rex = b[k++];
  if (k + 1 >= n || b[k] != 0xff) return NULL;
  uint8_t modrm = b[k + 1];
  unsigned reg = (modrm >> 3) & 7;
  if (reg != 2 && reg != 4) return NULL;
  *p++ = (uint8_t)(0x48 | (rex & 3));
  *p++ = 0x8b;
  *p++ = (uint8_t)(modrm & 0xc7);
  int rest = n - (k + 2);
  memcpy(p, b + k + 2, (size_t)rest);
  if ((modrm & 0xc7) == 0x05) { /* rip-relative: re-aim the disp32 */
    int32_t disp;
    memcpy(&disp, b + k + 2, 4);
    uint64_t abs = in->address + in->size + (int64_t)disp;
    uint64_t end = p_at + (uint64_t)(p - start) + (uint64_t)rest;
    int32_t rel;
    if (!cc_rel32(end, abs, &rel)) return NULL;
    memcpy(p, &rel, 4);
  }
  return p + rest;
}

struct pending {
  uint64_t target;
  uint8_t *rel; /* the rel32 to aim at the target's translation or its stub */
};

/* One translation in progress: the emit cursor and what the steps hand on
 * to each other, from the block's head to its entry in the block table. */
struct xlat {
  struct cc_cache *c;
  const struct cc_seg *g; /* c->seg */
  struct cc_chunk *ch;    /* the chunk written: where its bytes run (cc_chunk_addr) */
  uint8_t *p;             /* the next byte of the cache to write */
  uint8_t *body;          /* the copy of the first original instruction */
  uint64_t sys_after;     /* where a trailing syscall's copy ends (remote), else 0 */
  int tail_copied;        /* the last instruction was copied, not rewritten */
  uint8_t bytes[CC_BLOCK_MAX_INSNS * 15]; /* the original bytes translated */
  struct pending pend[4];                 /* direct successors, linked once the block is complete */
  int npend;
  uint8_t lens[CC_BLOCK_MAX_INSNS]; /* instruction lengths, for the block table */
  int n;                            /* instructions translated */
  uint64_t a;                       /* the original instruction after them */
  int ended;                        /* a terminator was emitted */
  int checked;                      /* CC_CHECKED: its code may change (code_volatile) */
  uint8_t *check_rel;               /* checked: the entry jmp's rel32 */
  uint8_t *after_check;             /* checked: where a check that passed goes on */
};

/* Where a byte at p in the chunk being written runs. */
static uint64_t at(const struct xlat *x, const uint8_t *p) { return cc_chunk_addr(x->ch, p); }

/* Aim rel32 (ending at rel + 4) at dest; 0 when out of reach. */
static int aim(const struct xlat *x, uint8_t *rel, uint64_t dest) {
  int32_t r;
  if (!cc_rel32(at(x, rel + 4), dest, &r)) return 0;
  memcpy(rel, &r, 4);
  return 1;
}

/* Before an opcode of oplen bytes whose rel32 may be re-aimed later (a
 * link, a stub): in a traced process other threads may be running this
 * very jump while asmspy re-aims it, so the rel32 is padded with nops to a
 * 4-byte boundary and re-aimed by one aligned store (the rule HotSpot
 * follows for patching live call sites). */
static void align_rel32(struct xlat *x, unsigned oplen) {
  if (!x->c->remote) return;
  while ((at(x, x->p) + oplen) & 3) *x->p++ = 0x90;
}

/* Leave a rel32 at the cursor for link_successors: its successor may not
 * be translated yet, and a stub can only go after the block's code. */
static void pend_rel32(struct xlat *x, uint64_t target) {
  x->pend[x->npend++] = (struct pending){target, x->p};
  x->p += 4;
}

/* The record: one block id into the per-thread buffer, falling to `full`
 * when the buffer has no room left. Only rcx is touched, and restored, so
 * the block's own instructions see the program's registers. */
static uint8_t *emit_record(const struct cc_seg *g, uint8_t *p, const uint8_t *full, uint32_t id) {
  p = cc_st(g, p, R_CX, CC_TLS_S_RCX);
  p = cc_ld(g, p, R_CX, CC_TLS_REMAIN);
  *p++ = 0xe3; /* jrcxz full */
  *p = (uint8_t)(int8_t)(full - (p + 1));
  p++;
  *p++ = 0x48, *p++ = 0x8d, *p++ = 0x49, *p++ = 0xff; /* lea -1(%rcx),%rcx */
  p = cc_st(g, p, R_CX, CC_TLS_REMAIN);
  p = cc_ld(g, p, R_CX, CC_TLS_CURSOR);
  *p++ = 0xc7, *p++ = 0x01; /* movl $id,(%rcx) */
  p = cc_put32(p, id);
  *p++ = 0x48, *p++ = 0x8d, *p++ = 0x49, *p++ = 0x04; /* lea 4(%rcx),%rcx */
  p = cc_st(g, p, R_CX, CC_TLS_CURSOR);
  p = cc_ld(g, p, R_CX, CC_TLS_S_RCX);
  return p;
}

/* The block's head (the layout at the top of this file): the `full` exit,
 * the check of a block whose first instruction calls the scope's end, and
 * the record. Returns the entry, what the block table points at; NULL,
 * with *why, when the check's stub cannot be had. */
static uint8_t *emit_head(struct xlat *x, uint64_t orig, enum kind k0, const char **why) {
  struct cc_cache *c = x->c;
  const cs_insn *in = c->insn;
  uint32_t id = (uint32_t)c->nblocks;
  uint8_t *p = x->p;
  uint8_t *full = p;
  p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX);
  if (c->remote) { /* asmspy empties the buffer and sends the thread back here */
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, orig);
    p = cc_enter(x->g, p, CC_RSTUB_FLUSH);
  } else { /* the scope's buffer is full: native from here */
    p = cc_movb_seg(x->g, p, CC_TLS_FULL, 1);
    p = cc_jmp_abs(p, orig);
  }
  x->p = p;
  if (x->checked) { /* entry: jmp to the check of the bytes (emit_check), re-aimed once stale */
    align_rel32(x, 1);
    p = x->p;
  }
  uint8_t *entry = p;
  if (x->checked) {
    *p++ = 0xe9;
    x->check_rel = p;
    p += 4;
    x->after_check = p;
  }
  /* a check before the record: the scope's end call */
  int end_call = c->end_entry && (k0 == K_CALL || k0 == K_ICALL) &&
                 cc_call_target(in->bytes, in->address) == c->end_entry;
  uint32_t check = 0;
  if (end_call) {
    struct cc_stub s = {CC_STUB_END, orig, 0, 0};
    check = cc_stub_add(c, &s);
    if (!check) {
      *why = "out of memory for exit stubs";
      return NULL;
    }
    p = cc_enter(x->g, p, check);
  }
  uint8_t *record = p;
  p = emit_record(x->g, p, full, id);
  if (check) c->stubs[check].cont = at(x, record);
  x->p = p;
  return entry;
}

/* A syscall that may create a task runs in place; what follows it sorts
 * out who returns. A child with a new thread pointer (pthread_create:
 * CLONE_SETTLS) sees a zero private stack in its fresh cc_tls and leaves
 * for the original next instruction at once, touching nothing but its own
 * TLS. Everyone else (the parent, a fork or vfork child) enters the
 * dispatcher, which sends a child (rax 0) native too, and the parent on to
 * the next block. Returns NULL, or why it cannot be translated. */
static const char *emit_syscall(struct xlat *x, const cs_insn *in, uint64_t next) {
  struct cc_stub st = {CC_STUB_SYSCALL, next, 0, 0};
  uint32_t idx = cc_stub_add(x->c, &st);
  if (!idx) return "out of memory for exit stubs";
  uint8_t *p = x->p;
  p = cc_st(x->g, p, R_AX, CC_TLS_S_RAX); /* its number, for the dispatcher */
  memcpy(p, in->bytes, in->size);
  p += in->size;
  p = cc_st(x->g, p, R_CX, CC_TLS_S_RCX);
  p = cc_ld(x->g, p, R_CX, CC_TLS_PSTACK);
  *p++ = 0xe3; /* jrcxz native */
  *p++ = (uint8_t)(9 + CC_ENTER_BYTES);
  p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX);
  p = cc_enter(x->g, p, idx);
  p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX); /* native: */
  p = cc_jmp_abs(p, next);
  x->p = p;
  x->ended = 1;
  return NULL;
}

/* The calls that change what code is mapped, or whether it may be
 * written: asmspy sees each first (CC_RSTUB_UNMAP). */
static const uint32_t map_nrs[] = {SYS_munmap, SYS_mremap, SYS_mmap, SYS_mprotect,
                                   329 /* pkey_mprotect */};
#define NMAP_NRS (sizeof map_nrs / sizeof map_nrs[0])
static int is_map_nr(int64_t nr) {
  for (unsigned i = 0; i < NMAP_NRS; i++)
    if (nr == (int64_t)map_nrs[i]) return 1;
  return 0;
}

/* `lea -n(%rax), %rcx; jrcxz +2; jmp +5; jmp to`: rax == n goes to `to`,
 * no flag touched (jrcxz alone reaches 127 bytes; the targets lie past
 * every check). 16 bytes. */
static uint8_t *jump_if_rax(uint8_t *p, uint32_t n, const uint8_t *to) {
  *p++ = 0x48, *p++ = 0x8d, *p++ = 0x88; /* lea disp32(%rax),%rcx */
  p = cc_put32(p, (uint32_t) - (int32_t)n);
  *p++ = 0xe3, *p++ = 0x02; /* jrcxz to the jmp rel32 */
  *p++ = 0xeb, *p++ = 0x05; /* jmp past it */
  *p++ = 0xe9;
  return cc_put32(p, (uint32_t)(int32_t)(to - (p + 4)));
}

/* In a traced process (remote.c) every syscall ends its block, so a thread
 * blocked in one sits right after its copy (x->sys_after: asmspy maps it
 * back exactly). Two kinds never run here:
 *   - clone, fork, vfork, clone3 run natively (a jump to the original
 *     instruction): the new task would otherwise share this thread's block
 *     through the inherited gs base. asmspy brings parent and child back
 *     in at their clone stops;
 *   - rt_sigreturn asks asmspy first (CC_RSTUB_SIGRET), which lets it run
 *     natively and brings the thread back at the context it restores.
 * munmap and mremap ask asmspy first too (CC_RSTUB_UNMAP): when they take
 * away code it translated, every translation goes before the call runs
 * (natively), so no copy of code that is gone (and whose address may hold
 * other code next) ever runs; otherwise the copy below runs.
 * A syscall whose number is not a constant before it checks rax for those
 * numbers first (lea/jrcxz: no flag touched). After a copied syscall rcx is
 * set to what the original would leave there, its return address. */
static const char *emit_syscall_remote(struct xlat *x, const cs_insn *in, uint64_t next,
                                       int64_t nr) {
  uint64_t a = in->address;
  uint8_t *p = x->p;
  if (nr >= 0 && is_clone_nr((uint64_t)nr)) {
    x->p = cc_jmp_abs(p, a);
    x->ended = 1;
    return NULL;
  }
  if (nr == SYS_rt_sigreturn) {
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, a);
    x->p = cc_enter(x->g, p, CC_RSTUB_SIGRET);
    x->ended = 1;
    return NULL;
  }
  enum { MOVQ = 24, CHECK = 16, SEG = 9, JMP32 = 5, ABS = 14 };
  if (is_map_nr(nr)) { /* asmspy first, then the copy below */
    uint64_t cont = at(x, p) + 2 * MOVQ + CC_ENTER_BYTES;
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, a);
    p = cc_movq_seg(x->g, p, CC_RT_CONT_OFF, cont);
    p = cc_enter(x->g, p, CC_RSTUB_UNMAP);
  } else if (nr < 0) { /* unknown: rax decides at run time */
    static const uint32_t natives[] = {SYS_clone, SYS_fork, SYS_vfork, 435 /* clone3 */};
    enum { NCHECKS = 5 + NMAP_NRS };
    /* layout: save rcx; NCHECKS x (lea; jrcxz); restore rcx; jmp over;
     * native: restore rcx; jmp *a; sigret: restore rcx; enter SIGRET;
     * unmap: restore rcx; enter UNMAP (going on at over); over: the copy */
    uint8_t *native = p + SEG + NCHECKS * CHECK + SEG + JMP32;
    uint8_t *sigret = native + SEG + ABS;
    uint8_t *unmap = sigret + SEG + MOVQ + CC_ENTER_BYTES;
    uint8_t *over = unmap + SEG + 2 * MOVQ + CC_ENTER_BYTES;
    p = cc_st(x->g, p, R_CX, CC_TLS_S_RCX);
    for (unsigned i = 0; i < 4; i++) p = jump_if_rax(p, natives[i], native);
    p = jump_if_rax(p, SYS_rt_sigreturn, sigret);
    for (unsigned i = 0; i < NMAP_NRS; i++) p = jump_if_rax(p, map_nrs[i], unmap);
    p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX);
    *p++ = 0xe9;
    p = cc_put32(p, (uint32_t)(int32_t)(over - (p + 4)));
    p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX); /* native: */
    p = cc_jmp_abs(p, a);
    p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX); /* sigret: */
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, a);
    p = cc_enter(x->g, p, CC_RSTUB_SIGRET);
    p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX); /* unmap: */
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, a);
    p = cc_movq_seg(x->g, p, CC_RT_CONT_OFF, at(x, over));
    p = cc_enter(x->g, p, CC_RSTUB_UNMAP);
  }
  memcpy(p, in->bytes, in->size);
  p += in->size;
  x->sys_after = at(x, p);
  p = cc_mov_rcx_imm(p, next);
  x->p = p;
  align_rel32(x, 1);
  *x->p++ = 0xe9;
  pend_rel32(x, next);
  x->ended = 1;
  return NULL;
}

/* An instruction copied as it is, its rip-relative operand (if any)
 * re-aimed so it still reaches the original data from the cache. The
 * cursor moves past it even on failure: the caller rolls it back. */
static const char *emit_plain(struct xlat *x, const cs_insn *in, uint64_t next) {
  uint8_t *p = x->p;
  const char *fail = NULL;
  memcpy(p, in->bytes, in->size);
  if (g_raw_rip_off) {
    int32_t disp, rel;
    memcpy(&disp, in->bytes + g_raw_rip_off, 4);
    if (!cc_rel32(at(x, p + in->size), next + (uint64_t)(int64_t)disp, &rel))
      fail = "a rip-relative operand out of rel32 reach of the code cache";
    else
      memcpy(p + g_raw_rip_off, &rel, 4);
  } else if (x86_is_riprel(in)) {
    int off = x86_disp_offset(in);
    uint64_t abs = next + (uint64_t)(int64_t)in->detail->x86.disp;
    int32_t rel;
    if (off < 0)
      fail = "a rip-relative operand without a 32-bit displacement";
    else if (!cc_rel32(at(x, p + in->size), abs, &rel))
      fail = "a rip-relative operand out of rel32 reach of the code cache";
    else
      memcpy(p + off, &rel, 4);
  }
  x->p = p + in->size;
  return fail;
}

/* An opcode of oplen bytes, then a rel32 left for link_successors. */
static void emit_rel32_jump(struct xlat *x, const uint8_t *op, unsigned oplen, uint64_t target) {
  align_rel32(x, oplen);
  memcpy(x->p, op, oplen);
  x->p += oplen;
  pend_rel32(x, target);
}

/* jmp/jcc/loop/call rel: every target, taken and fallen through, becomes a
 * rel32 left for link_successors (rel8 forms cannot reach the cache's
 * layout); a call pushes the ORIGINAL return address first. Cannot fail. */
static void emit_direct(struct xlat *x, enum kind k, const cs_insn *in, uint64_t next) {
  static const uint8_t jmp[1] = {0xe9};
  uint64_t taken = (uint64_t)in->detail->x86.operands[0].imm;
  if (k == K_JCC) {
    int h66, q = skip_prefixes(in->bytes, in->size, &h66);
    uint8_t op = in->bytes[q];
    uint8_t cc = (uint8_t)((op == 0x0f ? in->bytes[q + 1] : op) & 0x0f);
    const uint8_t jcc[2] = {0x0f, (uint8_t)(0x80 | cc)};
    emit_rel32_jump(x, jcc, 2, taken);
    emit_rel32_jump(x, jmp, 1, next);
  } else if (k == K_LOOP) { /* op to_taken; jmp to_fall; to_taken: jmp taken; to_fall: jmp fall */
    memcpy(x->p, in->bytes, in->size);
    uint8_t *rel_taken = x->p + in->size - 1;
    x->p += in->size;
    *x->p++ = 0xeb;
    uint8_t *rel_fall = x->p++;
    *rel_taken = (uint8_t)(x->p - (rel_taken + 1));
    emit_rel32_jump(x, jmp, 1, taken);
    *rel_fall = (uint8_t)(x->p - (rel_fall + 1));
    emit_rel32_jump(x, jmp, 1, next);
  } else { /* K_JMP, K_CALL */
    if (k == K_CALL) x->p = cc_push_ret(x->p, next);
    emit_rel32_jump(x, jmp, 1, taken);
  }
  x->ended = 1;
}

/* ret, jmp/call *op: the target into cc_tls.tgt, then the dispatcher's
 * lookup (no translation-time target to link). Returns NULL, or why the
 * operand cannot be loaded; the cursor is then the caller's to roll back. */
static const char *emit_indirect(struct xlat *x, enum kind k, const cs_insn *in, uint64_t next) {
  uint8_t *p = x->p;
  if (k == K_RET && x->c->remote && in->address - x->c->probe_lo < x->c->probe_len) {
    /* --trace's region: asmspy reads the return value before the ret */
    enum { MOVQ = 24 };
    uint64_t cont = at(x, p) + 2 * MOVQ + CC_ENTER_BYTES;
    p = cc_movq_seg(x->g, p, CC_TLS_TGT, in->address);
    p = cc_movq_seg(x->g, p, CC_RT_CONT_OFF, cont);
    p = cc_enter(x->g, p, CC_RSTUB_PROBE);
  }
  if (k == K_RET) {
    p = cc_pop_seg(x->g, p, CC_TLS_TGT);
    if (in->detail->x86.op_count == 1 && in->detail->x86.operands[0].type == X86_OP_IMM &&
        in->detail->x86.operands[0].imm)
      p = cc_lea_rsp(p, (int32_t)in->detail->x86.operands[0].imm);
  } else {
    p = cc_st(x->g, p, R_AX, CC_TLS_S_RAX);
    uint8_t *q = load_operand(p, at(x, p), in);
    if (!q) return "an indirect branch operand the translator does not handle";
    p = cc_st(x->g, q, R_AX, CC_TLS_TGT);
    p = cc_ld(x->g, p, R_AX, CC_TLS_S_RAX);
    if (k == K_ICALL) p = cc_push_ret(p, next);
  }
  x->p = cc_enter(x->g, p, CC_STUB_IBL);
  x->ended = 1;
  return NULL;
}

/* One instruction at the cursor, by kind. last_eax is what the previous
 * instruction's `mov $imm, %eax` set, else -1: a syscall whose number is
 * known and cannot create a task needs no exit. Returns NULL, or why it
 * cannot be translated. */
static const char *emit_insn(struct xlat *x, enum kind k, uint64_t next, int64_t last_eax) {
  const cs_insn *in = x->c->insn;
  switch (k) {
  case K_SYSCALL:
    if (x->c->remote) return emit_syscall_remote(x, in, next, last_eax);
    if (last_eax >= 0 && !is_clone_nr((uint64_t)last_eax)) {
      const char *fail = emit_plain(x, in, next); /* known, harmless */
      x->p = cc_mov_rcx_imm(x->p, next);          /* rcx: the return address the original leaves */
      return fail;
    }
    return emit_syscall(x, in, next);
  case K_PLAIN: return emit_plain(x, in, next);
  case K_JMP:
  case K_JCC:
  case K_LOOP:
  case K_CALL: emit_direct(x, k, in, next); return NULL;
  case K_ICALL:
  case K_IJMP:
  case K_RET: return emit_indirect(x, k, in, next);
  case K_BAD: return "an instruction the translator does not handle";
  }
  return NULL;
}

/* The immediate a `mov $imm, %eax/%rax` loads, else -1: the number of a
 * syscall that follows it (emit_insn). */
static int64_t eax_imm(const cs_insn *in) {
  const cs_x86 *x = &in->detail->x86;
  if (in->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
      (x->operands[0].reg == X86_REG_EAX || x->operands[0].reg == X86_REG_RAX) &&
      x->operands[1].type == X86_OP_IMM)
    return x->operands[1].imm;
  return -1;
}

/* What must start a block of its own, past a block's first instruction:
 * one not translated (its block reports why), and a call of the scope's
 * end (its block's head holds the check, emit_head). */
static int starts_own_block(const struct cc_cache *c, const cs_insn *in, enum kind k) {
  if (k == K_BAD) return 1;
  return (k == K_CALL || k == K_ICALL) && c->end_entry &&
         cc_call_target(in->bytes, in->address) == c->end_entry;
}

/* The block's instructions from orig (decoded already into c->insn), up
 * to a terminator, one that must start its own block, or the cap. One that
 * fails ends the block before it, the cursor rolled back; as the first it
 * fails the translation (0, with *why). A block that does not end in a
 * terminator continues at the next instruction through a jmp. */
static int emit_body(struct xlat *x, uint64_t orig, const char **why) {
  struct cc_cache *c = x->c;
  const cs_insn *in = c->insn;
  int64_t last_eax = -1; /* the value a `mov $imm, %eax` just before set, else -1 */
  x->a = orig;
  x->body = x->p;
  while (!x->ended) {
    if (x->n && !decode(c, x->a)) break; /* end before it: its own block reports it */
    enum kind k = classify(in);
    uint64_t next = x->a + in->size;
    if (x->n && starts_own_block(c, in, k)) break;
    int64_t eax = eax_imm(in);
    uint8_t *save = x->p;
    int npend = x->npend;
    const char *fail = emit_insn(x, k, next, last_eax);
    if (fail) {
      if (!x->n) {
        *why = fail;
        return 0;
      }
      x->p = save; /* end the block before it */
      x->npend = npend;
      x->ended = 0;
      break;
    }
    memcpy(x->bytes + (x->a - orig), in->bytes, in->size);
    x->lens[x->n++] = (uint8_t)in->size;
    x->a = next;
    last_eax = eax;
    if (!x->ended && x->n == (x->checked ? CC_CHECKED_MAX_INSNS : CC_BLOCK_MAX_INSNS)) break;
  }
  if (!x->ended) { /* fell off the block: continue at the next instruction */
    static const uint8_t jmp[1] = {0xe9};
    x->tail_copied = 1;
    emit_rel32_jump(x, jmp, 1, x->a);
  }
  return 1;
}

/* Link each direct successor: its translation if there is one (never the
 * scope's end entry: that one must reach the dispatcher), else an exit
 * stub after the block's code that translates it and patches the rel32.
 * 0, with *why, when a stub cannot be had. */
static int link_successors(struct xlat *x, const char **why) {
  struct cc_cache *c = x->c;
  for (int i = 0; i < x->npend; i++) {
    struct pending *pd = &x->pend[i];
    uint32_t hit = cc_lookup(c, pd->target);
    if (hit && pd->target != c->end_entry && aim(x, pd->rel, c->blocks[hit - 1].code)) continue;
    struct cc_stub s = {CC_STUB_LINK, pd->target, (uint64_t)(uintptr_t)pd->rel, 0};
    uint32_t idx = cc_stub_add(c, &s);
    if (!idx) {
      *why = "out of memory for exit stubs";
      return 0;
    }
    aim(x, pd->rel, at(x, x->p));
    /* in a traced process the dispatcher knows no stub table: the target
     * travels in cc_tls.tgt */
    if (c->remote) x->p = cc_movq_seg(x->g, x->p, CC_TLS_TGT, pd->target);
    x->p = cc_enter(x->g, x->p, idx);
  }
  return 1;
}

/* A checked block's check, after its code: its original bytes compared,
 * 8, 4, 2, 1 at a time, with what was translated. rax and rcx are kept in
 * the thread's block meanwhile; no flag is touched (a load, a movabs of
 * the negated value, lea to add them, jrcxz on the sum). Equal: on to the
 * record. Changed: the stale exit asks for a new translation (this
 * block's repoint travels with it) and goes on there.
 *   stale: restore rax, rcx; [tgt = orig; cont = repoint]; enter STALE
 *   check: save rax, rcx; per window: movabs $addr,%rax; load (%rax);
 *          movabs $-want,%rcx; lea (%rax,%rcx),%rcx; jrcxz +5; jmp stale
 *          restore rax, rcx; jmp after_check
 * Only in a traced process (remote_maps.c decides which code): scopes
 * decline a process with JIT code (jit.c). 0, with *why, otherwise. */
static int emit_check(struct xlat *x, uint64_t orig, const char **why) {
  struct cc_cache *c = x->c;
  uint8_t *stale = x->p, *p = x->p;
  p = cc_ld(x->g, p, R_AX, CC_TLS_S_RAX);
  p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX);
  if (!c->remote) { /* scopes: a process with JIT code is declined (jit.c) */
    *why = "a checked block outside a traced process";
    return 0;
  }
  p = cc_movq_seg(x->g, p, CC_TLS_TGT, orig);
  p = cc_movq_seg(x->g, p, CC_RT_CONT_OFF, at(x, x->check_rel));
  p = cc_enter(x->g, p, CC_RSTUB_STALE);
  aim(x, x->check_rel, at(x, p));
  p = cc_st(x->g, p, R_AX, CC_TLS_S_RAX);
  p = cc_st(x->g, p, R_CX, CC_TLS_S_RCX);
  uint64_t n = x->a - orig;
  for (uint64_t off = 0; off < n;) {
    unsigned w = n - off >= 8 ? 8 : n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
    uint64_t want = 0;
    memcpy(&want, x->bytes + off, w);
    uint64_t addr = orig + off;
    *p++ = 0x48, *p++ = 0xb8; /* movabs $addr, %rax */
    memcpy(p, &addr, 8);
    p += 8;
    static const uint8_t load8[] = {0x48, 0x8b, 0x00}, load4[] = {0x8b, 0x00},
                         load2[] = {0x0f, 0xb7, 0x00}, load1[] = {0x0f, 0xb6, 0x00};
    const uint8_t *ld = w == 8 ? load8 : w == 4 ? load4 : w == 2 ? load2 : load1;
    size_t ldn = w == 4 ? 2 : 3;
    memcpy(p, ld, ldn);
    p += ldn;
    p = cc_mov_rcx_imm(p, (uint64_t)0 - want);
    *p++ = 0x48, *p++ = 0x8d, *p++ = 0x0c, *p++ = 0x08; /* lea (%rax,%rcx,1), %rcx */
    *p++ = 0xe3, *p++ = 0x05;                           /* jrcxz over the jmp */
    *p++ = 0xe9;
    p = cc_put32(p, (uint32_t)(int32_t)(stale - (p + 4)));
    off += w;
  }
  p = cc_ld(x->g, p, R_AX, CC_TLS_S_RAX);
  p = cc_ld(x->g, p, R_CX, CC_TLS_S_RCX);
  *p++ = 0xe9;
  p = cc_put32(p, (uint32_t)(int32_t)(x->after_check - (p + 4)));
  x->p = p;
  return 1;
}

/* [endbr64] [bnd] jmp *slot(%rip): a PLT stub (decode trims one that led
 * into the scope's end) */
static int is_plt_stub(const uint8_t *ob, int n) {
  int e = (n == 2 && ob[0] == 0xf3 && ob[1] == 0x0f && ob[2] == 0x1e && ob[3] == 0xfa) ? 4 : 0;
  if ((n == 1 || e) && ob[e] == 0xf2) e++;
  return (n == 1 || n == 2) && ob[e] == 0xff && ob[e + 1] == 0x25;
}

/* The block's entry in the block table, what lookups and listings see.
 * Its index, or -1 with *why. */
static int64_t add_block(struct xlat *x, uint64_t orig, uint8_t *entry, const char **why) {
  struct cc_block b;
  memset(&b, 0, sizeof b);
  b.orig = orig;
  b.code = at(x, entry);
  b.body = at(x, x->body);
  b.sys_after = x->sys_after;
  b.ninsn = (uint16_t)x->n;
  b.nbytes = (uint16_t)(x->a - orig);
  if (is_plt_stub(x->bytes, x->n)) b.flags |= CC_PLT_STUB;
  if (x->tail_copied) b.flags |= CC_TAIL_COPIED;
  if (x->checked) {
    b.flags |= CC_CHECKED;
    b.repoint = (uint64_t)(uintptr_t)x->check_rel;
    b.repoint_at = at(x, x->check_rel);
  }
  int64_t bi = cc_block_add(x->c, &b, x->lens, x->bytes);
  if (bi < 0) {
    *why = "out of memory for the block table";
    return -1;
  }
  return bi;
}

/* Translate the block at orig: its first instruction decides whether it
 * can be translated at all, then the head, the body, the links, and the
 * block table. A failure leaves the cache's room uncommitted. */
int64_t cc_translate(struct cc_cache *c, uint64_t orig, const char **why, int *why_kind) {
  *why_kind = CC_WHY_UNSUPPORTED;
  if (!decode(c, orig)) {
    *why = "an instruction Capstone cannot decode";
    return -1;
  }
  enum kind k0 = classify(c->insn);
  if (k0 == K_BAD) {
    *why = "an instruction the translator does not handle (far transfer, interrupt, xbegin, ud2, "
           "hlt)";
    return -1;
  }
  struct xlat x = {.c = c, .g = &c->seg};
  x.checked = c->code_volatile && c->code_volatile(c, orig);
  x.p = cc_code_room(c, orig, CC_BLOCK_CODE_MAX, &x.ch);
  if (!x.p) {
    *why = "no code cache memory within rel32 reach of the code";
    *why_kind = CC_WHY_NOSPACE;
    return -1;
  }
  uint8_t *entry = emit_head(&x, orig, k0, why);
  if (!entry) return -1;
  if (!emit_body(&x, orig, why)) return -1;
  if (!link_successors(&x, why)) return -1;
  if (x.checked && !emit_check(&x, orig, why)) return -1;
  cc_code_commit(x.ch, x.p);
  return add_block(&x, orig, entry, why);
}
