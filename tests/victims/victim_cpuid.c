/* victim_cpuid: runs `cpuid` at a known spot, followed by a marker
 * instruction (mov r10d, 0x5eed). Under this VM's hypervisor no single-step
 * trap follows cpuid (plugins/singlestep/lost_trap.h), so the marker runs
 * without a trap of its own: the tests check it is still reported, right
 * after the cpuid, in every stepping mode. Prints its pid first. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned sink;

__attribute__((noinline)) unsigned cpu_vendor_word(void) {
  unsigned ebx, marker;
  __asm__ volatile("xorl %%eax, %%eax\n\t"
                   "cpuid\n\t"
                   "movl $0x5eed, %%r10d\n\t" /* the marker: runs untrapped here */
                   "movl %%ebx, %0\n\t"
                   "movl %%r10d, %1"
                   : "=r"(ebx), "=r"(marker)
                   :
                   : "eax", "ebx", "ecx", "edx", "r10");
  return ebx ^ marker;
}

int main(int argc, char **argv) {
  long sleep_us = argc > 1 ? atol(argv[1]) : 1000;
  long iterations = argc > 2 ? atol(argv[2]) : -1; /* -1: forever */
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (long i = 0; iterations < 0 || i < iterations; i++) {
    sink = cpu_vendor_word();
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
