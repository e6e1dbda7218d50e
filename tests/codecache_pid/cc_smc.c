/* cc_smc — code that changes while it runs, the three ways programs do it:
 *
 *   jit     an anonymous rwx page: `mov $k, %eax; ret` written, called,
 *           its immediate rewritten in place (no system call between), the
 *           way a JIT patches an inline cache or a call site
 *   wx      an anonymous page toggled rw <-> rx with mprotect around each
 *           write (W^X, as V8 and HotSpot can)
 *   text    a function of this program's own .text: mprotect rwx, its
 *           immediate rewritten, mprotect rx again
 *   dual    a memfd mapped twice, rw and rx: written through one, run
 *           through the other (no system call between: HotSpot's and
 *           V8's double mapping)
 *
 * Each round calls the four and adds up what they return; the expected
 * sum is computed by plain arithmetic. `cc_smc R` runs R rounds (default
 * 200), prints `smc rounds=R sum=S ok` (or `CORRUPT`: a stale copy ran)
 * and exits 0 when every call returned what was written last. `cc_smc -f`
 * runs forever, a target to attach to (harm.h's protocol: `round N OK` per
 * 200 rounds, CORRUPT with the first bad values). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harm.h"

/* mov $imm32, %eax; ret — the immediate at byte 1 */
static const uint8_t code_tmpl[] = {0xb8, 0, 0, 0, 0, 0xc3};

/* the .text victim: the same shape, aligned, its immediate at byte 1 */
__asm__(".text\n.balign 64\n.globl text_fn\ntext_fn:\n mov $7, %eax\n ret\n .balign 64\n");
extern int text_fn(void);

static void put_imm(volatile uint8_t *fn, uint32_t k) {
  for (int i = 0; i < 4; i++) fn[1 + i] = (uint8_t)(k >> (8 * i));
}

int main(int argc, char **argv) {
  int forever = argc > 1 && !strcmp(argv[1], "-f");
  long rounds = argc > 1 && !forever ? atol(argv[1]) : 200;
  long pg = sysconf(_SC_PAGESIZE);
  uint8_t *jit = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint8_t *wx = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int mfd = memfd_create("cc_smc-dual", 0);
  if (jit == MAP_FAILED || wx == MAP_FAILED || mfd < 0 || ftruncate(mfd, pg)) return 2;
  uint8_t *dual_w = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  uint8_t *dual_x = mmap(NULL, (size_t)pg, PROT_READ | PROT_EXEC, MAP_SHARED, mfd, 0);
  if (dual_w == MAP_FAILED || dual_x == MAP_FAILED) return 2;
  memcpy(dual_w, code_tmpl, sizeof code_tmpl);
  int (*dual_fn)(void) = (int (*)(void))(void *)dual_x;
  memcpy(jit, code_tmpl, sizeof code_tmpl);
  memcpy(wx, code_tmpl, sizeof code_tmpl);
  mprotect(wx, (size_t)pg, PROT_READ | PROT_EXEC);
  uint8_t *text_pg = (uint8_t *)((uintptr_t)text_fn & ~(uintptr_t)(pg - 1));
  int (*jit_fn)(void) = (int (*)(void))(void *)jit;
  int (*wx_fn)(void) = (int (*)(void))(void *)wx;
  uint64_t sum = 0, want = 0;
  int bad = 0;
  if (forever) harm_ready(0);
  for (long r = 1; forever || r <= rounds; r++) {
    uint32_t k = (uint32_t)r * 3u;
    put_imm(jit, k); /* in place: the next call must see it */
    int a = jit_fn();
    put_imm(jit, k + 1);
    int b = jit_fn();
    mprotect(wx, (size_t)pg, PROT_READ | PROT_WRITE);
    put_imm(wx, k + 2);
    mprotect(wx, (size_t)pg, PROT_READ | PROT_EXEC);
    int c = wx_fn();
    mprotect(text_pg, (size_t)pg, PROT_READ | PROT_WRITE | PROT_EXEC);
    put_imm((uint8_t *)(uintptr_t)text_fn, k + 3);
    mprotect(text_pg, (size_t)pg, PROT_READ | PROT_EXEC);
    int d = text_fn();
    put_imm(dual_w, k + 4); /* twice: the first call's block is the one to go stale */
    int e = dual_fn();
    put_imm(dual_w, k + 5);
    int f = dual_fn();
    if ((uint32_t)a != k || (uint32_t)b != k + 1 || (uint32_t)c != k + 2 || (uint32_t)d != k + 3 ||
        (uint32_t)e != k + 4 || (uint32_t)f != k + 5) {
      if (bad++ < 5 && !forever)
        printf("round %ld CORRUPT: got %u %u %u %u %u %u, want %u .. %u\n", r, a, b, c, d, e, f, k,
               k + 5);
    }
    sum += (uint64_t)a + (uint64_t)b + (uint64_t)c + (uint64_t)d + (uint64_t)e + (uint64_t)f;
    want += 6ull * k + 15;
    if (forever && r % 200 == 0) {
      harm_round((unsigned long long)r / 200, sum, want, "returned values (a stale copy ran)");
      sum = want = 0;
    }
  }
  printf("smc rounds=%ld sum=%llu %s\n", rounds, (unsigned long long)sum,
         !bad && sum == want ? "ok" : "CORRUPT");
  return bad || sum != want;
}
