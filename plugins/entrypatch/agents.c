/* agents.c: agents already in a process (see agents.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/agents.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/proc_stat.h"
#include "plugins/entrypatch/undo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An anonymous executable mapping: no path, or a [anon:name] one. */
static int anon_exec_line(const char *line, uint64_t *lo, uint64_t *hi, char *name, size_t cap) {
  unsigned long long a, b;
  char perms[8] = "";
  int off = 0;
  if (sscanf(line, "%llx-%llx %7s %*s %*s %*s%n", &a, &b, perms, &off) < 3 || perms[2] != 'x')
    return 0;
  const char *path = line + off;
  while (*path == ' ' || *path == '\t') path++;
  size_t n = strcspn(path, "\n");
  if (n && strncmp(path, "[anon:", 6) != 0) return 0; /* a file, [vdso], [stack]... */
  snprintf(name, cap, "%.*s", (int)n, path);
  *lo = a, *hi = b;
  return 1;
}

int ep_anon_exec_load(pid_t pid, struct ep_anon_exec *m) {
  memset(m, 0, sizeof *m);
  char path[64], line[1024], name[256];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t cap = 0;
  uint64_t lo, hi;
  while (fgets(line, sizeof line, f)) {
    if (!anon_exec_line(line, &lo, &hi, name, sizeof name)) continue;
    if (m->n == cap) {
      cap = cap ? cap * 2 : 16;
      void *nv = realloc(m->v, cap * sizeof *m->v);
      if (!nv) break;
      m->v = nv;
    }
    m->v[m->n].lo = lo, m->v[m->n].hi = hi;
    m->n++;
  }
  fclose(f);
  return 0;
}

void ep_anon_exec_free(struct ep_anon_exec *m) {
  free(m->v);
  memset(m, 0, sizeof *m);
}

int ep_foreign_jump(const struct ep_anon_exec *m, uint64_t addr, const uint8_t *bytes, size_t n,
                    uint64_t *to) {
  uint64_t t;
  if (n >= 5 && bytes[0] == 0xe9) {
    int32_t rel;
    memcpy(&rel, bytes + 1, 4);
    t = addr + 5 + (uint64_t)(int64_t)rel;
  } else if (n >= 2 && bytes[0] == 0xeb) {
    t = addr + 2 + (uint64_t)(int64_t)(int8_t)bytes[1];
  } else {
    return 0;
  }
  for (size_t i = 0; i < m->n; i++)
    if (t >= m->v[i].lo && t < m->v[i].hi) {
      *to = t;
      return 1;
    }
  return 0;
}

/* Is the asmspy that owns an agent still running? (its pid alive and not
 * a zombie, and still an asmspy: a reused pid is not) */
static int owner_alive(pid_t owner) {
  char state, comm[32];
  if (owner <= 0 || (kill(owner, 0) != 0 && errno != EPERM)) return 0;
  if (ep_proc_stat(owner, &state, comm, sizeof comm) != 0 || state == 'Z' || state == 'X') return 0;
  return strncmp(comm, "asmspy", 6) == 0;
}

/* What stands in a session's way: each agent found is refused (-1, why)
 * or, with rem, undone. Without rem nothing is changed (a look only). */
static int agents_walk(const struct asmspy_host_api *host, struct asmspy_target *target, pid_t pid,
                       struct ep_remote *rem, uint32_t *undone, uint32_t *restored, int *inside,
                       char *why, size_t whycap) {
  *undone = *restored = 0;
  *inside = 0;
  char path[64], line[1024], name[256];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return 0; /* the attach says why */
  /* collect first: undoing unmaps, and /proc/pid/maps must not change under us */
  struct {
    uint64_t lo;
    char name[64];
  } found[64];
  size_t nfound = 0;
  uint64_t lo, hi;
  while (nfound < 64 && fgets(line, sizeof line, f))
    if (anon_exec_line(line, &lo, &hi, name, sizeof name)) {
      found[nfound].lo = lo;
      snprintf(found[nfound].name, sizeof found[nfound].name, "%.63s", name);
      nfound++;
    }
  fclose(f);
  for (size_t i = 0; i < nfound; i++) {
    uint64_t head[2]; /* code magic, state address */
    if (host->read_mem(target, found[i].lo, head, sizeof head) != (ssize_t)sizeof head) continue;
    if (AGENT_MAGIC_KIND(head[0]) != AGENT_MAGIC_KIND(AGENT_CODE_MAGIC)) {
      if (strstr(found[i].name, "asmspy-agent-code")) { /* an asmspy from before the magic */
        snprintf(why, whycap,
                 "an entrypatch agent of an older asmspy is in this process (%s at 0x%llx): its "
                 "patches cannot be read back; restart the program, or use --backend=singlestep",
                 found[i].name, (unsigned long long)found[i].lo);
        return -1;
      }
      continue;
    }
    if (AGENT_MAGIC_VERSION(head[0]) != AGENT_LAYOUT_VERSION) {
      snprintf(why, whycap,
               "an entrypatch agent of another asmspy version (layout %u, this one reads %u) is "
               "in this process at 0x%llx: restart the program, or use --backend=singlestep",
               AGENT_MAGIC_VERSION(head[0]), AGENT_LAYOUT_VERSION, (unsigned long long)found[i].lo);
      return -1;
    }
    struct {
      uint64_t magic, gate;
    } st;
    int32_t owner = 0;
    uint64_t armed = 0;
    if (host->read_mem(target, head[1], &st, sizeof st) != (ssize_t)sizeof st ||
        st.magic != AGENT_MAGIC)
      continue; /* a half-written install (killed before the state was written): its
                   jumps were never written either (they come last) */
    host->read_mem(target, head[1] + offsetof(struct agent_state, owner_pid), &owner, sizeof owner);
    if (st.gate)
      host->read_mem(target, st.gate + offsetof(struct agent_gate, armed), &armed, sizeof armed);
    if (armed && owner != getpid() && owner_alive(owner)) {
      snprintf(why, whycap,
               "another asmspy (pid %d) is tracing calls in this process (one call agent per "
               "process)",
               (int)owner);
      return -1;
    }
    struct ep_undo_report rep;
    if (rem && ep_undo_agent(rem, head[1], 0, &rep) == 0) {
      if (getenv("ASMSPY_ENTRYPATCH_DEBUG"))
        fprintf(stderr, "entrypatch: undid the agent at 0x%llx: %u restored, %u unhooked, %s\n",
                (unsigned long long)found[i].lo, rep.restored, rep.unhooked,
                rep.unmapped ? "unmapped" : rep.kept);
      (*undone)++;
      *restored += rep.restored;
      *inside |= !rep.unmapped && rep.inside;
    }
  }
  return 0;
}

int ep_agents_clear(struct ep_remote *rem, uint32_t *undone, uint32_t *restored, int *inside,
                    char *why, size_t whycap) {
  return agents_walk(rem->host, rem->target, rem->pid, rem, undone, restored, inside, why, whycap);
}

int ep_agents_in_the_way(const struct asmspy_host_api *host, struct asmspy_target *target,
                         pid_t pid, char *why, size_t whycap) {
  uint32_t undone, restored;
  int inside;
  return agents_walk(host, target, pid, NULL, &undone, &restored, &inside, why, whycap);
}
