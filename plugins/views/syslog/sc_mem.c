/* sc_mem.c — memory: mmap, mprotect, munmap, brk.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

/* ---- memory ---- */
#define K_MAP_TYPE 0xfu
#define K_MAP_HUGETLB 0x40000u
#define K_MAP_HUGE_SHIFT 26
#define K_MAP_HUGE_MASK 0x3fu

static void put_mmap_flags(struct ob *o, uint64_t v) {
  uint64_t huge = 0;
  v = (uint32_t)v;
  if (v & K_MAP_HUGETLB) { /* the page-size field shares bits with MAP_UNINITIALIZED */
    huge = (v >> K_MAP_HUGE_SHIFT) & K_MAP_HUGE_MASK;
    v &= ~((uint64_t)K_MAP_HUGE_MASK << K_MAP_HUGE_SHIFT);
  }
  put_field_flags(o, sc_mmap_type, K_MAP_TYPE, sc_mmap_flags, v);
  if (huge) ob_printf(o, "|%llu<<MAP_HUGE_SHIFT", (unsigned long long)huge);
}

void en_mmap(struct dc *d) { /* mmap(addr, len, prot, flags, fd, offset) */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_mmap_prot, (uint32_t)A(2), "PROT_NONE");
  next(d);
  put_mmap_flags(d->o, A(3));
  next(d);
  put_fd(d, A(4));
  next(d);
  put_xnum(d->o, A(5));
}
void en_mprotect(struct dc *d) { /* mprotect(addr, len, prot) */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_mmap_prot, (uint32_t)A(2), "PROT_NONE");
}
void en_addr_len(struct dc *d) { /* munmap(addr, len), set_robust_list */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
}
void en_addr(struct dc *d) { put_addr(d->o, A(0)); } /* brk, set_tid_address */

/* ==== issue 26 part B: advice, locks, mincore, mremap, membarrier, pkeys === */
void en_madvise(struct dc *d) { /* madvise(addr, len, advice) */
  en_addr_len(d);
  next(d);
  put_xval_q(d->o, sc_madvise_cmds, (uint32_t)A(2), "MADV_???");
}
void en_msync(struct dc *d) { /* msync(addr, len, flags) */
  en_addr_len(d);
  next(d);
  put_flags_q(d->o, sc_msync_flags, (uint32_t)A(2), "MS_???");
}
void en_mlock2(struct dc *d) { /* mlock2(addr, len, flags) */
  en_addr_len(d);
  next(d);
  put_flags_q(d->o, sc_mlock_flags, (uint32_t)A(2), "MLOCK_???");
}
void en_mlockall(struct dc *d) { put_flags_q(d->o, sc_mlockall_flags, (uint32_t)A(0), "MCL_???"); }

/* mincore(addr, len, vec): one residency bit per page, the array at the exit
 * (as many elements as the string limit, then "...") */
void en_mincore(struct dc *d) { en_addr_len(d); }
void ex_mincore(struct dc *d) {
  struct ob *o = d->o;
  uint64_t len = A(1), vec = A(2);
  uint64_t n = len / SC_PAGE + ((len & (SC_PAGE - 1)) ? 1 : 0);
  unsigned char v[SC_STR_MAX];
  next(d);
  if (!vec || !OUT_OK(d) || !n) {
    if (vec && OUT_OK(d) && !n)
      ob_puts(o, "[]");
    else
      put_addr(o, vec);
    return;
  }
  size_t lim = d->c->priv_strlim ? d->c->priv_strlim : SC_STR_MAX;
  if (lim > sizeof v) lim = sizeof v;
  size_t want = n > lim ? lim : (size_t)n;
  size_t got = mem_upto(d, vec, v, want);
  if (!got) {
    put_addr(o, vec);
    return;
  }
  ob_putc(o, '[');
  for (size_t i = 0; i < got; i++) ob_printf(o, i ? ", %u" : "%u", v[i] & 1u);
  if (got < want)
    ob_printf(o, ", ... /* %#llx */", (unsigned long long)(vec + got));
  else if (want < n)
    ob_puts(o, ", ...");
  ob_putc(o, ']');
}

void en_mremap(struct dc *d) { /* mremap(old, old_len, new_len, flags[, new_addr]) */
  put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_ulong(d->o, A(2));
  next(d);
  put_flags_q(d->o, sc_mremap_flags, A(3), "MREMAP_???");
  if ((A(3) & 3) == 3) {
    next(d);
    put_addr(d->o, A(4));
  }
}

/* membarrier(cmd, flags[, cpu_id]): the QUERY result is a command set */
void en_membarrier(struct dc *d) {
  uint32_t cmd = (uint32_t)A(0), flags = (uint32_t)A(1);
  if (cmd == 0)
    ob_puts(d->o, "MEMBARRIER_CMD_QUERY");
  else
    put_xval_q(d->o, sc_membarrier_cmds, cmd, "MEMBARRIER_CMD_???");
  next(d);
  put_flags_q(d->o, sc_membarrier_flags, flags, "MEMBARRIER_CMD_FLAG_???");
  if (flags & 1) {
    next(d);
    put_int(d->o, A(2));
  }
}
void rt_membarrier(struct dc *d) {
  if ((uint32_t)A(0) != 0 || d->ret == 0) {
    put_long(d->o, (uint64_t)d->ret);
    return;
  }
  put_xnum(d->o, (uint64_t)d->ret);
  ob_puts(d->o, " (");
  put_flags_q(d->o, sc_membarrier_cmds, (uint64_t)d->ret, NULL);
  ob_putc(d->o, ')');
}

void en_pkey_alloc(struct dc *d) { /* pkey_alloc(flags, access_rights) */
  if (A(0))                        /* no flags are defined */
    put_xnum(d->o, A(0));
  else
    ob_putc(d->o, '0');
  next(d);
  put_flags_q(d->o, sc_pkey_access, A(1), "PKEY_???");
}
void en_pkey_mprotect(struct dc *d) { /* pkey_mprotect(addr, len, prot, pkey) */
  en_mprotect(d);
  next(d);
  put_int(d->o, A(3));
}
