/* plugins/common/perf_probe.h — probing helpers shared by the hardware capture
 * backends (intel_pt, amd_ibs, amd_lbr, hwwatch).
 *
 * Plugins are separate shared modules that export one symbol and never link
 * each other, so the shared pieces live here as static inline functions: each
 * plugin compiles its own private copy of what it uses.
 *
 *   sysfs      pp_read_text, pp_read_sysfs_int, pp_list_pmus, pp_pmu_exists
 *   format     pp_parse_format ("config:0", "config1:0-63", "config:0-7,32-35"),
 *              pp_format_value, pp_attr_apply_format, pp_read_format[_at]
 *   policy     pp_read_paranoid, pp_cpu_has_flag, pp_mlock_hint
 *   perf       pp_perf_event_open, pp_ring_map/unmap/head/next/consume,
 *              pp_ring_drain_samples
 *   process    pp_fork_piped (pipe + fork, child dies with its parent),
 *              pp_waitpid_until, pp_kill_reap
 *   child      pp_child_fork / go / wait / reap (a child that sleeps until told
 *              to run a work function, then exits; dies with its parent)
 *   reasons    pp_errno_name, pp_perf_errno_status, pp_perf_errno_hint,
 *              pp_mmap_status, pp_mmap_hint,
 *              pp_verdict (fills an asmspy_probe_result within its struct_size),
 *              pp_note (host->note, tolerating a NULL or short host table)
 *   steps      pp_verdict_unreadable, pp_pmu_list_text, pp_probe_pmu_type,
 *              pp_probe_child_fork, pp_probe_ring_map, pp_probe_run_child,
 *              pp_probe_release: the probe stages the perf backends share,
 *              each filling the verdict with the reason text on failure
 *
 * Every function returns 0 / a count on success and -errno on failure (the
 * probe steps: 0, or the status of the verdict they filled), and never
 * allocates memory that outlives the call. Needs only the default
 * feature set of -std=gnu11 (_DEFAULT_SOURCE); _GNU_SOURCE is fine too.
 *
 * Kernel ABI references: include/uapi/linux/perf_event.h, kernel/events/core.c
 * (perf_event_open permission checks, perf_mmap), Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-format (the "config:N-M" grammar, as parsed by
 * tools/perf/util/pmu.y).
 */
#ifndef ASMSPY_PLUGINS_COMMON_PERF_PROBE_H
#define ASMSPY_PLUGINS_COMMON_PERF_PROBE_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "asmspy/plugin.h"

#define PP_SYSFS_PMU_ROOT "/sys/bus/event_source/devices"
#define PP_PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define PP_MLOCK_KB_PATH "/proc/sys/kernel/perf_event_mlock_kb"

/* ------------------------------------------------------------------------- */
/* Small text files (sysfs, procfs)                                           */
/* ------------------------------------------------------------------------- */

/* Copy src into dst[cap] (always NUL-terminated when cap > 0, truncating). */
static inline void pp_strlcpy(char *dst, const char *src, size_t cap) {
  if (!dst || cap == 0) return;
  size_t n = 0;
  if (src)
    while (n + 1 < cap && src[n] != '\0') {
      dst[n] = src[n];
      n++;
    }
  dst[n] = '\0';
}

/* Read a small text file into buf (NUL-terminated, trailing whitespace
 * stripped). Returns the length kept, or -errno. A file longer than cap-1
 * bytes is truncated (sysfs attributes are a page at most). */
static inline int pp_read_text(const char *path, char *buf, size_t cap) {
  if (!path || !buf || cap == 0) return -EINVAL;
  buf[0] = '\0';
  int fd;
  do fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return -errno;
  size_t len = 0;
  while (len + 1 < cap) {
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    if (r < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      buf[0] = '\0';
      return -e;
    }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  while (len > 0 && isspace((unsigned char)buf[len - 1])) len--;
  buf[len] = '\0';
  return (int)len;
}

/* Read one integer from a sysfs/procfs file ("14\n", "-1\n", hex caps with
 * base 16, or base 0 for 0x-prefixed). Leading blanks and one trailing
 * newline are fine; anything else is -EINVAL (empty file included), an
 * out-of-range value -ERANGE, a read failure -errno. */
static inline int pp_read_sysfs_int(const char *path, int base, long long *out) {
  char buf[64];
  int n = pp_read_text(path, buf, sizeof buf);
  if (n < 0) return n;
  const char *p = buf;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '\0') return -EINVAL;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(p, &end, base);
  if (errno == ERANGE) return -ERANGE;
  if (end == p || *end != '\0') return -EINVAL;
  if (out) *out = v;
  return 0;
}

