/* session: the tracer thread and what it collects (see session.h). */
#define _GNU_SOURCE
#include "tui/session.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tui_session {
  struct tui_session_cfg cfg;
  char *strings[TUI_SESSION_MAX_ARGS + 1]; /* owned copies behind cfg's pointers */
  struct asmspy_engine *engine;
  pthread_t thread;
  volatile int stop; /* the session's stop flag (asmspy_run_opts.stop) */
  int done;          /* atomic: asmspy_run returned */
  int rc;
  int joined;
  pthread_mutex_t lock;
  struct tui_reclist feed;
  struct tui_reclist building; /* the frame being rendered */
  struct tui_reclist frame;    /* the last complete frame */
  int in_frame;
  uint64_t frames;
  uint64_t generation;
};

/* ------------------------------------------------ tracer-thread side -- */

/* A record from the tracer thread into the feed, or the frame being built. */
static void keep(struct tui_session *s, const char *type, const struct asmspy_record *typed,
                 const char *text) {
  if (!text) return; /* nothing to show (a view's JSON-only record) */
  struct tui_rec *r = tui_rec_new(type, typed, text);
  if (!r) return;
  pthread_mutex_lock(&s->lock);
  tui_reclist_push(s->in_frame ? &s->building : &s->feed, r);
  s->generation++;
  pthread_mutex_unlock(&s->lock);
  tui_rec_unref(r);
}

/* Plain records (notes, views that write raw lines): type and text. */
static void on_record(void *ctx, const char *type, const char *json, const char *text) {
  (void)json; /* the TUI reads typed records, never JSON */
  keep(ctx, type, NULL, text);
}

/* Typed records: the values come along (the screens act on them). */
static void on_typed_record(void *ctx, const struct asmspy_record *rec) {
  keep(ctx, rec->schema->type, rec, rec->text);
}

static void on_frame(void *ctx, int begin) {
  struct tui_session *s = ctx;
  pthread_mutex_lock(&s->lock);
  if (begin) {
    tui_reclist_clear(&s->building);
    s->in_frame = 1;
  } else {
    /* the complete frame replaces the last one (swap, then drop the old) */
    struct tui_reclist old = s->frame;
    s->frame = s->building;
    s->building = old;
    tui_reclist_clear(&s->building);
    s->in_frame = 0;
    s->frames++;
    s->generation++;
  }
  pthread_mutex_unlock(&s->lock);
}

static void *session_main(void *arg) {
  struct tui_session *s = arg;
  /* Only the stop signal may interrupt this thread: SIGINT, SIGTERM,
   * SIGWINCH ... belong to the UI thread. */
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, TUI_STOP_SIGNAL);
  pthread_sigmask(SIG_SETMASK, &all, NULL);

  char *argv[TUI_SESSION_MAX_ARGS + 1] = {0};
  for (int i = 0; i < s->cfg.argc; i++) argv[i] = (char *)s->cfg.argv[i];
  struct asmspy_run_opts o = {
      .abi_version = ASMSPY_ABI_VERSION,
      .struct_size = sizeof(struct asmspy_run_opts),
      .mode = s->cfg.mode,
      .pid = s->cfg.pid,
      .max = s->cfg.max,
      .argc = s->cfg.argc,
      .argv = argv,
      .stop = &s->stop,
      .text_out = stderr, /* "# SKIP" lines: the UI shows what reaches stderr */
      .on_record = on_record,
      .record_ctx = s,
      .snapshot_ms = s->cfg.snapshot_ms,
      .on_frame = on_frame,
      .on_typed_record = on_typed_record,
  };
  int rc = asmspy_run(s->engine, &o);
  char text[256];
  if (s->stop)
    snprintf(text, sizeof text, "# detached: the target was left running");
  else if (rc == 0 || rc == ASMSPY_FACT_EXITED)
    snprintf(text, sizeof text, "# capture ended");
  else if (rc == ASMSPY_RUN_SKIPPED)
    snprintf(text, sizeof text, "# capture skipped: the backend is unavailable here");
  else
    snprintf(text, sizeof text, "# capture ended: %s", asmspy_strerror(rc));
  on_record(s, "end", NULL, text);
  s->rc = rc;
  __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* ---------------------------------------------------- UI-thread side -- */

