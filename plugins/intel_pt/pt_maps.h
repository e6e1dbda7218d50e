/* pt_maps — /proc/<pid>/maps as data, for the two things Intel PT needs from
 * a process's address space:
 *   - which executable mappings are backed by a file libipt can map itself
 *     (pt_image.c adds those as file sections; the rest is read from memory),
 *   - how to say "this code region" to the kernel's address filter
 *     (PERF_EVENT_IOC_SET_FILTER): a file offset in the backing object, which
 *     survives ASLR and re-mapping, or a plain virtual range for anonymous code.
 */
#ifndef ASMSPY_INTEL_PT_MAPS_H
#define ASMSPY_INTEL_PT_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PTM_READ 1u
#define PTM_WRITE 2u
#define PTM_EXEC 4u

struct ptm_map {
  uint64_t start, end; /* [start, end) */
  uint64_t offset;     /* file offset of start */
  uint32_t prot;       /* PTM_READ | PTM_WRITE | PTM_EXEC */
  uint32_t dev_major, dev_minor;
  uint64_t inode; /* 0: anonymous */
  char *path;     /* "/usr/lib/libc.so.6", "[vdso]", "" (anonymous) */
};

struct ptm_maps {
  struct ptm_map *v;
  size_t n;
};

/* Parse a maps file (the kernel's format, show_map_vma). Returns 0, or
 * -errno (the file could not be read; ENOMEM). Lines that do not parse are
 * skipped: a maps file is read while the process runs. */
int ptm_read(const char *maps_path, struct ptm_maps *out);
/* The same from text already in memory (tests, and ptm_read itself). */
int ptm_parse(const char *text, struct ptm_maps *out);
void ptm_free(struct ptm_maps *m);

/* The mapping containing addr, or NULL. */
const struct ptm_map *ptm_find(const struct ptm_maps *m, uint64_t addr);

/* 1 when the mapping is backed by a regular file that can be opened under
 * the same path from here (the path starts with '/', is not "(deleted)", and
 * stat() agrees on the inode); libipt can then map the code itself. */
int ptm_is_file_backed(const struct ptm_map *m);

/* The PERF_EVENT_IOC_SET_FILTER string that traces only [start, start+len):
 *   "filter 0x<file offset>/0x<len>@<path>"  when one file-backed mapping
 *                                            covers the whole range;
 *   "filter 0x<start>/0x<len>"                otherwise (anonymous / JIT code:
 *                                            the address form; the kernel
 *                                            accepts it for user addresses
 *                                            since Linux 5.18).
 * The file form is refused for paths the filter grammar cannot carry
 * (whitespace or ','). Returns 1 for the file form, 0 for the address form,
 * -EINVAL for an empty range or an overflowing buffer. */
int ptm_filter_string(const struct ptm_maps *m, uint64_t start, uint64_t len, char *buf,
                      size_t cap);

#endif
