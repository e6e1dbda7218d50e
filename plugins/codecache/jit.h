/* Executable memory a JIT may patch under a translation (jit.c). */
#ifndef ASMSPY_CODECACHE_JIT_H
#define ASMSPY_CODECACHE_JIT_H

#include "plugins/codecache/cache.h"

#include <stddef.h>

/* 1 when the process has executable memory not backed by a file (other
 * than the code caches, the vDSO and vsyscall); *what says where. */
int cc_foreign_code(const struct cc_cache *c, char *what, size_t cap);
/* The same question of one maps file (/proc/<pid>/maps), uncached; c: the
 * caller's own cache chunks to skip, or NULL. */
int cc_scan_foreign(const char *maps, const struct cc_cache *c, char *what, size_t cap);

#endif
