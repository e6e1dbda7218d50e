/* host->run_sampler: the --auto / --sample sampler ladder.
 *
 * Samplers are ordinary backends (plugins/amd_ibs, amd_lbr, swclock,
 * ptsampler). A view that needs samples before it can decide what to capture
 * (--dataflow --auto) asks the host to run one over the same target, into a
 * sink of its own: the events never reach the session's output. The ladder
 * walks the rungs in fidelity order (entry edges first, residency last) and
 * notes every refusal with the probe's measured reason, so the user sees why
 * a weaker rung was used.
 *
 * The engine that owns the registry is the one running the current session;
 * a tracer process runs one session at a time, so a process-wide pointer is
 * enough (set and cleared by asmspy_run). */
#include "host/host.h"

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

static const struct {
  const char *rung;    /* --sampler=<rung> */
  const char *backend; /* the plugin serving it */
  int named_only;      /* takes "<rung>:<arg>"; never tried by the unnamed ladder */
} rungs[] = {
    {"ibs", "amd_ibs", 0},
    {"lbr", "amd_lbr", 0},
    {"sw", "swclock", 0},
    {"ptrace", "ptsampler", 0},
    {"event", "pmu_event", 1}, /* event:<name>: the user's perf event, via libpfm4 */
};

/* "event:cpu-clock" names rung "event" with argument "cpu-clock"; the
 * argument may hold ':' itself (libpfm4's "perf::TASK-CLOCK:period=1000"). */
static int rung_matches(const char *rung, const char *spec) {
  size_t n = strlen(rung);
  return strncmp(spec, rung, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

static int rung_index(const char *spec) {
  for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++)
    if (rung_matches(rungs[i].rung, spec)) return (int)i;
  return -1;
}

const char *sampler_backend_for(const char *rung) {
  int i = rung_index(rung);
  /* an argument only where the rung takes one: "sw:x" is no rung */
  if (i < 0 || (strchr(rung, ':') != NULL) != rungs[i].named_only) return NULL;
  return rungs[i].backend;
}

const char *sampler_arg_of(const char *rung) {
  const char *colon = rung ? strchr(rung, ':') : NULL;
  return colon ? colon + 1 : NULL;
}

const char *sampler_rung_names(void) { return "ibs|lbr|sw|ptrace|event:<name>"; }

static int run_one(const struct asmspy_plugin_info *b, const struct asmspy_session *s,
                   const char *sampler, int64_t window_ms, asmspy_sink_fn sink, void *ctx) {
  struct asmspy_session sub = *s;
  sub.struct_size = sizeof sub;
  sub.abi_version = ASMSPY_ABI_VERSION;
  sub.mode = "sample";
  sub.sink = sink;
  sub.sink_ctx = ctx;
  sub.window_ms = window_ms;
  sub.region_start = sub.region_len = 0;
  sub.max = -1;
  sub.flags &= ~ASMSPY_SESS_LAUNCHED; /* released: a running pid now */
  sub.sampler_arg = sampler ? sampler_arg_of(sampler) : NULL;
  return b->desc->backend->run(asmspy_host_api(), &sub);
}

int host_run_sampler(const struct asmspy_session *s, const char *sampler, int64_t window_ms,
                     asmspy_sink_fn sink, void *ctx, char *used, size_t cap) {
  if (used && cap) used[0] = '\0';
  if (!current_engine) return -ASMSPY_E_INTERNAL;
  if ((s->flags & ASMSPY_SESS_LAUNCHED) && !sampler_ladder_released(s->pid)) {
    /* --launch: sample the program, not the stopped pre-exec fork */
    int rc = seam_release_after_exec(s);
    if (rc) return rc;
    released_pid = s->pid;
    (void)target_symtab(s->target); /* named while it runs */
  }
  int last = -ASMSPY_E_NO_HW;
  int tried = 0;
  for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
    if (sampler ? !rung_matches(rungs[i].rung, sampler) || !sampler_backend_for(sampler)
                : rungs[i].named_only)
      continue;
    tried = 1;
    struct asmspy_plugin_info *b =
        (struct asmspy_plugin_info *)asmspy_find_plugin(current_engine, ASMSPY_KIND_BACKEND,
                                                        rungs[i].backend);
    if (!b) {
      out_note(s->out, ASMSPY_NOTE_INFO, "sampler %s: backend %s is not installed",
               rungs[i].rung, rungs[i].backend);
      last = -ASMSPY_E_NO_LIB;
      continue;
    }
    asmspy_probe_plugin(current_engine, b);
    if (b->status != ASMSPY_USABLE || !b->desc || !b->desc->backend) {
      out_note(s->out, ASMSPY_NOTE_INFO, "sampler %s refused: %s", rungs[i].rung, b->reason);
      last = b->status > 0 ? -b->status : b->status;
      continue;
    }
    int rc = run_one(b, s, sampler, window_ms, sink, ctx);
    if (rc == 0 || rc > 0) {
      if (used && cap) snprintf(used, cap, "%s", rungs[i].rung);
      return rc;
    }
    out_note(s->out, ASMSPY_NOTE_INFO, "sampler %s failed: %s", rungs[i].rung,
             asmspy_strerror(rc));
    last = rc;
  }
  if (!tried) {
    out_note(s->out, ASMSPY_NOTE_WARN, "unknown sampler '%s' (want %s)", sampler,
             sampler_rung_names());
    return -ASMSPY_E_USAGE;
  }
  return last;
}
