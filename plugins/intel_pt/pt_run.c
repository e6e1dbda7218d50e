/* pt_run — run(): Intel PT capture of another process (--stream and any mode
 * whose needs intel_pt covers). No ptrace: the target runs at full speed
 * under one per-thread PT event per thread (an inherited event cannot be
 * mmapped, HARDWARE.md §1.3), and every thread's AUX stream is decoded as it
 * arrives.
 *
 *   threads   /proc/<pid>/task at start (or only --tid), rescanned while
 *             tracing: a thread that appears later is traced from then on;
 *             PERF_RECORD_EXIT (attr.task) or its /proc entry vanishing
 *             ends it, and its remaining trace is decoded
 *   image     /proc/<pid>/maps: file sections + host->read_mem for the rest;
 *             PERF_RECORD_MMAP2 adds code mapped later (dlopen); an exec
 *             (PERF_RECORD_COMM with COMM_EXEC) rebuilds it
 *   region    a session region (region_len > 0) becomes the kernel address
 *             filter (pt_maps.c: the file form, else the address form), and
 *             the decoder keeps only instructions inside it; pt_region.c cuts
 *             that into invocations (REGION_ENTER / INSN / CALLOUT /
 *             REGION_EXIT) for --trace; no entry within the session's
 *             entry_wait_ms is ASMSPY_FACT_NOT_REACHED, as on singlestep
 *   loss      PERF_RECORD_AUX TRUNCATED (the AUX area filled before we
 *             drained it: the kernel stopped tracing) -> a note, an
 *             ASMSPY_EV_LOST, and the event re-enabled; decode errors and
 *             OVF come from pt_decode.c the same way
 *   --launch  the child is still stopped before its exec: events open with
 *             enable_on_exec, the image is built once the exec is seen
 * Events of different threads are decoded per thread: each thread's stream
 * is in order, threads are not interleaved by time.
 */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <dirent.h>
#include <errno.h>
#include <intel-pt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plugins/intel_pt/intel_pt.h"
#include "plugins/intel_pt/pt_capture.h"
#include "plugins/intel_pt/pt_decode.h"
#include "plugins/intel_pt/pt_image.h"
#include "plugins/intel_pt/pt_maps.h"
#include "plugins/intel_pt/pt_region.h"

#define RUN_AUX_BYTES (1u << 20) /* per thread; halved down to RUN_AUX_MIN on the mlock budget */
#define RUN_AUX_MIN (64u << 10)
#define RUN_DATA_PAGES_LOG2 3u /* sideband: mmap2 / comm / exit / aux records */
#define RUN_POLL_MS 50
#define RUN_RESCAN_EVERY 10 /* polls between /proc/<pid>/task rescans */

struct run_thread {
  pid_t tid;
  struct ptc_event ev;
  struct ptd *dec;
  struct pt_image *img;
  int exited;    /* PERF_RECORD_EXIT seen, or gone from /proc */
  int truncated; /* the kernel stopped it (AUX full): report, enable after draining */
  int done;
};

struct run {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct ptc_pmu pmu;
  struct pti_image *im;
  int waiting_exec; /* --launch: no image (and no decoding) before the exec */
  int image_stale;  /* an exec replaced the image */
  struct run_thread *t;
  size_t n, cap;
  uint32_t live;
  uint64_t seq;
  int sink_stop;
  uint64_t keep_start, keep_len;
  char filter[600]; /* "" = no kernel filter */
  int filter_file_form;
  int filter_refused;
  struct pt_conf_addr_filter af;
  int have_af;
  uint64_t truncations, sideband_lost;
  int noted_partial, noted_lost, noted_late;
  struct ptr_seg *seg; /* region sessions: invocations (pt_region.h) */
};

static struct asmspy_out *run_out(const struct run *r) { return pp_session_out(r->s); }

/* The decoders' sink: notes go to the user (views do not render them),
 * everything else to the session's sink. */
static int session_sink(void *ctx, const struct asmspy_event *ev) {
  struct run *r = ctx;
  if (r->s->sink(r->s->sink_ctx, ev)) r->sink_stop = 1;
  return r->sink_stop;
}

