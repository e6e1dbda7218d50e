/* tests/unit/fake_sampling_host.h — a scripted host for the offline tests of
 * the sampling side (test_sample_view, test_auto_pick): the plugins are
 * compiled into the test and talk to this table instead of libasmspy.
 *
 *   symbols   a fixed table of functions (fake_funcs): symbolize/describe
 *   output    emit/note append to fake_out (one line per text line), and
 *             the JSON bodies to fake_json; wants_json/wants_text by flag
 *   regions   resolve_region for "0xADDR:LEN"
 *   sampler   run_sampler delivers fake_sampler_events[] to the caller's
 *             sink, then returns fake_sampler_rc, recording the rung asked for
 *
 * Why a fake: the IBS/LBR rungs cannot run on the development machines (no
 * PMU), yet the views must render and rank their branch samples correctly;
 * this drives exactly those paths with synthesized events. */
#ifndef ASMSPY_TESTS_UNIT_FAKE_SAMPLING_HOST_H
#define ASMSPY_TESTS_UNIT_FAKE_SAMPLING_HOST_H

#include <asmspy/plugin.h>
#include "common/option_parse.h" /* the host's own option parser */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_TARGET ((struct asmspy_target *)0x1)

struct fake_func {
  const char *name, *module;
  uint64_t start, size;
};

/* The address space every test uses: a victim and a libc. */
static const struct fake_func fake_funcs[] = {
    {"main", "auto_victim", 0x401000, 0x80},
    {"entered_often", "auto_victim", 0x401100, 0x1d},
    {"grind_forever", "auto_victim", 0x401200, 0x4d},
    {"cold_path", "auto_victim", 0x401300, 0x20},
    {"hot_spin", "sample_victim", 0x402000, 0x40},
    {"main", "sample_victim", 0x402100, 0x80},
    {"memcpy", "libc.so.6", 0x7f0000001000, 0x100},
};
#define FAKE_NFUNCS (sizeof fake_funcs / sizeof fake_funcs[0])

static char fake_out[65536];     /* text lines, '\n'-separated */
static char fake_json[65536];    /* "type {fields}" lines */
static int fake_wants_json_flag; /* --json: JSON only */
static int fake_record_flag;     /* --record without --json: text and JSON */

static void fake_reset_output(void) {
  fake_out[0] = 0;
  fake_json[0] = 0;
}

static void fake_append(char *buf, size_t cap, const char *text) {
  size_t n = strlen(buf);
  snprintf(buf + n, cap - n, "%s\n", text);
}

static int fake_emit(struct asmspy_out *out, const char *type, const char *json, const char *text) {
  (void)out;
  if (text && !fake_wants_json_flag) fake_append(fake_out, sizeof fake_out, text);
  if (!fake_wants_json_flag && !fake_record_flag) return 0;
  char line[4096];
  snprintf(line, sizeof line, "%s {%s}", type, json ? json : "");
  fake_append(fake_json, sizeof fake_json, line);
  return 0;
}

static void fake_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out;
  char text[1024], line[1100];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  snprintf(line, sizeof line, "%s%s", level == ASMSPY_NOTE_SKIP ? "# SKIP " : "# ", text);
  fake_append(fake_out, sizeof fake_out, line);
}

static size_t fake_json_escape(char *dst, size_t cap, const char *src, size_t len) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 2 < cap; i++) {
    if (src[i] == '"' || src[i] == '\\') dst[k++] = '\\';
    dst[k++] = src[i];
  }
  dst[k] = 0;
  return k;
}

static int fake_symbolize(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out) {
  (void)t;
  for (size_t i = 0; i < FAKE_NFUNCS; i++) {
    const struct fake_func *f = &fake_funcs[i];
    if (addr >= f->start && addr < f->start + f->size) {
      out->name = f->name;
      out->module = f->module;
      out->module_path = f->module;
      out->start = f->start;
      out->size = f->size;
      out->offset = addr - f->start;
      out->kind = strcmp(f->module, "libc.so.6") ? ASMSPY_SYM_INTERNAL : ASMSPY_SYM_EXTERNAL;
      return 0;
    }
  }
  out->name = NULL;
  out->module = "?";
  out->start = out->size = out->offset = 0;
  out->kind = ASMSPY_SYM_UNKNOWN;
  return 0;
}

