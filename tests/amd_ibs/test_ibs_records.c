/* Offline test of the amd_ibs decode path: IBS-Op RAW payloads built byte by
 * byte from the documented MSR layouts (AMD PPR 55898; the kernel's
 * arch/x86/include/asm/amd/ibs.h and perf_ibs_handle_irq()), packed into
 * PERF_RECORD_SAMPLE records and whole perf rings (with LOST, THROTTLE,
 * UNTHROTTLE, LOST_SAMPLES and a foreign record type, wrapping around the
 * ring's end), fed through the very functions run() uses: ps_ring_drain ->
 * ibs_emit_sample -> ibs_decode_sample, then ibs_emit_provenance. Asserts
 * the exact events, their order and flags, and the provenance counts.
 *
 * The bit positions below are written out again from the documentation on
 * purpose: they are the oracle for the decoder's own constants. */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "plugins/amd_ibs/ibs_capture.h"
#include "plugins/amd_ibs/ibs_emit.h"
#include "plugins/amd_ibs/ibs_record.h"
#include "tests/amd_ibs/perf_fixture.h"
#include "tests/unit/check.h"

/* IBS_OP_CTL (MSR C001_1033) */
#define DOC_CTL_MAXCNT(x) ((uint64_t)(x)&0xffffu)
#define DOC_CTL_EN (1ull << 17)
#define DOC_CTL_VAL (1ull << 18)
#define DOC_CTL_CNTCTL (1ull << 19)
#define DOC_CTL_CURCNT(x) ((uint64_t)(x) << 32)
#define DOC_CTL_SAMPLED (DOC_CTL_MAXCNT(0xffff) | DOC_CTL_EN | DOC_CTL_VAL | DOC_CTL_CNTCTL)
/* IBS_OP_DATA (MSR C001_1035) */
#define DOC_DATA_COMP_TO_RET(x) ((uint64_t)(x)&0xffffu)
#define DOC_DATA_TAG_TO_RET(x) (((uint64_t)(x)&0xffffu) << 16)
#define DOC_DATA_RETURN (1ull << 34)
#define DOC_DATA_TAKEN (1ull << 35)
#define DOC_DATA_MISP (1ull << 36)
#define DOC_DATA_BRN_RET (1ull << 37)
#define DOC_DATA_RIP_INVALID (1ull << 38)
#define DOC_DATA_FUSE (1ull << 39)
/* IBS_OP_DATA3 (MSR C001_1037): a load */
#define DOC_DATA3_LDOP (1ull << 0)
/* ibs_caps as dmesg prints them ("perf: AMD IBS detected (0x...)") */
#define DOC_CAPS_K10 0x1fu      /* no BrnTrgt: 7 MSRs */
#define DOC_CAPS_ZEN3 0x3ffu    /* BrnTrgt: 8 MSRs */
#define DOC_CAPS_ZEN4 0xbffu    /* BrnTrgt + Zen 4: 8 MSRs */
#define DOC_CAPS_OPDATA4 0x7ffu /* BrnTrgt + OpData4: 9 MSRs */

#define PID 4242
#define TID 4243
#define PERIOD 0xffff0ull

/* One IBS sample as the kernel would write it. regs[] in MSR order:
 * CTL RIP DATA DATA2 DATA3 DC_LINADDR DC_PHYSADDR [BR_TARGET] [OP_DATA4]. */
struct ibs_spec {
  uint32_t pid, tid;
  uint64_t sample_ip;
  uint32_t caps;
  uint64_t regs[10];
  unsigned nregs;
  int64_t raw_size; /* -1: 4 + 8 * nregs */
  unsigned junk;    /* bytes appended after the MSRs (an unexpected size) */
};

