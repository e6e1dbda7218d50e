/* plugins/common/region_view.h — the region-session plumbing shared by the
 * views that capture invocations of one region (trace, dataflow).
 *
 * Plugins are separate shared modules that export one symbol and never link
 * each other, so the shared pieces live here as static inline functions: each
 * plugin compiles its own private copy of what it uses.
 *
 *   open       rv_take_spec (one positional argument: the region; anything
 *              else is a usage error), rv_need_spec (no region given)
 *   configure  rv_configure: host->resolve_region on the spec, sets the
 *              session's region_start/len and entry_wait_ms, names the region
 *              (its symbol when it starts one, else 0x<start>) and emits the
 *              `region` event ("<what> <name> @ 0x.. (N bytes) in pid P")
 *   wait       rv_entry_wait_ms: ASMTEST_DF_ENTRY_WAIT_MS, else
 *              ASMSPY_ENTRY_WAIT_MS, else RV_ENTRY_WAIT_DEFAULT_MS
 *   exit       rv_not_reached: the `not_reached` event of a region never
 *              seen entering within the wait
 */
#ifndef ASMSPY_PLUGINS_COMMON_REGION_VIEW_H
#define ASMSPY_PLUGINS_COMMON_REGION_VIEW_H

#include <asmspy/plugin.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"

#define RV_ENTRY_WAIT_DEFAULT_MS 10000

struct rv_region {
  const char *spec; /* the <region> argument */
  char name[256];   /* the symbol, or 0x<start> */
  uint64_t start, len;
  int64_t wait_ms; /* how long the backend waits for the entry */
  int user_spec;   /* the user named it (rv_take_spec), not --auto */
};

/* Functions a running process has already entered, once, for good: main
 * (and what calls it) sits on the main thread's stack and is never entered
 * again, so waiting for its entry only times out. A launched command has
 * not run yet: there they are fine. */
static inline int rv_entered_once(const char *name) {
  static const char *const once[] = {
      "main",           "_start",    "__libc_start_main", "__libc_start_call_main", "_dl_start",
      "_dl_start_user", "main.main", "runtime.main",      "runtime.rt0_go",         NULL};
  for (int i = 0; once[i]; i++)
    if (strcmp(name, once[i]) == 0) return 1;
  return 0;
}

/* The two records of a region session (each region view lists them in its
 * `records` table). */
static const struct asmspy_field rv_region_fields[] = {
    RF_STR("name", 0, "the region's symbol, or 0x<start>"),
    RF_HEX("start", 0, "its start"),
    RF_INT("len", 1, 0, "its length in bytes"),
    RF_END,
};
static const struct asmspy_field rv_not_reached_fields[] = {
    RF_STR("name", 0, "the region"),
    RF_INT("waited_ms", 0, 0, "the entry wait that ran out"),
    RF_INT("pid", 0, 0, "the target"),
    RF_END,
};
#define RV_REGION_SCHEMA                                                                           \
  { "region", "the region being captured, before the first sample", rv_region_fields, NULL }
#define RV_NOT_REACHED_SCHEMA                                                                      \
  {                                                                                                \
    "not_reached", "the region was never seen entering (the entry wait ran out)",                  \
        rv_not_reached_fields, NULL                                                                \
  }

static const struct asmspy_record_schema rv_region_schema = RV_REGION_SCHEMA;
static const struct asmspy_record_schema rv_not_reached_schema = RV_NOT_REACHED_SCHEMA;

static inline int64_t rv_entry_wait_ms(void) {
  const char *e = getenv("ASMTEST_DF_ENTRY_WAIT_MS");
  if (!e) e = getenv("ASMSPY_ENTRY_WAIT_MS");
  return e ? strtoll(e, NULL, 10) : RV_ENTRY_WAIT_DEFAULT_MS;
}

/* open: arg a is the region (the first positional argument); an option or a
 * second positional is a usage error ("usage: --<mode> <usage>"). */
static inline int rv_take_spec(const struct asmspy_host_api *host, const struct asmspy_session *s,
                               const char *a, struct rv_region *r, const char *usage) {
  if (a[0] == '-' || r->spec) {
    host->note(NULL, ASMSPY_NOTE_WARN, "--%s: unexpected argument '%s' (usage: --%s %s)", s->mode,
               a, s->mode, usage);
    return -ASMSPY_E_USAGE;
  }
  r->spec = a;
  r->user_spec = 1;
  return 0;
}

/* open: after the arguments, a usage error when no region was given. */
static inline int rv_need_spec(const struct asmspy_host_api *host, const struct asmspy_session *s,
                               const struct rv_region *r, const char *usage) {
  if (r->spec) return 0;
  host->note(NULL, ASMSPY_NOTE_WARN, "--%s needs a region: %s", s->mode, usage);
  return -ASMSPY_E_USAGE;
}

/* configure: resolve the region and set up the session for it; `what`
 * starts the text of the `region` event. 0, or the resolve error (noted). */
static inline int rv_configure(struct rv_region *r, const struct asmspy_host_api *host,
                               struct asmspy_session *s, const char *what) {
  char err[256];
  uint64_t start = 0, len = 0;
  int rc = host->resolve_region(s->target, r->spec, &start, &len, err, sizeof err);
  if (rc) {
    host->note(s->out, ASMSPY_NOTE_WARN, "%s", err);
    return rc;
  }
  r->start = s->region_start = start;
  r->len = s->region_len = len;
  s->entry_wait_ms = r->wait_ms = rv_entry_wait_ms();
  struct asmspy_symbol sym;
  memset(&sym, 0, sizeof sym);
  ASMSPY_INIT_HEADER(&sym);
  host->symbolize(s->target, start, &sym);
  if (sym.name && sym.offset == 0)
    snprintf(r->name, sizeof r->name, "%s", sym.name);
  else
    snprintf(r->name, sizeof r->name, "0x%" PRIx64, start);
  if (r->user_spec && sym.name && sym.offset == 0 && rv_entered_once(sym.name) &&
      !(s->flags & ASMSPY_SESS_LAUNCHED)) {
    /* refused at once, not after the entry wait: it cannot come */
    host->note(s->out, ASMSPY_NOTE_WARN,
               "%s will not be entered: pid %d is already running it (it is entered once, at "
               "the start); use --launch %s %s -- <cmd> to capture it from the start, or name "
               "a function it calls",
               sym.name, (int)s->pid, s->mode, r->spec);
    return ASMSPY_FACT_NOT_REACHED;
  }
  char text[512];
  snprintf(text, sizeof text, "%s %s @ 0x%" PRIx64 " (%" PRIu64 " bytes) in pid %d", what, r->name,
           start, len, (int)s->pid);
  const struct asmspy_value v[] = {rv_str(r->name), rv_hex(start), rv_int((int64_t)len)};
  rec_emit(host, s->out, &rv_region_schema, v, text);
  return 0;
}

/* REGION_EXIT with !reached: say the region was never seen entering. */
static inline void rv_not_reached(const struct rv_region *r, const struct asmspy_host_api *host,
                                  const struct asmspy_session *s) {
  char text[512];
  const struct asmspy_value v[] = {rv_str(r->name), rv_int(r->wait_ms), rv_int(s->pid)};
  snprintf(text, sizeof text, "%s not seen entering in pid %d (waited %" PRId64 " ms)", r->name,
           (int)s->pid, r->wait_ms);
  rec_emit(host, s->out, &rv_not_reached_schema, v, text);
}

#endif /* ASMSPY_PLUGINS_COMMON_REGION_VIEW_H */
