/* The operand access the ISA defines, where Capstone 4's is wrong.
 *
 * Capstone 4.0.2 (Debian 12's) derives each operand's read/write flags from
 * LLVM tables that are wrong for whole classes of x86 instructions, in both
 * directions (measured by tests/unit/test_operand_access.c on every
 * instruction listed here):
 *   - read-only compares reported as writes: `test byte ptr [m], imm` and
 *     `test al, 1` "write" their first operand, so a data-flow trace would
 *     record a store that never happened and cut the def-use chain at it;
 *   - stores reported as reads: fst/fstp/fist/fistp/fnstcw, stmxcsr, movbe,
 *     movq/movhps/pextr*, VEX/EVEX vmovdqu/vmovdqu64/vmovaps stores,
 *     vmaskmov*: the write is lost, so a later read points past it;
 *   - read-modify-writes reported as reads: cmpxchg, cmpxchg8b/16b, rol/rcl
 *     by cl or 1;
 *   - sizes: comiss/comisd read 4/8 bytes, not an xmmword; fnstsw writes 2.
 * Each row below is the Intel SDM vol. 2 description of the instruction's
 * first operand (op0): the access, whether the row applies only when op0 is
 * memory (a store form whose register form is a load Capstone gets right),
 * and the memory operand's size when Capstone's is wrong. The registers an
 * instruction touches implicitly (cmpxchg's rax) are in operands.c. */
#include "host/host.h"
#include "host/operand_access.h"

#if defined(__x86_64__)
#include <capstone/capstone.h>
#include <stdlib.h>

#define R OA_READ
#define W OA_WRITE
#define RW (OA_READ | OA_WRITE)
#define NONE OA_NONE

