/* common/exec_segment.h — which executable PT_LOAD segment of the
 * calling process holds a given address (dl_iterate_phdr).
 *
 * In-process capture (scopes) must drop its own code from a recording: the
 * singlestep plugin drops its trap handler's module, the host drops
 * libasmspy. Both ask "the [lo, hi) of the segment that contains this
 * function", here, once. Header-only: plugins never link the host. */
#ifndef ASMSPY_PLUGINS_COMMON_EXEC_SEGMENT_H
#define ASMSPY_PLUGINS_COMMON_EXEC_SEGMENT_H

#include <link.h>
#include <stdint.h>

struct exec_segment_query {
  uint64_t addr;   /* in */
  uint64_t lo, hi; /* out: 0, 0 when no executable segment holds addr */
};

static inline int exec_segment_visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct exec_segment_query *q = (struct exec_segment_query *)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (q->addr >= lo && q->addr < hi) {
      q->lo = lo;
      q->hi = hi;
      return 1;
    }
  }
  return 0;
}

/* [*lo, *hi) of the executable segment holding addr; returns 0 when found. */
static inline int exec_segment_of(const void *addr, uint64_t *lo, uint64_t *hi) {
  struct exec_segment_query q = {(uint64_t)(uintptr_t)addr, 0, 0};
  dl_iterate_phdr(exec_segment_visit, &q);
  *lo = q.lo;
  *hi = q.hi;
  return q.hi ? 0 : -1;
}

#endif
