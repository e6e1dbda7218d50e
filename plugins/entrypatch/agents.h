/* agents.h: agents already in a process (agents.c), found before a session
 * patches anything. One agent per process: a second session must never
 * patch over another's jumps (its leave would then restore the other's
 * bytes, or leave frames returning into memory the other unmaps).
 *
 * An agent is an anonymous executable mapping that starts with an
 * AGENT_CODE_MAGIC (agent_layout.h). What is done with one:
 *   - its reader (owner_pid, an asmspy) is alive and its gate armed: a
 *     live session. Refused, naming the other asmspy;
 *   - another layout version (or a mapping named by an older asmspy that
 *     had no magic): its state cannot be read. Refused, with the reason;
 *   - otherwise it was left behind (its asmspy killed with its supervisor,
 *     or memory kept because a thread was inside it at the leave): undone
 *     first (undo.c), so the new session starts from the program's own
 *     code. */
#ifndef ASMSPY_ENTRYPATCH_AGENTS_H
#define ASMSPY_ENTRYPATCH_AGENTS_H

#include "plugins/entrypatch/inject.h"

#include <stddef.h>
#include <stdint.h>

/* Find and handle every agent in rem's process (every thread stopped).
 * Returns 0 (nothing left in the way; *undone counts the agents taken
 * out, *restored their entries put back; *inside: one could not be taken
 * out yet because a thread stood inside its code: let the target run a
 * moment and call again), or -1 with why when the session must not go on. */
int ep_agents_clear(struct ep_remote *rem, uint32_t *undone, uint32_t *restored, int *inside,
                    char *why, size_t whycap);

/* The same look without attaching or changing anything (the backend's
 * suits()): -1 with why when an agent would refuse the session. */
int ep_agents_in_the_way(const struct asmspy_host_api *host, struct asmspy_target *target,
                         pid_t pid, char *why, size_t whycap);

/* The process's anonymous executable mappings (read once per session). */
struct ep_anon_exec {
  struct {
    uint64_t lo, hi;
  } * v;
  size_t n;
};
int ep_anon_exec_load(pid_t pid, struct ep_anon_exec *m);
void ep_anon_exec_free(struct ep_anon_exec *m);

/* Do the first bytes of the function at addr jump into anonymous
 * executable memory (another tool's trampoline; ours are gone after
 * ep_agents_clear)? 1 with the jump's target in *to. */
int ep_foreign_jump(const struct ep_anon_exec *m, uint64_t addr, const uint8_t *bytes, size_t n,
                    uint64_t *to);

#endif
