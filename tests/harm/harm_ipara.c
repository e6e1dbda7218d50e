/* harm_ipara: built with plain `gcc -O2` (which enables -fipa-ra). mix() is
 * a static function gcc can see does not touch r8-r11 (or most other
 * call-clobbered registers), so the caller keeps live values in those
 * registers across `call mix` instead of saving them: a stub at mix's entry
 * or a return trampoline that clobbers one corrupts the caller's sums.
 * harm.sh checks with objdump that a value really sits in r8-r11 across a
 * call to mix (else the test proves nothing and fails as such).
 * Prints `round N OK` / `round N CORRUPT ...` forever (harm.h). */
#include "harm.h"

static __attribute__((noinline)) unsigned long mix(unsigned long x) {
  return (x ^ (x >> 13)) * 0x9E3779B97F4A7C15ul;
}

/* twelve values live across every call: more than the six callee-saved
 * registers, so -fipa-ra puts the rest in call-clobbered ones */
static __attribute__((noinline)) unsigned long round_work(unsigned long seed, int n) {
  unsigned long a = seed, b = seed * 3, c = seed * 5, d = seed * 7, e = seed * 11, f = seed * 13;
  unsigned long g = seed * 17, h = seed * 19, i2 = seed * 23, j = seed * 29, k = seed * 31,
                l = seed * 37;
  for (int i = 0; i < n; i++) {
    unsigned long m = mix(a + i);
    a += b;
    b ^= c;
    c += d;
    d ^= e;
    e += f;
    f ^= g;
    g += h;
    h ^= i2;
    i2 += j;
    j ^= k;
    k += l;
    l ^= m;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
    __asm__ volatile("" : "+r"(g), "+r"(h), "+r"(i2), "+r"(j), "+r"(k), "+r"(l));
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i2 ^ j ^ k ^ l;
}

int main(void) {
  unsigned long want = round_work(12345, 2000000);
  harm_ready(want);
  for (unsigned long long r = 1;; r++)
    harm_round(r, round_work(12345, 2000000), want, "round_work sum");
}
