/* asmspy_run: one mode end to end.
 *
 *   view = the view plugin serving the mode; backend = --backend=<b> or the
 *   one its descriptors call for (engine_choose.c); then
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
  /* the host table configure and the backend use (engine_launch.c: a
   * launched command's symbols are resolved after its exec) */
  const struct asmspy_host_api *host;
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
                        /* appended in 1.8 after the first size-prefixed layout */
                        .typed_sink = ASMSPY_HAS(o, on_typed_record) ? o->on_typed_record : NULL};
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
  /* killed while held: the program never runs (before the writer closes:
   * the held seam notes into it) */
  launch_hold_end(launched != 0);
  if (end_reason >= 0) out_set_end_reason(ctx->out, (enum out_end_reason)end_reason);
  ctx->view->close(ctx->view_state);
  out_close(ctx->out, footer_status);
  target_close(s->target);
  if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
}

/* ---- asmspy_run's steps, in the order it takes them ---------------------- */

/* The session the backend and view will share, from the run's options. */
static void session_init(struct asmspy_session *s, const struct asmspy_run_opts *o,
                         const struct engine_choice *c) {
  memset(s, 0, sizeof *s);
  ASMSPY_INIT_HEADER(s);
  s->mode = o->mode;
  s->pid = o->pid;
  s->tid = o->tid;
  s->flags = o->flags;
  s->max = o->max;
  s->stop = o->stop;
  s->argc = o->argc;
  s->argv = o->argv;
  s->launch_argv = o->launch_argv;
  s->sampler_arg = c->sampler_arg;
}

/* Step 1: the view parses its options (a usage error touches no process). */
static int view_open(struct run_ctx *ctx, const struct asmspy_run_opts *o,
                     struct asmspy_session *s) {
  const struct asmspy_view_ops *view = ctx->view;
  if (o->snapshot_ms > 0 && ASMSPY_HAS(view, snapshot) && view->snapshot) {
    ctx->snapshot = view->snapshot;
    ctx->snapshot_every_ns = (uint64_t)o->snapshot_ms * 1000000ull;
  }
  int rc = view->open(asmspy_host_api(), s, &ctx->view_state);
  return rc > 0 ? -rc : rc;
}

/* Step 2: the target: spawned (--launch) or checked and opened. Returns 0
 * with s->target set (*launched = the spawned pid, or 0), else a status; the
 * view is closed on failure. */
static int target_acquire(struct run_ctx *ctx, const struct asmspy_run_opts *o,
                          struct asmspy_session *s, pid_t *launched) {
  *launched = 0;
  if (o->launch_argv) {
    pid_t child = seam_spawn_stopped(o->launch_argv);
    if (child < 0) {
      fprintf(stderr, "asmspy: cannot launch '%s': %s\n", o->launch_argv[0], strerror(-child));
      ctx->view->close(ctx->view_state);
      return status_from_errno(-child);
    }
    *launched = child;
    s->pid = child;
    s->flags |= ASMSPY_SESS_LAUNCHED;
  } else if (kill(s->pid, 0) != 0 && errno == ESRCH) {
    fprintf(stderr, "asmspy: pid %d: no such process\n", (int)s->pid);
    ctx->view->close(ctx->view_state);
    return -ASMSPY_E_ATTACH_GONE;
  } else {
    /* a kernel thread, a zombie, an exiting task, a map we may not read:
     * the real reason (exit 1), before a region lookup could call it a
     * usage error or an attach blame a gate that is open */
    char why[768];
    if (attach_precheck(s->pid, why, sizeof why)) {
      fprintf(stderr, "asmspy: %s\n", why);
      ctx->view->close(ctx->view_state);
      return -ASMSPY_E_ATTACH_PERM;
    }
  }
  if (!*launched && target_is_32bit(s->pid)) {
    fprintf(stderr, "asmspy: pid %d: %s\n", (int)s->pid, asmspy_strerror(ASMSPY_FACT_I386));
    ctx->view->close(ctx->view_state);
    return ASMSPY_FACT_I386;
  }
  int terr = 0;
  s->target = target_open(s->pid, &terr);
  if (!s->target) {
    fprintf(stderr, "asmspy: pid %d: cannot read its memory map: %s\n", (int)s->pid,
            strerror(terr));
    ctx->view->close(ctx->view_state);
    if (*launched) kill(*launched, SIGKILL), waitpid(*launched, NULL, 0);
    return status_from_errno(terr);
  }
  return 0;
}

