/* procinfo: prctl, uname, limits, usage, affinity, wait4/waitid, execve; deterministic. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  char name[16];
  struct rlimit rl = {8192 * 1024, RLIM_INFINITY};
  struct rusage ru;
  struct utsname un;
  syscall(SYS_prctl, PR_SET_NAME, "asmspy-proc", 0, 0, 0);
  syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0);
  syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
  syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0);
  syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  int sig = 0;
  syscall(SYS_prctl, PR_GET_PDEATHSIG, &sig, 0, 0, 0);
  syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  syscall(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  syscall(SYS_prctl, PR_CAPBSET_READ, 0, 0, 0, 0);
  syscall(SYS_prctl, PR_GET_TIMERSLACK, 0, 0, 0, 0);
  syscall(SYS_uname, &un);
  syscall(SYS_getrlimit, RLIMIT_STACK, &rl);
  syscall(SYS_setrlimit, RLIMIT_CORE, &(struct rlimit){0, RLIM_INFINITY});
  syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl);
  syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &(struct rlimit){1024, 4096}, &rl);
  syscall(SYS_getpriority, PRIO_PROCESS, 0);
  syscall(SYS_setpriority, PRIO_PROCESS, 0, 1);
  syscall(SYS_personality, 0xffffffff);
  syscall(SYS_personality, PER_LINUX);
  cpu_set_t cs;
  CPU_ZERO(&cs);
  CPU_SET(0, &cs);
  syscall(SYS_sched_setaffinity, 0, sizeof cs, &cs);
  syscall(SYS_sched_getaffinity, 0, sizeof cs, &cs);
  unsigned cpu, node;
  syscall(SYS_getcpu, &cpu, &node, NULL);
  syscall(SYS_arch_prctl, 0x3001 /* ARCH_CET_STATUS */, 0);
  pid_t c = (pid_t)syscall(SYS_fork);
  if (c == 0) {
    char *argv[] = {"x", "first", "second", NULL};
    char *envp[] = {"A=1", "B=2", NULL};
    syscall(SYS_execve, "/nonexistent/x", argv, envp);
    syscall(SYS_exit_group, 42);
  }
  int st;
  syscall(SYS_wait4, c, &st, 0, &ru);
  c = (pid_t)syscall(SYS_fork);
  if (c == 0) syscall(SYS_exit_group, 7);
  siginfo_t si;
  syscall(SYS_waitid, P_PID, c, &si, WEXITED, NULL);
  syscall(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOHANG, NULL); /* ECHILD */
  syscall(SYS_getrusage, RUSAGE_SELF, &ru);
  struct sysinfo inf;
  syscall(SYS_sysinfo, &inf);
  return 0;
}
