/* Disassembly service: Capstone, Intel syntax (the seed's examples), one
 * instruction at a time, cached by address.
 *
 * Why a cache: --stream disassembles every executed instruction, and a hot
 * loop executes the same few addresses millions of times. The cache is keyed
 * by address AND the instruction bytes, so self-modifying / JIT code that
 * rewrites an address is disassembled afresh instead of served stale.
 * Not thread-safe by design: the host runs one tracer thread. */
#include "host/host.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#define DISASM_CACHE_SLOTS 16384u /* power of two */

struct disasm_slot {
  uint64_t addr;
  uint8_t bytes[16];
  uint8_t nbytes; /* bytes compared (the instruction's own length) */
  uint8_t valid;
  char text[192];
};

static csh cs_handle;
static int cs_ready = -1; /* -1 unknown, 0 failed, 1 ok */
static struct disasm_slot *cache;

static int disasm_init(void) {
  if (cs_ready >= 0) return cs_ready;
#if defined(__x86_64__)
  cs_ready = cs_open(CS_ARCH_X86, CS_MODE_64, &cs_handle) == CS_ERR_OK;
  if (cs_ready) cs_option(cs_handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_INTEL);
#elif defined(__aarch64__)
  cs_ready = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs_handle) == CS_ERR_OK;
#else
  cs_ready = 0;
#endif
  if (cs_ready) cache = calloc(DISASM_CACHE_SLOTS, sizeof *cache);
  return cs_ready;
}

/* Returns the instruction length (0 if the bytes do not decode) and writes
 * "mnemonic operands" into text. */
int disasm_one(uint64_t addr, const uint8_t *bytes, size_t len, char *text, size_t cap) {
  if (cap) text[0] = 0;
  if (!len || !disasm_init()) return 0;
  if (len > 16) len = 16;
  struct disasm_slot *slot = NULL;
  if (cache) {
    slot = &cache[(addr ^ (addr >> 14)) & (DISASM_CACHE_SLOTS - 1)];
    if (slot->valid && slot->addr == addr && slot->nbytes <= len &&
        memcmp(slot->bytes, bytes, slot->nbytes) == 0) {
      snprintf(text, cap, "%s", slot->text);
      return slot->nbytes;
    }
  }
  cs_insn *insn = NULL;
  size_t n = cs_disasm(cs_handle, bytes, len, addr, 1, &insn);
  if (n == 0) {
    snprintf(text, cap, "(bad)");
    return 0;
  }
  int ilen = insn[0].size;
  char full[sizeof((struct disasm_slot *)0)
                ->text]; /* the cache keeps the whole text, whatever cap the caller has */
  if (insn[0].op_str[0])
    snprintf(full, sizeof full, "%s %s", insn[0].mnemonic, insn[0].op_str);
  else
    snprintf(full, sizeof full, "%s", insn[0].mnemonic);
  snprintf(text, cap, "%s", full);
  if (slot) {
    slot->addr = addr;
    slot->nbytes = (uint8_t)ilen;
    memcpy(slot->bytes, bytes, (size_t)ilen);
    memcpy(slot->text, full, sizeof full);
    slot->valid = 1;
  }
  cs_free(insn, n);
  return ilen;
}
