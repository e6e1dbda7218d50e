/* test_reloc: plan.c's relocation of displaced prologues, on synthesized
 * code. Each prologue is planned at F, relocated to a stub near F (rel32
 * reach) and to one far away (absolute jumps), and the stub's bytes are
 * decoded back (Capstone) into what they do:
 *   - a copied instruction: its text, a rip-relative operand as the
 *     absolute address it reaches ("[=0x...]"), which must be the
 *     original's;
 *   - `push $lo32; movl $hi32, 4(%rsp)` (or push $imm32 alone): "push64 V";
 *   - `jmp *0(%rip); .quad T`: "jmp T"; a jcc: "jcc T" whatever its form;
 *   - the emulated call through memory (push m; push (%rsp); movl, movl;
 *     lea 8(%rsp), %rsp; jmp *-8(%rsp)): "push64 V; jmp *m".
 * A displaced call must become "push64 <original return address>" and a
 * jump to its target, with nothing after it (the callee returns into the
 * original function right after the patched bytes); every other prologue
 * ends with "jmp F+len". No relocated instruction other than the copied
 * ones writes a register or the flags: the sequences are the listed ones.
 * And what stays refused: a call with bytes after it, a branch into the
 * patched bytes from within them, a system call. */
#include "../unit/check.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/plan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#define F 0x555555556000ull    /* the function (upper half non-zero: push64 needs its movl) */
#define NEAR (F + 0x100000ull) /* a stub within rel32 reach */
#define FAR 0x7f0000000000ull  /* a stub out of rel32 reach of F and of T */
#define T 0x555555557000ull    /* a call / branch target outside the function */

static csh cs;

/* The function: the prologue at F, then padding (int3) to 64 bytes. */
static uint8_t fn[64];

static size_t set_fn(const uint8_t *b, size_t n) {
  memset(fn, 0xcc, sizeof fn);
  memcpy(fn, b, n);
  return n;
}

/* rel32 in fn at [at - 4, at) to target (the instruction ends at F + at) */
static void rel32_in_fn(size_t at, uint64_t target) {
  int32_t rel = (int32_t)(int64_t)(target - (F + at));
  memcpy(fn + at - 4, &rel, 4);
}

static int is_riprel(const cs_insn *in, uint64_t *abs) {
  const cs_x86 *x = &in->detail->x86;
  for (uint8_t i = 0; i < x->op_count; i++)
    if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) {
      *abs = in->address + in->size + (uint64_t)x->operands[i].mem.disp;
      return 1;
    }
  return 0;
}

