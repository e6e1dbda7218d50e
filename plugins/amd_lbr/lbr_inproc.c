/* amd_lbr in-process mode: branch-stack samples of the calling thread
 * (lbr_inproc.h).
 *
 * begin() opens the same user-only branch-stack event capture uses, but on
 * the calling thread (pid 0, cpu -1) and at a denser period (a scope is
 * short), maps one ring and enables it. Nothing runs concurrently to drain
 * it: the ring is sized to hold a scope of tens of milliseconds, and a
 * longer one overflows into PERF_RECORD_LOST, which end() reports as a
 * "truncated: " note, never as a complete capture. end() disables the event
 * first (its own work is then not recorded), drains the ring into BRANCH
 * events and frees everything.
 *
 * Branches whose source lies in this plugin's own text (the tail of begin,
 * the head of end) are dropped: they are asmspy's, not the caller's.
 */
#define _GNU_SOURCE
#include "plugins/amd_lbr/lbr_inproc.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/amd_lbr/lbr_capture.h"
#include "plugins/amd_lbr/lbr_emit.h"
#include "plugins/common/perf_sampling.h"

/* ~60k samples/s of a busy thread: under the kernel's default
 * max_sample_rate (100000), and a 16-deep stack every ~17 us. */
#define LBR_INPROC_PERIOD_CYCLES 50021ull
#define LBR_INPROC_PERIOD_BRS 5003ull

struct lbr_inproc {
  int fd;
  uint64_t t0;
  struct lbr_inproc_capture cap;
};

struct text_range {
  uintptr_t probe;
  uint64_t lo, hi;
};

/* The executable segments of the object holding r->probe. */
static int find_own_text(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct text_range *r = arg;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uint64_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && r->probe >= lo && r->probe - lo < ph->p_memsz) mine = 1;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (!r->lo || lo < r->lo) r->lo = lo;
    if (hi > r->hi) r->hi = hi;
  }
  return 1;
}

int lbr_inproc_deliver(struct lbr_inproc_capture *c, asmspy_sink_fn sink, void *sink_ctx) {
  struct lbr_emitter em;
  lbr_emitter_init(&em, sink, sink_ctx, NULL, c->pid, c->tid, c->period);
  em.emit_samples = 0; /* the scope wants edges; a cycles IP says little */
  em.region_start = c->region_start;
  em.region_len = c->region_len;
  em.skip_lo = c->skip_lo;
  em.skip_hi = c->skip_hi;
  em.max_branches = c->max_branches;
  uint8_t buf[8192] __attribute__((aligned(8)));
  struct ps_counts counts;
  memset(&counts, 0, sizeof counts);
  struct ps_consumer consumer = lbr_consumer(&em);
  (void)ps_ring_drain(&c->ring, buf, sizeof buf, &consumer, &counts);
  if (counts.lost || counts.corrupt || em.truncated) {
    char text[300];
    snprintf(text, sizeof text,
             "truncated: %llu branch-stack samples lost (the %zu KiB ring filled: the scope "
             "outran it), %llu branches past the %llu-branch cap, %llu corrupt rings",
             (unsigned long long)counts.lost, c->ring.len ? (c->ring.len - c->ring.page) / 1024 : 0,
             (unsigned long long)em.t.capped, (unsigned long long)c->max_branches,
             (unsigned long long)counts.corrupt);
    ps_emit_note(&em.out, text);
  }
  lbr_emit_provenance(&em, &counts, c->window_ns);
  return 0;
}

int lbr_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                     void **handle) {
  (void)host; /* no host service: the ring is read in end() */
  if (!handle) return -ASMSPY_E_USAGE;
  *handle = NULL;
  char why[256];
  struct lbr_pmu pmu;
  int rc = lbr_pmu_from_sysfs(PP_SYSFS_PMU_ROOT, LBR_INPROC_PERIOD_CYCLES, LBR_INPROC_PERIOD_BRS,
                              &pmu, why, sizeof why);
  if (rc < 0) return rc;
  struct perf_event_attr attr;
  lbr_attr_init(&attr, &pmu);
  int fd = pp_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return -pp_perf_errno_status(errno);
  struct lbr_inproc *h = calloc(1, sizeof *h);
  if (!h) {
    close(fd);
    return -ASMSPY_E_NOMEM;
  }
  h->fd = fd;
  /* 1 MiB first; smaller when the locked-memory budget says no. */
  static const unsigned sizes[] = {8u, 6u, 4u};
  rc = -EPERM;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && rc < 0; i++)
    rc = pp_ring_map(fd, sizes[i], &h->cap.ring);
  if (rc < 0) {
    close(fd);
    free(h);
    return -pp_mmap_status(-rc);
  }
  h->cap.pid = getpid();
  h->cap.tid = (pid_t)syscall(SYS_gettid);
  h->cap.period = pmu.period;
  if (req && ASMSPY_HAS(req, max_insns)) {
    h->cap.region_start = req->region_start;
    h->cap.region_len = req->region_len;
    h->cap.max_branches = req->max_insns;
  }
  struct text_range own = {(uintptr_t)&lbr_inproc_end, 0, 0};
  dl_iterate_phdr(find_own_text, &own);
  h->cap.skip_lo = own.lo;
  h->cap.skip_hi = own.hi;
  h->t0 = ps_now_ns();
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
    int e = errno;
    pp_ring_unmap(&h->cap.ring);
    close(fd);
    free(h);
    return -pp_perf_errno_status(e);
  }
  *handle = h;
  return 0;
}

int lbr_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx) {
  struct lbr_inproc *h = handle;
  if (!h) return -ASMSPY_E_USAGE;
  (void)ioctl(h->fd, PERF_EVENT_IOC_DISABLE, 0);
  h->cap.window_ns = ps_now_ns() - h->t0;
  lbr_inproc_deliver(&h->cap, sink, sink_ctx);
  pp_ring_unmap(&h->cap.ring);
  close(h->fd);
  free(h);
  return 0;
}
