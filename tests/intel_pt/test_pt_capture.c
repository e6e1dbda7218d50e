/* test_pt_capture — the intel_pt backend's capture layer and its in-process
 * delivery, offline (this machine has no intel_pt PMU).
 *
 *   1. ptc_pmu_read on fake sysfs trees: type + format bits (pt, branch, tsc,
 *      noretcomp) -> attr.config; a missing term or PMU -> a reason naming it;
 *   2. ptc_drain_aux over a fake control page + AUX area: [tail, head) in
 *      order across the wrap, aux_tail published;
 *   3. ptc_drain_records over a fake data ring: PERF_RECORD_AUX (flags),
 *      LOST, EXIT, COMM (COMM_EXEC), MMAP2 (filename), a record straddling
 *      the ring's end;
 *   4. ptc_open against the REAL kernel through a fake sysfs that names the
 *      software PMU: perf_event_open and the data ring succeed, the AUX mmap
 *      is refused (software events have no AUX) -> a clean status + reason,
 *      nothing leaked; the in-process begin and run() on that tree fail the
 *      same way and leave nothing armed;
 *   5. pt_maps: parsing and the address-filter strings;
 *   6. pt_inproc_deliver: a synthesized trace of code in this binary decoded
 *      against the process's own image -> INSN events with target NULL; a
 *      region; the plugin-text drop; "truncated: " notes for a full buffer,
 *      a wrapped one and max_insns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"
#include "plugins/intel_pt/intel_pt.h"
#include "plugins/intel_pt/pt_capture.h"
#include "plugins/intel_pt/pt_inproc.h"
#include "plugins/intel_pt/pt_maps.h"
#include "pt_synth.h"

/* Paths and expected strings here are short; cutting one would fail a check. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ------------------------------------------------------------ fake sysfs */

static void put_file(const char *dir, const char *name, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* <root>/intel_pt/type, format/<term>, caps/num_address_ranges; NULL terms are
 * left out. */
static void fake_pmu(const char *root, const char *type, const char *pt, const char *branch,
                     const char *tsc, const char *noretcomp, const char *ranges) {
  char d[1024], f[1024], c[1024];
  snprintf(d, sizeof d, "%s/intel_pt", root);
  snprintf(f, sizeof f, "%s/format", d);
  snprintf(c, sizeof c, "%s/caps", d);
  mkdir(root, 0755);
  mkdir(d, 0755);
  mkdir(f, 0755);
  mkdir(c, 0755);
  if (type) put_file(d, "type", type);
  if (pt) put_file(f, "pt", pt);
  if (branch) put_file(f, "branch", branch);
  if (tsc) put_file(f, "tsc", tsc);
  if (noretcomp) put_file(f, "noretcomp", noretcomp);
  if (ranges) put_file(c, "num_address_ranges", ranges);
}

static void rm_rf(const char *path) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", path);
}

static void init_res(struct asmspy_probe_result *r) {
  memset(r, 0, sizeof *r);
  ASMSPY_INIT_HEADER(r);
}

