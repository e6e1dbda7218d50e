/* test_branchscan: branchscan.c on synthesized x86-64 code. Two functions,
 * then code elsewhere in the "module" that branches into their first
 * bytes: each function whose planned patch (plan.c) covers a branch target
 * is hit; targets at an entry or past the patch are not. rel8 and rel32,
 * jmp, jcc, call, loop; prefixed forms; a sweep in chunks marks the same
 * targets as one sweep; the rel32 byte pass finds the rel32 ones. */
#include "../unit/check.h"
#include "plugins/entrypatch/branchscan.h"
#include "plugins/entrypatch/plan.h"

#include <string.h>

#define BASE 0x401000ull

/* A at +0x00: push rbp; mov rbp,rsp; pop rbp; ret (patch: 1+3+1 = 5 bytes)
 * B at +0x10: mov rax,rdi; add rax,rdx; ret            (patch: 3+3 = 6)
 * C at +0x20: mov eax,1; ret                            (patch: 5)
 * D at +0x30: mov eax,2; ret                            (patch: 5)
 * callers from +0x40 on */
static uint8_t code[0x100];

static size_t put(size_t at, const uint8_t *b, size_t n) {
  memcpy(code + at, b, n);
  return at + n;
}

static void rel32_at(size_t at, uint64_t target) { /* the insn's last 4 bytes, ending at `at` */
  int32_t rel = (int32_t)(target - (BASE + at));
  memcpy(code + at - 4, &rel, 4);
}

static uint64_t plan_len(csh cs, uint64_t off, uint64_t size) {
  struct ep_patch p;
  char why[256];
  int rc = ep_plan_function(cs, BASE + off, size, code + off, size, &p, why, sizeof why);
  CHECK(rc == 0, "function at +0x%llx not plannable: %s", (unsigned long long)off, why);
  return rc == 0 ? p.len : 5;
}