static const struct oa_rule rules[] = {
    /* compares and tests: op0 is only read (flags are the only result) */
    {X86_INS_TEST, R, 0, 0},
    {X86_INS_CMP, R, 0, 0},
    {X86_INS_BT, R, 0, 0},
    {X86_INS_PTEST, R, 0, 0},
    {X86_INS_VPTEST, R, 0, 0},
    {X86_INS_VTESTPS, R, 0, 0},
    {X86_INS_VTESTPD, R, 0, 0},
    {X86_INS_UCOMISS, R, 0, 4},
    {X86_INS_COMISS, R, 0, 4},
    {X86_INS_VUCOMISS, R, 0, 4},
    {X86_INS_VCOMISS, R, 0, 4},
    {X86_INS_UCOMISD, R, 0, 8},
    {X86_INS_COMISD, R, 0, 8},
    {X86_INS_VUCOMISD, R, 0, 8},
    {X86_INS_VCOMISD, R, 0, 8},
    {X86_INS_FCOM, R, 0, 0},
    {X86_INS_FCOMP, R, 0, 0},
    {X86_INS_FICOM, R, 0, 0},
    {X86_INS_FICOMP, R, 0, 0},
    /* loads of control state: the memory is only read */
    {X86_INS_FLDCW, R, 1, 2},
    {X86_INS_FLDENV, R, 1, 28},
    {X86_INS_FRSTOR, R, 1, 108},
    {X86_INS_FXRSTOR, R, 1, 512},
    {X86_INS_FXRSTOR64, R, 1, 512},
    {X86_INS_LDMXCSR, R, 1, 4},
    {X86_INS_VLDMXCSR, R, 1, 4},
    {X86_INS_PUSH, R, 1, 0},
    /* hints: they name an address but move no data */
    {X86_INS_PREFETCH, NONE, 1, 0},
    {X86_INS_PREFETCHW, NONE, 1, 0},
    {X86_INS_PREFETCHT0, NONE, 1, 0},
    {X86_INS_PREFETCHT1, NONE, 1, 0},
    {X86_INS_PREFETCHT2, NONE, 1, 0},
    {X86_INS_PREFETCHNTA, NONE, 1, 0},
    {X86_INS_CLFLUSH, NONE, 1, 0},
    {X86_INS_CLFLUSHOPT, NONE, 1, 0},
    {X86_INS_CLWB, NONE, 1, 0},
    /* x87 / SSE control and state stores: the memory is only written */
    {X86_INS_FST, W, 1, 0},
    {X86_INS_FSTP, W, 1, 0},
    {X86_INS_FIST, W, 1, 0},
    {X86_INS_FISTP, W, 1, 0},
    {X86_INS_FISTTP, W, 1, 0},
    {X86_INS_FBSTP, W, 1, 10},
    {X86_INS_FNSTCW, W, 1, 2},
    {X86_INS_FNSTSW, W, 1, 2},
    {X86_INS_FNSTENV, W, 1, 28},
    {X86_INS_FNSAVE, W, 1, 108},
    {X86_INS_FXSAVE, W, 1, 512},
    {X86_INS_FXSAVE64, W, 1, 512},
    {X86_INS_XSAVE, W, 1, 576}, /* legacy area + header always; components by XCR0 */
    {X86_INS_XSAVE64, W, 1, 576},
    {X86_INS_STMXCSR, W, 1, 4},
    {X86_INS_VSTMXCSR, W, 1, 4},
    /* store forms of moves (the register-destination form is a load) */
    {X86_INS_MOVBE, W, 1, 0},
    {X86_INS_MOVD, W, 1, 0},
    {X86_INS_MOVQ, W, 1, 0},
    {X86_INS_MOVHPS, W, 1, 8},
    {X86_INS_MOVHPD, W, 1, 8},
    {X86_INS_MOVLPS, W, 1, 8},
    {X86_INS_MOVLPD, W, 1, 8},
    {X86_INS_MOVAPS, W, 1, 0},
    {X86_INS_MOVUPS, W, 1, 0},
    {X86_INS_MOVAPD, W, 1, 0},
    {X86_INS_MOVUPD, W, 1, 0},
    {X86_INS_MOVDQA, W, 1, 0},
    {X86_INS_MOVDQU, W, 1, 0},
    {X86_INS_MOVSS, W, 1, 0},
    {X86_INS_MOVSD, W, 1, 0},
    {X86_INS_MOVNTI, W, 1, 0},
    {X86_INS_MOVNTDQ, W, 1, 0},
    {X86_INS_MOVNTPS, W, 1, 0},
    {X86_INS_MOVNTPD, W, 1, 0},
    {X86_INS_MOVNTQ, W, 1, 0},
    {X86_INS_PEXTRB, W, 1, 1},
    {X86_INS_PEXTRW, W, 1, 2},
    {X86_INS_PEXTRD, W, 1, 4},
    {X86_INS_PEXTRQ, W, 1, 8},
    {X86_INS_EXTRACTPS, W, 1, 4},
    {X86_INS_VPEXTRB, W, 1, 1},
    {X86_INS_VPEXTRW, W, 1, 2},
    {X86_INS_VPEXTRD, W, 1, 4},
    {X86_INS_VPEXTRQ, W, 1, 8},
    {X86_INS_VEXTRACTPS, W, 1, 4},
    {X86_INS_VEXTRACTF128, W, 1, 16},
    {X86_INS_VEXTRACTI128, W, 1, 16},
    {X86_INS_VEXTRACTF32X4, W, 1, 16},
    {X86_INS_VEXTRACTI32X4, W, 1, 16},
    {X86_INS_VEXTRACTF64X4, W, 1, 32},
    {X86_INS_VEXTRACTI64X4, W, 1, 32},
    {X86_INS_VMOVD, W, 1, 0},
    {X86_INS_VMOVQ, W, 1, 0},
    {X86_INS_VMOVSS, W, 1, 0},
    {X86_INS_VMOVSD, W, 1, 0},
    {X86_INS_VMOVHPS, W, 1, 8},
    {X86_INS_VMOVHPD, W, 1, 8},
    {X86_INS_VMOVLPS, W, 1, 8},
    {X86_INS_VMOVLPD, W, 1, 8},
    {X86_INS_VMOVAPS, W, 1, 0},
    {X86_INS_VMOVAPD, W, 1, 0},
    {X86_INS_VMOVUPS, W, 1, 0},
    {X86_INS_VMOVUPD, W, 1, 0},
    {X86_INS_VMOVDQA, W, 1, 0},
    {X86_INS_VMOVDQA32, W, 1, 0},
    {X86_INS_VMOVDQA64, W, 1, 0},
    {X86_INS_VMOVDQU, W, 1, 0},
    {X86_INS_VMOVDQU8, W, 1, 0},
    {X86_INS_VMOVDQU16, W, 1, 0},
    {X86_INS_VMOVDQU32, W, 1, 0},
    {X86_INS_VMOVDQU64, W, 1, 0},
    {X86_INS_VMOVNTDQ, W, 1, 0},
    {X86_INS_VMOVNTPS, W, 1, 0},
    {X86_INS_VMOVNTPD, W, 1, 0},
    {X86_INS_VMASKMOVPS, W, 1, 0}, /* masked: the unselected bytes keep their value */
    {X86_INS_VMASKMOVPD, W, 1, 0},
    {X86_INS_VPMASKMOVD, W, 1, 0},
    {X86_INS_VPMASKMOVQ, W, 1, 0},
    {X86_INS_VCVTPS2PH, W, 1, 0},
    /* read-modify-write of op0 */
    {X86_INS_CMPXCHG, RW, 0, 0},
    {X86_INS_CMPXCHG8B, RW, 1, 8},
    {X86_INS_CMPXCHG16B, RW, 1, 16},
    {X86_INS_XADD, RW, 0, 0},
    {X86_INS_XCHG, RW, 0, 0},
    {X86_INS_BTS, RW, 0, 0},
    {X86_INS_BTR, RW, 0, 0},
    {X86_INS_BTC, RW, 0, 0},
    {X86_INS_ROL, RW, 0, 0},
    {X86_INS_ROR, RW, 0, 0},
    {X86_INS_RCL, RW, 0, 0},
    {X86_INS_RCR, RW, 0, 0},
    {X86_INS_SHL, RW, 0, 0},
    {X86_INS_SHR, RW, 0, 0},
    {X86_INS_SAR, RW, 0, 0},
    {X86_INS_SAL, RW, 0, 0},
};

#undef R
#undef W
#undef RW
#undef NONE

static int by_id(const void *a, const void *b) {
  const struct oa_rule *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

const struct oa_rule *operand_access_rule(unsigned id) {
  static struct oa_rule sorted[sizeof rules / sizeof rules[0]];
  static int ready;
  size_t n = sizeof rules / sizeof rules[0];
  if (!ready) { /* one tracer thread: no race */
    for (size_t i = 0; i < n; i++) sorted[i] = rules[i];
    qsort(sorted, n, sizeof sorted[0], by_id);
    ready = 1;
  }
  struct oa_rule key = {(uint16_t)id, 0, 0, 0};
  return bsearch(&key, sorted, n, sizeof sorted[0], by_id);
}
#else
const struct oa_rule *operand_access_rule(unsigned id) {
  (void)id;
  return 0;
}
#endif
