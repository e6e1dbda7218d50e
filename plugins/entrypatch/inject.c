/* inject.c: the agent's memory in a stopped target (see inject.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/inject.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define PR_SET_VMA_ 0x53564d41
#define PR_SET_VMA_ANON_NAME_ 0

int64_t ep_remote_call(struct ep_remote *r, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5) {
  uint64_t args[6] = {a0, a1, a2, a3, a4, a5};
  int64_t ret = -ENOSYS;
  int rc = r->host->seam->inject_syscall(r->seam, r->tid, nr, args, &ret);
  return rc ? rc : ret;
}

/* Scratch memory in the target for a string an injected call reads: well
 * below the thread's stack pointer (under the red zone), like the seam's
 * own sigaction injection. */
static uint64_t put_string(struct ep_remote *r, const char *s) {
  struct asmspy_regs regs;
  memset(&regs, 0, sizeof regs);
  ASMSPY_INIT_HEADER(&regs);
  if (r->host->seam->get_regs(r->seam, r->tid, &regs) != 0) return 0;
  uint64_t at = (regs.sp - 2048) & ~(uint64_t)15;
  size_t n = strlen(s) + 1;
  return r->host->write_mem(r->target, at, s, n) == (ssize_t)n ? at : 0;
}

static void name_mapping(struct ep_remote *r, uint64_t addr, uint64_t len, const char *name) {
  uint64_t s = put_string(r, name);
  if (s) /* EINVAL on kernels without CONFIG_ANON_VMA_NAME: only cosmetic */
    (void)ep_remote_call(r, SYS_prctl, PR_SET_VMA_, PR_SET_VMA_ANON_NAME_, addr, len, s, 0);
}

uint64_t ep_remote_map(struct ep_remote *r, uint64_t hint, uint64_t len, int prot,
                       const char *name) {
  uint64_t flags = MAP_PRIVATE | MAP_ANONYMOUS | (hint ? MAP_FIXED_NOREPLACE : 0);
  int64_t a = ep_remote_call(r, SYS_mmap, hint, len, (uint64_t)prot, flags, (uint64_t)-1, 0);
  if (a < 0 && a > -4096) {
    if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
      fprintf(stderr, "entrypatch: mmap(0x%llx, %llu) in the target: %lld\n",
              (unsigned long long)hint, (unsigned long long)len, (long long)a);
    return 0;
  }
  if (hint && (uint64_t)a != hint) { /* a kernel before 4.17 took it as a hint only */
    ep_remote_call(r, SYS_munmap, (uint64_t)a, len, 0, 0, 0, 0);
    return 0;
  }
  if (name) name_mapping(r, (uint64_t)a, len, name);
  return (uint64_t)a;
}

uint64_t ep_remote_shared(struct ep_remote *r, uint64_t hint, uint64_t len, int prot,
                          const char *memfd_name, void **local, char *why, size_t whycap) {
  *local = NULL;
  uint64_t name = put_string(r, memfd_name);
  if (!name) {
    snprintf(why, whycap, "cannot write into the target's stack");
    return 0;
  }
  int64_t fd = ep_remote_call(r, SYS_memfd_create, name, 1 /* MFD_CLOEXEC */, 0, 0, 0, 0);
  if (fd < 0) {
    snprintf(why, whycap, "memfd_create in the target: %s", strerror((int)-fd));
    return 0;
  }
  uint64_t addr = 0;
  int64_t rc = ep_remote_call(r, SYS_ftruncate, (uint64_t)fd, len, 0, 0, 0, 0);
  if (rc == 0) {
    uint64_t flags = MAP_SHARED | (hint ? MAP_FIXED_NOREPLACE : 0);
    int64_t a = ep_remote_call(r, SYS_mmap, hint, len, (uint64_t)prot, flags, (uint64_t)fd, 0);
    if (a < 0 && a > -4096)
      snprintf(why, whycap, "mmap of %s in the target: %s", memfd_name, strerror((int)-a));
    else if (hint && (uint64_t)a != hint) /* a kernel before 4.17 took it as a hint only */
      snprintf(why, whycap, "mmap of %s in the target: not placed at 0x%llx", memfd_name,
               (unsigned long long)hint);
    else
      addr = (uint64_t)a;
    if (!addr && a > 0) ep_remote_call(r, SYS_munmap, (uint64_t)a, len, 0, 0, 0, 0);
  } else {
    snprintf(why, whycap, "ftruncate in the target: %s", strerror((int)-rc));
  }
  if (addr) { /* our own view of the same memory, through the target's fd */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)r->pid, (int)fd);
    int mine = open(path, O_RDWR | O_CLOEXEC);
    void *m = mine >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0) : MAP_FAILED;
    if (mine >= 0) close(mine);
    if (m == MAP_FAILED) {
      snprintf(why, whycap, "mapping the target's %s (%s): %s", memfd_name, path, strerror(errno));
      ep_remote_call(r, SYS_munmap, addr, len, 0, 0, 0, 0);
      addr = 0;
    } else {
      *local = m;
    }
  }
  ep_remote_call(r, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
  return addr;
}

