/* dispatch.c — the dispatcher's full path (dispatch.S saved every
 * register, the vector state included): translate a block on a miss, link
 * a direct branch to it, and decide the checks: is this call of the end
 * entry our scope's end (rdi), who returned from a task-creating syscall
 * (the parent, or a child that must go native). Returns
 * where execution continues: a translated address, or an ORIGINAL one to
 * leave the cache (the program's registers are exactly as the original
 * code expects there: every translated instruction left them so).
 *
 * No malloc, no locks, no stdio here: the program may be inside malloc or
 * stdio (holding their locks) when one of its `ret`s lands here. */
#include "plugins/codecache/translate.h"

#include <string.h>
#include <sys/syscall.h>

/* Leave the cache at `orig`, the scope's recording stopped there. */
static uint64_t stop_at(struct cc_cache *c, struct cc_handle *h, int why, const char *text,
                        uint64_t orig) {
  if (!h->why) {
    h->why = why;
    h->why_text = text;
    h->why_ip = orig;
    memcpy(h->why_bytes, (const void *)(uintptr_t)orig, sizeof h->why_bytes);
  }
  c->active = 0;
  return orig;
}

uint64_t cc_dispatch_c(struct cc_tls *t, struct cc_regs *r) {
  struct cc_cache *c = t->cache;
  struct cc_handle *h = t->cur;
  const struct cc_stub *s = r->idx < c->nstubs ? &c->stubs[r->idx] : &c->stubs[0];
  uint64_t target = r->idx == CC_STUB_IBL ? t->tgt : s->target;
  if (!h) { /* cannot happen: no scope, no translated code running */
    c->active = 0;
    return target;
  }
  if (h->orphaned) { /* the scope ended on another thread: let go */
    t->cur = NULL;
    h->acked = 1;
    c->active = 0;
    return target;
  }
  h->dispatches++;
  switch (r->idx == CC_STUB_IBL ? CC_STUB_IBL : s->kind) {
  case CC_STUB_END:
    if (r->rdi == h->end_arg) { /* our end: the call runs natively */
      h->end = CC_END_CALL;
      c->active = 0;
      return s->target;
    }
    return s->cont; /* another scope's end (a refused nested one): a plain call */
  case CC_STUB_SYSCALL:
    /* after a syscall that may have created a task: a child (rax 0) that
     * shares our thread pointer (fork, vfork, clone without CLONE_SETTLS;
     * the syscall's number was kept in s_rax just before it)
     * continues natively and changes nothing here (a vfork child shares
     * this memory); the parent goes on translated */
    if (r->rax == 0 && (t->s_rax == SYS_clone || t->s_rax == SYS_fork || t->s_rax == SYS_vfork ||
                        t->s_rax == 435 /* clone3 */))
      return s->target;
    target = s->target;
    break;
  default: break;
  }
  /* IBL or LINK */
  if (target == c->end_entry && r->rdi == h->end_arg) {
    /* reached the end entry itself (through a register, a GOT slot the
     * translator could not see through, or the lazy-binding resolver) */
    h->end = CC_END_ENTRY;
    h->end_ret = *(const uint64_t *)(uintptr_t)t->s_rsp;
    c->active = 0;
    return target;
  }
  uint32_t hit = cc_lookup(c, target);
  uint64_t code;
  if (hit) {
    code = c->blocks[hit - 1].code;
  } else {
    const char *why = NULL;
    int kind = CC_WHY_UNSUPPORTED;
    int64_t bi = cc_translate(c, target, &why, &kind);
    if (bi < 0) return stop_at(c, h, kind, why, target);
    h->translated++;
    code = c->blocks[bi].code;
    s = r->idx < c->nstubs ? &c->stubs[r->idx] : &c->stubs[0]; /* the table may have moved */
  }
  if (r->idx != CC_STUB_IBL && s->kind == CC_STUB_LINK && target != c->end_entry) {
    int64_t d = (int64_t)(code - (s->patch + 4));
    int32_t rel = (int32_t)d;
    if (d >= INT32_MIN && d <= INT32_MAX) memcpy((void *)(uintptr_t)s->patch, &rel, 4);
  }
  return code;
}