static int run_sink(void *ctx, const struct asmspy_event *ev) {
  struct run *r = ctx;
  if (r->sink_stop) return 1;
  if (ev->type == ASMSPY_EV_NOTE) {
    pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN, "%s", ev->u.note.text ? ev->u.note.text : "");
    return 0;
  }
  if (r->seg) {
    if (ptr_seg_event(r->seg, ev)) r->sink_stop = 1;
    return r->sink_stop;
  }
  return session_sink(r, ev);
}

static void emit_simple(struct run *r, pid_t tid, uint16_t type, uint64_t count, uint32_t what) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = type;
  ev.pid = r->s->pid;
  ev.tid = tid;
  ev.nthreads = r->live;
  ev.target = r->s->target;
  ev.seq = ++r->seq;
  if (type == ASMSPY_EV_LOST) ev.u.lost.count = count;
  if (type == ASMSPY_EV_TASK) ev.u.task.what = what;
  run_sink(r, &ev);
}

static ssize_t read_target(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct run *r = ctx;
  return r->host->read_mem(r->s->target, addr, buf, len);
}

/* ----------------------------------------------------------------- image */

static struct pti_image *image_build(struct run *r) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)r->s->pid);
  struct ptm_maps maps;
  int rc = ptm_read(path, &maps);
  if (rc < 0) {
    pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN, "intel_pt: %s: %s; decoding from memory only",
            path, strerror(-rc));
    memset(&maps, 0, sizeof maps);
  }
  struct pti_image *im = pti_new("target", read_target, r);
  if (im) (void)pti_add_maps(im, &maps);
  ptm_free(&maps);
  return im;
}

/* An exec replaced the process image (or --launch reached its exec). */
static void image_rebuild(struct run *r) {
  struct pti_image *im = image_build(r);
  if (!im) return; /* out of memory: keep the old one */
  for (size_t i = 0; i < r->n; i++) {
    struct run_thread *t = &r->t[i];
    if (t->done) continue;
    struct pt_image *img = pti_clone(im);
    if (!img) continue;
    ptd_set_image(t->dec, img); /* decodes what is pending with the old image first */
    pti_release(t->img);
    t->img = img;
  }
  pti_free(r->im);
  r->im = im;
  r->image_stale = 0;
}

/* --------------------------------------------------------------- threads */

static struct run_thread *find_thread(struct run *r, pid_t tid) {
  for (size_t i = 0; i < r->n; i++)
    if (r->t[i].tid == tid) return &r->t[i];
  return NULL;
}

static void set_nthreads(struct run *r) {
  for (size_t i = 0; i < r->n; i++)
    if (!r->t[i].done) ptd_set_nthreads(r->t[i].dec, r->live);
}

/* Install the region filter; the file form falls back to the address form,
 * and a kernel that takes neither leaves the filtering to the decoder. */
static void apply_filter(struct run *r, struct run_thread *t) {
  if (!r->filter[0] || r->filter_refused) return;
  int rc = ptc_set_filter(&t->ev, r->filter);
  if (rc != 0 && r->filter_file_form) {
    char addr_form[128];
    snprintf(addr_form, sizeof addr_form, "filter 0x%llx/0x%llx", (unsigned long long)r->keep_start,
             (unsigned long long)r->keep_len);
    if (ptc_set_filter(&t->ev, addr_form) == 0) {
      pp_note(r->host, run_out(r), ASMSPY_NOTE_INFO,
              "intel_pt: the kernel refused '%s' (%s); filtering on '%s' instead", r->filter,
              pp_errno_name(-rc), addr_form);
      snprintf(r->filter, sizeof r->filter, "%s", addr_form);
      r->filter_file_form = 0;
      return;
    }
  }
  if (rc != 0) {
    r->filter_refused = 1;
    pp_note(r->host, run_out(r), ASMSPY_NOTE_INFO,
            "intel_pt: PERF_EVENT_IOC_SET_FILTER '%s': %s (caps/num_address_ranges=%lld; the "
            "address form needs Linux 5.18); tracing everything and keeping the region at decode",
            r->filter, pp_errno_name(-rc), r->pmu.addr_ranges);
  }
}

/* Open, filter and (unless waiting for an exec) enable one thread's event.
 * Returns 0 or an ASMSPY_E_* status with the reason in why. */
