/* codeimage: the region's bytes as they were when it ran, re-recorded only
 * when they really change (host/codeimage.h explains why and the two rules
 * that keep asmspy's own breakpoints out of the record). */
#define _GNU_SOURCE
#include "host/codeimage.h"
#include "host/host.h"
#include "common/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

/* PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h). Spelled out here: the
 * build's kernel headers may predate it; the ioctl itself is probed. */
struct ci_page_region {
  __u64 start, end, categories;
};
struct ci_pm_scan_arg {
  __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
  __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define CI_PAGEMAP_SCAN _IOWR('f', 16, struct ci_pm_scan_arg)
#define CI_PAGE_IS_SOFT_DIRTY (1u << 7)
#define CI_PM_SOFT_DIRTY_BIT 55 /* Documentation/admin-guide/mm/pagemap.rst */

const char *codeimage_detector_name(int detector) {
  switch (detector) {
  case CODEIMAGE_SOFT_DIRTY: return "soft-dirty";
  case CODEIMAGE_PAGEMAP_SCAN: return "pagemap-scan";
  default: return "compare";
  }
}

/* ------------------------------------------------------------------------ */
/* Page-change detection                                                     */
/* ------------------------------------------------------------------------ */

static int clear_soft_dirty(pid_t pid) {
  char path[64];
  if (pid)
    snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)pid);
  else
    snprintf(path, sizeof path, "/proc/self/clear_refs");
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, "4", 1); /* CLEAR_REFS_SOFT_DIRTY */
  int e = errno;
  close(fd);
  return n == 1 ? 0 : -e;
}

/* 1 when any page of [start, end) is soft-dirty in pagemap fd, 0 when none,
 * -errno when the question cannot be asked. */
static int pages_dirty_bit55(int pagemap_fd, uint64_t start, uint64_t end) {
  long page = sysconf(_SC_PAGESIZE);
  for (uint64_t p = start / (uint64_t)page; p * (uint64_t)page < end; p++) {
    uint64_t entry = 0;
    if (pread(pagemap_fd, &entry, sizeof entry, (off_t)(p * sizeof entry)) != sizeof entry)
      return -EIO;
    if (entry >> CI_PM_SOFT_DIRTY_BIT & 1) return 1;
  }
  return 0;
}

static int pages_dirty_scan(int pagemap_fd, uint64_t start, uint64_t end) {
  long page = sysconf(_SC_PAGESIZE);
  struct ci_page_region vec[4];
  struct ci_pm_scan_arg a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.start = start & ~((uint64_t)page - 1);
  a.end = (end + (uint64_t)page - 1) & ~((uint64_t)page - 1);
  a.vec = (uint64_t)(uintptr_t)vec;
  a.vec_len = 4;
  a.category_anyof_mask = CI_PAGE_IS_SOFT_DIRTY;
  a.return_mask = CI_PAGE_IS_SOFT_DIRTY;
  int rc = ioctl(pagemap_fd, CI_PAGEMAP_SCAN, &a);
  if (rc < 0) return -errno;
  return rc > 0;
}

