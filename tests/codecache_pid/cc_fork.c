/* cc_fork: a parent that makes children in a loop while it is traced
 * (tests/codecache_pid/fork_exec.sh). Harm protocol (tests/harm/harm.h).
 *   cc_fork fork    each round forks CHILDREN children; each computes
 *                   child_work and exits 0 when right (1 when wrong); the
 *                   parent waits for each and checks its status
 *   cc_fork vfork   each round vforks CHILDREN children that exec /bin/true
 *                   (status 0 expected)
 * After each child the parent calls parent_mark (a marker the stream must
 * show again and again: the parent keeps being traced). A child killed by a
 * signal, or exiting non-zero, makes the round CORRUPT. A forked child that
 * still maps asmspy's code cache (`asmspy-codecache` in its maps) exits 3:
 * counted, reported in a `note` line (not a corruption: the child's copy). */
#include "harm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define CHILDREN 8

static volatile unsigned long marks;
__attribute__((noinline)) void parent_mark(int status) { marks += (unsigned long)status + 1; }

__attribute__((noinline)) unsigned long child_work(unsigned long seed) {
  unsigned long x = seed;
  for (int i = 0; i < 20000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

static int has_cache_mapping(void) {
  FILE *f = fopen("/proc/self/maps", "re");
  char line[512];
  int found = 0;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "asmspy-codecache")) found = 1;
  if (f) fclose(f);
  return found;
}

int main(int argc, char **argv) {
  int use_vfork = argc > 1 && !strcmp(argv[1], "vfork");
  unsigned long want[CHILDREN];
  for (int c = 0; c < CHILDREN; c++) want[c] = child_work((unsigned long)c);
  harm_ready(CHILDREN);
  unsigned long mapped = 0;
  for (unsigned long n = 1;; n++) {
    unsigned long ok = 0;
    char why[200] = "";
    for (int c = 0; c < CHILDREN; c++) {
      pid_t p = use_vfork ? vfork() : fork();
      if (p == 0) {
        if (use_vfork) {
          execl("/bin/true", "true", (char *)NULL);
          _exit(127);
        }
        if (child_work((unsigned long)c) != want[c]) _exit(1);
        _exit(has_cache_mapping() ? 3 : 0);
      }
      int st = 0;
      if (p < 0) {
        snprintf(why, sizeof why, "child %d: %s returned %d (errno %d: %s)", c,
                 use_vfork ? "vfork" : "fork", (int)p, errno, strerror(errno));
        continue;
      }
      pid_t w = waitpid(p, &st, 0);
      if (w != p) {
        snprintf(why, sizeof why, "child %d: waitpid(%d) returned %d (errno %d: %s)", c, (int)p,
                 (int)w, errno, strerror(errno));
        continue;
      }
      parent_mark(st);
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        ok++;
      else if (!use_vfork && WIFEXITED(st) && WEXITSTATUS(st) == 3)
        ok++, mapped++;
      else if (WIFSIGNALED(st))
        snprintf(why, sizeof why, "child %d killed by signal %d", c, WTERMSIG(st));
      else
        snprintf(why, sizeof why, "child %d exited %d", c, WEXITSTATUS(st));
    }
    if (mapped) {
      printf("note children_with_cache_mapping=%lu\n", mapped);
      mapped = 0;
    }
    harm_round(n, ok, CHILDREN, why[0] ? why : "children right");
  }
}
