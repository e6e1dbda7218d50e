/* Instruction class service (host->insn_class): what one instruction is —
 * call, ret, jump (conditional? relative or indirect?), syscall, trap,
 * iret, privileged, rep string op — as ASMSPY_INSN_* bits plus its length.
 *
 * Why not the mnemonic text: views used to match "call", "ret", "j*" in the
 * disassembly, which misses prefixed forms (`notrack jmp`, `bnd call`),
 * confuses `ret` with `retf`, and means nothing on AArch64. Capstone's
 * instruction groups say it once, for both architectures.
 *
 * Capstone 4's groups are uneven, so a few answers are completed by
 * instruction id: x86 loop* carry only BRANCH_RELATIVE (they are jumps);
 * syscall/sysenter sit in the INT group (they are SYSCALL, not traps);
 * AArch64 bl/blr are in the JUMP group (they are calls), blr/br are
 * register-indirect although blr is tagged BRANCH_RELATIVE, and the
 * conditional forms are told by the condition code or cbz/cbnz/tbz/tbnz.
 *
 * A handle of its own with CS_OPT_DETAIL (disasm.c's stays detail-free for
 * the hot --stream text), and a direct-mapped cache keyed by address AND
 * bytes like disasm.c's: the step loop asks about the same few addresses
 * millions of times, and rewritten (JIT) code is decoded afresh.
 * Not thread-safe by design: the host runs one tracer thread. */
#include "host/host.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#define CLASS_CACHE_SLOTS 16384u /* power of two */

struct class_slot {
  uint64_t addr;
  uint8_t bytes[16];
  uint8_t nbytes; /* the instruction's own length: the bytes compared */
  uint8_t valid;
  uint32_t cls;
};

struct class_decoder {
  csh handle;
  int ready; /* -1 unknown, 0 failed, 1 ok */
  cs_arch arch;
  struct class_slot *cache;
};

static struct class_decoder dec_x86 = {.ready = -1, .arch = CS_ARCH_X86};
static struct class_decoder dec_arm64 = {.ready = -1, .arch = CS_ARCH_ARM64};

static int decoder_init(struct class_decoder *d) {
  if (d->ready >= 0) return d->ready;
  cs_mode mode = d->arch == CS_ARCH_X86 ? CS_MODE_64 : CS_MODE_ARM;
  d->ready = cs_open(d->arch, mode, &d->handle) == CS_ERR_OK;
  if (d->ready) {
    cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
    d->cache = calloc(CLASS_CACHE_SLOTS, sizeof *d->cache);
  }
  return d->ready;
}

static int in_group(const cs_detail *det, unsigned group) {
  for (unsigned i = 0; i < det->groups_count; i++)
    if (det->groups[i] == group) return 1;
  return 0;
}

/* x86 string instructions (one-byte opcodes): ins, outs, movs, cmps, stos,
 * lods, scas. A rep prefix on one repeats it in place, one step per
 * iteration; on anything else (pause, bnd) it means something else. */
static int x86_string_opcode(const cs_x86 *x) {
  uint8_t op = x->opcode[0];
  return x->opcode[1] == 0 &&
         ((op >= 0x6c && op <= 0x6f) || (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf));
}

static uint32_t class_x86(const cs_insn *in) {
  const cs_detail *det = in->detail;
  uint32_t c = ASMSPY_INSN_DECODED;
  int rel = in_group(det, CS_GRP_BRANCH_RELATIVE);
  if (in_group(det, CS_GRP_CALL))
    c |= ASMSPY_INSN_CALL;
  else if (in_group(det, CS_GRP_JUMP) || rel) /* loop* have only BRANCH_RELATIVE */
    c |= ASMSPY_INSN_JUMP;
  if (in_group(det, CS_GRP_RET)) c |= ASMSPY_INSN_RET;
  if (in_group(det, CS_GRP_IRET)) c |= ASMSPY_INSN_IRET;
  if (in_group(det, CS_GRP_PRIVILEGE)) c |= ASMSPY_INSN_PRIVILEGE;
  if (in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER)
    c |= ASMSPY_INSN_SYSCALL;
  else if (in_group(det, CS_GRP_INT))
    c |= ASMSPY_INSN_INT;
  if (c & (ASMSPY_INSN_CALL | ASMSPY_INSN_JUMP)) {
    c |= rel ? ASMSPY_INSN_RELATIVE : ASMSPY_INSN_INDIRECT;
    if ((c & ASMSPY_INSN_JUMP) && in->id != X86_INS_JMP && in->id != X86_INS_LJMP)
      c |= ASMSPY_INSN_COND; /* jcc, loop*, jrcxz/jecxz */
  }
  uint8_t pfx = det->x86.prefix[0];
  if ((pfx == X86_PREFIX_REP || pfx == X86_PREFIX_REPNE) && x86_string_opcode(&det->x86))
    c |= ASMSPY_INSN_REP; /* X86_PREFIX_REPE has REP's value (0xf3) */
  return c;
}

