/* test_operand_access.c — host->operands against the ISA, on a corpus
 * assembled by GNU as (operand_access_cases.S): for every instruction, the
 * access and size of its memory operand, and for the register cases the
 * registers it must and must not write, as the Intel SDM vol. 2 defines
 * them. Capstone 4 gets many of these wrong (a `test [m], imm` that
 * "writes", an `fstp [m]` that "reads"): host/operand_access.c corrects
 * them, and this test is what says the corrections match the ISA.
 *
 * Also: vector registers come out as ASMSPY_VREG ids, a zero idiom reads
 * nothing, and a 1.3-sized caller's struct is filled only within its size.
 * Standalone: exit 0 when every check passes, 1 otherwise. */
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { RBX = 5, RAX = 10, RCX = 11, RDX = 12, RSI = 13, RDI = 14, RIP = 16, EFLAGS = 18, RSP = 19 };

struct mem_case {
  uint64_t start, end, access, size;
  const char *text;
};
struct reg_case {
  uint64_t start, end, must_write, must_not_write;
  const char *text;
};
extern const struct mem_case __start_oa_cases[], __stop_oa_cases[];
extern const struct reg_case __start_oa_regcases[], __stop_oa_regcases[];

static const uint64_t DATA = 0x10000; /* rax = rsi = rdi: every memory operand's address */

static int decode(uint64_t start, uint64_t end, struct asmspy_operands *o) {
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  regs.ngpr = 27;
  regs.gpr[RAX] = regs.gpr[RSI] = regs.gpr[RDI] = DATA;
  regs.gpr[RSP] = 0x7ff00000;
  regs.gpr[RCX] = 1;
  regs.gpr[RIP] = regs.ip = start;
  memset(o, 0, sizeof *o);
  ASMSPY_INIT_HEADER(o);
  return asmspy_host_api()->operands(start, (const uint8_t *)(uintptr_t)start,
                                     (size_t)(end - start), &regs, o);
}

static uint64_t mask_of(const uint8_t *list, unsigned n) {
  uint64_t m = 0;
  for (unsigned i = 0; i < n; i++) m |= 1ull << list[i];
  return m;
}

static int has_vreg(const uint16_t *list, unsigned n, uint16_t v) {
  for (unsigned i = 0; i < n; i++)
    if (list[i] == v) return 1;
  return 0;
}

