/* undo_journal.h: what a backend wrote into a target that must be put back
 * if the tracer dies before it can (undo_journal.c).
 *
 * asmspy's supervisor maps the journal (shared, anonymous) before it forks
 * the tracer; the tracer's backends record each write that changes the
 * target's behaviour (host_api.undo_push: a patched function entry, an
 * armed flag) before making it, and clear them once they undid it
 * themselves (undo_clear). When the tracer process dies without leaving —
 * SIGKILL, a crash — the supervisor replays what is left: it attaches to
 * each target (every thread stopped), writes the old bytes back wherever
 * the new ones are still there, and detaches. */
#ifndef ASMSPY_HOST_UNDO_JOURNAL_H
#define ASMSPY_HOST_UNDO_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "asmspy-internal/app_api.h"

struct asmspy_target;

/* The supervisor's calls, undo_journal_create (map the journal before the
 * tracer is forked) and undo_journal_replay (after it died), are declared
 * in asmspy-internal/app_api.h. */
/* host_api.undo_push / undo_clear (ABI 1.9). No journal: a no-op (0). */
int undo_push(struct asmspy_target *t, uint64_t addr, const void *old_bytes, const void *new_bytes,
              size_t len);
void undo_clear(struct asmspy_target *t);

#endif
