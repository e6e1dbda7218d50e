/* asmspy_run: one mode end to end.
 *
 *   view = the view plugin serving the mode; backend = --backend=<b> or the
 *   preferred usable backend providing the view's caps; then
 *   view.open (parses the mode's options, BEFORE anything is attached or
 *   spawned, so a usage error touches no process) -> target (attach or
 *   launch) -> writer header -> backend.run, whose events the engine's sink
 *   hands to view.consume -> view.finish -> writer footer.
 * Events flow one way: backend -> host -> view -> output channel. */
#define _GNU_SOURCE
#include "asmspy_config.h"
#include "host/codeimage.h"
#include "host/attach_diag.h"
#include "host/host.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct run_ctx {
  const struct asmspy_view_ops *view;
  void *view_state;
  struct asmspy_out *out;
  uint64_t events;
  int view_done;
  /* periodic snapshots for an embedder (opts->snapshot_ms): the view's
   * snapshot() slot, or NULL when the view has none or nobody asked */
  int (*snapshot)(void *state);
  const struct asmspy_run_opts *opts;
  uint64_t snapshot_every_ns, next_snapshot_ns;
  /* region sessions with a JSON channel: the code's bytes as they ran */
  struct codeimage_set *codeimage;
};

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A region's bytes are recorded at its entry, before the view sees the
 * sample they belong to, and only when they changed (host/codeimage.h); the
 * view gets the matching CODEIMAGE event. A backend's own CODEIMAGE is
 * recorded unless it repeats the last version. */
static void engine_codeimage(struct run_ctx *ctx, const struct asmspy_event *ev) {
  struct asmspy_event code;
  if (ev->type == ASMSPY_EV_CODEIMAGE) {
    codeimage_offer(ctx->codeimage, ev);
  } else if (ev->type == ASMSPY_EV_REGION_ENTER && ev->u.region.len &&
             codeimage_check(ctx->codeimage, ev->u.region.start, ev->u.region.len, &code) == 1 &&
             !ctx->view_done) {
    if (ctx->view->consume(ctx->view_state, &code) == ASMSPY_CONSUME_DONE) ctx->view_done = 1;
  }
}

static int engine_sink(void *ctx_, const struct asmspy_event *ev) {
  struct run_ctx *ctx = ctx_;
  ctx->events++;
  if (ev->type == ASMSPY_EV_LOST) out_add_lost(ctx->out, ev->u.lost.count);
  if (ctx->codeimage) engine_codeimage(ctx, ev);
  if (ctx->view_done) return 1;
  if (ctx->view->consume(ctx->view_state, ev) == ASMSPY_CONSUME_DONE) ctx->view_done = 1;
  /* Between two events the view's state is consistent: render it now if an
   * embedder asked for periodic frames (checked on the tracer thread, so the
   * view never runs concurrently with itself). */
  if (ctx->snapshot && !ctx->view_done) {
    uint64_t now = mono_ns();
    if (now >= ctx->next_snapshot_ns) {
      const struct asmspy_run_opts *o = ctx->opts;
      if (o->on_frame) o->on_frame(o->record_ctx, 1);
      ctx->snapshot(ctx->view_state);
      if (o->on_frame) o->on_frame(o->record_ctx, 0);
      ctx->next_snapshot_ns = now + ctx->snapshot_every_ns;
    }
  }
  return ctx->view_done;
}

/* Default choice when --backend is not given: the build's preference list
 * (meson option preferred_backends) first, then any usable backend that
 * provides the caps, in registry order. */
/* A registry row, probed now if the engine probes lazily. */
static const struct asmspy_plugin_info *probed(struct asmspy_engine *e,
                                               const struct asmspy_plugin_info *row) {
  if (row) asmspy_probe_plugin(e, (struct asmspy_plugin_info *)row);
  return row;
}

static const struct asmspy_plugin_info *pick_backend(struct asmspy_engine *e,
                                                     uint64_t caps_needed) {
  char prefs[] = ASMSPY_BACKEND_PREFERENCE;
  char *save = NULL;
  for (char *name = strtok_r(prefs, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    const struct asmspy_plugin_info *b = asmspy_find_plugin(e, ASMSPY_KIND_BACKEND, name);
    if (!b || (b->caps & caps_needed) != caps_needed) continue;
    if (probed(e, b)->status == ASMSPY_USABLE) return b;
  }
  const struct asmspy_plugin_info *fallback = NULL;
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *b = asmspy_plugin_at(e, i);
    if (!b->desc || b->kind != ASMSPY_KIND_BACKEND || (b->caps & caps_needed) != caps_needed)
      continue;
    if (probed(e, b)->status == ASMSPY_USABLE) return b;
    if (!fallback) fallback = b;
  }
  return fallback; /* unusable: the caller prints its SKIP reason */
}

