/* pt_decode — drive libipt's instruction-flow decoder and emit asmspy events.
 * See pt_decode.h for the contract; the decode loop is libipt's documented
 * shape (doc/howto_libipt.md "The Instruction Flow Decode Loop"): drain
 * pending events (pts_event_pending) before every pt_insn_next, treat an
 * instruction as valid whenever its iclass is set (the status may report an
 * error that happens after it), and resync at the next PSB after an error. */
#define _GNU_SOURCE
/* Notes are one line; cutting an over-long path or message is intended. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "plugins/intel_pt/pt_decode.h"

#include <intel-pt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define PTD_MAX_NOTES 8u            /* per decoder: then one "suppressed" note */
#define PTD_MAX_TAIL (1u << 16)     /* held-back instructions before we call it a runaway */
#define PTD_MAX_PENDING (64u << 20) /* bytes kept waiting for a PSB */
#define PTD_PSB_LEN 16u

/* One decoded instruction, as much of struct pt_insn as we need later. */
struct held {
  uint64_t ip;
  uint8_t raw[15];
  uint8_t size;
  uint8_t iclass; /* enum pt_insn_class */
};

struct ptd {
  struct ptd_opts o;
  uint64_t own_seq; /* when the caller gave no counter */
  uint8_t *buf;     /* trace bytes not decoded yet; buf[0] is a PSB once synced */
  size_t len, cap;
  size_t scan_from;     /* the PSB search resumes here */
  uint64_t base_offset; /* stream offset of buf[0], for messages */
  int stopped;          /* the sink asked to stop, or max_insns */
  int prev_valid;       /* prev = the last instruction handed on (for branch edges) */
  struct held prev;
  struct held *tail; /* decoded past the trace's end: not confirmed yet */
  size_t ntail, captail;
  unsigned notes;
  int mode_noted;
  int seen_psb; /* the stream's first PSB arrived (buf[0] is one) */
  struct ptd_stats st;
};

/* ------------------------------------------------------------------ events */

static void ev_init(const struct ptd *d, struct asmspy_event *ev, uint16_t type) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = d->o.pid;
  ev->tid = d->o.tid;
  ev->nthreads = d->o.nthreads;
  ev->target = d->o.target;
}

static int sink_ev(struct ptd *d, struct asmspy_event *ev) {
  if (d->stopped) return 1;
  uint64_t *seq = d->o.seq ? d->o.seq : &d->own_seq;
  ev->seq = ++*seq;
  if (d->o.sink(d->o.sink_ctx, ev)) d->stopped = 1;
  return d->stopped;
}

static void note(struct ptd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ptd *d, const char *fmt, ...) {
  if (d->notes > PTD_MAX_NOTES) return;
  char text[400];
  if (d->notes++ == PTD_MAX_NOTES) {
    snprintf(text, sizeof text,
             "intel_pt: tid %d: further decode notes suppressed (the totals are in the final "
             "summary)",
             (int)d->o.tid);
  } else {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
  }
  struct asmspy_event ev;
  ev_init(d, &ev, ASMSPY_EV_NOTE);
  ev.u.note.text = text;
  sink_ev(d, &ev);
}

static void lost(struct ptd *d, uint64_t count) {
  struct asmspy_event ev;
  ev_init(d, &ev, ASMSPY_EV_LOST);
  ev.u.lost.count = count;
  sink_ev(d, &ev);
}

static int in_range(uint64_t ip, uint64_t start, uint64_t len) {
  return len && ip >= start && ip - start < len;
}

static int dropped(const struct ptd *d, uint64_t ip) {
  return in_range(ip, d->o.drop_start, d->o.drop_len);
}

static int kept(const struct ptd *d, uint64_t ip) {
  return !dropped(d, ip) && (!d->o.keep_len || in_range(ip, d->o.keep_start, d->o.keep_len));
}

static int is_near_branch(uint8_t iclass) {
  return iclass == ptic_call || iclass == ptic_return || iclass == ptic_jump ||
         iclass == ptic_cond_jump;
}

/* prev (a near branch) went to `to` instead of falling through: a taken branch. */
static void edge(struct ptd *d, uint64_t to) {
  if (!d->prev_valid || !is_near_branch(d->prev.iclass) || to == d->prev.ip + d->prev.size) return;
  uint64_t from = d->prev.ip;
  if (dropped(d, from) || dropped(d, to)) return;
  if (d->o.keep_len && !kept(d, from) && !kept(d, to)) return;
  struct asmspy_event ev;
  ev_init(d, &ev, ASMSPY_EV_BRANCH);
  ev.ip = from;
  ev.flags = ASMSPY_EVF_BR_TAKEN;
  if (d->prev.iclass == ptic_call) ev.flags |= ASMSPY_EVF_BR_CALL;
  if (d->prev.iclass == ptic_return) ev.flags |= ASMSPY_EVF_BR_RET;
  ev.u.branch.from = from;
  ev.u.branch.to = to;
  if (!sink_ev(d, &ev)) d->st.branches++;
}

