/* amd_lbr: the layout of one branch-stack sample as perf delivers it, and
 * its decoder. Pure functions of the bytes (the offline tests feed it stacks
 * built from these constants).
 *
 * The record (attr.sample_type = IP | TID | TIME | BRANCH_STACK,
 * include/uapi/linux/perf_event.h, PERF_RECORD_SAMPLE; no BRANCH_HW_INDEX,
 * no BRANCH_COUNTERS requested, so neither is present):
 *     struct perf_event_header;  u64 ip;  u32 pid, tid;  u64 time;
 *     u64 nr;  struct perf_branch_entry lbr[nr];
 * struct perf_branch_entry is 24 bytes (identical in the 6.1 and 6.12 uapi):
 *     u64 from;  u64 to;  u64 flags, whose bit-fields (allocated from bit 0
 *     on x86-64, as GCC lays out the uapi struct) are
 *         0 mispred   1 predicted   2 in_tx   3 abort   4..19 cycles
 *         20..23 type   24..25 spec   26..29 new_type   30..32 priv
 * Entry 0 is the most recent branch (arch/x86/events/amd/lbr.c: the stack
 * is frozen on the PMI, LBR From[0]/To[0] is the top of stack). On LbrExtV2
 * mispred is real and predicted = !mispred; BRS reports neither. `type` is
 * filled (software decode) only with PERF_SAMPLE_BRANCH_TYPE_SAVE.
 */
#ifndef ASMSPY_AMD_LBR_RECORD_H
#define ASMSPY_AMD_LBR_RECORD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#define LBR_SAMPLE_TYPE                                                                            \
  (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK)
#define LBR_ENTRY_SIZE 24u

/* Bit positions inside perf_branch_entry's third u64. */
#define LBR_F_MISPRED_SHIFT 0
#define LBR_F_PREDICTED_SHIFT 1
#define LBR_F_IN_TX_SHIFT 2
#define LBR_F_ABORT_SHIFT 3
#define LBR_F_CYCLES_SHIFT 4 /* 16 bits */
#define LBR_F_TYPE_SHIFT 20  /* 4 bits: PERF_BR_* */
#define LBR_F_SPEC_SHIFT 24  /* 2 bits: PERF_BR_SPEC_* */
#define LBR_F_NEW_TYPE_SHIFT 26
#define LBR_F_PRIV_SHIFT 30 /* 3 bits */

struct lbr_entry {
  uint64_t from, to;
  unsigned mispred, predicted, in_tx, abort;
  unsigned cycles, type, spec, new_type, priv;
};

struct lbr_sample {
  uint16_t misc;
  uint64_t ip;
  uint32_t pid, tid;
  uint64_t time;
  uint64_t nr;            /* entries in the stack */
  const uint8_t *entries; /* nr * LBR_ENTRY_SIZE bytes inside the record (any alignment) */
};

enum lbr_verdict {
  LBR_OK = 0,
  LBR_BAD_RECORD,    /* not a SAMPLE, or too short for ip, pid/tid, time and nr */
  LBR_STACK_OVERRUN, /* nr entries run past the end of the record */
  LBR_VERDICT_COUNT
};

/* Decode one whole PERF_RECORD_SAMPLE (header included) of an event opened
 * with LBR_SAMPLE_TYPE. Returns an lbr_verdict; the entries stay in rec. */
int lbr_decode_sample(const uint8_t *rec, size_t len, struct lbr_sample *out);

/* Entry i (< s->nr) of a decoded sample. */
void lbr_entry_at(const struct lbr_sample *s, uint64_t i, struct lbr_entry *e);

/* The flags word of an entry, built from its fields (tests, and the
 * inverse of lbr_entry_at). */
uint64_t lbr_entry_flags(const struct lbr_entry *e);

const char *lbr_verdict_name(int verdict);

#endif /* ASMSPY_AMD_LBR_RECORD_H */
