/* process: ids, fork, wait, exit; deterministic. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int st;
  struct rlimit rl;
  syscall(SYS_getuid);
  syscall(SYS_geteuid);
  syscall(SYS_getgid);
  syscall(SYS_getegid);
  syscall(SYS_getpgrp);
  syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl);
  syscall(SYS_getpriority, PRIO_PROCESS, 0);
  syscall(SYS_sched_yield);
  syscall(SYS_personality, 0xffffffff);
  pid_t c = (pid_t)syscall(SYS_fork);
  if (c == 0) syscall(SYS_exit_group, 3);
  syscall(SYS_wait4, c, &st, 0, NULL);
  syscall(SYS_wait4, -1, &st, WNOHANG, NULL); /* ECHILD */
  syscall(SYS_setpgid, 0, 0);
  return 0;
}