static void test_pmu_read(void) {
  char root[] = "/tmp/asmspy-ptsys-XXXXXX";
  CHECK(mkdtemp(root) != NULL, "mkdtemp");
  struct ptc_pmu pmu;
  struct asmspy_probe_result why;

  fake_pmu(root, "9\n", "config:0\n", "config:13\n", "config:10\n", "config:11\n", "2\n");
  init_res(&why);
  int st = ptc_pmu_read(root, &pmu, &why);
  CHECK(st == 0 && pmu.type == 9, "type 9 (st %d: %s)", st, why.reason);
  CHECK(pmu.config == ((1ull << 0) | (1ull << 13) | (1ull << 10) | (1ull << 11)) && pmu.noretcomp,
        "config = pt|branch|tsc|noretcomp from the format files: %#llx",
        (unsigned long long)pmu.config);
  CHECK(pmu.addr_ranges == 2, "caps/num_address_ranges = %lld", pmu.addr_ranges);

  /* an older driver without noretcomp: still usable */
  char noret[1100];
  snprintf(noret, sizeof noret, "%s/intel_pt/format/noretcomp", root);
  unlink(noret);
  init_res(&why);
  st = ptc_pmu_read(root, &pmu, &why);
  CHECK(st == 0 && !pmu.noretcomp && pmu.config == 0x2401, "no noretcomp term: config %#llx",
        (unsigned long long)pmu.config);

  /* no tsc term: refused, naming it */
  char tsc[1100];
  snprintf(tsc, sizeof tsc, "%s/intel_pt/format/tsc", root);
  unlink(tsc);
  init_res(&why);
  st = ptc_pmu_read(root, &pmu, &why);
  CHECK(st == ASMSPY_E_NO_KERNEL && strstr(why.reason, "'tsc'"), "missing tsc: %d %s", st,
        why.reason);

  /* an unparsable term */
  fake_pmu(root, "9\n", "config:zz\n", "config:13\n", "config:10\n", NULL, NULL);
  init_res(&why);
  st = ptc_pmu_read(root, &pmu, &why);
  CHECK(st == ASMSPY_E_NO_KERNEL && strstr(why.reason, "unparsable"), "unparsable pt: %s",
        why.reason);

  /* no PMU at all */
  rm_rf(root);
  mkdir(root, 0755);
  init_res(&why);
  st = ptc_pmu_read(root, &pmu, &why);
  CHECK((st == ASMSPY_E_NO_HW || st == ASMSPY_E_NO_KERNEL) && strstr(why.reason, "intel_pt"),
        "no PMU: %d %s", st, why.reason);
  rm_rf(root);

  /* the real machine: whatever it says, it says why */
  init_res(&why);
  st = ptc_pmu_read(PP_SYSFS_PMU_ROOT, &pmu, &why);
  printf("# this machine: %s\n", st == 0 ? "intel_pt PMU present" : why.reason);
  CHECK(st == 0 || why.reason[0], "a reason when absent");

  char buf[64];
  CHECK(
      !strcmp(ptc_aux_flags_text(PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL, buf, sizeof buf),
              "truncated,partial"),
      "aux flags text: %s", buf);
  CHECK(!strcmp(ptc_aux_flags_text(0, buf, sizeof buf), "none"), "no flags: %s", buf);
}

/* ------------------------------------------------------- fake ring + AUX */

struct fake {
  uint8_t *mem; /* control page + data pages */
  struct ptc_event ev;
  size_t page, dsize;
};

static void fake_init(struct fake *f, size_t data_pages, size_t aux_size) {
  memset(f, 0, sizeof *f);
  f->page = 4096;
  f->dsize = data_pages * f->page;
  f->mem = aligned_alloc(4096, f->page + f->dsize);
  memset(f->mem, 0, f->page + f->dsize);
  f->ev.fd = -1;
  f->ev.ring.base = f->mem;
  f->ev.ring.len = f->page + f->dsize;
  f->ev.ring.page = f->page;
  f->ev.ring.pc = (struct perf_event_mmap_page *)f->mem;
  f->ev.ring.pc->data_offset = f->page;
  f->ev.ring.pc->data_size = f->dsize;
  f->ev.aux = calloc(1, aux_size);
  f->ev.aux_size = aux_size;
}

static void fake_free(struct fake *f) {
  free(f->mem);
  free(f->ev.aux);
}

/* Append one record at data_head (wrapping), as the kernel would. */
static void ring_put(struct fake *f, const void *rec, size_t len) {
  uint64_t head = f->ev.ring.pc->data_head;
  const uint8_t *b = rec;
  for (size_t i = 0; i < len; i++) f->mem[f->page + ((head + i) % f->dsize)] = b[i];
  f->ev.ring.pc->data_head = head + len;
}

struct collect {
  uint8_t bytes[1 << 16];
  size_t len;
  int calls;
  struct ptc_record rec[16];
  char names[16][64];
  int n;
};

static int collect_bytes(void *ctx, const uint8_t *b, size_t len) {
  struct collect *c = ctx;
  memcpy(c->bytes + c->len, b, len);
  c->len += len;
  c->calls++;
  return 0;
}

