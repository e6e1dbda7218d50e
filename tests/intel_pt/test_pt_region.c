/* test_pt_region: --trace on intel_pt, offline. pt_region.c cuts a decoded
 * region stream (what pt_decode emits with the region as its keep range:
 * only the region's own instructions, no registers) into invocations, and
 * the built trace view (dlopen'd, argv[1]) renders them through the
 * scripted host. No PT hardware runs here; the stream is synthesized.
 *
 * Region: entered_often [0x401100, 0x40111d) of the fake address space.
 *   before  0x401105 nop, 0x401106 ret        mid-invocation: dropped
 *   #1      100 nop; 101 call cold_path (out); 106 nop; 107 call 0x401100
 *           (recursion: 100 nop; 10c ret); 10c ret
 *   #2      100 nop; 101 call rax (indirect, returns to 103); 103 nop; 104 ret
 *   #3      100 nop; LOST                      -> truncated */
#include "../unit/check.h"
#include "../unit/fake_sampling_host.h"
#include "plugins/intel_pt/pt_region.h"

#include <dlfcn.h>

/* What the segmenter hands on: recorded, then replayed into the view. */
static struct asmspy_event out[128];
static size_t nout;
static int record(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  if (nout < 128) out[nout++] = *ev;
  return 0;
}

static uint64_t seq;
static void send(struct ptr_seg *g, uint16_t type, uint64_t ip, const uint8_t *b, uint8_t len) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = type;
  ev.pid = ev.tid = 1234;
  ev.nthreads = 1;
  ev.ip = ip;
  ev.seq = ++seq;
  ev.target = FAKE_TARGET;
  if (type == ASMSPY_EV_INSN) {
    ev.flags = ASMSPY_EVF_SP_UNKNOWN;
    memcpy(ev.u.insn.bytes, b, len);
    ev.u.insn.len = len;
  } else if (type == ASMSPY_EV_LOST) {
    ev.u.lost.count = 1;
  }
  ptr_seg_event(g, &ev);
}
#define NOP(ip) send(g, ASMSPY_EV_INSN, ip, (const uint8_t[]){0x90}, 1)
#define RET(ip) send(g, ASMSPY_EV_INSN, ip, (const uint8_t[]){0xc3}, 1)
#define CALLRAX(ip) send(g, ASMSPY_EV_INSN, ip, (const uint8_t[]){0xff, 0xd0}, 2)
static void call(struct ptr_seg *g, uint64_t ip, uint64_t to) {
  int32_t rel = (int32_t)(to - (ip + 5));
  uint8_t b[5] = {0xe8};
  memcpy(b + 1, &rel, 4);
  send(g, ASMSPY_EV_INSN, ip, b, 5);
}

