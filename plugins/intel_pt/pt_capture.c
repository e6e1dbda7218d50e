/* pt_capture — one Intel PT perf event. See pt_capture.h. */
#define _GNU_SOURCE
/* Reasons are one line; cutting an over-long one is intended. */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "plugins/intel_pt/pt_capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/* Read one format term; on failure fill the verdict and return its status. */
static int format_term(const char *root, const char *name, struct pp_format *f,
                       struct asmspy_probe_result *why) {
  char raw[64];
  int rc = pp_read_format_at(root, PTC_PMU_NAME, name, f, raw, sizeof raw);
  if (rc == -EINVAL)
    return pp_verdict(why, ASMSPY_E_NO_KERNEL, EINVAL, 0,
                      "intel_pt PMU present but %s/intel_pt/format/%s is unparsable: \"%s\"", root,
                      name, raw);
  if (rc < 0)
    return pp_verdict(why, ASMSPY_E_NO_KERNEL, -rc, 0,
                      "intel_pt PMU present but %s/intel_pt/format/%s: %s (the kernel PT driver "
                      "lacks the '%s' term)",
                      root, name, pp_errno_name(-rc), name);
  if (f->field != PP_FMT_CONFIG)
    return pp_verdict(why, ASMSPY_E_NO_KERNEL, 0, 0,
                      "%s/intel_pt/format/%s is \"%s\", expected a config: term", root, name, raw);
  return 0;
}

int ptc_pmu_read(const char *root, struct ptc_pmu *pmu, struct asmspy_probe_result *why) {
  memset(pmu, 0, sizeof *pmu);
  char type_path[512];
  snprintf(type_path, sizeof type_path, "%s/intel_pt/type", root);
  long long type = -1;
  int rc = pp_probe_pmu_type(why, root, type_path, "intel_pt",
                             "CPU flag intel_pt is set but intel_pt/type is missing: the PT driver "
                             "did not bind (PT on at boot, no ToPA, or kernel config); PMUs: %s",
                             "no intel_pt PMU: " PP_SYSFS_PMU_ROOT "/intel_pt/type missing (CPU or "
                             "hypervisor lacks Intel PT; PMUs here: %s)",
                             &type);
  if (rc != 0) return rc;
  if (type < 0 || type > UINT32_MAX)
    return pp_verdict(why, ASMSPY_E_NO_KERNEL, ERANGE, 0, "%s holds %lld: not a PMU type",
                      type_path, type);
  /* pt|branch|tsc is the minimum decodable user trace (HARDWARE.md §1.2) */
  struct pp_format f_pt = {0, 0, 0, 0}, f_branch = f_pt, f_tsc = f_pt, f_noret = f_pt;
  if ((rc = format_term(root, "pt", &f_pt, why)) != 0 ||
      (rc = format_term(root, "branch", &f_branch, why)) != 0 ||
      (rc = format_term(root, "tsc", &f_tsc, why)) != 0)
    return rc;
  pmu->type = (uint32_t)type;
  pmu->config =
      pp_format_value(&f_pt, 1) | pp_format_value(&f_branch, 1) | pp_format_value(&f_tsc, 1);
  /* noretcomp: optional; without it a decode from a mid-stream PSB may meet
   * a compressed ret whose call it never saw (-pte_retstack_empty). */
  char raw[64];
  if (pp_read_format_at(root, PTC_PMU_NAME, "noretcomp", &f_noret, raw, sizeof raw) == 0 &&
      f_noret.field == PP_FMT_CONFIG) {
    pmu->config |= pp_format_value(&f_noret, 1);
    pmu->noretcomp = 1;
  }
  char caps[512];
  snprintf(caps, sizeof caps, "%s/intel_pt/caps/num_address_ranges", root);
  pmu->addr_ranges = -1;
  (void)pp_read_sysfs_int(caps, 0, &pmu->addr_ranges);
  return 0;
}

/* ------------------------------------------------------------------ open */

static size_t round_pow2_pages(size_t bytes, size_t page) {
  size_t n = page;
  while (n < bytes && n < ((size_t)1 << 30)) n <<= 1;
  return n;
}

