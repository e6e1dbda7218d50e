/* amd_ibs: decoding one IBS-Op sample record (layout: ibs_record.h).
 *
 * Every read is bounds-checked against the copied record: a short record,
 * a raw_size running past it or a payload of an unexpected size is a
 * verdict, never an out-of-bounds read. The sizes are derived from raw_size
 * rather than from ibs_caps alone, because kernels differ in what they
 * append; the caps only say where IBS_BR_TARGET sits. */
#include "plugins/amd_ibs/ibs_record.h"

#include <string.h>

#include "plugins/common/perf_sampling.h"

int ibs_decode_raw(const uint8_t *raw, uint32_t raw_size, struct ibs_op *op) {
  op->raw_size = raw_size;
  op->nregs = 0;
  op->has_br_target = 0;
  op->has_op_data4 = 0;
  memset(op->reg, 0, sizeof op->reg);
  struct ps_cursor c = {raw, raw_size};
  if (ps_take(&c, &op->caps, 4) < 0) return IBS_RAW_NO_CAPS;
  if (c.left % 8 != 0) return IBS_RAW_ODD_SIZE;
  op->nregs = (unsigned)(c.left / 8);
  if (op->nregs < IBS_REG_FIXED) return IBS_RAW_SHORT;
  for (unsigned i = 0; i < IBS_REG_FIXED; i++) (void)ps_take(&c, &op->reg[i], 8);
  /* perf_ibs_handle_irq appends BR_TARGET, then OP_DATA4, each iff its
   * caps bit is set: OP_DATA4's index depends on BR_TARGET's presence. */
  if (op->caps & IBS_CAPS_BRNTRGT) {
    if (ps_take(&c, &op->br_target, 8) < 0) return IBS_RAW_NO_BR_TARGET;
    op->has_br_target = 1;
  }
  if ((op->caps & IBS_CAPS_OPDATA4) && ps_take(&c, &op->op_data4, 8) == 0) op->has_op_data4 = 1;

  uint64_t ctl = op->reg[IBS_REG_OP_CTL];
  if (!(ctl & IBS_OP_CTL_VAL) || !(ctl & IBS_OP_CTL_EN)) return IBS_OP_NOT_VALID;
  if (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_RIP_INVALID) return IBS_OP_RIP_INVALID;
  return IBS_OK;
}

int ibs_decode_sample(const uint8_t *rec, size_t len, struct ibs_op *op) {
  memset(op, 0, sizeof *op);
  struct ps_cursor c = {rec, len};
  struct perf_event_header h;
  if (ps_take(&c, &h, sizeof h) < 0 || h.type != PERF_RECORD_SAMPLE) return IBS_BAD_RECORD;
  op->misc = h.misc;
  if (h.size < sizeof h) return IBS_BAD_RECORD;
  if (h.size < len) /* only the record's own bytes, whatever the buffer holds */
    c.left = h.size - sizeof h;
  uint32_t raw_size;
  if (ps_take(&c, &op->sample_ip, 8) < 0 || ps_take(&c, &op->pid, 4) < 0 ||
      ps_take(&c, &op->tid, 4) < 0 || ps_take(&c, &raw_size, 4) < 0)
    return IBS_BAD_RECORD;
  op->raw_size = raw_size;
  if (raw_size > c.left) return IBS_RAW_OVERRUN;
  return ibs_decode_raw(c.p, raw_size, op);
}

const char *ibs_verdict_name(int verdict) {
  static const char *const names[IBS_VERDICT_COUNT] = {
      [IBS_OK] = "ok",
      [IBS_BAD_RECORD] = "bad-record",
      [IBS_RAW_OVERRUN] = "raw-overrun",
      [IBS_RAW_NO_CAPS] = "raw-no-caps",
      [IBS_RAW_ODD_SIZE] = "raw-odd-size",
      [IBS_RAW_SHORT] = "raw-short",
      [IBS_RAW_NO_BR_TARGET] = "raw-no-br-target",
      [IBS_OP_NOT_VALID] = "op-not-valid",
      [IBS_OP_RIP_INVALID] = "rip-invalid",
  };
  return verdict >= 0 && verdict < IBS_VERDICT_COUNT ? names[verdict] : "?";
}