/* Step 3: the writer, and the session's sink into the view. */
static int writer_open(struct run_ctx *ctx, const struct asmspy_run_opts *o,
                       const struct engine_choice *c, struct asmspy_session *s, pid_t launched) {
  struct out_opts oo = writer_opts(o, c->backend->name, s->pid);
  int oerr = 0;
  ctx->out = out_open(&oo, &oerr);
  if (!ctx->out) {
    fprintf(stderr, "asmspy: cannot open recording '%s': %s\n",
            o->record_path ? o->record_path : "-", strerror(oerr));
    ctx->view->close(ctx->view_state);
    target_close(s->target);
    if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
    return -ASMSPY_E_USAGE;
  }
  s->out = ctx->out;
  s->sink = engine_sink;
  s->sink_ctx = ctx;
  if ((ctx->view->caps_required | (c->caps_wanted & c->backend->caps)) & ASMSPY_CAP_EXACT_SP)
    s->flags |= ASMSPY_SESS_EXACT_SP;
  return 0;
}

/* Step 4: a sampling view observes from outside and never traces: a
 * launched command is run through its exec and ld.so to its entry point
 * under ptrace and let go; from then on it is sampled like any running pid.
 * Its symbols are read now, while it runs (samples are named when the window
 * is rendered, and a short-lived target may be gone by then). */
static int prepare_sampling(struct run_ctx *ctx, const struct asmspy_run_opts *o,
                            struct asmspy_session *s, pid_t launched) {
  if (!(ctx->view->caps_required & ASMSPY_CAP_IP_SAMPLES)) return 0;
  if (launched) {
    int rc = seam_release_after_exec(s);
    if (rc) {
      fprintf(stderr, "asmspy: '%s' did not reach its exec: %s\n", o->launch_argv[0],
              asmspy_strerror(rc));
      end_before_capture(ctx, s, launched, OUT_END_ERROR, rc);
      return rc > 0 ? -rc : rc;
    }
    s->flags &= ~ASMSPY_SESS_LAUNCHED;
  }
  (void)target_symtab(s->target);
  return 0;
}

/* Step 2b (1.11): a backend the engine chose itself, as the view's
 * caps_alternative, is asked whether it suits this target; if not, the
 * view's instruction backend runs instead and *note says why (one line,
 * written once the output is open). Returns 0, or a status with c->error. */
static int check_suits(struct asmspy_engine *e, struct engine_choice *c,
                       const struct asmspy_session *s, char *note, size_t cap) {
  if (!c->alternative || c->skip_reason) return 0;
  const struct asmspy_backend_ops *ops = c->backend->desc->backend;
  if (!ASMSPY_HAS(ops, suits) || !ops->suits) return 0;
  char why[512] = "";
  if (ops->suits(asmspy_host_api(), s, why, sizeof why) != ASMSPY_FACT_UNSUITED) return 0;
  const char *was = c->backend->name;
  int rc = engine_choose_fallback(e, c);
  if (rc) return rc;
  snprintf(note, cap, "%s: %s; --%s runs on %s instead", was, why[0] ? why : "unsuited", s->mode,
           c->backend->name);
  return 0;
}

/* Step 5: the view's configure() (symbols, regions, --auto's sampling).
 * Returns 0 to go on to the capture; otherwise the run has ended (writer,
 * view and target closed) and *result is asmspy_run's return value. */
static int view_configure(struct run_ctx *ctx, struct asmspy_engine *e, struct asmspy_session *s,
                          pid_t launched, int *result) {
  const struct asmspy_view_ops *view = ctx->view;
  sampler_ladder_set_engine(e); /* configure may sample first (--auto) */
  ctx->host = launch_host_api(asmspy_host_api(), s);
  if (!ASMSPY_HAS(view, configure) || !view->configure) return 0;
  /* the warning a failing configure leaves last is the error that ends the
   * run: "asmspy: ", not a "# " note */
  out_hold_warning(ctx->out);
  int rc = view->configure(ctx->view_state, ctx->host, s);
  out_release_warning(ctx->out,
                      (rc < 0 && ASMSPY_STATUS_CLASS(rc) != 3) || rc == ASMSPY_FACT_NOT_REACHED);
  /* configure sampled a launched command (--auto): it runs free now */
  if (launched && sampler_ladder_released(s->pid)) s->flags &= ~ASMSPY_SESS_LAUNCHED;
  if (!rc) return 0;
  if (ASMSPY_STATUS_CLASS(rc) == 3) {
    /* UNAVAILABLE from configure (every sampler rung of --auto refused):
     * the view has said why (# SKIP); that is an answer, not a failure. */
    end_before_capture(ctx, s, launched, -1, 0);
    *result = ASMSPY_RUN_SKIPPED;
  } else if (rc > 0 && ASMSPY_STATUS_CLASS(rc) == 1) {
    /* a TARGET FACT found before capture (--auto: nothing was observed
     * being entered): the answer, passed through as is */
    end_before_capture(ctx, s, launched, OUT_END_COMPLETED, rc);
    *result = rc;
  } else {
    end_before_capture(ctx, s, launched, OUT_END_ERROR, rc);
    *result = rc > 0 ? -rc : rc;
  }
  return 1;
}

