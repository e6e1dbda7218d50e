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
#include <sys/resource.h>
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

/* ASMSPY_PIN=idle: the tracer pinned AND SCHED_IDLE. The pin alone cannot
 * keep an idle machine's target on the tracer's CPU: the tracer is running
 * when its PTRACE_SYSCALL wakes the target, so the wake-up
 * (select_idle_sibling) prefers the other, idle CPU, and every stop then
 * costs two cross-CPU wake-ups. A CPU whose only running task is
 * SCHED_IDLE counts as idle there (sched_idle_cpu), so the target is woken
 * where the tracer is, preempts it at once, and its stop wakes the tracer
 * on the same CPU: no migrations, no IPIs. Costs nothing per stop. The
 * danger is starvation (SCHED_IDLE has weight 3 against 1024: any other
 * task on that CPU would run first): the tracer reads its own run-queue
 * wait (/proc/thread-self/schedstat) after every gap above
 * SEAM_CPU_IDLE_GAP_NS and, if waiting was most of that gap, leaves
 * SCHED_IDLE and the pin for the rest of the session. Only used when the
 * tracer may leave SCHED_IDLE again (CAP_SYS_NICE, or RLIMIT_NICE >= 20). */
static int idle_reversible(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur >= 20) return 1;
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return 0;
  char line[256];
  unsigned long long cap = 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "CapEff:", 7)) cap = strtoull(line + 7, NULL, 16);
  fclose(f);
  return (cap >> 23) & 1; /* CAP_SYS_NICE */
}

/* The calling thread's time spent waiting on a run queue (ns), -1 unknown. */
static int64_t self_rq_wait_ns(void) {
  char buf[128];
  int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  unsigned long long run, wait;
  if (sscanf(buf, "%llu %llu", &run, &wait) != 2) return -1;
  return (int64_t)wait;
}

static void idle_set(struct seam_cpu *c, int on) {
  struct sched_param sp = {0};
  if (on == c->idle_on) return;
  if (sched_setscheduler(0, on ? SCHED_IDLE : SCHED_OTHER, &sp) != 0) return;
  c->idle_on = on;
  if (on) {
    c->idle_wait_ns = self_rq_wait_ns();
    c->idle_look_ns = cpu_now_ns();
    c->idle_stops = 0;
  }
}

/* Every SEAM_CPU_IDLE_LOOK stops, and after a long gap: was the tracer
 * starved on its run queue? Co-located, it waits there while the target
 * runs (up to about half the time for a syscall-bound target: the woken
 * target preempts it at once), so only waiting for more than 3/4 of the
 * time since the last look counts as starvation. */
static void idle_guard(struct seam_cpu *c, int64_t now) {
  int64_t w = self_rq_wait_ns();
  int64_t waited = w - c->idle_wait_ns, elapsed = now - c->idle_look_ns;
  c->idle_stops = 0;
  c->idle_wait_ns = w;
  c->idle_look_ns = now;
  if (w < 0 || waited < 0 || waited * 4 < elapsed * 3) return;
  idle_set(c, 0);
  c->idle_wanted = 0; /* not again this session */
  c->always = 0;      /* back to the measured choice */
  if (c->debug)
    fprintf(stderr,
            "[pin] idle: the tracer waited %.2f ms of %.2f ms on its run queue: "
            "SCHED_IDLE off\n",
            (double)waited / 1e6, (double)elapsed / 1e6);
}

void seam_cpu_init(struct seam_cpu *c) {
  memset(c, 0, sizeof *c);
  c->pinned = -1;
  c->seen_cpu = -1;
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
  c->idle_wanted = on && !strcmp(on, "idle") && idle_reversible();
  if (on && !strcmp(on, "idle") && !c->idle_wanted && c->debug)
    fprintf(stderr, "[pin] idle: SCHED_IDLE could not be left again (no CAP_SYS_NICE, "
                    "RLIMIT_NICE < 20): pinned only\n");
  c->enabled = 1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
/* The window's cost per stop: the mean of its gaps, leaving out those above
 * 16x the median (a blocking syscall is idle time, not stop cost). Not the
 * median alone: a cross-CPU wake-up costs a few stops in ten, a tail the
 * median does not see (asmspy --log on dd: medians within 5% pinned and
 * free, means 15% apart). */
static int64_t window_cost(struct seam_cpu *c, int64_t *gaps) {
  (void)c;
  qsort(gaps, SEAM_CPU_WINDOW, sizeof *gaps, cmp_i64);
  int64_t med = gaps[SEAM_CPU_WINDOW / 2], sum = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < SEAM_CPU_WINDOW && gaps[i] <= 16 * med; i++, n++) sum += gaps[i];
  return n ? sum / n : med;
}
static void unpin(struct seam_cpu *c) {
  idle_set(c, 0);
  if (c->pinned >= 0 && sched_setaffinity(0, sizeof c->orig, &c->orig) == 0) c->pinned = -1;
}