/* perf_event_paranoid as an int (-1..4 in practice), or -errno. */
static inline int pp_read_paranoid(int *out) {
  long long v = 0;
  int rc = pp_read_sysfs_int(PP_PARANOID_PATH, 10, &v);
  if (rc < 0) return rc;
  if (v < INT_MIN || v > INT_MAX) return -ERANGE;
  if (out) *out = (int)v;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* PMU directory listing                                                      */
/* ------------------------------------------------------------------------- */

static inline int pp__cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "breakpoint,msr,software,..." (sorted) into buf. Returns the number of PMUs
 * or -errno ("(unreadable: ENOENT)"-style text is left to the caller). */
static inline int pp_list_pmus_at(const char *root, char *buf, size_t cap) {
  if (!buf || cap == 0) return -EINVAL;
  buf[0] = '\0';
  DIR *d = opendir(root);
  if (!d) return -errno;
  char names[64][64];
  const char *sorted[64];
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < 64) {
    if (de->d_name[0] == '.') continue;
    size_t l = strnlen(de->d_name, sizeof names[n] - 1);
    memcpy(names[n], de->d_name, l);
    names[n][l] = '\0';
    sorted[n] = names[n];
    n++;
  }
  closedir(d);
  qsort(sorted, (size_t)n, sizeof sorted[0], pp__cmp_str);
  size_t used = 0;
  for (int i = 0; i < n && used + 1 < cap; i++) {
    int w = snprintf(buf + used, cap - used, "%s%s", i ? "," : "", sorted[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (used >= cap && cap > 4) /* mark truncation */
    memcpy(buf + cap - 4, "...", 4);
  return n;
}

static inline int pp_list_pmus(char *buf, size_t cap) {
  return pp_list_pmus_at(PP_SYSFS_PMU_ROOT, buf, cap);
}

/* 1 when /sys/bus/event_source/devices/<pmu> exists, 0 when not. */
static inline int pp_pmu_exists(const char *pmu) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", PP_SYSFS_PMU_ROOT, pmu);
  return access(path, F_OK) == 0;
}

/* 1 when the first "flags" line of /proc/cpuinfo carries `flag` as a whole
 * word, 0 when not, -errno when cpuinfo is unreadable. Only a hint for the
 * reason text (a hypervisor can set or hide flags); never the verdict. */
static inline int pp_cpu_has_flag(const char *flag) {
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (!f) return -errno;
  char *line = NULL;
  size_t cap = 0;
  int found = 0;
  size_t flen = strlen(flag);
  while (getline(&line, &cap, f) > 0) {
    if (strncmp(line, "flags", 5) != 0 && strncmp(line, "Features", 8) != 0) continue;
    char *p = strchr(line, ':');
    if (!p) continue;
    for (p++; *p;) {
      while (*p && isspace((unsigned char)*p)) p++;
      char *w = p;
      while (*p && !isspace((unsigned char)*p)) p++;
      if ((size_t)(p - w) == flen && memcmp(w, flag, flen) == 0) {
        found = 1;
        break;
      }
    }
    break; /* the first CPU's flags line is enough */
  }
  free(line);
  fclose(f);
  return found;
}

/* ------------------------------------------------------------------------- */
/* PMU format files: "config:13", "config:14-17", "config2:0", "config:0-7,32-35" */
/* ------------------------------------------------------------------------- */

enum { PP_FMT_CONFIG = 0, PP_FMT_CONFIG1 = 1, PP_FMT_CONFIG2 = 2, PP_FMT_CONFIG3 = 3 };

struct pp_format {
  int field;     /* PP_FMT_CONFIG* : which attr word */
  unsigned lo;   /* lowest bit named */
  unsigned hi;   /* highest bit named */
  uint64_t mask; /* every bit named */
};

static inline uint64_t pp__bits(unsigned lo, unsigned hi) {
  uint64_t upto_hi = hi >= 63 ? ~0ull : ((1ull << (hi + 1)) - 1);
  return upto_hi & ~((1ull << lo) - 1);
}

static inline int pp__parse_bitno(const char **pp, unsigned *out) {
  const char *p = *pp;
  if (!isdigit((unsigned char)*p)) return -EINVAL;
  unsigned v = 0;
  while (isdigit((unsigned char)*p)) {
    v = v * 10 + (unsigned)(*p - '0');
    if (v > 63) return -EINVAL;
    p++;
  }
  *out = v;
  *pp = p;
  return 0;
}

/* Parse the content of a PMU format file. Grammar (perf's pmu.y):
 *   field ':' term (',' term)*     field = config | config1 | config2 | config3
 *   term  = N | N '-' M            0 <= N <= M <= 63
 * Surrounding blanks and a trailing newline are accepted. Returns 0 or
 * -EINVAL (and leaves *f untouched) on anything else. */
static inline int pp_parse_format(const char *s, struct pp_format *f) {
  if (!s) return -EINVAL;
  const char *p = s;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "config", 6) != 0) return -EINVAL;
  p += 6;
  int field = PP_FMT_CONFIG;
  if (*p >= '1' && *p <= '3') {
    field = *p - '0';
    p++;
  }
  if (*p != ':') return -EINVAL;
  p++;
  uint64_t mask = 0;
  unsigned lo_all = 64, hi_all = 0;
  for (;;) {
    unsigned lo, hi;
    if (pp__parse_bitno(&p, &lo) < 0) return -EINVAL;
    hi = lo;
    if (*p == '-') {
      p++;
      if (pp__parse_bitno(&p, &hi) < 0 || hi < lo) return -EINVAL;
    }
    mask |= pp__bits(lo, hi);
    if (lo < lo_all) lo_all = lo;
    if (hi > hi_all) hi_all = hi;
    if (*p != ',') break;
    p++;
  }
  while (*p && isspace((unsigned char)*p)) p++;
  if (*p != '\0') return -EINVAL;
  if (f) {
    f->field = field;
    f->lo = lo_all;
    f->hi = hi_all;
    f->mask = mask;
  }
  return 0;
}

