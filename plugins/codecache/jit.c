/* jit.c — does this process run code that may change under a translation?
 *
 * The code cache holds copies. A JIT (HotSpot, Mono, V8, .NET) writes and
 * then patches its code in place — call sites re-aimed once the callee is
 * compiled, inline caches, entry barriers — and a stale copy then runs the
 * old code: Mono's trampolines assert, HotSpot faults. Such code lives in
 * executable memory that belongs to no file: anonymous mappings, memfd
 * double maps, deleted files. When the process has any (besides this
 * backend's own code chunks, the vDSO and vsyscall), codecache declines
 * the scope with ASMSPY_FACT_UNSUITED and the host takes the next tier
 * (singlestep), which steps whatever runs.
 *
 * /proc/self/maps is read at most every 200 ms (a loop of scopes must not
 * pay it each time); a JIT that appears later is seen at the next read. */
#define _GNU_SOURCE
#include "plugins/codecache/jit.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECHECK_NS 200000000ull

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_checked_ns;
static int g_found;
static char g_what[160];

static uint64_t coarse_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int ours(const struct cc_cache *c, uint64_t lo) {
  for (unsigned i = 0; c && i < c->nchunks; i++)
    if (lo >= (uint64_t)(uintptr_t)c->chunks[i].base &&
        lo < (uint64_t)(uintptr_t)c->chunks[i].base + c->chunks[i].size)
      return 1;
  return 0;
}

/* Every thread's cache is ours too; only this thread's is known here, so a
 * chunk of another thread's cache counts as foreign unless it is rwx and
 * exactly a chunk's size: codecache maps nothing else that way. */
int cc_scan_foreign(const char *maps, const struct cc_cache *c, char *what, size_t cap) {
  FILE *f = fopen(maps, "re");
  if (!f) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long long lo, hi;
    char perms[8] = "";
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &lo, &hi, perms, &path_at) < 3) continue;
    if (!strchr(perms, 'x')) continue;
    const char *path = path_at ? line + path_at : "";
    size_t n = strlen(path);
    while (n && (path[n - 1] == '\n' || path[n - 1] == ' ')) n--;
    int anon = n == 0, memfd = !strncmp(path, "/memfd:", 7),
        deleted = n > 10 && !strncmp(path + n - 9, "(deleted)", 9);
    if (!strncmp(path, "[vdso]", 6) || !strncmp(path, "[vsyscall]", 10)) continue;
    if (!(anon || memfd || deleted || path[0] == '[')) continue;
    if (ours(c, lo)) continue;
    if (strstr(path, "asmspy-codecache")) continue; /* a traced process's cache (remote.c) */
    if (anon && !strcmp(perms, "rwxp") && hi - lo == CC_CHUNK_SIZE)
      continue; /* another thread's cache */
    snprintf(what, cap, "executable memory not backed by a file at 0x%llx-0x%llx %s%s%.*s (a JIT)",
             lo, hi, perms, n ? " " : "", (int)n, path);
    found = 1;
  }
  fclose(f);
  return found;
}

int cc_foreign_code(const struct cc_cache *c, char *what, size_t cap) {
  uint64_t now = coarse_ns();
  pthread_mutex_lock(&g_lock);
  if (!g_checked_ns || now - g_checked_ns >= RECHECK_NS) {
    g_found = cc_scan_foreign("/proc/self/maps", c, g_what, sizeof g_what);
    g_checked_ns = now;
  }
  int found = g_found;
  if (found && what) snprintf(what, cap, "%s", g_what);
  pthread_mutex_unlock(&g_lock);
  return found;
}
