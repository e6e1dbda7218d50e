/* host->run_sampler: the --auto / --sample sampler ladder.
 *
 * Samplers are ordinary backends. A backend says it is one in its
 * descriptor (ABI 1.8): `sampler_rung` is the name --sampler=<rung> selects,
 * `sampler_order` its place in the ladder (ascending; 0 = only when named).
 * The host keeps no list of its own: the ladder is the registry's backends
 * with a rung, sorted by that order, so a new sampler plugin is a new rung
 * without a host change.
 *
 * A view that needs samples before it can decide what to capture
 * (--dataflow --auto) asks the host to run one over the same target, into a
 * sink of its own: the events never reach the session's output. The ladder
 * walks the rungs in fidelity order (entry edges first, residency last) and
 * notes every refusal with the probe's measured reason, so the user sees why
 * a weaker rung was used.
 *
 * A rung may take an argument: --sampler=<rung>:<arg> runs the backend
 * whose rung is <rung> with session.sampler_arg = <arg>.
 *
 * The engine that owns the registry is the one running the current session;
 * a tracer process runs one session at a time, so a process-wide pointer is
 * enough (set and cleared by asmspy_run). */
#include "host/host.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct asmspy_engine *current_engine;
/* A --launch'ed command the ladder let run to its entry point (samplers
 * observe a running program): the engine then runs the backend on it as a
 * running pid. */
static pid_t released_pid;

void sampler_ladder_set_engine(struct asmspy_engine *e) {
  current_engine = e;
  released_pid = 0;
}

int sampler_ladder_released(pid_t pid) { return pid > 0 && pid == released_pid; }

/* The rung a loaded backend serves, or NULL (not a sampler, or a plugin
 * older than 1.8). */
static const char *rung_of(const struct asmspy_plugin_info *b) {
  if (!b || !b->desc || b->kind != ASMSPY_KIND_BACKEND || !b->desc->backend) return NULL;
  const struct asmspy_backend_ops *ops = b->desc->backend;
  if (!ASMSPY_HAS(ops, sampler_order) || !ops->sampler_rung || !ops->sampler_rung[0]) return NULL;
  return ops->sampler_rung;
}

static uint32_t order_of(const struct asmspy_plugin_info *b) {
  return b->desc->backend->sampler_order;
}

static int by_order(const void *x, const void *y) {
  const struct asmspy_plugin_info *a = *(const struct asmspy_plugin_info *const *)x;
  const struct asmspy_plugin_info *b = *(const struct asmspy_plugin_info *const *)y;
  /* order 0 (only when named) after every rung of the walk */
  uint32_t oa = order_of(a) ? order_of(a) : UINT32_MAX, ob = order_of(b) ? order_of(b) : UINT32_MAX;
  if (oa != ob) return oa < ob ? -1 : 1;
  return strcmp(rung_of(a), rung_of(b)); /* a tie: stable by name, never by load order */
}

size_t sampler_ladder(const struct asmspy_engine *e, const struct asmspy_plugin_info **out,
                      size_t cap) {
  size_t n = 0;
  for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *b = asmspy_plugin_at(e, i);
    if (rung_of(b) && n < cap) out[n++] = b;
  }
  if (n > 1) qsort(out, n, sizeof *out, by_order);
  return n;
}

const struct asmspy_plugin_info *sampler_backend_for(const struct asmspy_engine *e,
                                                     const char *spec, const char **arg) {
  if (arg) *arg = NULL;
  if (!spec) return NULL;
  const char *colon = strchr(spec, ':');
  size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
  for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *b = asmspy_plugin_at(e, i);
    const char *rung = rung_of(b);
    if (!rung || strlen(rung) != len || strncmp(rung, spec, len) != 0) continue;
    /* only a named-only rung (order 0, "event:<name>") takes an argument:
     * "sw:x" names no rung rather than quietly dropping the x */
    if (colon && order_of(b) != 0) return NULL;
    if (arg) *arg = colon ? colon + 1 : NULL;
    return b;
  }
  return NULL;
}

const struct asmspy_plugin_info *sampler_default(const struct asmspy_engine *e) {
  const struct asmspy_plugin_info *rungs[64];
  size_t n = sampler_ladder(e, rungs, sizeof rungs / sizeof rungs[0]);
  for (size_t i = 0; i < n; i++)
    if (order_of(rungs[i]) > 0) return rungs[i];
  return NULL;
}

const struct asmspy_plugin_info *sampler_first_usable(struct asmspy_engine *e) {
  const struct asmspy_plugin_info *rungs[64];
  size_t n = sampler_ladder(e, rungs, sizeof rungs / sizeof rungs[0]);
  for (size_t i = 0; i < n; i++) {
    if (order_of(rungs[i]) == 0) continue; /* only when named */
    asmspy_probe_plugin(e, (struct asmspy_plugin_info *)rungs[i]);
    if (rungs[i]->status == ASMSPY_USABLE) return rungs[i];
  }
  return sampler_default(e); /* none works here: the first rung's refusal is the answer */
}