int main(void) {
  struct asmspy_operands o;
  int ncases = 0;
  for (const struct mem_case *c = __start_oa_cases; c < __stop_oa_cases; c++, ncases++) {
    int len = decode(c->start, c->end, &o);
    CHECK(len == (int)(c->end - c->start), "%s: decoded %d bytes, as assembled %d", c->text, len,
          (int)(c->end - c->start));
    int found = 0;
    for (unsigned i = 0; i < o.nmem; i++) {
      if (o.mem[i].addr != DATA) continue; /* the implicit stack slot of push/pop/call */
      found = 1;
      CHECK(o.mem[i].access == c->access, "%s: access %u, the ISA says %u", c->text,
            o.mem[i].access, (unsigned)c->access);
      CHECK(o.mem[i].size == c->size, "%s: size %u, the ISA says %u", c->text, o.mem[i].size,
            (unsigned)c->size);
    }
    CHECK(found == (c->access != 0), "%s: %s", c->text,
          found ? "a hint reported as a data access" : "its memory operand is missing");
  }
  CHECK(ncases >= 80, "the corpus has %d memory cases", ncases);
  int nreg = 0;
  for (const struct reg_case *c = __start_oa_regcases; c < __stop_oa_regcases; c++, nreg++) {
    decode(c->start, c->end, &o);
    uint64_t w = mask_of(o.written, o.nwritten);
    CHECK((w & c->must_write) == c->must_write, "%s: writes %#llx, must write %#llx", c->text,
          (unsigned long long)w, (unsigned long long)c->must_write);
    CHECK(!(w & c->must_not_write), "%s: writes %#llx, must not write %#llx", c->text,
          (unsigned long long)w, (unsigned long long)c->must_not_write);
  }
  CHECK(nreg >= 10, "the corpus has %d register cases", nreg);

  /* vector registers: addpd xmm1, xmm2 reads xmm1 and xmm2, writes xmm1 */
  static const uint8_t addpd[] = {0x66, 0x0f, 0x58, 0xca};
  decode((uint64_t)(uintptr_t)addpd, (uint64_t)(uintptr_t)addpd + sizeof addpd, &o);
  CHECK(has_vreg(o.vread, o.nvread, ASMSPY_VREG(ASMSPY_VREG_XMM, 1)) &&
            has_vreg(o.vread, o.nvread, ASMSPY_VREG(ASMSPY_VREG_XMM, 2)) &&
            has_vreg(o.vwritten, o.nvwritten, ASMSPY_VREG(ASMSPY_VREG_XMM, 1)) && o.nvwritten == 1,
        "addpd xmm1, xmm2: vread %u vwritten %u", o.nvread, o.nvwritten);
  /* vaddpd zmm17, zmm18, zmm19 (EVEX): the registers above 15 */
  static const uint8_t vaddpd[] = {0x62, 0xa1, 0xed, 0x40, 0x58, 0xcb};
  decode((uint64_t)(uintptr_t)vaddpd, (uint64_t)(uintptr_t)vaddpd + sizeof vaddpd, &o);
  CHECK(strncmp(o.text, "vaddpd zmm17", 12) == 0, "text '%s'", o.text);
  CHECK(has_vreg(o.vwritten, o.nvwritten, ASMSPY_VREG(ASMSPY_VREG_ZMM, 17)) &&
            has_vreg(o.vread, o.nvread, ASMSPY_VREG(ASMSPY_VREG_ZMM, 19)),
        "vaddpd: zmm17 written, zmm19 read");
  /* pxor xmm0, xmm0: a zero idiom reads nothing */
  static const uint8_t pxor[] = {0x66, 0x0f, 0xef, 0xc0};
  decode((uint64_t)(uintptr_t)pxor, (uint64_t)(uintptr_t)pxor + sizeof pxor, &o);
  CHECK(o.nvread == 0 && has_vreg(o.vwritten, o.nvwritten, ASMSPY_VREG(ASMSPY_VREG_XMM, 0)),
        "pxor xmm0, xmm0: reads %u vector registers, writes xmm0", o.nvread);
  /* x87: fadd qword ptr [rax] and fstp read st(0), the top of the stack;
   * fld only pushes (Capstone lists none of these reads) */
  static const uint8_t fadd_m[] = {0xdc, 0x00}, fld_m[] = {0xdd, 0x00}, fstp_m[] = {0xdd, 0x18};
  const uint16_t st0 = ASMSPY_VREG(ASMSPY_VREG_ST, 0);
  decode((uint64_t)(uintptr_t)fadd_m, (uint64_t)(uintptr_t)fadd_m + 2, &o);
  CHECK(has_vreg(o.vread, o.nvread, st0), "fadd m64: st(0) read ('%s')", o.text);
  decode((uint64_t)(uintptr_t)fld_m, (uint64_t)(uintptr_t)fld_m + 2, &o);
  CHECK(!has_vreg(o.vread, o.nvread, st0), "fld m64: st(0) not read ('%s')", o.text);
  decode((uint64_t)(uintptr_t)fstp_m, (uint64_t)(uintptr_t)fstp_m + 2, &o);
  CHECK(has_vreg(o.vread, o.nvread, st0), "fstp m64: st(0) read ('%s')", o.text);
  /* a 1.3 caller (struct ends at text[]): nothing written past its size */
  unsigned char buf[sizeof(struct asmspy_operands)];
  memset(buf, 0xa5, sizeof buf);
  struct asmspy_operands *old = (struct asmspy_operands *)buf;
  old->abi_version = ASMSPY_ABI_MAKE(1, 3);
  old->struct_size = (uint32_t)offsetof(struct asmspy_operands, nvread);
  asmspy_host_api()->operands((uint64_t)(uintptr_t)addpd, addpd, sizeof addpd, NULL, old);
  int intact = 1;
  for (size_t i = offsetof(struct asmspy_operands, nvread); i < sizeof buf; i++)
    if (buf[i] != 0xa5) intact = 0;
  CHECK(intact, "a 1.3-sized struct is filled only within its struct_size");
  return check_summary("operand_access");
}