static void build_ibs(struct bytes *o, const struct ibs_spec *s) {
  size_t at = rec_begin(o, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
  put64(o, s->sample_ip);
  put32(o, s->pid);
  put32(o, s->tid);
  uint32_t present = 4 + 8 * s->nregs + s->junk;
  put32(o, s->raw_size >= 0 ? (uint32_t)s->raw_size : present);
  put32(o, s->caps);
  for (unsigned i = 0; i < s->nregs; i++) put64(o, s->regs[i]);
  for (unsigned i = 0; i < s->junk; i++) o->b[o->n++] = 0xee;
  rec_end(o, at, -1);
}

/* A valid op at rip with op_data and (for 8+ MSRs) br_target. */
static struct ibs_spec op_spec(uint32_t caps, unsigned nregs, uint64_t rip, uint64_t data,
                               uint64_t target) {
  struct ibs_spec s;
  memset(&s, 0, sizeof s);
  s.pid = PID;
  s.tid = TID;
  s.sample_ip = rip;
  s.caps = caps;
  s.nregs = nregs;
  s.raw_size = -1;
  s.regs[0] = DOC_CTL_SAMPLED | DOC_CTL_CURCNT(0x1234);
  s.regs[1] = rip;
  s.regs[2] = data | DOC_DATA_COMP_TO_RET(3) | DOC_DATA_TAG_TO_RET(17);
  s.regs[3] = 0;
  s.regs[4] = data & DOC_DATA_BRN_RET ? 0 : DOC_DATA3_LDOP;
  s.regs[5] = 0x7ffd0000;
  s.regs[6] = 0;
  if (nregs > 7) s.regs[7] = target;
  if (nregs > 8) s.regs[8] = 0x5a5a;
  return s;
}

/* The target's instruction lengths, as the host's disassembler would say. */
static int fake_insn_len(void *ctx, uint64_t ip) {
  (void)ctx;
  switch (ip) {
  case 0x401060: return 2; /* jne rel8 */
  case 0x401070: return 3; /* cmp eax, imm8 (fused with the next jcc) */
  default: return 0;
  }
}

static void expect_branch(const struct asmspy_event *ev, uint64_t from, uint64_t to, uint16_t flags,
                          const char *what) {
  CHECK(ev->type == ASMSPY_EV_BRANCH, "%s: type %u, want BRANCH", what, ev->type);
  CHECK(ev->u.branch.from == from, "%s: from %#llx, want %#llx", what,
        (unsigned long long)ev->u.branch.from, (unsigned long long)from);
  CHECK(ev->u.branch.to == to, "%s: to %#llx, want %#llx", what,
        (unsigned long long)ev->u.branch.to, (unsigned long long)to);
  CHECK(ev->ip == from, "%s: ip %#llx", what, (unsigned long long)ev->ip);
  CHECK(ev->flags == flags, "%s: flags %#x, want %#x", what, ev->flags, flags);
  CHECK(ev->pid == PID && ev->tid == TID, "%s: pid/tid %d/%d", what, ev->pid, ev->tid);
}

static void init_emitter(struct ibs_emitter *em, struct event_log *log, int drop_kernel) {
  memset(log, 0, sizeof *log);
  ibs_emitter_init(em, log_sink, log, NULL, PID, 0, PERIOD, drop_kernel);
  em->insn_len = fake_insn_len;
}

/* The whole ring: every record kind the backend meets, in one walk. */
static void test_ring(void) {
  struct bytes o = {.n = 0};
  struct ibs_spec s;
  /* 1 taken + mispredicted (Zen 3: 8 MSRs); starts 40 bytes before the
   * ring's end, so it wraps */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401000, DOC_DATA_BRN_RET | DOC_DATA_TAKEN | DOC_DATA_MISP,
              0x401100);
  build_ibs(&o, &s);
  rec_lost(&o, 1, 7);                          /* 2 */
  rec_throttle(&o, PERF_RECORD_THROTTLE, 100); /* 3 */
  /* 4 a return (Zen 4) */
  s = op_spec(DOC_CAPS_ZEN4, 8, 0x401234, DOC_DATA_BRN_RET | DOC_DATA_TAKEN | DOC_DATA_RETURN,
              0x400900);
  build_ibs(&o, &s);
  rec_throttle(&o, PERF_RECORD_UNTHROTTLE, 200); /* 5 */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401050, 0, 0); /* 6 a load: not a branch */
  build_ibs(&o, &s);
  /* 7 a not-taken conditional: to = the fall-through */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401060, DOC_DATA_BRN_RET, 0x401000);
  build_ibs(&o, &s);
  /* 8 a fused cmp+jcc, taken: from = the jcc after the 3-byte cmp */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401070, DOC_DATA_BRN_RET | DOC_DATA_TAKEN | DOC_DATA_FUSE,
              0x401000);
  build_ibs(&o, &s);
  /* 9 a K10-era part: no IBS_BR_TARGET, 7 MSRs */
  s = op_spec(DOC_CAPS_K10, 7, 0x401080, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0);
  build_ibs(&o, &s);
  /* 10 BrnTrgt + OpData4: 9 MSRs, an ordinary op */
  s = op_spec(DOC_CAPS_OPDATA4, 9, 0x401090, 0, 0);
  build_ibs(&o, &s);
  /* 11 truncated: raw_size claims 16 bytes more than the record holds */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x4010a0, DOC_DATA_BRN_RET, 0x401000);
  s.raw_size = 4 + 8 * 8 + 16;
  build_ibs(&o, &s);
  /* 12 short: only CTL, RIP, DATA */
  s = op_spec(DOC_CAPS_ZEN3, 3, 0x4010b0, DOC_DATA_BRN_RET, 0);
  build_ibs(&o, &s);
  /* 13 unexpected size: 8 MSRs and 4 stray bytes (raw_size 72 is not 4 + 8n) */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x4010c0, DOC_DATA_BRN_RET, 0x401000);
  s.junk = 4;
  build_ibs(&o, &s);
  /* 14 the caps word alone (what a non-IBS event's empty RAW looks like) */
  s = op_spec(0, 0, 0x4010d0, 0, 0);
  build_ibs(&o, &s);
  /* 15 raw_size 0: not even the caps word */
  s = op_spec(0, 0, 0x4010e0, 0, 0);
  s.raw_size = 0;
  build_ibs(&o, &s);
  /* 16 caps announce BR_TARGET, the payload stops at 7 MSRs */
  s = op_spec(DOC_CAPS_ZEN3, 7, 0x4010f0, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0);
  build_ibs(&o, &s);
  /* 17 OpVal clear */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401100, 0, 0);
  s.regs[0] &= ~DOC_CTL_VAL;
  build_ibs(&o, &s);
  /* 18 RipInvalid */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401110, DOC_DATA_RIP_INVALID | DOC_DATA_BRN_RET, 0x401000);
  build_ibs(&o, &s);
  /* 19 another process (what a CPU-wide event sees) */
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401120, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0x401000);
  s.pid = PID + 1;
  build_ibs(&o, &s);
  rec_lost_samples(&o, 3);     /* 20 */
  rec_comm(&o, PID, "victim"); /* 21 */
  /* 22 a SAMPLE too short for ip, pid/tid and raw_size */
  size_t at = rec_begin(&o, PERF_RECORD_SAMPLE, 0);
  put64(&o, 0x401130);
  rec_end(&o, at, -1);

  struct fake_ring f;
  fr_init(&f, 1, 8192 - 40);
  fr_write_bytes(&f, &o);

  struct event_log log;
  struct ibs_emitter em;
  init_emitter(&em, &log, 0);
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_consumer c = ibs_consumer(&em);
  uint8_t buf[4096] __attribute__((aligned(8)));
  int rc = ps_ring_drain(&f.r, buf, sizeof buf, &c, &n);
  CHECK(rc == 0, "drain returned %d", rc);
  CHECK(f.r.pc->data_tail == f.head, "data_tail %llu, want data_head %llu",
        (unsigned long long)f.r.pc->data_tail, (unsigned long long)f.head);
  ibs_emit_provenance(&em, &n, 123456789);

  /* the ring's own accounting */
  CHECK(n.sample_records == 17, "sample records %llu", (unsigned long long)n.sample_records);
  CHECK(n.lost == 10 && n.lost_records == 2, "lost %llu in %llu records",
        (unsigned long long)n.lost, (unsigned long long)n.lost_records);
  CHECK(n.throttled == 1 && n.unthrottled == 1, "throttle %llu/%llu",
        (unsigned long long)n.throttled, (unsigned long long)n.unthrottled);
  CHECK(n.other_records == 1 && n.corrupt == 0 && n.oversized == 0, "other %llu corrupt %llu",
        (unsigned long long)n.other_records, (unsigned long long)n.corrupt);

  /* the exact event stream */
  CHECK(log.n == 10, "%zu events, want 9 + PROVENANCE", log.n);
  if (log.n == 10) {
    const uint16_t S = ASMSPY_EVF_SAMPLED, T = ASMSPY_EVF_BR_TAKEN;
    expect_branch(&log.ev[0], 0x401000, 0x401100, S | T | ASMSPY_EVF_BR_MISP, "taken+misp");
    CHECK(log.ev[1].type == ASMSPY_EV_LOST && log.ev[1].u.lost.count == 7, "LOST 7: %u/%llu",
          log.ev[1].type, (unsigned long long)log.ev[1].u.lost.count);
    expect_branch(&log.ev[2], 0x401234, 0x400900, S | T | ASMSPY_EVF_BR_RET, "return");
    CHECK(log.ev[3].type == ASMSPY_EV_SAMPLE && log.ev[3].ip == 0x401050 &&
              log.ev[3].u.sample.weight == 1 && log.ev[3].u.sample.period == PERIOD &&
              log.ev[3].flags == S && log.ev[3].tid == TID,
          "op sample: type %u ip %#llx", log.ev[3].type, (unsigned long long)log.ev[3].ip);
    expect_branch(&log.ev[4], 0x401060, 0x401062, S, "not taken -> fall-through");
    expect_branch(&log.ev[5], 0x401073, 0x401000, S | T, "fused: from the jcc");
    expect_branch(&log.ev[6], 0x401080, 0, S | T, "no BR_TARGET MSR");
    CHECK(log.ev[7].type == ASMSPY_EV_SAMPLE && log.ev[7].ip == 0x401090, "OpData4 op: %u %#llx",
          log.ev[7].type, (unsigned long long)log.ev[7].ip);
    CHECK(log.ev[8].type == ASMSPY_EV_LOST && log.ev[8].u.lost.count == 3, "LOST_SAMPLES 3");
    const struct asmspy_event *p = &log.ev[9];
    CHECK(p->type == ASMSPY_EV_PROVENANCE, "last event type %u", p->type);
    CHECK(p->u.prov.samples == 15, "prov samples %llu, want 15 (7 usable + 8 unusable)",
          (unsigned long long)p->u.prov.samples);
    CHECK(p->u.prov.branch_samples == 5, "prov branch_samples %llu",
          (unsigned long long)p->u.prov.branch_samples);
    CHECK(p->u.prov.lost == 10 && p->u.prov.throttled == 1, "prov lost %llu throttled %llu",
          (unsigned long long)p->u.prov.lost, (unsigned long long)p->u.prov.throttled);
    CHECK(p->u.prov.window_ns == 123456789, "prov window_ns");
    CHECK(p->u.prov.sampler && strcmp(p->u.prov.sampler, "ibs") == 0, "sampler");
    for (size_t i = 0; i < log.n; i++)
      CHECK(log.ev[i].seq == i, "event %zu has seq %llu", i, (unsigned long long)log.ev[i].seq);
  }
  CHECK(log_count(&log, ASMSPY_EV_PROVENANCE) == 1, "exactly one PROVENANCE");

  /* why the other records made no event */
  CHECK(em.t.samples == 15 && em.t.branch_samples == 5 && em.t.op_samples == 2,
        "tally %llu/%llu/%llu", (unsigned long long)em.t.samples,
        (unsigned long long)em.t.branch_samples, (unsigned long long)em.t.op_samples);
  CHECK(em.t.verdict[IBS_RAW_OVERRUN] == 1, "overrun %llu",
        (unsigned long long)em.t.verdict[IBS_RAW_OVERRUN]);
  CHECK(em.t.verdict[IBS_RAW_SHORT] == 2, "short %llu",
        (unsigned long long)em.t.verdict[IBS_RAW_SHORT]);
  CHECK(em.t.verdict[IBS_RAW_ODD_SIZE] == 1, "odd size");
  CHECK(em.t.verdict[IBS_RAW_NO_CAPS] == 1, "no caps");
  CHECK(em.t.verdict[IBS_RAW_NO_BR_TARGET] == 1, "no br target");
  CHECK(em.t.verdict[IBS_OP_NOT_VALID] == 1, "not valid");
  CHECK(em.t.verdict[IBS_OP_RIP_INVALID] == 1, "rip invalid");
  CHECK(em.t.verdict[IBS_BAD_RECORD] == 1, "bad record");
  CHECK(em.t.foreign == 1 && em.t.kernel == 0, "foreign %llu", (unsigned long long)em.t.foreign);
  CHECK(em.t.no_target == 1 && em.t.no_fallthrough == 0 && em.t.fuse_unresolved == 0,
        "no_target %llu", (unsigned long long)em.t.no_target);
  char text[256];
  ibs_unusable_text(&em.t, text, sizeof text);
  CHECK(strcmp(text, "1 bad-record, 1 raw-overrun, 1 raw-no-caps, 1 raw-odd-size, 2 raw-short, "
                     "1 raw-no-br-target, 1 op-not-valid, 1 rip-invalid") == 0,
        "unusable text \"%s\"", text);
  fr_free(&f);
}