static void cpu_check(struct seam_cpu *c) {
  c->since_check = 0;
  c->checks++;
  pid_t tid = c->tid;
  int cpu = seam_cpu_of(c->tgid, tid);
  if (cpu < 0) c->tid = 0; /* gone: the next stop's thread is followed */
  if (cpu < 0 || cpu == c->pinned) {
    c->seen_cpu = -1;
    return;
  }
  if (!CPU_ISSET(cpu, &c->orig)) return; /* outside our cpuset: stay as we are */
  /* hysteresis: once pinned, move only when two looks in a row found the
   * target on the same other CPU (a target that bounces between CPUs
   * would otherwise drag the tracer along at every look) */
  if (c->pinned >= 0 && cpu != c->seen_cpu) {
    c->seen_cpu = cpu;
    return;
  }
  c->seen_cpu = -1;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return;
  c->pinned = cpu;
  c->moves++;
  if (c->idle_wanted) idle_set(c, 1);
  if (c->debug)
    fprintf(stderr, "[pin] tracer tid %d -> cpu %d (target tid %d)\n", (int)syscall(SYS_gettid),
            cpu, (int)tid);
}

void seam_cpu_stop(struct seam_cpu *c, pid_t tgid, pid_t tid) {
  if (!c->enabled || tid <= 0) return;
  int64_t now = cpu_now_ns();
  int64_t gap = c->last_ns ? now - c->last_ns : 0;
  c->last_ns = now;
  if (c->idle_on && (++c->idle_stops >= SEAM_CPU_IDLE_LOOK || gap > SEAM_CPU_IDLE_GAP_NS))
    idle_guard(c, now);
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
    /* the trial: alternate blocks of SEAM_CPU_BLOCK stops pinned and free
     * (both halves then see the same mix of syscalls: a first window
     * pinned would also hold the whole exec/ld.so start-up), recording
     * the followed thread's gaps, the first of each block (the switch
     * itself) left out */
    if (c->phase != SEAM_CPU_DECIDED && tid == c->tid && gap > 0) {
      int pinned_block = c->phase == SEAM_CPU_TRIAL_PIN;
      if (c->block_pos++ > 0) {
        if (pinned_block && c->win_n < SEAM_CPU_WINDOW) c->gaps[c->win_n++] = gap;
        if (!pinned_block && c->win_free < SEAM_CPU_WINDOW) c->gaps_free[c->win_free++] = gap;
      }
      if (c->win_n == SEAM_CPU_WINDOW && c->win_free == SEAM_CPU_WINDOW) {
        c->med_pin = window_cost(c, c->gaps);
        int64_t med_free = window_cost(c, c->gaps_free);
        c->use_pin = c->med_pin * 100 < med_free * 97;
        c->phase = SEAM_CPU_DECIDED;
        c->since_decision = 0;
        c->win_n = c->win_free = 0;
        if (c->debug)
          fprintf(stderr, "[pin] trial: mean stop gap %.1f us pinned, %.1f us free -> %s\n",
                  (double)c->med_pin / 1000, (double)med_free / 1000,
                  c->use_pin ? "pinned" : "free");
        if (c->use_pin)
          check = 1;
        else
          unpin(c);
      } else if (c->block_pos >= SEAM_CPU_BLOCK) {
        c->block_pos = 0;
        if (pinned_block) {
          c->phase = SEAM_CPU_TRIAL_FREE;
          unpin(c);
        } else {
          c->phase = SEAM_CPU_TRIAL_PIN;
          check = 1;
        }
      }
    } else if (c->phase == SEAM_CPU_DECIDED && ++c->since_decision >= SEAM_CPU_RETRIAL) {
      c->phase = SEAM_CPU_TRIAL_PIN;
      c->win_n = c->win_free = 0;
      c->block_pos = 0;
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

/* se.nr_migrations of the calling thread (/proc/thread-self/sched), -1 when
 * unreadable (no CONFIG_SCHED_DEBUG): for ASMSPY_DEBUG_PIN's summary. */
static long self_migrations(void) {
  FILE *f = fopen("/proc/thread-self/sched", "re");
  if (!f) return -1;
  char line[256];
  long v = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "se.nr_migrations", 16) && strchr(line, ':'))
      v = atol(strchr(line, ':') + 1);
  fclose(f);
  return v;
}

void seam_cpu_restore(struct seam_cpu *c) {
  if (!c->enabled) return;
  unpin(c);
  if (c->debug)
    fprintf(stderr, "[pin] restored (%llu checks, %llu moves, %ld tracer migrations)\n",
            (unsigned long long)c->checks, (unsigned long long)c->moves, self_migrations());
  c->pinned = -1;
  c->enabled = 0;
}
