/* plugins/common/stop_event.h — an event about the task a ptrace stop is
 * for: the header, type, pid, tid, thread count and target filled from
 * the stop, the rest zeroed. The stepping, translating and watchpoint
 * backends all report task events and hits this way. */
#ifndef ASMSPY_PLUGINS_COMMON_STOP_EVENT_H
#define ASMSPY_PLUGINS_COMMON_STOP_EVENT_H

#include <asmspy/plugin.h>

#include <string.h>

static inline void stop_event_init(struct asmspy_event *ev, uint32_t type,
                                   const struct asmspy_stop *stop) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = stop->pid;
  ev->tid = stop->tid;
  ev->nthreads = stop->nthreads;
  ev->target = stop->target;
}

/* A clone / fork / exec / exit event (u.task). */
static inline void stop_task_event(struct asmspy_event *ev, const struct asmspy_stop *stop,
                                   uint32_t what, int child, int code) {
  stop_event_init(ev, ASMSPY_EV_TASK, stop);
  ev->u.task.what = what;
  ev->u.task.child = child;
  ev->u.task.code = code;
}

#endif