static int add_thread(struct run *r, pid_t tid, char *why, size_t cap) {
  if (r->n == r->cap) {
    size_t nc = r->cap ? 2 * r->cap : 8;
    struct run_thread *nt = realloc(r->t, nc * sizeof *nt);
    if (!nt) return ASMSPY_E_NOMEM;
    r->t = nt;
    r->cap = nc;
  }
  struct run_thread *t = &r->t[r->n];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  struct ptc_open_opts oo = {.tid = tid,
                             .enable_on_exec = r->waiting_exec,
                             .sideband = 1,
                             .aux_bytes = RUN_AUX_BYTES,
                             .aux_min = RUN_AUX_MIN,
                             .data_pages_log2 = RUN_DATA_PAGES_LOG2};
  int st = ptc_open(&t->ev, &r->pmu, &oo, why, cap);
  if (st != 0) return st;
  apply_filter(r, t);
  t->img = r->im ? pti_clone(r->im) : NULL;
  struct ptd_opts po = {.image = t->img,
                        .sink = run_sink,
                        .sink_ctx = r,
                        .seq = &r->seq,
                        .pid = r->s->pid,
                        .tid = tid,
                        .target = r->s->target,
                        .nthreads = r->live + 1,
                        .keep_start = r->keep_start,
                        .keep_len = r->keep_len,
                        .filter = r->have_af && r->filter[0] && !r->filter_refused ? &r->af : NULL,
                        .cpu_is_host = 1};
  t->dec = ptd_new(&po);
  if (!t->dec || (r->im && !t->img)) {
    ptd_free(t->dec);
    pti_release(t->img);
    ptc_close(&t->ev);
    snprintf(why, cap, "intel_pt: out of memory for tid %d's decoder", (int)tid);
    return ASMSPY_E_NOMEM;
  }
  if (!r->waiting_exec) {
    int rc = ptc_enable(&t->ev);
    if (rc != 0) {
      ptd_free(t->dec);
      pti_release(t->img);
      ptc_close(&t->ev);
      snprintf(why, cap, "intel_pt: PERF_EVENT_IOC_ENABLE for tid %d: %s", (int)tid,
               pp_errno_name(-rc));
      return pp_perf_errno_status(-rc);
    }
  }
  r->n++;
  r->live++;
  set_nthreads(r);
  return 0;
}

static int thread_alive(pid_t pid, pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d", (int)pid, (int)tid);
  return access(path, F_OK) == 0;
}

/* New threads get an event; vanished ones are marked exited. The first
 * scan (initial) opens every thread there is and keeps quiet about them. */
static void rescan(struct run *r, int initial, char *why_first, size_t cap, int *first_st) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)r->s->pid);
  DIR *d = opendir(path);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
      char *end = NULL;
      long tid = strtol(de->d_name, &end, 10);
      if (tid <= 0 || *end || find_thread(r, (pid_t)tid)) continue;
      char why[400];
      int st = add_thread(r, (pid_t)tid, why, sizeof why);
      if (st != 0 && initial && first_st && !*first_st) {
        *first_st = st;
        snprintf(why_first, cap, "%s", why);
      }
      if (st != 0 && st != ASMSPY_E_ATTACH_GONE)
        pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN, "intel_pt: thread %ld not traced: %s", tid,
                why);
      else if (st == 0 && !initial && !r->noted_late) {
        r->noted_late = 1;
        pp_note(r->host, run_out(r), ASMSPY_NOTE_INFO,
                "intel_pt: thread %ld appeared while tracing; it is traced from now on", tid);
      }
    }
    closedir(d);
  }
  for (size_t i = 0; i < r->n; i++)
    if (!r->t[i].done && !thread_alive(r->s->pid, r->t[i].tid)) r->t[i].exited = 1;
}

/* --------------------------------------------------------------- service */

struct rec_ctx {
  struct run *r;
  struct run_thread *t;
};