/* Scatter `value` into the format's bits, low bit first (how perf places a
 * value into a non-contiguous format). Bits of value beyond the width are
 * dropped. */
static inline uint64_t pp_format_value(const struct pp_format *f, uint64_t value) {
  uint64_t out = 0;
  for (unsigned b = 0; b < 64 && value; b++) {
    if (!(f->mask & (1ull << b))) continue;
    if (value & 1) out |= 1ull << b;
    value >>= 1;
  }
  return out;
}

/* OR a formatted value into the attr word the format names. config3 is
 * newer than the uapi headers this builds against: -EOPNOTSUPP. */
static inline int pp_attr_apply_format(struct perf_event_attr *a, const struct pp_format *f,
                                       uint64_t value) {
  uint64_t bits = pp_format_value(f, value);
  switch (f->field) {
  case PP_FMT_CONFIG: a->config |= bits; return 0;
  case PP_FMT_CONFIG1: a->config1 |= bits; return 0;
  case PP_FMT_CONFIG2: a->config2 |= bits; return 0;
  default: return -EOPNOTSUPP;
  }
}

/* Read and parse <root>/<pmu>/format/<name>. Returns 0, -errno (ENOENT when
 * the kernel does not offer that format term) or -EINVAL (unparsable; the
 * raw text is left in raw if given). */
static inline int pp_read_format_at(const char *root, const char *pmu, const char *name,
                                    struct pp_format *f, char *raw, size_t rawcap) {
  char path[512], buf[128];
  snprintf(path, sizeof path, "%s/%s/format/%s", root, pmu, name);
  int n = pp_read_text(path, buf, sizeof buf);
  if (raw && rawcap) pp_strlcpy(raw, n >= 0 ? buf : "", rawcap);
  if (n < 0) return n;
  return pp_parse_format(buf, f);
}

static inline int pp_read_format(const char *pmu, const char *name, struct pp_format *f, char *raw,
                                 size_t rawcap) {
  return pp_read_format_at(PP_SYSFS_PMU_ROOT, pmu, name, f, raw, rawcap);
}