int codeimage_probe_detector(char *why, size_t cap) {
  long page = sysconf(_SC_PAGESIZE);
  struct utsname u;
  if (uname(&u) != 0) snprintf(u.release, sizeof u.release, "?");
  volatile uint8_t *scratch =
      mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (scratch == MAP_FAILED) {
    snprintf(why, cap, "cannot map a scratch page to measure soft-dirty: %s", strerror(errno));
    return CODEIMAGE_COMPARE;
  }
  scratch[0] = 1; /* present before the clear */
  int result = CODEIMAGE_COMPARE;
  int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  int rc = clear_soft_dirty(0);
  if (rc < 0) {
    snprintf(why, cap, "/proc/self/clear_refs refused \"4\": %s", strerror(-rc));
    goto out;
  }
  if (pm < 0) {
    snprintf(why, cap, "cannot open /proc/self/pagemap: %s", strerror(errno));
    goto out;
  }
  uint64_t a = (uint64_t)(uintptr_t)scratch, b = a + (uint64_t)page;
  int before = pages_dirty_bit55(pm, a, b);
  scratch[0] = 2; /* the write the kernel should report */
  int after = pages_dirty_bit55(pm, a, b);
  int scan = pages_dirty_scan(pm, a, b);
  if (before == 0 && after == 1) {
    result = scan == 1 ? CODEIMAGE_PAGEMAP_SCAN : CODEIMAGE_SOFT_DIRTY;
    why[0] = 0;
    goto out;
  }
  char scan_txt[160];
  if (scan == -ENOTTY || scan == -EINVAL)
    snprintf(scan_txt, sizeof scan_txt, "PAGEMAP_SCAN is not supported (%s)", strerror(-scan));
  else if (scan < 0)
    snprintf(scan_txt, sizeof scan_txt, "PAGEMAP_SCAN failed: %s", strerror(-scan));
  else
    snprintf(scan_txt, sizeof scan_txt,
             "PAGEMAP_SCAN PAGE_IS_SOFT_DIRTY matched %s written page (its PAGE_IS_WRITTEN needs "
             "the target's own userfaultfd write-protect registration)",
             scan ? "the" : "no");
  snprintf(why, cap,
           "the kernel (%s) does not report page changes: after clear_refs \"4\" and a write, "
           "pagemap bit 55 (soft-dirty) read %d (CONFIG_MEM_SOFT_DIRTY off?); %s",
           u.release, after, scan_txt);
out:
  if (pm >= 0) close(pm);
  munmap((void *)scratch, (size_t)page);
  return result;
}

/* ------------------------------------------------------------------------ */
/* The ledger of asmspy's own writes                                         */
/* ------------------------------------------------------------------------ */

void codeimage_mask(uint8_t *snap, uint64_t base, size_t len, const struct codeimage_patch *p,
                    size_t np) {
  for (size_t i = 0; i < np; i++) {
    if (p[i].addr < base || p[i].addr - base >= len) continue;
    uint8_t *b = &snap[p[i].addr - base];
    if (*b == p[i].written) *b = p[i].orig;
  }
}

struct ci_region {
  uint64_t base, len;
  uint64_t version;
  uint8_t *bytes; /* the last recorded version */
  int refused;    /* unreadable / too large: noted once, never retried */
};

struct codeimage_set {
  struct asmspy_target *target;
  pid_t pid;
  struct asmspy_out *out;
  int detector;
  int pagemap_fd;
  struct ci_region *regions;
  size_t nregions;
  struct codeimage_patch *patches;
  size_t npatches, patch_cap;
  uint8_t *snap; /* scratch for the current snapshot (largest region seen) */
  size_t snap_cap;
  struct asmspy_host_api api; /* base, with write_mem through the ledger */
  ssize_t (*base_write_mem)(struct asmspy_target *, uint64_t, const void *, size_t);
};

/* The set whose ledger sees asmspy's writes (see codeimage_host_api). */
static struct codeimage_set *ledger_owner;

static struct codeimage_patch *patch_at(struct codeimage_set *cs, uint64_t addr) {
  for (size_t i = 0; i < cs->npatches; i++)
    if (cs->patches[i].addr == addr) return &cs->patches[i];
  return NULL;
}

/* Enter one byte asmspy wrote over `before`: remember the target's own byte
 * the first time; forget the address once asmspy writes that byte back. */
static void ledger_note(struct codeimage_set *cs, uint64_t addr, uint8_t before, uint8_t value) {
  struct codeimage_patch *p = patch_at(cs, addr);
  if (p) {
    if (value == p->orig)
      *p = cs->patches[--cs->npatches];
    else
      p->written = value;
    return;
  }
  if (before == value) return;
  if (cs->npatches == cs->patch_cap) {
    size_t nc = cs->patch_cap ? cs->patch_cap * 2 : 8;
    struct codeimage_patch *n = realloc(cs->patches, nc * sizeof *n);
    if (!n) return;
    cs->patches = n;
    cs->patch_cap = nc;
  }
  cs->patches[cs->npatches++] = (struct codeimage_patch){addr, before, value};
}

/* host->write_mem for the session's backend: the write, entered in the
 * ledger once it succeeded. Only small writes (breakpoints, patches) are
 * entered: that is all asmspy ever writes into a target. */
