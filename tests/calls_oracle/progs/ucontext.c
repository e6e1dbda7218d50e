/* a coroutine on its own stack (makecontext/swapcontext), switched to twice */
#include <stdio.h>
#include <ucontext.h>
#include "oracle.h"
ORACLE_SINK_DEF;
static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];
NOINLINE void co_work(int x) { SINK(x); }
NOINLINE void co_yield (void) { swapcontext(&co_ctx, &main_ctx); }
NOINLINE void coroutine(void) {
  co_work(1);
  co_yield ();
  co_work(2);
}
NOINLINE void resume(void) { swapcontext(&main_ctx, &co_ctx); }
int main(void) {
  getcontext(&co_ctx);
  co_ctx.uc_stack.ss_sp = co_stack;
  co_ctx.uc_stack.ss_size = sizeof co_stack;
  co_ctx.uc_link = &main_ctx;
  makecontext(&co_ctx, coroutine, 0);
  resume();
  co_work(10);
  resume();
  printf("%d\n", oracle_sink);
  return 0;
}
