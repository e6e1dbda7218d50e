/* fast.c — the dispatcher's hot path: an indirect branch (ret, jmp/call
 * through a register or memory) or a not-yet-linked direct branch whose
 * target is translated already. Compiled -mgeneral-regs-only and without
 * sanitizers (meson.build), so dispatch.S can run it with only the
 * general registers saved: no xsave/xrstor of the vector state for the
 * common case. Anything else returns 0 and takes the full path
 * (dispatch.c). */
#include "plugins/codecache/cache.h"

uint64_t cc_fast(struct cc_tls *t, struct cc_regs *r) {
  struct cc_cache *c = t->cache;
  struct cc_handle *h = t->cur;
  if (!h || h->orphaned || !c) return 0;
  uint64_t target;
  struct cc_stub *s = NULL;
  if (r->idx == CC_STUB_IBL) {
    target = t->tgt;
  } else {
    if (r->idx >= c->nstubs) return 0;
    s = &c->stubs[r->idx];
    if (s->kind != CC_STUB_LINK) return 0;
    target = s->target;
  }
  if (target == c->end_entry) return 0; /* the end check is the full path's */
  uint32_t hit = cc_lookup(c, target);
  if (!hit) return 0;
  uint64_t code = c->blocks[hit - 1].code;
  if (s) { /* link the direct branch: next time it never leaves the cache */
    int64_t d = (int64_t)(code - (s->patch + 4));
    int32_t rel = (int32_t)d;
    if (d >= INT32_MIN && d <= INT32_MAX) __builtin_memcpy((void *)(uintptr_t)s->patch, &rel, 4);
  }
  h->dispatches++;
  return code;
}