/* Caps a mode needs beyond its view's caps_required, read from the view's
 * own options. This is the one mode-specific rule in the engine, until ABI
 * 1.4 gives views a caps-by-options hook: --procs counts per task either
 * syscalls (--count=syscalls, the default: the ptrace backend, near full
 * speed) or calls (--count=calls: an instruction stream, single-step). Both
 * backends provide the view's caps_required (TASKS), so without this rule the
 * preference list would choose for the count mode. The last --count wins, as
 * in the view; an unknown value is left to the view's usage error. */
static uint64_t extra_caps_for(const char *mode, int argc, char *const *argv) {
  if (!mode || strcmp(mode, "procs") != 0) return 0;
  uint64_t extra = ASMSPY_CAP_SYSCALLS;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--count=calls") == 0)
      extra = ASMSPY_CAP_INSN_STREAM;
    else if (strcmp(argv[i], "--count=syscalls") == 0)
      extra = ASMSPY_CAP_SYSCALLS;
  }
  return extra;
}

/* The value of the last `--name=value` among a mode's arguments, or NULL. */
static const char *option_value(const char *prefix, int argc, char *const *argv) {
  const char *v = NULL;
  size_t n = strlen(prefix);
  for (int i = 0; i < argc; i++)
    if (strncmp(argv[i], prefix, n) == 0) v = argv[i] + n;
  return v;
}

/* A 32-bit tracee is refused rather than decoded against the wrong tables. */
static int target_is_32bit(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  return elf_file_is_32bit(path);
}

static int status_from_errno(int e) {
  switch (e) {
  case ESRCH:
  case ENOENT: return -ASMSPY_E_ATTACH_GONE;
  case EPERM:
  case EACCES: return -ASMSPY_E_ATTACH_PERM;
  case ENOMEM: return -ASMSPY_E_NOMEM;
  default: return -ASMSPY_E_INTERNAL;
  }
}

/* The writer's options for one run of o (channels, recording, embedder sink). */
static struct out_opts writer_opts(const struct asmspy_run_opts *o, const char *backend,
                                   pid_t pid) {
  struct out_opts oo = {.mode = o->mode,
                        .backend = backend,
                        .pid = pid,
                        .json = (o->flags & ASMSPY_SESS_JSON) != 0,
                        .record_path = o->record_path,
                        .text_out = o->text_out,
                        .json_out = o->json_out,
                        .record_sink = o->on_record,
                        .record_ctx = o->record_ctx,
                        .typed_sink = o->on_typed_record};
  return oo;
}

/* The backend cannot serve the mode here: "# SKIP <backend>: <reason>" is the
 * answer (the CLI exits 0). It goes through the writer like any result, so
 * --json and --record=<f> still produce a valid recording that says so. */
static int run_skipped(const struct asmspy_run_opts *o, const char *backend, const char *reason) {
  struct out_opts oo = writer_opts(o, backend, o->pid);
  int err = 0;
  struct asmspy_out *out = out_open(&oo, &err);
  if (!out) {
    FILE *text_out = o->text_out ? o->text_out : stdout;
    fprintf(text_out, "# SKIP %s: %s\n", backend, reason);
    fflush(text_out);
    return ASMSPY_RUN_SKIPPED;
  }
  out_note(out, ASMSPY_NOTE_SKIP, "%s: %s", backend, reason);
  out_close(out, 0);
  return ASMSPY_RUN_SKIPPED;
}

/* A run that ends after the writer opened but before any capture (configure
 * refused, a SKIP found once the arguments were valid): footer, view and
 * target closed; a --launch'ed command that never ran is killed. end_reason
 * < 0 leaves the writer's default. */