/* The decoder alone: where each MSR lands, per caps word. */
static void test_decode_layouts(void) {
  struct bytes o = {.n = 0};
  struct ibs_spec s =
      op_spec(DOC_CAPS_OPDATA4, 9, 0x7f0000001000, DOC_DATA_BRN_RET, 0x7f0000002000);
  build_ibs(&o, &s);
  struct ibs_op op;
  int v = ibs_decode_sample(o.b, o.n, &op);
  CHECK(v == IBS_OK, "9-MSR decode: %s", ibs_verdict_name(v));
  CHECK(op.raw_size == 4 + 9 * 8 && op.nregs == 9, "raw_size %u nregs %u", op.raw_size, op.nregs);
  CHECK(op.caps == DOC_CAPS_OPDATA4, "caps %#x", op.caps);
  CHECK(op.has_br_target && op.br_target == 0x7f0000002000, "br_target %#llx",
        (unsigned long long)op.br_target);
  CHECK(op.has_op_data4 && op.op_data4 == 0x5a5a, "op_data4 %#llx",
        (unsigned long long)op.op_data4);
  CHECK(op.reg[IBS_REG_DC_LINADDR] == 0x7ffd0000, "DC_LINADDR lands at index 5");
  CHECK(op.misc == (PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP), "misc %#x", op.misc);
  CHECK(op.pid == PID && op.tid == TID && op.sample_ip == 0x7f0000001000, "pid/tid/ip");

  /* OpData4 without BrnTrgt: it takes index 7 */
  o.n = 0;
  s = op_spec(1u << 10, 8, 0x401000, 0, 0);
  s.regs[7] = 0xd4d4;
  build_ibs(&o, &s);
  v = ibs_decode_sample(o.b, o.n, &op);
  CHECK(v == IBS_OK && !op.has_br_target && op.has_op_data4 && op.op_data4 == 0xd4d4,
        "OpData4 at index 7: %s, data4 %#llx", ibs_verdict_name(v),
        (unsigned long long)op.op_data4);

  /* a newer kernel appending an MSR we do not know: accepted */
  o.n = 0;
  s = op_spec(DOC_CAPS_ZEN3, 10, 0x401000, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0x402000);
  build_ibs(&o, &s);
  v = ibs_decode_sample(o.b, o.n, &op);
  CHECK(v == IBS_OK && op.br_target == 0x402000 && op.nregs == 10, "extra MSRs: %s",
        ibs_verdict_name(v));

  /* the record's own size bounds the read, whatever follows in the buffer */
  o.n = 0;
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401000, 0, 0);
  build_ibs(&o, &s);
  size_t one = o.n;
  v = ibs_decode_sample(o.b, one - 8, &op);
  CHECK(v == IBS_RAW_OVERRUN, "a buffer cut 8 bytes short: %s", ibs_verdict_name(v));

  /* header-level garbage */
  uint8_t tiny[16] = {0};
  CHECK(ibs_decode_sample(tiny, 4, &op) == IBS_BAD_RECORD, "4 bytes");
  tiny[0] = PERF_RECORD_SAMPLE;
  tiny[6] = 4; /* size 4 < the header itself */
  CHECK(ibs_decode_sample(tiny, sizeof tiny, &op) == IBS_BAD_RECORD, "size below header");
  tiny[0] = PERF_RECORD_LOST;
  tiny[6] = 16;
  CHECK(ibs_decode_sample(tiny, sizeof tiny, &op) == IBS_BAD_RECORD, "not a SAMPLE");
  CHECK(strcmp(ibs_verdict_name(IBS_VERDICT_COUNT), "?") == 0, "verdict name bounds");
}

