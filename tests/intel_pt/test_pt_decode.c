/* test_pt_decode — the intel_pt backend's decode path, offline.
 *
 * Streams are synthesized with libipt's encoder (pt_synth.h) for a small
 * hand-assembled program and run through the plugin's own pt_decode.c and
 * pt_image.c (compiled into this test from plugins/intel_pt/, not copied).
 * Checked:
 *   1. the exact instruction sequence and taken branches (calls, rets, jcc,
 *      an indirect jmp) through a read-memory callback image;
 *   2. the same through a file section (pt_image_add_file via the section
 *      cache) and through /proc/self/maps (the test's own .text: file
 *      section; an anonymous executable copy: the callback);
 *   3. feeding the stream in pieces — byte by byte, and cut at every offset —
 *      gives exactly the one-shot result (the PSB split and held-back tail);
 *   4. every prefix of the stream decodes to a prefix of the full sequence:
 *      a truncated trace never invents an instruction;
 *   5. region keep / drop ranges, max_insns, a sink that says stop;
 *   6. negative: no PSB, garbage bytes (alone, and after a valid PSB+), an
 *      image hole (-pte_nomap), an OVF packet: each a NOTE (libipt's error
 *      text) and/or LOST, never a crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../unit/check.h"
#include "plugins/intel_pt/pt_decode.h"
#include "plugins/intel_pt/pt_image.h"
#include "pt_synth.h"

#define VBASE 0x401000ull

/* --------------------------------------------------------- event recorder */

struct rec_ev {
  uint16_t type, flags;
  uint64_t ip, from, to, lost, seq;
  uint8_t bytes[16], len;
  int32_t tid;
  const void *target;
  char note[400];
};

struct recorder {
  struct rec_ev ev[4096];
  size_t n;
  size_t stop_after_insns; /* the sink asks to stop after this many INSN (0: never) */
  size_t insns;
};

static int rec_sink(void *ctx, const struct asmspy_event *ev) {
  struct recorder *r = ctx;
  if (r->n < sizeof r->ev / sizeof r->ev[0]) {
    struct rec_ev *e = &r->ev[r->n++];
    memset(e, 0, sizeof *e);
    e->type = ev->type;
    e->flags = ev->flags;
    e->ip = ev->ip;
    e->seq = ev->seq;
    e->tid = ev->tid;
    e->target = ev->target;
    if (ev->type == ASMSPY_EV_INSN) {
      e->len = ev->u.insn.len;
      memcpy(e->bytes, ev->u.insn.bytes, sizeof e->bytes);
    } else if (ev->type == ASMSPY_EV_BRANCH) {
      e->from = ev->u.branch.from;
      e->to = ev->u.branch.to;
    } else if (ev->type == ASMSPY_EV_NOTE) {
      snprintf(e->note, sizeof e->note, "%s", ev->u.note.text ? ev->u.note.text : "(null)");
    } else if (ev->type == ASMSPY_EV_LOST) {
      e->lost = ev->u.lost.count;
    }
  }
  if (ev->type == ASMSPY_EV_INSN) r->insns++;
  return r->stop_after_insns && r->insns >= r->stop_after_insns;
}

static size_t count_type(const struct recorder *r, uint16_t type) {
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) n += r->ev[i].type == type;
  return n;
}

static const char *find_note(const struct recorder *r, const char *needle) {
  for (size_t i = 0; i < r->n; i++)
    if (r->ev[i].type == ASMSPY_EV_NOTE && strstr(r->ev[i].note, needle)) return r->ev[i].note;
  return NULL;
}

