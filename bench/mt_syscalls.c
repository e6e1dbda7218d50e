/* mt_syscalls: the multi-threaded --log workload of bench/run_pin_bench.sh:
 * <threads> threads, each doing <n> 1-byte read()+write() pairs
 * (/dev/zero -> /dev/null), like `dd bs=1` in every thread at once. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long n_iter;

static void *work(void *arg) {
  (void)arg;
  int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
  char c;
  for (long i = 0; i < n_iter; i++)
    if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1) break;
  close(in);
  close(out);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mt_syscalls <threads> <n>\n");
    return 2;
  }
  int nt = atoi(argv[1]);
  n_iter = atol(argv[2]);
  if (nt < 1 || nt > 64) return 2;
  pthread_t th[64];
  for (int i = 0; i < nt; i++) pthread_create(&th[i], NULL, work, NULL);
  for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
  return 0;
}
