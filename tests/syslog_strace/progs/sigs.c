/* sigs: alternate stack, pending, suspend, timedwait, queueinfo, actions. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void on_sig(int sig) { (void)sig; }

int main(void) {
  static char stk[65536];
  stack_t ss = {.ss_sp = stk, .ss_flags = 0, .ss_size = sizeof stk}, old;
  syscall(SYS_sigaltstack, &ss, &old);
  syscall(SYS_sigaltstack, NULL, &old);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sig;
  sa.sa_flags = SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_SIGINFO;
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_flags = SA_NOCLDSTOP | SA_NOCLDWAIT;
  sigaction(SIGCHLD, &sa, NULL);
  sigset_t set, none;
  sigemptyset(&none);
  sigfillset(&set);
  sigprocmask(SIG_BLOCK, &set, NULL);
  sigprocmask(SIG_UNBLOCK, &none, NULL);
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigaddset(&set, SIGRTMIN + 2);
  sigprocmask(SIG_SETMASK, &set, NULL);
  syscall(SYS_kill, getpid(), SIGUSR2);
  sigset_t pend;
  syscall(SYS_rt_sigpending, &pend, 8);
  siginfo_t si;
  struct timespec ts = {0, 0};
  syscall(SYS_rt_sigtimedwait, &set, &si, &ts, 8);
  syscall(SYS_rt_sigtimedwait, &set, &si, &ts, 8); /* EAGAIN */
  memset(&si, 0, sizeof si);
  si.si_code = SI_QUEUE;
  si.si_pid = getpid();
  si.si_uid = getuid();
  si.si_value.sival_int = 7;
  syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &si);
  syscall(SYS_rt_sigtimedwait, &set, NULL, &ts, 8);
  syscall(SYS_tkill, syscall(SYS_gettid), 0);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0);
  syscall(SYS_kill, 0, 0);
  sigset_t wait;
  sigfillset(&wait);
  sigdelset(&wait, SIGUSR1);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  syscall(SYS_kill, getpid(), SIGUSR1); /* pending until the suspend */
  syscall(SYS_rt_sigsuspend, &wait, 8);
  return 0;
}
