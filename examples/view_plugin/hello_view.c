/* hello_view: a complete out-of-tree asmspy view plugin.
 *
 *   asmspy --hello <pid> [n]     (n defaults to 10; negative = until exit)
 *
 * Counts the instructions the capture backend reports (ASMSPY_EV_INSN) and,
 * at the end, prints one summary through the host's writer:
 *
 *   hello: saw 50 instructions in 3 functions
 *
 * That summary is a typed record: the view declares its `hello` record in a
 * schema (hello_records) and hands the host the values (emit_record); the
 * host renders --json / --record from them, asmtrace-check validates
 * recordings of it against the schema and --replay prints it, though the
 * host has never heard of this view.
 *
 * After the summary it writes one `hello_function` record per function
 * (its entry, name and instructions). The roles in that schema are all it
 * takes to get a rich screen in the interactive TUI, which knows no view:
 * `insns` is a SORT_KEY (Tab sorts the rows by it) and `addr` a DRILL_FUNC
 * (Enter opens the function-picking mode, data flow, on that function).
 *
 * It is built against nothing but the installed header, found through
 * pkg-config (see the Makefile next to this file), and it links no host
 * symbol: every service comes from the `host` table handed to open().
 * Install the resulting asmspy_hello.so into `pkg-config --variable=plugindir
 * asmspy`, or put its directory on $ASMSPY_PLUGIN_PATH. docs/ABI.md has the
 * rules this file follows. */
#include <asmspy/plugin.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_DEFAULT_N 10

/* A small open-addressing set of function start addresses, with each
 * function's name and instruction count. */
struct addr_set {
  uint64_t *slots; /* 0 = empty (no function starts at address 0) */
  uint64_t *counts;
  char **names;
  size_t cap, len;
};

static int set_add(struct addr_set *set, uint64_t key, const char *name) {
  if (key == 0) return 0;
  if ((set->len + 1) * 2 > set->cap) { /* keep the load factor <= 1/2 */
    size_t ncap = set->cap ? set->cap * 2 : 64;
    uint64_t *n = calloc(ncap, sizeof *n), *c = calloc(ncap, sizeof *c);
    char **nm = calloc(ncap, sizeof *nm);
    if (!n || !c || !nm) {
      free(n), free(c), free(nm);
      return -1;
    }
    for (size_t i = 0; i < set->cap; i++) {
      if (!set->slots[i]) continue;
      size_t j = (size_t)(set->slots[i] * 0x9e3779b97f4a7c15ull) & (ncap - 1);
      while (n[j]) j = (j + 1) & (ncap - 1);
      n[j] = set->slots[i];
      c[j] = set->counts[i];
      nm[j] = set->names[i];
    }
    free(set->slots), free(set->counts), free(set->names);
    set->slots = n;
    set->counts = c;
    set->names = nm;
    set->cap = ncap;
  }
  size_t j = (size_t)(key * 0x9e3779b97f4a7c15ull) & (set->cap - 1);
  while (set->slots[j]) {
    if (set->slots[j] == key) {
      set->counts[j]++;
      return 0;
    }
    j = (j + 1) & (set->cap - 1);
  }
  set->slots[j] = key;
  set->counts[j] = 1;
  set->names[j] = strdup(name ? name : "?");
  set->len++;
  return 1;
}

struct hello_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s; /* s->out is set after open(): read it late */
  int64_t want;                   /* negative: until the target exits */
  uint64_t insns;
  uint64_t unknown; /* instructions no symbol covers */
  struct addr_set functions;
};

/* The options --hello takes after its positionals: none. asmspy's --help,
 * man page, shell completion and argument checks read this table (1.8). */
static const struct asmspy_option hello_options[] = {
    {NULL, NULL, NULL},
};

static int hello_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  /* A host table older than the members we call would lack them: ask. */
  if (!ASMSPY_HAS(host, symbolize) || !ASMSPY_HAS(host, emit) || !ASMSPY_HAS(host, note))
    return -ASMSPY_E_ABI;
  /* ABI 1.8: the host parses the options our table declares (none here)
   * and hands back the positionals; an older host has no parser. */
  const char *stray = s->argc > 0 ? s->argv[0] : NULL;
  if (ASMSPY_HAS(host, parse_options) && host->parse_options) {
    struct asmspy_optval ov;
    memset(&ov, 0, sizeof ov);
    ASMSPY_INIT_HEADER(&ov);
    char err[256];
    if (host->parse_options(hello_options, s->argc, s->argv, &ov, err, sizeof err) != 0) {
      host->note(NULL, ASMSPY_NOTE_WARN, "--hello: %s (usage: --hello <pid> [n])", err);
      return -ASMSPY_E_USAGE;
    }
    stray = ov.npos ? ov.pos[0] : NULL;
  }
  if (stray) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--hello: unexpected argument '%s' (usage: --hello %s)",
               stray, "<pid> [n]");
    return -ASMSPY_E_USAGE;
  }
  struct hello_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : HELLO_DEFAULT_N;
  *state = st;
  return 0;
}

static int hello_consume(void *state, const struct asmspy_event *ev) {
  struct hello_state *st = state;
  if (ev->type != ASMSPY_EV_INSN) return ASMSPY_CONSUME_MORE;
  st->insns++;
  /* The event (and ev->target's use) is valid only during this call:
   * resolve now, keep only the function's start address. */
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym); /* host-filled, but we declare the size we have */
  if (st->host->symbolize(ev->target, ev->ip, &sym) == 0 && sym.kind != ASMSPY_SYM_UNKNOWN &&
      sym.name)
    set_add(&st->functions, sym.start, sym.name);
  else
    st->unknown++;
  return st->want > 0 && (int64_t)st->insns >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

