/* x86: which instruction touched the watched bytes.
 *
 * An x86 data breakpoint is a trap: the #DB is raised after the accessing
 * instruction retired, so the stop's rip is the NEXT instruction. x86
 * instructions cannot be decoded backwards unambiguously (1-15 bytes, any
 * byte may start one), so the toucher is found by decoding forward from the
 * start of the function that contains rip until an instruction ends exactly
 * at rip. When that cannot work — no symbol, rip is the first instruction of
 * its function (the access was a call's push of the return address, or the
 * last instruction before a jump landed there), or the bytes in between do
 * not decode onto rip (data in code) — the caller reports rip and says so.
 */
#include "plugins/hwwatch/hwwatch.h"

#include <stdlib.h>
#include <string.h>

/* Functions longer than this are not walked (a hit is reported at rip). */
#define TOUCHER_MAX_SPAN (64u * 1024u)
#define X86_MAX_INSN 15u

int hw_toucher_before(const struct asmspy_host_api *host, struct asmspy_target *t, uint64_t rip,
                      uint64_t *ip) {
  if (!host || !t || !host->symbolize || !host->disasm || !host->read_mem) return 0;
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  if (host->symbolize(t, rip, &sym) != 0 || sym.kind == ASMSPY_SYM_UNKNOWN || !sym.name) return 0;
  if (sym.start >= rip || rip - sym.start > TOUCHER_MAX_SPAN) return 0;
  size_t span = (size_t)(rip - sym.start);
  uint8_t *code = malloc(span + X86_MAX_INSN);
  if (!code) return 0;
  ssize_t got = host->read_mem(t, sym.start, code, span + X86_MAX_INSN);
  int found = 0;
  if (got >= (ssize_t)span) {
    char text[128];
    size_t off = 0;
    while (off < span) {
      int n = host->disasm(sym.start + off, code + off, (size_t)got - off, text, sizeof text);
      if (n <= 0) break; /* undecodable: data in code, or a walk that started off-instruction */
      if (off + (size_t)n == span) {
        *ip = sym.start + off;
        found = 1;
        break;
      }
      off += (size_t)n;
    }
  }
  free(code);
  return found;
}

/* ------------------------------------------------ the value it stored -- */

/* user_regs_struct index (asmspy_regs.gpr) of an x86-64 general register
 * named in Intel syntax at any width, or -1. */
static int gpr_index(const char *name, size_t n) {
  static const struct {
    const char *names[4];
    int idx;
  } regs[] = {
      {{"rax", "eax", "ax", "al"}, 10},     {{"rcx", "ecx", "cx", "cl"}, 11},
      {{"rdx", "edx", "dx", "dl"}, 12},     {{"rbx", "ebx", "bx", "bl"}, 5},
      {{"rsp", "esp", "sp", "spl"}, 19},    {{"rbp", "ebp", "bp", "bpl"}, 4},
      {{"rsi", "esi", "si", "sil"}, 13},    {{"rdi", "edi", "di", "dil"}, 14},
      {{"r8", "r8d", "r8w", "r8b"}, 9},     {{"r9", "r9d", "r9w", "r9b"}, 8},
      {{"r10", "r10d", "r10w", "r10b"}, 7}, {{"r11", "r11d", "r11w", "r11b"}, 6},
      {{"r12", "r12d", "r12w", "r12b"}, 3}, {{"r13", "r13d", "r13w", "r13b"}, 2},
      {{"r14", "r14d", "r14w", "r14b"}, 1}, {{"r15", "r15d", "r15w", "r15b"}, 0},
  };
  for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
    for (int w = 0; w < 4; w++)
      if (strlen(regs[i].names[w]) == n && strncmp(regs[i].names[w], name, n) == 0)
        return regs[i].idx;
  return -1;
}

/* x86 traps after the access, and another thread may write the watched
 * bytes before the tracer reads them. When the toucher at ip is a plain
 * store of a register or an immediate (`mov [m], reg|imm`) whose memory
 * operand is the watched address, the value THIS thread stored is known
 * exactly: the source register is unchanged by the store (regs: after
 * it). A read-modify-write (add [m], 1) has no such witness. Returns 1 and
 * *value (masked to len bytes) when it could tell. */
int hw_stored_value(const struct asmspy_host_api *host, struct asmspy_target *t, uint64_t ip,
                    const struct asmspy_regs *regs, uint64_t addr, unsigned len, uint64_t *value) {
  if (!host || !t || !regs || !ASMSPY_HAS(host, operands) || !host->operands) return 0;
  uint8_t bytes[X86_MAX_INSN];
  ssize_t n = host->read_mem(t, ip, bytes, sizeof bytes);
  if (n <= 0) return 0;
  struct asmspy_operands ops;
  memset(&ops, 0, sizeof ops);
  ASMSPY_INIT_HEADER(&ops);
  if (host->operands(ip, bytes, (size_t)n, regs, &ops) <= 0) return 0;
  if (strncmp(ops.text, "mov ", 4) != 0 || ops.nmem != 1 || ops.mem[0].access != 2 /* write */ ||
      ops.mem[0].addr != addr || ops.mem[0].size != len)
    return 0;
  const char *src = strrchr(ops.text, ',');
  if (!src) return 0;
  src++;
  while (*src == ' ') src++;
  uint64_t v;
  int idx = gpr_index(src, strlen(src));
  if (idx >= 0 && (uint32_t)idx < regs->ngpr) {
    v = regs->gpr[idx];
    if (strcmp(src, "ah") == 0 || strcmp(src, "bh") == 0 || strcmp(src, "ch") == 0 ||
        strcmp(src, "dh") == 0)
      return 0;
  } else {
    char *end = NULL;
    long long imm = strtoll(src, &end, 0);
    if (!end || end == src || *end) return 0;
    v = (uint64_t)imm;
  }
  *value = len >= 8 ? v : v & ((1ull << (8 * len)) - 1);
  return 1;
}