static void on_record(void *ctx, const struct ptc_record *rec) {
  struct rec_ctx *c = ctx;
  struct run *r = c->r;
  struct run_thread *t = c->t;
  char flags[64];
  switch (rec->type) {
  case PERF_RECORD_AUX:
    if (rec->aux_flags & PERF_AUX_FLAG_TRUNCATED) {
      /* full-trace mode: the area filled and the kernel stopped the event;
       * reported (and re-enabled) once the bytes before the hole are decoded */
      t->truncated = 1;
    } else if ((rec->aux_flags & (PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION)) &&
               !r->noted_partial) {
      r->noted_partial = 1;
      pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN,
              "intel_pt: tid %d: PERF_RECORD_AUX flags %s: the trace has gaps (e.g. VMX root "
              "transitions)",
              (int)t->tid, ptc_aux_flags_text(rec->aux_flags, flags, sizeof flags));
    }
    break;
  case PERF_RECORD_LOST:
    r->sideband_lost += rec->lost;
    if (!r->noted_lost) {
      r->noted_lost = 1;
      pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN,
              "intel_pt: tid %d: %llu sideband records lost (mmap/exit notifications)", (int)t->tid,
              (unsigned long long)rec->lost);
    }
    break;
  case PERF_RECORD_EXIT:
    if (rec->tid == t->tid) t->exited = 1;
    break;
  case PERF_RECORD_COMM:
    if (rec->misc & PERF_RECORD_MISC_COMM_EXEC) {
      if (r->waiting_exec) {
        r->waiting_exec = 0;
        r->image_stale = 1;
      } else {
        r->image_stale = 1;
        emit_simple(r, rec->tid, ASMSPY_EV_TASK, 0, ASMSPY_TASK_EXEC);
      }
    }
    break;
  case PERF_RECORD_MMAP2:
    if ((rec->prot & PROT_EXEC) && rec->name && rec->name[0] == '/' && r->im) {
      int isid = pti_add_file(r->im, rec->name, rec->pgoff, rec->len, rec->addr);
      if (isid > 0)
        for (size_t i = 0; i < r->n; i++)
          if (!r->t[i].done && r->t[i].img) (void)pti_attach(r->im, r->t[i].img, isid);
    }
    break;
  default: break;
  }
}

static int feed(void *ctx, const uint8_t *bytes, size_t len) {
  struct run_thread *t = ctx;
  return ptd_feed(t->dec, bytes, len) != 0;
}

static void finish_thread(struct run *r, struct run_thread *t, int decode_rest) {
  if (t->done) return;
  (void)ptc_disable(&t->ev);
  if (decode_rest && !r->sink_stop && !r->waiting_exec) {
    struct rec_ctx c = {r, t};
    ptc_drain_records(&t->ev, on_record, &c);
    ptc_drain_aux(&t->ev, feed, t, NULL);
    ptd_finish(t->dec);
  }
  ptc_close(&t->ev);
  t->done = 1;
  r->live--;
}

static void service(struct run *r, struct run_thread *t) {
  struct rec_ctx c = {r, t};
  ptc_drain_records(&t->ev, on_record, &c);
  if (r->waiting_exec) return; /* nothing is traced before the exec */
  if (r->image_stale) image_rebuild(r);
  if (!t->img && r->im) { /* created before the image existed (--launch) */
    t->img = pti_clone(r->im);
    if (t->img) ptd_set_image(t->dec, t->img);
  }
  if (!r->sink_stop) ptc_drain_aux(&t->ev, feed, t, NULL);
  if (t->truncated && !r->sink_stop) {
    t->truncated = 0;
    r->truncations++;
    ptd_gap(t->dec); /* the trace before the hole, decoded; nothing joined across it */
    pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN,
            "intel_pt: tid %d: the %zu KiB AUX area filled before it was drained "
            "(PERF_AUX_FLAG_TRUNCATED): the thread ran untraced until now; tracing resumes",
            (int)t->tid, t->ev.aux_size / 1024);
    emit_simple(r, t->tid, ASMSPY_EV_LOST, 1, 0);
    (void)ptc_enable(&t->ev);
  }
  if (t->exited) {
    finish_thread(r, t, 1);
    set_nthreads(r);
  }
}

/* ------------------------------------------------------------------- run */