/* Kernels without swfilt deliver kernel-mode samples: dropped, not counted. */
static void test_kernel_and_tid_filters(void) {
  struct bytes o = {.n = 0};
  struct ibs_spec s = op_spec(DOC_CAPS_ZEN3, 8, 0xffffffff81000000ull, 0, 0);
  build_ibs(&o, &s);
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401000, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0x401100);
  s.tid = TID + 1;
  build_ibs(&o, &s);
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401000, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 0x401100);
  build_ibs(&o, &s);
  struct fake_ring f;
  fr_init(&f, 1, 0);
  fr_write_bytes(&f, &o);
  struct event_log log;
  struct ibs_emitter em;
  init_emitter(&em, &log, 1);
  em.only_tid = TID;
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_consumer c = ibs_consumer(&em);
  uint8_t buf[1024] __attribute__((aligned(8)));
  (void)ps_ring_drain(&f.r, buf, sizeof buf, &c, &n);
  CHECK(em.t.kernel == 1 && em.t.foreign == 1 && em.t.samples == 1,
        "kernel %llu foreign %llu "
        "samples %llu",
        (unsigned long long)em.t.kernel, (unsigned long long)em.t.foreign,
        (unsigned long long)em.t.samples);
  CHECK(log.n == 1 && log.ev[0].type == ASMSPY_EV_BRANCH && log.ev[0].tid == TID,
        "only the pinned thread's user-mode branch: %zu events", log.n);
  fr_free(&f);

  /* no resolver: a not-taken branch has no known fall-through (to = 0), a
   * fused one stays at the cmp */
  o.n = 0;
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401060, DOC_DATA_BRN_RET | DOC_DATA_FUSE, 0);
  build_ibs(&o, &s);
  init_emitter(&em, &log, 0);
  em.insn_len = NULL;
  CHECK(ibs_emit_sample(&em, o.b, o.n) == 0, "emit");
  CHECK(log.n == 1 && log.ev[0].u.branch.from == 0x401060 && log.ev[0].u.branch.to == 0 &&
            log.ev[0].flags == ASMSPY_EVF_SAMPLED,
        "unresolved fused not-taken branch");
  CHECK(em.t.no_fallthrough == 1 && em.t.fuse_unresolved == 1, "counted");
}