int main(void) {
  memset(code, 0xcc, sizeof code); /* int3 padding, as between functions */
  put(0x00, (const uint8_t[]){0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3}, 6);
  put(0x10, (const uint8_t[]){0x48, 0x89, 0xf8, 0x48, 0x01, 0xd0, 0xc3}, 7);
  put(0x20, (const uint8_t[]){0xb8, 1, 0, 0, 0, 0xc3}, 6);
  put(0x30, (const uint8_t[]){0xb8, 2, 0, 0, 0, 0xc3}, 6);
  size_t at = 0x40;
  at = put(at, (const uint8_t[]){0xe9, 0, 0, 0, 0}, 5); /* jmp B+3 (rel32) */
  rel32_at(at, BASE + 0x13);
  at = put(at, (const uint8_t[]){0xe8, 0, 0, 0, 0}, 5); /* call A+1 (rel32: into the middle) */
  rel32_at(at, BASE + 0x01);
  at = put(at, (const uint8_t[]){0xe9, 0, 0, 0, 0}, 5); /* jmp C (its entry: fine) */
  rel32_at(at, BASE + 0x20);
  at = put(at, (const uint8_t[]){0x0f, 0x85, 0, 0, 0, 0}, 6); /* jne D+5 (past its patch) */
  rel32_at(at, BASE + 0x35);
  at = put(at, (const uint8_t[]){0xf2, 0xe9, 0, 0, 0, 0}, 6); /* bnd jmp B+5 (inside: len 6) */
  rel32_at(at, BASE + 0x15);
  size_t rel8_end = 0x80;
  code[rel8_end - 2] = 0xff, code[rel8_end - 1] = 0xe0; /* jmp rax (indirect: no target) */
  put(0x80, (const uint8_t[]){0xc3}, 1);

  csh cs, cs_detail;
  CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK, "capstone");
  CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &cs_detail) == CS_ERR_OK, "capstone");
  cs_option(cs_detail, CS_OPT_DETAIL, CS_OPT_ON);
  uint64_t len_a = plan_len(cs_detail, 0x00, 6), len_b = plan_len(cs_detail, 0x10, 7);
  uint64_t len_c = plan_len(cs_detail, 0x20, 6), len_d = plan_len(cs_detail, 0x30, 6);
  CHECK(len_a == 5 && len_b == 6 && len_c == 5 && len_d == 5, "lens %llu %llu %llu %llu",
        (unsigned long long)len_a, (unsigned long long)len_b, (unsigned long long)len_c,
        (unsigned long long)len_d);

  struct ep_branch_map m;
  CHECK(ep_branch_map_init(&m, BASE, BASE + sizeof code) == 0, "map");
  size_t used = ep_branch_scan_code(cs, code, sizeof code, BASE, 1, &m, 1);
  CHECK(used == sizeof code, "a last sweep covers everything (%zu)", used);
  CHECK(ep_branch_map_hit(&m, BASE + 0x10, BASE + 0x10 + len_b) == BASE + 0x13,
        "jmp rel32 into B+3: B refused");
  CHECK(ep_branch_map_hit(&m, BASE + 0x00, BASE + 0x00 + len_a) == BASE + 0x01,
        "call rel32 into A+1: A refused");
  CHECK(ep_branch_map_hit(&m, BASE + 0x14, BASE + 0x10 + len_b) == BASE + 0x15,
        "bnd jmp rel32 into B+5 (B's patch is 6 bytes)");
  CHECK(ep_branch_map_hit(&m, BASE + 0x20, BASE + 0x20 + len_c) == 0,
        "a jump to C's entry is fine");
  CHECK(ep_branch_map_hit(&m, BASE + 0x30, BASE + 0x30 + len_d) == 0,
        "a jcc to D+5 lands past D's patch");

  /* the rel32 byte pass alone finds the same rel32 targets, without
   * decoding; in chunks too */
  struct ep_branch_map bytes_only;
  CHECK(ep_branch_map_init(&bytes_only, BASE, BASE + sizeof code) == 0, "map");
  size_t resume = ep_branch_scan_rel32_bytes(code, 0x46, BASE, 0, &bytes_only, 1);
  CHECK(resume == 0x40, "a chunk leaves the positions a pattern could overrun (%zu)", resume);
  ep_branch_scan_rel32_bytes(code + resume, sizeof code - resume, BASE + resume, 1, &bytes_only, 1);
  CHECK(ep_branch_map_hit(&bytes_only, BASE + 0x10, BASE + 0x16) == BASE + 0x13, "B+3 by bytes");
  CHECK(ep_branch_map_hit(&bytes_only, BASE + 0x14, BASE + 0x16) == BASE + 0x15, "B+5 by bytes");
  CHECK(ep_branch_map_hit(&bytes_only, BASE, BASE + 5) == BASE + 1, "A+1 by bytes");
  CHECK(ep_branch_map_hit(&bytes_only, BASE + 0x20, BASE + 0x25) == 0, "C's entry is fine");
  ep_branch_map_free(&bytes_only);

  /* rel8 forms and loop: a second module of their own */
  memset(code, 0xcc, sizeof code);
  put(0x00, (const uint8_t[]){0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3}, 6);       /* A */
  put(0x10, (const uint8_t[]){0x48, 0x89, 0xf8, 0x48, 0x01, 0xd0, 0xc3}, 7); /* B */
  put(0x20, (const uint8_t[]){0xb8, 1, 0, 0, 0, 0xc3}, 6);                   /* C */
  put(0x30, (const uint8_t[]){0xeb, (uint8_t)(0x02 - 0x32)}, 2);             /* jmp A+2 (rel8) */
  put(0x32, (const uint8_t[]){0x74, (uint8_t)(0x14 - 0x34)}, 2);             /* je B+4 (rel8) */
  put(0x34, (const uint8_t[]){0xe2, (uint8_t)(0x23 - 0x36)}, 2);             /* loop C+3 */
  ep_branch_map_free(&m);
  CHECK(ep_branch_map_init(&m, BASE, BASE + sizeof code) == 0, "map");
  ep_branch_scan_code(cs, code, sizeof code, BASE, 1, &m, 1);
  CHECK(ep_branch_map_hit(&m, BASE, BASE + 5) == BASE + 2, "jmp rel8 into A+2");
  CHECK(ep_branch_map_hit(&m, BASE + 0x10, BASE + 0x16) == BASE + 0x14, "je rel8 into B+4");
  CHECK(ep_branch_map_hit(&m, BASE + 0x20, BASE + 0x25) == BASE + 0x23, "loop into C+3");
  struct ep_branch_map rel8_bytes;
  CHECK(ep_branch_map_init(&rel8_bytes, BASE, BASE + sizeof code) == 0, "map");
  ep_branch_scan_rel32_bytes(code, sizeof code, BASE, 1, &rel8_bytes, 1);
  CHECK(ep_branch_map_hit(&rel8_bytes, BASE, BASE + 0x30) == 0,
        "rel8 branches are the decoding's (the byte pass looks for rel32 only)");
  ep_branch_map_free(&rel8_bytes);

  /* in chunks (as read from the target): the same bits */
  struct ep_branch_map m2;
  CHECK(ep_branch_map_init(&m2, BASE, BASE + sizeof code) == 0, "map");
  size_t off = ep_branch_scan_code(cs, code, 0x33, BASE, 0, &m2, 1);
  CHECK(off <= 0x33 && off + 15 >= 0x33, "a chunk stops before an instruction it may cut (%zu)",
        off);
  ep_branch_scan_code(cs, code + off, sizeof code - off, BASE + off, 1, &m2, 1);
  CHECK(memcmp(m.bits, m2.bits, sizeof code / 8) == 0, "chunked sweep marks the same targets");

  /* a module's mappings apart (node maps part of its text again far
   * away): a sweep of one marks a target in the other, and no bitmap spans
   * the hole between them */
  struct ep_branch_map two[2];
  const uint64_t other = BASE + 0x200000;
  CHECK(ep_branch_map_init(&two[0], BASE, BASE + 0x10) == 0 &&
            ep_branch_map_init(&two[1], other, other + 0x1000) == 0,
        "maps");
  uint8_t jmp_other[16];
  memset(jmp_other, 0x90, sizeof jmp_other);
  jmp_other[0] = 0xe9; /* at BASE: jmp other+3 */
  int32_t rel = (int32_t)(other + 3 - (BASE + 5));
  memcpy(jmp_other + 1, &rel, 4);
  ep_branch_scan_code(cs, jmp_other, sizeof jmp_other, BASE, 1, two, 2);
  CHECK(ep_branch_map_hit(&two[1], other, other + 5) == other + 3,
        "a jump into another mapping of the module");
  CHECK(ep_branch_map_hit(&two[0], BASE, BASE + 0x10) == 0, "nothing lands in the first");
  ep_branch_map_free(&two[0]);
  ep_branch_map_free(&two[1]);

  /* the decoder alone */
  const uint8_t ind[] = {0xff, 0x25, 0, 0, 0, 0};
  CHECK(ep_direct_branch_target(ind, sizeof ind, 0x1000) == 0, "jmp [rip]: indirect");
  const uint8_t call0[] = {0xe8, 0, 0, 0, 0};
  CHECK(ep_direct_branch_target(call0, sizeof call0, 0x1000) == 0x1005, "call next");
  const uint8_t notrack[] = {0x3e, 0xff, 0xe0};
  CHECK(ep_direct_branch_target(notrack, sizeof notrack, 0x1000) == 0, "notrack jmp rax");
  const uint8_t mov[] = {0xb8, 0xe9, 0, 0, 0};
  CHECK(ep_direct_branch_target(mov, sizeof mov, 0x1000) == 0, "e9 as an immediate");

  ep_branch_map_free(&m);
  ep_branch_map_free(&m2);
  cs_close(&cs);
  cs_close(&cs_detail);
  return check_summary("branchscan");
}
