/* pt_inproc — Intel PT scopes on the calling thread. See pt_inproc.h.
 *
 * What the capture contains: every user-space instruction the thread ran
 * between the enable (the `syscall` inside inproc_begin) and the disable
 * (the `syscall` at the top of inproc_end). The plugin's own instructions
 * in that window are dropped at decode (its executable segment, found with
 * dl_iterate_phdr); libasmspy's are dropped by the scope core. Other
 * threads, and children, are not traced (a per-thread event without
 * inherit), so creating a thread inside a scope is harmless here.
 *
 * Limits, all reported as "truncated: ..." notes, never silently:
 *   - the AUX area fills (full-trace mode stops the trace: PERF_RECORD_AUX
 *     TRUNCATED, or the head reached the end of the area), or wrapped;
 *   - max_insns reached;
 *   - decode gaps (libipt errors, OVF);
 *   - end() on another thread than begin(): the capture followed the
 *     arming thread and is discarded.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "plugins/intel_pt/pt_inproc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/exec_segment.h"
#include "plugins/intel_pt/intel_pt.h"
#include "plugins/intel_pt/pt_capture.h"
#include "plugins/intel_pt/pt_decode.h"
#include "plugins/intel_pt/pt_image.h"
#include "plugins/intel_pt/pt_maps.h"

#define INPROC_DEFAULT_MAX (1u << 20)
#define INPROC_AUX_MIN (64u << 10)
#define INPROC_AUX_MAX (16u << 20)
#define INPROC_MAX_ARMED 256

struct ipt_handle {
  struct ptc_event ev;
  pid_t tid;
  uint64_t region_start, region_len, max_insns;
};

/* Threads with a scope open: a second begin on one of them is refused.
 * A table (not a thread-local pointer) so a scope ended on another thread
 * leaves nothing dangling behind on the arming one. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t g_armed[INPROC_MAX_ARMED];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct ptc_pmu g_pmu;
static int g_pmu_status;
static uint64_t g_self_lo, g_self_hi; /* this plugin's executable segment */

static pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

static void once_init(void) {
  struct asmspy_probe_result why;
  memset(&why, 0, sizeof why);
  ASMSPY_INIT_HEADER(&why);
  g_pmu_status = ptc_pmu_read(IPT_SYSFS_ROOT, &g_pmu, &why);
  (void)exec_segment_of((const void *)&once_init, &g_self_lo, &g_self_hi);
}

/* 1: armed now; 0: this thread already has a scope; -1: table full. */
static int arm_tid(pid_t tid) {
  int rc = -1;
  pthread_mutex_lock(&g_lock);
  int free_slot = -1;
  for (int i = 0; i < INPROC_MAX_ARMED; i++) {
    if (g_armed[i] == tid) {
      rc = 0;
      goto out;
    }
    if (!g_armed[i] && free_slot < 0) free_slot = i;
  }
  if (free_slot >= 0) {
    g_armed[free_slot] = tid;
    rc = 1;
  }
out:
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static void disarm_tid(pid_t tid) {
  pthread_mutex_lock(&g_lock);
  for (int i = 0; i < INPROC_MAX_ARMED; i++)
    if (g_armed[i] == tid) g_armed[i] = 0;
  pthread_mutex_unlock(&g_lock);
}

/* PT costs well under a byte per instruction on branchy code (a TNT bit per
 * conditional branch, a TIP per indirect one): two bytes per instruction of
 * the recording budget leaves room for call-heavy code. */
static size_t aux_bytes_for(uint64_t max_insns) {
  uint64_t want = max_insns > INPROC_AUX_MAX ? INPROC_AUX_MAX : max_insns * 2;
  if (want < INPROC_AUX_MIN) want = INPROC_AUX_MIN;
  if (want > INPROC_AUX_MAX) want = INPROC_AUX_MAX;
  return (size_t)want;
}

int ipt_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                     void **handle) {
  (void)host;
  if (!handle) return -ASMSPY_E_USAGE;
  *handle = NULL;
  pthread_once(&g_once, once_init);
  if (g_pmu_status) return -g_pmu_status;
  pid_t tid = my_tid();
  int armed = arm_tid(tid);
  if (armed == 0) return -ASMSPY_E_ATTACH_BUSY; /* a scope is open on this thread */
  if (armed < 0) return -ASMSPY_E_NOMEM;
  struct ipt_handle *h = calloc(1, sizeof *h);
  if (!h) {
    disarm_tid(tid);
    return -ASMSPY_E_NOMEM;
  }
  h->tid = tid;
  h->max_insns = INPROC_DEFAULT_MAX;
  if (req && ASMSPY_HAS(req, max_insns) && req->max_insns) h->max_insns = req->max_insns;
  if (req && ASMSPY_HAS(req, region_len)) {
    h->region_start = req->region_start;
    h->region_len = req->region_len;
  }
  struct ptc_open_opts oo = {.tid = 0, /* the calling thread */
                             .sideband = 0,
                             .aux_bytes = aux_bytes_for(h->max_insns),
                             .aux_min = INPROC_AUX_MIN,
                             .data_pages_log2 = 1};
  char why[300];
  int st = ptc_open(&h->ev, &g_pmu, &oo, why, sizeof why);
  if (st != 0) {
    free(h);
    disarm_tid(tid);
    return -st;
  }
  *handle = h;
  /* Last act: from the return of this syscall on, the thread is traced. */
  long rc = ptc_ioctl_inline(h->ev.fd, PERF_EVENT_IOC_ENABLE, 0);
  if (__builtin_expect(rc == 0, 1)) return 0;
  *handle = NULL;
  ptc_close(&h->ev);
  free(h);
  disarm_tid(tid);
  return -pp_perf_errno_status((int)-rc);
}

