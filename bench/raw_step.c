/* raw_step: the floor asmspy --stream is measured against — a minimal
 * ptrace single-step loop (seize, interrupt, then SINGLESTEP + waitpid N
 * times, nothing else), printing steps per second. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: raw_step <pid> <steps>\n");
    return 2;
  }
  pid_t pid = (pid_t)atoi(argv[1]);
  long steps = atol(argv[2]);
  int status;
  if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0) {
    perror("ptrace");
    return 1;
  }
  waitpid(pid, &status, __WALL);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < steps; i++) {
    if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0) break;
    if (waitpid(pid, &status, __WALL) < 0) break;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ptrace(PTRACE_DETACH, pid, 0, 0);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("%.0f\n", (double)steps / secs);
  return 0;
}
