/* test_hwwatch — the hwwatch backend's arming and decoding, offline.
 *
 * Debug registers never fire on this project's machines (the probe says so),
 * so the capture path is driven by a scripted seam (fake_seam.c): the real
 * run loop, arch ops and encoders (linked from plugins/hwwatch) arm every
 * thread through poke_user / set_regset, get SIGTRAP stops with DR6 bits
 * set, read a fake watched variable and fake code, and must:
 *   - write DR0 = address then DR7 = L0|RW|LEN in every thread, including one
 *     that appears through a NEW_TASK stop; pick a free slot and keep others;
 *   - report WATCH_HIT with the toucher (the instruction BEFORE rip, found by
 *     decoding the real x86 bytes of the fake function), tid, old -> new;
 *   - deliver SIGTRAPs that are not ours and other signals;
 *   - stop at n hits; disarm every thread (stopping running ones first)
 *     before detach, swallowing a hit that arrives during the disarm;
 *   - AArch64: arm via NT_ARM_HW_WATCH, step over each hit with the
 *     watchpoint off, re-arm;
 *   - the pure encoders: DR7 / DR6 and the user_hwdebug_state contents;
 *   - the watch view (dlopened): argument checks, the hit line
 *     `[tid] function+off [module]  disasm   old -> new`, and --json records
 *     that the recording validator accepts.
 * Standalone: exit 0 when every check passes. */
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "fake_seam.h"
#include "host/recording.h"

/* ------------------------------------------------------- fake host -- */

#define CODE_BASE 0x401000ull
#define DATA_ADDR 0x601010ull
#define ARM_CODE 0x402000ull

/* writer():  push rbp; mov rbp,rsp; mov dword [rip+0x1ff6],42; pop rbp; ret */
static const uint8_t writer_code[] = {0x55, 0x48, 0x89, 0xe5, 0xc7, 0x05, 0xf6, 0x1f,
                                      0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x5d, 0xc3};
#define TOUCHER (CODE_BASE + 4) /* the mov */
#define AFTER (CODE_BASE + 14)  /* rip at the trap: pop rbp */

static struct asmspy_target *fake_target = (struct asmspy_target *)&fs;

static ssize_t h_read_mem(struct asmspy_target *t, uint64_t addr, void *buf, size_t len) {
  (void)t;
  static uint8_t code[64];
  memset(code, 0x90, sizeof code);
  memcpy(code, writer_code, sizeof writer_code);
  if (addr >= CODE_BASE && addr + len <= CODE_BASE + sizeof code) {
    memcpy(buf, code + (addr - CODE_BASE), len);
    return (ssize_t)len;
  }
  if (addr >= DATA_ADDR && addr + len <= DATA_ADDR + 8) {
    uint8_t v[8];
    for (int i = 0; i < 8; i++) v[i] = (uint8_t)(fs.mem >> (8 * i));
    memcpy(buf, v + (addr - DATA_ADDR), len);
    return (ssize_t)len;
  }
  return -EFAULT;
}

static int h_symbolize(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out) {
  (void)t;
  out->name = NULL;
  out->module = "?";
  out->kind = ASMSPY_SYM_UNKNOWN;
  if (addr >= CODE_BASE && addr < CODE_BASE + sizeof writer_code) {
    out->name = "writer";
    out->module = "victim";
    out->start = CODE_BASE;
    out->size = sizeof writer_code;
    out->offset = addr - CODE_BASE;
    out->kind = ASMSPY_SYM_INTERNAL;
  }
  return 0;
}

static int warns;
static void h_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (level == ASMSPY_NOTE_WARN) warns++;
  if (getenv("HWWATCH_TEST_VERBOSE")) fprintf(stderr, "note[%d]: %s\n", level, buf);
}

static struct asmspy_host_api host;

static void host_init(void) {
  const struct asmspy_host_api *real = asmspy_host_api();
  memset(&host, 0, sizeof host);
  ASMSPY_INIT_HEADER(&host);
  host.note = h_note;
  host.read_mem = h_read_mem;
  host.symbolize = h_symbolize;
  host.disasm = real->disasm; /* the real Capstone decoder */
  host.json_escape = real->json_escape;
  host.parse_options = real->parse_options; /* the views parse their options with it */
  host.seam = &fake_seam_api;
}

/* ------------------------------------------------------------- sink -- */

static struct asmspy_event events[32];
static size_t nevents;
static volatile int stop_flag;
static int raise_stop_at_hit; /* Ctrl-C simulation: raise the stop flag at hit k */

static int sink(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  if (nevents < 32) events[nevents++] = *ev;
  if (raise_stop_at_hit && (int)nevents == raise_stop_at_hit) stop_flag = 1;
  return 0; /* never asks to stop: n must be enforced by the backend */
}

static struct asmspy_session session(uint64_t addr, unsigned len, unsigned access, int64_t max) {
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "watch";
  s.pid = 100;
  s.max = max;
  s.stop = &stop_flag;
  s.target = fake_target;
  s.sink = sink;
  s.watch_addr = addr;
  s.watch_len = len;
  s.watch_access = access;
  return s;
}

