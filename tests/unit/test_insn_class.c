/* test_insn_class.c — unit test of host/insn_class.c (host->insn_class):
 * the ASMSPY_INSN_* class bits and the length of hand-assembled x86-64
 * and AArch64 instructions, including the forms the old mnemonic matchers
 * got wrong (prefixed branches, retf, loop).
 *
 * Built with host/insn_class.c compiled in (not linked from libasmspy), so
 * both architectures' decoders are reachable on any host through
 * insn_class_for(); the native one is also checked through the public host
 * table, as a plugin reaches it. Standalone: exit 0 when every check
 * passes, 1 otherwise. */
#include <asmspy/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "host/host.h"

#define D ASMSPY_INSN_DECODED
#define CALL ASMSPY_INSN_CALL
#define RET ASMSPY_INSN_RET
#define JUMP ASMSPY_INSN_JUMP
#define COND ASMSPY_INSN_COND
#define REL ASMSPY_INSN_RELATIVE
#define IND ASMSPY_INSN_INDIRECT
#define SYS ASMSPY_INSN_SYSCALL
#define INT ASMSPY_INSN_INT
#define IRET ASMSPY_INSN_IRET
#define PRIV ASMSPY_INSN_PRIVILEGE
#define REP ASMSPY_INSN_REP
#define LEN(n) ((uint32_t)(n) << ASMSPY_INSN_LEN_SHIFT)

struct x86_case {
  const char *what;
  uint8_t bytes[16];
  size_t n;
  uint32_t want; /* class bits and length */
};

