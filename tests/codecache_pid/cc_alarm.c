/* cc_alarm: SIGALRM every millisecond (setitimer ITIMER_REAL); the handler,
 * on_alarm, inspects its ucontext: uc_mcontext.gregs[REG_RIP], where the
 * signal interrupted the program, must be an address of code a file backs
 * (this program's text, or a library's: the executable mappings read from
 * /proc/self/maps at start), never a code cache's anonymous memory — a
 * handler that unwinds or samples from its context must see the program's
 * own addresses (tests/codecache_pid/threads_signals.sh). The handler also
 * checks its own computation. Harm protocol (tests/harm/harm.h); a round
 * (ROUND_CALLS calls of work_fn) is CORRUPT when a result was wrong, an
 * interrupted rip was foreign, or no signal came during the round. */
#define _GNU_SOURCE
#include "harm.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#define ROUND_CALLS 3000000ul
#define MAXR 64

extern char __executable_start[], etext[];
static uintptr_t lo[MAXR], hi[MAXR];
static int nranges;
static volatile unsigned long alarms, in_text, bad_rip, bad_calc, first_bad;

__attribute__((noinline)) unsigned long work_fn(unsigned long x) {
  __asm__ volatile("" : "+r"(x));
  return (x * 2654435761u) ^ (x >> 7);
}

static int file_code(uintptr_t a) {
  for (int i = 0; i < nranges; i++)
    if (a >= lo[i] && a < hi[i]) return 1;
  return 0;
}

__attribute__((noinline)) void on_alarm(int sig, siginfo_t *si, void *ctx) {
  (void)sig, (void)si;
  ucontext_t *uc = ctx;
  uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  alarms++;
  if (rip >= (uintptr_t)__executable_start && rip < (uintptr_t)etext)
    in_text++;
  else if (!file_code(rip)) {
    if (!bad_rip) first_bad = rip;
    bad_rip++;
  }
  unsigned long x = alarms * 11 + 5;
  if (work_fn(x) != ((x * 2654435761u) ^ (x >> 7))) bad_calc++;
}

/* the file-backed executable mappings (the vDSO too: a kernel-provided image) */
static void read_maps(void) {
  FILE *f = fopen("/proc/self/maps", "re");
  char line[512];
  while (f && fgets(line, sizeof line, f) && nranges < MAXR) {
    unsigned long a, b;
    char perm[8], path[400] = "";
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %399s", &a, &b, perm, path) < 3) continue;
    if (perm[2] != 'x' || (path[0] != '/' && strcmp(path, "[vdso]"))) continue;
    lo[nranges] = a, hi[nranges] = b, nranges++;
  }
  if (f) fclose(f);
}

static unsigned long round_work(void) {
  unsigned long sum = 0;
  for (unsigned long i = 0; i < ROUND_CALLS; i++) {
    unsigned long h = work_fn(i);
    if (h != ((i * 2654435761u) ^ (i >> 7))) sum += 1ul << 40;
    sum += h & 0xffff;
  }
  return sum;
}

int main(void) {
  read_maps();
  unsigned long want = round_work();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_alarm;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &it, NULL);
  harm_ready(want);
  for (unsigned long n = 1;; n++) {
    unsigned long a0 = alarms, got = round_work();
    if (bad_rip || bad_calc) {
      printf("round %lu CORRUPT handler: %lu interrupted rip(s) outside file-backed code (first "
             "0x%lx), "
             "%lu wrong result(s) in the handler\n",
             n, (unsigned long)bad_rip, (unsigned long)first_bad, (unsigned long)bad_calc);
      fflush(stdout);
      bad_rip = bad_calc = 0;
    } else if (alarms == a0) {
      printf("round %lu CORRUPT no SIGALRM arrived during the round\n", n);
      fflush(stdout);
    } else {
      harm_round(n, got, want, "work_fn sum");
    }
  }
}
