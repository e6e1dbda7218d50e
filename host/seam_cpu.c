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
  const char *on = getenv("ASMSPY_PIN");
  c->always = on && *on && strcmp(on, "0") != 0;
  c->enabled = 1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
static int64_t window_median(struct seam_cpu *c) {
  qsort(c->gaps, c->win_n, sizeof *c->gaps, cmp_i64);
  return c->gaps[c->win_n / 2];
}
static void unpin(struct seam_cpu *c) {
  if (c->pinned >= 0 && sched_setaffinity(0, sizeof c->orig, &c->orig) == 0) c->pinned = -1;
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
  if (!c->always) {
    /* the trial: record the gaps of the followed thread's stops */
    if (c->phase != SEAM_CPU_DECIDED && tid == c->tid && gap > 0 && c->win_n < SEAM_CPU_WINDOW)
      c->gaps[c->win_n++] = gap;
    if (c->phase == SEAM_CPU_TRIAL_PIN && c->win_n == SEAM_CPU_WINDOW) {
      c->med_pin = window_median(c);
      c->phase = SEAM_CPU_TRIAL_FREE;
      c->win_n = 0;
      unpin(c);
    } else if (c->phase == SEAM_CPU_TRIAL_FREE && c->win_n == SEAM_CPU_WINDOW) {
      int64_t med_free = window_median(c);
      c->use_pin = c->med_pin * 100 < med_free * 95;
      c->phase = SEAM_CPU_DECIDED;
      c->since_decision = 0;
      c->win_n = 0;
      if (c->debug)
        fprintf(stderr, "[pin] trial: median stop gap %.1f us pinned, %.1f us free -> %s\n",
                (double)c->med_pin / 1000, (double)med_free / 1000,
                c->use_pin ? "pinned" : "free");
      if (c->use_pin) check = 1;
    } else if (c->phase == SEAM_CPU_DECIDED && ++c->since_decision >= SEAM_CPU_RETRIAL) {
      c->phase = SEAM_CPU_TRIAL_PIN;
      c->win_n = 0;
      check = 1;
    }
    if (c->phase == SEAM_CPU_TRIAL_FREE || (c->phase == SEAM_CPU_DECIDED && !c->use_pin)) {
      /* unpinned: keep following who stops most, but set nothing */
      if (++c->since_check >= SEAM_CPU_RECHECK) {
        if (c->cand_n > 0) {
          c->tid = c->cand;
          c->tgid = c->cand_tgid;
        }
        c->cand_n = 0;
        c->since_check = 0;
      }
      return;
    }
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
  unpin(c);
  if (c->debug)
    fprintf(stderr, "[pin] restored (%llu checks, %llu moves)\n", (unsigned long long)c->checks,
            (unsigned long long)c->moves);
  c->pinned = -1;
  c->enabled = 0;
}