/* One instruction as text; a rip-relative operand as its absolute address. */
static void text_of(const cs_insn *in, char *out, size_t cap) {
  uint64_t abs;
  if (is_riprel(in, &abs)) {
    char ops[160];
    snprintf(ops, sizeof ops, "%s", in->op_str);
    char *rip = strstr(ops, "[rip");
    char *end = rip ? strchr(rip, ']') : NULL;
    if (rip && end) {
      snprintf(out, cap, "%s %.*s[=0x%" PRIx64 "]%s", in->mnemonic, (int)(rip - ops), ops, abs,
               end + 1);
      return;
    }
  }
  snprintf(out, cap, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
}

/* A conditional jump's condition code (the opcode's low nibble), or -1. */
static int jcc_cc(const cs_insn *in) {
  int jump = 0;
  for (uint8_t i = 0; i < in->detail->groups_count; i++)
    if (in->detail->groups[i] == CS_GRP_JUMP) jump = 1;
  if (!jump || in->id == X86_INS_JMP) return -1;
  const cs_x86 *x = &in->detail->x86;
  if (x->opcode[0] == 0x0f && (x->opcode[1] & 0xf0) == 0x80) return x->opcode[1] & 0x0f;
  if ((x->opcode[0] & 0xf0) == 0x70) return x->opcode[0] & 0x0f;
  return -1;
}
static const char *const cc_name[16] = {"o", "no", "b", "ae", "e", "ne", "be", "a",
                                        "s", "ns", "p", "np", "l", "ge", "le", "g"};

/* The stub's bytes [0, n) at `at`, decoded into what they do (see the
 * top), one step per line, joined by "; ". */
static void semantics(const uint8_t *b, size_t n, uint64_t at, char *out, size_t cap) {
  cs_insn *ins = NULL;
  size_t off = 0, len = 0;
  out[0] = '\0';
#define ADD(...)                                                                                   \
  do {                                                                                             \
    len += (size_t)snprintf(out + len, cap - len, "%s", len ? "; " : "");                          \
    len += (size_t)snprintf(out + len, cap - len, __VA_ARGS__);                                    \
  } while (0)
  while (off < n && len < cap - 64) {
    size_t cnt = cs_disasm(cs, b + off, n - off, at + off, 1, &ins);
    if (cnt != 1) {
      ADD("(undecodable at +%zu)", off);
      return;
    }
    cs_insn *in = &ins[0];
    const cs_x86 *x = &in->detail->x86;
    char t[256];
    text_of(in, t, sizeof t);
    size_t next = off + in->size;
    if (in->id == X86_INS_PUSH && x->operands[0].type == X86_OP_IMM) {
      uint64_t v = (uint64_t)(int64_t)(int32_t)x->operands[0].imm;
      /* a movl $hi, 4(%rsp) right after completes it */
      cs_insn *m = NULL;
      if (cs_disasm(cs, b + next, n - next, at + next, 1, &m) == 1) {
        const cs_x86 *mx = &m->detail->x86;
        if (m->id == X86_INS_MOV && mx->operands[0].type == X86_OP_MEM &&
            mx->operands[0].mem.base == X86_REG_RSP && mx->operands[0].mem.disp == 4 &&
            mx->operands[0].size == 4 && mx->operands[1].type == X86_OP_IMM) {
          v = (v & 0xffffffffull) | (uint64_t)(uint32_t)mx->operands[1].imm << 32;
          next += m->size;
        }
        cs_free(m, 1);
      }
      ADD("push64 0x%" PRIx64, v);
    } else if (in->id == X86_INS_JMP && in->size == 6 && in->bytes[0] == 0xff &&
               in->bytes[1] == 0x25 && x->disp == 0 && next + 8 <= n) {
      uint64_t v;
      memcpy(&v, b + next, 8);
      next += 8;
      ADD("jmp 0x%" PRIx64, v);
    } else if (in->id == X86_INS_PUSH && x->operands[0].type == X86_OP_MEM &&
               x->operands[0].mem.base != X86_REG_RSP && next + 28 <= n) {
      /* the call through memory: check the fixed tail, take its address */
      static const uint8_t tail_head[] = {0xff, 0x34, 0x24, 0xc7, 0x44, 0x24, 0x08};
      static const uint8_t tail_end[] = {0x48, 0x8d, 0x64, 0x24, 0x08, 0xff, 0x64, 0x24, 0xf8};
      uint32_t lo, hi;
      if (memcmp(b + next, tail_head, 7) || b[next + 11] != 0xc7 || b[next + 12] != 0x44 ||
          b[next + 13] != 0x24 || b[next + 14] != 0x0c || memcmp(b + next + 19, tail_end, 9)) {
        ADD("%s (not the call-through-memory sequence)", t);
        next = n;
      } else {
        memcpy(&lo, b + next + 7, 4);
        memcpy(&hi, b + next + 15, 4);
        ADD("push64 0x%" PRIx64 "; jmp *%s", (uint64_t)hi << 32 | lo, in->op_str);
        next += 28;
      }
    } else if (jcc_cc(in) >= 0) {
      int cc = jcc_cc(in);
      uint64_t to = (uint64_t)x->operands[0].imm, abs;
      /* j!cc over `jmp *0(%rip); .quad T`: jcc T */
      if (in->size == 2 && to == at + next + 14 && next + 14 <= n && b[next] == 0xff &&
          b[next + 1] == 0x25 && !memcmp(b + next + 2, "\0\0\0\0", 4)) {
        memcpy(&abs, b + next + 6, 8);
        cc ^= 1, to = abs, next += 14;
      }
      ADD("jcc%s 0x%" PRIx64, cc_name[cc], to);
    } else if (in->id == X86_INS_JMP && x->operands[0].type == X86_OP_IMM) {
      ADD("jmp 0x%" PRIx64, (uint64_t)x->operands[0].imm);
    } else {
      ADD("%s", t);
    }
    cs_free(ins, 1);
    off = next;
  }
#undef ADD
}

/* 1: planned (len in *len), 0: refused (why) */
static int plan(uint32_t *len, char *why, size_t cap) {
  struct ep_patch p;
  why[0] = '\0';
  if (ep_plan_function(cs, F, sizeof fn, fn, sizeof fn, &p, why, cap) != 0) return 0;
  *len = p.len;
  return 1;
}

/* Plan fn, relocate it to dest, and compare what the stub does. */
static void expect_at(int line, const char *name, uint64_t dest, const char *want) {
  struct ep_patch p;
  char why[256] = "", got[1024];
  int rc = ep_plan_function(cs, F, sizeof fn, fn, sizeof fn, &p, why, sizeof why);
  checks++;
  if (rc != 0) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: %s: refused: %s\n", __FILE__, line, name, why);
    return;
  }
  uint8_t out[AGENT_STUB_BYTES];
  size_t n = ep_relocate(cs, &p, dest, out, AGENT_STUB_BYTES - AGENT_STUB_HEAD, why, sizeof why);
  checks++;
  if (!n) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: %s: does not relocate to 0x%" PRIx64 ": %s\n", __FILE__, line,
            name, dest, why);
    return;
  }
  semantics(out, n, dest, got, sizeof got);
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: %s at 0x%" PRIx64 ":\n  got  %s\n  want %s\n", __FILE__, line,
            name, dest, got, want);
  }
}

