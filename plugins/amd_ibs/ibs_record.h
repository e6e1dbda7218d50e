/* amd_ibs: the layout of one IBS-Op sample as perf delivers it, and its
 * decoder. Pure functions of the bytes: no perf, no host, no state (the
 * offline tests feed it records built byte by byte from these constants).
 *
 * The record (attr.sample_type = IP | TID | RAW, include/uapi/linux/
 * perf_event.h, PERF_RECORD_SAMPLE):
 *     struct perf_event_header;  u64 ip;  u32 pid, tid;  u32 raw_size;  u8 raw[raw_size];
 * The raw payload (arch/x86/events/amd/ibs.c, perf_ibs_handle_irq(); the
 * kernel fills struct perf_ibs_data and hands `caps` onwards as the frag):
 *     u32 ibs_caps                   CPUID 8000_001B EAX as the kernel saw it
 *     u64 IBS_OP_CTL     MSR C001_1033 \
 *     u64 IBS_OP_RIP         C001_1034  |
 *     u64 IBS_OP_DATA        C001_1035  | the contiguous block, always read in
 *     u64 IBS_OP_DATA2       C001_1036  | full when PERF_SAMPLE_RAW is asked
 *     u64 IBS_OP_DATA3       C001_1037  | (offset_max = MSR_AMD64_IBSOP_REG_COUNT)
 *     u64 IBS_DC_LINADDR     C001_1038  |
 *     u64 IBS_DC_PHYSADDR    C001_1039 /
 *     u64 IBS_BR_TARGET      C001_103B   appended iff ibs_caps & IBS_CAPS_BRNTRGT
 *     u64 IBS_OP_DATA4       C001_103D   appended iff ibs_caps & IBS_CAPS_OPDATA4
 * so raw_size = 4 + 8 * n (the u32 raw_size plus the u32 caps keep the
 * MSRs 8-byte aligned; perf pads the raw section to 8 bytes and needs no pad
 * here). Newer kernels may append more MSRs: they are accepted and ignored.
 *
 * Bit layouts (arch/x86/include/asm/amd/ibs.h, union ibs_op_ctl /
 * ibs_op_data; AMD PPR 55898 for Fam19h):
 *   IBS_OP_CTL   [15:0] OpMaxCnt, 16 L3MissOnly, 17 OpEn, 18 OpVal,
 *                19 OpCntCtl, [26:20] OpMaxCnt ext, [58:32] OpCurCnt
 *   IBS_OP_DATA  [15:0] CompToRetCtr, [31:16] TagToRetCtr, 34 OpReturn,
 *                35 OpBrnTaken, 36 OpBrnMisp, 37 OpBrnRet (a retired branch),
 *                38 OpRipInvalid, 39 OpBrnFuse, 40 OpMicrocode
 *   IBS_BR_TARGET the target of the sampled branch (meaningful iff OpBrnRet)
 */
#ifndef ASMSPY_AMD_IBS_RECORD_H
#define ASMSPY_AMD_IBS_RECORD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* What the backend asks perf for, and therefore what the decoder expects. */
#define IBS_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW)

/* ibs_caps (kernel IBS_CAPS_*) */
#define IBS_CAPS_AVAIL (1u << 0)
#define IBS_CAPS_OPSAM (1u << 2)
#define IBS_CAPS_OPCNT (1u << 4)
#define IBS_CAPS_BRNTRGT (1u << 5)
#define IBS_CAPS_OPCNTEXT (1u << 6)
#define IBS_CAPS_RIPINVALIDCHK (1u << 7)
#define IBS_CAPS_OPBRNFUSE (1u << 8)
#define IBS_CAPS_OPDATA4 (1u << 10)

/* IBS_OP_CTL */
#define IBS_OP_CTL_MAX_CNT 0xffffull
#define IBS_OP_CTL_L3MISSONLY (1ull << 16)
#define IBS_OP_CTL_EN (1ull << 17)
#define IBS_OP_CTL_VAL (1ull << 18)
#define IBS_OP_CTL_CNT_CTL (1ull << 19)