static const char *fake_describe(struct asmspy_target *t, uint64_t addr, char *buf, size_t cap) {
  struct asmspy_symbol s;
  memset(&s, 0, sizeof s);
  fake_symbolize(t, addr, &s);
  if (s.name)
    snprintf(buf, cap, "%s+0x%" PRIx64 " [%s]", s.name, s.offset, s.module);
  else
    snprintf(buf, cap, "0x%" PRIx64 " [?]", addr);
  return buf;
}

static int fake_wants_json(const struct asmspy_out *out) {
  (void)out;
  return fake_wants_json_flag || fake_record_flag;
}
static int fake_wants_text(const struct asmspy_out *out) {
  (void)out;
  return !fake_wants_json_flag;
}

static int fake_resolve_region(struct asmspy_target *t, const char *spec, uint64_t *start,
                               uint64_t *len, char *err, size_t errcap) {
  (void)t;
  char *end = NULL;
  *start = strtoull(spec, &end, 16);
  if (!end || *end != ':') {
    snprintf(err, errcap, "fake: want 0xADDR:LEN, got '%s'", spec);
    return -ASMSPY_E_USAGE;
  }
  *len = strtoull(end + 1, NULL, 0);
  return 0;
}

static int fake_operands(uint64_t ip, const uint8_t *b, size_t n, const struct asmspy_regs *r,
                         struct asmspy_operands *o) {
  (void)ip, (void)b, (void)n, (void)r, (void)o;
  return 0;
}

static const char *fake_strerror(int status) {
  static char buf[64];
  snprintf(buf, sizeof buf, "status %d", status);
  return buf;
}

/* run_sampler's script */
static struct asmspy_event fake_sampler_events[1024];
static size_t fake_sampler_nevents;
static int fake_sampler_rc;
static char fake_sampler_asked[32];
static int64_t fake_sampler_window;

static inline void fake_sampler_reset(void) {
  fake_sampler_nevents = 0;
  fake_sampler_rc = 0;
  fake_sampler_asked[0] = 0;
  fake_sampler_window = 0;
}

/* Queue `weight` copies of one event. */
static inline void fake_queue(uint16_t type, uint16_t flags, uint64_t ip, uint64_t from,
                              uint64_t to, unsigned copies) {
  for (unsigned i = 0; i < copies && fake_sampler_nevents < 1024; i++) {
    struct asmspy_event *ev = &fake_sampler_events[fake_sampler_nevents++];
    memset(ev, 0, sizeof *ev);
    ASMSPY_INIT_HEADER(ev);
    ev->type = type;
    ev->flags = flags;
    ev->pid = 1234;
    ev->tid = 1234;
    ev->ip = ip;
    ev->target = FAKE_TARGET;
    if (type == ASMSPY_EV_BRANCH) {
      ev->u.branch.from = from;
      ev->u.branch.to = to;
    } else if (type == ASMSPY_EV_SAMPLE) {
      ev->u.sample.weight = 1;
    }
  }
}

static inline void fake_queue_prov(const char *sampler, uint64_t samples, uint64_t branch) {
  struct asmspy_event *ev = &fake_sampler_events[fake_sampler_nevents++];
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = ASMSPY_EV_PROVENANCE;
  ev->pid = 1234;
  ev->target = FAKE_TARGET;
  ev->u.prov.samples = samples;
  ev->u.prov.branch_samples = branch;
  ev->u.prov.window_ns = 400000000;
  ev->u.prov.sampler = sampler;
}

