/* two threads with distinct call patterns; the second starts after the first
 * ended (joined), so their order is fixed */
#include <pthread.h>
#include <stdio.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE int alpha_leaf(int x) {
  SINK(x);
  return x + 1;
}
NOINLINE int alpha(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += alpha_leaf(i);
  return s;
}
NOINLINE int beta_leaf(int x) {
  SINK(x);
  return x * 2;
}
NOINLINE int beta_mid(int x) { return beta_leaf(x) + beta_leaf(x + 1); }
NOINLINE int beta(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += beta_mid(i);
  return s;
}
NOINLINE void *thread_a(void *arg) {
  (void)arg;
  SINK(alpha(3));
  return NULL;
}
NOINLINE void *thread_b(void *arg) {
  (void)arg;
  SINK(beta(2));
  return NULL;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, thread_a, NULL);
  pthread_join(a, NULL);
  pthread_create(&b, NULL, thread_b, NULL);
  pthread_join(b, NULL);
  printf("%d\n", oracle_sink);
  return 0;
}