static void dump(const struct recorder *r) {
  for (size_t i = 0; i < r->n; i++) {
    const struct rec_ev *e = &r->ev[i];
    if (e->type == ASMSPY_EV_INSN)
      fprintf(stderr, "  insn 0x%llx len %u\n", (unsigned long long)e->ip, e->len);
    else if (e->type == ASMSPY_EV_BRANCH)
      fprintf(stderr, "  branch 0x%llx -> 0x%llx flags %#x\n", (unsigned long long)e->from,
              (unsigned long long)e->to, e->flags);
    else if (e->type == ASMSPY_EV_NOTE)
      fprintf(stderr, "  note %s\n", e->note);
    else
      fprintf(stderr, "  type %u lost %llu\n", e->type, (unsigned long long)e->lost);
  }
}

/* ---------------------------------------------------------- code images */

static uint8_t g_code[SYN_CODE_LEN];

/* pti_read_fn over g_code "mapped" at VBASE (the callback image). */
static ssize_t read_code(void *ctx, uint64_t addr, void *buf, size_t len) {
  (void)ctx;
  if (addr < VBASE || addr >= VBASE + SYN_CODE_LEN) return -EFAULT;
  size_t off = (size_t)(addr - VBASE);
  size_t n = SYN_CODE_LEN - off < len ? SYN_CODE_LEN - off : len;
  memcpy(buf, g_code + off, n);
  return (ssize_t)n;
}

/* Decode stream[0,len) in pieces of `chunk` bytes (0 = one feed). */
static void decode(struct pti_image *im, const uint8_t *stream, size_t len, size_t chunk,
                   struct ptd_opts *extra, struct recorder *r, int *stopped_rc) {
  struct pt_image *img = pti_clone(im);
  uint64_t seq = 0;
  struct ptd_opts o;
  if (extra)
    o = *extra;
  else
    memset(&o, 0, sizeof o);
  o.image = img;
  o.sink = rec_sink;
  o.sink_ctx = r;
  o.seq = &seq;
  o.tid = 4242;
  o.nthreads = 1;
  struct ptd *d = ptd_new(&o);
  CHECK(d != NULL, "ptd_new");
  int rc = 0;
  if (!chunk) chunk = len ? len : 1;
  for (size_t off = 0; d && off < len && rc == 0; off += chunk)
    rc = ptd_feed(d, stream + off, len - off < chunk ? len - off : chunk);
  if (d && rc == 0) rc = ptd_finish(d);
  if (stopped_rc) *stopped_rc = rc;
  ptd_free(d);
  pti_release(img);
}

/* The recorder holds exactly the program's run at base B. */
static int matches_program(const struct recorder *r, uint64_t B, const char *what) {
  size_t ni = 0, nb = 0;
  int ok = 1;
  uint64_t last_seq = 0;
  for (size_t i = 0; i < r->n; i++) {
    const struct rec_ev *e = &r->ev[i];
    if (e->seq != last_seq + 1) ok = 0;
    last_seq = e->seq;
    if (e->type == ASMSPY_EV_INSN) {
      if (ni >= SYN_EXPECTED_N || e->ip != B + syn_expected_offsets[ni])
        ok = 0;
      else if (e->len == 0 || memcmp(e->bytes, g_code + syn_expected_offsets[ni], e->len) != 0)
        ok = 0;
      if (!(e->flags & ASMSPY_EVF_SP_UNKNOWN) || e->tid != 4242) ok = 0;
      ni++;
    } else if (e->type == ASMSPY_EV_BRANCH) {
      const struct syn_branch *x = nb < SYN_BRANCHES_N ? &syn_expected_branches[nb] : NULL;
      if (!x || e->from != B + x->from || e->to != B + x->to || !(e->flags & ASMSPY_EVF_BR_TAKEN) ||
          !!(e->flags & ASMSPY_EVF_BR_CALL) != x->call ||
          !!(e->flags & ASMSPY_EVF_BR_RET) != x->ret)
        ok = 0;
      /* a branch edge comes right after its source instruction */
      if (i == 0 || r->ev[i - 1].type != ASMSPY_EV_INSN || r->ev[i - 1].ip != e->from) ok = 0;
      nb++;
    } else {
      ok = 0; /* no notes, no loss on a clean stream */
    }
  }
  if (ni != SYN_EXPECTED_N || nb != SYN_BRANCHES_N) ok = 0;
  if (!ok) {
    fprintf(stderr, "%s: got %zu insns, %zu branches:\n", what, ni, nb);
    dump(r);
  }
  return ok;
}

