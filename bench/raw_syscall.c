/* raw_syscall: the floor asmspy --log is measured against — a minimal
 * PTRACE_SYSCALL loop over a launched command (fork, TRACEME, exec), one
 * PTRACE_GET_SYSCALL_INFO per stop, nothing decoded, nothing printed.
 * Prints, on stderr, the stops, the seconds, and how often the tracee and
 * the tracer migrated (se.nr_migrations of /proc/<pid>/sched).
 *   usage: raw_syscall CMD [ARGS...]
 * RAW_PLACE chooses how the tracer places itself (experiments behind
 * host/seam_cpu.c's policy; the target's affinity is never set):
 *   free   (default) nothing
 *   pin    the tracer pinned to the CPU it starts on
 *   idle   the tracer pinned, and SCHED_IDLE while the tracee runs (between
 *          its PTRACE_SYSCALL and its next stop), SCHED_OTHER while it
 *          works: the tracee's wake-up then finds the tracer's CPU
 *          "sched-idle" and stays there
 *   idlestay  the tracer pinned and SCHED_IDLE throughout (no per-stop
 *          syscalls; starves when other work shares its CPU) */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long migrations(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "se.nr_migrations", 16)) v = atol(strchr(line, ':') + 1);
  fclose(f);
  return v;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: raw_syscall CMD [ARGS...]\n");
    return 2;
  }
  const char *place = getenv("RAW_PLACE") ? getenv("RAW_PLACE") : "free";
  int stay = !strcmp(place, "idlestay");
  int pin = !strcmp(place, "pin") || !strcmp(place, "idle") || stay;
  int idle = !strcmp(place, "idle");
  if (pin) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
  }
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    raise(SIGSTOP);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  ptrace(PTRACE_SETOPTIONS, pid, 0,
         (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
  struct sched_param sp = {0};
  if (stay) sched_setscheduler(0, SCHED_IDLE, &sp);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long stops = 0, tgt_mig = -1;
  int sig = 0;
  for (;;) {
    if (idle) sched_setscheduler(0, SCHED_IDLE, &sp);
    if (ptrace(PTRACE_SYSCALL, pid, 0, (void *)(long)sig) != 0) break;
    sig = 0;
    if (idle) sched_setscheduler(0, SCHED_OTHER, &sp);
    if (waitpid(pid, &status, 0) < 0 || WIFEXITED(status) || WIFSIGNALED(status)) break;
    if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      char p[64];
      snprintf(p, sizeof p, "/proc/%d/sched", (int)pid);
      tgt_mig = migrations(p);
      continue;
    }
    if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
      struct __ptrace_syscall_info k;
      ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof k, &k);
      stops++;
    } else if (WSTOPSIG(status) != SIGTRAP) {
      sig = WSTOPSIG(status);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (idle || stay) sched_setscheduler(0, SCHED_OTHER, &sp);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  fprintf(stderr,
          "raw_syscall: %ld stops %.3f s %.2f us/syscall migrations tracee %ld tracer %ld\n", stops,
          secs, secs * 2e6 / (double)(stops ? stops : 1), tgt_mig,
          migrations("/proc/thread-self/sched"));
  return 0;
}
