/* reader.h: asmspy's side of the rings (reader.c): drains every thread's
 * ring, merges them in timestamp order, and turns records into
 * ASMSPY_EV_CALL events (ASMSPY_EV_LOST for what the agent dropped, and
 * ASMSPY_EV_TASK when a thread or process of the target exits or execs:
 * after that thread's last record). */
#ifndef ASMSPY_ENTRYPATCH_READER_H
#define ASMSPY_ENTRYPATCH_READER_H

#include "plugins/entrypatch/agent_layout.h"

#include <asmspy/plugin.h>
#include <stdint.h>

/* a ring's end, seen by a poll, delivered once its records before it are */
enum { EP_END_NONE = 0, EP_END_EXIT = 1, EP_END_EXEC = 2 };

struct ep_reader {
  struct ring_area *ring;         /* asmspy's own mapping of the shared ring */
  const struct agent_func *funcs; /* the function table (asmspy's copy) */
  uint32_t nfuncs;
  const struct asmspy_session *s;
  uint64_t state; /* the agent's state in the target (its magic: an exec) */
  uint64_t seq;
  /* tsc -> CLOCK_MONOTONIC ns: t0 pairs, rate refined as the session runs */
  uint64_t tsc0, ns0;
  double ns_per_tick;
  uint64_t next_poll, poll_ticks; /* thread deaths and execs are looked for every 10 ms */
  /* per ring: the tid (and process) writing it, the depth seen, the loss
   * already reported, what was consumed, how it ends */
  int32_t tid[AGENT_THREADS];
  int32_t pid[AGENT_THREADS];
  uint32_t depth[AGENT_THREADS];
  uint64_t lost_seen[AGENT_THREADS];
  uint64_t tail[AGENT_THREADS];   /* consumed so far (published to the ring per chunk) */
  uint64_t end_at[AGENT_THREADS]; /* EP_END_*: delivered when tail reaches this */
  uint8_t end_kind[AGENT_THREADS];
  uint8_t ended[AGENT_THREADS]; /* its thread's end was delivered */
  int32_t end_code[AGENT_THREADS];
  uint64_t no_ring_seen;
  uint64_t calls;         /* ENTRY records delivered */
  uint64_t lost;          /* records the agent dropped (lossy mode, no free ring, reader gone) */
  uint64_t late;          /* records not written after the capture closed (not a loss) */
  uint32_t threads;       /* rings in use */
  uint32_t execs;         /* processes that exec'd another program (the agent is gone there) */
  uint32_t children;      /* followed processes (forked children) seen */
  struct asmspy_event ev; /* the event handed to the sink, reused */
};

void ep_reader_init(struct ep_reader *r, struct ring_area *ring, const struct agent_func *funcs,
                    uint32_t nfuncs, const struct asmspy_session *s, uint64_t state);
/* A full ring waits for the reader; a beat older than this (and asmspy's
 * process gone) means nobody will read it: then it drops. */
#define EP_DEAD_NS 2000000000.0

/* Refine the tsc rate against CLOCK_MONOTONIC (call now and then); also
 * sets how old a beat may be before a waiter asks whether we live. */
void ep_reader_calibrate(struct ep_reader *r);
/* "The reader is alive": stamped per chunk and every idle poll. */
void ep_reader_beat(struct ep_reader *r);
/* The capture is over: no thread waits for the reader again (waiters are
 * released now). Before the leave stops the target's threads. */
void ep_reader_close(struct ep_reader *r);
#define EP_DRAIN_BATCH 65536
#define EP_DRAIN_CHUNK 4096 /* tails published, beat stamped, waiters woken per chunk */

/* Deliver the records written so far (at most EP_DRAIN_BATCH, unless final). Returns the number delivered, or -1
 * when the sink asked to stop. final: the target is stopped for good, so a
 * record claimed but never written (a thread killed mid-record) is skipped
 * instead of waited for. */
int64_t ep_reader_drain(struct ep_reader *r, int final);
/* After the final drain: when the processes are gone, the EXIT of every
 * thread not yet reported. Returns -1 when the sink asked to stop. */
int ep_reader_finish(struct ep_reader *r);
/* Followed processes (other than the target) still alive. */
uint32_t ep_reader_children_alive(struct ep_reader *r);

#endif