/* The region of a region session: kernel filter + decode-time keep range. */
static void setup_region(struct run *r) {
  const struct asmspy_session *s = r->s;
  if (!ASMSPY_HAS(s, region_len) || !s->region_len) return;
  r->keep_start = s->region_start;
  r->keep_len = s->region_len;
  struct ptr_seg_opts so = {.host = r->host,
                            .start = r->keep_start,
                            .len = r->keep_len,
                            .sink = session_sink,
                            .sink_ctx = r,
                            .seq = &r->seq};
  r->seg = ptr_seg_new(&so); /* NULL (no memory): the plain region stream */
  if (r->pmu.addr_ranges == 0) {
    pp_note(r->host, run_out(r), ASMSPY_NOTE_INFO,
            "intel_pt: caps/num_address_ranges=0: no IP filtering on this CPU; the region is kept "
            "at decode");
    return;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)s->pid);
  struct ptm_maps maps;
  if (ptm_read(path, &maps) != 0) memset(&maps, 0, sizeof maps);
  int form = ptm_filter_string(&maps, r->keep_start, r->keep_len, r->filter, sizeof r->filter);
  ptm_free(&maps);
  if (form < 0) {
    r->filter[0] = '\0';
    return;
  }
  r->filter_file_form = form == 1;
  /* the decoder needs the same ranges to resolve filter-related PGD/PGE */
  memset(&r->af, 0, sizeof r->af);
  r->af.config.ctl.addr0_cfg = 1; /* FilterEn: trace only inside */
  r->af.addr0_a = r->keep_start;
  r->af.addr0_b = r->keep_start + r->keep_len - 1; /* ADDRn_B is inclusive */
  r->have_af = 1;
}

static void summary(struct run *r) {
  uint64_t insns = 0, bytes = 0, errors = 0, ovf = 0;
  for (size_t i = 0; i < r->n; i++) {
    const struct ptd_stats *st = ptd_get_stats(r->t[i].dec);
    insns += st->insns;
    bytes += st->bytes;
    errors += st->errors;
    ovf += st->overflows;
  }
  if (!errors && !ovf && !r->truncations && !r->sideband_lost) return;
  pp_note(r->host, run_out(r), ASMSPY_NOTE_INFO,
          "intel_pt: %llu instructions from %llu trace bytes over %zu threads; %llu decode "
          "errors, %llu overflows, %llu AUX truncations, %llu sideband records lost",
          (unsigned long long)insns, (unsigned long long)bytes, r->n, (unsigned long long)errors,
          (unsigned long long)ovf, (unsigned long long)r->truncations,
          (unsigned long long)r->sideband_lost);
}

/* The threads to trace: --tid, or every thread now. Returns 0, or the
 * status of the first refusal when none could be traced (said in a note). */
static int open_threads(struct run *r) {
  const struct asmspy_session *s = r->s;
  char why_first[400] = "";
  int first_st = 0;
  if (s->tid > 0) {
    first_st = add_thread(r, s->tid, why_first, sizeof why_first);
  } else {
    rescan(r, 1, why_first, sizeof why_first, &first_st); /* every current thread */
    if (!r->n) first_st = add_thread(r, s->pid, why_first, sizeof why_first);
  }
  if (r->n) return 0;
  pp_note(r->host, run_out(r), ASMSPY_NOTE_WARN, "%s",
          why_first[0] ? why_first : "intel_pt: no thread to trace");
  return first_st ? -first_st : -ASMSPY_E_ATTACH_GONE;
}

/* Wait up to RUN_POLL_MS for any live thread's events; a hang-up is the
 * kernel saying that task exited (perf_poll). */
static void wait_for_data(struct run *r) {
  struct pollfd *pfd = calloc(r->n ? r->n : 1, sizeof *pfd);
  size_t np = 0;
  for (size_t i = 0; pfd && i < r->n; i++)
    if (!r->t[i].done) {
      pfd[np].fd = r->t[i].ev.fd;
      pfd[np].events = POLLIN;
      np++;
    }
  if (np) (void)poll(pfd, np, RUN_POLL_MS);
  for (size_t i = 0, k = 0; pfd && i < r->n; i++) {
    if (r->t[i].done) continue;
    if (pfd[k].revents & POLLHUP) r->t[i].exited = 1; /* perf_poll: the task exited */
    k++;
  }
  free(pfd);
}

