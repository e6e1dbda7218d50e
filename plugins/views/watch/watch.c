/* watch: who touches a field, and with what value
 * (`asmspy --watch <pid> <sym|sym+off|0xADDR> [n] [--rw] [--len=1|2|4|8]`).
 *
 * open() parses the options (no target needed: --len, --rw, the address
 * argument's presence); configure() resolves the address through
 * host->resolve_data (a data symbol, sym+off or 0xADDR), picks the width
 * and checks its alignment, and fills the session's watch fields for the
 * backend (hwwatch). Each ASMSPY_EV_WATCH_HIT becomes one line
 *
 *   [tid] function+off [module]  disasm   old -> new
 *
 * and one `watch` record in --json. n hits (default 10) end the run.
 * Every validation failure is a usage error (exit 2) with one line saying
 * what is wrong.
 */
#include <asmspy/plugin.h>
#include "plugins/common/view_options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

/* Its records (the `watch_records` table at the end of this file). */
enum { WATCH_REC_WATCHPOINT, WATCH_REC_HIT, WATCH_REC_SUMMARY, WATCH_REC_N };
static const struct asmspy_record_schema watch_records[WATCH_REC_N + 1];

#define WATCH_DEFAULT_N 10
/* Its positionals, and the options this mode accepts after them: parsing,
 * --help, the man page, shell completion and serve's checks read the table
 * (the index enum keeps open() in step with it). */
#define POSITIONALS "<pid> <sym|sym+off|0xADDR> [n]"
enum { OPT_RW, OPT_LEN };
static const struct asmspy_option watch_options[] = {
    [OPT_RW] = {"rw", NULL, "also report reads (default: writes only)"},
    /* a placeholder, not choices: the view's own message names the widths */
    [OPT_LEN] = {"len", "<bytes>", "watch 1, 2, 4 or 8 bytes (default: from the symbol's size)"},
    {NULL, NULL, NULL},
};

struct watch_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  const char *spec; /* the address argument */
  unsigned len;     /* --len, 0 = from the symbol's size */
  int rw;           /* --rw */
  uint64_t addr;
  char name[256]; /* what the user named: the spec */
  int64_t want;
  uint64_t hits;
};

static int usage_error(const struct asmspy_host_api *host, const char *fmt, const char *arg) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, arg);
  const struct asmspy_session s = {.mode = "watch"};
  return vo_refuse(host, &s, watch_options, POSITIONALS, "%s", msg);
}

static int parse_len(const char *v, unsigned *out) {
  if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "4") && strcmp(v, "8")) return -1;
  *out = (unsigned)(v[0] - '0');
  return 0;
}

static int watch_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  const char *spec = NULL;
  unsigned len = 0;
  int rw = 0;
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, watch_options, POSITIONALS, &ov);
  if (rc) return rc;
  rw = ov.value[OPT_RW] != NULL;
  if (ov.value[OPT_LEN] && parse_len(ov.value[OPT_LEN], &len) != 0) {
    char a[128];
    snprintf(a, sizeof a, "--len=%.100s", ov.value[OPT_LEN]);
    return usage_error(host, "%s: the width must be 1, 2, 4 or 8 bytes", a);
  }
  if (ov.npos > 1)
    return usage_error(host, "unexpected argument '%s' (one address per watch)", ov.pos[1]);
  if (ov.npos) spec = ov.pos[0];
  if (!spec) return usage_error(host, "%s", "needs an address to watch");
  struct watch_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->spec = spec;
  st->len = len;
  st->rw = rw;
  st->want = s->max ? s->max : WATCH_DEFAULT_N;
  snprintf(st->name, sizeof st->name, "%s", spec);
  *state = st;
  return 0;
}

/* The widest of 8/4/2/1 that fits what is left of the symbol (4 for a raw
 * address) and to which addr is naturally aligned. */
static unsigned default_len(uint64_t addr, uint64_t size) {
  uint64_t cap = size ? size : 4;
  for (unsigned l = 8; l > 1; l /= 2)
    if (l <= cap && (addr % l) == 0) return l;
  return 1;
}