static void expect_refused(int line, const char *name, const char *reason) {
  char why[256];
  uint32_t len = 0;
  int ok = plan(&len, why, sizeof why);
  checks++;
  if (ok || !strstr(why, reason)) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: %s: want refused (%s), got %s\n", __FILE__, line, name, reason,
            ok ? "planned" : why);
  }
}

#define EXPECT(name, dest, ...)                                                                    \
  do {                                                                                             \
    char w_[1024];                                                                                 \
    snprintf(w_, sizeof w_, __VA_ARGS__);                                                          \
    expect_at(__LINE__, name, dest, w_);                                                           \
  } while (0)
#define REFUSED(name, reason) expect_refused(__LINE__, name, reason)

int main(void) {
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) return 77;
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

  /* -O0: push rbp; mov rbp,rsp; call T */
  set_fn((const uint8_t[]){0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0}, 9);
  rel32_in_fn(9, T);
  EXPECT("push rbp; mov rbp,rsp; call rel32", NEAR,
         "push rbp; mov rbp, rsp; push64 0x%llx; jmp 0x%llx", F + 9, T);
  EXPECT("push rbp; mov rbp,rsp; call rel32", FAR,
         "push rbp; mov rbp, rsp; push64 0x%llx; jmp 0x%llx", F + 9, T);

  /* -O2: call T first (mid() of calls_workload) */
  set_fn((const uint8_t[]){0xe8, 0, 0, 0, 0, 0x48, 0x83, 0xc7, 0x01}, 9);
  rel32_in_fn(5, T);
  EXPECT("call rel32 at +0", NEAR, "push64 0x%llx; jmp 0x%llx", F + 5, T);

  /* endbr64; push rbp; mov rbp,rsp; call: the call is past the patch */
  set_fn((const uint8_t[]){0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0}, 13);
  rel32_in_fn(13, T);
  EXPECT("endbr64; push rbp; ...", NEAR, "endbr64; push rbp; jmp 0x%llx", F + 5);
  /* endbr64; call T: displaced */
  set_fn((const uint8_t[]){0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0, 0, 0, 0}, 9);
  rel32_in_fn(9, T);
  EXPECT("endbr64; call rel32", NEAR, "endbr64; push64 0x%llx; jmp 0x%llx", F + 9, T);
  EXPECT("endbr64; call rel32", FAR, "endbr64; push64 0x%llx; jmp 0x%llx", F + 9, T);

  /* a small (non-PIE) address: push $imm32 alone */
  {
    struct ep_patch p;
    char why[256], got[512], want[512];
    uint8_t small[16] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0xc3};
    int32_t rel = 0x1000 - 9;
    memcpy(small + 5, &rel, 4);
    uint8_t out[AGENT_STUB_BYTES];
    size_t n = 0;
    if (ep_plan_function(cs, 0x401000, sizeof small, small, sizeof small, &p, why, sizeof why) == 0)
      n = ep_relocate(cs, &p, 0x500000, out, sizeof out, why, sizeof why);
    CHECK(n > 0, "non-PIE call: %s", why);
    semantics(out, n, 0x500000, got, sizeof got);
    snprintf(want, sizeof want, "push rbp; mov rbp, rsp; push64 0x401009; jmp 0x402000");
    CHECK(!strcmp(got, want), "non-PIE call:\n  got  %s\n  want %s", got, want);
    CHECK(n == 1 + 3 + 5 + 5, "non-PIE call: %zu bytes, want push imm32 alone (14)", n);
  }

  /* call *disp(%rip) (-fno-plt), its GOT slot at G */
  const uint64_t G = F + 0x3000;
  set_fn((const uint8_t[]){0xff, 0x15, 0, 0, 0, 0, 0x48, 0x89, 0xc7}, 9);
  rel32_in_fn(6, G);
  EXPECT("call *disp(%rip)", NEAR, "push64 0x%llx; jmp qword ptr [=0x%llx]", F + 6,
         (unsigned long long)G);
  /* push rbp; mov rbp,rsp; call *disp(%rip) */
  set_fn((const uint8_t[]){0x55, 0x48, 0x89, 0xe5, 0xff, 0x15, 0, 0, 0, 0}, 10);
  rel32_in_fn(10, G);
  EXPECT("push rbp; mov rbp,rsp; call *disp(%rip)", NEAR,
         "push rbp; mov rbp, rsp; push64 0x%llx; jmp qword ptr [=0x%llx]", F + 10,
         (unsigned long long)G);
  /* push rbp; push rbx; call *%r11 */
  set_fn((const uint8_t[]){0x55, 0x53, 0x41, 0xff, 0xd3}, 5);
  EXPECT("push rbp; push rbx; call *%r11", NEAR, "push rbp; push rbx; push64 0x%llx; jmp r11",
         F + 5);
  /* bash's initialize_itemlist: push rbx; mov rbx,rdi; call *8(%rdi) */
  set_fn((const uint8_t[]){0x53, 0x48, 0x89, 0xfb, 0xff, 0x57, 0x08}, 7);
  EXPECT("call *8(%rdi)", NEAR, "push rbx; mov rbx, rdi; push64 0x%llx; jmp *qword ptr [rdi + 8]",
         F + 7);
  /* call *8(%rsp): read before anything is pushed (push m computes it first) */
  set_fn((const uint8_t[]){0x90, 0xff, 0x54, 0x24, 0x08}, 5);
  {
    struct ep_patch p;
    char why[256];
    uint8_t out[AGENT_STUB_BYTES];
    size_t n = 0;
    if (ep_plan_function(cs, F, sizeof fn, fn, sizeof fn, &p, why, sizeof why) == 0)
      n = ep_relocate(cs, &p, NEAR, out, sizeof out, why, sizeof why);
    CHECK(n == 1 + 4 + 28, "call *8(%%rsp): %zu bytes (%s)", n, n ? "" : why);
    CHECK(n && !memcmp(out + 1, (const uint8_t[]){0xff, 0x74, 0x24, 0x08}, 4),
          "call *8(%%rsp) is pushed as push 8(%%rsp), the same address");
  }

  /* test edi,edi; je T (outside); push rbx */
  set_fn((const uint8_t[]){0x85, 0xff, 0x74, 0x00, 0x53}, 5);
  fn[3] = (uint8_t)(0x20 - 4); /* je F+0x20: inside the function, past the patch */
  EXPECT("test; je +N; push rbx", NEAR, "test edi, edi; jcce 0x%llx; push rbx; jmp 0x%llx",
         F + 0x20, F + 5);
  EXPECT("test; je +N; push rbx", FAR, "test edi, edi; jcce 0x%llx; push rbx; jmp 0x%llx", F + 0x20,
         F + 5);
  /* test edi,edi; jne T (rel32, to another function) */
  set_fn((const uint8_t[]){0x85, 0xff, 0x0f, 0x85, 0, 0, 0, 0}, 8);
  rel32_in_fn(8, T);
  EXPECT("test; jne rel32", FAR, "test edi, edi; jccne 0x%llx; jmp 0x%llx", T, F + 8);
  /* test edi,edi; jne +N; jmp T: the jmp last */
  set_fn((const uint8_t[]){0x85, 0xff, 0x75, 0x10, 0xe9, 0, 0, 0, 0}, 9);
  rel32_in_fn(9, T);
  EXPECT("test; jne; jmp rel32", FAR, "test edi, edi; jccne 0x%llx; jmp 0x%llx", F + 0x14, T);

  /* what real prologues hold: copied, a rip-relative one re-aimed */
  set_fn((const uint8_t[]){0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, 9);
  EXPECT("mov rax, fs:0x28", NEAR, "mov rax, qword ptr fs:[0x28]; jmp 0x%llx", F + 9);
  set_fn((const uint8_t[]){0x48, 0x8d, 0x05, 0, 0, 0, 0}, 7);
  rel32_in_fn(7, G);
  EXPECT("lea rax, [rip]", NEAR, "lea rax, [=0x%llx]; jmp 0x%llx", (unsigned long long)G, F + 7);
  set_fn((const uint8_t[]){0x48, 0x83, 0x3d, 0, 0, 0, 0, 0x00}, 8);
  { /* the disp32 ends before the imm8: relative to the instruction's end */
    int32_t d = (int32_t)(int64_t)(G - (F + 8));
    memcpy(fn + 3, &d, 4);
  }
  EXPECT("cmp [rip], 0", NEAR, "cmp qword ptr [=0x%llx], 0; jmp 0x%llx", (unsigned long long)G,
         F + 8);
  /* a ret last: copied, nothing after it */
  set_fn((const uint8_t[]){0x89, 0xf8, 0x0f, 0xc8, 0xc3}, 5);
  EXPECT("mov eax,edi; bswap eax; ret", NEAR, "mov eax, edi; bswap eax; ret");

  /* still refused */
  set_fn((const uint8_t[]){0xff, 0xd0, 0x48, 0x89, 0xc7}, 5);
  REFUSED("call *%rax with bytes after it", "with more bytes after it");
  set_fn((const uint8_t[]){0x85, 0xff, 0x74, 0x00, 0x90, 0x53}, 6);
  REFUSED("je into the patched bytes", "lands on its first bytes");
  set_fn((const uint8_t[]){0x31, 0xc0, 0x0f, 0x05, 0xc3}, 5);
  REFUSED("xor eax,eax; syscall", "a system call");
  set_fn((const uint8_t[]){0xc3, 0x48, 0x89, 0xc7, 0x90}, 5);
  REFUSED("ret with bytes after it", "with more bytes after it");
  set_fn((const uint8_t[]){0xff, 0xd4, 0x90, 0x90, 0x90}, 5);
  REFUSED("call *%rsp", "does not relocate");

  cs_close(&cs);
  return check_summary("test_reloc");
}
