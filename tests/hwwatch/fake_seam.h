/* A scripted ptrace seam for the hwwatch unit test: the debug-register
 * calls read and write per-task register files the test inspects, stops
 * come from a script, and the kernel's rules the backend must respect are
 * enforced and counted as violations:
 *   - debug registers (and regs) are only readable/writable in a STOPPED
 *     task (the kernel answers ESRCH otherwise);
 *   - a stop only arrives for a task the tracer resumed (or queued at
 *     attach); a STEP stop only for a task that was stepped;
 *   - next_stop answers INTERRUPTED while the session's stop flag is raised
 *     (as the real seam does).
 * A task born through NEW_TASK inherits its parent's DR7 value but no
 * breakpoint address, as x86 clone does (thread.ptrace_dr7 is copied,
 * ptrace_bps are not).
 * interrupt_all() queues a GROUP stop for every running task; those are
 * delivered after the script runs out, then TIMEOUT / NONE.
 */
#ifndef ASMSPY_TESTS_HWWATCH_FAKE_SEAM_H
#define ASMSPY_TESTS_HWWATCH_FAKE_SEAM_H

#include <asmspy/plugin.h>

#include "plugins/hwwatch/hwwatch.h"

#define FS_MAX_TASKS 8
#define FS_MAX_SCRIPT 32
#define FS_MAX_LOG 256

struct fs_task {
  pid_t tid;
  int exists, stopped, stepped, interrupt_pending;
  uint64_t dr[8];                /* x86 u_debugreg[0..7] */
  struct hw_arm64_hwdebug watch; /* AArch64 NT_ARM_HW_WATCH */
  uint64_t ip;
  int last_resume_sig;
};

/* One scripted stop and what the "kernel" did just before it. */
struct fs_entry {
  uint32_t kind;
  pid_t tid;
  int sig, si_code;
  pid_t new_tid;
  int queued;  /* an attach-time stop: the task need not have been resumed */
  int set_dr6; /* apply dr6 to the task */
  uint64_t dr6;
  int set_mem; /* the watched bytes now hold mem */
  uint64_t mem;
  int set_ip;
  uint64_t ip;
};

struct fs_log {
  char what; /* 'S' scripted stop, 'p' poke, 's' set_regset, 'r' resume, 't' step,
                          'd' detach */
  pid_t tid;
  uint64_t off, val;
  uint32_t ctrl0; /* set_regset: slot 0 ctrl */
  uint64_t addr0;
};

struct fake_seam {
  const struct asmspy_session *session;
  struct fs_task tasks[FS_MAX_TASKS];
  struct fs_entry script[FS_MAX_SCRIPT];
  size_t nscript, next;
  struct fs_log log[FS_MAX_LOG];
  size_t nlog;
  int violations;
  char violation[256];
  int attached, detached, armed_at_detach;
  int refuse_dr7;      /* poke of DR7 fails with this -errno */
  uint64_t watch_addr; /* where the fake memory's watched bytes live */
  uint64_t mem;
};

extern struct fake_seam fs;
extern const struct asmspy_seam_api fake_seam_api;

void fs_reset(void);
struct fs_task *fs_add_task(pid_t tid, int stopped);
struct fs_task *fs_task(pid_t tid);
void fs_push(struct fs_entry e);

#endif
