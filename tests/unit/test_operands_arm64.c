/* test_operands_arm64.c — AArch64 operand semantics (host/arch/
 * operands_arm64.c, host->operands on arm64) against the ISA, on the
 * build host: every case's instruction is assembled by GNU as for AArch64
 * (aarch64-linux-gnu-as, not by Capstone), its bytes decoded, and the
 * registers it reads and writes, the SIMD/FP registers (ASMSPY_VREG_V) and
 * its memory access (effective address from the registers below, size,
 * read/write) compared with what the Arm ARM says — exactly: a register
 * listed that the instruction does not touch fails as much as one missing.
 *
 * argv[1] / argv[2]: the assembler and objcopy (meson finds them); exit 77
 * (skip) when there is none. Exit 0 when every check passes, 1 otherwise. */
#include <asmspy/plugin.h>

#include "host/arch/operand_lists.h"
#include "host/arch/regs_aarch64.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define NZCV (1ull << A64G_NZCV)
#define X(n) (1ull << (n))
#define SP X(31)
#define V(n) (1ull << (n))
#define R 1u
#define W 2u

static const uint64_t BASE = 0x400000; /* where case i sits: BASE + 4 * i */

struct a64_case {
  const char *text;         /* GNU as syntax */
  uint64_t reads, writes;   /* register id masks (x0-x30, sp 31, nzcv 32) */
  uint64_t vreads, vwrites; /* v<n> masks */
  uint64_t addr;            /* memory: the effective address (0: no access) */
  uint32_t size, access;
};