static uint32_t xorshift(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

/* ------------------------------------------------------------------ tests */

static void test_exact_sequence(void) {
  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, VBASE, 0, NULL);
  CHECK(!s.bad && len > 0, "synthesize the program's stream");
  struct pti_image *im = pti_new("callback", read_code, NULL);
  static struct recorder r;
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  CHECK(matches_program(&r, VBASE, "callback image"),
        "16 instructions and 5 taken branches, exactly (callback image)");
  CHECK(pti_get_stats(im)->callback_reads > 0, "the callback served the code");
  /* the disassembly-relevant detail: the call's raw bytes came through */
  CHECK(r.n > 0 && r.ev[r.n - 1].type == ASMSPY_EV_INSN && r.ev[r.n - 1].len == 2 &&
            r.ev[r.n - 1].bytes[0] == 0x0f && r.ev[r.n - 1].bytes[1] == 0x05,
        "the last instruction is the syscall (0f 05)");
  pti_free(im);
  syn_done(&s);
}

static void test_file_section(void) {
  char path[] = "/tmp/asmspy-pt-code-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
  if (fd < 0) return;
  /* the code at file offset 0x100, like a segment that does not start the file */
  uint8_t pad[0x100];
  memset(pad, 0, sizeof pad);
  CHECK(write(fd, pad, sizeof pad) == (ssize_t)sizeof pad &&
            write(fd, g_code, SYN_CODE_LEN) == (ssize_t)SYN_CODE_LEN,
        "write the code file");
  close(fd);
  struct pti_image *im = pti_new("file", NULL, NULL); /* no callback: only the file */
  CHECK(pti_add_file(im, path, 0x100, SYN_CODE_LEN, VBASE) > 0, "pti_add_file returns an isid");
  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, VBASE, 0, NULL);
  static struct recorder r;
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  CHECK(matches_program(&r, VBASE, "file section"), "exact sequence through a file section");
  CHECK(pti_get_stats(im)->file_sections == 1, "one file section");
  pti_free(im);
  syn_done(&s);
  unlink(path);
}

/* The same program in this binary's own .text (a file-backed mapping). */
/* clang-format off */
__asm__(".text\n"
        ".globl asmspy_pt_test_code\n"
        ".type asmspy_pt_test_code, @function\n"
        ".p2align 6\n"
        "asmspy_pt_test_code:\n"
        ".byte 0x31,0xc0, 0xb9,0x03,0x00,0x00,0x00, 0x83,0xc0,0x02, 0xff,0xc9, 0x75,0xf9\n"
        ".byte 0xe8,0x0d,0x00,0x00,0x00, 0xff,0xe3\n"
        ".fill 11,1,0xcc\n"
        ".byte 0x83,0xc0,0x01,0xc3\n"
        ".fill 12,1,0xcc\n"
        ".byte 0x0f,0x05, 0x90, 0x0f,0x05\n"
        ".fill 11,1,0xcc\n"
        ".size asmspy_pt_test_code, 64\n");
/* clang-format on */
extern const uint8_t asmspy_pt_test_code[];

