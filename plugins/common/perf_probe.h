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
 *   perf       pp_perf_event_open, pp_ring_map/unmap/head/next
 *   child      pp_child_fork / go / wait / reap (a child that sleeps until told
 *              to run a work function, then exits; dies with its parent)
 *   reasons    pp_errno_name, pp_perf_errno_status, pp_perf_errno_hint,
 *              pp_verdict (fills an asmspy_probe_result within its struct_size),
 *              pp_note (host->note, tolerating a NULL or short host table)
 *
 * Every function returns 0 / a count on success and -errno on failure, and
 * never allocates memory that outlives the call. Needs only the default
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
static inline void pp_strlcpy(char *dst, const char *src, size_t cap)
{
  if (!dst || cap == 0)
    return;
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
static inline int pp_read_text(const char *path, char *buf, size_t cap)
{
  if (!path || !buf || cap == 0)
    return -EINVAL;
  buf[0] = '\0';
  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return -errno;
  size_t len = 0;
  while (len + 1 < cap) {
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      int e = errno;
      close(fd);
      buf[0] = '\0';
      return -e;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  while (len > 0 && isspace((unsigned char)buf[len - 1]))
    len--;
  buf[len] = '\0';
  return (int)len;
}

/* Read one integer from a sysfs/procfs file ("14\n", "-1\n", hex caps with
 * base 16, or base 0 for 0x-prefixed). Leading blanks and one trailing
 * newline are fine; anything else is -EINVAL (empty file included), an
 * out-of-range value -ERANGE, a read failure -errno. */
static inline int pp_read_sysfs_int(const char *path, int base, long long *out)
{
  char buf[64];
  int n = pp_read_text(path, buf, sizeof buf);
  if (n < 0)
    return n;
  const char *p = buf;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return -EINVAL;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(p, &end, base);
  if (errno == ERANGE)
    return -ERANGE;
  if (end == p || *end != '\0')
    return -EINVAL;
  if (out)
    *out = v;
  return 0;
}

/* perf_event_paranoid as an int (-1..4 in practice), or -errno. */
static inline int pp_read_paranoid(int *out)
{
  long long v = 0;
  int rc = pp_read_sysfs_int(PP_PARANOID_PATH, 10, &v);
  if (rc < 0)
    return rc;
  if (v < INT_MIN || v > INT_MAX)
    return -ERANGE;
  if (out)
    *out = (int)v;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* PMU directory listing                                                      */
/* ------------------------------------------------------------------------- */

static inline int pp__cmp_str(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "breakpoint,msr,software,..." (sorted) into buf. Returns the number of PMUs
 * or -errno ("(unreadable: ENOENT)"-style text is left to the caller). */
static inline int pp_list_pmus_at(const char *root, char *buf, size_t cap)
{
  if (!buf || cap == 0)
    return -EINVAL;
  buf[0] = '\0';
  DIR *d = opendir(root);
  if (!d)
    return -errno;
  char names[64][64];
  const char *sorted[64];
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < 64) {
    if (de->d_name[0] == '.')
      continue;
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
    if (w < 0)
      break;
    used += (size_t)w;
  }
  if (used >= cap && cap > 4) /* mark truncation */
    memcpy(buf + cap - 4, "...", 4);
  return n;
}

static inline int pp_list_pmus(char *buf, size_t cap)
{
  return pp_list_pmus_at(PP_SYSFS_PMU_ROOT, buf, cap);
}

/* 1 when /sys/bus/event_source/devices/<pmu> exists, 0 when not. */
static inline int pp_pmu_exists(const char *pmu)
{
  char path[256];
  snprintf(path, sizeof path, "%s/%s", PP_SYSFS_PMU_ROOT, pmu);
  return access(path, F_OK) == 0;
}

/* 1 when the first "flags" line of /proc/cpuinfo carries `flag` as a whole
 * word, 0 when not, -errno when cpuinfo is unreadable. Only a hint for the
 * reason text (a hypervisor can set or hide flags); never the verdict. */
static inline int pp_cpu_has_flag(const char *flag)
{
  FILE *f = fopen("/proc/cpuinfo", "re");
  if (!f)
    return -errno;
  char *line = NULL;
  size_t cap = 0;
  int found = 0;
  size_t flen = strlen(flag);
  while (getline(&line, &cap, f) > 0) {
    if (strncmp(line, "flags", 5) != 0 && strncmp(line, "Features", 8) != 0)
      continue;
    char *p = strchr(line, ':');
    if (!p)
      continue;
    for (p++; *p;) {
      while (*p && isspace((unsigned char)*p))
        p++;
      char *w = p;
      while (*p && !isspace((unsigned char)*p))
        p++;
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

static inline uint64_t pp__bits(unsigned lo, unsigned hi)
{
  uint64_t upto_hi = hi >= 63 ? ~0ull : ((1ull << (hi + 1)) - 1);
  return upto_hi & ~((1ull << lo) - 1);
}

static inline int pp__parse_bitno(const char **pp, unsigned *out)
{
  const char *p = *pp;
  if (!isdigit((unsigned char)*p))
    return -EINVAL;
  unsigned v = 0;
  while (isdigit((unsigned char)*p)) {
    v = v * 10 + (unsigned)(*p - '0');
    if (v > 63)
      return -EINVAL;
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
static inline int pp_parse_format(const char *s, struct pp_format *f)
{
  if (!s)
    return -EINVAL;
  const char *p = s;
  while (*p == ' ' || *p == '\t')
    p++;
  if (strncmp(p, "config", 6) != 0)
    return -EINVAL;
  p += 6;
  int field = PP_FMT_CONFIG;
  if (*p >= '1' && *p <= '3') {
    field = *p - '0';
    p++;
  }
  if (*p != ':')
    return -EINVAL;
  p++;
  uint64_t mask = 0;
  unsigned lo_all = 64, hi_all = 0;
  for (;;) {
    unsigned lo, hi;
    if (pp__parse_bitno(&p, &lo) < 0)
      return -EINVAL;
    hi = lo;
    if (*p == '-') {
      p++;
      if (pp__parse_bitno(&p, &hi) < 0 || hi < lo)
        return -EINVAL;
    }
    mask |= pp__bits(lo, hi);
    if (lo < lo_all)
      lo_all = lo;
    if (hi > hi_all)
      hi_all = hi;
    if (*p != ',')
      break;
    p++;
  }
  while (*p && isspace((unsigned char)*p))
    p++;
  if (*p != '\0')
    return -EINVAL;
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
static inline uint64_t pp_format_value(const struct pp_format *f, uint64_t value)
{
  uint64_t out = 0;
  for (unsigned b = 0; b < 64 && value; b++) {
    if (!(f->mask & (1ull << b)))
      continue;
    if (value & 1)
      out |= 1ull << b;
    value >>= 1;
  }
  return out;
}

/* OR a formatted value into the attr word the format names. config3 is
 * newer than the uapi headers this builds against: -EOPNOTSUPP. */
static inline int pp_attr_apply_format(struct perf_event_attr *a, const struct pp_format *f,
                                       uint64_t value)
{
  uint64_t bits = pp_format_value(f, value);
  switch (f->field) {
  case PP_FMT_CONFIG:
    a->config |= bits;
    return 0;
  case PP_FMT_CONFIG1:
    a->config1 |= bits;
    return 0;
  case PP_FMT_CONFIG2:
    a->config2 |= bits;
    return 0;
  default:
    return -EOPNOTSUPP;
  }
}

/* Read and parse <root>/<pmu>/format/<name>. Returns 0, -errno (ENOENT when
 * the kernel does not offer that format term) or -EINVAL (unparsable; the
 * raw text is left in raw if given). */
static inline int pp_read_format_at(const char *root, const char *pmu, const char *name,
                                    struct pp_format *f, char *raw, size_t rawcap)
{
  char path[512], buf[128];
  snprintf(path, sizeof path, "%s/%s/format/%s", root, pmu, name);
  int n = pp_read_text(path, buf, sizeof buf);
  if (raw && rawcap)
    pp_strlcpy(raw, n >= 0 ? buf : "", rawcap);
  if (n < 0)
    return n;
  return pp_parse_format(buf, f);
}

static inline int pp_read_format(const char *pmu, const char *name, struct pp_format *f,
                                 char *raw, size_t rawcap)
{
  return pp_read_format_at(PP_SYSFS_PMU_ROOT, pmu, name, f, raw, rawcap);
}

/* ------------------------------------------------------------------------- */
/* perf_event_open and the data ring                                          */
/* ------------------------------------------------------------------------- */

/* glibc has no wrapper. Returns the fd or -1 with errno set. */
static inline int pp_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                                     int group_fd, unsigned long flags)
{
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
static inline int pp_ring_map(int fd, unsigned data_pages_log2, struct pp_ring *r)
{
  memset(r, 0, sizeof *r);
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0)
    pg = 4096;
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

static inline void pp_ring_unmap(struct pp_ring *r)
{
  if (r->base)
    munmap(r->base, r->len);
  memset(r, 0, sizeof *r);
}

static inline uint64_t pp_ring_head(const struct pp_ring *r)
{
  return __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
}

/* Copy the record at *tail (free-running offset) into buf, handling a record
 * that straddles the end of the ring, and advance *tail. Returns the record
 * size (header included), 0 when tail has reached head, -EMSGSIZE when the
 * record does not fit buf (it is skipped), -EPROTO on a corrupt header. The
 * caller publishes data_tail (pp_ring_consume) when done. */
static inline int pp_ring_next(struct pp_ring *r, uint64_t *tail, void *buf, size_t cap)
{
  uint64_t head = pp_ring_head(r);
  if (*tail >= head)
    return 0;
  uint64_t doff = r->pc->data_offset ? r->pc->data_offset : r->page;
  uint64_t dsize = r->pc->data_size ? r->pc->data_size : r->len - r->page;
  const uint8_t *data = (const uint8_t *)r->base + doff;
  struct perf_event_header h;
  uint8_t *hb = (uint8_t *)&h;
  for (size_t i = 0; i < sizeof h; i++)
    hb[i] = data[(*tail + i) & (dsize - 1)];
  if (h.size < sizeof h || *tail + h.size > head)
    return -EPROTO;
  if (h.size > cap) {
    *tail += h.size;
    return -EMSGSIZE;
  }
  uint8_t *out = (uint8_t *)buf;
  uint64_t off = *tail & (dsize - 1);
  size_t first = (size_t)(dsize - off < h.size ? dsize - off : h.size);
  memcpy(out, data + off, first);
  if (first < h.size)
    memcpy(out + first, data, h.size - first);
  *tail += h.size;
  return (int)h.size;
}

static inline void pp_ring_consume(struct pp_ring *r, uint64_t tail)
{
  __atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------- */
/* A sleeping child to attach a per-task event to                             */
/* ------------------------------------------------------------------------- */

typedef void (*pp_work_fn)(void *arg);

struct pp_child {
  pid_t pid;  /* -1 once reaped */
  int go_fd;  /* write end of the "go" pipe, -1 once released */
};

/* Fork a child that blocks until pp_child_go(), then runs work(arg) and
 * _exit(0)s. If the parent dies or closes the pipe first, the child exits
 * without running work. The child only makes async-signal-safe calls before
 * work(), so forking from a threaded host is fine. Returns 0 or -errno. */
static inline int pp_child_fork(struct pp_child *c, pp_work_fn work, void *arg)
{
  c->pid = -1;
  c->go_fd = -1;
  int p[2];
  if (pipe(p) < 0)
    return -errno;
  (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
  (void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    return -e;
  }
  if (pid == 0) {
    close(p[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(127);
    char b;
    ssize_t r;
    do
      r = read(p[0], &b, 1);
    while (r < 0 && errno == EINTR);
    if (r == 1 && work)
      work(arg);
    _exit(0);
  }
  close(p[0]);
  c->pid = pid;
  c->go_fd = p[1];
  return 0;
}

/* Let the child run its work. Returns 0 or -errno. */
static inline int pp_child_go(struct pp_child *c)
{
  if (c->go_fd < 0)
    return -EBADF;
  char b = 'g';
  ssize_t w;
  do
    w = write(c->go_fd, &b, 1);
  while (w < 0 && errno == EINTR);
  int e = w == 1 ? 0 : -errno;
  close(c->go_fd);
  c->go_fd = -1;
  return e;
}

static inline void pp_sleep_us(long us)
{
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

static inline int64_t pp_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to timeout_ms for the child to exit. Returns 0 (exited; *wstatus
 * filled if given), or -ETIMEDOUT (it was killed and reaped). The child is
 * reaped either way. */
static inline int pp_child_wait(struct pp_child *c, int timeout_ms, int *wstatus)
{
  if (c->pid <= 0)
    return -ECHILD;
  int64_t deadline = pp_now_ms() + timeout_ms;
  for (;;) {
    int st = 0;
    pid_t r = waitpid(c->pid, &st, WNOHANG);
    if (r == c->pid) {
      c->pid = -1;
      if (wstatus)
        *wstatus = st;
      return 0;
    }
    if (r < 0 && errno != EINTR) { /* ECHILD: SIGCHLD ignored, already reaped */
      c->pid = -1;
      if (wstatus)
        *wstatus = 0;
      return 0;
    }
    if (pp_now_ms() >= deadline)
      break;
    pp_sleep_us(200);
  }
  kill(c->pid, SIGKILL);
  while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
  }
  c->pid = -1;
  return -ETIMEDOUT;
}

/* Kill (if still alive) and reap; close the pipe. Safe to call twice. */
static inline void pp_child_reap(struct pp_child *c)
{
  if (c->go_fd >= 0) {
    close(c->go_fd);
    c->go_fd = -1;
  }
  if (c->pid > 0) {
    kill(c->pid, SIGKILL);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    c->pid = -1;
  }
}

/* A user-space loop full of taken and not-taken branches for functional
 * checks. arg points at an unsigned long iteration count. */
static inline void pp_spin_branches(void *arg)
{
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

static inline const char *pp_errno_name(int err)
{
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
static inline int pp_perf_errno_status(int err)
{
  switch (err) {
  case ENOENT: /* the PMU type / event is unknown to this kernel */
  case EINVAL: /* config, exclude or period bits this kernel rejects */
  case E2BIG:
  case ENOSYS:
    return ASMSPY_E_NO_KERNEL;
  case ENODEV:
  case EOPNOTSUPP:
    return ASMSPY_E_NO_HW;
  case EACCES:
  case EPERM:
    return ASMSPY_E_PERM;
  case EBUSY:
  case ENOSPC:
    return ASMSPY_E_ATTACH_BUSY;
  case ENOMEM:
    return ASMSPY_E_NOMEM;
  case ESRCH:
    return ASMSPY_E_ATTACH_GONE;
  default:
    return ASMSPY_E_INTERNAL;
  }
}

/* One clause explaining a perf_event_open errno (HARDWARE.md §10, kernel
 * perf_event_open()): which gate said no. EACCES/EPERM carry the paranoid
 * level measured now. */
static inline void pp_perf_errno_hint(int err, char *buf, size_t cap)
{
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
      snprintf(buf, cap, "%s: level 3 refuses every perf_event_open without CAP_SYS_ADMIN",
               pbuf);
    else
      snprintf(buf, cap, "%s: this event needs a lower level or CAP_PERFMON", pbuf);
    break;
  case EPERM:
    snprintf(buf, cap, "%s; refused by a capability check, seccomp or an LSM", pbuf);
    break;
  case ENOENT:
    snprintf(buf, cap, "the kernel does not know this PMU type or event");
    break;
  case EINVAL:
    snprintf(buf, cap, "the kernel rejected the attr (config, exclude or period bits)");
    break;
  case EBUSY:
    snprintf(buf, cap, "the PMU is held exclusively by another event");
    break;
  case ENOSPC:
    snprintf(buf, cap, "no free hardware counter or slot");
    break;
  case EOPNOTSUPP:
    snprintf(buf, cap, "the PMU does not support this mode");
    break;
  case ENODEV:
    snprintf(buf, cap, "the PMU does not exist on this CPU");
    break;
  case E2BIG:
    snprintf(buf, cap, "attr.size is newer than this kernel");
    break;
  case ESRCH:
    snprintf(buf, cap, "the target task is gone");
    break;
  default:
    snprintf(buf, cap, "%s", strerror(err));
    break;
  }
}

/* Why a perf mmap hit EPERM: the locked-memory budget (perf_event_mlock_kb per
 * user and CPU, then RLIMIT_MEMLOCK, unless CAP_IPC_LOCK). */
static inline void pp_mlock_hint(char *buf, size_t cap)
{
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

/* ------------------------------------------------------------------------- */
/* Probe verdicts and host notes                                              */
/* ------------------------------------------------------------------------- */

/* Fill a probe result, writing only the members the host's struct_size
 * covers. res may be NULL. Returns status. */
static inline int pp_verdict(struct asmspy_probe_result *res, int status, int err, uint64_t caps,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int pp_verdict(struct asmspy_probe_result *res, int status, int err, uint64_t caps,
                             const char *fmt, ...)
{
  if (!res)
    return status;
  if (ASMSPY_HAS(res, status))
    res->status = status;
  if (ASMSPY_HAS(res, sys_errno))
    res->sys_errno = err;
  if (ASMSPY_HAS(res, caps_available))
    res->caps_available = status == ASMSPY_USABLE ? caps : 0;
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
                           const char *fmt, ...)
{
  if (!host || !ASMSPY_HAS(host, note) || !host->note)
    return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  host->note(out, level, "%s", buf);
}

/* The session's output writer, or NULL (s may be NULL or short). */
static inline struct asmspy_out *pp_session_out(const struct asmspy_session *s)
{
  return s && ASMSPY_HAS(s, out) ? s->out : NULL;
}


/* ---------------------------------------------------------------------------
 * PP_PROBE_ONLY_BACKEND: the descriptor, probe(), run() and entry point of a
 * backend whose functional probe is real but whose capture is built in a
 * later issue (issue 6). run() re-probes: unavailable -> a SKIP note and the
 * probe's status; available -> says plainly that capture lands with issue 6.
 * One definition instead of four copies; a backend drops the macro when it
 * gains real capture.
 * ------------------------------------------------------------------------- */
#define PP_PROBE_ONLY_BACKEND(NAME, CAPS, DESCRIPTION, PROBE_IMPL)                              \
  static int pp_backend_probe(const struct asmspy_host_api *host,                              \
                              struct asmspy_probe_result *res) {                               \
    (void)host; /* the probe needs no host service */                                          \
    return PROBE_IMPL(res);                                                                    \
  }                                                                                            \
  static int pp_backend_run(const struct asmspy_host_api *host, const struct asmspy_session *s) { \
    struct asmspy_probe_result r;                                                              \
    memset(&r, 0, sizeof r);                                                                   \
    ASMSPY_INIT_HEADER(&r);                                                                    \
    int st = PROBE_IMPL(&r);                                                                   \
    if (st != ASMSPY_USABLE) {                                                                 \
      pp_note(host, pp_session_out(s), ASMSPY_NOTE_SKIP, NAME ": %s", r.reason);               \
      return -st;                                                                              \
    }                                                                                          \
    pp_note(host, pp_session_out(s), ASMSPY_NOTE_WARN,                                         \
            NAME ": the hardware is usable here (%s), but capture through " NAME               \
                 " lands with issue 6",                                                        \
            r.reason);                                                                         \
    return -ASMSPY_E_INTERNAL;                                                                 \
  }                                                                                            \
  static const struct asmspy_backend_ops pp_backend_ops = {                                    \
      .abi_version = ASMSPY_ABI_VERSION,                                                       \
      .struct_size = (uint32_t)sizeof(struct asmspy_backend_ops),                              \
      .run = pp_backend_run,                                                                   \
  };                                                                                           \
  static const struct asmspy_plugin pp_backend_plugin = {                                      \
      .abi_version = ASMSPY_ABI_VERSION,                                                       \
      .struct_size = (uint32_t)sizeof(struct asmspy_plugin),                                   \
      .kind = ASMSPY_KIND_BACKEND,                                                             \
      .name = NAME,                                                                            \
      .description = DESCRIPTION,                                                              \
      .caps = CAPS,                                                                            \
      .probe = pp_backend_probe,                                                               \
      .backend = &pp_backend_ops,                                                              \
      .view = NULL,                                                                            \
      .plugin_version = "0.1.0", /* ABI 1.1 */                                                 \
  };                                                                                           \
  ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(                               \
      uint32_t host_abi_version, const struct asmspy_host_api *host) {                         \
    (void)host;                                                                                \
    if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;                \
    return &pp_backend_plugin;                                                                 \
  }

#endif /* ASMSPY_PLUGINS_COMMON_PERF_PROBE_H */
