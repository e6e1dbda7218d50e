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
                      uint64_t *ip)
{
  if (!host || !t || !host->symbolize || !host->disasm || !host->read_mem)
    return 0;
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  if (host->symbolize(t, rip, &sym) != 0 || sym.kind == ASMSPY_SYM_UNKNOWN || !sym.name)
    return 0;
  if (sym.start >= rip || rip - sym.start > TOUCHER_MAX_SPAN)
    return 0;
  size_t span = (size_t)(rip - sym.start);
  uint8_t *code = malloc(span + X86_MAX_INSN);
  if (!code)
    return 0;
  ssize_t got = host->read_mem(t, sym.start, code, span + X86_MAX_INSN);
  int found = 0;
  if (got >= (ssize_t)span) {
    char text[128];
    size_t off = 0;
    while (off < span) {
      int n = host->disasm(sym.start + off, code + off, (size_t)got - off, text, sizeof text);
      if (n <= 0)
        break; /* undecodable: data in code, or a walk that started off-instruction */
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