static void reset(void) {
  fs_reset();
  nevents = 0;
  warns = 0;
  stop_flag = 0;
  raise_stop_at_hit = 0;
}

#define Q(k, t) ((struct fs_entry){.kind = (k), .tid = (t), .queued = 1})
#define HIT(t, dr6v, memv, ipv)                                                                    \
  ((struct fs_entry){.kind = ASMSPY_STOP_SIGNAL,                                                   \
                     .tid = (t),                                                                   \
                     .sig = SIGTRAP,                                                               \
                     .si_code = 4,                                                                 \
                     .set_dr6 = 1,                                                                 \
                     .dr6 = (dr6v),                                                                \
                     .set_mem = 1,                                                                 \
                     .mem = (memv),                                                                \
                     .set_ip = 1,                                                                  \
                     .ip = (ipv)})

static uint64_t dro(unsigned i) { return HW_X86_DEBUGREG_OFFSET + 8u * i; }

/* Index of the first log entry poking `off` in tid (from index `from`), or -1. */
static int find_poke(pid_t tid, uint64_t off, uint64_t val, size_t from) {
  for (size_t i = from; i < fs.nlog; i++)
    if (fs.log[i].what == 'p' && fs.log[i].tid == tid && fs.log[i].off == off &&
        fs.log[i].val == val)
      return (int)i;
  return -1;
}

static int resume_sig_of(pid_t tid, size_t nth) {
  size_t k = 0;
  for (size_t i = 0; i < fs.nlog; i++)
    if (fs.log[i].what == 'r' && fs.log[i].tid == tid && k++ == nth) return (int)fs.log[i].val;
  return -2;
}

/* ------------------------------------------------------------- tests -- */

static void test_x86_encoding(void) {
  int bad = 0;
  CHECK(hw_x86_len_bits(1) == 0 && hw_x86_len_bits(2) == 1 && hw_x86_len_bits(4) == 3 &&
            hw_x86_len_bits(8) == 2 && hw_x86_len_bits(3) == -1,
        "LEN encodings 00/01/11/10");
  CHECK(hw_x86_dr7_arm(0, 0, HW_X86_RW_WRITE, 4, &bad) == 0xd0001 && !bad, "slot0 w4");
  CHECK(hw_x86_dr7_arm(0, 0, HW_X86_RW_RDWR, 8, &bad) == 0xb0001, "slot0 rw8");
  CHECK(hw_x86_dr7_arm(0, 3, HW_X86_RW_WRITE, 1, &bad) == (0x40ull | (0x1ull << 28)),
        "slot3 w1 = L3 | RW3=01 LEN3=00");
  CHECK(hw_x86_dr7_arm(0, 1, HW_X86_RW_WRITE, 2, &bad) == (0x4ull | (0x5ull << 20)), "slot1 w2");
  (void)hw_x86_dr7_arm(0, 0, 2, 4, &bad);
  CHECK(bad, "R/W=10 (I/O) refused");
  (void)hw_x86_dr7_arm(0, 4, HW_X86_RW_WRITE, 4, &bad);
  CHECK(bad, "slot 4 refused");
  (void)hw_x86_dr7_arm(0, 0, HW_X86_RW_WRITE, 3, &bad);
  CHECK(bad, "len 3 refused");
  uint64_t two = hw_x86_dr7_arm(0xd0001, 1, HW_X86_RW_WRITE, 4, &bad);
  CHECK(two == (0xd0001ull | 0x4 | (0xdull << 20)), "slot1 added, slot0 kept: %#llx",
        (unsigned long long)two);
  CHECK(hw_x86_dr7_disarm(two, 1) == 0xd0001, "disarm slot1 keeps slot0");
  CHECK(hw_x86_dr7_disarm(two, 0) == (0x4 | (0xdull << 20)), "disarm slot0 keeps slot1");
  CHECK(hw_x86_free_slot(0) == 0 && hw_x86_free_slot(0x1) == 1 && hw_x86_free_slot(0x2) == 1 &&
            hw_x86_free_slot(0x55) == -1 && hw_x86_free_slot(0x5) == 2,
        "free slot by L/G bits");
  CHECK(hw_x86_dr6_fired(0xffff0ff1) == 1 && hw_x86_dr6_fired(0x4008) == 8, "DR6 B0-B3");
  CHECK(hw_x86_dr6_single_step(0x4000) && !hw_x86_dr6_single_step(0x1), "DR6 BS");
  CHECK(hw_x86_aligned(0x1000, 8) && !hw_x86_aligned(0x1004, 8) && hw_x86_aligned(0x1003, 1) &&
            !hw_x86_aligned(0x1001, 2) && !hw_x86_aligned(0x1000, 3),
        "natural alignment");
  CHECK(hw_x86_dr_offset(0) == 848 && hw_x86_dr_offset(6) == 896 && hw_x86_dr_offset(7) == 904,
        "u_debugreg offsets (HARDWARE.md: DR0=848, DR6=896, DR7=904)");
}