struct drain_ctx {
  uint64_t aux_flags;
  uint64_t lost;
};

static void on_record(void *ctx, const struct ptc_record *r) {
  struct drain_ctx *c = ctx;
  if (r->type == PERF_RECORD_AUX) c->aux_flags |= r->aux_flags;
  if (r->type == PERF_RECORD_LOST) c->lost += r->lost;
}

/* A NOTE event; seq continues the numbering of the events before it. */
static void note_seq(asmspy_sink_fn sink, void *ctx, const struct pt_inproc_capture *c,
                     uint64_t *seq, const char *text) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_NOTE;
  ev.seq = ++*seq;
  ev.pid = c->pid;
  ev.tid = c->tid;
  ev.nthreads = 1;
  ev.u.note.text = text;
  sink(ctx, &ev);
}

int ipt_inproc_end(void *hv, asmspy_sink_fn sink, void *sink_ctx) {
  struct ipt_handle *h = hv;
  /* First act: stop the trace (one inlined syscall, in our own text). */
  if (h) (void)ptc_ioctl_inline(h->ev.fd, PERF_EVENT_IOC_DISABLE, 0);
  if (!h) return -ASMSPY_E_USAGE;
  pid_t me = my_tid();
  struct pt_inproc_capture c;
  memset(&c, 0, sizeof c);
  c.pid = (pid_t)getpid();
  c.tid = h->tid;
  int rc = 0;
  if (me != h->tid) {
    char text[256];
    snprintf(text, sizeof text,
             "truncated: thread hop: the scope began on tid %d and ended on tid %d; the capture "
             "followed the arming thread and is discarded",
             (int)h->tid, (int)me);
    uint64_t seq = 0;
    if (sink) note_seq(sink, sink_ctx, &c, &seq, text);
  } else if (sink) {
    struct drain_ctx dc = {0, 0};
    ptc_drain_records(&h->ev, on_record, &dc);
    c.aux = h->ev.aux;
    c.aux_size = h->ev.aux_size;
    c.aux_head = __atomic_load_n(&h->ev.ring.pc->aux_head, __ATOMIC_ACQUIRE);
    c.aux_flags = dc.aux_flags;
    c.sideband_lost = dc.lost;
    c.region_start = h->region_start;
    c.region_len = h->region_len;
    c.drop_start = g_self_lo;
    c.drop_len = g_self_hi - g_self_lo;
    c.max_insns = h->max_insns;
    rc = pt_inproc_deliver(&c, sink, sink_ctx);
  }
  ptc_close(&h->ev);
  disarm_tid(h->tid);
  free(h);
  return rc;
}

/* ---------------------------------------------------------------- deliver */

/* The decoder's events on their way to the scope: a loss (OVF, a decode
 * error, an unconfirmed stretch) becomes a "gap: ..." note at its place in
 * the listing, carrying the decoder's explanation that came just before it. */
struct gapper {
  asmspy_sink_fn sink;
  void *ctx;
  char last[400];
};

static int gap_sink(void *ctx, const struct asmspy_event *ev) {
  struct gapper *g = ctx;
  if (ev->type == ASMSPY_EV_NOTE && ev->u.note.text)
    snprintf(g->last, sizeof g->last, "%s", ev->u.note.text);
  if (ev->type != ASMSPY_EV_LOST) return g->sink(g->ctx, ev);
  char text[460];
  snprintf(text, sizeof text, "gap: %s", g->last[0] ? g->last : "intel_pt: trace lost here");
  g->last[0] = '\0';
  struct asmspy_event note = *ev;
  note.type = ASMSPY_EV_NOTE;
  memset(&note.u, 0, sizeof note.u);
  note.u.note.text = text;
  return g->sink(g->ctx, &note); /* the note stands for the LOST event */
}

