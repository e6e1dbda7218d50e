/* seam_cpu: the tracer thread follows the CPU of the thread it drives.
 * See seam_cpu.h for the policy and why. Only the tracer's own affinity
 * (sched_setaffinity(0, ...): the calling thread) is ever set. */
#define _GNU_SOURCE
#include "host/seam_cpu.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t cpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int seam_cpu_of(pid_t tgid, pid_t tid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  /* comm (field 2) may hold spaces and parentheses: count from the last ')' */
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  p++;
  /* p is before field 3; field 39 is 37 separators further */
  for (int field = 3; field < 39 && p; field++) p = strchr(p + 1, ' ');
  if (!p) return -1;
  char *end;
  long cpu = strtol(p + 1, &end, 10);
  if (end == p + 1 || cpu < 0 || cpu >= CPU_SETSIZE) return -1;
  return (int)cpu;
}

void seam_cpu_init(struct seam_cpu *c) {
  memset(c, 0, sizeof *c);
  c->pinned = -1;
  const char *off = getenv("ASMSPY_NO_PIN");
  c->debug = getenv("ASMSPY_DEBUG_PIN") != NULL;
  if (off && *off && strcmp(off, "0") != 0) {
    if (c->debug) fprintf(stderr, "[pin] off (ASMSPY_NO_PIN)\n");
    return;
  }
  if (sched_getaffinity(0, sizeof c->orig, &c->orig) != 0) return;
  if (CPU_COUNT(&c->orig) < 2) return; /* nothing to choose */
  c->enabled = 1;
}

static void cpu_check(struct seam_cpu *c) {
  c->since_check = 0;
  c->checks++;
  pid_t tid = c->tid;
  int cpu = seam_cpu_of(c->tgid, tid);
  if (cpu < 0) c->tid = 0; /* gone: the next stop's thread is followed */
  if (cpu < 0 || cpu == c->pinned) return;
  if (!CPU_ISSET(cpu, &c->orig)) return; /* outside our cpuset: stay as we are */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return;
  c->pinned = cpu;
  c->moves++;
  if (c->debug)
    fprintf(stderr, "[pin] tracer tid %d -> cpu %d (target tid %d)\n", (int)syscall(SYS_gettid),
            cpu, (int)tid);
}

void seam_cpu_stop(struct seam_cpu *c, pid_t tgid, pid_t tid) {
  if (!c->enabled || tid <= 0) return;
  int64_t now = cpu_now_ns();
  int64_t gap = c->last_ns ? now - c->last_ns : 0;
  c->last_ns = now;
  /* the thread that stops most: a majority vote (Boyer-Moore), O(1) */
  if (tid == c->cand) {
    c->cand_n++;
  } else if (c->cand_n == 0) {
    c->cand = tid;
    c->cand_tgid = tgid;
    c->cand_n = 1;
  } else {
    c->cand_n--;
  }
  int check = 0;
  if (c->tid == 0) { /* first stop, or the followed thread is gone */
    c->tid = tid;
    c->tgid = tgid;
    check = 1;
  } else if (tid == c->tid && gap > 0) {
    /* floor: falls at once, rises slowly (a blocking syscall is one long
     * gap, not a new floor). A jump well above it is what a migration looks
     * like: look at once (at most every 16 stops). */
    if (!c->floor_ns || gap < c->floor_ns)
      c->floor_ns = gap;
    else
      c->floor_ns += (gap - c->floor_ns) / 64;
    if (gap > 4 * c->floor_ns && c->since_check >= 16) check = 1;
  }
  if (++c->since_check >= SEAM_CPU_RECHECK) {
    /* follow the thread that stopped most since the last look */
    if (c->cand_n > 0 && c->cand != c->tid) {
      c->tid = c->cand;
      c->tgid = c->cand_tgid;
      c->floor_ns = 0;
    }
    c->cand_n = 0;
    check = 1;
  }
  if (check) cpu_check(c);
}

void seam_cpu_restore(struct seam_cpu *c) {
  if (!c->enabled) return;
  if (c->pinned >= 0) sched_setaffinity(0, sizeof c->orig, &c->orig);
  if (c->debug)
    fprintf(stderr, "[pin] restored (%llu checks, %llu moves)\n", (unsigned long long)c->checks,
            (unsigned long long)c->moves);
  c->pinned = -1;
  c->enabled = 0;
}