/* Step 6: region sessions with a JSON channel record the region's bytes per
 * real change; the backend's writes into the target then go through the
 * codeimage ledger so its own breakpoints are never taken for the target's
 * code. Returns the host table the backend runs with. */
static const struct asmspy_host_api *codeimage_setup(struct run_ctx *ctx,
                                                     const struct asmspy_run_opts *o,
                                                     const struct asmspy_session *s) {
  const struct asmspy_host_api *host = ctx->host ? ctx->host : asmspy_host_api();
  if (!(ctx->view->caps_required & ASMSPY_CAP_REGION) ||
      !((o->flags & ASMSPY_SESS_JSON) || o->record_path))
    return host;
  ctx->codeimage = codeimage_open(s->target, s->pid, ctx->out);
  return codeimage_host_api(ctx->codeimage, host);
}

/* Step 7: capture; a view may ask for another run with a changed session
 * (--auto walking its candidates). */
static int capture(struct run_ctx *ctx, struct asmspy_engine *e, const struct engine_choice *c,
                   const struct asmspy_host_api *backend_host, struct asmspy_session *s) {
  const struct asmspy_view_ops *view = ctx->view;
  const volatile int *stop = ctx->opts->stop;
  int rc;
  sampler_ladder_set_engine(e);
  for (;;) {
    rc = c->backend->desc->backend->run(backend_host, s);
    if (ctx->view_done || (stop && *stop)) break;
    if (!ASMSPY_HAS(view, retry) || !view->retry || view->retry(ctx->view_state, rc, s) != 1) break;
  }
  sampler_ladder_set_engine(NULL);
  return rc;
}

/* Step 8: why the capture ended, said once in the recording's footer and
 * notes; the view's final render; everything closed. Returns the run's
 * status (a target that exited is a normal end). */
static int finish_run(struct run_ctx *ctx, const struct engine_choice *c, struct asmspy_session *s,
                      int rc) {
  const struct asmspy_run_opts *o = ctx->opts;
  enum out_end_reason why = OUT_END_COMPLETED;
  if (ctx->view_done)
    why = OUT_END_N_REACHED;
  else if (o->stop && *o->stop)
    why = OUT_END_INTERRUPTED;
  else if (rc == ASMSPY_FACT_EXITED)
    why = OUT_END_TARGET_EXITED;
  else if (rc < 0)
    why = OUT_END_ERROR;
  /* a failure's warning below ends the run: "asmspy: ", not "# " */
  if (rc < 0) out_hold_warning(ctx->out);
  if (rc == -ASMSPY_E_ATTACH_BUSY && tracer_pid_of(s->pid) <= 0) {
    /* nobody ptraces it: the backend found another tool in the way and
     * said who in its note */
    out_note(ctx->out, ASMSPY_NOTE_WARN, "pid %d: %s: busy (see the note above)", (int)s->pid,
             c->backend->name);
  } else if (rc == -ASMSPY_E_ATTACH_PERM || rc == -ASMSPY_E_ATTACH_BUSY) {
    char refusal[768]; /* the measured reason, not the generic status text */
    attach_explain_refusal(s->pid, refusal, sizeof refusal);
    out_note(ctx->out, ASMSPY_NOTE_WARN, "pid %d: attach refused: %s", (int)s->pid, refusal);
  } else if (rc < 0) {
    out_note(ctx->out, ASMSPY_NOTE_WARN, "%s: %s", c->backend->name, asmspy_strerror(rc));
  } else if (rc == ASMSPY_FACT_NOT_REACHED) {
    /* the run ends with nothing captured: an error line (exit 1), not a note */
    out_note(NULL, ASMSPY_NOTE_WARN,
             "nothing captured: the region was not entered in pid %d within %lld ms "
             "(ASMSPY_ENTRY_WAIT_MS=<ms> waits longer)",
             (int)s->pid, (long long)s->entry_wait_ms);
  } else if (rc == ASMSPY_FACT_EXITED) {
    out_note(ctx->out, ASMSPY_NOTE_INFO, "target %s after %llu events",
             out_target_signal(ctx->out) ? "was killed (see above)" : "exited",
             (unsigned long long)ctx->events);
  }
  out_release_warning(ctx->out, rc < 0);
  out_set_end_reason(ctx->out, why);
  /* a snapshot view's final render is its last frame */
  if (ctx->snapshot && o->on_frame) o->on_frame(o->record_ctx, 1);
  ctx->view->finish(ctx->view_state, rc);
  if (ctx->snapshot && o->on_frame) o->on_frame(o->record_ctx, 0);
  ctx->view->close(ctx->view_state);
  codeimage_close(ctx->codeimage);
  int exit_status = rc == ASMSPY_FACT_EXITED ? 0 : rc;
  out_close(ctx->out, exit_status);
  target_close(s->target);
  return exit_status;
}