static void test_self_maps(void) {
  CHECK(memcmp(asmspy_pt_test_code, g_code, SYN_CODE_LEN) == 0,
        "the .text copy of the program matches the buffer");
  struct ptm_maps maps;
  CHECK(ptm_read("/proc/self/maps", &maps) == 0, "read /proc/self/maps");
  struct pti_image *im = pti_new("self", pti_read_self, NULL);
  int added = pti_add_maps(im, &maps);
  CHECK(added > 0, "file sections from /proc/self/maps: %d", added);
  uint64_t B = (uint64_t)(uintptr_t)asmspy_pt_test_code;
  const struct ptm_map *mp = ptm_find(&maps, B);
  CHECK(mp && (mp->prot & PTM_EXEC) && ptm_is_file_backed(mp),
        "the test's .text is an executable file mapping (%s)", mp ? mp->path : "none");

  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, B, 0, NULL);
  static struct recorder r;
  memset(&r, 0, sizeof r);
  uint64_t reads_before = pti_get_stats(im)->callback_reads;
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  CHECK(matches_program(&r, B, "self .text"), "exact sequence in our own .text");
  CHECK(pti_get_stats(im)->callback_reads == reads_before,
        "served by the file section, not the memory callback (%llu reads)",
        (unsigned long long)(pti_get_stats(im)->callback_reads - reads_before));

  /* JIT-like: an anonymous executable copy is read through the callback */
  uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(jit != MAP_FAILED, "mmap");
  if (jit != MAP_FAILED) {
    memcpy(jit + 0x200, g_code, SYN_CODE_LEN);
    mprotect(jit, 4096, PROT_READ | PROT_EXEC);
    struct syn s2;
    syn_init(&s2);
    uint64_t J = (uint64_t)(uintptr_t)(jit + 0x200);
    size_t len2 = syn_program(&s2, J, 0, NULL);
    memset(&r, 0, sizeof r);
    reads_before = pti_get_stats(im)->callback_reads;
    decode(im, s2.buf, len2, 0, NULL, &r, NULL);
    CHECK(matches_program(&r, J, "anonymous code"), "exact sequence in anonymous (JIT) code");
    CHECK(pti_get_stats(im)->callback_reads > reads_before, "served by the memory callback");
    syn_done(&s2);
    munmap(jit, 4096);
  }
  pti_free(im);
  ptm_free(&maps);
  syn_done(&s);
}

/* Feeding in pieces: byte by byte, and every two-way cut, with and without
 * a PSB in the middle, must equal the one-shot decode. */
static void test_pieces(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  for (int mid = 0; mid <= 1; mid++) {
    struct syn s;
    syn_init(&s);
    size_t psb2 = 0;
    size_t len = syn_program(&s, VBASE, mid, &psb2);
    CHECK(!s.bad, "synthesize (mid PSB %d)", mid);
    static struct recorder r;
    memset(&r, 0, sizeof r);
    decode(im, s.buf, len, 0, NULL, &r, NULL);
    CHECK(matches_program(&r, VBASE, "one shot"), "one shot, mid PSB %d", mid);
    memset(&r, 0, sizeof r);
    decode(im, s.buf, len, 1, NULL, &r, NULL);
    CHECK(matches_program(&r, VBASE, "byte by byte"), "byte by byte, mid PSB %d", mid);
    int all_cuts = 1;
    for (size_t cut = 1; cut < len; cut++) {
      memset(&r, 0, sizeof r);
      struct pt_image *img = pti_clone(im);
      uint64_t seq = 0;
      struct ptd_opts o;
      memset(&o, 0, sizeof o);
      o.image = img;
      o.sink = rec_sink;
      o.sink_ctx = &r;
      o.seq = &seq;
      o.tid = 4242;
      struct ptd *d = ptd_new(&o);
      ptd_feed(d, s.buf, cut);
      ptd_feed(d, s.buf + cut, len - cut);
      ptd_finish(d);
      ptd_free(d);
      pti_release(img);
      if (!matches_program(&r, VBASE, "two pieces")) {
        fprintf(stderr, "  (cut at %zu of %zu, mid PSB %d)\n", cut, len, mid);
        all_cuts = 0;
        break;
      }
    }
    CHECK(all_cuts, "every two-piece cut equals the one-shot decode (mid PSB %d)", mid);
    if (mid) CHECK(psb2 > 0, "the second PSB is at %zu", psb2);
    syn_done(&s);
  }
  pti_free(im);
}

