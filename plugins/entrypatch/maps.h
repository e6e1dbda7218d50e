/* maps.h: the target's /proc/<pid>/maps, read once per session (maps.c).
 * What may be patched is decided against it: a function must lie in an
 * executable file mapping, a module's code is the set of its executable
 * mappings, a thread's stack ends where its mapping ends. */
#ifndef ASMSPY_ENTRYPATCH_MAPS_H
#define ASMSPY_ENTRYPATCH_MAPS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct ep_mapping {
  uint64_t lo, hi; /* [lo, hi) */
  uint64_t offset; /* file offset of lo */
  uint64_t inode;
  uint32_t dev;     /* major << 16 | minor (what identifies the file with inode) */
  int exec;         /* 'x' in its permissions */
  const char *path; /* "" for anonymous memory; "[stack]", "/usr/lib/...", owned by the maps */
};

struct ep_maps {
  struct ep_mapping *v; /* in address order, as the kernel lists them */
  size_t n;
  char *paths; /* one arena for every path string */
};

/* Parse maps text (the format of /proc/<pid>/maps) from f. 0, or -1 (out of
 * memory); *m is then empty but valid for ep_maps_free. */
int ep_maps_parse(FILE *f, struct ep_maps *m);
/* /proc/<pid>/maps. 0, or -1 (the process is gone, out of memory). */
int ep_maps_read(pid_t pid, struct ep_maps *m);
void ep_maps_free(struct ep_maps *m);

/* The mapping holding addr, or NULL. */
const struct ep_mapping *ep_maps_find(const struct ep_maps *m, uint64_t addr);
/* Executable and backed by a file (a path, not "[vdso]" nor anonymous). */
int ep_mapping_is_exec_file(const struct ep_mapping *g);
/* The same file (device and inode; path when the inode is unknown). */
int ep_mapping_same_file(const struct ep_mapping *a, const struct ep_mapping *b);

#endif