static void collect_rec(void *ctx, const struct ptc_record *r) {
  struct collect *c = ctx;
  if (c->n >= 16) return;
  c->rec[c->n] = *r;
  snprintf(c->names[c->n], sizeof c->names[c->n], "%s", r->name ? r->name : "");
  c->n++;
}

static void test_drain_aux(void) {
  struct fake f;
  fake_init(&f, 2, 4096);
  for (size_t i = 0; i < 4096; i++) f.ev.aux[i] = (uint8_t)(i * 7);
  static struct collect c;
  /* bytes [4000, 4000+300): wraps after 96 */
  f.ev.aux_tail = 4000;
  f.ev.ring.pc->aux_tail = 4000;
  f.ev.ring.pc->aux_head = 4300;
  memset(&c, 0, sizeof c);
  uint64_t copied = 0;
  int rc = ptc_drain_aux(&f.ev, collect_bytes, &c, &copied);
  int in_order = c.len == 300;
  for (size_t i = 0; in_order && i < 300; i++)
    in_order = c.bytes[i] == (uint8_t)(((4000 + i) % 4096) * 7);
  CHECK(rc == 0 && copied == 300 && c.calls == 2 && in_order,
        "[4000, 4300) across the wrap: 2 pieces, in order (%zu bytes, %d calls)", c.len, c.calls);
  CHECK(f.ev.ring.pc->aux_tail == 4300 && f.ev.aux_tail == 4300, "aux_tail published: %llu",
        (unsigned long long)f.ev.ring.pc->aux_tail);
  /* nothing new */
  memset(&c, 0, sizeof c);
  ptc_drain_aux(&f.ev, collect_bytes, &c, &copied);
  CHECK(c.len == 0 && copied == 0, "head == tail: nothing");
  /* lapped (overwrite mode only): the newest aux_size bytes, the rest counted */
  f.ev.ring.pc->aux_head = 4300 + 5000;
  memset(&c, 0, sizeof c);
  ptc_drain_aux(&f.ev, collect_bytes, &c, &copied);
  CHECK(c.len == 4096 && f.ev.aux_dropped == 5000 - 4096, "lapped: newest 4096 kept, %llu dropped",
        (unsigned long long)f.ev.aux_dropped);
  fake_free(&f);
}