/* ------------------------------------------------------------------------- */
/* perf_event_open and the data ring                                          */
/* ------------------------------------------------------------------------- */

/* glibc has no wrapper. Returns the fd or -1 with errno set. */
static inline int pp_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                     unsigned long flags) {
  return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

struct pp_ring {
  void *base; /* control page + data pages */
  size_t len;
  size_t page;
  struct perf_event_mmap_page *pc;
};

/* Map the control page plus 2^data_pages_log2 data pages read-write (the
 * reader advances data_tail; the kernel never overwrites unread records).
 * Returns 0 or -errno (EPERM = over the locked-memory budget). */
static inline int pp_ring_map(int fd, unsigned data_pages_log2, struct pp_ring *r) {
  memset(r, 0, sizeof *r);
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0) pg = 4096;
  r->page = (size_t)pg;
  r->len = (1 + ((size_t)1 << data_pages_log2)) * r->page;
  void *p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    memset(r, 0, sizeof *r);
    return -e;
  }
  r->base = p;
  r->pc = (struct perf_event_mmap_page *)p;
  return 0;
}

static inline void pp_ring_unmap(struct pp_ring *r) {
  if (r->base) munmap(r->base, r->len);
  memset(r, 0, sizeof *r);
}

static inline uint64_t pp_ring_head(const struct pp_ring *r) {
  return __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
}

/* Copy the record at *tail (free-running offset) into buf, handling a record
 * that straddles the end of the ring, and advance *tail. Returns the record
 * size (header included), 0 when tail has reached head, -EMSGSIZE when the
 * record does not fit buf (it is skipped), -EPROTO on a corrupt header. The
 * caller publishes data_tail (pp_ring_consume) when done. */
static inline int pp_ring_next(struct pp_ring *r, uint64_t *tail, void *buf, size_t cap) {
  uint64_t head = pp_ring_head(r);
  if (*tail >= head) return 0;
  uint64_t doff = r->pc->data_offset ? r->pc->data_offset : r->page;
  uint64_t dsize = r->pc->data_size ? r->pc->data_size : r->len - r->page;
  const uint8_t *data = (const uint8_t *)r->base + doff;
  struct perf_event_header h;
  uint8_t *hb = (uint8_t *)&h;
  for (size_t i = 0; i < sizeof h; i++) hb[i] = data[(*tail + i) & (dsize - 1)];
  if (h.size < sizeof h || *tail + h.size > head) return -EPROTO;
  if (h.size > cap) {
    *tail += h.size;
    return -EMSGSIZE;
  }
  uint8_t *out = (uint8_t *)buf;
  uint64_t off = *tail & (dsize - 1);
  size_t first = (size_t)(dsize - off < h.size ? dsize - off : h.size);
  memcpy(out, data + off, first);
  if (first < h.size) memcpy(out + first, data, h.size - first);
  *tail += h.size;
  return (int)h.size;
}

static inline void pp_ring_consume(struct pp_ring *r, uint64_t tail) {
  __atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
}

/* Called with one whole PERF_RECORD_SAMPLE record (header included). */
typedef void (*pp_sample_fn)(const uint8_t *rec, size_t len, void *arg);

/* Read every record from data_tail up to data_head into buf (records larger
 * than cap are skipped; a corrupt header ends the walk), hand each
 * PERF_RECORD_SAMPLE to fn (when given), then publish data_tail. Returns how
 * many sample records it saw. */
static inline unsigned long pp_ring_drain_samples(struct pp_ring *r, void *buf, size_t cap,
                                                  pp_sample_fn fn, void *arg) {
  unsigned long samples = 0;
  uint64_t tail = r->pc->data_tail;
  for (;;) {
    int n = pp_ring_next(r, &tail, buf, cap);
    if (n == -EMSGSIZE) continue;
    if (n <= 0) break;
    struct perf_event_header h;
    memcpy(&h, buf, sizeof h);
    if (h.type != PERF_RECORD_SAMPLE) continue;
    samples++;
    if (fn) fn((const uint8_t *)buf, (size_t)n, arg);
  }
  pp_ring_consume(r, tail);
  return samples;
}