static int watch_configure(void *state, const struct asmspy_host_api *host,
                           struct asmspy_session *s) {
  struct watch_state *st = state;
  if (!ASMSPY_HAS(host, resolve_data) || !host->resolve_data || !ASMSPY_HAS(s, watch_access)) {
    host->note(s->out, ASMSPY_NOTE_WARN, "--watch needs a host with ABI 1.5 (resolve_data)");
    return -ASMSPY_E_ABI;
  }
  char err[256];
  uint64_t addr = 0, size = 0;
  int rc = host->resolve_data(s->target, st->spec, &addr, &size, err, sizeof err);
  if (rc) {
    host->note(s->out, ASMSPY_NOTE_WARN, "--watch: %s", err);
    return rc;
  }
  unsigned len = st->len ? st->len : default_len(addr, size);
  if (addr % len) {
    host->note(s->out, ASMSPY_NOTE_WARN,
               "--watch: %s = 0x%" PRIx64 " is not %u-byte aligned: a hardware watchpoint "
               "covers a naturally aligned 1/2/4/8 bytes (x86 DR7 requires it); give an "
               "aligned address or a smaller --len",
               st->spec, addr, len);
    return -ASMSPY_E_USAGE;
  }
  if (size && len > size)
    host->note(s->out, ASMSPY_NOTE_WARN,
               "--watch: --len=%u also covers %" PRIu64 " byte(s) past the end of %s", len,
               len - size, st->spec);
  st->addr = addr;
  st->len = len;
  s->watch_addr = addr;
  s->watch_len = len;
  s->watch_access = ASMSPY_WATCH_WRITE | (st->rw ? ASMSPY_WATCH_READ : 0u);
  if (!s->max) s->max = st->want; /* the backend stops at n hits too */

  const char *what = st->rw ? "reads and writes" : "writes";
  char text[512];
  snprintf(text, sizeof text, "watching %s @ 0x%" PRIx64 " (%u byte%s, %s) in pid %d", st->name,
           addr, len, len == 1 ? "" : "s", what, (int)s->pid);
  const struct asmspy_value v[] = {rv_str(st->name),
                                   rv_hex(addr),
                                   rv_int(len),
                                   rv_int((int64_t)size),
                                   rv_str(st->rw ? "rw" : "write"),
                                   rv_int(s->pid)};
  rec_emit(host, s->out, &watch_records[WATCH_REC_WATCHPOINT], v, text);
  return 0;
}

/* The value as a signed integer of the watched width. */
static int64_t signed_of(uint64_t v, unsigned len) {
  if (len >= 8) return (int64_t)v;
  unsigned bits = 8 * len;
  uint64_t m = 1ull << (bits - 1);
  v &= (1ull << bits) - 1;
  return (int64_t)((v ^ m) - m);
}

