/* calls_sigentry: a signal handler that runs while a function's first bytes
 * are executing. sig_fill's second instruction is `rep stosb` over a large
 * buffer: SIGALRM (setitimer, every 2 ms) interrupts it there, so the
 * signal frame on the stack holds entry+1 as the ip sigreturn resumes. The
 * handler spins ~1.5 ms: a tracer attaching at a random moment usually
 * finds the thread inside the handler, that frame below it. Patching
 * sig_fill then would resume the thread inside the jump's rel32 bytes.
 *
 * `calls_sigentry [--wait]`: fills and checks until SIGTERM, then prints
 * "checksum <n>" (of the data only) and exits 0; exits 2 at the first
 * wrong fill. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "wait_start.h"

/* sig_fill(dst=rdi, count=rcx, byte=al): `rep stosb` at entry+1 (rcx and al
 * are set by its caller, so the slow instruction is within the 5 bytes a
 * jump would cover). sig_fill_c is the C-ABI caller that keeps the stack
 * aligned as for any call. */
/* clang-format off */
__asm__(".text\n"
        ".globl sig_fill\n"
        ".type sig_fill, @function\n"
        "sig_fill:\n"
        "  nop\n"
        "  rep stosb\n"
        "  nop\n"
        "  nop\n"
        "  ret\n"
        ".size sig_fill, .-sig_fill\n"
        ".globl sig_fill_c\n"
        ".type sig_fill_c, @function\n"
        "sig_fill_c:\n" /* void sig_fill_c(void *dst, size_t n, int byte) */
        "  mov %rsi, %rcx\n"
        "  mov %edx, %eax\n"
        "  sub $8, %rsp\n"
        "  call sig_fill\n"
        "  add $8, %rsp\n"
        "  ret\n"
        ".size sig_fill_c, .-sig_fill_c\n");
/* clang-format on */
void sig_fill_c(void *dst, size_t n, int byte);

#define SIZE (32u << 20)

static volatile sig_atomic_t stop;
static volatile unsigned long ticks;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void on_alarm(int sig) {
  (void)sig;
  double until = now_ms() + 1.5;
  while (now_ms() < until) ticks++;
}

static void on_term(int sig) { (void)sig, stop = 1; }

__attribute__((noinline)) static unsigned long fill_and_check(unsigned char *buf, int byte) {
  sig_fill_c(buf, SIZE, byte);
  unsigned long sum = 0;
  for (size_t i = 0; i < SIZE; i += 4093) {
    if (buf[i] != (unsigned char)byte) {
      printf("byte %zu is %d, not %d\n", i, buf[i], byte);
      exit(2);
    }
    sum += buf[i];
  }
  return sum;
}

int main(int argc, char **argv) {
  unsigned char *buf = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) return 1;
  signal(SIGTERM, on_term);
  if (argc > 1 && strcmp(argv[1], "--wait") == 0) wait_start();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_REAL, &it, NULL);
  for (unsigned r = 0; !stop; r++) fill_and_check(buf, (int)(r % 7) + 1);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("checksum %lu\n", fill_and_check(buf, 5));
  return 0;
}