static int fake_run_sampler(const struct asmspy_session *s, const char *sampler, int64_t window_ms,
                            asmspy_sink_fn sink, void *ctx, char *used, size_t cap) {
  (void)s;
  snprintf(fake_sampler_asked, sizeof fake_sampler_asked, "%s", sampler ? sampler : "(ladder)");
  fake_sampler_window = window_ms;
  for (size_t i = 0; i < fake_sampler_nevents; i++) sink(ctx, &fake_sampler_events[i]);
  if (used && cap) snprintf(used, cap, "%s", sampler ? sampler : "sw");
  return fake_sampler_rc;
}

/* Just enough x86 for synthesized streams: call rel32 (e8), call rax
 * (ff d0), ret (c3), nop (90). Tests that feed instructions set
 * fake_host.disasm to it. */
static inline int fake_disasm_min(uint64_t ip, const uint8_t *b, size_t n, char *text, size_t cap) {
  if (n >= 5 && b[0] == 0xe8) {
    int32_t rel;
    memcpy(&rel, b + 1, 4);
    snprintf(text, cap, "call 0x%" PRIx64, ip + 5 + (uint64_t)(int64_t)rel);
    return 5;
  }
  if (n >= 2 && b[0] == 0xff && b[1] == 0xd0) return snprintf(text, cap, "call rax"), 2;
  if (n >= 1 && b[0] == 0xc3) return snprintf(text, cap, "ret"), 1;
  if (n >= 1 && b[0] == 0x90) return snprintf(text, cap, "nop"), 1;
  return 0;
}

/* The same four instructions as ASMSPY_INSN_* classes (host->insn_class):
 * tests that set fake_host.disasm to fake_disasm_min set insn_class to it. */
static inline uint32_t fake_insn_class_min(uint64_t ip, const uint8_t *b, size_t n) {
  char text[64];
  int len = fake_disasm_min(ip, b, n, text, sizeof text);
  if (len <= 0) return 0;
  uint32_t c = ASMSPY_INSN_DECODED | (uint32_t)len << ASMSPY_INSN_LEN_SHIFT;
  if (b[0] == 0xe8) c |= ASMSPY_INSN_CALL | ASMSPY_INSN_RELATIVE;
  if (b[0] == 0xff) c |= ASMSPY_INSN_CALL | ASMSPY_INSN_INDIRECT;
  if (b[0] == 0xc3) c |= ASMSPY_INSN_RET;
  return c;
}

static struct asmspy_host_api fake_host;
/* the real arch description (host/arch/arch_<arch>.c) where the test links
 * it (a view that needs host->arch: dataflow, ABI 1.12), else NULL */
extern const struct asmspy_arch arch_info __attribute__((weak));

static void fake_host_init(void) {
  memset(&fake_host, 0, sizeof fake_host);
  ASMSPY_INIT_HEADER(&fake_host);
  fake_host.emit = fake_emit;
  fake_host.note = fake_note;
  fake_host.json_escape = fake_json_escape;
  fake_host.symbolize = fake_symbolize;
  fake_host.describe = fake_describe;
  fake_host.strerror = fake_strerror;
  fake_host.parse_options = asmspy_option_parse;
  fake_host.wants_json = fake_wants_json;
  fake_host.wants_text = fake_wants_text;
  fake_host.resolve_region = fake_resolve_region;
  fake_host.operands = fake_operands;
  fake_host.run_sampler = fake_run_sampler;
  fake_host.arch = &arch_info;
}

/* A session as the engine builds it for `pid 1234`. */
static void fake_session(struct asmspy_session *s, const char *mode, int argc, char **argv) {
  memset(s, 0, sizeof *s);
  ASMSPY_INIT_HEADER(s);
  s->mode = mode;
  s->pid = 1234;
  s->target = FAKE_TARGET;
  s->out = (struct asmspy_out *)0x2;
  s->argc = argc;
  s->argv = argv;
}

/* Does fake_out hold exactly this line? */
static inline int fake_has_line(const char *line) {
  size_t n = strlen(line);
  for (const char *p = fake_out; (p = strstr(p, line)) != NULL; p++)
    if ((p == fake_out || p[-1] == '\n') && p[n] == '\n') return 1;
  return 0;
}

#endif /* ASMSPY_TESTS_UNIT_FAKE_SAMPLING_HOST_H */