/* ------------------------------------------------------------------------- */
/* A sleeping child to attach a per-task event to                             */
/* ------------------------------------------------------------------------- */

static inline void pp_sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

static inline int64_t pp_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* pipe() (both ends close-on-exec), then fork(). The child (return 0) gets
 * PR_SET_PDEATHSIG SIGKILL and _exit(orphan_exit)s at once when its parent is
 * already gone; it makes only async-signal-safe calls. In the parent, returns
 * the child's pid; on failure -errno with both ends closed, and *step (if
 * given) says which call failed: "pipe" or "fork". p[0] is the read end, p[1]
 * the write end: each side closes the one it does not use. */
static inline pid_t pp_fork_piped(int p[2], int orphan_exit, const char **step) {
  if (pipe(p) < 0) {
    if (step) *step = "pipe";
    return -errno;
  }
  (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
  (void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    if (step) *step = "fork";
    return -e;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(orphan_exit);
  }
  return pid;
}

/* SIGKILL a child and reap it. */
static inline void pp_kill_reap(pid_t pid) {
  kill(pid, SIGKILL);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
}

/* waitpid(WNOHANG) every poll_us until the child changes state or the
 * deadline (pp_now_ms) passes. Returns 0 (*st filled), -ETIMEDOUT, or -errno
 * from waitpid (ECHILD: SIGCHLD ignored, already reaped). The child is left
 * as it is on every path. */
static inline int pp_waitpid_until(pid_t pid, int *st, int64_t deadline, long poll_us) {
  for (;;) {
    pid_t r = waitpid(pid, st, WNOHANG);
    if (r == pid) return 0;
    if (r < 0 && errno != EINTR) return -errno;
    if (pp_now_ms() >= deadline) return -ETIMEDOUT;
    pp_sleep_us(poll_us);
  }
}

typedef void (*pp_work_fn)(void *arg);

struct pp_child {
  pid_t pid; /* -1 once reaped */
  int go_fd; /* write end of the "go" pipe, -1 once released */
};

/* Fork a child that blocks until pp_child_go(), then runs work(arg) and
 * _exit(0)s. If the parent dies or closes the pipe first, the child exits
 * without running work. The child only makes async-signal-safe calls before
 * work(), so forking from a threaded host is fine. Returns 0 or -errno. */
static inline int pp_child_fork(struct pp_child *c, pp_work_fn work, void *arg) {
  c->pid = -1;
  c->go_fd = -1;
  int p[2];
  pid_t pid = pp_fork_piped(p, 127, NULL);
  if (pid < 0) return (int)pid;
  if (pid == 0) {
    close(p[1]);
    char b;
    ssize_t r;
    do r = read(p[0], &b, 1);
    while (r < 0 && errno == EINTR);
    if (r == 1 && work) work(arg);
    _exit(0);
  }
  close(p[0]);
  c->pid = pid;
  c->go_fd = p[1];
  return 0;
}

/* Let the child run its work. Returns 0 or -errno. */
static inline int pp_child_go(struct pp_child *c) {
  if (c->go_fd < 0) return -EBADF;
  char b = 'g';
  ssize_t w;
  do w = write(c->go_fd, &b, 1);
  while (w < 0 && errno == EINTR);
  int e = w == 1 ? 0 : -errno;
  close(c->go_fd);
  c->go_fd = -1;
  return e;
}

/* Wait up to timeout_ms for the child to exit. Returns 0 (exited; *wstatus
 * filled if given), or -ETIMEDOUT (it was killed and reaped). The child is
 * reaped either way. */
static inline int pp_child_wait(struct pp_child *c, int timeout_ms, int *wstatus) {
  if (c->pid <= 0) return -ECHILD;
  int st = 0;
  int rc = pp_waitpid_until(c->pid, &st, pp_now_ms() + timeout_ms, 200);
  if (rc == -ETIMEDOUT) pp_kill_reap(c->pid);
  c->pid = -1;
  if (rc == -ETIMEDOUT) return rc;
  if (wstatus) /* a waitpid error (ECHILD: already reaped) counts as exited */
    *wstatus = rc == 0 ? st : 0;
  return 0;
}

/* Kill (if still alive) and reap; close the pipe. Safe to call twice. */
static inline void pp_child_reap(struct pp_child *c) {
  if (c->go_fd >= 0) {
    close(c->go_fd);
    c->go_fd = -1;
  }
  if (c->pid > 0) {
    pp_kill_reap(c->pid);
    c->pid = -1;
  }
}

/* A user-space loop full of taken and not-taken branches for functional
 * checks. arg points at an unsigned long iteration count. */
static inline void pp_spin_branches(void *arg) {
  unsigned long n = arg ? *(const unsigned long *)arg : 100000ul;
  volatile unsigned long acc = 0;
  for (unsigned long i = 0; i < n; i++) {
    if (i & 1)
      acc += i;
    else if (i % 3 == 0)
      acc ^= i;
    else
      acc -= 1;
  }
  (void)acc;
}

/* ------------------------------------------------------------------------- */
/* errno -> status and words                                                  */
/* ------------------------------------------------------------------------- */

static inline const char *pp_errno_name(int err) {
  switch (err) {
  case 0: return "OK";
  case EPERM: return "EPERM";
  case ENOENT: return "ENOENT";
  case ESRCH: return "ESRCH";
  case EINTR: return "EINTR";
  case EIO: return "EIO";
  case ENXIO: return "ENXIO";
  case E2BIG: return "E2BIG";
  case EBADF: return "EBADF";
  case ECHILD: return "ECHILD";
  case EAGAIN: return "EAGAIN";
  case ENOMEM: return "ENOMEM";
  case EACCES: return "EACCES";
  case EFAULT: return "EFAULT";
  case EBUSY: return "EBUSY";
  case EEXIST: return "EEXIST";
  case ENODEV: return "ENODEV";
  case EINVAL: return "EINVAL";
  case EMFILE: return "EMFILE";
  case ENOSPC: return "ENOSPC";
  case ERANGE: return "ERANGE";
  case ENOSYS: return "ENOSYS";
  case EOPNOTSUPP: return "EOPNOTSUPP";
  case ETIMEDOUT: return "ETIMEDOUT";
  case EPROTO: return "EPROTO";
  case EMSGSIZE: return "EMSGSIZE";
  default: return "errno";
  }
}

/* Which asmspy status a perf_event_open / perf mmap errno means. */
static inline int pp_perf_errno_status(int err) {
  switch (err) {
  case ENOENT: /* the PMU type / event is unknown to this kernel */
  case EINVAL: /* config, exclude or period bits this kernel rejects */
  case E2BIG:
  case ENOSYS: return ASMSPY_E_NO_KERNEL;
  case ENODEV:
  case EOPNOTSUPP: return ASMSPY_E_NO_HW;
  case EACCES:
  case EPERM: return ASMSPY_E_PERM;
  case EBUSY:
  case ENOSPC: return ASMSPY_E_ATTACH_BUSY;
  case ENOMEM: return ASMSPY_E_NOMEM;
  case ESRCH: return ASMSPY_E_ATTACH_GONE;
  default: return ASMSPY_E_INTERNAL;
  }
}

/* One clause explaining a perf_event_open errno (HARDWARE.md §10, kernel
 * perf_event_open()): which gate said no. EACCES/EPERM carry the paranoid
 * level measured now. */
static inline void pp_perf_errno_hint(int err, char *buf, size_t cap) {
  int par = 0;
  int have_par = pp_read_paranoid(&par) == 0;
  char pbuf[48];
  if (have_par)
    snprintf(pbuf, sizeof pbuf, "perf_event_paranoid=%d", par);
  else
    snprintf(pbuf, sizeof pbuf, "perf_event_paranoid unreadable");
  switch (err) {
  case EACCES:
    if (have_par && par >= 3)
      snprintf(buf, cap, "%s: level 3 refuses every perf_event_open without CAP_SYS_ADMIN", pbuf);
    else
      snprintf(buf, cap, "%s: this event needs a lower level or CAP_PERFMON", pbuf);
    break;
  case EPERM:
    snprintf(buf, cap, "%s; refused by a capability check, seccomp or an LSM", pbuf);
    break;
  case ENOENT: snprintf(buf, cap, "the kernel does not know this PMU type or event"); break;
  case EINVAL:
    snprintf(buf, cap, "the kernel rejected the attr (config, exclude or period bits)");
    break;
  case EBUSY: snprintf(buf, cap, "the PMU is held exclusively by another event"); break;
  case ENOSPC: snprintf(buf, cap, "no free hardware counter or slot"); break;
  case EOPNOTSUPP: snprintf(buf, cap, "the PMU does not support this mode"); break;
  case ENODEV: snprintf(buf, cap, "the PMU does not exist on this CPU"); break;
  case E2BIG: snprintf(buf, cap, "attr.size is newer than this kernel"); break;
  case ESRCH: snprintf(buf, cap, "the target task is gone"); break;
  default: snprintf(buf, cap, "%s", strerror(err)); break;
  }
}

/* Why a perf mmap hit EPERM: the locked-memory budget (perf_event_mlock_kb per
 * user and CPU, then RLIMIT_MEMLOCK, unless CAP_IPC_LOCK). */
static inline void pp_mlock_hint(char *buf, size_t cap) {
  long long kb = -1;
  (void)pp_read_sysfs_int(PP_MLOCK_KB_PATH, 10, &kb);
  struct rlimit rl;
  char lim[32] = "?";
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
    if (rl.rlim_cur == RLIM_INFINITY)
      snprintf(lim, sizeof lim, "unlimited");
    else
      snprintf(lim, sizeof lim, "%llu KiB", (unsigned long long)(rl.rlim_cur / 1024));
  }
  snprintf(buf, cap,
           "over the locked-memory budget: perf_event_mlock_kb=%lld, RLIMIT_MEMLOCK=%s "
           "(raise either, or grant CAP_IPC_LOCK)",
           kb, lim);
}