/* A PSB+ while tracing was off (the thread in a syscall): cut anywhere, fed
 * any way, the run comes out once, and no edge crosses the kernel. */
static void test_psb_while_disabled(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  struct syn s;
  syn_init(&s);
  size_t len = syn_syscall_return(&s, VBASE);
  CHECK(!s.bad, "synthesize the syscall return");
  int ok = 1;
  for (size_t cut = 0; cut <= len && ok; cut++) {
    static struct recorder r;
    memset(&r, 0, sizeof r);
    struct pt_image *img = pti_clone(im);
    uint64_t seq = 0;
    struct ptd_opts o;
    memset(&o, 0, sizeof o);
    o.image = img;
    o.sink = rec_sink;
    o.sink_ctx = &r;
    o.seq = &seq;
    struct ptd *d = ptd_new(&o);
    if (cut) ptd_feed(d, s.buf, cut);
    ptd_feed(d, s.buf + cut, len - cut);
    ptd_finish(d);
    ptd_free(d);
    pti_release(img);
    size_t ni = 0;
    for (size_t i = 0; i < r.n; i++) {
      if (r.ev[i].type == ASMSPY_EV_INSN) {
        if (ni >= SYN_RETURN_N || r.ev[i].ip != VBASE + syn_return_offsets[ni]) ok = 0;
        ni++;
      } else if (r.ev[i].type == ASMSPY_EV_BRANCH) {
        if (r.ev[i].to == VBASE + 0x32) ok = 0; /* the syscall is no near branch */
      } else {
        ok = 0;
      }
    }
    if (ni != SYN_RETURN_N) ok = 0;
    if (!ok) {
      fprintf(stderr, "syscall return, cut at %zu of %zu:\n", cut, len);
      dump(&r);
    }
  }
  CHECK(ok, "a PSB+ while tracing was off: the same 18 instructions for every cut");
  syn_done(&s);
  pti_free(im);
}

/* A hole (the AUX area filled): what came before it is decoded, nothing is
 * joined across it, and the trace after it decodes on its own. */
static void test_gap(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  struct syn s;
  syn_init(&s);
  size_t psb2 = 0;
  size_t len = syn_program(&s, VBASE, 1, &psb2);
  static struct recorder r;
  memset(&r, 0, sizeof r);
  struct pt_image *img = pti_clone(im);
  uint64_t seq = 0;
  struct ptd_opts o;
  memset(&o, 0, sizeof o);
  o.image = img;
  o.sink = rec_sink;
  o.sink_ctx = &r;
  o.seq = &seq;
  struct ptd *d = ptd_new(&o);
  ptd_feed(d, s.buf, psb2 + 5); /* the first piece and the start of the second */
  ptd_gap(d);
  size_t before = count_type(&r, ASMSPY_EV_INSN);
  ptd_feed(d, s.buf, len); /* the trace after the hole: a whole run of its own */
  ptd_finish(d);
  ptd_free(d);
  pti_release(img);
  size_t ni = 0, bad = 0;
  for (size_t i = 0; i < r.n; i++) {
    if (r.ev[i].type == ASMSPY_EV_INSN) {
      size_t k = ni < before ? ni : ni - before;
      if (k >= SYN_EXPECTED_N || r.ev[i].ip != VBASE + syn_expected_offsets[k]) bad++;
      ni++;
    }
    if (r.ev[i].type == ASMSPY_EV_BRANCH && r.ev[i].to == VBASE) bad++; /* joined across */
  }
  CHECK(before > 0 && before < SYN_EXPECTED_N && ni == before + SYN_EXPECTED_N && bad == 0,
        "before the hole: %zu confirmed instructions; after it: the whole run; no edge across",
        before);
  syn_done(&s);
  pti_free(im);
}

