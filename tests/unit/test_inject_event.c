/* test_inject_event.c — a system call injected into a thread stopped at a
 * fork or clone event stop (seam_inject_syscall, host/ptrace_seam.c).
 *
 * At such a stop the thread is still inside fork/clone: the kernel writes
 * the call's return value when the stop is left. A call injected there once
 * ran with that return value (the new pid) as its number and returned
 * -ENOSYS, and the thread, restored, saw fork/clone3 fail. glibc then fell
 * back from clone3 to clone and started the same new thread twice
 * (harm_threads churn died under entrypatch in CI). The seam now steps such
 * a thread out of its call first. Checked here, for fork and for a thread's
 * clone:
 *   - the injected getpid() returns the child's pid, not -ENOSYS;
 *   - the program sees its fork/pthread_create succeed, exactly once, and
 *     exits with the status that says so;
 *   - at a vfork event stop the injection is refused (-EAGAIN): the parent
 *     is waiting for its child and shares its memory.
 * x86-64 only (the seam's injection is); elsewhere exit 77. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "host/host.h"

#if defined(__x86_64__)
/* a `syscall` instruction at a known address: the forked child has it at
 * the same address */
extern const char syscall_gadget[];
__asm__(".text\n.globl syscall_gadget\nsyscall_gadget:\n syscall\n ret\n");

static void *thread_fn(void *arg) { return arg; }

/* The traced program: after the tracer's SIGSTOP, one fork (or vfork, or
 * pthread_create). 42 when it saw the call succeed once. */
static int program(const char *what) {
  raise(SIGSTOP);
  if (!strcmp(what, "thread")) {
    pthread_t t;
    void *back = NULL;
    if (pthread_create(&t, NULL, thread_fn, (void *)7)) return 3;
    if (pthread_join(t, &back) || back != (void *)7) return 4;
    return 42;
  }
  pid_t p = !strcmp(what, "vfork") ? vfork() : fork();
  if (p == 0) _exit(9);
  if (p < 0) return 5;
  int st = 0;
  if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 9) return 6;
  return 42;
}

static int wait_for(pid_t tid, int *status) {
  pid_t w;
  while ((w = waitpid(tid, status, __WALL)) < 0 && errno == EINTR) {
  }
  return w == tid ? 0 : -1;
}

/* Run program(what) traced; at its first fork/vfork/clone event stop inject
 * getpid(). *inject_rc and *got: the injection's result. Returns the
 * program's exit status, -1 when it did not exit normally. */
static int run(const char *what, int *inject_rc, int64_t *got) {
  pid_t pid = fork();
  if (pid == 0) _exit(program(what));
  int status;
  *inject_rc = 1;
  if (ptrace(PTRACE_SEIZE, pid, 0,
             (void *)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
                      PTRACE_O_EXITKILL)) != 0)
    return -1;
  for (int stops = 0; stops < 64; stops++) {
    pid_t w = waitpid(-1, &status, __WALL);
    if (w < 0) break;
    if (w == pid && (WIFEXITED(status) || WIFSIGNALED(status)))
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!WIFSTOPPED(status)) continue;
    int event = status >> 16, sig = WSTOPSIG(status), deliver = 0;
    if (w == pid && *inject_rc == 1 &&
        (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
         event == PTRACE_EVENT_CLONE)) {
      int owed = 0;
      uint64_t args[6] = {0};
      *inject_rc = seam_inject_syscall(pid, (uint64_t)(uintptr_t)syscall_gadget, SYS_getpid, args,
                                       got, &owed);
    } else if (!event && sig != SIGSTOP && sig != SIGTRAP) {
      deliver = sig;
    }
    if (event == PTRACE_EVENT_STOP || (!event && sig == SIGSTOP && w == pid))
      ptrace(PTRACE_CONT, w, 0, 0); /* the program's own SIGSTOP: its group stop */
    else
      ptrace(PTRACE_CONT, w, 0, (void *)(uintptr_t)deliver);
  }
  kill(pid, SIGKILL);
  wait_for(pid, &status);
  return -1;
}

int main(void) {
  int rc;
  int64_t got = 0;
  alarm(30); /* a wedged injection (a vfork parent stepped) ends the test, failed */

  int status = run("fork", &rc, &got);
  CHECK(rc == 0, "fork: injection at the fork event stop: rc %d", rc);
  CHECK(rc != 0 || got > 0, "fork: the injected getpid() returned %lld (-ENOSYS is %d)",
        (long long)got, -ENOSYS);
  CHECK(status == 42, "fork: the program saw its fork succeed once (exit %d, want 42)", status);

  status = run("thread", &rc, &got);
  CHECK(rc == 0, "thread: injection at the clone event stop: rc %d", rc);
  CHECK(rc != 0 || got > 0, "thread: the injected getpid() returned %lld", (long long)got);
  CHECK(status == 42, "thread: pthread_create succeeded once, the thread joined (exit %d)", status);

  status = run("vfork", &rc, &got);
  CHECK(rc == -EAGAIN, "vfork: injection refused with -EAGAIN (rc %d)", rc);
  CHECK(status == 42, "vfork: the program saw its vfork succeed (exit %d)", status);
  return check_summary("inject_event");
}
#else
int main(void) {
  puts("SKIP: the seam injects system calls on x86-64 only");
  return 77;
}
#endif