/* An instruction the trace shows ran: its branch edge, then the INSN. */
static void emit_insn(struct ptd *d, const struct held *h) {
  if (d->stopped) return;
  edge(d, h->ip);
  d->prev = *h;
  d->prev_valid = 1;
  if (d->stopped || !kept(d, h->ip)) return;
  if (d->o.max_insns && d->st.insns >= d->o.max_insns) {
    d->st.max_reached = 1; /* there was one more: the capture is cut short */
    d->stopped = 1;
    return;
  }
  struct asmspy_event ev;
  ev_init(d, &ev, ASMSPY_EV_INSN);
  ev.ip = h->ip;
  ev.flags = ASMSPY_EVF_SP_UNKNOWN; /* PT records control flow, not registers */
  memcpy(ev.u.insn.bytes, h->raw, h->size);
  ev.u.insn.len = h->size;
  if (!sink_ev(d, &ev)) d->st.insns++;
}

/* ------------------------------------------------------- held-back tail */

static int hold(struct ptd *d, const struct held *h) {
  if (d->ntail == d->captail) {
    size_t nc = d->captail ? 2 * d->captail : 64;
    struct held *nt = realloc(d->tail, nc * sizeof *nt);
    if (!nt) return -1;
    d->tail = nt;
    d->captail = nc;
  }
  d->tail[d->ntail++] = *h;
  return 0;
}

static void drop_tail(struct ptd *d) {
  d->st.unconfirmed_dropped += d->ntail;
  d->ntail = 0;
}

/* The next piece resumes at `resume`: the held instructions before it ran
 * before that piece's PSB; the rest is re-decoded from the new piece. */
static void resolve_tail(struct ptd *d, uint64_t resume) {
  if (!d->ntail) return;
  size_t i = 0;
  while (i < d->ntail && d->tail[i].ip != resume) i++;
  if (i == d->ntail) {
    note(d,
         "intel_pt: tid %d: the trace resumes at 0x%" PRIx64 ", which the %zu instructions "
         "decoded past the previous piece's end never reach; they are dropped (a gap)",
         (int)d->o.tid, resume, d->ntail);
    drop_tail(d);
    d->prev_valid = 0;
    lost(d, 1);
    return;
  }
  size_t n = d->ntail;
  d->ntail = 0;
  for (size_t j = 0; j < i; j++) emit_insn(d, &d->tail[j]);
  d->st.unconfirmed_dropped += n - i;
}

/* ---------------------------------------------------------------- decode */

static void host_cpu(struct pt_cpu *cpu) {
  memset(cpu, 0, sizeof *cpu);
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, dx;
  if (!__get_cpuid(0, &a, &b, &c, &dx)) return;
  /* "GenuineIntel" in ebx, edx, ecx */
  if (b != 0x756e6547u || dx != 0x49656e69u || c != 0x6c65746eu) return;
  if (!__get_cpuid(1, &a, &b, &c, &dx)) return;
  unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model += ((a >> 16) & 0xf) << 4;
  cpu->vendor = pcv_intel;
  cpu->family = (uint16_t)family;
  cpu->model = (uint8_t)model;
  cpu->stepping = (uint8_t)(a & 0xf);
#endif
}

static const char *mode_name(enum pt_exec_mode m) {
  switch (m) {
  case ptem_16bit: return "16-bit";
  case ptem_32bit: return "32-bit";
  case ptem_64bit: return "64-bit";
  default: return "unknown-mode";
  }
}

static void on_event(struct ptd *d, const struct pt_event *ev) {
  switch (ev->type) {
  case ptev_disabled:
    /* tracing stopped (a syscall, or leaving a filtered region): whatever
     * comes after the enable is not this branch's target */
    d->prev_valid = 0;
    break;
  case ptev_async_disabled:
    if (!ev->ip_suppressed) edge(d, ev->variant.async_disabled.at);
    d->prev_valid = 0;
    break;
  case ptev_async_branch:
    edge(d, ev->variant.async_branch.from);
    d->prev_valid = 0;
    break;
  case ptev_overflow:
    d->st.overflows++;
    d->prev_valid = 0;
    if (ev->ip_suppressed)
      note(d,
           "intel_pt: tid %d: trace overflow (OVF): the CPU dropped packets; tracing resumes "
           "later",
           (int)d->o.tid);
    else
      note(d,
           "intel_pt: tid %d: trace overflow (OVF): the CPU dropped packets; resuming at "
           "0x%" PRIx64,
           (int)d->o.tid, ev->variant.overflow.ip);
    lost(d, 1);
    break;
  case ptev_exec_mode:
    if (ev->variant.exec_mode.mode != ptem_64bit && !d->mode_noted) {
      d->mode_noted = 1;
      note(d, "intel_pt: tid %d runs %s code at 0x%" PRIx64 "; decoded in that mode", (int)d->o.tid,
           mode_name(ev->variant.exec_mode.mode), ev->variant.exec_mode.ip);
    }
    break;
  default: /* enabled, paging, tsx, timing, power: nothing to show */ break;
  }
}

