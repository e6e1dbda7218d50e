/* seam_cpu: keep the tracer thread on the CPU of the thread it drives.
 *
 * A ptrace stop costs ~4.5x more when tracer and tracee run on different
 * CPUs (every stop is two cross-CPU wake-ups: IPI, cold cache, idle exit).
 * The seam follows the CPU the stopping thread last ran on (field 39 of
 * /proc/<pid>/task/<tid>/stat) and sets the TRACER thread's own affinity to
 * it. The target's affinity is never touched: it may run anywhere, and the
 * scheduler's wake-affine logic keeps it next to its waker once both share
 * a CPU.
 *
 * Re-check policy (seam_cpu_stop, once per stop, O(1) in the common case):
 *   - at the first stop after attach;
 *   - every SEAM_CPU_RECHECK stops (the stat read is ~3 us, a stop ~20 us:
 *     amortised below 0.3%);
 *   - the thread followed is the one that stopped most since the last
 *     look (a Boyer-Moore majority vote, O(1) per stop): --stream follows
 *     the thread it steps; --log, with syscall stops across many threads,
 *     follows the busiest one and never ping-pongs between threads that
 *     interleave; a followed thread that is gone is replaced at the next
 *     stop;
 *   - at once when the interval between two stops jumps above 4x its
 *     running floor (a migration shows up as a latency jump first).
 *   - hysteresis: once pinned, the tracer moves only when two looks in a
 *     row found the target on the same other CPU.
 * Pinned or not is chosen by measurement, per session: blocks of
 * SEAM_CPU_BLOCK stops alternate pinned and unpinned until each side has
 * SEAM_CPU_WINDOW gaps (interleaved, so both see the same syscall mix:
 * start-up's heavier calls do not all land in one side), and the
 * tracer stays pinned only when the mean gap between stops (gaps above
 * 16x the median, blocking syscalls, left out) was at least 3% shorter
 * pinned (where the scheduler already keeps the two together,
 * a pinned tracer only takes its freedom away); the trial is re-run every
 * SEAM_CPU_RETRIAL stops. ASMSPY_PIN=1 pins throughout (no trial).
 * ASMSPY_PIN=idle pins throughout and makes the pinned tracer SCHED_IDLE,
 * so that the target's wake-ups stay on its CPU even when the other CPUs
 * are idle (seam_cpu.c: idle_reversible; off again at the first sign of
 * starvation).
 * Off when ASMSPY_NO_PIN is set, when the tracer's affinity cannot be read,
 * or when the target's CPU is not in the tracer's original allowed mask
 * (cpusets / taskset are respected). The original mask is restored at
 * detach. ASMSPY_DEBUG_PIN=1 notes every pin and decision on stderr. */
#ifndef ASMSPY_HOST_SEAM_CPU_H
#define ASMSPY_HOST_SEAM_CPU_H
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#define SEAM_CPU_RECHECK 256
#define SEAM_CPU_WINDOW 1024         /* stops per trial window */
#define SEAM_CPU_BLOCK 128           /* the trial alternates pinned/free blocks this long */
#define SEAM_CPU_RETRIAL 262144      /* stops between trials */
#define SEAM_CPU_IDLE_GAP_NS 1000000 /* ASMSPY_PIN=idle: look for starvation after gaps this long */
#define SEAM_CPU_IDLE_LOOK 64        /* ... and every this many stops */

enum seam_cpu_phase { SEAM_CPU_TRIAL_PIN = 0, SEAM_CPU_TRIAL_FREE, SEAM_CPU_DECIDED };

struct seam_cpu {
  int enabled; /* 0: inert (calloc'd seams, ASMSPY_NO_PIN, no mask) */
  int debug;
  cpu_set_t orig;        /* the tracer thread's affinity before the first pin */
  int pinned;            /* the CPU the tracer is pinned to, -1 none */
  int seen_cpu;          /* hysteresis: the other CPU the last look found, -1 none */
  pid_t tgid, tid;       /* the thread followed */
  pid_t cand, cand_tgid; /* the majority vote's candidate and its count */
  uint32_t cand_n;
  uint32_t since_check;
  int64_t last_ns;        /* when the previous stop was seen */
  int64_t floor_ns;       /* running floor of the inter-stop interval */
  uint64_t checks, moves; /* for ASMSPY_DEBUG_PIN's summary */
  /* the measured choice: a window of stops pinned, one unpinned, keep the
   * faster (mean gap between stops, blocking gaps left out); ASMSPY_PIN=1 skips the trial */
  int always;
  int idle_wanted;      /* ASMSPY_PIN=idle, and SCHED_IDLE can be left again */
  int idle_on;          /* the tracer thread is SCHED_IDLE now */
  int64_t idle_wait_ns; /* its run-queue wait at the last look (starvation guard) */
  int64_t idle_look_ns; /* when that look was */
  uint32_t idle_stops;  /* stops since */
  enum seam_cpu_phase phase;
  int use_pin;
  uint32_t win_n, since_decision;
  uint32_t win_free, block_pos;       /* gaps_free's fill; stops into the current block */
  int64_t med_pin;                    /* the pinned window's cost (window_cost: trimmed mean gap) */
  int64_t gaps[SEAM_CPU_WINDOW];      /* the pinned blocks' gaps */
  int64_t gaps_free[SEAM_CPU_WINDOW]; /* the free blocks' gaps */
};

/* Arm for one session (reads ASMSPY_NO_PIN and the tracer's mask). */
void seam_cpu_init(struct seam_cpu *c);
/* One stop of thread tid (tgid for the /proc path). */
void seam_cpu_stop(struct seam_cpu *c, pid_t tgid, pid_t tid);
/* Put the tracer's original affinity back (detach). Idempotent. */
void seam_cpu_restore(struct seam_cpu *c);
/* The CPU thread tid last ran on (stat field 39), -1 when unreadable. */
int seam_cpu_of(pid_t tgid, pid_t tid);

#endif
