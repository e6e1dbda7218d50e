/* branchscan.c: direct branch targets of a stretch of code (branchscan.h). */
#include "plugins/entrypatch/branchscan.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INSN 15 /* the longest x86 instruction */

int ep_branch_map_init(struct ep_branch_map *m, uint64_t lo, uint64_t hi) {
  m->lo = lo, m->hi = hi;
  m->bits = calloc((size_t)((hi - lo + 7) / 8), 1);
  return m->bits ? 0 : -1;
}

void ep_branch_map_free(struct ep_branch_map *m) {
  free(m->bits);
  memset(m, 0, sizeof *m);
}

static void mark(struct ep_branch_map *maps, size_t nmaps, uint64_t t) {
  for (size_t k = 0; k < nmaps; k++) {
    struct ep_branch_map *m = &maps[k];
    if (t < m->lo || t >= m->hi) continue;
    uint64_t o = t - m->lo;
    m->bits[o / 8] |= (uint8_t)(1u << (o % 8));
    return;
  }
}

static int is_legacy_prefix(uint8_t b) {
  switch (b) {
  case 0x26:
  case 0x2e:
  case 0x36:
  case 0x3e:
  case 0x64:
  case 0x65: /* segments, notrack */
  case 0x66:
  case 0x67:
  case 0xf0:
  case 0xf2:
  case 0xf3: /* sizes, lock, bnd/rep */ return 1;
  default: return 0;
  }
}

/* From the bytes, not from Capstone's detail: detail costs about twice the
 * decoding time, and the opcode alone says which instructions are direct
 * branches (their displacement is always the instruction's last bytes). */
uint64_t ep_direct_branch_target(const uint8_t *b, size_t size, uint64_t addr) {
  size_t i = 0;
  while (i < size && is_legacy_prefix(b[i])) i++;
  if (i < size && (b[i] & 0xf0) == 0x40) i++; /* REX */
  if (i >= size) return 0;
  uint8_t op = b[i];
  size_t disp; /* bytes of displacement after the opcode */
  if ((op >= 0x70 && op <= 0x7f) || op == 0xeb || (op >= 0xe0 && op <= 0xe3))
    disp = 1; /* jcc rel8, jmp rel8, loopne/loope/loop/jrcxz */
  else if (op == 0xe8 || op == 0xe9)
    disp = size - i - 1; /* call/jmp rel32 (rel16 under a 66 prefix, as decoded) */
  else if (op == 0x0f && i + 1 < size && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f)
    disp = size - i - 2; /* jcc rel32 */
  else
    return 0;
  int64_t rel;
  if (disp == 1) {
    rel = (int8_t)b[size - 1];
  } else if (disp == 2) {
    int16_t r16;
    memcpy(&r16, b + size - 2, 2);
    rel = r16;
  } else if (disp == 4) {
    int32_t r32;
    memcpy(&r32, b + size - 4, 4);
    rel = r32;
  } else {
    return 0;
  }
  return addr + size + (uint64_t)rel;
}

size_t ep_branch_scan_code(csh cs, const uint8_t *code, size_t n, uint64_t addr, int last,
                           struct ep_branch_map *maps, size_t nmaps) {
  cs_insn *in = cs_malloc(cs);
  if (!in) return n;
  const uint8_t *p = code;
  size_t left = n;
  uint64_t ip = addr;
  while (left > 0 && (last || left >= MAX_INSN)) {
    if (!cs_disasm_iter(cs, &p, &left, &ip, in)) { /* data or padding: one byte on */
      p++, left--, ip++;
      continue;
    }
    uint64_t t = ep_direct_branch_target(in->bytes, in->size, in->address);
    if (t) mark(maps, nmaps, t);
  }
  cs_free(in, 1);
  return n - left;
}

size_t ep_branch_scan_rel32_bytes(const uint8_t *code, size_t n, uint64_t addr, int last,
                                  struct ep_branch_map *maps, size_t nmaps) {
  const size_t longest = 6; /* 0f 8x rel32 */
  size_t limit = last ? n : (n > longest ? n - longest : 0);
  for (size_t i = 0; i < limit; i++) {
    int32_t rel;
    if ((code[i] == 0xe8 || code[i] == 0xe9) && i + 5 <= n) {
      memcpy(&rel, code + i + 1, 4);
      mark(maps, nmaps, addr + i + 5 + (uint64_t)(int64_t)rel);
    } else if (code[i] == 0x0f && i + 6 <= n && (code[i + 1] & 0xf0) == 0x80) {
      memcpy(&rel, code + i + 2, 4);
      mark(maps, nmaps, addr + i + 6 + (uint64_t)(int64_t)rel);
    }
  }
  return limit;
}

uint64_t ep_branch_map_hit(const struct ep_branch_map *m, uint64_t lo, uint64_t hi) {
  for (uint64_t a = lo + 1; a < hi; a++) {
    if (a < m->lo || a >= m->hi) continue;
    uint64_t o = a - m->lo;
    if (m->bits[o / 8] & (1u << (o % 8))) return a;
  }
  return 0;
}