static ssize_t ledger_write_mem(struct asmspy_target *t, uint64_t addr, const void *buf,
                                size_t len) {
  struct codeimage_set *cs = ledger_owner;
  if (!cs) return target_write_mem(t, addr, buf, len);
  uint8_t before[64];
  int track = t == cs->target && len <= sizeof before &&
              target_read_mem(t, addr, before, len) == (ssize_t)len;
  ssize_t n = cs->base_write_mem(t, addr, buf, len);
  if (track && n == (ssize_t)len)
    for (size_t i = 0; i < len; i++)
      ledger_note(cs, addr + i, before[i], ((const uint8_t *)buf)[i]);
  return n;
}

const struct asmspy_host_api *codeimage_host_api(struct codeimage_set *cs,
                                                 const struct asmspy_host_api *base) {
  if (!cs) return base;
  cs->api = *base;
  cs->base_write_mem = base->write_mem ? base->write_mem : target_write_mem;
  cs->api.write_mem = ledger_write_mem;
  ledger_owner = cs;
  return &cs->api;
}

/* ------------------------------------------------------------------------ */
/* The set                                                                   */
/* ------------------------------------------------------------------------ */

struct codeimage_set *codeimage_open(struct asmspy_target *t, pid_t pid, struct asmspy_out *out) {
  struct codeimage_set *cs = calloc(1, sizeof *cs);
  if (!cs) return NULL;
  cs->target = t;
  cs->pid = pid;
  cs->out = out;
  cs->pagemap_fd = -1;
  char why[512] = "";
  cs->detector = codeimage_probe_detector(why, sizeof why);
  if (cs->detector != CODEIMAGE_COMPARE) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
    cs->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = cs->pagemap_fd < 0 ? -errno : clear_soft_dirty(pid);
    if (rc < 0) {
      snprintf(why, sizeof why, "pid %d: %s: %s", (int)pid,
               cs->pagemap_fd < 0 ? "cannot open its pagemap" : "its clear_refs refused \"4\"",
               strerror(-rc));
      cs->detector = CODEIMAGE_COMPARE;
    }
  }
  if (cs->detector == CODEIMAGE_COMPARE)
    out_note(out, ASMSPY_NOTE_INFO,
             "codeimage: %s; comparing the region's bytes at every entry instead", why);
  return cs;
}

void codeimage_close(struct codeimage_set *cs) {
  if (!cs) return;
  if (ledger_owner == cs) ledger_owner = NULL;
  if (cs->pagemap_fd >= 0) close(cs->pagemap_fd);
  for (size_t i = 0; i < cs->nregions; i++) free(cs->regions[i].bytes);
  free(cs->regions);
  free(cs->patches);
  free(cs->snap);
  free(cs);
}

static struct ci_region *region_for(struct codeimage_set *cs, uint64_t base, uint64_t len) {
  for (size_t i = 0; i < cs->nregions; i++)
    if (cs->regions[i].base == base && cs->regions[i].len == len) return &cs->regions[i];
  struct ci_region *n = realloc(cs->regions, (cs->nregions + 1) * sizeof *n);
  if (!n) return NULL;
  cs->regions = n;
  struct ci_region *r = &cs->regions[cs->nregions++];
  memset(r, 0, sizeof *r);
  r->base = base;
  r->len = len;
  return r;
}

/* May the region's pages have changed since the last check? With a
 * soft-dirty detector a clean range is answered without reading a byte; a
 * dirty one has its bits cleared BEFORE the bytes are read, so a write
 * racing the read is reported again at the next check. */
static int may_have_changed(struct codeimage_set *cs, const struct ci_region *r) {
  if (cs->detector == CODEIMAGE_COMPARE || !r->version) {
    if (cs->detector != CODEIMAGE_COMPARE) clear_soft_dirty(cs->pid);
    return 1;
  }
  int dirty = cs->detector == CODEIMAGE_PAGEMAP_SCAN
                  ? pages_dirty_scan(cs->pagemap_fd, r->base, r->base + r->len)
                  : pages_dirty_bit55(cs->pagemap_fd, r->base, r->base + r->len);
  if (dirty == 0) return 0;
  clear_soft_dirty(cs->pid);
  return 1; /* dirty, or the question failed: compare */
}