static void test_drain_records(void) {
  struct fake f;
  fake_init(&f, 1, 4096);
  /* start near the end so records straddle it */
  f.ev.ring.pc->data_head = f.ev.ring.pc->data_tail = 4096 - 24;
  struct {
    struct perf_event_header h;
    uint64_t off, size, flags;
  } aux = {{PERF_RECORD_AUX, 0, sizeof aux}, 0x100, 0x2000, PERF_AUX_FLAG_TRUNCATED};
  ring_put(&f, &aux, sizeof aux);
  struct {
    struct perf_event_header h;
    uint64_t id, lost;
  } lost = {{PERF_RECORD_LOST, 0, sizeof lost}, 7, 42};
  ring_put(&f, &lost, sizeof lost);
  struct {
    struct perf_event_header h;
    uint32_t pid, ppid, tid, ptid;
    uint64_t time;
  } ex = {{PERF_RECORD_EXIT, 0, sizeof ex}, 100, 1, 101, 100, 5};
  ring_put(&f, &ex, sizeof ex);
  struct {
    struct perf_event_header h;
    uint32_t pid, tid;
    char comm[16];
  } comm = {{PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof comm}, 100, 100, "victim"};
  ring_put(&f, &comm, sizeof comm);
  struct {
    struct perf_event_header h;
    uint32_t pid, tid;
    uint64_t addr, len, pgoff;
    uint32_t maj, min;
    uint64_t ino, gen;
    uint32_t prot, flags;
    char name[24];
  } mm = {{PERF_RECORD_MMAP2, 0, sizeof mm},
          100,
          100,
          0x7f0000001000ull,
          0x3000,
          0x1000,
          8,
          1,
          1234,
          0,
          PROT_READ | PROT_EXEC,
          MAP_PRIVATE,
          "/usr/lib/libjit.so"};
  ring_put(&f, &mm, sizeof mm);
  static struct collect c;
  memset(&c, 0, sizeof c);
  int n = ptc_drain_records(&f.ev, collect_rec, &c);
  CHECK(n == 5 && c.n == 5, "5 records (%d)", n);
  CHECK(c.rec[0].type == PERF_RECORD_AUX && c.rec[0].aux_flags == PERF_AUX_FLAG_TRUNCATED &&
            c.rec[0].aux_size == 0x2000,
        "AUX record across the ring end: flags %#llx", (unsigned long long)c.rec[0].aux_flags);
  CHECK(c.rec[1].type == PERF_RECORD_LOST && c.rec[1].lost == 42, "LOST 42");
  CHECK(c.rec[2].type == PERF_RECORD_EXIT && c.rec[2].tid == 101 && c.rec[2].pid == 100,
        "EXIT tid 101");
  CHECK(c.rec[3].type == PERF_RECORD_COMM && (c.rec[3].misc & PERF_RECORD_MISC_COMM_EXEC) &&
            !strcmp(c.names[3], "victim"),
        "COMM exec 'victim'");
  CHECK(c.rec[4].type == PERF_RECORD_MMAP2 && c.rec[4].addr == 0x7f0000001000ull &&
            c.rec[4].pgoff == 0x1000 && (c.rec[4].prot & PROT_EXEC) &&
            !strcmp(c.names[4], "/usr/lib/libjit.so"),
        "MMAP2 %s at %#llx", c.names[4], (unsigned long long)c.rec[4].addr);
  CHECK(f.ev.ring.pc->data_tail == f.ev.ring.pc->data_head, "data_tail released");
  /* a corrupt header (size 0) ends the walk without looping */
  struct perf_event_header bad = {PERF_RECORD_AUX, 0, 0};
  ring_put(&f, &bad, sizeof bad);
  memset(&c, 0, sizeof c);
  CHECK(ptc_drain_records(&f.ev, collect_rec, &c) == 0, "a zero-size header ends the walk");
  fake_free(&f);
}

/* ---------------------------------------- the real kernel via a fake PMU */

/* A sysfs tree whose "intel_pt" is the software PMU (type 1) with every term
 * at config bit 0: config = 1 = PERF_COUNT_SW_TASK_CLOCK. perf_event_open
 * and the data ring work; software events have no AUX area. */
static void soft_pmu(const char *root) {
  fake_pmu(root, "1\n", "config:0\n", "config:0\n", "config:0\n", NULL, "2\n");
}

static void test_open_real_kernel(void) {
  char root[] = "/tmp/asmspy-ptsoft-XXXXXX";
  CHECK(mkdtemp(root) != NULL, "mkdtemp");
  soft_pmu(root);
  struct ptc_pmu pmu;
  struct asmspy_probe_result why;
  init_res(&why);
  CHECK(ptc_pmu_read(root, &pmu, &why) == 0 && pmu.type == 1 && pmu.config == 1,
        "the fake tree names the software PMU");
  struct ptc_event ev;
  struct ptc_open_opts oo = {
      .tid = 0, .sideband = 1, .aux_bytes = 1 << 20, .aux_min = 64 << 10, .data_pages_log2 = 1};
  char reason[300] = "";
  int st = ptc_open(&ev, &pmu, &oo, reason, sizeof reason);
  printf("# ptc_open on the software PMU: %d: %s\n", st, reason);
  CHECK(st != 0 && strstr(reason, "AUX area"),
        "perf_event_open and the ring worked; the AUX mmap was refused: %s", reason);
  CHECK(ev.fd == -1 && ev.aux == NULL && ev.ring.base == NULL, "nothing left open or mapped");
  rm_rf(root);
}

/* ----------------------------------------------------------------- maps */

