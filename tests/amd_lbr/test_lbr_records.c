/* Offline test of the amd_lbr decode path: branch-stack samples built byte
 * by byte from the uapi layout (include/uapi/linux/perf_event.h: u64 nr,
 * struct perf_branch_entry[nr]; the bit-fields of its third word) and the
 * kernel's AMD semantics (arch/x86/events/amd/lbr.c: predicted = !mispred,
 * spec from the valid/spec bits, type from the TYPE_SAVE software decode),
 * packed into perf rings with LOST and THROTTLE records, through the very
 * functions run() and the in-process end() use: ps_ring_drain ->
 * lbr_emit_sample -> lbr_decode_sample, lbr_emit_provenance,
 * lbr_inproc_deliver. Also: the documented bit positions against the uapi
 * struct's own bit-fields, the attr, and inproc_begin's refusal here. */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/wait.h>

#include "plugins/amd_lbr/lbr_capture.h"
#include "plugins/amd_lbr/lbr_emit.h"
#include "plugins/amd_lbr/lbr_inproc.h"
#include "plugins/amd_lbr/lbr_record.h"
#include "tests/amd_ibs/perf_fixture.h"
#include "tests/unit/check.h"

/* perf_branch_entry's third u64, from the uapi header's bit-field order */
#define DOC_MISPRED (1ull << 0)
#define DOC_PREDICTED (1ull << 1)
#define DOC_IN_TX (1ull << 2)
#define DOC_ABORT (1ull << 3)
#define DOC_CYCLES(x) (((uint64_t)(x)&0xffffu) << 4)
#define DOC_TYPE(x) (((uint64_t)(x)&0xfu) << 20)
#define DOC_SPEC(x) (((uint64_t)(x)&0x3u) << 24)
#define DOC_NEW_TYPE(x) (((uint64_t)(x)&0xfu) << 26)
#define DOC_PRIV(x) (((uint64_t)(x)&0x7u) << 30)
/* PERF_BR_* / PERF_BR_SPEC_* values (uapi enums) */
#define DOC_BR_COND 1
#define DOC_BR_CALL 4
#define DOC_BR_IND_CALL 5
#define DOC_BR_RET 6
#define DOC_SPEC_WRONG_PATH 1
#define DOC_SPEC_NON_SPEC_CORRECT 2
/* what LbrExtV2 reports for a correctly predicted retired branch */
#define DOC_AMD_OK (DOC_PREDICTED | DOC_SPEC(DOC_SPEC_NON_SPEC_CORRECT))
#define DOC_AMD_MISP (DOC_MISPRED | DOC_SPEC(DOC_SPEC_NON_SPEC_CORRECT))

#define PID 777
#define TID 778
#define PERIOD 1000003ull

struct br {
  uint64_t from, to, flags;
};

/* PERF_RECORD_SAMPLE with IP | TID | TIME | BRANCH_STACK. nr_claimed != n
 * fakes a count the entries do not back. */