static uint32_t class_arm64(const cs_insn *in) {
  const cs_detail *det = in->detail;
  uint32_t c = ASMSPY_INSN_DECODED;
  switch (in->id) {
  case ARM64_INS_BL: c |= ASMSPY_INSN_CALL | ASMSPY_INSN_RELATIVE; break;
  case ARM64_INS_BLR: c |= ASMSPY_INSN_CALL | ASMSPY_INSN_INDIRECT; break;
  case ARM64_INS_BR: c |= ASMSPY_INSN_JUMP | ASMSPY_INSN_INDIRECT; break;
  case ARM64_INS_CBZ:
  case ARM64_INS_CBNZ:
  case ARM64_INS_TBZ:
  case ARM64_INS_TBNZ: c |= ASMSPY_INSN_JUMP | ASMSPY_INSN_COND | ASMSPY_INSN_RELATIVE; break;
  case ARM64_INS_SVC: c |= ASMSPY_INSN_SYSCALL; break;
  case ARM64_INS_BRK: c |= ASMSPY_INSN_INT; break;
  case ARM64_INS_ERET: c |= ASMSPY_INSN_IRET; break;
  default:
    if (in_group(det, CS_GRP_RET)) {
      c |= ASMSPY_INSN_RET;
    } else if (in_group(det, CS_GRP_JUMP)) { /* b, b.cond */
      c |= ASMSPY_INSN_JUMP | ASMSPY_INSN_RELATIVE;
      if (det->arm64.cc != ARM64_CC_INVALID && det->arm64.cc != ARM64_CC_AL &&
          det->arm64.cc != ARM64_CC_NV)
        c |= ASMSPY_INSN_COND;
    } else if (in_group(det, CS_GRP_INT)) {
      c |= ASMSPY_INSN_INT; /* hvc, smc */
    }
    if (in_group(det, CS_GRP_PRIVILEGE)) c |= ASMSPY_INSN_PRIVILEGE;
    break;
  }
  return c;
}

static uint32_t classify(struct class_decoder *d, uint64_t ip, const uint8_t *bytes, size_t len) {
  if (!bytes || !len || !decoder_init(d)) return 0;
  if (len > 16) len = 16;
  struct class_slot *slot = NULL;
  if (d->cache) {
    slot = &d->cache[(ip ^ (ip >> 14)) & (CLASS_CACHE_SLOTS - 1)];
    if (slot->valid && slot->addr == ip && slot->nbytes <= len &&
        memcmp(slot->bytes, bytes, slot->nbytes) == 0)
      return slot->cls;
  }
  cs_insn *in = NULL;
  size_t n = cs_disasm(d->handle, bytes, len, ip, 1, &in);
  if (n == 0) return 0; /* undecodable: not cached (it costs one failed decode) */
  uint32_t c = d->arch == CS_ARCH_X86 ? class_x86(&in[0]) : class_arm64(&in[0]);
  c |= (uint32_t)in[0].size << ASMSPY_INSN_LEN_SHIFT;
  if (slot) {
    slot->addr = ip;
    slot->nbytes = (uint8_t)in[0].size;
    memcpy(slot->bytes, bytes, in[0].size);
    slot->cls = c;
    slot->valid = 1;
  }
  cs_free(in, n);
  return c;
}

uint32_t insn_class_for(int arm64, uint64_t ip, const uint8_t *bytes, size_t len) {
  return classify(arm64 ? &dec_arm64 : &dec_x86, ip, bytes, len);
}

uint32_t insn_class_one(uint64_t ip, const uint8_t *bytes, size_t len) {
#if defined(__x86_64__)
  return insn_class_for(0, ip, bytes, len);
#elif defined(__aarch64__)
  return insn_class_for(1, ip, bytes, len);
#else
  (void)ip;
  (void)bytes;
  (void)len;
  return 0; /* no native decoder: every instruction reads as undecodable */
#endif
}