static void test_maps(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  CHECK(n > 0, "readlink /proc/self/exe");
  if (n <= 0) return;
  exe[n] = '\0';
  struct stat st;
  CHECK(stat(exe, &st) == 0, "stat %s", exe);
  char text[9000];
  snprintf(text, sizeof text,
           "555555554000-555555556000 r--p 00000000 08:01 %llu   %s\n"
           "555555556000-55555555a000 r-xp 00002000 08:01 %llu   %s\n"
           "7f0000000000-7f0000010000 rwxp 00000000 00:00 0 \n"
           "7f0000010000-7f0000011000 r-xp 00000000 08:01 99 /tmp/a file with spaces\n"
           "garbage line\n"
           "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0                  [vdso]\n",
           (unsigned long long)st.st_ino, exe, (unsigned long long)st.st_ino, exe);
  struct ptm_maps m;
  CHECK(ptm_parse(text, &m) == 0 && m.n == 5, "5 mappings parsed, the garbage line skipped (%zu)",
        m.n);
  const struct ptm_map *x = ptm_find(&m, 0x555555557000ull);
  CHECK(x && x->offset == 0x2000 && x->prot == (PTM_READ | PTM_EXEC) && !strcmp(x->path, exe),
        "the text mapping");
  CHECK(x && ptm_is_file_backed(x), "the text mapping is file-backed (same inode)");
  CHECK(!ptm_is_file_backed(ptm_find(&m, 0x7ffff7fc1000ull)), "[vdso] is not");
  char f[600];
  int form = ptm_filter_string(&m, 0x555555557100ull, 0x80, f, sizeof f);
  char want[600];
  snprintf(want, sizeof want, "filter 0x3100/0x80@%s", exe);
  CHECK(form == 1 && !strcmp(f, want), "file form: '%s'", f);
  form = ptm_filter_string(&m, 0x7f0000000100ull, 0x40, f, sizeof f);
  CHECK(form == 0 && !strcmp(f, "filter 0x7f0000000100/0x40"), "anonymous: address form '%s'", f);
  form = ptm_filter_string(&m, 0x7f0000010000ull, 0x40, f, sizeof f);
  CHECK(form == 0, "a path with spaces cannot be carried: address form '%s'", f);
  form = ptm_filter_string(&m, 0x555555559f00ull, 0x200, f, sizeof f);
  CHECK(form == 0, "a range past the mapping's end: address form '%s'", f);
  CHECK(ptm_filter_string(&m, 0x1000, 0, f, sizeof f) == -EINVAL, "an empty range is refused");
  CHECK(ptm_filter_string(&m, 0x555555557100ull, 0x80, f, 10) == -EINVAL, "a short buffer too");
  ptm_free(&m);
  struct ptm_maps self;
  CHECK(ptm_read("/proc/self/maps", &self) == 0 && self.n > 5, "/proc/self/maps: %zu", self.n);
  ptm_free(&self);
  CHECK(ptm_read("/proc/0/maps", &self) < 0, "an unreadable maps file is an error");
}

/* ------------------------------------------------------- inproc delivery */

/* The program of pt_synth.h in this binary's .text. */
/* clang-format off */
__asm__(".text\n"
        ".globl asmspy_pt_cap_code\n"
        ".type asmspy_pt_cap_code, @function\n"
        ".p2align 6\n"
        "asmspy_pt_cap_code:\n"
        ".byte 0x31,0xc0, 0xb9,0x03,0x00,0x00,0x00, 0x83,0xc0,0x02, 0xff,0xc9, 0x75,0xf9\n"
        ".byte 0xe8,0x0d,0x00,0x00,0x00, 0xff,0xe3\n"
        ".fill 11,1,0xcc\n"
        ".byte 0x83,0xc0,0x01,0xc3\n"
        ".fill 12,1,0xcc\n"
        ".byte 0x0f,0x05, 0x90, 0x0f,0x05\n"
        ".fill 11,1,0xcc\n"
        ".size asmspy_pt_cap_code, 64\n");
/* clang-format on */
extern const uint8_t asmspy_pt_cap_code[];

struct got {
  uint64_t ips[256];
  size_t n;
  int target_null;
  char notes[8][400];
  size_t nnotes;
};