/* Every prefix decodes to a prefix of the truth: nothing is invented. */
static void test_truncated(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, VBASE, 1, NULL);
  int ok = 1;
  size_t most = 0;
  for (size_t cut = 0; cut <= len && ok; cut++) {
    static struct recorder r;
    memset(&r, 0, sizeof r);
    decode(im, s.buf, cut, 0, NULL, &r, NULL);
    size_t ni = 0;
    for (size_t i = 0; i < r.n; i++) {
      if (r.ev[i].type != ASMSPY_EV_INSN) continue;
      if (ni >= SYN_EXPECTED_N || r.ev[i].ip != VBASE + syn_expected_offsets[ni]) {
        fprintf(stderr, "cut at %zu: instruction %zu is 0x%llx\n", cut, ni,
                (unsigned long long)r.ev[i].ip);
        dump(&r);
        ok = 0;
        break;
      }
      ni++;
    }
    if (cut < len && ni > most) most = ni;
    if (cut == len && ni != SYN_EXPECTED_N) ok = 0;
  }
  CHECK(ok, "every truncation of the stream decodes to a prefix of the real run");
  CHECK(most > 0 && most < SYN_EXPECTED_N, "truncations decode part of the run (up to %zu)", most);
  /* a stream cut inside the first PSB: a clean note, no instruction */
  static struct recorder r;
  memset(&r, 0, sizeof r);
  decode(im, s.buf, 10, 0, NULL, &r, NULL);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == 0 && find_note(&r, "no PSB"),
        "10 bytes (half a PSB): no instruction, a 'no PSB' note");
  syn_done(&s);
  pti_free(im);
}

static void test_filters_and_stop(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, VBASE, 0, NULL);
  static struct recorder r;

  /* keep only the callee */
  struct ptd_opts o;
  memset(&o, 0, sizeof o);
  o.keep_start = VBASE + 0x20;
  o.keep_len = 4;
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, &o, &r, NULL);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == 2 && r.n >= 1 && r.ev[0].type == ASMSPY_EV_BRANCH &&
            r.ev[0].to == VBASE + 0x20,
        "region [0x20,0x24): the call edge in, 2 instructions, the ret edge out (%zu events)", r.n);
  CHECK(count_type(&r, ASMSPY_EV_BRANCH) == 2, "2 edges touch the region");

  /* drop the loop (a scope dropping the backend's own text) */
  memset(&o, 0, sizeof o);
  o.drop_start = VBASE;
  o.drop_len = 0x0e;
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, &o, &r, NULL);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == SYN_EXPECTED_N - 11,
        "drop [0, 0x0e): %zu instructions left", count_type(&r, ASMSPY_EV_INSN));

  /* max_insns: stops and says so */
  memset(&o, 0, sizeof o);
  o.max_insns = 5;
  memset(&r, 0, sizeof r);
  struct pt_image *img = pti_clone(im);
  uint64_t seq = 0;
  o.image = img;
  o.sink = rec_sink;
  o.sink_ctx = &r;
  o.seq = &seq;
  struct ptd *d = ptd_new(&o);
  int rc = ptd_feed(d, s.buf, len);
  if (rc == 0) rc = ptd_finish(d);
  CHECK(rc == 1 && ptd_get_stats(d)->max_reached && count_type(&r, ASMSPY_EV_INSN) == 5,
        "max_insns 5: rc %d, %zu instructions", rc, count_type(&r, ASMSPY_EV_INSN));
  ptd_free(d);
  pti_release(img);

  /* exactly max_insns instructions: not cut short */
  memset(&o, 0, sizeof o);
  o.max_insns = SYN_EXPECTED_N;
  memset(&r, 0, sizeof r);
  img = pti_clone(im);
  o.image = img;
  o.sink = rec_sink;
  o.sink_ctx = &r;
  d = ptd_new(&o);
  rc = ptd_feed(d, s.buf, len);
  if (rc == 0) rc = ptd_finish(d);
  CHECK(rc == 0 && !ptd_get_stats(d)->max_reached, "max_insns == the run: not truncated");
  ptd_free(d);
  pti_release(img);

  /* the sink says stop after 3 */
  memset(&r, 0, sizeof r);
  r.stop_after_insns = 3;
  decode(im, s.buf, len, 0, NULL, &r, &rc);
  CHECK(rc == 1 && r.insns == 3, "a sink returning non-zero stops the decode (rc %d, %zu)", rc,
        r.insns);
  syn_done(&s);
  pti_free(im);
}