static void test_arm64_encoding(void) {
  uint64_t wvr = 0;
  uint32_t wcr = 0;
  CHECK(hw_arm64_encode(0x601000, 4, ASMSPY_WATCH_WRITE, &wvr, &wcr) == 0, "encode");
  /* E=1, PAC=EL0 (10), LSC=store (10), BAS=0x0f */
  CHECK(wvr == 0x601000 && wcr == ((0x0fu << 5) | (2u << 3) | (2u << 1) | 1u),
        "w4 aligned: wcr %#x", wcr);
  CHECK(hw_arm64_encode(0x601004, 4, ASMSPY_WATCH_WRITE, &wvr, &wcr) == 0 && wvr == 0x601000 &&
            wcr == 0x1e15,
        "w4 at +4: aligned-down address, BAS 0xf0: wvr %#llx wcr %#x", (unsigned long long)wvr,
        wcr);
  CHECK(hw_arm64_encode(0x601007, 1, ASMSPY_WATCH_READ, &wvr, &wcr) == 0 &&
            wcr == ((0x80u << 5) | (1u << 3) | (2u << 1) | 1u),
        "r1 at +7: LSC load, BAS 0x80: %#x", wcr);
  CHECK(hw_arm64_encode(0x601000, 8, ASMSPY_WATCH_READ | ASMSPY_WATCH_WRITE, &wvr, &wcr) == 0 &&
            wcr == ((0xffu << 5) | (3u << 3) | (2u << 1) | 1u),
        "rw8: LSC 11, BAS 0xff: %#x", wcr);
  CHECK(hw_arm64_encode(0x601006, 4, ASMSPY_WATCH_WRITE, &wvr, &wcr) != 0,
        "4 bytes at +6 straddle a doubleword");
  CHECK(hw_arm64_encode(0x601000, 3, ASMSPY_WATCH_WRITE, &wvr, &wcr) != 0, "len 3 refused");
  CHECK(hw_arm64_encode(0x601000, 4, 0, &wvr, &wcr) != 0, "no access refused");
  unsigned e, pac, lsc, bas;
  hw_arm64_decode(0x1e15, &e, &pac, &lsc, &bas);
  CHECK(e == 1 && pac == 2 && lsc == 2 && bas == 0xf0, "decode round trip");
  CHECK(hw_arm64_slots(0x0604) == 4 && hw_arm64_debug_arch(0x0604) == 6, "dbg_info fields");
  CHECK(hw_arm64_slots(0x06ff) == HW_ARM64_MAX_SLOTS, "slots capped at 16");
  CHECK(hw_arm64_regset_len(4) == 8 + 4 * 16 && sizeof(struct hw_arm64_hwdebug) == 8 + 16 * 16,
        "user_hwdebug_state: 8-byte header, 16-byte {addr, ctrl, pad} slots");
  CHECK(offsetof(struct hw_arm64_hwdebug, dbg_regs[1].ctrl) == 8 + 16 + 8, "slot 1 ctrl offset");
}

/* Two threads at attach, a third born through NEW_TASK; hits in all three;
 * a foreign SIGTRAP and a SIGUSR1 delivered; n = 3 ends it with one more
 * hit still in flight (caught during the disarm). */