static int render_hit(struct watch_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  uint8_t bytes[16];
  char dis[128] = "(unreadable)";
  ssize_t n = ev->target ? h->read_mem(ev->target, ev->ip, bytes, sizeof bytes) : -1;
  if (n > 0 && h->disasm(ev->ip, bytes, (size_t)n, dis, sizeof dis) <= 0)
    snprintf(dis, sizeof dis, "(bad)");
  char where[384];
  h->describe(ev->target, ev->ip, where, sizeof where);
  unsigned len = ev->u.watch.len ? ev->u.watch.len : st->len;
  int64_t oldv = signed_of(ev->u.watch.old_value, len);
  int64_t newv = signed_of(ev->u.watch.new_value, len);
  int read = (ev->flags & ASMSPY_EVF_WATCH_READ) != 0;
  int concurrent = (ev->flags & ASMSPY_EVF_WATCH_CONCURRENT) != 0;
  st->hits++;

  char text[768];
  int off = 0;
  if (ev->nthreads > 1 || st->s->tid == 0) off = snprintf(text, sizeof text, "[%d] ", (int)ev->tid);
  snprintf(text + off, sizeof text - (size_t)off, "%-40s  %-36s   %" PRId64 " -> %" PRId64 "%s%s",
           where, dis, oldv, newv, read ? "   (read)" : "",
           concurrent ? "   (another thread wrote too: value read after both)" : "");

  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  h->symbolize(ev->target, ev->ip, &sym);
  const char *module = sym.module ? sym.module : "?";
  const struct asmspy_value v[] = {
      rv_int((int64_t)st->hits),
      rv_int(ev->tid),
      rv_hex(ev->ip),
      rv_str(sym.name), /* NULL: null */
      rv_int((int64_t)(sym.name ? sym.offset : 0)),
      rv_str(module),
      rv_str(dis),
      rv_str(st->name),
      rv_hex(ev->u.watch.addr),
      rv_int(len),
      rv_str(read ? "read" : "write"),
      rv_int(oldv),
      rv_int(newv),
      rv_hex(ev->u.watch.old_value),
      rv_hex(ev->u.watch.new_value),
      rv_int(ev->u.watch.slot),
      rv_bool(concurrent),
  };
  rec_emit(h, st->s->out, &watch_records[WATCH_REC_HIT], v, text);
  return st->want > 0 && (int64_t)st->hits >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

static int watch_consume(void *state, const struct asmspy_event *ev) {
  struct watch_state *st = state;
  if (ev->type == ASMSPY_EV_WATCH_HIT) return render_hit(st, ev);
  return ASMSPY_CONSUME_MORE;
}

static int watch_finish(void *state, int end_status) {
  struct watch_state *st = state;
  if (end_status < 0) return 0; /* the engine reports the failure */
  char text[384];
  snprintf(text, sizeof text, "%" PRIu64 " hit%s on %s", st->hits, st->hits == 1 ? "" : "s",
           st->name);
  const struct asmspy_value v[] = {rv_str(st->name), rv_int((int64_t)st->hits)};
  rec_emit(st->host, st->s->out, &watch_records[WATCH_REC_SUMMARY], v, text);
  return 0;
}

static void watch_close(void *state) { free(state); }

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field watchpoint_fields[] = {
    RF_STR("name", 0, "the watched datum as given"),
    RF_HEX("addr", 0, "its address"),
    RF_INT_IN("len", "1|2|4|8", 0, "the watched width in bytes"),
    RF_INT("size", 0, OPT, "its symbol's size (0: a raw address)"),
    RF_ENUM("access", "write|rw|read", 0, "what fires it"),
    RF_INT("pid", 0, OPT, "the target"),
    RF_END,
};
static const struct asmspy_field watch_hit_fields[] = {
    RF_INT("hit", 1, OPT, "1-based hit number"),
    RF_INT("tid", ANY_INT, 0, "the touching thread"),
    RF_HEX("ip", 0, "the instruction that touched it"),
    RF_STR("sym", NUL, "its symbol"),
    RF_INT("off", 0, OPT, "offset from the symbol"),
    RF_STR("module", OPT, "its module"),
    RF_STR("disasm", 0, "that instruction"),
    RF_STR("name", 0, "the watched datum"),
    RF_HEX("addr", 0, "its address"),
    RF_INT_IN("len", "1|2|4|8", 0, "the watched width"),
    RF_ENUM("access", "write|rw|read", 0, "write, or read (a read/write access)"),
    RF_INT("old", ANY_INT, ASMSPY_FIELDF_HIGHLIGHT, "value before, signed at the watched width"),
    RF_INT("new", ANY_INT, ASMSPY_FIELDF_HIGHLIGHT, "value after, signed at the watched width"),
    RF_HEX("old_hex", OPT, "the value before, raw hex"),
    RF_HEX("new_hex", OPT, "the value after, raw hex"),
    RF_INT("slot", 0, OPT, "hardware slot (DR0-3 / wvr index)"),
    RF_BOOL("concurrent", OPT,
            "another armed thread sat in an uncollected trap as the value was read: new may be "
            "its write"),
    RF_END,
};
static const struct asmspy_field watch_summary_fields[] = {
    RF_STR("name", 0, "the watched datum"),
    RF_INT("hits", 0, 0, "hits in total"),
    RF_END,
};

static const struct asmspy_record_schema watch_records[WATCH_REC_N + 1] = {
    [WATCH_REC_WATCHPOINT] = {"watchpoint", "what is watched, once before the hits",
                              watchpoint_fields, NULL},
    [WATCH_REC_HIT] = {"watch", "one hit: the toucher, old -> new", watch_hit_fields, NULL},
    [WATCH_REC_SUMMARY] = {"watch_summary", "hits in total, at the end", watch_summary_fields,
                           NULL},
    [WATCH_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu: the TUI asks for the address, the width
 * and the access first (tui/watch_prompt.c), then runs it until stopped. */
static const struct asmspy_tui_entry watch_tui = {0, ASMSPY_TUI_FEED, ASMSPY_TUIF_PICK_DATA,
                                                  "data watchpoints"};

static const struct asmspy_view_ops watch_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "watch",
    .caps_required = ASMSPY_CAP_WATCHPOINTS,
    .usage = POSITIONALS,
    .open = watch_open,
    .consume = watch_consume,
    .finish = watch_finish,
    .close = watch_close,
    .configure = watch_configure,
    .options = watch_options,
    .option_caps = NULL,
    .records = watch_records,
    .tui = &watch_tui,
};

static const struct asmspy_plugin watch_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "watch",
    .description = "hardware data watchpoint: who touches a field, and the value",
    .caps = ASMSPY_CAP_WATCHPOINTS,
    .view = &watch_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(watch_plugin)