static void decode_error(struct ptd *d, struct pt_insn_decoder *dec, int status) {
  uint64_t off = 0;
  (void)pt_insn_get_offset(dec, &off);
  d->st.errors++;
  char where[64] = "";
  if (d->prev_valid) snprintf(where, sizeof where, " after ip 0x%" PRIx64, d->prev.ip);
  char text[200];
  snprintf(text, sizeof text, "%s (trace offset 0x%" PRIx64 "%s)", pt_errstr(pt_errcode(status)),
           d->base_offset + off, where);
  if (!d->st.first_error[0]) snprintf(d->st.first_error, sizeof d->st.first_error, "%s", text);
  note(d, "intel_pt: tid %d: decode error: %s; resyncing at the next PSB", (int)d->o.tid, text);
}

/* Decode buf[0, len) once: one libipt decoder over one piece of the stream. */
static int decode_piece(struct ptd *d, uint8_t *buf, size_t len) {
  struct pt_config cfg;
  pt_config_init(&cfg);
  cfg.begin = buf;
  cfg.end = buf + len;
  if (d->o.cpu_is_host) {
    host_cpu(&cfg.cpu);
    if (cfg.cpu.vendor == pcv_intel)
      (void)pt_cpu_errata(&cfg.errata, &cfg.cpu); /* unknown model: none */
  }
  if (d->o.filter) cfg.addr_filter = *d->o.filter;
  struct pt_insn_decoder *dec = pt_insn_alloc_decoder(&cfg);
  if (!dec) return -ASMSPY_E_NOMEM;
  if (d->o.image) pt_insn_set_image(dec, d->o.image);

  int status = pt_insn_sync_forward(dec);
  if (status < 0) {
    d->st.skipped_bytes += len;
    drop_tail(d);
    d->prev_valid = 0;
    if (status == -pte_eos)
      note(d,
           "intel_pt: tid %d: no PSB packet in %zu bytes of trace at offset 0x%" PRIx64
           ": nothing to synchronize on; skipped",
           (int)d->o.tid, len, d->base_offset);
    else
      decode_error(d, dec, status);
    pt_insn_free_decoder(dec);
    return 0;
  }
  uint64_t sync = 0;
  if (pt_insn_get_sync_offset(dec, &sync) == 0 && sync > 0) {
    /* pieces start at a PSB once the first one was seen: this is a gap */
    d->st.skipped_bytes += sync;
    note(d, "intel_pt: tid %d: %" PRIu64 " bytes before the PSB at offset 0x%" PRIx64 " skipped",
         (int)d->o.tid, sync, d->base_offset + sync);
  }
  int fresh = 1; /* the next instruction is the first after a sync */
  while (!d->stopped) {
    while (status >= 0 && (status & pts_event_pending) && !d->stopped) {
      struct pt_event ev;
      status = pt_insn_event(dec, &ev, sizeof ev);
      if (status >= 0) on_event(d, &ev);
    }
    if (d->stopped) break;
    if (status >= 0) {
      struct pt_insn insn;
      memset(&insn, 0, sizeof insn);
      status = pt_insn_next(dec, &insn, sizeof insn);
      if (insn.iclass != ptic_error && insn.size > 0 && insn.size <= sizeof insn.raw) {
        struct held h;
        memset(&h, 0, sizeof h);
        h.ip = insn.ip;
        h.size = insn.size;
        h.iclass = (uint8_t)insn.iclass;
        memcpy(h.raw, insn.raw, insn.size);
        d->st.decoded++;
        if (fresh) {
          resolve_tail(d, h.ip);
          fresh = 0;
        }
        int unconfirmed = d->ntail > 0 || status == -pte_eos || (status >= 0 && (status & pts_eos));
        if (!unconfirmed) {
          emit_insn(d, &h);
        } else if (d->ntail >= PTD_MAX_TAIL || hold(d, &h) != 0) {
          note(d,
               "intel_pt: tid %d: the decoder ran %zu instructions past the end of the "
               "trace without needing a branch outcome (a loop of direct jumps?); stopped "
               "this piece there",
               (int)d->o.tid, d->ntail);
          drop_tail(d);
          break;
        }
      }
      if (status >= 0) continue;
    }
    if (status == -pte_eos) break;
    decode_error(d, dec, status);
    drop_tail(d);
    d->prev_valid = 0;
    uint64_t before = 0, after = 0;
    (void)pt_insn_get_offset(dec, &before);
    status = pt_insn_sync_forward(dec);
    if (status < 0) {
      if (status != -pte_eos) decode_error(d, dec, status);
      d->st.skipped_bytes += len > before ? len - before : 0;
      lost(d, 1);
      break;
    }
    if (pt_insn_get_sync_offset(dec, &after) == 0 && after > before)
      d->st.skipped_bytes += after - before;
    lost(d, 1); /* at least one instruction between the error and the PSB */
    fresh = 1;
  }
  pt_insn_free_decoder(dec);
  return 0;
}

