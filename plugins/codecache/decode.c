/* decode.c — a scope's block records back into the instruction stream
 * the singlestep tier would have recorded, as ASMSPY_EV_INSN events
 * (host/scope.c renders them the same way for either tier).
 *
 * Each record is a block id; the block table holds its original start,
 * instruction lengths and the bytes it was translated from (what ran,
 * even if the code changed or was unmapped since). Two differences from stepping are settled here:
 *   - the end: the singlestep tier stops at the trap ON the caller's call
 *     of the end entry (that call is not recorded) when it can see where
 *     the call goes; codecache leaves at that call (CC_END_CALL, nothing
 *     to trim) or, when only the end entry itself was recognised
 *     (CC_END_ENTRY: a call through a register or a resolved PLT stub),
 *     the PLT stub blocks and the call that led there are trimmed, exactly
 *     what stepping would not have recorded;
 *   - max_insns counts instructions, the buffer counts blocks: the stream
 *     is cut at max_insns instructions and reported truncated. */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "plugins/codecache/inproc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(asmspy_sink_fn sink, void *ctx, struct asmspy_event *ev, const char *text) {
  if (!sink) return;
  ev->type = ASMSPY_EV_NOTE;
  ev->ip = 0;
  memset(&ev->u, 0, sizeof ev->u);
  ev->u.note.text = text;
  sink(ctx, ev);
  ev->seq++;
}

/* A near call (E8, FF /2) after legacy and REX prefixes. */
static int is_call(const uint8_t *p, int n) {
  int k = 0;
  while (k < n && (p[k] == 0x66 || p[k] == 0x67 || p[k] == 0xf2 || p[k] == 0xf3 || p[k] == 0x2e ||
                   p[k] == 0x3e || p[k] == 0x64 || p[k] == 0x65))
    k++;
  if (k < n && (p[k] & 0xf0) == 0x40) k++;
  return k + 1 < n && (p[k] == 0xe8 || (p[k] == 0xff && ((p[k + 1] >> 3) & 7) == 2));
}

void cc_decode_emit(struct cc_handle *h, const struct cc_cache *c, uint64_t nrec, int full,
                    asmspy_sink_fn sink, void *sink_ctx) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.pid = h->pid;
  ev.tid = h->tid;
  ev.nthreads = 1;
  char text[320];
  if (nrec > h->cap) nrec = h->cap;
  /* the last instruction kept of the last block kept (trim at the end) */
  uint64_t nblk = nrec, last_keep = 0;
  if (c && nblk) last_keep = c->blocks[h->recs[nblk - 1]].ninsn;
  if (c && h->end == CC_END_ENTRY) {
    while (nblk && (c->blocks[h->recs[nblk - 1]].flags & CC_PLT_STUB)) nblk--;
    last_keep = nblk ? c->blocks[h->recs[nblk - 1]].ninsn : 0;
    if (nblk) { /* the call that led to the end entry: stepping stops before it */
      const struct cc_block *b = &c->blocks[h->recs[nblk - 1]];
      uint64_t ip = b->orig;
      for (unsigned i = 0; i + 1 < b->ninsn; i++) ip += c->lens[b->lens_off + i];
      uint8_t len = c->lens[b->lens_off + b->ninsn - 1];
      if (is_call(c->bytes + b->bytes_off + (ip - b->orig), len) && ip + len == h->end_ret)
        last_keep--;
    }
  }
  uint64_t emitted = 0, total = 0;
  int cut = 0;
  for (uint64_t r = 0; c && r < nblk && sink; r++) {
    const struct cc_block *b = &c->blocks[h->recs[r]];
    unsigned keep = r + 1 == nblk ? (unsigned)last_keep : b->ninsn;
    const uint8_t *code = c->bytes + b->bytes_off; /* the bytes translated: what ran */
    uint64_t ip = b->orig;
    for (unsigned i = 0; i < keep; i++) {
      uint8_t len = c->lens[b->lens_off + i];
      if (total == h->max_insns) {
        cut = 1;
        break;
      }
      total++;
      uint64_t off = ip - b->orig;
      if (!h->region_len || (ip >= h->region_start && ip - h->region_start < h->region_len)) {
        ev.type = ASMSPY_EV_INSN;
        ev.ip = ip;
        memset(ev.u.insn.bytes, 0, sizeof ev.u.insn.bytes); /* the rest of u stays zero */
        memcpy(ev.u.insn.bytes, code + off, len);
        ev.u.insn.len = len;
        if (sink(sink_ctx, &ev)) {
          sink = NULL;
          break;
        }
        ev.seq++;
        emitted++;
      }
      ip += len;
    }
    if (cut) break;
  }
  if (getenv("ASMSPY_SCOPE_DEBUG")) {
    snprintf(text, sizeof text,
             "debug: codecache: %llu block records, %llu instructions, %llu dispatcher entries, "
             "%llu blocks translated (%llu cached on this thread); traced in %.1f us",
             (unsigned long long)nrec, (unsigned long long)total, (unsigned long long)h->dispatches,
             (unsigned long long)h->translated, (unsigned long long)(c ? c->nblocks : 0),
             (double)(h->t_end_ns - h->t_begin_ns) / 1e3);
    note(sink, sink_ctx, &ev, text);
  }
  if (h->ended_inside) {
    note(sink, sink_ctx, &ev,
         "truncated: the scope ended while its thread was inside translated code (end called "
         "from a signal handler that interrupted it); recording stopped there");
  } else if (cut || full) {
    snprintf(text, sizeof text, "truncated: max_insns (%llu) reached; recording stopped there",
             (unsigned long long)h->max_insns);
    note(sink, sink_ctx, &ev, text);
  } else if (h->why) {
    snprintf(text, sizeof text,
             "truncated: codecache stopped at 0x%llx (bytes %02x %02x %02x %02x %02x %02x): %s; "
             "the rest of the scope ran natively, untraced",
             (unsigned long long)h->why_ip, h->why_bytes[0], h->why_bytes[1], h->why_bytes[2],
             h->why_bytes[3], h->why_bytes[4], h->why_bytes[5], h->why_text ? h->why_text : "?");
    note(sink, sink_ctx, &ev, text);
  }
}
