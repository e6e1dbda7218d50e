/* test_seam_child.c — the seam's spawn_child() (ABI 1.8), as a probe uses
 * it, through the public host table:
 *   - the child is handed over stopped at its self-stop, before child() ran
 *     (its getppid() is seen only after the first resume);
 *   - resume_syscall / next_stop see its syscall stops, and an EXITED stop
 *     carries its exit status;
 *   - detach() kills and reaps a child that is still running (no zombie,
 *     no survivor), and frees a seam whose child already exited;
 *   - the seam's waits name its child only: another child of the caller
 *     that exits meanwhile is still there for the caller to reap.
 * Standalone: exit 0 when every check passes, 1 otherwise. */
#define _GNU_SOURCE
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int spin_child(void *arg) {
  (void)arg;
  for (;;) pause();
  return 0;
}

static int exit7_child(void *arg) {
  (void)arg;
  syscall(SYS_getppid);
  return 7;
}

static struct asmspy_stop next(const struct asmspy_seam_api *seam, struct asmspy_seam *sm) {
  struct asmspy_stop st;
  memset(&st, 0, sizeof st);
  ASMSPY_INIT_HEADER(&st);
  if (seam->next_stop_timeout(sm, &st, 5000) != 0) st.kind = 0;
  return st;
}

/* 'Z' for a zombie, 0 when /proc has no such pid. */
static char proc_state(pid_t pid) {
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  char st = 0;
  if (fgets(buf, sizeof buf, f)) {
    char *p = strrchr(buf, ')');
    if (p && p[1] == ' ') st = p[2];
  }
  fclose(f);
  return st;
}

int main(void) {
  const struct asmspy_seam_api *seam = asmspy_host_api()->seam;
  CHECK(ASMSPY_HAS(seam, spawn_child) && seam->spawn_child, "seam table has spawn_child()");
  if (!ASMSPY_HAS(seam, spawn_child) || !seam->spawn_child) return check_summary("seam_child");

  /* A bystander child of ours that exits at once: the seam must not reap it. */
  pid_t other = fork();
  if (other == 0) _exit(3);

  /* 1. syscall stops, then the exit status. */
  struct asmspy_seam *sm = NULL;
  pid_t pid = 0;
  int rc = seam->spawn_child(exit7_child, NULL, 3000, &sm, &pid);
  CHECK(rc == 0 && sm && pid > 0, "spawn_child: rc %d pid %d", rc, (int)pid);
  if (rc == 0) {
    int entry = 0, exited = 0, code = -1;
    for (int i = 0; i < 64 && !exited; i++) {
      if (seam->resume_syscall(sm, pid, 0) != 0) break;
      struct asmspy_stop st = next(seam, sm);
      if (st.kind == ASMSPY_STOP_SYSCALL) {
        struct asmspy_syscall_info si;
        memset(&si, 0, sizeof si);
        ASMSPY_INIT_HEADER(&si);
        if (seam->syscall_info(sm, pid, &si) == 0 && si.op == ASMSPY_SYSCALL_ENTRY &&
            si.nr == SYS_getppid)
          entry = 1;
      } else if (st.kind == ASMSPY_STOP_EXITED) {
        exited = 1;
        code = st.exit_code;
        CHECK(st.tid == pid, "EXITED names the child (%d, want %d)", st.tid, (int)pid);
      } else if (st.kind != ASMSPY_STOP_GROUP && st.kind != ASMSPY_STOP_SIGNAL) {
        CHECK(0, "unexpected stop kind %u", st.kind);
        break;
      }
    }
    CHECK(entry, "a getppid() entry stop was seen");
    CHECK(exited && code == 7, "the child's exit status came back (exited %d, code %d)", exited,
          code);
    CHECK(seam->detach(sm) == 0, "detach after the exit");
    CHECK(proc_state(pid) == 0, "the exited child is reaped (state '%c')", proc_state(pid));
  }

  /* 2. a running child is killed and reaped by detach. */
  rc = seam->spawn_child(spin_child, NULL, 3000, &sm, &pid);
  CHECK(rc == 0 && pid > 0, "spawn_child (spinner): rc %d", rc);
  if (rc == 0) {
    CHECK(proc_state(pid) == 't', "handed over in a trace stop (state '%c')", proc_state(pid));
    CHECK(seam->resume(sm, pid, 0) == 0, "resume the spinner");
    CHECK(seam->detach(sm) == 0, "detach a running child");
    CHECK(proc_state(pid) == 0, "the running child is killed and reaped (state '%c')",
          proc_state(pid));
  }

  /* 3. the bystander is still ours to reap. */
  int st = 0;
  pid_t w;
  do {
    w = waitpid(other, &st, 0);
  } while (w < 0 && errno == EINTR);
  CHECK(w == other && WIFEXITED(st) && WEXITSTATUS(st) == 3,
        "the caller's other child was left for the caller (waitpid %d)", (int)w);
  return check_summary("seam_child");
}