static size_t count_type(uint16_t type) {
  size_t n = 0;
  for (size_t i = 0; i < nout; i++) n += out[i].type == type;
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s TRACE_VIEW.so\n", argv[0]);
    return 99;
  }
  fake_host_init();
  fake_host.disasm = fake_disasm_min;
  fake_host.insn_class = fake_insn_class_min;

  struct ptr_seg_opts o = {
      .host = &fake_host, .start = 0x401100, .len = 0x1d, .sink = record, .seq = &seq};
  struct ptr_seg *g = ptr_seg_new(&o);
  CHECK(g != NULL, "segmenter created");
  NOP(0x401105); /* mid-invocation when the capture began */
  RET(0x401106);
  NOP(0x401100);               /* #1 */
  call(g, 0x401101, 0x401300); /* cold_path: outside */
  NOP(0x401106);
  call(g, 0x401107, 0x401100); /* recursion */
  NOP(0x401100);
  RET(0x40110c);
  RET(0x40110c);
  NOP(0x401100); /* #2 */
  CALLRAX(0x401101);
  NOP(0x401103);
  RET(0x401104);
  NOP(0x401100); /* #3 */
  send(g, ASMSPY_EV_LOST, 0x401101, NULL, 0);
  ptr_seg_finish(g);
  CHECK(ptr_seg_entered(g) == 3, "3 invocations entered (%llu)",
        (unsigned long long)ptr_seg_entered(g));
  ptr_seg_free(g);

  CHECK(count_type(ASMSPY_EV_REGION_ENTER) == 3 && count_type(ASMSPY_EV_REGION_EXIT) == 3,
        "3 REGION_ENTER, 3 REGION_EXIT");
  CHECK(count_type(ASMSPY_EV_INSN) == 12,
        "12 instructions inside invocations (%zu): the 2 "
        "before the first entry are dropped",
        count_type(ASMSPY_EV_INSN));
  CHECK(count_type(ASMSPY_EV_CALLOUT) == 2, "2 call-outs (the recursive call is not one)");
  CHECK(count_type(ASMSPY_EV_LOST) == 1, "the LOST is passed on");
  int exits_ok = 1, seq_ok = 1;
  for (size_t i = 0; i < nout; i++) {
    if (out[i].type == ASMSPY_EV_REGION_EXIT) {
      int last = out[i].u.region.sample == 3;
      if (!(out[i].flags & ASMSPY_EVF_SP_UNKNOWN) || out[i].u.region.truncated != (uint32_t)last ||
          !out[i].u.region.reached)
        exits_ok = 0;
    }
    if (i && out[i].seq <= out[i - 1].seq) seq_ok = 0;
  }
  CHECK(exits_ok, "exits carry no registers (ret unknown); only #3 (LOST) is truncated");
  CHECK(seq_ok, "event seq numbers stay increasing");

  /* the trace view renders them */
  void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  asmspy_plugin_entry_fn entry =
      dl ? (asmspy_plugin_entry_fn)dlsym(dl, "asmspy_plugin_entry") : NULL;
  const struct asmspy_plugin *p = entry ? entry(ASMSPY_ABI_VERSION, &fake_host) : NULL;
  if (!p || !p->view || strcmp(p->view->mode, "trace")) {
    printf("FAIL - %s is not the trace view (%s)\n", argv[1], dl ? "" : dlerror());
    return 1;
  }
  const struct asmspy_view_ops *v = p->view;
  CHECK(!(v->caps_required & ASMSPY_CAP_EXACT_SP) && (v->caps_required & ASMSPY_CAP_REGION) &&
            ASMSPY_HAS(v, caps_wanted) && (v->caps_wanted & ASMSPY_CAP_EXACT_SP),
        "trace requires INSN_STREAM|REGION and only wants EXACT_SP (runs on intel_pt)");
  struct asmspy_session s;
  char *args[] = {"0x401100:0x1d"};
  fake_session(&s, "trace", 1, args);
  fake_reset_output();
  void *st = NULL;
  CHECK(v->open(&fake_host, &s, &st) == 0 && v->configure(st, &fake_host, &s) == 0 &&
            s.region_start == 0x401100 && s.region_len == 0x1d,
        "trace opens and configures the region");
  for (size_t i = 0; i < nout; i++)
    if (v->consume(st, &out[i]) == ASMSPY_CONSUME_DONE) break;
  v->finish(st, 0);
  v->close(st);
  printf("%s", fake_out);
  CHECK(fake_has_line("sample #1   ret=?   5 insns (7 executed), 2 blocks"),
        "sample #1: ret=?, 5 distinct / 7 executed (the recursion counted in)");
  CHECK(fake_has_line("       1×  +0x1      ->  cold_path  [auto_victim]"),
        "sample #1 calls cold_path once");
  CHECK(fake_has_line("sample #2   ret=?   4 insns (4 executed), 1 blocks"), "sample #2: 4 insns");
  CHECK(fake_has_line("       1×  +0x1      ->  (indirect: target not traced)  [?]"),
        "sample #2: the indirect call-out");
  CHECK(strstr(fake_out, "sample #3   ret=?   1 insns (1 executed)") &&
            strstr(fake_out, "(truncated)"),
        "sample #3: truncated by the LOST");
  return check_summary(argv[0]);
}
