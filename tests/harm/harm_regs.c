/* harm_regs: every round calls harm_check_regs (harm_regs_asm.S) 200000
 * times; each call keeps values in every call-clobbered register (rcx rdx
 * rsi rdi r8-r11, xmm0-15 both halves) across a call to the patchable
 * harm_leaf and reports which changed. A round is CORRUPT when any did, and
 * says which. */
#include "harm.h"

#include <stdint.h>
#include <string.h>

uint64_t harm_check_regs(uint64_t seed);

static const char *const names[] = {"rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};

static unsigned long long round_work(char *what, size_t cap) {
  uint64_t all = 0;
  for (uint64_t i = 0; i < 200000; i++) all |= harm_check_regs(i * 1000003u);
  what[0] = 0;
  for (int b = 0; b < 41; b++) {
    if (!(all >> b & 1)) continue;
    char one[32];
    if (b < 8)
      snprintf(one, sizeof one, " %s", names[b]);
    else if (b < 40)
      snprintf(one, sizeof one, " xmm%d.%s", (b - 8) / 2, (b & 1) ? "hi" : "lo");
    else
      snprintf(one, sizeof one, " harm_leaf-result");
    strncat(what, one, cap - strlen(what) - 1);
  }
  return all;
}

int main(void) {
  char what[512];
  unsigned long long want = round_work(what, sizeof what);
  harm_ready(want);
  if (want) printf("round 0 CORRUPT registers changed before any tracer:%s\n", what);
  for (unsigned long long r = 1;; r++) {
    unsigned long long got = round_work(what, sizeof what);
    char msg[600];
    snprintf(msg, sizeof msg, "registers changed across a call to harm_leaf:%s (mask)", what);
    harm_round(r, got, 0, msg);
  }
}