/* The ring walk itself: a consumer that stops, corrupt headers, oversized
 * records. */
static void test_ring_edges(void) {
  struct bytes o = {.n = 0};
  struct ibs_spec s = op_spec(DOC_CAPS_ZEN3, 8, 0x401000, DOC_DATA_BRN_RET | DOC_DATA_TAKEN, 1);
  build_ibs(&o, &s);
  size_t first = o.n;
  s = op_spec(DOC_CAPS_ZEN3, 8, 0x401010, 0, 0);
  build_ibs(&o, &s);
  rec_lost(&o, 1, 2);

  /* the sink asks to stop after the first event: the rest stays queued */
  struct fake_ring f;
  fr_init(&f, 1, 8192 - 16);
  fr_write_bytes(&f, &o);
  struct event_log log;
  struct ibs_emitter em;
  init_emitter(&em, &log, 0);
  log.stop_after = 1;
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_consumer c = ibs_consumer(&em);
  uint8_t buf[4096] __attribute__((aligned(8)));
  CHECK(ps_ring_drain(&f.r, buf, sizeof buf, &c, &n) == 1, "drain reports the stop");
  CHECK(f.r.pc->data_tail == 8192 - 16 + first, "tail after the first record only: %llu",
        (unsigned long long)f.r.pc->data_tail);
  log.stop_after = 0;
  /* the stop is sticky: nothing more reaches the sink, but the closing
   * PROVENANCE */
  CHECK(ps_ring_drain(&f.r, buf, sizeof buf, &c, &n) == 1 && log.n == 1,
        "a stopped emitter delivers nothing more: %zu events", log.n);
  ibs_emit_provenance(&em, &n, 1);
  CHECK(log.n == 2 && log.ev[1].type == ASMSPY_EV_PROVENANCE && log.ev[1].seq == 1,
        "PROVENANCE still closes a stopped window");
  fr_free(&f);

  /* oversized: a record larger than the copy buffer is skipped by its size */
  fr_init(&f, 1, 0);
  fr_write_bytes(&f, &o);
  init_emitter(&em, &log, 0);
  memset(&n, 0, sizeof n);
  c = ibs_consumer(&em);
  CHECK(ps_ring_drain(&f.r, buf, 64, &c, &n) == 0, "small-buffer drain");
  CHECK(n.oversized == 2 && n.lost == 2 && log.n == 1 && log.ev[0].type == ASMSPY_EV_LOST,
        "two samples oversized, the LOST after them still read: oversized %llu events %zu",
        (unsigned long long)n.oversized, log.n);
  fr_free(&f);

  /* corrupt: a header whose size is below the header's own */
  struct bytes bad = {.n = 0};
  rec_lost(&bad, 1, 5);
  size_t at = rec_begin(&bad, PERF_RECORD_SAMPLE, 0);
  put64(&bad, 0);
  rec_end(&bad, at, 4);
  rec_lost(&bad, 1, 6);
  fr_init(&f, 1, 100);
  fr_write_bytes(&f, &bad);
  init_emitter(&em, &log, 0);
  memset(&n, 0, sizeof n);
  c = ibs_consumer(&em);
  CHECK(ps_ring_drain(&f.r, buf, sizeof buf, &c, &n) == -EPROTO, "corrupt -> -EPROTO");
  CHECK(n.corrupt == 1 && n.lost == 5 && f.r.pc->data_tail == f.head,
        "records before the corruption are read, then the ring is skipped to head");
  fr_free(&f);

  /* corrupt: a size that runs past data_head */
  bad.n = 0;
  at = rec_begin(&bad, PERF_RECORD_SAMPLE, 0);
  put64(&bad, 0);
  rec_end(&bad, at, 200);
  fr_init(&f, 1, 0);
  fr_write_bytes(&f, &bad);
  memset(&n, 0, sizeof n);
  CHECK(ps_ring_drain(&f.r, buf, sizeof buf, &c, &n) == -EPROTO && n.corrupt == 1 &&
            f.r.pc->data_tail == f.head,
        "size past head -> -EPROTO, skipped");
  fr_free(&f);

  /* an empty ring */
  fr_init(&f, 1, 4096);
  memset(&n, 0, sizeof n);
  CHECK(ps_ring_drain(&f.r, buf, sizeof buf, &c, &n) == 0 && n.sample_records == 0, "empty");
  fr_free(&f);
}

