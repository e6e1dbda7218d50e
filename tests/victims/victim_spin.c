/* victim_spin: never sleeps — every single-step lands in the target's own
 * code (spin_body), which makes the stream deterministic enough to compare
 * against objdump. */
#include <stdio.h>
#include <unistd.h>

volatile unsigned long counter;

__attribute__((noinline)) void spin_body(void) {
  for (int i = 0; i < 1000; i++) counter += (unsigned long)i ^ counter;
}

int main(void) {
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (;;) spin_body();
}
