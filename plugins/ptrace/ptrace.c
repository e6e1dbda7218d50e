/* ptrace: the capture backend for syscalls. Every followed thread runs under
 * PTRACE_SYSCALL and stops only at syscall entry and exit (plus signals and
 * task events), so the target runs near full speed between syscalls.
 *
 * Each stop becomes an ASMSPY_EV_SYSCALL_ENTER / _EXIT event (number, raw
 * arguments, return value), delivered while the thread is still stopped so a
 * view can decode its buffers and fds from the live process (see
 * asmspy_sink_fn). Signals become ASMSPY_EV_SIGNAL (with their whole
 * siginfo) and are handed back, job-control group-stops an EV_SIGNAL flagged
 * ASMSPY_EVF_SIG_GROUP_STOP; task
 * births, execs and exits become ASMSPY_EV_TASK. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "plugins/common/k_siginfo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PTRACE_CAPS (ASMSPY_CAP_SYSCALLS | ASMSPY_CAP_ATTACH_PID | ASMSPY_CAP_TASKS)

/* How long the probe child may take to reach its self-stop. */
#define PROBE_SPAWN_MS 3000

/* ------------------------------------------------------------- probe -- */

/* The probe child: one getppid() to be traced. */
static int probe_child(void *arg) {
  (void)arg;
  syscall(SYS_getppid);
  return 0;
}

/* Functional: trace a forked child (the seam's spawn_child) to its
 * getppid() syscall and demand an entry stop naming it, then the exit stop
 * returning our pid. */
static int ptrace_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  const struct asmspy_seam_api *seam = host->seam;
  if (!ASMSPY_HAS(seam, spawn_child)) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_ABI, 0, "the host's seam cannot spawn a probe child");
    return 0;
  }
  pid_t parent = getpid();
  struct asmspy_seam *sm = NULL;
  pid_t child = 0;
  int rc = seam->spawn_child(probe_child, NULL, PROBE_SPAWN_MS, &sm, &child);
  if (rc) {
    if (child)
      ASMSPY_PROBE_SET(res, ASMSPY_E_PERM, -rc, "PTRACE_TRACEME in a forked child: %s",
                       strerror(-rc));
    else
      ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, -rc, "fork: %s", strerror(-rc));
    return 0;
  }
  int saw_entry = 0, saw_exit = 0, info_works = -1, deliver = 0;
  for (int i = 0; i < 64 && !saw_exit; i++) {
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    if (seam->resume_syscall(sm, child, deliver) != 0) break;
    if (seam->next_stop(sm, &stop) != 0 || stop.kind == ASMSPY_STOP_EXITED ||
        stop.kind == ASMSPY_STOP_NONE)
      break;
    if (stop.kind == ASMSPY_STOP_SYSCALL) {
      struct asmspy_syscall_info k;
      memset(&k, 0, sizeof k);
      ASMSPY_INIT_HEADER(&k);
      if (seam->syscall_info(sm, child, &k) == 0 && !k.from_toggle) {
        info_works = 1;
        if (k.op == ASMSPY_SYSCALL_ENTRY && k.nr == SYS_getppid) saw_entry = 1;
        if (saw_entry && k.op == ASMSPY_SYSCALL_EXIT && k.rval == parent) saw_exit = 1;
      } else {
        info_works = 0;
        saw_entry = saw_exit = 1; /* stops arrive: the toggle fallback will do */
      }
    }
    /* a signal of the child's own is handed back; job control is not */
    deliver = stop.kind == ASMSPY_STOP_SIGNAL && stop.sig != SIGSTOP && stop.sig != SIGCONT
                  ? stop.sig
                  : 0;
  }
  seam->detach(sm); /* kills and reaps the child */
  if (saw_entry && saw_exit) {
    ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0,
                     info_works == 1
                         ? "traced a forked child's getppid(): entry and exit paired by "
                           "PTRACE_GET_SYSCALL_INFO"
                         : "syscall stops work; PTRACE_GET_SYSCALL_INFO missing: entry/exit "
                           "toggle fallback");
    res->caps_available = PTRACE_CAPS;
  } else {
    ASMSPY_PROBE_SET(res, ASMSPY_E_NO_KERNEL, 0,
                     "PTRACE_SYSCALL on a forked child never reported getppid() entry+exit");
  }
  return 0;
}

/* --------------------------------------------------------------- run -- */

struct sys_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  uint64_t seq;
  int stop;
};

static void emit(struct sys_state *st, struct asmspy_event *ev, const struct asmspy_stop *stop) {
  ev->abi_version = ASMSPY_ABI_VERSION;
  ev->struct_size = sizeof *ev;
  ev->pid = stop->pid;
  ev->tid = stop->tid;
  ev->nthreads = stop->nthreads;
  ev->target = stop->target;
  ev->seq = ++st->seq;
  if (st->s->sink(st->s->sink_ctx, ev)) st->stop = 1;
}

static void emit_task(struct sys_state *st, const struct asmspy_stop *stop, uint32_t what,
                      int child, int code) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = ASMSPY_EV_TASK;
  ev.u.task.what = what;
  ev.u.task.child = child;
  ev.u.task.code = code;
  emit(st, &ev, stop);
}

/* 1.12: the stop's whole siginfo into u.signal (ASMSPY_EVF_SIG_INFO), each
 * union member copied where si_code and signo say it is the live one. */