static void test_x86_threads(void) {
  reset();
  fs_add_task(100, 1);
  fs_add_task(101, 1);
  fs.mem = 41;
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  fs_push(Q(ASMSPY_STOP_GROUP, 101));
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_NEW_TASK, .tid = 100, .new_tid = 102});
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_GROUP, .tid = 102});
  fs_push(HIT(101, 0xffff0ff1, 42, AFTER));
  fs_push(HIT(102, 0xffff0ff1, 43, AFTER));
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_SIGNAL,
                            .tid = 100,
                            .sig = SIGTRAP,
                            .si_code = 1,
                            .set_dr6 = 1,
                            .dr6 = 0xffff0ff0}); /* an int3-ish trap */
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_SIGNAL, .tid = 100, .sig = SIGUSR1});
  fs_push(HIT(100, 0xffff0ff1, 44, AFTER));
  fs_push(HIT(101, 0xffff0ff1, 45, AFTER)); /* in flight when n is reached */

  struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, 3);
  int rc = hw_run_with(&host, &s, &hw_x86_ops);
  CHECK(rc == 0, "run returned %d", rc);
  CHECK(fs.violations == 0, "seam rules broken %d times: %s", fs.violations, fs.violation);
  for (pid_t tid = 100; tid <= 102; tid++) {
    int a = find_poke(tid, dro(0), DATA_ADDR, 0);
    int c = a >= 0 ? find_poke(tid, dro(7), 0xd0001, (size_t)a) : -1;
    CHECK(a >= 0 && c > a, "tid %d: DR0=addr then DR7=0xd0001 (at %d, %d)", (int)tid, a, c);
  }
  int newtask_armed = find_poke(102, dro(7), 0xd0001, 0);
  CHECK(newtask_armed >= 0, "the NEW_TASK thread was armed");
  CHECK(nevents == 3, "3 hits reported (n = 3), got %zu", nevents);
  const pid_t want_tid[3] = {101, 102, 100};
  for (size_t i = 0; i < nevents && i < 3; i++) {
    const struct asmspy_event *ev = &events[i];
    CHECK(ev->type == ASMSPY_EV_WATCH_HIT && ev->tid == want_tid[i], "hit %zu tid %d", i,
          (int)ev->tid);
    CHECK(ev->ip == TOUCHER, "hit %zu: toucher %#llx (want the mov at %#llx, not rip %#llx)", i,
          (unsigned long long)ev->ip, (unsigned long long)TOUCHER, (unsigned long long)AFTER);
    CHECK(ev->u.watch.old_value == 41 + i && ev->u.watch.new_value == 42 + i,
          "hit %zu: %llu -> %llu", i, (unsigned long long)ev->u.watch.old_value,
          (unsigned long long)ev->u.watch.new_value);
    CHECK(ev->u.watch.addr == DATA_ADDR && ev->u.watch.len == 4 && ev->u.watch.slot == 0,
          "hit %zu fields", i);
    CHECK(!(ev->flags & ASMSPY_EVF_WATCH_READ), "a write watch never flags reads");
  }
  /* DR6 acknowledged at the hit, before the thread runs again */
  int hit_stop = -1, ack = -1, resumed = -1, stops = 0;
  for (size_t i = 0; i < fs.nlog; i++) {
    const struct fs_log *l = &fs.log[i];
    if (l->tid != 101) continue;
    if (hit_stop < 0 && l->what == 'S' && ++stops == 2) /* 1: the attach stop, 2: the hit */
      hit_stop = (int)i;
    else if (hit_stop >= 0 && ack < 0 && l->what == 'p' && l->off == dro(6) && l->val == 0)
      ack = (int)i;
    else if (hit_stop >= 0 && resumed < 0 && l->what == 'r')
      resumed = (int)i;
  }
  CHECK(hit_stop >= 0 && ack > hit_stop && resumed > ack,
        "DR6 cleared in 101 between its hit (%d) and its resume (%d): %d", hit_stop, resumed, ack);
  /* tid 100: resumes are: queued GROUP (0), NEW_TASK (0), foreign SIGTRAP, SIGUSR1 */
  CHECK(resume_sig_of(100, 0) == 0 && resume_sig_of(100, 1) == 0, "100 resumed without signal");
  CHECK(resume_sig_of(100, 2) == SIGTRAP, "a SIGTRAP that is not ours is delivered (%d)",
        resume_sig_of(100, 2));
  CHECK(resume_sig_of(100, 3) == SIGUSR1, "SIGUSR1 delivered (%d)", resume_sig_of(100, 3));
  CHECK(resume_sig_of(101, 1) == 0, "our hit is swallowed (%d)", resume_sig_of(101, 1));
  /* the hit in flight during the disarm: swallowed, not handed to the target */
  CHECK(fs.next == fs.nscript, "the in-flight hit was consumed by the disarm");
  CHECK(resume_sig_of(101, 2) == 0, "in-flight hit resumed without SIGTRAP (%d)",
        resume_sig_of(101, 2));
  CHECK(fs.detached == 1 && fs.armed_at_detach == 0, "detached once with nothing armed (%d)",
        fs.armed_at_detach);
  for (pid_t tid = 100; tid <= 102; tid++) {
    struct fs_task *t = fs_task(tid);
    CHECK(t && t->dr[7] == 0 && t->dr[0] == 0, "tid %d disarmed: DR7=%#llx DR0=%#llx", (int)tid,
          t ? (unsigned long long)t->dr[7] : 0ull, t ? (unsigned long long)t->dr[0] : 0ull);
  }
}

/* Slot 0 taken in the thread: slot 1 is used, slot 0 survives; a DR6 B0 is
 * not our hit; --rw with an unchanged value flags a read. */
