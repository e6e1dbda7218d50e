/* amd_lbr: decoding one branch-stack sample record (layout: lbr_record.h).
 * Every read is bounds-checked: nr is a 64-bit count straight from the
 * ring, so it is checked against the bytes left before anything is read. */
#include "plugins/amd_lbr/lbr_record.h"

#include <string.h>

#include "plugins/common/perf_sampling.h"

int lbr_decode_sample(const uint8_t *rec, size_t len, struct lbr_sample *out) {
  memset(out, 0, sizeof *out);
  struct ps_cursor c = {rec, len};
  struct perf_event_header h;
  if (ps_take(&c, &h, sizeof h) < 0 || h.type != PERF_RECORD_SAMPLE || h.size < sizeof h)
    return LBR_BAD_RECORD;
  out->misc = h.misc;
  if (h.size < len) c.left = h.size - sizeof h;
  if (ps_take(&c, &out->ip, 8) < 0 || ps_take(&c, &out->pid, 4) < 0 ||
      ps_take(&c, &out->tid, 4) < 0 || ps_take(&c, &out->time, 8) < 0 ||
      ps_take(&c, &out->nr, 8) < 0)
    return LBR_BAD_RECORD;
  if (out->nr > c.left / LBR_ENTRY_SIZE) {
    out->nr = 0;
    return LBR_STACK_OVERRUN;
  }
  out->entries = c.p;
  return LBR_OK;
}

static unsigned field(uint64_t flags, unsigned shift, unsigned bits) {
  return (unsigned)((flags >> shift) & ((1ull << bits) - 1));
}

void lbr_entry_at(const struct lbr_sample *s, uint64_t i, struct lbr_entry *e) {
  const uint8_t *p = s->entries + i * LBR_ENTRY_SIZE;
  uint64_t flags;
  memcpy(&e->from, p, 8);
  memcpy(&e->to, p + 8, 8);
  memcpy(&flags, p + 16, 8);
  e->mispred = field(flags, LBR_F_MISPRED_SHIFT, 1);
  e->predicted = field(flags, LBR_F_PREDICTED_SHIFT, 1);
  e->in_tx = field(flags, LBR_F_IN_TX_SHIFT, 1);
  e->abort = field(flags, LBR_F_ABORT_SHIFT, 1);
  e->cycles = field(flags, LBR_F_CYCLES_SHIFT, 16);
  e->type = field(flags, LBR_F_TYPE_SHIFT, 4);
  e->spec = field(flags, LBR_F_SPEC_SHIFT, 2);
  e->new_type = field(flags, LBR_F_NEW_TYPE_SHIFT, 4);
  e->priv = field(flags, LBR_F_PRIV_SHIFT, 3);
}

uint64_t lbr_entry_flags(const struct lbr_entry *e) {
  return (uint64_t)(e->mispred & 1u) << LBR_F_MISPRED_SHIFT |
         (uint64_t)(e->predicted & 1u) << LBR_F_PREDICTED_SHIFT |
         (uint64_t)(e->in_tx & 1u) << LBR_F_IN_TX_SHIFT |
         (uint64_t)(e->abort & 1u) << LBR_F_ABORT_SHIFT |
         (uint64_t)(e->cycles & 0xffffu) << LBR_F_CYCLES_SHIFT |
         (uint64_t)(e->type & 0xfu) << LBR_F_TYPE_SHIFT |
         (uint64_t)(e->spec & 0x3u) << LBR_F_SPEC_SHIFT |
         (uint64_t)(e->new_type & 0xfu) << LBR_F_NEW_TYPE_SHIFT |
         (uint64_t)(e->priv & 0x7u) << LBR_F_PRIV_SHIFT;
}

const char *lbr_verdict_name(int verdict) {
  static const char *const names[LBR_VERDICT_COUNT] = {
      [LBR_OK] = "ok",
      [LBR_BAD_RECORD] = "bad-record",
      [LBR_STACK_OVERRUN] = "stack-overrun",
  };
  return verdict >= 0 && verdict < LBR_VERDICT_COUNT ? names[verdict] : "?";
}