static int got_sink(void *ctx, const struct asmspy_event *ev) {
  struct got *g = ctx;
  if (ev->type == ASMSPY_EV_INSN) {
    if (g->n < 256) g->ips[g->n++] = ev->ip;
    if (ev->target != NULL) g->target_null = 0;
  } else if (ev->type == ASMSPY_EV_NOTE && g->nnotes < 8) {
    snprintf(g->notes[g->nnotes++], sizeof g->notes[0], "%s", ev->u.note.text);
  }
  return 0;
}

static int has_note(const struct got *g, const char *prefix, const char *needle) {
  for (size_t i = 0; i < g->nnotes; i++)
    if (!strncmp(g->notes[i], prefix, strlen(prefix)) && strstr(g->notes[i], needle)) return 1;
  return 0;
}

static void test_inproc_deliver(void) {
  uint64_t B = (uint64_t)(uintptr_t)asmspy_pt_cap_code;
  struct syn s;
  syn_init(&s);
  size_t len = syn_program(&s, B, 1, NULL);
  CHECK(!s.bad, "synthesize");
  static uint8_t aux[8192];
  memset(aux, 0, sizeof aux);
  memcpy(aux, s.buf, len);
  struct pt_inproc_capture c;
  memset(&c, 0, sizeof c);
  c.aux = aux;
  c.aux_size = sizeof aux;
  c.aux_head = len;
  c.pid = getpid();
  c.tid = 77;
  static struct got g;

  memset(&g, 0, sizeof g);
  g.target_null = 1;
  CHECK(pt_inproc_deliver(&c, got_sink, &g) == 0, "deliver");
  int exact = g.n == SYN_EXPECTED_N;
  for (size_t i = 0; exact && i < g.n; i++) exact = g.ips[i] == B + syn_expected_offsets[i];
  CHECK(exact && g.target_null && g.nnotes == 0,
        "own image: the exact 16 instructions, target NULL, no note (%zu, %zu notes)", g.n,
        g.nnotes);

  /* region: the callee only */
  c.region_start = B + 0x20;
  c.region_len = 4;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(g.n == 2 && g.ips[0] == B + 0x20 && g.ips[1] == B + 0x23, "region: 2 (%zu)", g.n);
  c.region_len = 0;

  /* drop (the plugin's own text): the first 14 bytes */
  c.drop_start = B;
  c.drop_len = 0x0e;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(g.n == SYN_EXPECTED_N - 11 && g.ips[0] == B + 0x0e, "drop: %zu left", g.n);
  c.drop_len = 0;

  /* the kernel said TRUNCATED */
  c.aux_flags = PERF_AUX_FLAG_TRUNCATED;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(g.n == SYN_EXPECTED_N && has_note(&g, "truncated: ", "filled"),
        "TRUNCATED: all decoded + a 'truncated: ... filled' note (%s)", g.nnotes ? g.notes[0] : "");
  c.aux_flags = 0;

  /* the head ran to the end of the area: the trace stopped there */
  c.aux_head = sizeof aux - 100;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(has_note(&g, "truncated: ", "implied by the head"), "full area: truncated note");
  c.aux_head = len;

  /* wrapped: the stream's first bytes sit at the end of the area */
  static uint8_t ring[8192];
  memset(ring, 0, sizeof ring);
  size_t start = sizeof ring - 20; /* 20 bytes at the end, the rest at the start */
  for (size_t i = 0; i < len; i++) ring[(start + i) % sizeof ring] = s.buf[i];
  struct pt_inproc_capture w = c;
  w.aux = ring;
  w.aux_size = sizeof ring;
  w.aux_head = sizeof ring + (start + len) % sizeof ring; /* lapped once */
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&w, got_sink, &g);
  exact = g.n == SYN_EXPECTED_N;
  for (size_t i = 0; exact && i < g.n; i++) exact = g.ips[i] == B + syn_expected_offsets[i];
  CHECK(exact && has_note(&g, "truncated: ", "wrapped"),
        "wrapped ring: decoded in ring order + a 'wrapped' note (%zu insns)", g.n);

  /* max_insns */
  c.max_insns = 4;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(g.n == 4 && has_note(&g, "truncated: ", "max_insns (4)"), "max_insns 4: %zu", g.n);
  c.max_insns = 0;

  /* a corrupt trace: a note that the listing has gaps */
  static uint8_t junk[4096];
  memcpy(junk, s.buf, 24); /* PSB + the first packets */
  for (size_t i = 24; i < sizeof junk; i++) junk[i] = (uint8_t)(i * 151 + 7);
  c.aux = junk;
  c.aux_size = sizeof junk;
  c.aux_head = 2000;
  memset(&g, 0, sizeof g);
  pt_inproc_deliver(&c, got_sink, &g);
  CHECK(has_note(&g, "truncated: ", "gaps"), "garbage: a 'truncated: ... gaps' note");
  CHECK(has_note(&g, "gap: ", "decode error"), "and a 'gap: ... decode error' note in place");
  syn_done(&s);
}

