/* reader.h: asmspy's side of the rings (reader.c): drains every thread's
 * ring, merges them in timestamp order, and turns records into
 * ASMSPY_EV_CALL events (and ASMSPY_EV_LOST for what the agent dropped). */
#ifndef ASMSPY_ENTRYPATCH_READER_H
#define ASMSPY_ENTRYPATCH_READER_H

#include "plugins/entrypatch/agent_layout.h"

#include <asmspy/plugin.h>
#include <stdint.h>

struct ep_reader {
  struct ring_area *ring;           /* asmspy's own mapping of the shared ring */
  const struct agent_func *funcs;   /* the function table (asmspy's copy) */
  uint32_t nfuncs;
  const struct asmspy_session *s;
  uint64_t seq;
  /* tsc -> CLOCK_MONOTONIC ns: t0 pairs, rate refined as the session runs */
  uint64_t tsc0, ns0;
  double ns_per_tick;
  /* per ring: the tid writing it, the depth seen, the loss already reported */
  int32_t tid[AGENT_THREADS];
  uint32_t depth[AGENT_THREADS];
  uint64_t lost_seen[AGENT_THREADS];
  uint64_t tail[AGENT_THREADS];      /* consumed so far (published to the ring per batch) */
  uint64_t calls;    /* ENTRY records delivered */
  uint64_t lost;     /* records the agent dropped (ring full) */
  uint32_t threads;  /* rings in use */
  struct asmspy_event ev; /* the event handed to the sink, reused */
};

void ep_reader_init(struct ep_reader *r, struct ring_area *ring, const struct agent_func *funcs,
                    uint32_t nfuncs, const struct asmspy_session *s);
/* A full ring waits for the reader at most this long after its last beat. */
#define EP_BEAT_TIMEOUT_NS 250000000.0

/* Refine the tsc rate against CLOCK_MONOTONIC (call now and then); also
 * sets how old a beat may be (EP_BEAT_TIMEOUT_NS in ticks). */
void ep_reader_calibrate(struct ep_reader *r);
/* "The reader is alive": stamped at every drain and every idle poll. */
void ep_reader_beat(struct ep_reader *r);
#define EP_DRAIN_BATCH 65536

/* Deliver the records written so far (at most EP_DRAIN_BATCH, unless final). Returns the number delivered, or -1
 * when the sink asked to stop. final: the target is stopped for good, so a
 * record claimed but never written (a thread killed mid-record) is skipped
 * instead of waited for. */
int64_t ep_reader_drain(struct ep_reader *r, int final);

#endif