void sampler_note_refused(struct asmspy_engine *e, struct asmspy_out *out,
                          const struct asmspy_plugin_info *used) {
  const struct asmspy_plugin_info *rungs[64];
  size_t n = sampler_ladder(e, rungs, sizeof rungs / sizeof rungs[0]);
  for (size_t i = 0; i < n && rungs[i] != used; i++) {
    if (order_of(rungs[i]) == 0 || rungs[i]->status == ASMSPY_USABLE) continue;
    out_note(out, ASMSPY_NOTE_INFO, "sampler %s refused: %s", rung_of(rungs[i]), rungs[i]->reason);
  }
}

const char *sampler_rung_names(const struct asmspy_engine *e, char *buf, size_t cap) {
  const struct asmspy_plugin_info *rungs[64];
  size_t n = sampler_ladder(e, rungs, sizeof rungs / sizeof rungs[0]), k = 0;
  if (cap) buf[0] = '\0';
  for (size_t i = 0; i < n && k < cap; i++) {
    int w = snprintf(buf + k, cap - k, "%s%s%s", i ? "|" : "", rung_of(rungs[i]),
                     order_of(rungs[i]) == 0 ? ":<arg>" : "");
    if (w < 0) break;
    k += (size_t)w;
  }
  if (!n && cap) snprintf(buf, cap, "(no sampler backend installed)");
  return buf;
}

static int run_one(const struct asmspy_plugin_info *b, const struct asmspy_session *s,
                   const char *arg, int64_t window_ms, asmspy_sink_fn sink, void *ctx) {
  struct asmspy_session sub = *s;
  sub.struct_size = sizeof sub;
  sub.abi_version = ASMSPY_ABI_VERSION;
  /* sub.mode stays the caller's: the samples serve its view */
  sub.sink = sink;
  sub.sink_ctx = ctx;
  sub.window_ms = window_ms;
  sub.region_start = sub.region_len = 0;
  sub.max = -1;
  sub.flags &= ~ASMSPY_SESS_LAUNCHED; /* released: a running pid now */
  sub.sampler_arg = arg;
  return b->desc->backend->run(asmspy_host_api(), &sub);
}

int host_run_sampler(const struct asmspy_session *s, const char *sampler, int64_t window_ms,
                     asmspy_sink_fn sink, void *ctx, char *used, size_t cap) {
  if (used && cap) used[0] = '\0';
  if (!current_engine) return -ASMSPY_E_INTERNAL;
  const struct asmspy_plugin_info *rungs[64];
  const char *arg = NULL;
  size_t n;
  if (sampler) { /* one named rung, whatever its order */
    rungs[0] = sampler_backend_for(current_engine, sampler, &arg);
    if (!rungs[0]) {
      char names[256];
      out_note(s->out, ASMSPY_NOTE_WARN, "unknown sampler '%s' (want %s)", sampler,
               sampler_rung_names(current_engine, names, sizeof names));
      return -ASMSPY_E_USAGE;
    }
    n = 1;
  } else {
    n = sampler_ladder(current_engine, rungs, sizeof rungs / sizeof rungs[0]);
  }
  if ((s->flags & ASMSPY_SESS_LAUNCHED) && !sampler_ladder_released(s->pid)) {
    /* --launch: sample the program, not the stopped pre-exec fork */
    int rc = seam_release_after_exec(s);
    if (rc) return rc;
    released_pid = s->pid;
    (void)target_symtab(s->target); /* named while it runs */
  }
  int last = -ASMSPY_E_NO_HW;
  for (size_t i = 0; i < n; i++) {
    struct asmspy_plugin_info *b = (struct asmspy_plugin_info *)rungs[i];
    const char *rung = rung_of(b);
    if (!sampler && order_of(b) == 0) continue; /* only when named */
    asmspy_probe_plugin(current_engine, b);
    if (b->status != ASMSPY_USABLE) {
      out_note(s->out, ASMSPY_NOTE_INFO, "sampler %s refused: %s", rung, b->reason);
      last = b->status > 0 ? -b->status : b->status;
      continue;
    }
    int rc = run_one(b, s, arg, window_ms, sink, ctx);
    if (rc == 0 || rc > 0) {
      if (used && cap) snprintf(used, cap, "%s", rung);
      return rc;
    }
    out_note(s->out, ASMSPY_NOTE_INFO, "sampler %s failed: %s", rung, asmspy_strerror(rc));
    last = rc;
  }
  return last;
}
