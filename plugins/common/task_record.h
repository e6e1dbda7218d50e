/* plugins/common/task_record.h — the "task" record: a followed task was
 * cloned, forked, exec'd or exited. Every view that follows tasks (stream,
 * log) writes the same record, so its schema and its `what` names live here
 * once; each view decides which members it fills (log leaves the exit code
 * off a clone: strace shows clones through the syscalls). */
#ifndef ASMSPY_PLUGINS_COMMON_TASK_RECORD_H
#define ASMSPY_PLUGINS_COMMON_TASK_RECORD_H

#include "plugins/common/record_emit.h"

static const struct asmspy_field task_record_fields[] = {
    RF_ENUM("what", "clone|fork|exec|exit", 0, "what happened to the task"),
    RF_INT("tid", ANY_INT, 0, "the thread it happened to"),
    RF_INT("child", ANY_INT, OPT, "the new tid / pid (clone, fork)"),
    RF_INT("code", ANY_INT, OPT, "exit status, or -signal"),
    RF_END,
};
#define TASK_RECORD_MEANING "a task was cloned, forked, exec'd or exited"

/* The `what` of a task event ("?" for a kind this header does not know). */
static inline const char *task_record_what(const struct asmspy_event *ev) {
  static const char *const names[] = {"?", "clone", "fork", "exec", "exit"};
  return names[ev->u.task.what <= ASMSPY_TASK_EXIT ? ev->u.task.what : 0];
}

#endif
