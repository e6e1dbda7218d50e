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

struct asmspy_target;

/* The supervisor: map a journal of `bytes` shared with the children it
 * forks from now on. 0, or -errno. */
int undo_journal_create(size_t bytes);
/* host_api.undo_push / undo_clear (ABI 1.9). No journal: a no-op (0). */
int undo_push(struct asmspy_target *t, uint64_t addr, const void *old_bytes,
              const void *new_bytes, size_t len);
void undo_clear(struct asmspy_target *t);
/* The supervisor, after its tracer died: restore every entry left. Writes
 * one line per target to stderr. Returns the number of places restored. */
int undo_journal_replay(void);

#endif