/* The attr capture and probe open, and the sysfs reading behind it. */
static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "w");
  CHECK(fp != NULL, "create %s", path);
  if (fp) {
    fputs(text, fp);
    fclose(fp);
  }
}

static void test_pmu_and_attr(void) {
  char root[] = "/tmp/ibs-sysfs-XXXXXX";
  CHECK(mkdtemp(root) != NULL, "mkdtemp");
  char dir[600], fmt[700];
  snprintf(dir, sizeof dir, "%s/ibs_op", root);
  snprintf(fmt, sizeof fmt, "%s/format", dir);
  struct ibs_pmu pmu;
  char why[256];
  CHECK(ibs_pmu_from_sysfs(root, IBS_MAX_PERIOD, &pmu, why, sizeof why) == -ASMSPY_E_NO_HW,
        "no ibs_op dir -> NO_HW (%s)", why);
  mkdir(dir, 0755);
  mkdir(fmt, 0755);
  write_file(dir, "type", "11\n");
  write_file(fmt, "cnt_ctl", "config:19\n");
  CHECK(ibs_pmu_from_sysfs(root, IBS_MAX_PERIOD, &pmu, why, sizeof why) == 0, "6.2-era tree");
  CHECK(pmu.type == 11 && pmu.config == (1ull << 19) && pmu.config2 == 0 && !pmu.swfilt &&
            pmu.cnt_ctl && pmu.period == 0xffff0,
        "type %u config %#llx swfilt %d", pmu.type, (unsigned long long)pmu.config, pmu.swfilt);
  struct perf_event_attr a;
  ibs_attr_init(&a, &pmu);
  CHECK(a.type == 11 && a.config == (1ull << 19) && !a.exclude_kernel && !a.exclude_hv &&
            a.sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW) &&
            a.sample_period == 0xffff0 && a.disabled && a.size == sizeof a,
        "no swfilt: no exclude bit (EINVAL before 6.14)");
  write_file(fmt, "swfilt", "config2:0\n");
  CHECK(ibs_pmu_from_sysfs(root, IBS_MAX_PERIOD, &pmu, why, sizeof why) == 0, "6.14 tree");
  ibs_attr_init(&a, &pmu);
  CHECK(pmu.swfilt && a.config2 == 1 && a.exclude_kernel && a.exclude_hv,
        "swfilt: config2 bit 0 and exclude_kernel");
  write_file(fmt, "swfilt", "config9:0\n");
  CHECK(ibs_pmu_from_sysfs(root, IBS_MAX_PERIOD, &pmu, why, sizeof why) == -ASMSPY_E_NO_KERNEL,
        "unparsable swfilt -> NO_KERNEL (%s)", why);
  write_file(dir, "type", "garbage\n");
  CHECK(ibs_pmu_from_sysfs(root, IBS_MAX_PERIOD, &pmu, why, sizeof why) == -ASMSPY_E_NO_KERNEL,
        "bad type -> NO_KERNEL (%s)", why);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK(system(cmd) == 0, "cleanup");
  CHECK(IBS_MAX_PERIOD % 16 == 0 && (IBS_MAX_PERIOD >> 4) == 0xffff,
        "the window period is the 16-bit MaxCnt");
}

int main(void) {
  test_ring();
  test_decode_layouts();
  test_kernel_and_tid_filters();
  test_ring_edges();
  test_pmu_and_attr();
  return check_summary("ibs_records");
}