int asmspy_run(struct asmspy_engine *e, const struct asmspy_run_opts *o) {
  /* A boundary struct: another major, or a caller built before the size
   * prefix (its first words are then the mode pointer), is refused. */
  if (!o || ASMSPY_ABI_MAJOR_OF(o->abi_version) != ASMSPY_ABI_MAJOR || !ASMSPY_HAS(o, on_frame)) {
    fprintf(stderr, "asmspy: asmspy_run_opts of another ABI (abi_version 0x%x, struct_size %u)\n",
            o ? o->abi_version : 0u, o ? o->struct_size : 0u);
    return -ASMSPY_E_ABI;
  }
  /* which view and backend (engine_choose.c: from the descriptors) */
  struct engine_choice c;
  int rc = engine_choose_for(e, o->mode, o->backend, o->argc, o->argv, o->flags, o->tid, &c);
  if (rc) {
    fprintf(stderr, "asmspy: %s\n", c.error);
    return rc;
  }
  /* An unusable backend is the answer (# SKIP), but only once the view has
   * checked its arguments: a malformed request is a usage error (exit 2) on
   * every host, not a SKIP on the hosts that cannot run it. A --launch
   * command is never spawned only to be skipped. */
  if (c.skip_reason && o->launch_argv) return run_skipped(o, c.backend->name, c.skip_reason);

  const struct asmspy_view_ops *view = c.view->desc->view;
  struct asmspy_session s;
  session_init(&s, o, &c);
  struct run_ctx ctx = {.view = view, .opts = o};
  rc = view_open(&ctx, o, &s);
  if (rc) return rc;
  if (c.skip_reason && !(ASMSPY_HAS(view, configure) && view->configure)) {
    view->close(ctx.view_state); /* nothing target-dependent left to check */
    return run_skipped(o, c.backend->name, c.skip_reason);
  }

  pid_t launched = 0;
  rc = target_acquire(&ctx, o, &s, &launched);
  if (rc) return rc;
  launch_track(launched);
  char unsuited[640] = "";
  rc = check_suits(e, &c, &s, unsuited, sizeof unsuited);
  if (rc) {
    fprintf(stderr, "asmspy: %s\n", c.error);
    ctx.view->close(ctx.view_state);
    target_close(s.target);
    if (launched) kill(launched, SIGKILL), waitpid(launched, NULL, 0);
    return rc;
  }
  rc = writer_open(&ctx, o, &c, &s, launched);
  if (rc) return rc;
  if (unsuited[0]) out_note(ctx.out, ASMSPY_NOTE_INFO, "%s", unsuited);
  rc = prepare_sampling(&ctx, o, &s, launched);
  if (rc) return rc;
  int result = 0;
  if (view_configure(&ctx, e, &s, launched, &result)) return result;
  if (c.skip_reason) { /* the arguments are valid: now the SKIP is the answer */
    out_note(ctx.out, ASMSPY_NOTE_SKIP, "%s: %s", c.backend->name, c.skip_reason);
    end_before_capture(&ctx, &s, launched, -1, 0);
    return ASMSPY_RUN_SKIPPED;
  }

  /* --sample with no --sampler: say which rungs were refused on the way */
  if (c.sampler_walked) sampler_note_refused(e, ctx.out, c.backend);
  const struct asmspy_host_api *backend_host = codeimage_setup(&ctx, o, &s);
  rc = capture(&ctx, e, &c, backend_host, &s);
  launch_hold_end(0); /* a hold the backend never took over lets the command go */
  int exit_status = finish_run(&ctx, &c, &s, rc);
  if (launched) launch_wait(launched, o->launch_argv[0], o->stop);
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
