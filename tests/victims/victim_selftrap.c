/* victim_selftrap: executes int3 itself and counts the SIGTRAPs its own
 * handler receives — a target with its own breakpoints. While traced, its
 * traps must be delivered back (not swallowed as asmspy's step traps), so
 * the handled count keeps rising and the process never dies of SIGTRAP. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t traps_handled;

static void on_trap(int sig) {
  (void)sig;
  traps_handled++;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_trap;
  sigaction(SIGTRAP, &sa, NULL);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (unsigned long i = 0;; i++) {
    __asm__ volatile("int3");
    if (i % 50 == 0) {
      char buf[64];
      int n = snprintf(buf, sizeof buf, "traps=%d\n", (int)traps_handled);
      if (write(2, buf, (size_t)n) < 0) return 1;
    }
    usleep(1000);
  }
}
