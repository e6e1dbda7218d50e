/* scope_victim: the code the scope tests trace, in its own small shared
 * library (libscope_victim.so) so the C test, the callgrind oracle driver
 * and later the Python/C++ bindings all run the very same instructions.
 * Same shape as tests/victims/victim_loop.c: work() calls helper() 5 times. */
#include <stddef.h>

__attribute__((noinline, visibility("default"))) long helper(long x) { return x * 3 + 1; }

__attribute__((noinline, visibility("default"))) long work(long n) {
  long acc = 0;
  for (int i = 0; i < 5; i++) acc += helper(n + i);
  return acc;
}

/* cpuid, then a marker instruction (mov r10d, 0x5eed). This VM's hypervisor
 * sends no step trap after cpuid (plugins/singlestep/lost_trap.h): the
 * marker must still show up, right after the cpuid. */
__attribute__((noinline, visibility("default"))) unsigned cpu_vendor_word(void) {
  unsigned ebx, marker;
  __asm__ volatile("xorl %%eax, %%eax\n\t"
                   "cpuid\n\t"
                   "movl $0x5eed, %%r10d\n\t"
                   "movl %%ebx, %0\n\t"
                   "movl %%r10d, %1"
                   : "=r"(ebx), "=r"(marker)
                   :
                   : "eax", "ebx", "ecx", "edx", "r10");
  return ebx ^ marker;
}
