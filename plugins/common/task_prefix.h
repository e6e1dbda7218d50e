/* plugins/common/task_prefix.h — when a view's line carries the "[tid] "
 * prefix (stream, log, tree; strace -f semantics).
 *
 * A line is prefixed while more than one task is followed (ev->nthreads > 1),
 * and ALWAYS when it belongs to a task other than the session's own one (a
 * thread, or a child process under --follow). The count alone is not enough:
 * the host removes an exiting task before it reports the exit, so a child's
 * last lines (its `exit_group(...) = ?`, `+++ exited with 0 +++`, the last
 * instruction it stepped) were reported with nthreads back at 1, and lost
 * the prefix every other line of that child had. Under --tid=<t> only that
 * thread is followed, and it is never prefixed. */
#ifndef ASMSPY_PLUGINS_COMMON_TASK_PREFIX_H
#define ASMSPY_PLUGINS_COMMON_TASK_PREFIX_H

#include <asmspy/plugin.h>

#include <stdio.h>

static inline int task_prefixed(const struct asmspy_session *s, const struct asmspy_event *ev) {
  if (ev->nthreads > 1) return 1;
  int32_t own = s->tid ? s->tid : s->pid;
  return own > 0 && ev->tid > 0 && ev->tid != own;
}

/* "[tid] " into buf when the line is prefixed, else "". */
static inline const char *task_prefix(const struct asmspy_session *s, const struct asmspy_event *ev,
                                      char *buf, size_t cap) {
  if (task_prefixed(s, ev))
    snprintf(buf, cap, "[%d] ", (int)ev->tid);
  else if (cap)
    buf[0] = 0;
  return buf;
}

#endif
