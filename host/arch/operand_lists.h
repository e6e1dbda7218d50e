/* host/arch: the list helpers both operand decoders fill struct
 * asmspy_operands with (host/operands.c for x86-64, operands_arm64.c for
 * AArch64): a register or memory access listed once, within the ABI's
 * fixed list sizes. Internal to the host. */
#ifndef ASMSPY_HOST_ARCH_OPERAND_LISTS_H
#define ASMSPY_HOST_ARCH_OPERAND_LISTS_H

#include <asmspy/plugin.h>

#include <stdint.h>
#include <string.h>

static inline void ol_add_reg(uint8_t *list, uint8_t *n, int g) {
  if (g < 0) return;
  for (unsigned i = 0; i < *n; i++)
    if (list[i] == (uint8_t)g) return;
  if (*n < 16) list[(*n)++] = (uint8_t)g;
}

static inline void ol_drop_reg(uint8_t *list, uint8_t *n, int g) {
  for (unsigned i = 0; i < *n; i++)
    if (list[i] == (uint8_t)g) {
      memmove(&list[i], &list[i + 1], (size_t)(*n - i - 1));
      (*n)--;
      return;
    }
}

static inline void ol_add_vreg(uint16_t *list, uint8_t *n, uint16_t v) {
  if (!v) return;
  for (unsigned i = 0; i < *n; i++)
    if (list[i] == v) return;
  if (*n < 8) list[(*n)++] = v;
}

static inline void ol_drop_vreg(uint16_t *list, uint8_t *n, uint16_t v) {
  for (unsigned i = 0; i < *n; i++)
    if (list[i] == v) {
      memmove(&list[i], &list[i + 1], (size_t)(*n - i - 1) * sizeof list[0]);
      (*n)--;
      return;
    }
}

static inline void ol_add_mem(struct asmspy_operands *o, uint64_t addr, uint32_t size,
                              uint32_t access) {
  for (unsigned i = 0; i < o->nmem; i++)
    if (o->mem[i].addr == addr && o->mem[i].size == size) {
      o->mem[i].access |= access;
      return;
    }
  if (o->nmem < 4) {
    o->mem[o->nmem].addr = addr;
    o->mem[o->nmem].size = size;
    o->mem[o->nmem].access = access;
    o->nmem++;
  }
}

/* The disassembly "mnemonic op_str" into text[cap] (cut to fit). */
static inline void ol_text(char *text, size_t cap, const char mnemonic[32], const char *op_str) {
  size_t m = strnlen(mnemonic, cap - 1 < 32 ? cap - 1 : 32);
  memcpy(text, mnemonic, m);
  if (op_str[0] && m + 1 < cap - 1) {
    text[m++] = ' ';
    size_t r = strnlen(op_str, cap - 1 - m);
    memcpy(text + m, op_str, r);
    m += r;
  }
  text[m] = 0;
}

/* operands_arm64.c: one AArch64 instruction into o (header set, the rest
 * zero): its length (4), 0 when Capstone cannot decode it. Built on every
 * host (the unit test decodes AArch64 bytes on x86-64). */
int operands_arm64(uint64_t ip, const uint8_t *bytes, size_t len, const struct asmspy_regs *regs,
                   struct asmspy_operands *o);

#endif
