/* harm_coro: 100 ucontext coroutines on heap (malloc'd) stacks. Each one
 * loops: calls step(), which calls work() and then swapcontext()s back to
 * the scheduler from inside step() — so a patched function's frame sits
 * suspended on one heap stack while the other 99 enter and leave the same
 * functions on theirs, and resumes later on its own stack. Every round
 * resumes each coroutine 100 times; the round's checksum (every coroutine's
 * running sum) must equal the one computed at start. Built -O2. */
#include "harm.h"

#include <stdint.h>
#include <ucontext.h>

#define NCO 100
#define STACK (64 * 1024)
#define TURNS 100

static ucontext_t sched, co[NCO];
static unsigned long acc[NCO];

__attribute__((noinline)) unsigned long work(unsigned long x, int k) {
  unsigned long s = x;
  for (int i = 0; i < 50 + k; i++) s = s * 6364136223846793005ul + 1442695040888963407ul;
  return s;
}

__attribute__((noinline)) void step(int id, unsigned long n) {
  unsigned long before = work(n, id % 7);
  swapcontext(&co[id], &sched); // suspended inside step (and inside its caller)
  acc[id] += before ^ work(n + 1, id % 5);
}

__attribute__((noinline)) void deeper(int id, unsigned long n) {
  step(id, n);
  if (n % 3 == 0) step(id, n * 2);
}

static void body(int id) {
  for (unsigned long n = 0;; n++) deeper(id, n);
}

static void trampoline(unsigned hi, unsigned lo) { body((int)(((uint64_t)hi << 32) | lo)); }

static unsigned long round_work(void) {
  unsigned long sum = 0;
  for (int t = 0; t < TURNS; t++)
    for (int i = 0; i < NCO; i++) swapcontext(&sched, &co[i]);
  for (int i = 0; i < NCO; i++) sum = sum * 31 + acc[i];
  return sum;
}

int main(void) {
  for (int i = 0; i < NCO; i++) {
    getcontext(&co[i]);
    co[i].uc_stack.ss_sp = malloc(STACK);
    co[i].uc_stack.ss_size = STACK;
    co[i].uc_link = &sched;
    makecontext(&co[i], (void (*)(void))trampoline, 2, 0u, (unsigned)i);
  }
  /* the reference: the same number of turns on a fresh set of sums needs
   * a second set of coroutines; instead, record each round's sum from a
   * pure model: the sums depend only on how far each coroutine got, which
   * the scheduler fixes (TURNS resumes per round) */
  unsigned long first = round_work();
  harm_ready(first);
  /* round r's expected sum: replay the model in plain code (no swapcontext) */
  static unsigned long model[NCO];
  static unsigned long pos[NCO]; /* the coroutine's n and its phase */
  static int phase[NCO];         /* 0: next resume enters step(n), 1: step(2n) pending */
  static unsigned long pend[NCO];
  /* rebuild the model up to the end of round 1 */
  for (int i = 0; i < NCO; i++) {
    pos[i] = 0;
    phase[i] = 0;
    model[i] = 0;
    pend[i] = 0;
  }
  unsigned long long r = 1;
  for (unsigned long long rr = 0;; rr++) {
    for (int t = 0; t < TURNS; t++)
      for (int i = 0; i < NCO; i++) {
        /* one resume: finishes the pending step (if any), starts the next */
        if (pend[i]) {
          unsigned long n = pend[i] - 1;
          model[i] += work(n, i % 7) ^ work(n + 1, i % 5);
        }
        unsigned long next;
        if (phase[i] == 0) {
          next = pos[i];
          phase[i] = (next % 3 == 0) ? 1 : 2;
          if (phase[i] == 2) {
            pos[i]++;
            phase[i] = 0;
          }
        } else {
          next = pos[i] * 2;
          pos[i]++;
          phase[i] = 0;
        }
        pend[i] = next + 1;
      }
    unsigned long want = 0;
    for (int i = 0; i < NCO; i++) want = want * 31 + model[i];
    if (rr == 0) {
      if (want != first) {
        printf("round 0 CORRUPT the model disagrees with the coroutines before any tracer: %lu vs "
               "%lu\n",
               want, first);
        fflush(stdout);
      }
      continue;
    }
    harm_round(r++, round_work(), want, "coroutine sums");
  }
}