/* A region session whose region was never entered within the entry wait:
 * the REGION_EXIT (sample) event singlestep reports for the same fact. */
static void report_not_reached(struct run *r) {
  const struct asmspy_session *s = r->s;
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = ASMSPY_EV_REGION_EXIT;
  ev.pid = s->pid;
  ev.ip = s->region_start;
  ev.target = s->target;
  ev.seq = ++r->seq;
  ev.u.region.start = s->region_start;
  ev.u.region.len = s->region_len;
  ev.u.region.sample = 1;
  session_sink(r, &ev);
}

/* Poll, drain and decode every thread until the sink or the user stops,
 * every thread has exited, or a region was not reached in time. Returns
 * the run's status. */
static int trace_loop(struct run *r) {
  const struct asmspy_session *s = r->s;
  int64_t t0 = pp_now_ms(); /* the entry wait of a region session */
  for (unsigned round = 1; !r->sink_stop; round++) {
    if (s->stop && *s->stop) break;
    wait_for_data(r);
    /* code read from memory (JIT, anonymous) may have been rewritten since */
    if (r->im) pti_invalidate(r->im);
    for (size_t i = 0; i < r->n && !r->sink_stop; i++)
      if (!r->t[i].done) service(r, &r->t[i]);
    if (r->sink_stop || (s->stop && *s->stop)) break;
    if (s->tid <= 0 && round % RUN_RESCAN_EVERY == 0)
      rescan(r, 0, NULL, 0, NULL);
    else if (s->tid > 0 && round % RUN_RESCAN_EVERY == 0 && !thread_alive(s->pid, s->tid))
      r->t[0].exited = 1;
    if (!r->live) return ASMSPY_FACT_EXITED;
    if (r->seg && !ptr_seg_entered(r->seg) && s->entry_wait_ms > 0 &&
        pp_now_ms() - t0 >= s->entry_wait_ms) {
      /* never entered within the wait: the fact singlestep reports too */
      report_not_reached(r);
      return ASMSPY_FACT_NOT_REACHED;
    }
  }
  return 0;
}

/* Decode what is left (unless the user interrupted), close every event,
 * say what was lost, free the run. */
static void run_teardown(struct run *r) {
  const struct asmspy_session *s = r->s;
  for (size_t i = 0; i < r->n; i++) finish_thread(r, &r->t[i], !(s->stop && *s->stop));
  if (r->seg && !r->sink_stop) ptr_seg_finish(r->seg);
  ptr_seg_free(r->seg);
  summary(r);
  for (size_t i = 0; i < r->n; i++) {
    ptd_free(r->t[i].dec);
    pti_release(r->t[i].img);
  }
  pti_free(r->im);
  free(r->t);
  free(r);
}

int ipt_run(const struct asmspy_host_api *host, const struct asmspy_session *s) {
  struct run *r = calloc(1, sizeof *r);
  if (!r) return -ASMSPY_E_NOMEM;
  r->host = host;
  r->s = s;
  struct asmspy_probe_result why;
  memset(&why, 0, sizeof why);
  ASMSPY_INIT_HEADER(&why);
  int st = ptc_pmu_read(IPT_SYSFS_ROOT, &r->pmu, &why);
  if (st != 0) {
    pp_note(host, run_out(r), ASMSPY_NOTE_SKIP, "intel_pt: %s", why.reason);
    free(r);
    return -st;
  }
  if (s->flags & ASMSPY_SESS_FOLLOW)
    pp_note(host, run_out(r), ASMSPY_NOTE_WARN,
            "intel_pt: --follow: forked children are not traced (per-thread PT events; an "
            "inherited PT event cannot be mapped)");
  int launched = (s->flags & ASMSPY_SESS_LAUNCHED) != 0;
  r->waiting_exec = launched;
  setup_region(r);
  if (!launched) {
    r->im = image_build(r);
    if (!r->im) {
      free(r);
      return -ASMSPY_E_NOMEM;
    }
  }
  int result = open_threads(r);
  if (result == 0) {
    if (launched) kill(s->pid, SIGCONT); /* seam_spawn_stopped left it before its exec */
    result = trace_loop(r);
  }
  run_teardown(r);
  return result;
}