static void end_before_capture(struct run_ctx *ctx, struct asmspy_session *s, pid_t launched,
                               int end_reason, int footer_status) {
  if (end_reason >= 0) out_set_end_reason(ctx->out, (enum out_end_reason)end_reason);
  ctx->view->close(ctx->view_state);
  out_close(ctx->out, footer_status);
  target_close(s->target);
  if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
}

int asmspy_run(struct asmspy_engine *e, const struct asmspy_run_opts *o) {
  const struct asmspy_host_api *host = asmspy_host_api();
  const struct asmspy_plugin_info *vinfo = asmspy_find_view_for_mode(e, o->mode);
  if (!vinfo) {
    fprintf(stderr, "asmspy: no view plugin provides mode '%s' (see asmspy --backends)\n",
            o->mode);
    return -ASMSPY_E_USAGE;
  }
  if (probed(e, vinfo)->status != ASMSPY_USABLE) {
    fprintf(stderr, "asmspy: mode '%s' is unavailable: %s\n", o->mode, vinfo->reason);
    return -ASMSPY_E_INTERNAL;
  }
  const struct asmspy_view_ops *view = vinfo->desc->view;
  uint64_t caps_needed = view->caps_required | extra_caps_for(o->mode, o->argc, o->argv);
  /* ABI 1.6: used when the backend has them, never required */
  uint64_t caps_wanted = ASMSPY_HAS(view, caps_wanted) ? view->caps_wanted : 0;

  /* Sampling views (caps IP_SAMPLES): the backend is a sampler rung,
   * --sampler=<rung> (default ibs: --sample is AMD IBS-Op unless told). */
  const char *backend_name = o->backend;
  if (!backend_name && (view->caps_required & ASMSPY_CAP_IP_SAMPLES)) {
    const char *rung = option_value("--sampler=", o->argc, o->argv);
    backend_name = sampler_backend_for(rung ? rung : "ibs");
    if (!backend_name) {
      fprintf(stderr, "asmspy: --sampler=%s: unknown sampler (want %s)\n", rung,
              sampler_rung_names());
      return -ASMSPY_E_USAGE;
    }
  }

  const struct asmspy_plugin_info *binfo;
  if (backend_name) {
    binfo = probed(e, asmspy_find_plugin(e, 0, backend_name));
    if (!binfo || binfo->kind != ASMSPY_KIND_BACKEND) {
      fprintf(stderr, "asmspy: unknown backend '%s' (see asmspy --backends)\n", backend_name);
      return -ASMSPY_E_USAGE;
    }
  } else {
    binfo = caps_wanted ? pick_backend(e, caps_needed | caps_wanted) : NULL;
    if (binfo && binfo->status != ASMSPY_USABLE) binfo = NULL; /* then any that can */
    if (!binfo) binfo = pick_backend(e, caps_needed);
    if (!binfo) {
      fprintf(stderr, "asmspy: no backend provides what mode '%s' needs\n", o->mode);
      return -ASMSPY_E_INTERNAL;
    }
  }
  /* An unusable backend is the answer (# SKIP), but only once the view has
   * checked its arguments: a malformed request is a usage error (exit 2) on
   * every host, not a SKIP on the hosts that cannot run it. A --launch
   * command is never spawned only to be skipped. */
  char skip_why[160] = "";
  const char *skip_reason = NULL;
  if (binfo->status != ASMSPY_USABLE) {
    skip_reason = binfo->reason;
  } else if ((binfo->caps & caps_needed) != caps_needed) {
    snprintf(skip_why, sizeof skip_why, "does not provide what mode '%s' needs", o->mode);
    skip_reason = skip_why;
  }
  if (skip_reason && o->launch_argv) return run_skipped(o, binfo->name, skip_reason);

  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = o->mode;
  s.pid = o->pid;
  s.tid = o->tid;
  s.flags = o->flags;
  s.max = o->max;
  s.stop = o->stop;
  s.argc = o->argc;
  s.argv = o->argv;
  s.launch_argv = o->launch_argv;

  /* 1. the view parses its options: a usage error touches no process */
  struct run_ctx ctx = {.view = view, .opts = o};
  if (o->snapshot_ms > 0 && ASMSPY_HAS(view, snapshot) && view->snapshot) {
    ctx.snapshot = view->snapshot;
    ctx.snapshot_every_ns = (uint64_t)o->snapshot_ms * 1000000ull;
  }
  int rc = view->open(host, &s, &ctx.view_state);
  if (rc) return rc > 0 ? -rc : rc;
  if (skip_reason && !(ASMSPY_HAS(view, configure) && view->configure)) {
    view->close(ctx.view_state); /* nothing target-dependent left to check */
    return run_skipped(o, binfo->name, skip_reason);
  }

  /* 2. the target */
  pid_t launched = 0;
  if (o->launch_argv) {
    launched = seam_spawn_stopped(o->launch_argv);
    if (launched < 0) {
      fprintf(stderr, "asmspy: cannot launch '%s': %s\n", o->launch_argv[0], strerror(-launched));
      view->close(ctx.view_state);
      return status_from_errno(-launched);
    }
    s.pid = launched;
    s.flags |= ASMSPY_SESS_LAUNCHED;
  } else if (kill(s.pid, 0) != 0 && errno == ESRCH) {
    fprintf(stderr, "asmspy: pid %d: no such process\n", (int)s.pid);
    view->close(ctx.view_state);
    return -ASMSPY_E_ATTACH_GONE;
  } else {
    /* a kernel thread, a zombie, an exiting task, a map we may not read:
     * the real reason (exit 1), before a region lookup could call it a
     * usage error or an attach blame a gate that is open */
    char why[768];
    if (attach_precheck(s.pid, why, sizeof why)) {
      fprintf(stderr, "asmspy: %s\n", why);
      view->close(ctx.view_state);
      return -ASMSPY_E_ATTACH_PERM;
    }
  }
  if (!launched && target_is_32bit(s.pid)) {
    fprintf(stderr, "asmspy: pid %d: %s\n", (int)s.pid, asmspy_strerror(ASMSPY_FACT_I386));
    view->close(ctx.view_state);
    return ASMSPY_FACT_I386;
  }
  int terr = 0;
  s.target = target_open(s.pid, &terr);
  if (!s.target) {
    fprintf(stderr, "asmspy: pid %d: cannot read its memory map: %s\n", (int)s.pid,
            strerror(terr));
    view->close(ctx.view_state);
    if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
    return status_from_errno(terr);
  }

  /* 3. the writer */
  struct out_opts oo = writer_opts(o, binfo->name, s.pid);
  int oerr = 0;
  ctx.out = out_open(&oo, &oerr);
  if (!ctx.out) {
    fprintf(stderr, "asmspy: cannot open recording '%s': %s\n",
            o->record_path ? o->record_path : "-", strerror(oerr));
    view->close(ctx.view_state);
    target_close(s.target);
    if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
    return -ASMSPY_E_USAGE;
  }
  s.out = ctx.out;
  s.sink = engine_sink;
  s.sink_ctx = &ctx;
  if ((view->caps_required | (caps_wanted & binfo->caps)) & ASMSPY_CAP_EXACT_SP)
    s.flags |= ASMSPY_SESS_EXACT_SP;
  /* The samplers observe from outside and never trace: a launched command
   * is run through its exec and ld.so to its entry point under ptrace and
   * let go; from then on it is sampled like any running pid (its own image
   * and libraries). */
  if (launched && (view->caps_required & ASMSPY_CAP_IP_SAMPLES)) {
    rc = seam_release_after_exec(&s);
    if (rc) {
      fprintf(stderr, "asmspy: '%s' did not reach its exec: %s\n", o->launch_argv[0],
              asmspy_strerror(rc));
      end_before_capture(&ctx, &s, launched, OUT_END_ERROR, rc);
      return rc > 0 ? -rc : rc;
    }
    s.flags &= ~ASMSPY_SESS_LAUNCHED;
  }
  /* Samples are named when the window is rendered, and a short-lived target
   * may be gone by then: read its symbols now, while it runs. */
  if (view->caps_required & ASMSPY_CAP_IP_SAMPLES) (void)target_symtab(s.target);
  sampler_ladder_set_engine(e); /* configure may sample first (--auto) */
  if (ASMSPY_HAS(view, configure) && view->configure) {
    rc = view->configure(ctx.view_state, host, &s);
    /* configure sampled a launched command (--auto): it runs free now */
    if (launched && sampler_ladder_released(s.pid)) s.flags &= ~ASMSPY_SESS_LAUNCHED;
    if (rc && ASMSPY_STATUS_CLASS(rc) == 3) {
      /* UNAVAILABLE from configure (every sampler rung of --auto refused):
       * the view has said why (# SKIP); that is an answer, not a failure. */
      end_before_capture(&ctx, &s, launched, -1, 0);
      return ASMSPY_RUN_SKIPPED;
    }
    if (rc > 0 && ASMSPY_STATUS_CLASS(rc) == 1) {
      /* a TARGET FACT found before capture (--auto: nothing was observed
       * being entered): the answer, passed through as is */
      end_before_capture(&ctx, &s, launched, OUT_END_COMPLETED, rc);
      return rc;
    }
    if (rc) {
      end_before_capture(&ctx, &s, launched, OUT_END_ERROR, rc);
      return rc > 0 ? -rc : rc;
    }
  }
  if (skip_reason) { /* the arguments are valid: now the SKIP is the answer */
    out_note(ctx.out, ASMSPY_NOTE_SKIP, "%s: %s", binfo->name, skip_reason);
    end_before_capture(&ctx, &s, launched, -1, 0);
    return ASMSPY_RUN_SKIPPED;
  }

  /* Region sessions record the region's bytes per real change; the
   * backend's writes into the target go through the codeimage ledger so its
   * own breakpoints are never taken for the target's code. */
  const struct asmspy_host_api *backend_host = host;
  if ((view->caps_required & ASMSPY_CAP_REGION) &&
      ((o->flags & ASMSPY_SESS_JSON) || o->record_path)) { /* a JSON channel records them */
    ctx.codeimage = codeimage_open(s.target, s.pid, ctx.out);
    backend_host = codeimage_host_api(ctx.codeimage, host);
  }

  /* 4. capture; a view may ask for another run with a changed session
   * (--auto walking its candidates) */
  sampler_ladder_set_engine(e);
  for (;;) {
    rc = binfo->desc->backend->run(backend_host, &s);
    if (ctx.view_done || (o->stop && *o->stop)) break;
    if (!ASMSPY_HAS(view, retry) || !view->retry || view->retry(ctx.view_state, rc, &s) != 1)
      break;
  }
  sampler_ladder_set_engine(NULL);

  enum out_end_reason why = OUT_END_COMPLETED;
  if (ctx.view_done)
    why = OUT_END_N_REACHED;
  else if (o->stop && *o->stop)
    why = OUT_END_INTERRUPTED;
  else if (rc == ASMSPY_FACT_EXITED)
    why = OUT_END_TARGET_EXITED;
  else if (rc < 0)
    why = OUT_END_ERROR;
  if (rc == -ASMSPY_E_ATTACH_PERM || rc == -ASMSPY_E_ATTACH_BUSY) {
    char why[768]; /* the measured reason, not the generic status text */
    attach_explain_refusal(s.pid, why, sizeof why);
    out_note(ctx.out, ASMSPY_NOTE_WARN, "pid %d: attach refused: %s", (int)s.pid, why);
  } else if (rc < 0) {
    out_note(ctx.out, ASMSPY_NOTE_WARN, "%s: %s", binfo->name, asmspy_strerror(rc));
  }
  else if (rc == ASMSPY_FACT_EXITED)
    out_note(ctx.out, ASMSPY_NOTE_INFO, "target %s after %llu events",
             out_target_signal(ctx.out) ? "was killed (see above)" : "exited",
             (unsigned long long)ctx.events);
  out_set_end_reason(ctx.out, why);
  /* a snapshot view's final render is its last frame */
  if (ctx.snapshot && o->on_frame) o->on_frame(o->record_ctx, 1);
  view->finish(ctx.view_state, rc);
  if (ctx.snapshot && o->on_frame) o->on_frame(o->record_ctx, 0);
  view->close(ctx.view_state);
  codeimage_close(ctx.codeimage);
  int exit_status = rc == ASMSPY_FACT_EXITED ? 0 : rc;
  out_close(ctx.out, exit_status);
  target_close(s.target);

  /* --launch: like strace, the command runs to completion after we detach */
  if (launched) {
    int st;
    while (waitpid(launched, &st, 0) < 0 && errno == EINTR) {
      if (o->stop && *o->stop) kill(launched, SIGTERM);
    }
  }
  return exit_status;
}

static void stop_signal_noop(int sig) { (void)sig; }

void asmspy_install_stop_signal(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = stop_signal_noop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: waitpid must return EINTR */
  sigaction(sig, &sa, NULL);
}