static void fill_event(struct codeimage_set *cs, const struct ci_region *r, uint64_t when,
                       struct asmspy_event *ev) {
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = ASMSPY_EV_CODEIMAGE;
  ev->pid = cs->pid;
  ev->seq = when;
  ev->ip = r->base;
  ev->target = cs->target;
  ev->u.code.base = r->base;
  ev->u.code.len = r->len;
  ev->u.code.version = r->version;
  ev->u.code.bytes = r->bytes;
}

/* Record bytes as the region's next version: the `codeimage` line. */
static int record_version(struct codeimage_set *cs, struct ci_region *r, const uint8_t *bytes) {
  uint8_t *copy = malloc(r->len ? r->len : 1);
  if (!copy) return -1;
  memcpy(copy, bytes, r->len);
  free(r->bytes);
  r->bytes = copy;
  r->version++;
  uint64_t when = out_event_count(cs->out) + 1; /* the seq this line is about to get */
  struct strbuf b = {0};
  strbuf_addf(&b,
              "\"pid\":%d,\"base\":\"0x%" PRIx64 "\",\"len\":%" PRIu64 ",\"version\":%" PRIu64
              ",\"when\":%" PRIu64 ",\"detect\":\"%s\",\"bytes\":\"",
              (int)cs->pid, r->base, r->len, r->version, when,
              codeimage_detector_name(cs->detector));
  static const char hexd[] = "0123456789abcdef";
  char pair[3] = {0};
  for (uint64_t i = 0; i < r->len && !b.oom; i++) {
    pair[0] = hexd[bytes[i] >> 4];
    pair[1] = hexd[bytes[i] & 15];
    strbuf_addf(&b, "%s", pair);
  }
  strbuf_addf(&b, "\"");
  if (b.oom) {
    free(b.s);
    return -1;
  }
  out_emit(cs->out, "codeimage", b.s, NULL);
  free(b.s);
  return 0;
}

int codeimage_check(struct codeimage_set *cs, uint64_t base, uint64_t len,
                    struct asmspy_event *ev) {
  if (!cs || !len) return 0;
  struct ci_region *r = region_for(cs, base, len);
  if (!r || r->refused) return -1;
  if (len > CODEIMAGE_MAX_LEN) {
    r->refused = 1;
    out_note(cs->out, ASMSPY_NOTE_INFO,
             "codeimage: region 0x%" PRIx64 " is %" PRIu64 " bytes, over the %u-byte snapshot "
             "limit: its bytes are not recorded",
             base, len, CODEIMAGE_MAX_LEN);
    return -1;
  }
  if (!may_have_changed(cs, r)) return 0;
  if (cs->snap_cap < len) {
    uint8_t *n = realloc(cs->snap, len);
    if (!n) return -1;
    cs->snap = n;
    cs->snap_cap = len;
  }
  ssize_t got = target_read_mem(cs->target, base, cs->snap, len);
  if (got != (ssize_t)len) {
    if (!r->version) { /* never readable: say so once */
      r->refused = 1;
      out_note(cs->out, ASMSPY_NOTE_INFO,
               "codeimage: cannot read region 0x%" PRIx64 " (%" PRIu64 " bytes): %s", base, len,
               got < 0 ? strerror((int)-got) : "short read");
    }
    return -1;
  }
  codeimage_mask(cs->snap, base, len, cs->patches, cs->npatches);
  if (r->version && memcmp(cs->snap, r->bytes, len) == 0) return 0; /* byte-identical */
  if (record_version(cs, r, cs->snap) != 0) return -1;
  fill_event(cs, r, out_event_count(cs->out), ev);
  return 1;
}

int codeimage_offer(struct codeimage_set *cs, const struct asmspy_event *ev) {
  if (!cs || ev->type != ASMSPY_EV_CODEIMAGE || !ev->u.code.bytes || !ev->u.code.len ||
      ev->u.code.len > CODEIMAGE_MAX_LEN)
    return 0;
  struct ci_region *r = region_for(cs, ev->u.code.base, ev->u.code.len);
  if (!r) return 0;
  if (r->version && memcmp(ev->u.code.bytes, r->bytes, r->len) == 0) return 0;
  return record_version(cs, r, ev->u.code.bytes) == 0;
}
