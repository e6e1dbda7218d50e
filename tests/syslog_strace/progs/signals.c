/* signals: handlers, masks, delivery; deterministic. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_usr1(int sig) { (void)sig; }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaddset(&sa.sa_mask, SIGUSR2);
  sigaction(SIGUSR1, &sa, NULL);
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  sigprocmask(SIG_BLOCK, &set, &old);
  sigprocmask(SIG_SETMASK, &old, NULL);
  signal(SIGPIPE, SIG_IGN);
  raise(SIGUSR1);
  syscall(SYS_kill, 999999, 0);                     /* ESRCH */
  syscall(SYS_rt_sigaction, SIGKILL, &sa, NULL, 8); /* EINVAL */
  return 0;
}
