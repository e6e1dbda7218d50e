/* scope.c — the scoped-tracing core (include/asmspy/scope.h, docs/scope.md).
 *
 * A scope is an enable/disable window on the calling thread, captured by a
 * backend's in-process ops (ABI 1.4) found through the ordinary engine: no
 * second capture stack. On end the recorded instruction addresses are
 * rendered as `function+0xoff [module]  disasm` (host describe + Capstone),
 * printed to stdout (unless quiet) and, only when ASMSPY_SCOPE_FILE asks for
 * it, written to a file (scope_file.c: where, and how safely).
 *
 * Two rules keep asmspy's own instructions out of the capture:
 *   - asmspy_scope_begin() does nothing after the backend's inproc_begin()
 *     returns, and asmspy_scope_end() nothing before calling inproc_end();
 *     the backend drops its own text, this file drops libasmspy's text.
 *   - the contiguous tail that led into asmspy_scope_end (its PLT stub and,
 *     with lazy binding, the dynamic linker resolving it once) is trimmed.
 * What remains is the caller's own glue around the two calls (storing the
 * handle, loading it, the `call`): a few instructions, whole-window only.
 */
#define _GNU_SOURCE
/* Reasons are one line, truncation of an over-long one is intended. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <asmspy/scope.h>

#include "common/exec_segment.h"
#include "host/host.h"
#include "host/scope_file.h"
#include "host/scope_lines.h"
#include "common/strbuf.h"

#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The tiers are the backends' own (backend_ops.inproc_tier, ABI 1.8): the
 * host names no backend. Indexed by enum asmspy_tier. */
static const char *const tier_names[] = {"NONE", "WEAK", "STRONG", "CEILING"};
#define TIER_NONE ASMSPY_TIER_NONE
#define TIER_WEAK ASMSPY_TIER_WEAK
#define TIER_STRONG ASMSPY_TIER_STRONG
#define TIER_CEILING ASMSPY_TIER_CEILING

#define SCOPE_DEFAULT_MAX (1u << 20)

struct rec {
  uint64_t ip; /* 0: a gap note (text) at this position of the stream */
  uint8_t bytes[16];
  uint8_t len;
  char *text;
  uint64_t from, to; /* a sampled branch edge (ip 0, text NULL) */
  int misp;
};

struct slot {
  char *name;
  char path[512];
  uint64_t uses;
};