static void test_x86_slot_and_rw(void) {
  reset();
  struct fs_task *t = fs_add_task(100, 1);
  t->dr[0] = 0x7000;
  t->dr[7] = 0x1 | (0x1ull << 16); /* someone's execute... slot 0, L0 */
  fs.mem = 5;
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  fs_push(HIT(100, 0x1, 5, AFTER)); /* B0: the other slot */
  fs_push(HIT(100, 0x2, 5, AFTER)); /* B1: ours, value unchanged -> read */
  struct asmspy_session s = session(DATA_ADDR, 8, ASMSPY_WATCH_WRITE | ASMSPY_WATCH_READ, 1);
  int rc = hw_run_with(&host, &s, &hw_x86_ops);
  CHECK(rc == 0, "run %d", rc);
  CHECK(fs.violations == 0, "%s", fs.violation);
  uint64_t want7 = 0x1 | (0x1ull << 16) | (0x1ull << 2) | (0xbull << 20);
  CHECK(find_poke(100, dro(1), DATA_ADDR, 0) >= 0 && find_poke(100, dro(7), want7, 0) >= 0,
        "slot 1 armed RW=11 LEN=10 with slot 0 kept (DR7 %#llx)", (unsigned long long)want7);
  CHECK(resume_sig_of(100, 1) == SIGTRAP, "B0 trap delivered to the target");
  CHECK(nevents == 1 && events[0].u.watch.slot == 1 && (events[0].flags & ASMSPY_EVF_WATCH_READ),
        "one hit on slot 1 flagged read");
  CHECK(t->dr[7] == (0x1 | (0x1ull << 16)) && t->dr[0] == 0x7000 && t->dr[1] == 0,
        "disarm left slot 0 alone: DR7 %#llx", (unsigned long long)t->dr[7]);
}

/* The toucher cannot be found when rip is a function's first instruction
 * (a call's push): the hit is reported at rip, with a warning. */
static void test_x86_toucher_fallback(void) {
  reset();
  fs_add_task(100, 1);
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  fs_push(HIT(100, 1, 7, CODE_BASE));
  fs_push(HIT(100, 1, 8, 0x500000)); /* no symbol */
  struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, 2);
  CHECK(hw_run_with(&host, &s, &hw_x86_ops) == 0, "run");
  CHECK(nevents == 2 && events[0].ip == CODE_BASE && events[1].ip == 0x500000,
        "rip reported when the instruction before it is unknown");
  CHECK(warns == 1, "warned once (%d)", warns);
}

/* Ctrl-C (the stop flag) in the middle: the disarm still waits for the
 * running thread, through the session copy the backend attached with. */
static void test_x86_interrupted(void) {
  reset();
  fs_add_task(100, 1);
  fs_add_task(101, 1);
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  fs_push(Q(ASMSPY_STOP_GROUP, 101));
  fs_push(HIT(100, 1, 1, AFTER));
  raise_stop_at_hit = 1;
  struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, -1);
  int rc = hw_run_with(&host, &s, &hw_x86_ops);
  CHECK(rc == 0, "interrupted run %d", rc);
  CHECK(fs.violations == 0, "%s", fs.violation);
  CHECK(fs.armed_at_detach == 0, "both threads disarmed after Ctrl-C (%d armed)",
        fs.armed_at_detach);
}

/* The target goes away: a fact, not a failure. */
static void test_target_exits(void) {
  reset();
  fs_add_task(100, 1);
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_EXITED, .tid = 100});
  struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, 5);
  int rc = hw_run_with(&host, &s, &hw_x86_ops);
  CHECK(rc == ASMSPY_FACT_EXITED, "exit is ASMSPY_FACT_EXITED (%d)", rc);
  CHECK(fs.detached == 1 && fs.violations == 0, "detached cleanly: %s", fs.violation);
}

/* The kernel refuses DR7: an error status, nothing left armed. */
static void test_refused(void) {
  reset();
  fs_add_task(100, 1);
  fs.refuse_dr7 = -EINVAL;
  fs_push(Q(ASMSPY_STOP_GROUP, 100));
  struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, 5);
  int rc = hw_run_with(&host, &s, &hw_x86_ops);
  CHECK(rc == -ASMSPY_E_NO_KERNEL, "refused DR7 -> NO_KERNEL (%d)", rc);
  CHECK(fs.detached == 1 && fs.armed_at_detach == 0 && fs_task(100)->dr[0] == 0,
        "detached, DR0 put back");
}

/* Bad sessions never attach. */
static void test_validation(void) {
  reset();
  fs_add_task(100, 1);
  struct asmspy_session s = session(DATA_ADDR + 2, 4, ASMSPY_WATCH_WRITE, 1);
  CHECK(hw_run_with(&host, &s, &hw_x86_ops) == -ASMSPY_E_USAGE, "misaligned refused");
  s = session(DATA_ADDR, 3, ASMSPY_WATCH_WRITE, 1);
  CHECK(hw_run_with(&host, &s, &hw_x86_ops) == -ASMSPY_E_USAGE, "len 3 refused");
  s = session(DATA_ADDR, 4, ASMSPY_WATCH_READ, 1);
  CHECK(hw_run_with(&host, &s, &hw_x86_ops) == -ASMSPY_E_USAGE, "x86 read-only refused");
  s = session(DATA_ADDR + 6, 4, ASMSPY_WATCH_WRITE, 1);
  CHECK(hw_run_with(&host, &s, &hw_arm64_ops) == -ASMSPY_E_USAGE, "arm64 straddle refused");
  CHECK(fs.attached == 0, "no attach for a bad session");
}