int pt_inproc_deliver(const struct pt_inproc_capture *c, asmspy_sink_fn sink, void *sink_ctx) {
  struct ptm_maps maps;
  if (ptm_read("/proc/self/maps", &maps) != 0) memset(&maps, 0, sizeof maps);
  struct pti_image *im = pti_new("self", pti_read_self, NULL);
  if (!im) {
    ptm_free(&maps);
    return -ASMSPY_E_NOMEM;
  }
  (void)pti_add_maps(im, &maps);
  ptm_free(&maps);
  struct pt_image *img = pti_clone(im);
  uint64_t seq = 0;
  struct gapper gp = {sink, sink_ctx, ""};
  struct ptd_opts o = {.image = img,
                       .sink = gap_sink,
                       .sink_ctx = &gp,
                       .seq = &seq,
                       .pid = c->pid,
                       .tid = c->tid,
                       .target = NULL,
                       .nthreads = 1,
                       .keep_start = c->region_start,
                       .keep_len = c->region_len,
                       .drop_start = c->drop_start,
                       .drop_len = c->drop_len,
                       .max_insns = c->max_insns,
                       .cpu_is_host = 1};
  struct ptd *d = img ? ptd_new(&o) : NULL;
  if (!d) {
    pti_release(img);
    pti_free(im);
    return -ASMSPY_E_NOMEM;
  }
  /* Full-trace mode never laps the reader, and nothing read this area
   * before: the bytes are [0, head). Should the head have run past the size
   * anyway, the oldest bytes are gone: decode the newest size bytes in ring
   * order, from their first PSB. */
  int wrapped = c->aux_size && c->aux_head > c->aux_size;
  int rc = 0;
  if (c->aux && c->aux_size) {
    if (!wrapped) {
      rc = ptd_feed(d, c->aux, (size_t)c->aux_head);
    } else {
      size_t start = (size_t)(c->aux_head % c->aux_size);
      rc = ptd_feed(d, c->aux + start, c->aux_size - start);
      if (rc == 0) rc = ptd_feed(d, c->aux, start);
    }
  }
  if (rc == 0) rc = ptd_finish(d);
  const struct ptd_stats *st = ptd_get_stats(d);
  char text[400];
  long pg = sysconf(_SC_PAGESIZE);
  uint64_t slack = pg > 0 ? (uint64_t)pg : 4096u;
  if (wrapped) {
    snprintf(text, sizeof text,
             "truncated: the %zu KiB Intel PT buffer wrapped: the oldest %llu bytes of the trace "
             "were overwritten; the listing starts later than the scope",
             c->aux_size / 1024, (unsigned long long)(c->aux_head - c->aux_size));
    note_seq(sink, sink_ctx, c, &seq, text);
  } else if ((c->aux_flags & PERF_AUX_FLAG_TRUNCATED) ||
             (c->aux_size && c->aux_head + slack >= c->aux_size)) {
    snprintf(text, sizeof text,
             "truncated: the %zu KiB Intel PT buffer filled after %llu bytes (PERF_AUX_FLAG_"
             "TRUNCATED%s); the rest of the scope ran untraced",
             c->aux_size / 1024, (unsigned long long)c->aux_head,
             c->aux_flags & PERF_AUX_FLAG_TRUNCATED ? "" : " implied by the head");
    note_seq(sink, sink_ctx, c, &seq, text);
  }
  if (st->max_reached) {
    snprintf(text, sizeof text, "truncated: max_insns (%llu) reached; recording stopped there",
             (unsigned long long)c->max_insns);
    note_seq(sink, sink_ctx, c, &seq, text);
  }
  if (st->errors || st->overflows) {
    snprintf(text, sizeof text,
             "truncated: the Intel PT decode has %llu gaps (%llu decode errors, %llu overflows; "
             "first: %s)",
             (unsigned long long)(st->errors + st->overflows), (unsigned long long)st->errors,
             (unsigned long long)st->overflows, st->first_error[0] ? st->first_error : "OVF");
    note_seq(sink, sink_ctx, c, &seq, text);
  }
  if (c->sideband_lost && !(c->aux_flags & PERF_AUX_FLAG_TRUNCATED)) {
    snprintf(text, sizeof text,
             "intel_pt: %llu sideband records were lost: a truncation may have gone unreported",
             (unsigned long long)c->sideband_lost);
    note_seq(sink, sink_ctx, c, &seq, text);
  }
  ptd_free(d);
  pti_release(img);
  pti_free(im);
  return rc < 0 ? rc : 0;
}
