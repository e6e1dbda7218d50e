/* wait_start.h: the call victims' `--wait`: print the pid, then block until
 * SIGUSR1, so a tracer can attach to the already-running process before
 * the work begins (C and C++). */
#ifndef ASMSPY_TESTS_CALLS_WAIT_START_H
#define ASMSPY_TESTS_CALLS_WAIT_START_H

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static inline void wait_start(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  int sig;
  sigwait(&set, &sig);
}

#endif