/* AArch64: the hit stops before the store: disarm, step, report, re-arm. */
static void test_arm64_step_over(void) {
  reset();
  fs_add_task(200, 1);
  fs.mem = 7ull << 32; /* the watched int is the upper half of the fake doubleword */
  fs_push(Q(ASMSPY_STOP_GROUP, 200));
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_SIGNAL,
                            .tid = 200,
                            .sig = SIGTRAP,
                            .si_code = 4,
                            .set_ip = 1,
                            .ip = ARM_CODE});
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_STEP,
                            .tid = 200,
                            .set_mem = 1,
                            .mem = 8ull << 32,
                            .set_ip = 1,
                            .ip = ARM_CODE + 4});
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_SIGNAL,
                            .tid = 200,
                            .sig = SIGTRAP,
                            .si_code = 4,
                            .set_ip = 1,
                            .ip = ARM_CODE});
  fs_push((struct fs_entry){.kind = ASMSPY_STOP_STEP,
                            .tid = 200,
                            .set_mem = 1,
                            .mem = 9ull << 32,
                            .set_ip = 1,
                            .ip = ARM_CODE + 4});
  struct asmspy_session s = session(DATA_ADDR + 4, 4, ASMSPY_WATCH_WRITE, 2);
  int rc = hw_run_with(&host, &s, &hw_arm64_ops);
  CHECK(rc == 0, "run %d", rc);
  CHECK(fs.violations == 0, "%s", fs.violation);
  /* log: s(arm) r s(off) t s(arm) r s(off) t s(arm)? ... then disarm */
  size_t i = 0;
  const char want[] = "srstsrst";
  char got[32] = "";
  size_t first_s = fs.nlog;
  for (size_t k = 0; k < fs.nlog && i + 1 < sizeof got; k++)
    if (strchr("srt", fs.log[k].what)) {
      if (first_s == fs.nlog) first_s = k;
      got[i++] = fs.log[k].what;
    }
  CHECK(strncmp(got, want, strlen(want)) == 0, "arm, resume, disarm, step, re-arm ...: %s", got);
  const struct fs_log *arm = &fs.log[first_s];
  CHECK(arm->what == 's' && arm->addr0 == DATA_ADDR && arm->ctrl0 == 0x1e15 &&
            arm->off == hw_arm64_regset_len(4),
        "slot 0 = {%#llx, %#x}, %llu bytes", (unsigned long long)arm->addr0, arm->ctrl0,
        (unsigned long long)arm->off);
  int off_before_step = 0;
  for (size_t k = first_s + 1; k + 1 < fs.nlog; k++)
    if (fs.log[k].what == 's' && fs.log[k + 1].what == 't') off_before_step = fs.log[k].ctrl0 == 0;
  CHECK(off_before_step, "the watchpoint is off in the thread when it steps the store");
  CHECK(nevents == 2 && events[0].ip == ARM_CODE && events[0].u.watch.old_value == 7 &&
            events[0].u.watch.new_value == 8 && events[1].u.watch.old_value == 8 &&
            events[1].u.watch.new_value == 9,
        "hits at the pc of the store, 7 -> 8 -> 9");
  CHECK(fs.armed_at_detach == 0 && fs_task(200)->watch.dbg_regs[0].ctrl == 0,
        "NT_ARM_HW_WATCH slot 0 off at detach");
}

/* The built plugin exports its descriptor with run = the same loop. */
static void test_plugin_entry(const char *so) {
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen %s: %s", so, dlerror());
  if (!h) return;
  asmspy_plugin_entry_fn entry = (asmspy_plugin_entry_fn)dlsym(h, ASMSPY_PLUGIN_ENTRY_NAME);
  const struct asmspy_plugin *p = entry ? entry(ASMSPY_ABI_VERSION, &host) : NULL;
  CHECK(p && p->kind == ASMSPY_KIND_BACKEND && strcmp(p->name, "hwwatch") == 0 && p->backend &&
            p->backend->run && (p->caps & ASMSPY_CAP_WATCHPOINTS),
        "descriptor");
  if (p && p->backend && p->backend->run) {
    reset();
    fs_add_task(100, 1);
    fs.mem = 1;
    fs_push(Q(ASMSPY_STOP_GROUP, 100));
    fs_push(HIT(100, 1, 2, AFTER));
    struct asmspy_session s = session(DATA_ADDR, 4, ASMSPY_WATCH_WRITE, 1);
    int rc = p->backend->run(&host, &s);
#if defined(__x86_64__)
    CHECK(rc == 0 && nevents == 1 && events[0].ip == TOUCHER && fs.armed_at_detach == 0,
          "the .so's run() reports the hit (rc %d, %zu events)", rc, nevents);
#else
    (void)rc;
#endif
  }
  dlclose(h);
}

/* ------------------------------------------------------ the view -- */

static char text_out[4096], json_out[8192];
static uint64_t json_seq;