/* Which asmspy status a failed perf mmap errno means: EPERM is the
 * locked-memory budget, i.e. host policy. */
static inline int pp_mmap_status(int err) {
  return err == EPERM ? ASMSPY_E_PERM : pp_perf_errno_status(err);
}

/* One clause explaining a failed perf mmap: the locked-memory budget for
 * EPERM, strerror otherwise. */
static inline void pp_mmap_hint(int err, char *buf, size_t cap) {
  if (err == EPERM)
    pp_mlock_hint(buf, cap);
  else
    snprintf(buf, cap, "%s", strerror(err));
}

/* ------------------------------------------------------------------------- */
/* Probe verdicts and host notes                                              */
/* ------------------------------------------------------------------------- */

/* Fill a probe result, writing only the members the host's struct_size
 * covers. res may be NULL. Returns status. */
static inline int pp_verdict(struct asmspy_probe_result *res, int status, int err, uint64_t caps,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int pp_verdict(struct asmspy_probe_result *res, int status, int err, uint64_t caps,
                             const char *fmt, ...) {
  if (!res) return status;
  if (ASMSPY_HAS(res, status)) res->status = status;
  if (ASMSPY_HAS(res, sys_errno)) res->sys_errno = err;
  if (ASMSPY_HAS(res, caps_available)) res->caps_available = status == ASMSPY_USABLE ? caps : 0;
  if (ASMSPY_HAS(res, reason)) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->reason, sizeof res->reason, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* host->note when the host offers it (host may be NULL or an older, shorter
 * table). The text is formatted here so it passes through as "%s". */
static inline void pp_note(const struct asmspy_host_api *host, struct asmspy_out *out, int level,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static inline void pp_note(const struct asmspy_host_api *host, struct asmspy_out *out, int level,
                           const char *fmt, ...) {
  if (!host || !ASMSPY_HAS(host, note) || !host->note) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  host->note(out, level, "%s", buf);
}

/* The session's output writer, or NULL (s may be NULL or short). */
static inline struct asmspy_out *pp_session_out(const struct asmspy_session *s) {
  return s && ASMSPY_HAS(s, out) ? s->out : NULL;
}

/* ------------------------------------------------------------------------- */
/* Probe steps: each returns 0 to go on, or fills the verdict and returns its */
/* (non-zero) status. `name` is the backend's name as the reasons spell it.   */
/* ------------------------------------------------------------------------- */

/* "cannot read <path>: ENOENT" (rc is the -errno a reader returned). */
static inline int pp_verdict_unreadable(struct asmspy_probe_result *res, const char *path, int rc) {
  return pp_verdict(res, ASMSPY_E_NO_KERNEL, -rc, 0, "cannot read %s: %s", path,
                    pp_errno_name(-rc));
}

/* The PMUs under root for a reason text, or "unreadable". */
static inline void pp_pmu_list_text(const char *root, char *buf, size_t cap) {
  if (pp_list_pmus_at(root, buf, cap) < 0) snprintf(buf, cap, "unreadable");
}

/* Read a PMU's dynamic type from type_path (<root>/<pmu>/type) into *type.
 * When the file is missing: ASMSPY_E_NO_KERNEL with driver_fmt if the CPU
 * advertises cpu_flag (the driver did not bind), else ASMSPY_E_NO_HW with
 * no_hw_fmt; each format takes one %s, the PMUs under root. Any other read
 * failure: "cannot read <type_path>: ERRNO". */
static inline int pp_probe_pmu_type(struct asmspy_probe_result *res, const char *root,
                                    const char *type_path, const char *cpu_flag,
                                    const char *driver_fmt, const char *no_hw_fmt,
                                    long long *type) {
  int rc = pp_read_sysfs_int(type_path, 10, type);
  if (rc == -ENOENT) {
    char pmus[160];
    pp_pmu_list_text(root, pmus, sizeof pmus);
    if (pp_cpu_has_flag(cpu_flag) == 1)
      return pp_verdict(res, ASMSPY_E_NO_KERNEL, ENOENT, 0, driver_fmt, pmus);
    return pp_verdict(res, ASMSPY_E_NO_HW, ENOENT, 0, no_hw_fmt, pmus);
  }
  if (rc < 0) return pp_verdict_unreadable(res, type_path, rc);
  return 0;
}

/* pp_child_fork; a failure is "<name> probe: fork: ERRNO". */
static inline int pp_probe_child_fork(struct asmspy_probe_result *res, const char *name,
                                      struct pp_child *c, pp_work_fn work, void *arg) {
  int rc = pp_child_fork(c, work, arg);
  if (rc < 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0, "%s probe: fork: %s", name,
                      pp_errno_name(-rc));
  return 0;
}

/* pp_ring_map; a failure is "<what>: ERRNO (hint)". */
static inline int pp_probe_ring_map(struct asmspy_probe_result *res, const char *what, int fd,
                                    unsigned data_pages_log2, struct pp_ring *r) {
  int rc = pp_ring_map(fd, data_pages_log2, r);
  if (rc == 0) return 0;
  char hint[200];
  pp_mmap_hint(-rc, hint, sizeof hint);
  return pp_verdict(res, pp_mmap_status(-rc), -rc, 0, "%s: %s (%s)", what, pp_errno_name(-rc),
                    hint);
}

/* Enable the event, let the child run its work, wait up to timeout_ms for it,
 * disable the event. Failures: "<name>: PERF_EVENT_IOC_ENABLE: ERRNO", or
 * "<name> probe: the <role> child did not finish its loop: ERRNO" (role:
 * "traced", "sampled"). */
static inline int pp_probe_run_child(struct asmspy_probe_result *res, const char *name,
                                     const char *role, int fd, struct pp_child *c, int timeout_ms) {
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
    int e = errno;
    return pp_verdict(res, pp_perf_errno_status(e), e, 0, "%s: PERF_EVENT_IOC_ENABLE: %s", name,
                      pp_errno_name(e));
  }
  int rc = pp_child_go(c);
  if (rc == 0) rc = pp_child_wait(c, timeout_ms, NULL);
  (void)ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  if (rc < 0)
    return pp_verdict(res, ASMSPY_E_INTERNAL, -rc, 0,
                      "%s probe: the %s child did not finish its loop: %s", name, role,
                      pp_errno_name(-rc));
  return 0;
}

/* A probe's cleanup on every path: unmap the ring, close the event (fd < 0:
 * never opened), kill and reap the child. */
static inline void pp_probe_release(struct pp_ring *r, int fd, struct pp_child *c) {
  pp_ring_unmap(r);
  if (fd >= 0) close(fd);
  pp_child_reap(c);
}

#endif /* ASMSPY_PLUGINS_COMMON_PERF_PROBE_H */
