/* session: one tracing session of the TUI on its own tracer thread.
 *
 * ptrace is per-thread, so the thread that attaches must own every ptrace
 * call until the detach: the session thread runs asmspy_run() start to
 * finish (the same engine and view plugins as the headless modes). The UI
 * thread never calls ptrace; it only copies what the session thread
 * collected, under the session's lock:
 *   feed    every record the view emitted, the last TUI_FEED_LINES lines;
 *   frame   for snapshot views, the last complete frame (the engine renders
 *           one every snapshot_ms, bracketed by on_frame; the final render
 *           of finish() is the last one).
 * Stopping raises the session's stop flag and signals the thread
 * (asmspy_install_stop_signal + pthread_kill) until asmspy_run returns
 * through its two-phase detach: the target is left running, untouched. */
#ifndef ASMSPY_TUI_SESSION_H
#define ASMSPY_TUI_SESSION_H

#include <asmspy/asmspy.h>
#include <stdint.h>
#include <sys/types.h>

#include "tui/records.h"

#define TUI_SESSION_MAX_ARGS 8
#define TUI_STOP_SIGNAL SIGALRM

struct tui_session_cfg {
  const char *mode;
  pid_t pid;
  int64_t max; /* n for the view; negative = until stopped or the target exits */
  int argc;
  const char *argv[TUI_SESSION_MAX_ARGS];
  int64_t snapshot_ms; /* frame period for snapshot views */
};

struct tui_session;

/* Start the thread. NULL with a reason in err on failure. */
struct tui_session *tui_session_start(struct asmspy_engine *e, const struct tui_session_cfg *cfg,
                                      char *err, size_t errcap);
/* Stop (idempotent): raise the flag, signal until it returns, join. */
void tui_session_stop(struct tui_session *s);
void tui_session_free(struct tui_session *s);

/* 1 once asmspy_run returned (*rc = its status). */
int tui_session_done(struct tui_session *s, int *rc);
/* Bumps whenever the feed or the frame changed: the UI redraws then. */
uint64_t tui_session_generation(struct tui_session *s);
/* Copies for drawing (references, see records.h). The frame copy is empty
 * until the first complete frame with at least one line. */
void tui_session_feed(struct tui_session *s, struct tui_model *out);
void tui_session_frame(struct tui_session *s, struct tui_model *out);
uint64_t tui_session_frames(struct tui_session *s); /* complete frames so far */
/* Add a line to the feed from the UI side (a stray stderr message). */
void tui_session_note(struct tui_session *s, const char *type, const char *text);
const struct tui_session_cfg *tui_session_cfg(const struct tui_session *s);

#endif