int ptc_open(struct ptc_event *e, const struct ptc_pmu *pmu, const struct ptc_open_opts *o,
             char *why, size_t cap) {
  memset(e, 0, sizeof *e);
  e->fd = -1;
  e->tid = o->tid;
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = pmu->type;
  attr.config = pmu->config;
  attr.exclude_kernel = 1; /* user space only: paranoid <= 2 suffices */
  attr.exclude_hv = 1;
  attr.disabled = 1;
  attr.enable_on_exec = o->enable_on_exec ? 1 : 0;
  if (o->sideband) {
    attr.sample_id_all = 1;
    attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    attr.mmap = 1;
    attr.mmap2 = 1; /* executable mappings appear while we trace (dlopen, exec) */
    attr.comm = 1;
    attr.comm_exec = 1;
    attr.task = 1; /* PERF_RECORD_EXIT: the thread is gone */
  }
  long pg = sysconf(_SC_PAGESIZE);
  size_t page = pg > 0 ? (size_t)pg : 4096u;
  size_t want = round_pow2_pages(o->aux_bytes ? o->aux_bytes : 1u << 20, page);
  size_t floor = round_pow2_pages(o->aux_min ? o->aux_min : 16 * page, page);
  attr.aux_watermark = (uint32_t)(want / 4); /* POLLIN once a quarter is there */

  int fd = pp_perf_event_open(&attr, o->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    char hint[200];
    pp_perf_errno_hint(err, hint, sizeof hint);
    if (err == EBUSY)
      snprintf(hint, sizeof hint,
               "another PT user holds the PMU (PT is exclusive: CPU-wide vs per-task, and with "
               "LBR/BTS on CPUs without lbr_pt_coexist)");
    snprintf(why, cap, "perf_event_open(intel_pt type=%u config=%#llx, tid %d, user-only): %s (%s)",
             pmu->type, (unsigned long long)pmu->config, (int)o->tid, pp_errno_name(err), hint);
    return err == ESRCH                      ? ASMSPY_E_ATTACH_GONE
           : (err == EACCES || err == EPERM) ? ASMSPY_E_ATTACH_PERM
                                             : pp_perf_errno_status(err);
  }
  e->fd = fd;
  int rc = pp_ring_map(fd, o->data_pages_log2, &e->ring);
  if (rc < 0) {
    char hint[200];
    pp_mmap_hint(-rc, hint, sizeof hint);
    snprintf(why, cap, "intel_pt: mmap of the perf data ring: %s (%s)", pp_errno_name(-rc), hint);
    ptc_close(e);
    return pp_mmap_status(-rc);
  }
  /* Largest AUX area the locked-memory budget (and, without multi-entry
   * ToPA, physical contiguity) allows, halving from the wanted size. */
  for (size_t sz = want;; sz /= 2) {
    e->ring.pc->aux_offset = e->ring.len;
    e->ring.pc->aux_size = sz;
    void *aux = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)e->ring.len);
    if (aux != MAP_FAILED) {
      e->aux = aux;
      e->aux_size = sz;
      return 0;
    }
    int err = errno;
    if ((err != ENOMEM && err != EPERM) || sz / 2 < floor) {
      char hint[200];
      pp_mmap_hint(err, hint, sizeof hint);
      snprintf(why, cap, "intel_pt: mmap of a %zu KiB AUX area: %s (%s)", sz / 1024,
               pp_errno_name(err), hint);
      ptc_close(e);
      return pp_mmap_status(err);
    }
  }
}

void ptc_close(struct ptc_event *e) {
  if (e->aux) munmap(e->aux, e->aux_size);
  e->aux = NULL;
  pp_ring_unmap(&e->ring);
  if (e->fd >= 0) close(e->fd);
  e->fd = -1;
}

int ptc_set_filter(struct ptc_event *e, const char *filter) {
  return ioctl(e->fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0 ? 0 : -errno;
}

int ptc_enable(struct ptc_event *e) {
  return ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) == 0 ? 0 : -errno;
}

int ptc_disable(struct ptc_event *e) {
  return ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0) == 0 ? 0 : -errno;
}

/* ----------------------------------------------------------------- drain */

int ptc_drain_aux(struct ptc_event *e, ptc_bytes_fn fn, void *ctx, uint64_t *copied) {
  if (copied) *copied = 0;
  if (!e->aux || !e->aux_size) return 0;
  /* acquire: the bytes before aux_head are written (perf_event.h, "smp_rmb") */
  uint64_t head = __atomic_load_n(&e->ring.pc->aux_head, __ATOMIC_ACQUIRE);
  uint64_t tail = e->aux_tail;
  if (head <= tail) return 0;
  if (head - tail > e->aux_size) {
    /* Only an overwrite-mode buffer can lap us; keep the newest bytes. */
    e->aux_dropped += head - tail - e->aux_size;
    tail = head - e->aux_size;
  }
  int rc = 0;
  uint64_t left = head - tail;
  while (left && rc == 0) {
    size_t off = (size_t)(tail % e->aux_size);
    size_t run = e->aux_size - off < left ? e->aux_size - off : (size_t)left;
    rc = fn(ctx, e->aux + off, run);
    tail += run;
    left -= run;
    if (copied) *copied += run;
  }
  e->aux_tail = tail;
  /* release: our reads are done before the kernel may reuse the space */
  __atomic_store_n(&e->ring.pc->aux_tail, tail, __ATOMIC_RELEASE);
  return rc;
}

