/* stack_edges: checking and folding sampled call-stack pairs (see
 * stack_edges.h). */
#include "plugins/views/sample/stack_edges.h"

#include <stdio.h>
#include <string.h>

#define SE_MAX_CALL_LEN 15 /* an x86 instruction's longest encoding */

/* The call instruction that ends exactly at ret: 1 with *cls set, or 0.
 * Tries each length a call can have (the bytes before ret are read once). */
static int call_before(const struct asmspy_host_api *host, struct asmspy_target *t, uint64_t ret,
                       uint8_t bytes[SE_MAX_CALL_LEN], uint32_t *cls, size_t *len) {
  if (ret < SE_MAX_CALL_LEN) return 0;
  if (host->read_mem(t, ret - SE_MAX_CALL_LEN, bytes, SE_MAX_CALL_LEN) != SE_MAX_CALL_LEN) return 0;
  /* shortest first: `call *%rax` (2) must not be read as the tail of a
   * longer instruction that happens to decode */
  for (size_t l = 2; l <= SE_MAX_CALL_LEN; l++) {
    uint32_t c = host->insn_class(ret - l, bytes + SE_MAX_CALL_LEN - l, l);
    if ((c & ASMSPY_INSN_CALL) && ASMSPY_INSN_LEN(c) == l) {
      *cls = c;
      *len = l;
      return 1;
    }
  }
  return 0;
}

/* A direct call's target reaches the callee: it is its start, or its PLT
 * stub in the caller's module ("name@plt": a call into another library). */
static int direct_reaches(const struct asmspy_host_api *host, struct asmspy_target *t,
                          uint64_t target, const struct asmspy_symbol *callee) {
  if (target == callee->start) return 1;
  char want[256]; /* the callee's name, copied before the next lookup */
  snprintf(want, sizeof want, "%s@plt", callee->name);
  struct asmspy_symbol stub;
  hr_symbolize(host, t, target, &stub);
  return stub.name && stub.offset == 0 && !strcmp(stub.name, want);
}

/* The frame-pointer walk names the callee's caller only when the callee's
 * own frame is live at the sampled site: it starts with [endbr64] push %rbp;
 * mov %rsp,%rbp, the site is past that prologue, and not its final ret
 * (after leave / pop %rbp the frame is gone). Otherwise the first return
 * address on the chain is the caller's caller's: a frameless leaf (gcc
 * omits leaf frame pointers) sampled there would credit the wrong caller. */
static int frame_live_at(const struct asmspy_host_api *host, struct asmspy_target *t,
                         const struct asmspy_symbol *callee, uint64_t site) {
  static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  static const uint8_t push_mov[4] = {0x55, 0x48, 0x89, 0xe5};
  uint8_t head[8], at = 0;
  if (host->read_mem(t, callee->start, head, sizeof head) != (ssize_t)sizeof head) return 0;
  size_t skip = memcmp(head, endbr64, 4) == 0 ? 4 : 0;
  if (memcmp(head + skip, push_mov, 4) != 0) return 0;
  if (site < callee->start + skip + 4) return 0;
  if (host->read_mem(t, site, &at, 1) != 1) return 0;
  return at != 0xc3 && at != 0xc2; /* ret, ret imm16 */
}

void se_fold(const struct asmspy_host_api *host, struct asmspy_target *t,
             const struct hr_table *raw, struct se_result *out) {
  hr_free(&out->edges);
  out->kept = out->refused = 0;
  if (!t || !ASMSPY_HAS(host, insn_class) || !host->insn_class) return;
  for (size_t i = 0; i < raw->cap; i++) {
    const struct hr_row *r = &raw->rows[i];
    if (!r->used) continue;
    struct asmspy_symbol callee;
    hr_symbolize(host, t, r->b, &callee);
    uint8_t bytes[SE_MAX_CALL_LEN];
    uint32_t cls = 0;
    size_t len = 0;
    int ok = callee.name && frame_live_at(host, t, &callee, r->b) &&
             call_before(host, t, r->a, bytes, &cls, &len);
    uint32_t flags = ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_CALL;
    if (ok && (cls & ASMSPY_INSN_RELATIVE) && len == 5 && bytes[SE_MAX_CALL_LEN - 5] == 0xe8) {
      int32_t rel;
      memcpy(&rel, bytes + SE_MAX_CALL_LEN - 4, 4);
      ok = direct_reaches(host, t, r->a + (uint64_t)(int64_t)rel, &callee);
    } else if (ok && (cls & ASMSPY_INSN_INDIRECT)) {
      flags |= SE_INDIRECT;
    } else {
      ok = 0; /* a relative call of another shape: not one this check knows */
    }
    if (!ok) {
      out->refused += r->count;
      continue;
    }
    hr_add(&out->edges, r->a, callee.start, r->count, flags);
    out->kept += r->count;
  }
}