/* IBS_OP_DATA */
#define IBS_OP_DATA_RETURN (1ull << 34)
#define IBS_OP_DATA_BRN_TAKEN (1ull << 35)
#define IBS_OP_DATA_BRN_MISP (1ull << 36)
#define IBS_OP_DATA_BRN_RET (1ull << 37)
#define IBS_OP_DATA_RIP_INVALID (1ull << 38)
#define IBS_OP_DATA_BRN_FUSE (1ull << 39)
#define IBS_OP_DATA_MICROCODE (1ull << 40)

/* Index of each MSR in the raw payload's u64 array. */
enum ibs_reg {
  IBS_REG_OP_CTL = 0,
  IBS_REG_OP_RIP,
  IBS_REG_OP_DATA,
  IBS_REG_OP_DATA2,
  IBS_REG_OP_DATA3,
  IBS_REG_DC_LINADDR,
  IBS_REG_DC_PHYSADDR,
  IBS_REG_FIXED, /* 7: the contiguous block every RAW sample carries */
};

/* The largest period the 16-bit OpMaxCnt holds on every IBS generation
 * (perf programs MaxCnt = period >> 4; OPCNTEXT parts take 23 bits). */
#define IBS_MAX_PERIOD (IBS_OP_CTL_MAX_CNT << 4)

/* The decoder's verdict on one record. IBS_OK is a usable op; every other
 * value says what was wrong with it (the backend counts them per kind). */
enum ibs_verdict {
  IBS_OK = 0,
  IBS_BAD_RECORD,       /* not a SAMPLE, or too short for ip, pid/tid and raw_size */
  IBS_RAW_OVERRUN,      /* raw_size runs past the end of the record */
  IBS_RAW_NO_CAPS,      /* raw_size < 4: no caps word (not an IBS payload) */
  IBS_RAW_ODD_SIZE,     /* raw_size is not 4 + 8n */
  IBS_RAW_SHORT,        /* fewer than the 7 contiguous MSRs */
  IBS_RAW_NO_BR_TARGET, /* ibs_caps announce IBS_BR_TARGET but it is missing */
  IBS_OP_NOT_VALID,     /* IBS_OP_CTL has OpVal (or OpEn) clear: no sample was taken */
  IBS_OP_RIP_INVALID,   /* IBS_OP_DATA OpRipInvalid: the op's address is unknown */
  IBS_VERDICT_COUNT
};

/* One decoded IBS-Op sample. */
struct ibs_op {
  uint16_t misc;      /* perf_event_header.misc */
  uint64_t sample_ip; /* PERF_SAMPLE_IP (the kernel's IbsOpRip, or the interrupted ip) */
  uint32_t pid, tid;
  uint32_t raw_size;
  uint32_t caps;  /* ibs_caps from the payload */
  unsigned nregs; /* u64 MSRs in the payload */
  uint64_t reg[IBS_REG_FIXED];
  int has_br_target;
  uint64_t br_target;
  int has_op_data4;
  uint64_t op_data4;
};

/* Decode one whole PERF_RECORD_SAMPLE (header included) of an event opened
 * with IBS_SAMPLE_TYPE. Fills *op as far as the bytes allow (pid/tid and
 * sample_ip are valid from IBS_RAW_OVERRUN on). Returns an ibs_verdict. */
int ibs_decode_sample(const uint8_t *rec, size_t len, struct ibs_op *op);

/* Decode just the raw payload (the raw_size bytes after the u32 size). */
int ibs_decode_raw(const uint8_t *raw, uint32_t raw_size, struct ibs_op *op);

/* Short name of a verdict for notes: "raw-short", ... */
const char *ibs_verdict_name(int verdict);

static inline int ibs_op_is_branch(const struct ibs_op *op) {
  return (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_BRN_RET) != 0;
}
static inline int ibs_op_taken(const struct ibs_op *op) {
  return (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_BRN_TAKEN) != 0;
}
static inline int ibs_op_mispredicted(const struct ibs_op *op) {
  return (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_BRN_MISP) != 0;
}
static inline int ibs_op_return(const struct ibs_op *op) {
  return (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_RETURN) != 0;
}
static inline int ibs_op_fused(const struct ibs_op *op) {
  return (op->reg[IBS_REG_OP_DATA] & IBS_OP_DATA_BRN_FUSE) != 0;
}
static inline uint64_t ibs_op_rip(const struct ibs_op *op) { return op->reg[IBS_REG_OP_RIP]; }

#endif /* ASMSPY_AMD_IBS_RECORD_H */