static void fill_siginfo(struct asmspy_event *ev, const struct asmspy_stop *stop) {
  if (!ASMSPY_HAS(stop, siginfo) || !(stop->flags & ASMSPY_STOPF_SIGINFO)) return;
  struct k_siginfo si;
  memcpy(&si, stop->siginfo, sizeof si);
  ev->flags |= ASMSPY_EVF_SIG_INFO;
  ev->u.signal.code = si.code;
  ev->u.signal.err = si.err;
  if (si.code == SI_TIMER) {
    ev->u.signal.timerid = si.u.timer.tid;
    ev->u.signal.overrun = si.u.timer.overrun;
    ev->u.signal.value = si.u.timer.value;
  } else if (si.code <= 0) { /* sent by a process: kill, sigqueue, tkill, mq */
    ev->u.signal.pid = si.u.rt.pid;
    ev->u.signal.uid = si.u.rt.uid;
    ev->u.signal.value = si.u.rt.value;
  } else if (si.code != SI_KERNEL) {
    switch (si.signo) {
    case SIGCHLD:
      ev->u.signal.pid = si.u.chld.pid;
      ev->u.signal.uid = si.u.chld.uid;
      ev->u.signal.status = si.u.chld.status;
      ev->u.signal.utime = si.u.chld.utime;
      ev->u.signal.stime = si.u.chld.stime;
      break;
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP: ev->u.signal.addr = si.u.fault.addr; break;
    case SIGPOLL:
      ev->u.signal.band = si.u.poll.band;
      ev->u.signal.fd = si.u.poll.fd;
      break;
    case SIGSYS:
      ev->u.signal.addr = si.u.sys.call_addr;
      ev->u.signal.syscall = si.u.sys.syscall;
      ev->u.signal.arch = si.u.sys.arch;
      break;
    default: break;
    }
  }
}

static int ptrace_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  const struct asmspy_seam_api *seam = host->seam;
  if (!ASMSPY_HAS(seam, syscall_info)) return -ASMSPY_E_ABI;
  struct asmspy_seam *sm = NULL;
  int rc = seam->attach(s, &sm);
  if (rc) return rc;
  struct sys_state st = {.host = host, .s = s};
  int result = 0;
  while (!st.stop) {
    struct asmspy_stop stop;
    memset(&stop, 0, sizeof stop);
    ASMSPY_INIT_HEADER(&stop);
    if (seam->next_stop(sm, &stop) != 0) {
      result = -ASMSPY_E_INTERNAL;
      break;
    }
    if (stop.kind == ASMSPY_STOP_INTERRUPTED) break;
    if (stop.kind == ASMSPY_STOP_NONE) {
      result = ASMSPY_FACT_EXITED;
      break;
    }
    if (stop.kind == ASMSPY_STOP_EXITED) {
      emit_task(&st, &stop, ASMSPY_TASK_EXIT, 0, stop.exit_code);
      continue;
    }
    int deliver = 0;
    struct asmspy_event ev;
    memset(&ev, 0, sizeof ev);
    switch (stop.kind) {
    case ASMSPY_STOP_SYSCALL: {
      struct asmspy_syscall_info info;
      memset(&info, 0, sizeof info);
      ASMSPY_INIT_HEADER(&info);
      if (seam->syscall_info(sm, stop.tid, &info) != 0 || info.op == ASMSPY_SYSCALL_NONE) break;
      ev.ip = info.ip;
      ev.u.sys.nr = info.nr;
      if (info.op == ASMSPY_SYSCALL_ENTRY) {
        ev.type = ASMSPY_EV_SYSCALL_ENTER;
        memcpy(ev.u.sys.args, info.args, sizeof ev.u.sys.args);
      } else {
        ev.type = ASMSPY_EV_SYSCALL_EXIT;
        ev.u.sys.ret = info.rval;
        ev.u.sys.is_error = info.is_error;
      }
      emit(&st, &ev, &stop);
      break;
    }
    case ASMSPY_STOP_SIGNAL:
    case ASMSPY_STOP_TARGET_TRAP:
      deliver = stop.sig;
      ev.type = ASMSPY_EV_SIGNAL;
      ev.u.signal.signo = stop.sig;
      ev.u.signal.code = ASMSPY_HAS(&stop, si_code) ? stop.si_code : 0;
      fill_siginfo(&ev, &stop);
      emit(&st, &ev, &stop);
      break;
    case ASMSPY_STOP_GROUP: /* 1.12: a job-control group-stop is shown */
      if (ASMSPY_HAS(&stop, group_sig) && stop.group_sig > 0) {
        ev.type = ASMSPY_EV_SIGNAL;
        ev.flags = ASMSPY_EVF_SIG_GROUP_STOP;
        ev.u.signal.signo = stop.group_sig;
        emit(&st, &ev, &stop);
      }
      break;
    case ASMSPY_STOP_NEW_TASK:
      emit_task(&st, &stop, stop.is_process ? ASMSPY_TASK_FORK : ASMSPY_TASK_CLONE, stop.new_tid,
                0);
      break;
    case ASMSPY_STOP_EXEC: emit_task(&st, &stop, ASMSPY_TASK_EXEC, 0, 0); break;
    default: /* our interrupts, STEP (none requested): just continue */ break;
    }
    if (st.stop || (s->stop && *s->stop)) break;
    seam->resume_syscall(sm, stop.tid, deliver);
  }
  seam->detach(sm);
  return result;
}

static const struct asmspy_backend_ops ptrace_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = ptrace_run,
};

static const struct asmspy_plugin ptrace_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "ptrace",
    .description = "ptrace syscall stops (PTRACE_SYSCALL + PTRACE_GET_SYSCALL_INFO): syscalls, "
                   "signals and task events at near full speed",
    .caps = PTRACE_CAPS,
    .probe = ptrace_probe,
    .backend = &ptrace_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(ptrace_plugin)
