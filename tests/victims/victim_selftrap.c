/* victim_selftrap: executes int3 (brk #0 on AArch64) itself and counts the SIGTRAPs its own
 * handler receives — a target with its own breakpoints. While traced, its
 * traps must be delivered back (not swallowed as asmspy's step traps), so
 * the handled count keeps rising and the process never dies of SIGTRAP.
 *
 *   victim_selftrap [HANDLER_US]   HANDLER_US > 0: the handler sleeps that
 *                                  long and the loop does not, so a tracer
 *                                  attaching finds the thread inside the
 *                                  handler, SIGTRAP blocked, nearly always */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

volatile sig_atomic_t traps_handled;
static unsigned handler_us;

static void on_trap(int sig, siginfo_t *si, void *ucv) {
  (void)sig;
  (void)si;
#if defined(__aarch64__)
  /* brk reports its own address: step over it, as a debugger would */
  ((ucontext_t *)ucv)->uc_mcontext.pc += 4;
#else
  (void)ucv; /* int3 reports the next instruction */
#endif
  traps_handled++;
  if (handler_us) usleep(handler_us); /* async-signal-safe enough: nanosleep */
}

int main(int argc, char **argv) {
  handler_us = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGTRAP, &sa, NULL);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (unsigned long i = 0;; i++) {
#if defined(__aarch64__)
    __asm__ volatile("brk #0");
#else
    __asm__ volatile("int3");
#endif
    if (i % 50 == 0) {
      char buf[64];
      int n = snprintf(buf, sizeof buf, "traps=%d\n", (int)traps_handled);
      if (write(2, buf, (size_t)n) < 0) return 1;
    }
    if (!handler_us) usleep(1000);
  }
}