static int h_emit(struct asmspy_out *out, const char *type, const char *fields, const char *text) {
  (void)out;
  json_seq++;
  if (text) snprintf(text_out + strlen(text_out), sizeof text_out - strlen(text_out), "%s\n", text);
  snprintf(json_out + strlen(json_out), sizeof json_out - strlen(json_out),
           "{\"type\":\"%s\",\"seq\":%llu%s%s}\n", type, (unsigned long long)json_seq,
           fields && *fields ? "," : "", fields ? fields : "");
  return 0;
}

static const char *h_describe(struct asmspy_target *t, uint64_t addr, char *buf, size_t cap) {
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  h_symbolize(t, addr, &sym);
  if (sym.name)
    snprintf(buf, cap, "%s+0x%llx [%s]", sym.name, (unsigned long long)sym.offset, sym.module);
  else
    snprintf(buf, cap, "0x%llx [?]", (unsigned long long)addr);
  return buf;
}

static int h_resolve_data(struct asmspy_target *t, const char *spec, uint64_t *addr, uint64_t *size,
                          char *err, size_t cap) {
  (void)t;
  if (strcmp(spec, "counter") == 0) {
    *addr = DATA_ADDR;
    *size = 4;
    return 0;
  }
  if (strcmp(spec, "counter+1") == 0) {
    *addr = DATA_ADDR + 1;
    *size = 3;
    return 0;
  }
  snprintf(err, cap, "%s is a function, not data", spec);
  return -ASMSPY_E_USAGE;
}

struct view_run {
  const struct asmspy_view_ops *v;
  void *state;
  struct asmspy_session s;
  int open_rc, configure_rc;
};

static void view_start(const struct asmspy_plugin *p, struct view_run *r, int argc, char **argv) {
  memset(r, 0, sizeof *r);
  text_out[0] = json_out[0] = 0;
  json_seq = 0;
  r->v = p->view;
  r->s = session(0, 0, 0, 0);
  r->s.argc = argc;
  r->s.argv = argv;
  r->open_rc = r->v->open(&host, &r->s, &r->state);
  if (r->open_rc == 0) r->configure_rc = r->v->configure(r->state, &host, &r->s);
}

static struct asmspy_event hit_event(pid_t tid, uint64_t ip, uint64_t old, uint64_t new_value) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_WATCH_HIT;
  ev.pid = 100;
  ev.tid = tid;
  ev.nthreads = 3;
  ev.ip = ip;
  ev.target = fake_target;
  ev.u.watch.addr = DATA_ADDR;
  ev.u.watch.old_value = old;
  ev.u.watch.new_value = new_value;
  ev.u.watch.len = 4;
  return ev;
}

