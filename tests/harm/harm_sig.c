/* harm_sig: setitimer(ITIMER_REAL) at 20 kHz; the SIGALRM handler calls
 * hot() — the very function the main loop calls all the time — and checks
 * its result. So signals land while hot()'s first bytes (a patched entry,
 * a stub, a return trampoline) are executing, and the handler enters hot()
 * again on top of it. A round (2000000 calls in the main loop) is CORRUPT
 * when any result, in the loop or in a handler, was wrong. Built -O2. */
#include "harm.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>

__attribute__((noinline)) unsigned long hot(unsigned long x) {
  __asm__ volatile("" : "+r"(x)); /* not a const function: really called */
  return (x * 2654435761u) ^ (x >> 3);
}

static volatile unsigned long handler_bad, handler_runs;

static void on_alarm(int sig) {
  (void)sig;
  unsigned long x = handler_runs * 7 + 3;
  if (hot(x) != ((x * 2654435761u) ^ (x >> 3))) handler_bad++;
  handler_runs++;
}

static unsigned long round_work(void) {
  unsigned long sum = 0;
  for (unsigned long i = 0; i < 2000000; i++) {
    unsigned long h = hot(i);
    if (h != ((i * 2654435761u) ^ (i >> 3))) sum += 1ul << 40;
    sum += h & 0xffff;
  }
  return sum;
}

int main(void) {
  unsigned long want = round_work();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &it, NULL);
  harm_ready(want);
  for (unsigned long long r = 1;; r++) {
    unsigned long got = round_work() + (handler_bad << 50);
    harm_round(r, got, want,
               handler_bad ? "hot() results (handler saw wrong ones too)" : "hot() results");
  }
}
