/* pt_capture — one Intel PT perf event: open it on the intel_pt PMU, map its
 * data ring and AUX area, filter, enable/disable, and drain both.
 *
 * Kernel ABI (include/uapi/linux/perf_event.h, kernel/events/core.c perf_mmap,
 * kernel/events/ring_buffer.c, arch/x86/events/intel/pt.c; HARDWARE.md §1):
 *   - attr.type is dynamic: /sys/bus/event_source/devices/intel_pt/type;
 *     attr.config carries the pt / branch / tsc (/ noretcomp) format bits
 *     read from intel_pt/format/ — never hard-coded positions;
 *   - user space only (exclude_kernel): works for a same-uid target at
 *     perf_event_paranoid <= 2;
 *   - the data ring is mapped first (control page + 2^n pages); aux_offset /
 *     aux_size are then written into the control page and the AUX area is
 *     mapped there, PROT_WRITE = full-trace mode: the kernel never
 *     overwrites bytes we have not released through aux_tail; when the area
 *     fills, tracing stops with a PERF_RECORD_AUX flagged TRUNCATED;
 *   - aux_head / aux_tail are free-running byte counts: the bytes are at
 *     [tail % size, head % size), possibly wrapping;
 *   - the address filter is PERF_EVENT_IOC_SET_FILTER with
 *     "filter 0xOFF/0xLEN@/path" (file form) or "filter 0xSTART/0xLEN".
 */
#ifndef ASMSPY_INTEL_PT_CAPTURE_H
#define ASMSPY_INTEL_PT_CAPTURE_H

#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "plugins/common/perf_probe.h"

#define PTC_PMU_NAME "intel_pt"

/* What the intel_pt PMU accepts here, from sysfs. */
struct ptc_pmu {
  uint32_t type;
  uint64_t config;       /* pt | branch | tsc, plus noretcomp when offered */
  int noretcomp;         /* RET compression off: every ret is a TIP, so a
                            decode starting at any PSB needs no call history */
  long long addr_ranges; /* caps/num_address_ranges (0: no IP filtering; -1 unknown) */
};

/* Read the PMU type and config bits under root (normally PP_SYSFS_PMU_ROOT).
 * Returns 0, or an ASMSPY_E_* status with why->reason saying which gate. */
int ptc_pmu_read(const char *root, struct ptc_pmu *pmu, struct asmspy_probe_result *why);

struct ptc_event {
  int fd;              /* -1 when closed */
  pid_t tid;           /* 0 = the calling thread */
  struct pp_ring ring; /* sideband: PERF_RECORD_AUX / LOST / EXIT / MMAP2 / COMM */
  uint8_t *aux;        /* MAP_FAILED-free: NULL when unmapped */
  size_t aux_size;
  uint64_t aux_tail;    /* bytes released (free-running, like aux_head) */
  uint64_t aux_dropped; /* bytes the reader could not keep up with (never in full-trace mode) */
};

struct ptc_open_opts {
  pid_t tid;          /* per-thread event on this task; 0 = the caller */
  int enable_on_exec; /* stay off until the task execs (--launch) */
  int sideband;       /* mmap2 / comm / task records in the data ring */
  size_t aux_bytes;   /* wanted AUX size (rounded up to 2^n pages) */
  size_t aux_min;     /* halve down to this on ENOMEM / EPERM (mlock budget) */
  unsigned data_pages_log2;
};

/* Open (disabled), map the ring and the AUX area. Returns 0, or an
 * ASMSPY_E_* status (positive) with the reason in why[cap]. */
int ptc_open(struct ptc_event *e, const struct ptc_pmu *pmu, const struct ptc_open_opts *o,
             char *why, size_t cap);
void ptc_close(struct ptc_event *e);

/* PERF_EVENT_IOC_SET_FILTER. Returns 0 or -errno. */
int ptc_set_filter(struct ptc_event *e, const char *filter);
int ptc_enable(struct ptc_event *e);
int ptc_disable(struct ptc_event *e);

/* Hand [aux_tail, aux_head) to fn (in up to two pieces when it wraps), then
 * release it. Returns fn's first non-zero return, else 0. *copied (if given)
 * gets the byte count. */
typedef int (*ptc_bytes_fn)(void *ctx, const uint8_t *bytes, size_t len);
int ptc_drain_aux(struct ptc_event *e, ptc_bytes_fn fn, void *ctx, uint64_t *copied);

/* One sideband record, parsed. */
struct ptc_record {
  uint32_t type; /* PERF_RECORD_* */
  uint16_t misc;
  uint64_t aux_offset, aux_size, aux_flags; /* AUX */
  uint64_t lost;                            /* LOST */
  int32_t pid, tid;                         /* EXIT / COMM / MMAP2 / ITRACE_START */
  uint64_t addr, len, pgoff;                /* MMAP2 */
  uint32_t prot;                            /* MMAP2 */
  const char *name; /* MMAP2 filename / COMM comm (valid during the callback) */
};
typedef void (*ptc_record_fn)(void *ctx, const struct ptc_record *r);
/* Walk the data ring from data_tail to data_head, parse each record, call fn,
 * release. Returns the number of records (a corrupt header ends the walk). */
int ptc_drain_records(struct ptc_event *e, ptc_record_fn fn, void *ctx);

/* "truncated,partial" for PERF_AUX_FLAG_* bits, into buf. */
const char *ptc_aux_flags_text(uint64_t flags, char *buf, size_t cap);

/* ioctl as one `syscall` instruction inlined into the caller, for the
 * in-process scope: glibc's ioctl() wrapper would run (and be traced) in
 * libc after the enable and before the disable; this keeps every traced
 * instruction of the arm/disarm inside the plugin's own text, which the
 * scope drops. Returns the raw syscall result (-errno on failure). */
static inline long ptc_ioctl_inline(int fd, unsigned long request, unsigned long arg) {
#if defined(__x86_64__)
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_ioctl), "D"((long)fd), "S"(request), "d"(arg)
                   : "rcx", "r11", "memory");
  return ret;
#else
  long r = syscall(SYS_ioctl, fd, request, arg);
  return r < 0 ? -errno : r;
#endif
}

#endif