static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Field offsets from include/uapi/linux/perf_event.h (after the 8-byte header). */
static int parse_record(const uint8_t *b, size_t n, struct ptc_record *r) {
  struct perf_event_header h;
  memcpy(&h, b, sizeof h);
  memset(r, 0, sizeof *r);
  r->type = h.type;
  r->misc = h.misc;
  switch (h.type) {
  case PERF_RECORD_AUX: /* u64 aux_offset, aux_size, flags */
    if (n < 32) return -1;
    r->aux_offset = rd64(b + 8);
    r->aux_size = rd64(b + 16);
    r->aux_flags = rd64(b + 24);
    return 0;
  case PERF_RECORD_LOST: /* u64 id, lost */
    if (n < 24) return -1;
    r->lost = rd64(b + 16);
    return 0;
  case PERF_RECORD_EXIT: /* u32 pid, ppid, tid, ptid; u64 time */
    if (n < 24) return -1;
    r->pid = (int32_t)rd32(b + 8);
    r->tid = (int32_t)rd32(b + 16);
    return 0;
  case PERF_RECORD_COMM:         /* u32 pid, tid; char comm[] */
  case PERF_RECORD_ITRACE_START: /* u32 pid, tid */
    if (n < 16) return -1;
    r->pid = (int32_t)rd32(b + 8);
    r->tid = (int32_t)rd32(b + 12);
    if (h.type == PERF_RECORD_COMM) r->name = (const char *)b + 16;
    return 0;
  case PERF_RECORD_MMAP2: /* u32 pid, tid; u64 addr, len, pgoff; u32 maj, min; u64 ino,
                             ino_generation; u32 prot, flags; char filename[] */
    if (n < 73) return -1;
    r->pid = (int32_t)rd32(b + 8);
    r->tid = (int32_t)rd32(b + 12);
    r->addr = rd64(b + 16);
    r->len = rd64(b + 24);
    r->pgoff = rd64(b + 32);
    r->prot = rd32(b + 64);
    r->name = (const char *)b + 72;
    return 0;
  default: return 0; /* known to exist, nothing we use */
  }
}

int ptc_drain_records(struct ptc_event *e, ptc_record_fn fn, void *ctx) {
  if (!e->ring.base) return 0;
  /* The records we ask for are small: MMAP2 is the largest, with a path of
   * at most PATH_MAX. A bigger one is skipped whole (pp_ring_next). One byte
   * more keeps strings terminated. */
  enum { REC_MAX = 8192 };
  uint8_t *buf = malloc(REC_MAX + 1);
  if (!buf) return 0;
  uint64_t tail = e->ring.pc->data_tail;
  int n = 0;
  for (;;) {
    int sz = pp_ring_next(&e->ring, &tail, buf, REC_MAX);
    if (sz == -EMSGSIZE) continue;
    if (sz <= 0) break;
    buf[sz] = '\0';
    struct ptc_record r;
    if (parse_record(buf, (size_t)sz, &r) == 0) {
      if (r.name) { /* the kernel pads strings with NULs; bound them by the record */
        size_t off = (size_t)((const uint8_t *)r.name - buf);
        if (off >= (size_t)sz) r.name = "";
      }
      if (fn) fn(ctx, &r);
    }
    n++;
  }
  pp_ring_consume(&e->ring, tail);
  free(buf);
  return n;
}

const char *ptc_aux_flags_text(uint64_t flags, char *buf, size_t cap) {
  static const struct {
    uint64_t bit;
    const char *name;
  } names[] = {{PERF_AUX_FLAG_TRUNCATED, "truncated"},
               {PERF_AUX_FLAG_OVERWRITE, "overwrite"},
               {PERF_AUX_FLAG_PARTIAL, "partial"},
               {PERF_AUX_FLAG_COLLISION, "collision"}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (!(flags & names[i].bit)) continue;
    int w = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", names[i].name);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
  if (!used) snprintf(buf, cap, "none");
  return buf;
}