/* The record this view writes: its members, in the order the JSON has them. */
static const struct asmspy_field hello_fields[] = {
    {.name = "insns", .type = ASMSPY_FIELD_INT, .min = 0, .meaning = "instructions seen"},
    {.name = "functions",
     .type = ASMSPY_FIELD_INT,
     .min = 0,
     .meaning = "distinct named functions they ran in"},
    {.name = "unknown",
     .type = ASMSPY_FIELD_INT,
     .min = 0,
     .meaning = "instructions no symbol covers"},
    {.name = NULL},
};
/* One function's row. The flags after the type are roles (ABI 1.12): what
 * the field means to an interactive front end. */
static const struct asmspy_field hello_function_fields[] = {
    {.name = "addr",
     .type = ASMSPY_FIELD_HEX,
     .flags = ASMSPY_FIELDF_DRILL_FUNC,
     .meaning = "the function's entry"},
    {.name = "name", .type = ASMSPY_FIELD_STR, .meaning = "its name"},
    {.name = "insns",
     .type = ASMSPY_FIELD_INT,
     .flags = ASMSPY_FIELDF_SORT_KEY,
     .min = 1,
     .meaning = "instructions seen in it"},
    {.name = NULL},
};
static const struct asmspy_record_schema hello_records[] = {
    {"hello", "the summary, once at the end", hello_fields, NULL},
    {"hello_function", "one function the instructions ran in, after the summary",
     hello_function_fields, NULL},
    {.type = NULL},
};

static struct asmspy_value int_value(int64_t i) {
  struct asmspy_value v;
  memset(&v, 0, sizeof v);
  v.state = ASMSPY_VALUE_SET;
  v.u.i = i;
  return v;
}

static int hello_finish(void *state, int end_status) {
  struct hello_state *st = state;
  (void)end_status;
  char text[160];
  snprintf(text, sizeof text, "hello: saw %" PRIu64 " instructions in %zu functions", st->insns,
           st->functions.len);
  if (ASMSPY_HAS(st->host, emit_record) && st->host->emit_record) {
    const struct asmspy_value values[] = {int_value((int64_t)st->insns),
                                          int_value((int64_t)st->functions.len),
                                          int_value((int64_t)st->unknown)};
    struct asmspy_record rec;
    memset(&rec, 0, sizeof rec);
    ASMSPY_INIT_HEADER(&rec);
    rec.schema = &hello_records[0];
    rec.values = values;
    rec.text = text;
    int rc = st->host->emit_record(st->s->out, &rec);
    for (size_t i = 0; rc == 0 && i < st->functions.cap; i++) {
      if (!st->functions.slots[i]) continue;
      struct asmspy_value fv[3];
      memset(fv, 0, sizeof fv);
      fv[0].state = fv[1].state = ASMSPY_VALUE_SET;
      fv[0].u.u = st->functions.slots[i];
      fv[1].u.str.s = st->functions.names[i];
      fv[1].u.str.len = strlen(st->functions.names[i]);
      fv[2] = int_value((int64_t)st->functions.counts[i]);
      char line[320];
      snprintf(line, sizeof line, "  %-40s %6" PRIu64 " insns", st->functions.names[i],
               st->functions.counts[i]);
      rec.schema = &hello_records[1];
      rec.values = fv;
      rec.text = line;
      rc = st->host->emit_record(st->s->out, &rec);
    }
    return rc;
  }
  /* a host older than ABI 1.8: the JSON body by hand */
  char fields[160];
  snprintf(fields, sizeof fields, "\"insns\":%" PRIu64 ",\"functions\":%zu,\"unknown\":%" PRIu64,
           st->insns, st->functions.len, st->unknown);
  st->host->emit(st->s->out, "hello", fields, text);
  return 0;
}

static void hello_close(void *state) {
  struct hello_state *st = state;
  if (!st) return;
  for (size_t i = 0; i < st->functions.cap; i++) free(st->functions.names[i]);
  free(st->functions.slots);
  free(st->functions.counts);
  free(st->functions.names);
  free(st);
}

/* Its entry in the interactive TUI's mode menu (ABI 1.8): key 0 lets the
 * host assign a free letter; FEED draws the emitted lines as they come. A
 * view without a tui entry gets the same, titled by its description. */
static const struct asmspy_tui_entry hello_tui = {0, ASMSPY_TUI_FEED, 0,
                                                  "hello (instructions, functions)"};

static const struct asmspy_view_ops hello_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "hello",
    .caps_required = ASMSPY_CAP_INSN_STREAM,
    .usage = "<pid> [n]", /* the positionals; the options come from .options */
    .open = hello_open,
    .consume = hello_consume,
    .finish = hello_finish,
    .close = hello_close,
    .options = hello_options,
    .tui = &hello_tui,
    .records = hello_records,
};

static const struct asmspy_plugin hello_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "hello",
    .description = "example out-of-tree view: counts instructions and functions",
    .caps = ASMSPY_CAP_INSN_STREAM,
    .view = &hello_ops,
    .plugin_version = "1.0.0",
};

/* The one exported symbol (-fvisibility=hidden hides everything else).
 * Refuse only a different MAJOR; a newer host minor is always fine. */
ASMSPY_PLUGIN_ENTRY_FOR(hello_plugin)