static void build_lbr(struct bytes *o, uint32_t pid, uint32_t tid, uint64_t ip, const struct br *e,
                      unsigned n, uint64_t nr_claimed) {
  size_t at = rec_begin(o, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  put64(o, ip);
  put32(o, pid);
  put32(o, tid);
  put64(o, 123456789); /* time */
  put64(o, nr_claimed);
  for (unsigned i = 0; i < n; i++) {
    put64(o, e[i].from);
    put64(o, e[i].to);
    put64(o, e[i].flags);
  }
  rec_end(o, at, -1);
}

static void expect_branch(const struct asmspy_event *ev, uint64_t from, uint64_t to, uint16_t flags,
                          const char *what) {
  CHECK(ev->type == ASMSPY_EV_BRANCH, "%s: type %u, want BRANCH", what, ev->type);
  CHECK(ev->u.branch.from == from && ev->u.branch.to == to, "%s: %#llx -> %#llx", what,
        (unsigned long long)ev->u.branch.from, (unsigned long long)ev->u.branch.to);
  CHECK(ev->ip == from, "%s: ip", what);
  CHECK(ev->flags == flags, "%s: flags %#x, want %#x", what, ev->flags, flags);
  CHECK(ev->tid == TID && ev->pid == PID, "%s: pid/tid %d/%d", what, ev->pid, ev->tid);
}

/* The documented positions are the uapi struct's: set each field through
 * the real bit-field and compare the word; decode it back. */
static void test_bitfields_match_uapi(void) {
  CHECK(sizeof(struct perf_branch_entry) == LBR_ENTRY_SIZE, "entry size %zu",
        sizeof(struct perf_branch_entry));
  struct perf_branch_entry be;
  memset(&be, 0, sizeof be);
  be.from = 0x1111;
  be.to = 0x2222;
  be.mispred = 1;
  be.predicted = 0;
  be.in_tx = 1;
  be.abort = 0;
  be.cycles = 0xbeef;
  be.type = PERF_BR_IND_CALL;
  be.spec = PERF_BR_SPEC_WRONG_PATH;
  be.new_type = 9;
  be.priv = 5;
  uint64_t word;
  memcpy(&word, (const uint8_t *)&be + 16, 8);
  uint64_t doc = DOC_MISPRED | DOC_IN_TX | DOC_CYCLES(0xbeef) | DOC_TYPE(DOC_BR_IND_CALL) |
                 DOC_SPEC(DOC_SPEC_WRONG_PATH) | DOC_NEW_TYPE(9) | DOC_PRIV(5);
  CHECK(word == doc, "uapi word %#llx, documented %#llx", (unsigned long long)word,
        (unsigned long long)doc);

  struct bytes o = {.n = 0};
  size_t at = rec_begin(&o, PERF_RECORD_SAMPLE, 0);
  put64(&o, 1);
  put32(&o, PID);
  put32(&o, TID);
  put64(&o, 2);
  put64(&o, 1);
  memcpy(o.b + o.n, &be, sizeof be); /* the kernel's own struct, as the ring holds it */
  o.n += sizeof be;
  rec_end(&o, at, -1);
  struct lbr_sample s;
  CHECK(lbr_decode_sample(o.b, o.n, &s) == LBR_OK && s.nr == 1, "decode");
  struct lbr_entry e;
  lbr_entry_at(&s, 0, &e);
  CHECK(e.from == 0x1111 && e.to == 0x2222 && e.mispred == 1 && e.predicted == 0 && e.in_tx == 1 &&
            e.abort == 0 && e.cycles == 0xbeef && e.type == PERF_BR_IND_CALL &&
            e.spec == PERF_BR_SPEC_WRONG_PATH && e.new_type == 9 && e.priv == 5,
        "fields: misp %u pred %u tx %u cycles %#x type %u spec %u new %u priv %u", e.mispred,
        e.predicted, e.in_tx, e.cycles, e.type, e.spec, e.new_type, e.priv);
  CHECK(lbr_entry_flags(&e) == doc, "lbr_entry_flags round trip");
}

static void init_emitter(struct lbr_emitter *em, struct event_log *log) {
  memset(log, 0, sizeof *log);
  lbr_emitter_init(em, log_sink, log, NULL, PID, 0, PERIOD);
}

static void test_ring(void) {
  struct bytes o = {.n = 0};
  const struct br a[] = {
      {0x401010, 0x401000, DOC_AMD_MISP | DOC_TYPE(DOC_BR_COND)}, /* newest */
      {0x401200, 0x401020, DOC_AMD_OK | DOC_TYPE(DOC_BR_RET)},
      {0x401030, 0x401200, DOC_AMD_OK | DOC_TYPE(DOC_BR_CALL)},
      {0x401040, 0x401050,
       DOC_SPEC(DOC_SPEC_WRONG_PATH) | DOC_TYPE(DOC_BR_COND)}, /* never retired */
  };
  build_lbr(&o, PID, TID, 0x401005, a, 4, 4);    /* 1: wraps the ring's end */
  rec_throttle(&o, PERF_RECORD_THROTTLE, 1);     /* 2 */
  build_lbr(&o, PID, TID, 0x401006, NULL, 0, 0); /* 3: an empty stack */
  rec_lost(&o, 9, 4);                            /* 4 */
  const struct br c[] = {
      {0xffffffff81000000ull, 0x401000, DOC_AMD_OK}, /* kernel half */
      {0x401060, 0x7f0000001000, DOC_AMD_OK | DOC_TYPE(DOC_BR_IND_CALL)},
  };
  build_lbr(&o, PID, TID, 0x401007, c, 2, 2);          /* 5 */
  build_lbr(&o, PID, TID, 0x401008, a, 1, 100);        /* 6: nr overruns */
  build_lbr(&o, PID, TID, 0x401009, a, 1, 1ull << 60); /* 7: absurd nr */
  build_lbr(&o, PID + 1, TID, 0x40100a, a, 2, 2);      /* 8: another process */
  size_t at = rec_begin(&o, PERF_RECORD_SAMPLE, 0);    /* 9: too short */
  put64(&o, 0x40100b);
  rec_end(&o, at, -1);
  const struct br f[] = {{0x401070, 0x401080, 0}}; /* 10: BRS: no prediction info, no type */
  build_lbr(&o, PID, TID, 0x40100c, f, 1, 1);
  rec_comm(&o, PID, "victim"); /* 11 */

  struct fake_ring fr;
  fr_init(&fr, 1, 8192 - 24);
  fr_write_bytes(&fr, &o);
  struct event_log log;
  struct lbr_emitter em;
  init_emitter(&em, &log);
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_consumer cons = lbr_consumer(&em);
  uint8_t buf[4096] __attribute__((aligned(8)));
  CHECK(ps_ring_drain(&fr.r, buf, sizeof buf, &cons, &n) == 0, "drain");
  CHECK(fr.r.pc->data_tail == fr.head, "ring consumed");
  lbr_emit_provenance(&em, &n, 300000000);

  CHECK(n.sample_records == 8 && n.lost == 4 && n.throttled == 1 && n.other_records == 1,
        "ring counts: samples %llu lost %llu throttled %llu other %llu",
        (unsigned long long)n.sample_records, (unsigned long long)n.lost,
        (unsigned long long)n.throttled, (unsigned long long)n.other_records);
  const uint16_t S = ASMSPY_EVF_SAMPLED, T = ASMSPY_EVF_BR_TAKEN;
  CHECK(log.n == 11, "%zu events, want 10 + PROVENANCE", log.n);
  if (log.n == 11) {
    CHECK(log.ev[0].type == ASMSPY_EV_SAMPLE && log.ev[0].ip == 0x401005 &&
              log.ev[0].u.sample.period == PERIOD && log.ev[0].u.sample.weight == 1 &&
              log.ev[0].flags == S,
          "sample 1's ip");
    expect_branch(&log.ev[1], 0x401010, 0x401000, S | T | ASMSPY_EVF_BR_MISP, "mispredicted jcc");
    expect_branch(&log.ev[2], 0x401200, 0x401020, S | T | ASMSPY_EVF_BR_RET, "return");
    expect_branch(&log.ev[3], 0x401030, 0x401200, S | T | ASMSPY_EVF_BR_CALL, "call");
    CHECK(log.ev[4].type == ASMSPY_EV_SAMPLE && log.ev[4].ip == 0x401006, "empty stack's sample");
    CHECK(log.ev[5].type == ASMSPY_EV_LOST && log.ev[5].u.lost.count == 4, "LOST 4");
    CHECK(log.ev[6].type == ASMSPY_EV_SAMPLE && log.ev[6].ip == 0x401007, "sample 5");
    expect_branch(&log.ev[7], 0x401060, 0x7f0000001000, S | T | ASMSPY_EVF_BR_CALL,
                  "indirect call");
    CHECK(log.ev[8].type == ASMSPY_EV_SAMPLE && log.ev[8].ip == 0x40100c, "BRS sample");
    expect_branch(&log.ev[9], 0x401070, 0x401080, S | T, "BRS entry: no prediction info");
    const struct asmspy_event *p = &log.ev[10];
    CHECK(p->type == ASMSPY_EV_PROVENANCE && p->u.prov.samples == 6 &&
              p->u.prov.branch_samples == 3 && p->u.prov.lost == 4 && p->u.prov.throttled == 1 &&
              p->u.prov.window_ns == 300000000 && p->u.prov.sampler &&
              strcmp(p->u.prov.sampler, "lbr") == 0,
          "provenance: samples %llu branch %llu lost %llu throttled %llu",
          (unsigned long long)p->u.prov.samples, (unsigned long long)p->u.prov.branch_samples,
          (unsigned long long)p->u.prov.lost, (unsigned long long)p->u.prov.throttled);
    for (size_t i = 0; i < log.n; i++) CHECK(log.ev[i].seq == i, "seq of event %zu", i);
  }
  CHECK(log_count(&log, ASMSPY_EV_PROVENANCE) == 1, "one PROVENANCE");
  CHECK(em.t.branches == 5 && em.t.wrong_path == 1 && em.t.kernel == 1 && em.t.empty == 1 &&
            em.t.foreign == 1 && em.t.verdict[LBR_STACK_OVERRUN] == 2 &&
            em.t.verdict[LBR_BAD_RECORD] == 1,
        "tally: branches %llu wrong %llu kernel %llu empty %llu foreign %llu overrun %llu bad %llu",
        (unsigned long long)em.t.branches, (unsigned long long)em.t.wrong_path,
        (unsigned long long)em.t.kernel, (unsigned long long)em.t.empty,
        (unsigned long long)em.t.foreign, (unsigned long long)em.t.verdict[LBR_STACK_OVERRUN],
        (unsigned long long)em.t.verdict[LBR_BAD_RECORD]);
  char text[256];
  lbr_dropped_text(&em.t, text, sizeof text);
  CHECK(strcmp(text, "1 wrong-path, 1 kernel, 1 bad-record, 2 stack-overrun") == 0,
        "dropped text \"%s\"", text);
  fr_free(&fr);
}

/* The filters scopes use: a region, the plugin's own text, a cap. */
static void test_filters_and_inproc_delivery(void) {
  const struct br stack[] = {
      {0x500010, 0x500000, DOC_AMD_OK},                        /* in the region */
      {0x600010, 0x500000, DOC_AMD_OK},                        /* outside: from elsewhere */
      {0x700010, 0x700020, DOC_AMD_OK},                        /* the plugin's own text */
      {0x500020, 0x500030, DOC_AMD_MISP},                      /* in the region */
      {0x500040, 0x500050, DOC_AMD_OK | DOC_TYPE(DOC_BR_RET)}, /* in the region: over the cap */
  };
  struct bytes o = {.n = 0};
  build_lbr(&o, PID, TID, 0x500000, stack, 5, 5);
  rec_lost(&o, 1, 12);
  build_lbr(&o, PID, TID + 5, 0x500000, stack, 1, 1); /* another thread: not the scope's */

  struct fake_ring fr;
  fr_init(&fr, 2, 0);
  fr_write_bytes(&fr, &o);
  struct lbr_inproc_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.ring = fr.r;
  cap.pid = PID;
  cap.tid = TID;
  cap.period = 50021;
  cap.region_start = 0x500000;
  cap.region_len = 0x1000;
  cap.max_branches = 2;
  cap.skip_lo = 0x700000;
  cap.skip_hi = 0x701000;
  cap.window_ns = 4242;
  struct event_log log;
  memset(&log, 0, sizeof log);
  CHECK(lbr_inproc_deliver(&cap, log_sink, &log) == 0, "deliver");
  CHECK(log.n == 5, "%zu events: 2 BRANCH, LOST, NOTE, PROVENANCE", log.n);
  if (log.n == 5) {
    expect_branch(&log.ev[0], 0x500010, 0x500000, ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_TAKEN,
                  "scope branch 1");
    CHECK(log.ev[0].target == NULL, "in-process events carry no target");
    expect_branch(&log.ev[1], 0x500020, 0x500030,
                  ASMSPY_EVF_SAMPLED | ASMSPY_EVF_BR_TAKEN | ASMSPY_EVF_BR_MISP, "scope branch 2");
    CHECK(log.ev[2].type == ASMSPY_EV_LOST && log.ev[2].u.lost.count == 12, "LOST");
    CHECK(log.ev[3].type == ASMSPY_EV_NOTE && strncmp(log.note[3], "truncated: ", 11) == 0 &&
              strstr(log.note[3], "12 branch-stack samples lost") &&
              strstr(log.note[3], "1 branches past the 2-branch cap"),
          "truncated note: \"%s\"", log.note[3]);
    CHECK(log.ev[4].type == ASMSPY_EV_PROVENANCE && log.ev[4].u.prov.samples == 1 &&
              log.ev[4].u.prov.branch_samples == 1 && log.ev[4].u.prov.lost == 12 &&
              log.ev[4].u.prov.window_ns == 4242,
          "scope provenance: samples %llu", (unsigned long long)log.ev[4].u.prov.samples);
  }
  CHECK(log_count(&log, ASMSPY_EV_SAMPLE) == 0, "scopes get edges, not cycle IPs");
  fr_free(&fr);

  /* a clean scope: no note */
  o.n = 0;
  build_lbr(&o, PID, TID, 0x500000, stack, 1, 1);
  fr_init(&fr, 1, 0);
  fr_write_bytes(&fr, &o);
  cap.ring = fr.r;
  cap.max_branches = 0;
  memset(&log, 0, sizeof log);
  lbr_inproc_deliver(&cap, log_sink, &log);
  CHECK(log.n == 2 && log.ev[0].type == ASMSPY_EV_BRANCH &&
            log.ev[1].type == ASMSPY_EV_PROVENANCE && log_count(&log, ASMSPY_EV_NOTE) == 0,
        "clean scope: BRANCH + PROVENANCE only (%zu events)", log.n);
  fr_free(&fr);

  /* the sink stops the walk: no more BRANCH events after it said so */
  o.n = 0;
  build_lbr(&o, PID, TID, 0x500000, stack, 5, 5);
  fr_init(&fr, 1, 0);
  fr_write_bytes(&fr, &o);
  struct lbr_emitter em;
  init_emitter(&em, &log);
  log.stop_after = 2;
  struct ps_counts n;
  memset(&n, 0, sizeof n);
  struct ps_consumer cons = lbr_consumer(&em);
  uint8_t buf[4096] __attribute__((aligned(8)));
  CHECK(ps_ring_drain(&fr.r, buf, sizeof buf, &cons, &n) == 1 && log.n == 2,
        "stop after SAMPLE + 1 BRANCH: %zu events", log.n);
  fr_free(&fr);
}

static void test_attr_and_pmu(void) {
  struct lbr_pmu pmu;
  memset(&pmu, 0, sizeof pmu);
  pmu.type = PERF_TYPE_HARDWARE;
  pmu.config = PERF_COUNT_HW_CPU_CYCLES;
  pmu.period = LBR_PERIOD_CYCLES;
  pmu.branch_sample_type =
      PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_TYPE_SAVE;
  struct perf_event_attr a;
  lbr_attr_init(&a, &pmu);
  CHECK(a.sample_type ==
                (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK) &&
            a.exclude_kernel && a.exclude_hv && a.disabled && !a.freq &&
            a.sample_period == LBR_PERIOD_CYCLES && a.branch_sample_type == pmu.branch_sample_type,
        "LbrExtV2 attr");

  char root[] = "/tmp/lbr-sysfs-XXXXXX";
  CHECK(mkdtemp(root) != NULL, "mkdtemp");
  char why[256];
  CHECK(lbr_pmu_from_sysfs(root, 1, 2, &pmu, why, sizeof why) == -ASMSPY_E_NO_HW,
        "no cpu/caps/branches -> NO_HW: %s", why);
  char dir[600], path[700];
  snprintf(dir, sizeof dir, "%s/cpu", root);
  mkdir(dir, 0755);
  snprintf(dir, sizeof dir, "%s/cpu/caps", root);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/branches", dir);
  FILE *f = fopen(path, "w");
  fputs("16\n", f);
  fclose(f);
  CHECK(lbr_pmu_from_sysfs(root, 1000003, 100003, &pmu, why, sizeof why) == 0, "depth 16");
  CHECK(pmu.depth == 16, "depth %lld", pmu.depth);
  if (pmu.brs) /* a Zen 3 host: BRS has its own rules */
    CHECK(pmu.type == PERF_TYPE_RAW && pmu.config == 0xc4 && pmu.period == 100003 &&
              pmu.branch_sample_type == (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY),
          "BRS: raw 0xc4, type ANY only");
  else
    CHECK(pmu.type == PERF_TYPE_HARDWARE && pmu.config == PERF_COUNT_HW_CPU_CYCLES &&
              pmu.period == 1000003 && (pmu.branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE),
          "LbrExtV2: cycles with TYPE_SAVE");
  f = fopen(path, "w");
  fputs("0\n", f);
  fclose(f);
  CHECK(lbr_pmu_from_sysfs(root, 1, 2, &pmu, why, sizeof why) == -ASMSPY_E_NO_HW, "depth 0");
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK(system(cmd) == 0, "cleanup");
}

static int loop_sink(void *ctx, const struct asmspy_event *ev) { return log_sink(ctx, ev); }

/* inproc_begin for real: here it must refuse with nothing armed; on a host
 * with branch stacks it must deliver this thread's branches. */
static void test_inproc_begin_here(void) {
  struct asmspy_inproc_req req;
  memset(&req, 0, sizeof req);
  ASMSPY_INIT_HEADER(&req);
  req.max_insns = 1u << 20;
  void *h = (void *)1;
  int rc = lbr_inproc_begin(NULL, &req, &h);
  if (rc < 0) {
    CHECK(h == NULL, "a refused begin leaves no handle");
    CHECK(rc == -ASMSPY_E_NO_HW || rc == -ASMSPY_E_NO_KERNEL || rc == -ASMSPY_E_PERM ||
              rc == -ASMSPY_E_VIRT,
          "refusal is an UNAVAILABLE status: %d", rc);
    fprintf(stderr, "inproc_begin refused here (%d): no branch stack on this machine\n", rc);
    return;
  }
  volatile unsigned long acc = 0;
  for (unsigned long i = 0; i < 20000000ul; i++) acc += i & 1 ? i : 1;
  struct event_log *log = calloc(1, sizeof *log);
  CHECK(lbr_inproc_end(h, loop_sink, log) == 0, "end");
  /* the loop lives in this test binary, which also holds lbr_inproc.c: its
   * branches fall in the "own text" range end() drops, so count samples */
  const struct asmspy_event *p = log_last(log, ASMSPY_EV_PROVENANCE);
  CHECK(log_count(log, ASMSPY_EV_PROVENANCE) == 1 && p && p->u.prov.samples > 0,
        "a live scope is sampled: %zu events", log->n);
  free(log);
}

/* lbr_capture() on a live target with the one thing this machine lacks:
 * a branch stack. A software event stands in for cycles; the kernel's
 * answer (perf_swevent_init: has_branch_stack -> EOPNOTSUPP) must come back
 * as "no hardware", noted with the errno, with no event emitted. */
static void test_capture_refused_here(void) {
  pid_t pid = fork();
  if (pid == 0) {
    for (;;) pause();
  }
  struct asmspy_host_api host;
  fake_host_init(&host);
  fake_nnotes = 0;
  struct lbr_pmu pmu;
  memset(&pmu, 0, sizeof pmu);
  pmu.event = "task-clock (software stand-in)";
  pmu.type = PERF_TYPE_SOFTWARE;
  pmu.config = PERF_COUNT_SW_TASK_CLOCK;
  pmu.period = 100000;
  pmu.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
  struct event_log log;
  memset(&log, 0, sizeof log);
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "sample";
  s.pid = pid;
  s.sink = log_sink;
  s.sink_ctx = &log;
  s.window_ms = 50;
  int rc = lbr_capture(&host, &s, &pmu);
  CHECK(rc == -ASMSPY_E_NO_HW, "rc %d, want -ASMSPY_E_NO_HW", rc);
  CHECK(fake_noted("EOPNOTSUPP") && fake_noted("with a branch stack"), "noted with the errno");
  CHECK(log.n == 0, "nothing emitted (%zu events)", log.n);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

int main(void) {
  test_bitfields_match_uapi();
  test_ring();
  test_filters_and_inproc_delivery();
  test_attr_and_pmu();
  test_inproc_begin_here();
  test_capture_refused_here();
  return check_summary("lbr_records");
}
