/* functions whose first instructions call: `push rbp; mov rbp,rsp; call X`
 * at -O0 (no locals, no arguments), `sub rsp,8; call X` or `call X` at -O2 */
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE void tick(void) { SINK(1); }
NOINLINE void tock(void) { SINK(2); }
NOINLINE void first_calls(void) {
  tick();
  tock();
}
NOINLINE int first_calls_ret(void) {
  tick();
  return oracle_sink;
}
NOINLINE void only_calls(void) { first_calls(); }
int main(void) {
  first_calls();
  only_calls();
  printf("%d\n", first_calls_ret() & 1);
  return 0;
}