struct tui_session *tui_session_start(struct asmspy_engine *e, const struct tui_session_cfg *cfg,
                                      char *err, size_t errcap) {
  struct tui_session *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errcap, "out of memory");
    return NULL;
  }
  s->engine = e;
  s->cfg = *cfg;
  if (s->cfg.argc > TUI_SESSION_MAX_ARGS) s->cfg.argc = TUI_SESSION_MAX_ARGS;
  s->strings[0] = strdup(cfg->mode);
  s->cfg.mode = s->strings[0];
  for (int i = 0; i < s->cfg.argc; i++) {
    s->strings[i + 1] = strdup(cfg->argv[i]);
    s->cfg.argv[i] = s->strings[i + 1];
  }
  s->feed.max_lines = TUI_FEED_LINES;
  pthread_mutex_init(&s->lock, NULL);
  asmspy_install_stop_signal(TUI_STOP_SIGNAL);
  int rc = pthread_create(&s->thread, NULL, session_main, s);
  if (rc) {
    snprintf(err, errcap, "cannot start the tracer thread: %s", strerror(rc));
    s->joined = 1;
    tui_session_free(s);
    return NULL;
  }
  return s;
}

void tui_session_stop(struct tui_session *s) {
  if (!s || s->joined) return;
  s->stop = 1;
  /* The signal can land just before the thread blocks in waitpid; repeat
   * it until asmspy_run has returned (the detach itself is bounded). */
  while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
    pthread_kill(s->thread, TUI_STOP_SIGNAL);
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
  }
  pthread_join(s->thread, NULL);
  s->joined = 1;
}

void tui_session_free(struct tui_session *s) {
  if (!s) return;
  if (!s->joined) {
    /* a session that ended by itself still needs its thread joined */
    if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
      pthread_join(s->thread, NULL);
      s->joined = 1;
    } else {
      tui_session_stop(s);
    }
  }
  tui_reclist_free(&s->feed);
  tui_reclist_free(&s->building);
  tui_reclist_free(&s->frame);
  pthread_mutex_destroy(&s->lock);
  for (int i = 0; i <= TUI_SESSION_MAX_ARGS; i++) free(s->strings[i]);
  free(s);
}

int tui_session_done(struct tui_session *s, int *rc) {
  if (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) return 0;
  if (rc) *rc = s->rc;
  return 1;
}

uint64_t tui_session_generation(struct tui_session *s) {
  pthread_mutex_lock(&s->lock);
  uint64_t g = s->generation;
  pthread_mutex_unlock(&s->lock);
  return g;
}

uint64_t tui_session_frames(struct tui_session *s) {
  pthread_mutex_lock(&s->lock);
  uint64_t f = s->frames;
  pthread_mutex_unlock(&s->lock);
  return f;
}

void tui_session_feed(struct tui_session *s, struct tui_model *out) {
  pthread_mutex_lock(&s->lock);
  tui_model_from(out, &s->feed);
  pthread_mutex_unlock(&s->lock);
}

void tui_session_frame(struct tui_session *s, struct tui_model *out) {
  pthread_mutex_lock(&s->lock);
  tui_model_from(out, &s->frame);
  pthread_mutex_unlock(&s->lock);
}

void tui_session_note(struct tui_session *s, const char *type, const char *text) {
  /* always the feed: the tracer thread may be rendering a frame right now */
  struct tui_rec *r = tui_rec_new(type, NULL, text);
  if (!r) return;
  pthread_mutex_lock(&s->lock);
  tui_reclist_push(&s->feed, r);
  s->generation++;
  pthread_mutex_unlock(&s->lock);
  tui_rec_unref(r);
}

const struct tui_session_cfg *tui_session_cfg(const struct tui_session *s) { return &s->cfg; }