static void test_view(const char *so) {
  host.emit = h_emit;
  host.describe = h_describe;
  host.resolve_data = h_resolve_data;
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen %s: %s", so, dlerror());
  if (!h) return;
  asmspy_plugin_entry_fn entry = (asmspy_plugin_entry_fn)dlsym(h, ASMSPY_PLUGIN_ENTRY_NAME);
  const struct asmspy_plugin *p = entry ? entry(ASMSPY_ABI_VERSION, &host) : NULL;
  CHECK(p && p->view && strcmp(p->view->mode, "watch") == 0 && p->view->configure &&
            (p->view->caps_required & ASMSPY_CAP_WATCHPOINTS),
        "watch view descriptor");
  if (!p || !p->view) {
    dlclose(h);
    return;
  }
  struct view_run r;
  char *bad_len[] = {"counter", "--len=3"}, *bad_opt[] = {"counter", "--x"}, *none[] = {NULL},
       *func[] = {"main"}, *unaligned[] = {"counter+1", "--len=4"}, *two[] = {"counter", "pair"};
  view_start(p, &r, 2, bad_len);
  CHECK(r.open_rc == -ASMSPY_E_USAGE, "--len=3 is a usage error");
  view_start(p, &r, 2, bad_opt);
  CHECK(r.open_rc == -ASMSPY_E_USAGE, "unknown option");
  view_start(p, &r, 0, none);
  CHECK(r.open_rc == -ASMSPY_E_USAGE, "no address");
  view_start(p, &r, 2, two);
  CHECK(r.open_rc == -ASMSPY_E_USAGE, "two addresses");
  view_start(p, &r, 1, func);
  CHECK(r.open_rc == 0 && r.configure_rc == -ASMSPY_E_USAGE, "a function: configure refuses");
  r.v->close(r.state);
  view_start(p, &r, 2, unaligned);
  CHECK(r.open_rc == 0 && r.configure_rc == -ASMSPY_E_USAGE, "unaligned --len=4 refused");
  r.v->close(r.state);

  char *ok[] = {"counter", "--rw"};
  view_start(p, &r, 2, ok);
  CHECK(r.open_rc == 0 && r.configure_rc == 0, "counter --rw accepted");
  CHECK(r.s.watch_addr == DATA_ADDR && r.s.watch_len == 4 &&
            r.s.watch_access == (ASMSPY_WATCH_WRITE | ASMSPY_WATCH_READ) && r.s.max == 10,
        "session filled: addr, len 4 from the symbol size, rw, default n 10");
  CHECK(strstr(text_out, "watching counter @ 0x601010 (4 bytes, reads and writes) in pid 100\n"),
        "header line: %s", text_out);
  struct asmspy_event e1 = hit_event(101, TOUCHER, 41, 42);
  struct asmspy_event e2 = hit_event(102, TOUCHER, 0xffffffff, 0xffffffff);
  e2.flags = ASMSPY_EVF_WATCH_READ;
  CHECK(r.v->consume(r.state, &e1) == ASMSPY_CONSUME_MORE, "hit 1 consumed");
  CHECK(r.v->consume(r.state, &e2) == ASMSPY_CONSUME_MORE, "hit 2 consumed");
  r.v->finish(r.state, 0);
  r.v->close(r.state);
  const char *l1 = strstr(text_out, "[101] writer+0x4 [victim]");
  CHECK(l1 && strstr(l1, "mov dword ptr [rip + 0x1ff6], 0x2a") &&
            strstr(l1, " 41 -> 42\n") < strchr(l1, '\n') + 1,
        "hit line: %s", text_out);
  CHECK(strstr(text_out, "[102] writer+0x4 [victim]") && strstr(text_out, "-1 -> -1   (read)"),
        "a read hit, values signed at the watched width: %s", text_out);
  CHECK(strstr(text_out, "2 hits on counter\n"), "summary: %s", text_out);
  if (getenv("HWWATCH_TEST_VERBOSE")) fprintf(stderr, "%s%s", text_out, json_out);
  CHECK(strstr(json_out, "\"tid\":101,\"ip\":\"0x401004\",\"sym\":\"writer\",\"off\":4,"
                         "\"module\":\"victim\",\"disasm\":\"mov dword ptr [rip + 0x1ff6], 0x2a\""),
        "json hit: %s", json_out);
  CHECK(strstr(json_out, "\"old\":41,\"new\":42,\"old_hex\":\"0x29\",\"new_hex\":\"0x2a\""),
        "json values: %s", json_out);

  /* the records validate as a recording */
  char rec[sizeof json_out + 1024];
  snprintf(rec, sizeof rec,
           "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","
           "\"tool_version\":\"0.1.0\",\"mode\":\"watch\",\"pid\":100,\"backend\":\"hwwatch\","
           "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"hostname\":\"h\"},"
           "\"start_time\":\"2026-12-02T09:00:00Z\",\"start_unix_ns\":123}\n%s"
           "{\"type\":\"end\",\"events\":%llu,\"lost\":0,\"reason\":\"n_reached\",\"status\":0,"
           "\"end_unix_ns\":456}\n",
           json_out, (unsigned long long)json_seq);
  FILE *f = fmemopen(rec, strlen(rec), "r");
  struct asmspy_recording_report rep;
  memset(&rep, 0, sizeof rep);
  int verdict = f ? recording_validate(f, &rep) : -1;
  if (f) fclose(f);
  CHECK(verdict == 0 && recording_type_count(&rep, "watch") == 2 &&
            recording_type_count(&rep, "watchpoint") == 1,
        "validator: %s (line %llu: %s)", recording_verdict_name(verdict),
        (unsigned long long)rep.error_line, rep.error);
  /* and the validator does check watch records */
  char broken[] = "{\"type\":\"watch\",\"seq\":1,\"name\":\"x\",\"addr\":\"0x1\",\"len\":3,"
                  "\"access\":\"write\"}\n";
  snprintf(rec, sizeof rec,
           "{\"type\":\"header\",\"format\":\"asmtrace\",\"format_version\":1,\"tool\":\"asmspy\","
           "\"tool_version\":\"0.1.0\",\"mode\":\"watch\",\"pid\":100,\"backend\":\"hwwatch\","
           "\"host\":{\"kernel\":\"6.1.0\",\"arch\":\"x86_64\",\"hostname\":\"h\"},"
           "\"start_time\":\"2026-12-02T09:00:00Z\",\"start_unix_ns\":123}\n%s"
           "{\"type\":\"end\",\"events\":1,\"lost\":0,\"reason\":\"n_reached\",\"status\":0,"
           "\"end_unix_ns\":456}\n",
           broken);
  f = fmemopen(rec, strlen(rec), "r");
  verdict = f ? recording_validate(f, &rep) : -1;
  if (f) fclose(f);
  CHECK(verdict == 2, "a watch record with len 3 and no tid is invalid (%d)", verdict);
  dlclose(h);
}

int main(int argc, char **argv) {
  host_init();
  test_x86_encoding();
  test_arm64_encoding();
  test_x86_threads();
  test_x86_slot_and_rw();
  test_x86_toucher_fallback();
  test_x86_interrupted();
  test_target_exits();
  test_refused();
  test_validation();
  test_arm64_step_over();
  if (argc > 1) test_plugin_entry(argv[1]);
  if (argc > 2) test_view(argv[2]);
  return check_summary("test_hwwatch");
}