/* ------------------------------------------------------------------- API */

long ptd_find_psb(const uint8_t *buf, size_t len, size_t from) {
  for (size_t i = from; i + PTD_PSB_LEN <= len; i++) {
    if (buf[i] != 0x02) continue;
    size_t k = 1;
    while (k < PTD_PSB_LEN && buf[i + k] == ((k & 1) ? 0x82 : 0x02)) k++;
    if (k == PTD_PSB_LEN) return (long)i;
  }
  return -1;
}

struct ptd *ptd_new(const struct ptd_opts *o) {
  if (!o || !o->sink) return NULL;
  struct ptd *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->o = *o;
  d->scan_from = 1;
  return d;
}

void ptd_free(struct ptd *d) {
  if (!d) return;
  free(d->buf);
  free(d->tail);
  free(d);
}

int ptd_feed(struct ptd *d, const void *bytes, size_t len) {
  if (d->stopped) return 1;
  if (len == 0) return 0;
  if (d->len + len > d->cap) {
    size_t nc = d->cap ? d->cap : 1u << 16;
    while (nc < d->len + len) nc *= 2;
    uint8_t *nb = realloc(d->buf, nc);
    if (!nb) return -ASMSPY_E_NOMEM;
    d->buf = nb;
    d->cap = nc;
  }
  memcpy(d->buf + d->len, bytes, len);
  d->len += len;
  d->st.bytes += len;

  /* Before the stream's first PSB there is nothing to sync on: the tail of
   * whatever ran before tracing began. Drop it quietly (counted). */
  if (!d->seen_psb) {
    long first = ptd_find_psb(d->buf, d->len, 0);
    if (first < 0) {
      if (d->len <= PTD_MAX_PENDING) return 0; /* wait for one (or ptd_finish) */
    } else {
      d->seen_psb = 1;
      d->st.skipped_bytes += (uint64_t)first;
      d->base_offset += (uint64_t)first;
      memmove(d->buf, d->buf + first, d->len - (size_t)first);
      d->len -= (size_t)first;
      d->scan_from = 1;
    }
  }

  /* The last PSB after buf[0]: everything before it is a complete piece. */
  long last = -1;
  size_t from = d->scan_from > PTD_PSB_LEN ? d->scan_from - PTD_PSB_LEN + 1 : 1;
  for (long p = ptd_find_psb(d->buf, d->len, from); p >= 0;
       p = ptd_find_psb(d->buf, d->len, (size_t)p + 1))
    last = p;
  d->scan_from = d->len;
  if (last > 0) {
    int rc = decode_piece(d, d->buf, (size_t)last);
    if (rc < 0) return rc;
    memmove(d->buf, d->buf + last, d->len - (size_t)last);
    d->len -= (size_t)last;
    d->base_offset += (uint64_t)last;
    d->scan_from = d->len;
  } else if (d->len > PTD_MAX_PENDING) {
    note(d, "intel_pt: tid %d: %zu bytes of trace without a PSB packet; dropped", (int)d->o.tid,
         d->len);
    d->st.skipped_bytes += d->len;
    d->base_offset += d->len;
    d->len = 0;
    d->scan_from = 1;
    drop_tail(d);
    d->prev_valid = 0;
    lost(d, 1);
  }
  return d->stopped;
}

int ptd_finish(struct ptd *d) {
  if (d->len && !d->stopped) {
    int rc = decode_piece(d, d->buf, d->len);
    if (rc < 0) return rc;
  }
  d->base_offset += d->len;
  d->len = 0;
  d->scan_from = 1;
  /* Decoded past the last branch outcome of a stream that ended: not shown
   * to have run (the thread may have stopped before them). */
  drop_tail(d);
  return d->stopped;
}

void ptd_gap(struct ptd *d) {
  (void)ptd_finish(d);
  d->prev_valid = 0;
  d->seen_psb = 0; /* what follows the hole starts at its own first PSB */
}

void ptd_set_image(struct ptd *d, struct pt_image *image) {
  ptd_gap(d);
  d->o.image = image;
}

void ptd_set_nthreads(struct ptd *d, uint32_t n) { d->o.nthreads = n; }

const struct ptd_stats *ptd_get_stats(const struct ptd *d) { return &d->st; }