/* -------------------------- in-process ops and run() on the fake PMU root */

static char g_notes[16][512];
static int g_nnotes;

static void fake_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out;
  (void)level;
  if (g_nnotes >= 16) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_notes[g_nnotes++], sizeof g_notes[0], fmt, ap);
  va_end(ap);
}

static int null_sink(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  (void)ev;
  return 0;
}

static void test_ops_on_fake_root(void) {
  /* IPT_SYSFS_ROOT of this test's build of the plugin sources (meson.build) */
  rm_rf(IPT_SYSFS_ROOT);
  soft_pmu(IPT_SYSFS_ROOT);
  void *h = (void *)1;
  int rc = ipt_inproc_begin(NULL, NULL, &h);
  CHECK(rc < 0 && h == NULL, "inproc_begin on a PMU without AUX: %d, no handle", rc);
  rc = ipt_inproc_begin(NULL, NULL, &h);
  CHECK(rc < 0 && rc != -ASMSPY_E_ATTACH_BUSY,
        "a failed begin leaves nothing armed (the second is not 'busy'): %d", rc);
  CHECK(ipt_inproc_end(NULL, null_sink, NULL) == -ASMSPY_E_USAGE, "end(NULL): usage");

  /* run() on a live child: every thread's event fails at the AUX mmap */
  pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  struct asmspy_host_api host;
  memset(&host, 0, sizeof host);
  ASMSPY_INIT_HEADER(&host);
  host.note = fake_note;
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "stream";
  s.pid = child;
  s.max = 10;
  s.sink = null_sink;
  g_nnotes = 0;
  rc = ipt_run(&host, &s);
  CHECK(rc < 0, "run() returns a negative status: %d", rc);
  int named = 0;
  for (int i = 0; i < g_nnotes; i++) named |= strstr(g_notes[i], "AUX area") != NULL;
  CHECK(named, "run() says why (%s)", g_nnotes ? g_notes[0] : "no note");
  CHECK(kill(child, 0) == 0, "the target is untouched");
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);

  /* run() on a pid that is gone */
  s.pid = child;
  g_nnotes = 0;
  rc = ipt_run(&host, &s);
  CHECK(rc < 0, "run() on a dead pid: %d (%s)", rc, g_nnotes ? g_notes[0] : "");

  /* no PMU at all: run() is a SKIP with the reason */
  rm_rf(IPT_SYSFS_ROOT);
  mkdir(IPT_SYSFS_ROOT, 0755);
  s.pid = getpid();
  g_nnotes = 0;
  rc = ipt_run(&host, &s);
  CHECK(rc == -ASMSPY_E_NO_HW || rc == -ASMSPY_E_NO_KERNEL, "no PMU: %d", rc);
  CHECK(g_nnotes >= 1 && strstr(g_notes[0], "intel_pt"), "the skip note names it: %s",
        g_nnotes ? g_notes[0] : "");
  rm_rf(IPT_SYSFS_ROOT);
}

int main(void) {
  test_pmu_read();
  test_drain_aux();
  test_drain_records();
  test_open_real_kernel();
  test_maps();
  test_inproc_deliver();
  test_ops_on_fake_root();
  return check_summary("test_pt_capture");
}
