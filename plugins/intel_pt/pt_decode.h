/* pt_decode — one thread's Intel PT byte stream to asmspy events.
 *
 * libipt's instruction-flow decoder (pt_insn_*) turns trace + image into
 * executed instructions; this layer drives it and speaks asmspy:
 *   ASMSPY_EV_INSN    one per decoded instruction (ip, raw bytes, length);
 *                     sp is unknown (PT carries no register values)
 *   ASMSPY_EV_BRANCH  a taken near branch (jcc / jmp / call / ret), emitted
 *                     between the branch's INSN and its target's INSN
 *   ASMSPY_EV_NOTE    a decode problem, with libipt's pt_errstr() text and
 *                     the trace offset; the decoder resyncs at the next PSB
 *   ASMSPY_EV_LOST    trace the hardware or the decoder lost (OVF, a gap)
 *
 * The stream arrives in pieces while the thread runs (ptd_feed). libipt
 * decodes a fixed buffer, so the stream is cut at PSB packets — the
 * hardware's synchronization points — and each piece [PSB, next PSB) is
 * decoded once. At the end of a piece the decoder walks on past the last
 * branch outcome it has (the instructions libipt flags pts_eos): those are
 * not yet confirmed by the trace and are held back; the next piece's first
 * instruction (the IP in its PSB+ header) says how many of them ran before
 * it. Nothing is emitted that the trace does not show ran.
 */
#ifndef ASMSPY_INTEL_PT_DECODE_H
#define ASMSPY_INTEL_PT_DECODE_H

#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>

struct pt_image;
struct pt_conf_addr_filter;
struct ptd;

struct ptd_opts {
  struct pt_image *image; /* the decoder's own image (not owned, not shared) */
  asmspy_sink_fn sink;
  void *sink_ctx;
  uint64_t *seq;                /* the session's event counter (shared by threads) */
  int32_t pid, tid;             /* stamped on every event */
  struct asmspy_target *target; /* NULL for in-process scopes */
  uint32_t nthreads;
  uint64_t keep_start, keep_len;            /* region: INSN only inside it (keep_len 0 = all) */
  uint64_t drop_start, drop_len;            /* never emit these ips (a scope drops our own text) */
  uint64_t max_insns;                       /* stop after this many INSN events (0 = no limit) */
  const struct pt_conf_addr_filter *filter; /* the ranges the kernel filtered on, or NULL */
  int cpu_is_host;                          /* 1: the trace came from this CPU (apply its errata) */
};

struct ptd_stats {
  uint64_t bytes;               /* trace bytes fed */
  uint64_t insns;               /* INSN events emitted */
  uint64_t branches;            /* BRANCH events emitted */
  uint64_t decoded;             /* instructions libipt returned (before filtering) */
  uint64_t errors;              /* decode errors (each one a NOTE, then a resync) */
  uint64_t overflows;           /* OVF packets */
  uint64_t unconfirmed_dropped; /* held-back instructions the next piece did not confirm */
  uint64_t skipped_bytes;       /* bytes before the first PSB or between errors */
  int max_reached;              /* max_insns stopped the decode */
  char first_error[200];        /* the first decode error's text ("" if none) */
};

/* NULL on allocation failure or a missing sink. */
struct ptd *ptd_new(const struct ptd_opts *o);
/* Append trace bytes and decode every complete piece. Returns 0, 1 when the
 * sink asked to stop (or max_insns was reached), or -ASMSPY_E_NOMEM. */
int ptd_feed(struct ptd *d, const void *bytes, size_t len);
/* The stream ended (thread exit, capture stopped): decode the rest; held-back
 * instructions nobody confirmed are dropped. Same returns as ptd_feed. */
int ptd_finish(struct ptd *d);
/* The stream has a hole here (the AUX area filled and the kernel stopped the
 * event): decode what is pending as a finished stream and forget the flow,
 * so nothing is joined across the hole. */
void ptd_gap(struct ptd *d);
/* Swap the image (after an exec rebuilt it): bytes already fed are decoded
 * first with the old one, as at a gap. */
void ptd_set_image(struct ptd *d, struct pt_image *image);
void ptd_set_nthreads(struct ptd *d, uint32_t n);
const struct ptd_stats *ptd_get_stats(const struct ptd *d);
void ptd_free(struct ptd *d);

/* Offset of the first PSB packet in buf[from, len), or -1. */
long ptd_find_psb(const uint8_t *buf, size_t len, size_t from);

#endif