struct asmspy_scope {
  char *name;
  size_t slot;
  int tier;
  int ended;
  int truncated;
  uint64_t gaps;       /* stretches stepped over untraced (clone, SIGTRAP blocked) */
  uint64_t branches;   /* sampled branch edges (amd_lbr: the CEILING tier) */
  const char *backend; /* the plugin armed (its registry name) */
  unsigned flags;
  pid_t tid;
  const struct asmspy_backend_ops *ops;
  void *handle;
  uint64_t region_start, region_len;
  char reason[512];
  struct rec *recs;
  size_t nrecs, caprecs;
  uint64_t count;
  char *text;
  size_t text_cap; /* its allocation (render), kept for the thread's next scope */
  char path[512];
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *g_slots;
static size_t g_nslots, g_capslots;
static struct asmspy_engine *g_engine;
static struct asmspy_target *g_target;
static uint64_t g_lib_lo, g_lib_hi; /* libasmspy's executable segment */

static pid_t scope_tid(void) { return (pid_t)syscall(SYS_gettid); }

static int scope_sink(void *ctx, const struct asmspy_event *ev);

/* [A-Za-z0-9._-], everything else '_'; bounded. */
static void sanitize(const char *in, char *out, size_t cap) {
  size_t j = 0;
  for (size_t i = 0; in[i] && j + 1 < cap && j < 96; i++) {
    char c = in[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '-' || c == '_';
    out[j++] = ok ? c : '_';
  }
  out[j] = 0;
  if (!j) snprintf(out, cap, "scope");
}

/* Under g_lock. Idempotent by name: one slot per distinct name. */
static size_t register_slot(const char *name) {
  for (size_t i = 0; i < g_nslots; i++)
    if (!strcmp(g_slots[i].name, name)) {
      g_slots[i].uses++;
      return i;
    }
  if (g_nslots == g_capslots) {
    size_t nc = g_capslots ? 2 * g_capslots : 16;
    struct slot *n = realloc(g_slots, nc * sizeof *n);
    if (!n) return (size_t)-1;
    g_slots = n;
    g_capslots = nc;
  }
  struct slot *sl = &g_slots[g_nslots];
  memset(sl, 0, sizeof *sl);
  sl->name = strdup(name);
  if (!sl->name) return (size_t)-1;
  char clean[128];
  sanitize(name, clean, sizeof clean);
  scope_file_path(clean, sl->path, sizeof sl->path); /* "" unless a file is asked for */
  sl->uses = 1;
  return g_nslots++;
}

size_t asmspy_scope_slot_count(void) {
  pthread_mutex_lock(&g_lock);
  size_t n = g_nslots;
  pthread_mutex_unlock(&g_lock);
  return n;
}

/* Under g_lock: the engine, once per process, kept for its lifetime. */
static struct asmspy_engine *engine(void) {
  if (!g_engine) g_engine = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!g_lib_hi) exec_segment_of((const void *)(uintptr_t)&scope_sink, &g_lib_lo, &g_lib_hi);
  return g_engine;
}

static int has_inproc(const struct asmspy_plugin_info *row) {
  if (!row || !row->desc || !row->desc->backend) return 0;
  const struct asmspy_backend_ops *b = row->desc->backend;
  return ASMSPY_HAS(b, inproc_end) && b->inproc_begin && b->inproc_end;
}

/* The tier a loaded backend's in-process ops record (0: none declared). */
static uint32_t tier_of(const struct asmspy_plugin_info *row) {
  if (!row || !row->desc || row->kind != ASMSPY_KIND_BACKEND || !row->desc->backend) return 0;
  const struct asmspy_backend_ops *b = row->desc->backend;
  if (!ASMSPY_HAS(b, inproc_order) || b->inproc_tier > TIER_CEILING) return 0;
  return b->inproc_tier;
}

/* Place in the whole-window ladder: STRONG (every branch) before WEAK
 * (every instruction, slowly); CEILING (sampled edges: what ran, not all of
 * it) is never chosen unless asked for. -1 = not in the ladder. */
static int ladder_rank(uint32_t tier) {
  return tier == TIER_STRONG ? 0 : tier == TIER_WEAK ? 1 : -1;
}

static int by_ladder(const void *x, const void *y) {
  const struct asmspy_plugin_info *a = *(const struct asmspy_plugin_info *const *)x;
  const struct asmspy_plugin_info *b = *(const struct asmspy_plugin_info *const *)y;
  int ra = ladder_rank(tier_of(a)), rb = ladder_rank(tier_of(b));
  if (ra != rb) return ra < rb ? -1 : 1;
  uint32_t oa = a->desc->backend->inproc_order, ob = b->desc->backend->inproc_order;
  if (oa != ob) return oa < ob ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* ASMSPY_SCOPE_BACKEND=<name>: only that backend may arm a scope (e.g.
 * singlestep where codecache would be chosen). NULL: any. */
static const char *forced_backend(void) {
  const char *b = getenv("ASMSPY_SCOPE_BACKEND");
  return b && *b ? b : NULL;
}

/* The backends declaring `tier` (0: every tier in the ladder), best first. */
static size_t tier_backends(struct asmspy_engine *e, uint32_t tier,
                            const struct asmspy_plugin_info **out, size_t cap) {
  size_t n = 0;
  const char *only = forced_backend();
  for (size_t i = 0; i < asmspy_plugin_count(e) && n < cap; i++) {
    const struct asmspy_plugin_info *row = asmspy_plugin_at(e, i);
    uint32_t t = tier_of(row);
    if (only && strcmp(row->name, only) != 0) continue;
    if (t && (tier ? t == tier : ladder_rank(t) >= 0)) out[n++] = row;
  }
  if (n > 1) qsort(out, n, sizeof *out, by_ladder);
  return n;
}

/* Probe (isolated, once: the registry caches it) and explain. 1 = usable. */
static int usable(struct asmspy_engine *e, const struct asmspy_plugin_info *row, char *why,
                  size_t cap) {
  asmspy_probe_plugin(e, (struct asmspy_plugin_info *)row);
  if (row->status != ASMSPY_USABLE) {
    snprintf(why, cap, "%s: %s (%s)", row->name, row->reason, asmspy_strerror(row->status));
    return 0;
  }
  return 1;
}

static void arm(asmspy_scope *s, const struct asmspy_plugin_info *row) {
  s->ops = row->desc->backend;
  s->backend = row->name;
  s->tier = (int)tier_of(row);
}

/* Scope flag -> the tier it asks for directly (include/asmspy/scope.h). */
static uint32_t explicit_tier(unsigned flags) {
  if (flags & ASMSPY_SCOPE_STRONG) return TIER_STRONG;
  if (flags & ASMSPY_SCOPE_CEILING) return TIER_CEILING;
  return 0;
}

/* An explicit tier: its first usable backend, or a self-skip naming why. */
static void choose_explicit(asmspy_scope *s, struct asmspy_engine *e, uint32_t tier) {
  const struct asmspy_plugin_info *rows[16];
  size_t n = tier_backends(e, tier, rows, sizeof rows / sizeof rows[0]);
  if (!n) {
    snprintf(s->reason, sizeof s->reason,
             "self-skip: no loaded backend records the %s tier in-process "
             "(backend plugin not found? ASMSPY_PLUGIN_PATH)",
             tier_names[tier]);
    return;
  }
  char why[300] = "";
  for (size_t i = 0; i < n; i++) {
    if (!usable(e, rows[i], why, sizeof why)) continue;
    if (!has_inproc(rows[i])) {
      snprintf(why, sizeof why,
               "%s: usable here, but the backend has no in-process (ABI 1.4 "
               "inproc_begin/inproc_end) ops yet",
               rows[i]->name);
      continue;
    }
    arm(s, rows[i]);
    snprintf(s->reason, sizeof s->reason, "%s: explicit", rows[i]->name);
    return;
  }
  snprintf(s->reason, sizeof s->reason, "self-skip: %s", why);
}

/* Pick the backend for s (under g_lock). Sets s->tier/ops/reason. The
 * ladder passes over `refused` (backends whose inproc_begin declined this
 * scope as ASMSPY_FACT_UNSUITED), saying so in the reason. */
static void choose(asmspy_scope *s, const char *const *refused, size_t nrefused) {
  struct asmspy_engine *e = engine();
  if (!e) {
    snprintf(s->reason, sizeof s->reason, "the asmspy engine could not be opened");
    return;
  }
  uint32_t tier = explicit_tier(s->flags);
  if (tier) {
    choose_explicit(s, e, tier);
    return;
  }
  /* The whole-window ladder: the strongest usable tier with in-process ops;
   * each one passed over is said in the reason. */
  const struct asmspy_plugin_info *rows[16];
  size_t n = tier_backends(e, 0, rows, sizeof rows / sizeof rows[0]);
  char skipped[400] = "";
  for (size_t i = 0; i < n; i++) {
    char why[300];
    int was_refused = 0;
    for (size_t k = 0; k < nrefused; k++) was_refused |= !strcmp(refused[k], rows[i]->name);
    if (was_refused) {
      size_t k = strlen(skipped);
      snprintf(skipped + k, sizeof skipped - k, "%s%s: %s", k ? "; " : "", rows[i]->name,
               asmspy_strerror(ASMSPY_FACT_UNSUITED));
      continue;
    }
    if (usable(e, rows[i], why, sizeof why) && has_inproc(rows[i])) {
      arm(s, rows[i]);
      if (skipped[0])
        snprintf(s->reason, sizeof s->reason, "%s: %s tier in-process (skipped: %s)", rows[i]->name,
                 tier_names[s->tier], skipped);
      else
        snprintf(s->reason, sizeof s->reason, "%s: %s tier, usable with in-process ops",
                 rows[i]->name, tier_names[s->tier]);
      return;
    }
    if (usable(e, rows[i], why, sizeof why))
      snprintf(why, sizeof why, "%s: usable, but has no in-process ops yet", rows[i]->name);
    size_t k = strlen(skipped);
    snprintf(skipped + k, sizeof skipped - k, "%s%s", k ? "; " : "", why);
  }
  if (forced_backend() && !skipped[0]) {
    snprintf(s->reason, sizeof s->reason,
             "ASMSPY_SCOPE_BACKEND=%s: no loaded backend of that name records in-process",
             forced_backend());
    return;
  }
  snprintf(s->reason, sizeof s->reason, "no in-process backend%s%s", skipped[0] ? ": " : "",
           skipped[0] ? skipped
                      : " (no loaded backend records in-process; plugins not found? "
                        "ASMSPY_PLUGIN_PATH)");
}

/* inproc_begin's refusals, worded for the tier that gave them (the
 * single-step tier's codes mean TF-specific things; a PMU backend's EBUSY is
 * another perf user holding the PMU, not a nested scope). */
static const char *begin_error(int tier, int rc) {
  if (tier != TIER_WEAK) {
    if (-rc == ASMSPY_E_ATTACH_BUSY) return "the PMU is busy (another perf user holds it)";
    return asmspy_strerror(rc);
  }
  switch (-rc) {
  case ASMSPY_E_ATTACH_BUSY: return "nested scope on this thread";
  case ASMSPY_E_ATTACH_PERM:
    return "the program installed its own SIGTRAP handler; single-step would have to chain it";
  case ASMSPY_E_PERM: return "SIGTRAP is blocked on this thread; a forced trap would kill it";
  case ASMSPY_E_NOMEM: return "out of memory for the recording buffer";
  default: return asmspy_strerror(rc);
  }
}

/* What begin returns, and the backend's arm_tail (ABI 1.12) the public
 * entry jumps to in place of its return (NULL: return normally). Two words:
 * rax and rdx on x86-64. */
struct scope_begin_ret {
  asmspy_scope *s;
  void (*tail)(void);
};

/* The end entry the stepping tier stops at (its real address inside this
 * library, never a PLT or a canonical address elsewhere). */
extern __typeof(asmspy_scope_end) scope_end_entry
    __attribute__((alias("asmspy_scope_end"), visibility("hidden")));

__attribute__((no_sanitize_address, used, visibility("hidden"))) struct scope_begin_ret
scope_begin_impl(const char *name, const void *code, size_t len, unsigned flags);

#if defined(__x86_64__)
/* asmspy_scope_begin: the work is scope_begin_impl's; this shell only
 * jumps to the backend's arm_tail, when it gave one, instead of returning.
 * That function starts the capture as it returns straight to our caller, so
 * nothing of libasmspy (this shell, the impl's epilogue, the PLT return)
 * is ever stepped: a scope's first trap is in the caller's own code. */
/* clang-format off */
__asm__(".text\n"
        ".globl asmspy_scope_begin\n"
        ".type asmspy_scope_begin, @function\n"
        "asmspy_scope_begin:\n"
        "  .cfi_startproc\n"
        "  endbr64\n"
        "  subq $8, %rsp\n"
        "  .cfi_def_cfa_offset 16\n"
        "  call scope_begin_impl\n"
        "  addq $8, %rsp\n"
        "  .cfi_def_cfa_offset 8\n"
        "  testq %rdx, %rdx\n"
        "  jz 1f\n"
        "  jmp *%rdx\n"
        "1:ret\n"
        "  .cfi_endproc\n"
        ".size asmspy_scope_begin, .-asmspy_scope_begin\n");
/* clang-format on */
#else
asmspy_scope *asmspy_scope_begin(const char *name, const void *code, size_t len, unsigned flags) {
  struct scope_begin_ret r = scope_begin_impl(name, code, len, flags);
  if (r.tail) r.tail(); /* no stepping tier arms this way off x86-64 */
  return r.s;
}
#endif

struct scope_begin_ret scope_begin_impl(const char *name, const void *code, size_t len,
                                        unsigned flags) {
  struct scope_begin_ret ret = {NULL, NULL};
  asmspy_scope *s = calloc(1, sizeof *s);
  ret.s = s;
  if (!s) return ret;
  s->name = strdup(name && *name ? name : "scope");
  s->flags = flags;
  s->tid = scope_tid();
  pthread_mutex_lock(&g_lock);
  s->slot = s->name ? register_slot(s->name) : (size_t)-1;
  if (s->slot != (size_t)-1) snprintf(s->path, sizeof s->path, "%s", g_slots[s->slot].path);
  pthread_mutex_unlock(&g_lock);
  /* 1.12: a backend may decline one scope (ASMSPY_FACT_UNSUITED, nothing
   * armed, e.g. the translating tier in a process with JIT code): the
   * ladder then goes on to the next one */
  const char *refused[4];
  size_t nrefused = 0;
again:
  pthread_mutex_lock(&g_lock);
  s->tier = TIER_NONE;
  s->ops = NULL;
  choose(s, refused, nrefused);
  if (s->tier != TIER_NONE && code) {
    s->region_start = (uint64_t)(uintptr_t)code;
    s->region_len = len;
    if (!len) { /* the covering symbol's extent */
      if (!g_target) g_target = target_open(getpid(), NULL);
      struct asmspy_symbol sym;
      memset(&sym, 0, sizeof sym);
      ASMSPY_INIT_HEADER(&sym);
      if (!g_target || target_symbolize(g_target, s->region_start, &sym) != 0 ||
          sym.kind == ASMSPY_SYM_UNKNOWN || !sym.size) {
        snprintf(s->reason, sizeof s->reason, "no sized symbol covers %p (pass an explicit len)",
                 code);
        s->tier = TIER_NONE;
      } else {
        s->region_start = sym.start;
        s->region_len = sym.size;
      }
    }
  }
  pthread_mutex_unlock(&g_lock);
  if (s->tier == TIER_NONE) return ret;
  struct asmspy_inproc_req req;
  memset(&req, 0, sizeof req);
  ASMSPY_INIT_HEADER(&req);
  req.region_start = s->region_start;
  req.region_len = s->region_len;
  const char *mx = getenv("ASMSPY_SCOPE_MAX_INSNS");
  req.max_insns = mx && atoll(mx) > 0 ? (uint64_t)atoll(mx) : SCOPE_DEFAULT_MAX;
  req.end_entry = (uint64_t)(uintptr_t)&scope_end_entry;
  req.end_arg = (uint64_t)(uintptr_t)s;
  req.arm_tail = &ret.tail;
  const struct asmspy_host_api *host = asmspy_host_api();
  /* Nothing after a successful arm: a backend that armed at once steps
   * every instruction from here on (dropped as libasmspy's own); one that
   * gave an arm_tail starts as the shell returns. */
  int rc = s->ops->inproc_begin(host, &req, &s->handle);
  if (__builtin_expect(rc == 0, 1)) return ret;
  ret.tail = NULL;
  if (rc == ASMSPY_FACT_UNSUITED && !explicit_tier(s->flags) &&
      nrefused < sizeof refused / sizeof refused[0]) {
    refused[nrefused++] = s->backend;
    s->handle = NULL;
    goto again;
  }
  snprintf(s->reason, sizeof s->reason, "%s: %s", tier_names[s->tier], begin_error(s->tier, rc));
  s->tier = TIER_NONE;
  s->handle = NULL;
  return ret;
}

/* A thread's spare record array: its next scope takes it instead of
 * faulting in fresh pages (a Python or Ruby scope records 5,000-16,000
 * instructions every time; fresh pages were a tenth of its cost). Freed
 * at thread exit; arrays above SPARE_MAX records are not kept. */
#define SPARE_MAX (1u << 16)
struct spare {
  struct rec *recs;
  size_t cap;
  char *text; /* a freed scope's listing buffer, for the next render */
  size_t text_cap;
};
static pthread_key_t g_spare_key;
static pthread_once_t g_spare_once = PTHREAD_ONCE_INIT;
static void spare_free(void *p) {
  struct spare *sp = p;
  if (sp) free(sp->recs), free(sp->text);
  free(sp);
}
static void spare_init(void) { pthread_key_create(&g_spare_key, spare_free); }
static struct spare *spare_get(void) {
  pthread_once(&g_spare_once, spare_init);
  struct spare *sp = pthread_getspecific(g_spare_key);
  if (!sp && (sp = calloc(1, sizeof *sp))) pthread_setspecific(g_spare_key, sp);
  return sp;
}

static int scope_sink(void *ctx, const struct asmspy_event *ev) {
  asmspy_scope *s = ctx;
  int gap = 0;
  if (ev->type == ASMSPY_EV_NOTE && ev->u.note.text) {
    /* ASMSPY_SCOPE_DEBUG=1: the backend's own accounting (e.g. the traps
     * the stepping tier took), on stderr */
    if (!strncmp(ev->u.note.text, "debug: ", 7)) {
      if (getenv("ASMSPY_SCOPE_DEBUG")) fprintf(stderr, "asmspy scope: %s\n", ev->u.note.text + 7);
      return 0;
    }
    if (!strncmp(ev->u.note.text, "truncated: ", 11)) {
      s->truncated = 1;
      snprintf(s->reason, sizeof s->reason, "%s", ev->u.note.text + 11);
    }
    /* A stepped-over stretch (clone, SIGTRAP blocked): shown in place. */
    if (strncmp(ev->u.note.text, "gap: ", 5) != 0) return 0;
    gap = 1;
    s->gaps++;
  }
  int branch = ev->type == ASMSPY_EV_BRANCH; /* amd_lbr: sampled edges */
  if (ev->type != ASMSPY_EV_INSN && !gap && !branch) return 0;
  if (!s->recs) { /* the thread's spare array, when it kept one */
    struct spare *sp = spare_get();
    if (sp && sp->recs) {
      s->recs = sp->recs;
      s->caprecs = sp->cap;
      sp->recs = NULL;
      sp->cap = 0;
    }
  }
  if (s->nrecs == s->caprecs) {
    size_t nc = s->caprecs ? 2 * s->caprecs : 256;
    struct rec *n = realloc(s->recs, nc * sizeof *n);
    if (!n) return 1;
    s->recs = n;
    s->caprecs = nc;
  }
  struct rec *r = &s->recs[s->nrecs++];
  memset(r, 0, sizeof *r);
  if (gap) {
    r->ip = 0;
    r->len = 0;
    r->text = strdup(ev->u.note.text);
    return 0;
  }
  if (branch) { /* rendered as "from -> to" in render(), counted apart */
    r->ip = 0;
    r->len = 0;
    r->from = ev->u.branch.from;
    r->to = ev->u.branch.to;
    r->misp = (ev->flags & ASMSPY_EVF_BR_MISP) != 0;
    s->branches++;
    return 0;
  }
  r->ip = ev->ip;
  r->len = ev->u.insn.len > 16 ? 16 : ev->u.insn.len;
  memcpy(r->bytes, ev->u.insn.bytes, r->len);
  return 0;
}

static void free_recs(asmspy_scope *s) {
  for (size_t i = 0; i < s->nrecs; i++) free(s->recs[i].text);
  struct spare *sp = s->recs && s->caprecs <= SPARE_MAX ? spare_get() : NULL;
  if (sp && s->caprecs > sp->cap) {
    free(sp->recs);
    sp->recs = s->recs, sp->cap = s->caprecs;
  } else {
    free(s->recs);
  }
  s->recs = NULL;
  s->nrecs = s->caprecs = 0;
}

static int in_lib(uint64_t ip) { return ip >= g_lib_lo && ip < g_lib_hi; }

/* Growing string. */

/* The tail that led into asmspy_scope_end: its PLT stub and, under lazy
 * binding, the dynamic linker resolving it (once per process). */
static int is_entry_glue(uint64_t ip) {
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  if (target_symbolize(g_target, ip, &sym) != 0) return 0;
  if (sym.name) {
    size_t n = strlen(sym.name);
    if ((n > 4 && !strcmp(sym.name + n - 4, "@plt")) || !strncmp(sym.name, ".plt", 4)) return 1;
  }
  return sym.module && !strncmp(sym.module, "ld-linux", 8);
}

static void render(asmspy_scope *s) {
  struct strbuf b = {0};
  /* One line per record (~45 bytes): reserve it up front. strbuf grows by
   * what each append needs, so a million-instruction scope otherwise
   * reallocates (and, under ASan, copies) tens of MB tens of thousands of
   * times: half an hour to render scope_bench 200000 in the sanitizer build. */
  size_t want = s->nrecs * 64 + 4096;
  struct spare *sp = spare_get(); /* the buffer of this thread's last freed scope */
  if (sp && sp->text && sp->text_cap >= want) {
    b.s = sp->text, want = sp->text_cap;
    sp->text = NULL, sp->text_cap = 0;
  } else {
    b.s = malloc(want);
  }
  if (b.s) {
    b.cap = want;
    b.s[0] = 0;
  }
  if (!g_target && s->nrecs) g_target = target_open(getpid(), NULL);
  /* Trim the glue before the last entry into libasmspy (= asmspy_scope_end):
   * recorded up to that entry by a backend that steps into it, up to the
   * trap on it by one that stops there (ABI 1.12 end_entry: a complete
   * scope then ends with the PLT stub or the resolver that led into it). */
  size_t end = s->nrecs;
  if (!s->region_len && g_target && end && (in_lib(s->recs[end - 1].ip) || !s->truncated)) {
    while (end > 0 && in_lib(s->recs[end - 1].ip)) end--;
    while (end > 0 && is_entry_glue(s->recs[end - 1].ip)) end--;
  }
  uint64_t count = 0;
  scope_lines_check_maps();
  for (size_t i = 0; i < end; i++) {
    const struct rec *r = &s->recs[i];
    if (!r->ip) {
      if (r->text) {
        strbuf_addf(&b, "# %s\n", r->text);
      } else if (r->from || r->to) {
        char f[256], t[256];
        const char *fd = g_target ? target_describe(g_target, r->from, f, sizeof f) : NULL;
        const char *td = g_target ? target_describe(g_target, r->to, t, sizeof t) : NULL;
        strbuf_addf(&b, "branch %s -> %s%s\n", fd ? fd : "?", td ? td : "?",
                    r->misp ? " [misp]" : "");
      }
      continue;
    }
    if (in_lib(r->ip)) continue;
    scope_line_add(&b, g_target, r->ip, r->bytes, r->len);
    count++;
  }
  s->count = count;
  if (s->branches)
    strbuf_addf(&b,
                "# %llu sampled branch edges (a ceiling on control flow, not every "
                "instruction)\n",
                (unsigned long long)s->branches);
  strbuf_addf(&b, "# scope %s: %llu instructions, tier %s%s%s%s\n", s->name ? s->name : "?",
              (unsigned long long)count, tier_names[s->tier],
              s->gaps ? ", with untraced gaps (see '# gap:' lines)" : "",
              s->truncated ? ", TRUNCATED: " : "", s->truncated ? s->reason : "");
  if (s->tier == TIER_NONE) strbuf_addf(&b, "# not captured: %s\n", s->reason);
  s->text = b.s ? b.s : strdup("");
  s->text_cap = b.s ? b.cap : 0;
}

__attribute__((no_sanitize_address)) int asmspy_scope_end(asmspy_scope *s) {
  if (!s) return -ASMSPY_E_USAGE;
  if (s->ended) return 0;
  int rc = 0;
  /* First thing: stop the capture (the backend's own entry is the stop). */
  if (s->handle) rc = s->ops->inproc_end(s->handle, scope_sink, s);
  s->handle = NULL;
  s->ended = 1;
  pid_t me = scope_tid();
  if (me != s->tid && !s->truncated) {
    s->truncated = 1;
    snprintf(s->reason, sizeof s->reason,
             "thread hop: the scope began on tid %d and ended on tid %d", (int)s->tid, (int)me);
  }
  if (s->truncated && s->tid != me) free_recs(s); /* never partial-as-complete */
  pthread_mutex_lock(&g_lock);
  render(s);
  pthread_mutex_unlock(&g_lock);
  free_recs(s);
  if (s->path[0] && scope_file_write(s->path, s->text) != 0) s->path[0] = 0;
  const char *emit = getenv("ASMSPY_SCOPE_EMIT");
  if (!(s->flags & ASMSPY_SCOPE_QUIET) && !(emit && !strcmp(emit, "0"))) {
    fputs(s->text, stdout);
    fflush(stdout);
  }
  return rc;
}

void asmspy_scope_free(asmspy_scope *s) {
  if (!s) return;
  if (!s->ended) asmspy_scope_end(s);
  free_recs(s);
  struct spare *sp = s->text_cap && s->text_cap <= SPARE_MAX * 64u ? spare_get() : NULL;
  if (sp && s->text_cap > sp->text_cap) { /* the next scope's render writes into it */
    free(sp->text);
    sp->text = s->text, sp->text_cap = s->text_cap;
  } else {
    free(s->text);
  }
  free(s->name);
  free(s);
}

void asmspy_scope_cleanup(asmspy_scope **sp) {
  if (sp && *sp) {
    asmspy_scope_free(*sp);
    *sp = NULL;
  }
}

const char *asmspy_scope_text(const asmspy_scope *s) { return s && s->text ? s->text : ""; }
const char *asmspy_scope_path(const asmspy_scope *s) { return s && s->ended ? s->path : ""; }
uint64_t asmspy_scope_insn_count(const asmspy_scope *s) { return s ? s->count : 0; }
int asmspy_scope_truncated(const asmspy_scope *s) { return s ? s->truncated : 0; }
uint64_t asmspy_scope_gaps(const asmspy_scope *s) { return s ? s->gaps : 0; }
const char *asmspy_scope_tier(const asmspy_scope *s) { return s ? tier_names[s->tier] : "NONE"; }
const char *asmspy_scope_reason(const asmspy_scope *s) { return s ? s->reason : "no scope"; }
const char *asmspy_scope_name(const asmspy_scope *s) { return s && s->name ? s->name : ""; }
