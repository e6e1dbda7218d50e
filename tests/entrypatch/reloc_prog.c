/* reloc_prog: functions whose first instructions include a call, for
 * test_reloc_live.sh. Built -O0 without endbr64, main, step and pid_touch
 * start `push rbp; mov rbp,rsp; call ...` (pid_touch through the GOT:
 * -fno-plt), so the call is among the bytes the entry patch displaces and
 * is relocated (plan.c). Built -O2, step and main start `sub rsp,8; call`.
 * RELOC_ROUNDS=<n> (default 2000) steps, -1: until SIGTERM; prints
 * "rounds <n>" and "checksum <n>", the same traced or not. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long acc;
static long rounds = 2000, done;
static volatile sig_atomic_t stop;

static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

__attribute__((noinline)) void init(void) {
  const char *e = getenv("RELOC_ROUNDS");
  acc = 1;
  if (e) rounds = atol(e);
  signal(SIGTERM, on_term);
}
__attribute__((noinline)) long leaf(long x) { return x * 7 + 3; }
__attribute__((noinline)) void bump(void) { acc = acc * 31 + leaf(acc & 0xff); }
__attribute__((noinline)) void step(void) { bump(); }
__attribute__((noinline)) void pid_touch(void) { getpid(); }
__attribute__((noinline)) long run(void) {
  for (done = 0; rounds < 0 ? !stop : done < rounds; done++) {
    step();
    if (done % 10 == 0) pid_touch();
  }
  return acc;
}

/* 1 byte: refused ("too short"), so the session sends its REFUSED event */
__attribute__((naked, noinline)) void tiny(void) { __asm__("ret"); }
__attribute__((noinline)) void report(long sum) { printf("rounds %ld\nchecksum %ld\n", done, sum); }

/* no locals: its prologue is push rbp; mov rbp,rsp; call init */
int main(void) {
  init();
  report(run());
  return 0;
}
