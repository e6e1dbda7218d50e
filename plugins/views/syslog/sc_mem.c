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