/* x1 = 0x1000, x2 = 3, x3 = 0x2000, x4 = -2 (as w4: sxtw), sp = 0x7000 */
#define PC(i) (BASE + 4u * (i))
static const struct a64_case cases[] = {
    /* loads and stores, with the address forms */
    {"ldr x0, [x1, #8]", X(1), X(0), 0, 0, 0x1008, 8, R},
    {"ldr w0, [x1, x2, lsl #2]", X(1) | X(2), X(0), 0, 0, 0x100c, 4, R},
    {"ldr x0, [x1, x2]", X(1) | X(2), X(0), 0, 0, 0x1003, 8, R},
    {"ldr x0, [x1, #16]!", X(1), X(0) | X(1), 0, 0, 0x1010, 8, R}, /* pre-index */
    {"ldr x0, [x1], #16", X(1), X(0) | X(1), 0, 0, 0x1000, 8, R},  /* post-index */
    {"str x3, [sp, #-16]!", X(3) | SP, SP, 0, 0, 0x6ff0, 8, W},
    {"stp x29, x30, [sp, #-32]!", X(29) | X(30) | SP, SP, 0, 0, 0x6fe0, 16, W},
    {"ldp x29, x30, [sp], #32", SP, X(29) | X(30) | SP, 0, 0, 0x7000, 16, R},
    {"stp w5, w6, [x3, #8]", X(5) | X(6) | X(3), 0, 0, 0, 0x2008, 8, W},
    {"ldpsw x0, x5, [x3]", X(3), X(0) | X(5), 0, 0, 0x2000, 8, R},
    {"ldrb w0, [x1, #1]", X(1), X(0), 0, 0, 0x1001, 1, R},
    {"ldrsh x0, [x1, #2]", X(1), X(0), 0, 0, 0x1002, 2, R},
    {"strh w0, [x1, #2]", X(0) | X(1), 0, 0, 0, 0x1002, 2, W},
    {"ldrsw x0, [x1, w4, sxtw #2]", X(1) | X(4), X(0), 0, 0, 0x1000 - 8, 4, R},
    {"ldur x0, [x1, #-8]", X(1), X(0), 0, 0, 0x1000 - 8, 8, R},
    {"ldaxr x0, [x1]", X(1), X(0), 0, 0, 0x1000, 8, R},
    {"stlxr w2, x0, [x1]", X(0) | X(1), X(2), 0, 0, 0x1000, 8, W},
    {"ldxp x5, x6, [x1]", X(1), X(5) | X(6), 0, 0, 0x1000, 16, R},
    {"stlr w0, [x1]", X(0) | X(1), 0, 0, 0, 0x1000, 4, W},
    {"str xzr, [x1]", X(1), 0, 0, 0, 0x1000, 8, W},
    {"prfm pldl1keep, [x1]", X(1), 0, 0, 0, 0, 0, 0},
    {"ldr x0, .+8", 0, X(0), 0, 0, PC(21) + 8, 8, R}, /* a literal: pc-relative */
    /* SIMD/FP loads and stores */
    {"ldr q0, [x1, #16]", X(1), 0, 0, V(0), 0x1010, 16, R},
    {"str s1, [x1, #4]", X(1), 0, V(1), 0, 0x1004, 4, W},
    {"ldp q0, q1, [x1]", X(1), 0, 0, V(0) | V(1), 0x1000, 32, R},
    {"stp q2, q3, [sp, #-32]!", SP, SP, V(2) | V(3), 0, 0x6fe0, 32, W},
    {"ld1 {v0.16b, v1.16b}, [x1], #32", X(1), X(1), 0, V(0) | V(1), 0x1000, 32, R},
    {"ld1 {v3.s}[1], [x1]", X(1), 0, V(3), V(3), 0x1000, 4, R}, /* a lane: the rest stays */
    {"ld1r {v4.4s}, [x1]", X(1), 0, 0, V(4), 0x1000, 4, R},
    {"st1 {v2.2d}, [x1]", X(1), 0, V(2), 0, 0x1000, 16, W},
    {"st2 {v0.4s, v1.4s}, [x1], x2", X(1) | X(2), X(1), V(0) | V(1), 0, 0x1000, 32, W},
    /* data processing and the flags */
    {"mov x0, x1", X(1), X(0), 0, 0, 0, 0, 0},
    {"add x1, x2, x3", X(2) | X(3), X(1), 0, 0, 0, 0, 0},
    {"adds x1, x2, x3", X(2) | X(3), X(1) | NZCV, 0, 0, 0, 0, 0},
    {"cmp x0, #5", X(0), NZCV, 0, 0, 0, 0, 0},
    {"cmn w0, w1", X(0) | X(1), NZCV, 0, 0, 0, 0, 0},
    {"tst w0, #1", X(0), NZCV, 0, 0, 0, 0, 0},
    {"ccmp x0, x1, #0, ne", X(0) | X(1) | NZCV, NZCV, 0, 0, 0, 0, 0},
    {"csel x0, x1, x2, eq", X(1) | X(2) | NZCV, X(0), 0, 0, 0, 0, 0},
    {"cset w0, lt", NZCV, X(0), 0, 0, 0, 0, 0},
    {"adc x0, x1, x2", X(1) | X(2) | NZCV, X(0), 0, 0, 0, 0, 0},
    {"movk x0, #1, lsl #16", X(0), X(0), 0, 0, 0, 0, 0},
    {"eor x0, x1, x1", 0, X(0), 0, 0, 0, 0, 0}, /* a zero idiom reads nothing */
    {"mrs x0, nzcv", NZCV, X(0), 0, 0, 0, 0, 0},
    {"msr nzcv, x1", X(1), NZCV, 0, 0, 0, 0, 0},
    {"fadd d0, d1, d2", 0, 0, V(1) | V(2), V(0), 0, 0, 0},
    {"fmla v0.4s, v1.4s, v2.4s", 0, 0, V(0) | V(1) | V(2), V(0), 0, 0, 0},
    {"fcmp d0, d1", 0, NZCV, V(0) | V(1), 0, 0, 0, 0},
    {"fmov d0, x1", X(1), 0, 0, V(0), 0, 0, 0},
    {"umov w0, v1.s[1]", 0, X(0), V(1), 0, 0, 0, 0},
    /* control flow */
    {"b.ne .+8", NZCV, 0, 0, 0, 0, 0, 0},
    {"cbz x0, .+8", X(0), 0, 0, 0, 0, 0, 0},
    {"bl .+8", 0, X(30), 0, 0, 0, 0, 0},
    {"blr x3", X(3), X(30), 0, 0, 0, 0, 0},
    {"ret", X(30), 0, 0, 0, 0, 0, 0},
    {"svc #0", X(8) | X(0) | X(1) | X(2) | X(3) | X(4) | X(5), X(0), 0, 0, 0, 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

static uint64_t mask_of(const uint8_t *list, unsigned n) {
  uint64_t m = 0;
  for (unsigned i = 0; i < n; i++) m |= 1ull << list[i];
  return m;
}

static uint64_t vmask_of(const uint16_t *list, unsigned n, int *foreign) {
  uint64_t m = 0;
  for (unsigned i = 0; i < n; i++) {
    if (ASMSPY_VREG_CLASS(list[i]) != ASMSPY_VREG_V) *foreign = 1;
    m |= 1ull << ASMSPY_VREG_NUM(list[i]);
  }
  return m;
}

/* Assemble every case, one instruction each, into raw bytes. */
static int assemble(const char *as, const char *objcopy, uint8_t *out, size_t n) {
  char dir[] = "/tmp/asmspy_a64_XXXXXX";
  if (!mkdtemp(dir)) return -1;
  char src[64], obj[64], bin[64], cmd[1024];
  snprintf(src, sizeof src, "%s/cases.S", dir);
  snprintf(obj, sizeof obj, "%s/cases.o", dir);
  snprintf(bin, sizeof bin, "%s/cases.bin", dir);
  FILE *f = fopen(src, "w");
  if (!f) return -1;
  for (size_t i = 0; i < NCASES; i++) fprintf(f, "%s\n", cases[i].text);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s' -o '%s' '%s' && '%s' -O binary -j .text '%s' '%s'", as, obj, src,
           objcopy, obj, bin);
  int rc = system(cmd);
  size_t got = 0;
  if (rc == 0 && (f = fopen(bin, "rb"))) {
    got = fread(out, 1, n, f);
    fclose(f);
  }
  unlink(src), unlink(obj), unlink(bin), rmdir(dir);
  return rc == 0 && got == n ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 3 || access(argv[1], X_OK) != 0 || strlen(argv[1]) > 200 || strlen(argv[2]) > 200) {
    printf("SKIP: no AArch64 assembler\n");
    return 77;
  }
  static uint8_t code[4 * NCASES];
  if (assemble(argv[1], argv[2], code, sizeof code) != 0) {
    printf("FAIL: could not assemble the cases with %s\n", argv[1]);
    return 1;
  }
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  regs.ngpr = 32;
  regs.gpr[1] = 0x1000;
  regs.gpr[2] = 3;
  regs.gpr[3] = 0x2000;
  regs.gpr[4] = 0xfffffffeu; /* w4 = -2 */
  regs.gpr[31] = regs.sp = 0x7000;
  for (size_t i = 0; i < NCASES; i++) {
    const struct a64_case *c = &cases[i];
    struct asmspy_operands o;
    memset(&o, 0, sizeof o);
    ASMSPY_INIT_HEADER(&o);
    regs.ip = PC(i);
    int len = operands_arm64(PC(i), code + 4 * i, 4, &regs, &o);
    CHECK(len == 4, "%-34s decodes (len %d, \"%s\")", c->text, len, o.text);
    if (len != 4) continue;
    uint64_t rd = mask_of(o.read, o.nread), wr = mask_of(o.written, o.nwritten);
    int foreign = 0;
    uint64_t vr = vmask_of(o.vread, o.nvread, &foreign),
             vw = vmask_of(o.vwritten, o.nvwritten, &foreign);
    CHECK(rd == c->reads, "%-34s reads  %#" PRIx64 " (want %#" PRIx64 ")", c->text, rd, c->reads);
    CHECK(wr == c->writes, "%-34s writes %#" PRIx64 " (want %#" PRIx64 ")", c->text, wr, c->writes);
    CHECK(vr == c->vreads && vw == c->vwrites && !foreign,
          "%-34s v-reads %#" PRIx64 " v-writes %#" PRIx64 " (want %#" PRIx64 " %#" PRIx64 ")",
          c->text, vr, vw, c->vreads, c->vwrites);
    if (c->access) {
      CHECK(o.nmem == 1 && o.mem[0].addr == c->addr && o.mem[0].size == c->size &&
                o.mem[0].access == c->access,
            "%-34s memory %#" PRIx64 "/%u/%s (got %u: %#" PRIx64 "/%u/%u)", c->text, c->addr,
            c->size, c->access == R ? "read" : "write", o.nmem, o.nmem ? o.mem[0].addr : 0,
            o.nmem ? o.mem[0].size : 0, o.nmem ? o.mem[0].access : 0);
    } else {
      CHECK(o.nmem == 0, "%-34s touches no memory (got %u)", c->text, o.nmem);
    }
  }
  /* undecodable bytes: length 0, nothing listed */
  struct asmspy_operands o;
  memset(&o, 0, sizeof o);
  ASMSPY_INIT_HEADER(&o);
  static const uint8_t udf[4] = {0, 0, 0, 0}; /* udf #0 */
  int len = operands_arm64(BASE, udf, 4, &regs, &o);
  CHECK(len == 0 || (o.nread == 0 && o.nwritten == 0 && o.nmem == 0),
        "udf #0: nothing read, written or accessed (len %d)", len);
  return check_summary("operands_arm64");
}
