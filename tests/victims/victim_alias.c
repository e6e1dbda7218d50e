/* victim_alias: runs one of its own functions through a second mapping of
 * its own executable, the way node runs its embedded builtins from a second
 * copy of /usr/bin/node mapped elsewhere.
 *
 * It finds the executable mapping of its own file that holds alias_target(),
 * maps the same file pages again (PROT_READ|PROT_EXEC, MAP_PRIVATE, same
 * file offset) at another address, and then calls alias_target through the
 * second copy in a loop. alias_target touches no data and calls nothing, so
 * the copy runs as well as the original.
 *
 * Where the copy goes:
 *   high  wherever mmap puts it (the mmap area, above the executable): libdw
 *         groups it with the executable's own mappings into one module
 *   low   below the executable (MAP_FIXED_NOREPLACE): the copy is the first
 *         mapping of the file /proc/<pid>/maps lists, so a loader that takes
 *         the load bias from a module's first mapping gets it wrong for the
 *         whole executable
 *
 * Output: line 1 the pid, line 2 "alias 0x<copy of alias_target>
 * 0x<alias_target> 0x<copy start> 0x<copy end>".
 * Usage: victim_alias [high|low] [sleep_us=1000] [iterations=-1 (forever)] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) long alias_target(long x) {
  long acc = 0;
  for (long i = 0; i < 8; i++) acc += x * i + (acc >> 3);
  return acc;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  const char *where = argc > 1 ? argv[1] : "high";
  long sleep_us = argc > 2 ? atol(argv[2]) : 1000;
  long iterations = argc > 3 ? atol(argv[3]) : -1;
  uint64_t fn = (uint64_t)(uintptr_t)&alias_target;

  /* The executable mapping holding alias_target, and the lowest address of
   * any mapping of the file (the copy goes below that in "low" mode). */
  FILE *maps = fopen("/proc/self/maps", "re");
  if (!maps) die("/proc/self/maps");
  char line[4096], path[4096] = "";
  unsigned long long start = 0, end = 0, offset = 0, lowest = 0;
  int found = 0;
  while (fgets(line, sizeof line, maps)) {
    unsigned long long s, e, o;
    char perms[8];
    int name_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &o, &name_at) < 4) continue;
    char *name = line + name_at;
    name[strcspn(name, "\n")] = 0;
    if (!found && fn >= s && fn < e && strchr(perms, 'x') && name[0] == '/') {
      start = s, end = e, offset = o, found = 1;
      snprintf(path, sizeof path, "%s", name);
    }
  }
  fclose(maps);
  if (!found) die("no executable mapping holds alias_target");
  maps = fopen("/proc/self/maps", "re");
  if (!maps) die("/proc/self/maps");
  while (fgets(line, sizeof line, maps)) {
    unsigned long long s;
    if (strstr(line, path) && sscanf(line, "%llx-", &s) == 1 && (!lowest || s < lowest)) lowest = s;
  }
  fclose(maps);

  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  size_t len = (size_t)(end - start);
  void *hint = NULL;
  int flags = MAP_PRIVATE;
  if (strcmp(where, "low") == 0) {
    hint = (void *)(uintptr_t)((lowest - 0x40000000ull) & ~0xfffull);
    flags |= MAP_FIXED_NOREPLACE;
  }
  void *copy = mmap(hint, len, PROT_READ | PROT_EXEC, flags, fd, (off_t)offset);
  if (copy == MAP_FAILED) die("mmap copy");
  close(fd);
  long (*through_copy)(long) = (long (*)(long))((uintptr_t)copy + (fn - start));

  printf("%d\n", (int)getpid());
  printf("alias 0x%llx 0x%llx 0x%llx 0x%llx\n", (unsigned long long)(uintptr_t)through_copy,
         (unsigned long long)fn, (unsigned long long)(uintptr_t)copy,
         (unsigned long long)(uintptr_t)copy + len);
  fflush(stdout);
  for (long i = 0; iterations < 0 || i < iterations; i++) {
    sink = through_copy(i);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