/* ------------------------------------------------------------ gaps -- */

struct span {
  uint64_t lo, hi;
};

static int cmp_span(const void *a, const void *b) {
  const struct span *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

uint64_t ep_find_gap_near(pid_t pid, uint64_t lo, uint64_t hi, uint64_t len) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  struct span *v = NULL;
  size_t n = 0, cap = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long a, b;
    if (sscanf(line, "%llx-%llx", &a, &b) != 2) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      struct span *nv = realloc(v, cap * sizeof *nv);
      if (!nv) break;
      v = nv;
    }
    v[n++] = (struct span){a, b};
  }
  fclose(f);
  qsort(v, n, sizeof *v, cmp_span);
  const uint64_t reach = (1ull << 31) - (1ull << 24); /* rel32, with room for the stubs */
  const uint64_t floor = 0x10000, ceiling = 0x7ffffffff000ull, guard = 1ull << 20;
  uint64_t best = 0, best_dist = ~0ull;
  for (size_t i = 0; i <= n; i++) {
    uint64_t g_lo = i ? v[i - 1].hi : floor, g_hi = i < n ? v[i].lo : ceiling;
    if (g_lo < floor) g_lo = floor;
    /* keep a guard from both neighbours (heap growth, stack guard) */
    if (g_hi <= g_lo + len + 2 * guard) continue;
    g_lo += guard, g_hi -= guard;
    /* the candidate nearest to [lo, hi) inside this gap */
    uint64_t c = g_hi <= lo ? (g_hi - len) & ~(uint64_t)0xfff : (g_lo + 0xfff) & ~(uint64_t)0xfff;
    if (c < g_lo || c + len > g_hi) continue;
    /* the whole span a rel32 must cross: stubs to functions and back */
    uint64_t span_lo = c < lo ? c : lo, span_hi = c + len > hi ? c + len : hi;
    uint64_t dist = span_hi - span_lo;
    if (dist < reach && dist < best_dist) best = c, best_dist = dist;
  }
  free(v);
  return best;
}

/* ------------------------------------------------------ tid offset -- */

uint32_t ep_probe_tid_offset(const struct asmspy_host_api *host, struct asmspy_target *t,
                             const pid_t *tids, const uint64_t *fs_bases, uint32_t n) {
  enum { SPAN = 2048 };
  static uint8_t hit[SPAN]; /* offsets where every thread so far matched */
  memset(hit, 1, sizeof hit);
  uint32_t seen = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!fs_bases[i]) return 0;
    uint8_t buf[SPAN];
    if (host->read_mem(t, fs_bases[i], buf, sizeof buf) != (ssize_t)sizeof buf) return 0;
    for (uint32_t off = 16; off + 4 <= SPAN; off += 4) {
      int32_t v;
      memcpy(&v, buf + off, 4);
      if (v != tids[i]) hit[off] = 0;
    }
    seen++;
  }
  uint32_t found = 0, count = 0;
  for (uint32_t off = 16; off + 4 <= SPAN; off += 4)
    if (hit[off]) {
      if (!found) found = off;
      count++;
    }
  /* one thread alone may match its tid in several places: trust a unique
   * answer only */
  return seen && count == 1 ? found : 0;
}