static void test_negative(void) {
  struct pti_image *im = pti_new("callback", read_code, NULL);
  static struct recorder r;

  /* 1. the stream without its PSB+: nothing to sync on */
  struct syn s;
  syn_init(&s);
  syn_mode64(&s);
  syn_ip(&s, ppt_tip_pge, VBASE);
  syn_tnt(&s, "ttn");
  syn_ip(&s, ppt_tip, VBASE + 0x13);
  size_t len = syn_len(&s);
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == 0 && find_note(&r, "no PSB packet"),
        "no PSB: no instruction, a note (%zu events)", r.n);
  syn_done(&s);

  /* 2. garbage: deterministic pseudo-random bytes, alone and after a PSB+ */
  static uint8_t junk[8192];
  uint32_t x = 0x12345678u;
  for (size_t i = 0; i < sizeof junk; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    junk[i] = (uint8_t)x;
  }
  memset(&r, 0, sizeof r);
  decode(im, junk, sizeof junk, 0, NULL, &r, NULL);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == 0 && count_type(&r, ASMSPY_EV_NOTE) >= 1,
        "garbage alone: notes, no instruction");
  syn_init(&s);
  syn_psb(&s);
  syn_psbend(&s);
  syn_mode64(&s);
  syn_ip(&s, ppt_tip_pge, VBASE);
  size_t head = syn_len(&s);
  static uint8_t mixed[8192 + 64];
  memcpy(mixed, s.buf, head);
  memcpy(mixed + head, junk, sizeof junk);
  memset(&r, 0, sizeof r);
  decode(im, mixed, head + sizeof junk, 0, NULL, &r, NULL);
  const char *err = find_note(&r, "decode error");
  CHECK(err != NULL, "garbage after a valid PSB+: a decode-error note");
  if (err) printf("# garbage after PSB+: %s\n", err);
  /* whatever was decoded is on the program's path */
  int on_path = 1;
  for (size_t i = 0; i < r.n; i++)
    if (r.ev[i].type == ASMSPY_EV_INSN && (r.ev[i].ip < VBASE || r.ev[i].ip >= VBASE + 0x40))
      on_path = 0;
  CHECK(on_path, "no instruction outside the program from garbage");
  memset(&r, 0, sizeof r);
  decode(im, mixed, head + sizeof junk, 7, NULL, &r, NULL); /* and in pieces */
  CHECK(find_note(&r, "decode error") != NULL, "garbage fed in 7-byte pieces: same note");
  syn_done(&s);

  /* 3. an image hole: the indirect jmp goes where nothing is mapped */
  syn_init(&s);
  syn_psb(&s);
  syn_psbend(&s);
  syn_mode64(&s);
  syn_ip(&s, ppt_tip_pge, VBASE);
  syn_tnt(&s, "ttn");
  syn_ip(&s, ppt_tip, VBASE + 0x13);
  syn_ip(&s, ppt_tip, 0x7f0000001000ull);
  syn_ip_suppressed(&s, ppt_tip_pgd);
  len = syn_len(&s);
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  err = find_note(&r, pt_errstr(pte_nomap));
  CHECK(err != NULL, "a jump into unmapped memory: a note with libipt's '%s'",
        pt_errstr(pte_nomap));
  if (err) printf("# image hole: %s\n", err);
  CHECK(count_type(&r, ASMSPY_EV_INSN) == SYN_EXPECTED_N - 1 && count_type(&r, ASMSPY_EV_LOST) >= 1,
        "everything before the hole decoded (%zu), then LOST", count_type(&r, ASMSPY_EV_INSN));
  syn_done(&s);

  /* 4. OVF: the CPU lost packets; tracing resumes at a FUP */
  syn_init(&s);
  syn_psb(&s);
  syn_psbend(&s);
  syn_mode64(&s);
  syn_ip(&s, ppt_tip_pge, VBASE);
  syn_tnt(&s, "t");
  syn_ovf(&s);
  syn_ip(&s, ppt_fup, VBASE + 0x20);
  syn_ip(&s, ppt_tip, VBASE + 0x13);
  syn_ip(&s, ppt_tip, VBASE + 0x30);
  syn_ip_suppressed(&s, ppt_tip_pgd);
  len = syn_len(&s);
  memset(&r, 0, sizeof r);
  decode(im, s.buf, len, 0, NULL, &r, NULL);
  CHECK(find_note(&r, "overflow") && count_type(&r, ASMSPY_EV_LOST) == 1,
        "OVF: an overflow note and one LOST event");
  CHECK(r.n > 0 && r.ev[r.n - 1].type == ASMSPY_EV_INSN && r.ev[r.n - 1].ip == VBASE + 0x30,
        "decoding resumed after the overflow and reached the syscall");
  /* no edge across the gap */
  int bad_edge = 0;
  for (size_t i = 0; i < r.n; i++)
    if (r.ev[i].type == ASMSPY_EV_BRANCH && r.ev[i].to == VBASE + 0x20) bad_edge = 1;
  CHECK(!bad_edge, "no branch edge invented across the overflow");
  syn_done(&s);

  /* 5. the capture began mid-stream: bytes before the first PSB are skipped */
  syn_init(&s);
  len = syn_program(&s, VBASE, 0, NULL);
  static uint8_t late[4096];
  memcpy(late, junk, 37);
  memcpy(late + 37, s.buf, len);
  memset(&r, 0, sizeof r);
  decode(im, late, 37 + len, 5, NULL, &r, NULL);
  CHECK(matches_program(&r, VBASE, "37 leading bytes"),
        "37 bytes before the first PSB: skipped quietly, then the exact run");
  syn_done(&s);

  /* 6. mutations: 3000 corrupted copies of a valid stream (1-4 bytes changed,
   * fed in random pieces); nothing may crash (the ASan build runs this too)
   * and every decoded instruction lies in the only code there is */
  syn_init(&s);
  len = syn_syscall_return(&s, VBASE);
  int outside = 0;
  uint32_t rng = 0x9e3779b9u;
  for (int iter = 0; iter < 3000; iter++) {
    static uint8_t m[4096];
    memcpy(m, s.buf, len);
    int nflip = 1 + (int)(xorshift(&rng) % 4);
    for (int k = 0; k < nflip; k++) m[xorshift(&rng) % len] = (uint8_t)xorshift(&rng);
    memset(&r, 0, sizeof r);
    decode(im, m, len, 1 + xorshift(&rng) % 48, NULL, &r, NULL);
    for (size_t i = 0; i < r.n; i++)
      if (r.ev[i].type == ASMSPY_EV_INSN &&
          (r.ev[i].ip < VBASE || r.ev[i].ip >= VBASE + SYN_CODE_LEN))
        outside++;
  }
  CHECK(outside == 0, "3000 mutated streams: no crash, no instruction outside the code (%d)",
        outside);
  syn_done(&s);

  /* 7. empty input and finish without feed */
  memset(&r, 0, sizeof r);
  decode(im, junk, 0, 0, NULL, &r, NULL);
  CHECK(r.n == 0, "empty stream: no events");
  pti_free(im);
}

int main(void) {
  syn_code(g_code);
  test_exact_sequence();
  test_file_section();
  test_self_maps();
  test_pieces();
  test_psb_while_disabled();
  test_gap();
  test_truncated();
  test_filters_and_stop();
  test_negative();
  return check_summary("test_pt_decode");
}
