/* victim_jit: a JIT-like target that rewrites a function's code between
 * invocations (codeimage tests).
 *
 * It copies a tiny function, `mov eax, imm32; ret` (b8 xx xx xx xx c3), into
 * an anonymous page and calls it in a loop. Every `period` calls it patches
 * the immediate to the next value (100, 101, ...), the way a JIT patches a
 * constant or a call target in place: only bytes 1..4 are written, so a
 * debugger's int3 on the entry byte survives the patch. The page follows a
 * W^X discipline: it is executable or writable, never both (mprotect RW,
 * write, mprotect RX).
 *
 * Because the immediate only ever grows, the value a call returns names the
 * code version it ran: a trace sample that returned 103 ran the bytes
 * b8 67 00 00 00 c3, and two samples that returned the same value ran the
 * same bytes (nothing was patched and patched back in between).
 *
 * It also calls steady(), an ordinary compiled function whose every
 * invocation executes the same instructions and returns the same value:
 * a deterministic --trace target whose text output is identical from run to
 * run (replay tests).
 *
 * Output: line 1 the pid, line 2 "jit 0x<addr> <len>".
 * Usage: victim_jit [sleep_us=1000] [period=4] [iterations=-1 (forever)] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JIT_LEN 6

volatile long sink;

__attribute__((noinline)) long steady_helper(long x) { return x * 2 + 1; }

/* Deterministic: always called with 7, always three helper calls. */
__attribute__((noinline)) long steady(long n) {
  long acc = 0;
  for (int i = 0; i < 3; i++) acc += steady_helper(n + i);
  return acc;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* Patch the immediate of `mov eax, imm32` in place, W^X: the page is never
 * writable and executable at the same time. */
static void patch_imm(uint8_t *code, long page, uint32_t imm) {
  if (mprotect(code, (size_t)page, PROT_READ | PROT_WRITE) != 0) die("mprotect RW");
  memcpy(code + 1, &imm, sizeof imm);
  if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0) die("mprotect RX");
}

int main(int argc, char **argv) {
  long sleep_us = argc > 1 ? atol(argv[1]) : 1000;
  long period = argc > 2 ? atol(argv[2]) : 4;
  long iterations = argc > 3 ? atol(argv[3]) : -1;
  if (period <= 0) period = 1;
  long page = sysconf(_SC_PAGESIZE);
  uint8_t *code =
      mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) die("mmap");
  static const uint8_t tmpl[JIT_LEN] = {0xb8, 0, 0, 0, 0, 0xc3}; /* mov eax, imm32; ret */
  memcpy(code, tmpl, sizeof tmpl);
  uint32_t imm = 100;
  memcpy(code + 1, &imm, sizeof imm);
  if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC) != 0) die("mprotect RX");
  int (*jit_fn)(void) = (int (*)(void))(uintptr_t)code;

  printf("%d\njit 0x%lx %d\n", (int)getpid(), (unsigned long)(uintptr_t)code, JIT_LEN);
  fflush(stdout);
  for (long i = 0; iterations < 0 || i < iterations; i++) {
    if (i > 0 && i % period == 0) patch_imm(code, page, ++imm);
    sink = jit_fn();
    sink += steady(7);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