static const struct x86_case x86[] = {
    {"call rel32", {0xe8, 0x10, 0x00, 0x00, 0x00}, 5, D | CALL | REL | LEN(5)},
    {"call rax", {0xff, 0xd0}, 2, D | CALL | IND | LEN(2)},
    {"call [rax]", {0xff, 0x10}, 2, D | CALL | IND | LEN(2)},
    {"call [rip+disp]", {0xff, 0x15, 0x00, 0x10, 0x00, 0x00}, 6, D | CALL | IND | LEN(6)},
    {"bnd call rel32", {0xf2, 0xe8, 0, 0, 0, 0}, 6, D | CALL | REL | LEN(6)},
    {"ret", {0xc3}, 1, D | RET | LEN(1)},
    {"ret imm16", {0xc2, 0x08, 0x00}, 3, D | RET | LEN(3)},
    {"rep ret", {0xf3, 0xc3}, 2, D | RET | LEN(2)},
    {"jmp rel8", {0xeb, 0xfe}, 2, D | JUMP | REL | LEN(2)},
    {"jmp rel32", {0xe9, 0, 0, 0, 0}, 5, D | JUMP | REL | LEN(5)},
    {"jmp rax", {0xff, 0xe0}, 2, D | JUMP | IND | LEN(2)},
    {"notrack jmp rax", {0x3e, 0xff, 0xe0}, 3, D | JUMP | IND | LEN(3)},
    {"je rel8", {0x74, 0x02}, 2, D | JUMP | COND | REL | LEN(2)},
    {"jne rel32", {0x0f, 0x85, 0, 0, 0, 0}, 6, D | JUMP | COND | REL | LEN(6)},
    {"loop", {0xe2, 0xfe}, 2, D | JUMP | COND | REL | LEN(2)},
    {"jrcxz", {0xe3, 0x00}, 2, D | JUMP | COND | REL | LEN(2)},
    {"syscall", {0x0f, 0x05}, 2, D | SYS | LEN(2)},
    {"sysenter", {0x0f, 0x34}, 2, D | SYS | LEN(2)},
    {"int3", {0xcc}, 1, D | INT | LEN(1)},
    {"int 0x80", {0xcd, 0x80}, 2, D | INT | LEN(2)},
    {"int1", {0xf1}, 1, D | INT | LEN(1)},
    {"iretq", {0x48, 0xcf}, 2, D | IRET | PRIV | LEN(2)},
    {"hlt", {0xf4}, 1, D | PRIV | LEN(1)},
    {"rep stosb", {0xf3, 0xaa}, 2, D | REP | LEN(2)},
    {"repne scasb", {0xf2, 0xae}, 2, D | REP | LEN(2)},
    {"movsb (no rep)", {0xa4}, 1, D | LEN(1)},
    {"pause (f3 90: not a rep)", {0xf3, 0x90}, 2, D | LEN(2)},
    {"movsd xmm (f2: not a rep)", {0xf2, 0x0f, 0x10, 0xc1}, 4, D | LEN(4)},
    {"nop", {0x90}, 1, D | LEN(1)},
    {"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4, D | LEN(4)},
    {"mov rax, rbx", {0x48, 0x89, 0xd8}, 3, D | LEN(3)},
    {"garbage (push es: invalid in 64-bit)", {0x06}, 1, 0},
    {"truncated call rel32", {0xe8, 0x10}, 2, 0},
};

struct arm64_case {
  const char *what;
  uint32_t word;
  uint32_t want;
};

static const struct arm64_case arm64[] = {
    {"bl", 0x94000001u, D | CALL | REL | LEN(4)},
    {"blr x1", 0xd63f0020u, D | CALL | IND | LEN(4)},
    {"ret", 0xd65f03c0u, D | RET | LEN(4)},
    {"b", 0x14000001u, D | JUMP | REL | LEN(4)},
    {"b.eq", 0x54000020u, D | JUMP | COND | REL | LEN(4)},
    {"br x1", 0xd61f0020u, D | JUMP | IND | LEN(4)},
    {"cbz x0", 0xb4000020u, D | JUMP | COND | REL | LEN(4)},
    {"tbnz w0", 0x37000020u, D | JUMP | COND | REL | LEN(4)},
    {"svc #0", 0xd4000001u, D | SYS | LEN(4)},
    {"brk #0", 0xd4200000u, D | INT | LEN(4)},
    {"eret", 0xd69f03e0u, D | IRET | LEN(4)},
    {"nop", 0xd503201fu, D | LEN(4)},
};

int main(void) {
  for (size_t i = 0; i < sizeof x86 / sizeof *x86; i++) {
    uint32_t got = insn_class_for(0, 0x401000, x86[i].bytes, x86[i].n);
    CHECK(got == x86[i].want, "x86 %s: class %#x, want %#x", x86[i].what, got, x86[i].want);
    /* the cache answers the same for the same (address, bytes) */
    uint32_t again = insn_class_for(0, 0x401000, x86[i].bytes, x86[i].n);
    CHECK(again == got, "x86 %s: cached %#x, first %#x", x86[i].what, again, got);
  }
  /* a rewritten address (JIT) is decoded afresh, not served from the cache */
  const uint8_t call[] = {0xe8, 0, 0, 0, 0}, ret[] = {0xc3};
  CHECK(insn_class_for(0, 0x500000, call, sizeof call) & CALL, "call at 0x500000");
  CHECK(insn_class_for(0, 0x500000, ret, sizeof ret) == (D | RET | LEN(1)),
        "ret rewritten over the call at 0x500000");
  CHECK(insn_class_for(0, 0x500000, NULL, 0) == 0, "no bytes: 0");
  CHECK(ASMSPY_INSN_LEN(D | CALL | REL | LEN(5)) == 5, "ASMSPY_INSN_LEN");

  for (size_t i = 0; i < sizeof arm64 / sizeof *arm64; i++) {
    uint8_t b[4];
    for (int k = 0; k < 4; k++) b[k] = (uint8_t)(arm64[i].word >> (8 * k)); /* little-endian */
    uint32_t got = insn_class_for(1, 0x400000, b, sizeof b);
    CHECK(got == arm64[i].want, "arm64 %s: class %#x, want %#x", arm64[i].what, got, arm64[i].want);
  }

#if defined(__x86_64__)
  /* The public table serves the native decoder. */
  const struct asmspy_host_api *h = asmspy_host_api();
  CHECK(ASMSPY_HAS(h, insn_class) && h->insn_class, "host table has insn_class()");
  if (ASMSPY_HAS(h, insn_class) && h->insn_class)
    for (size_t i = 0; i < sizeof x86 / sizeof *x86; i++) {
      uint32_t got = h->insn_class(0x402000, x86[i].bytes, x86[i].n);
      CHECK(got == x86[i].want, "host->insn_class %s: %#x, want %#x", x86[i].what, got,
            x86[i].want);
    }
#endif
  return check_summary("insn_class");
}
