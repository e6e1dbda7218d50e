/* jitranges.h: the program's JIT code, as ranges the agent checks a return
 * address against (agent_state.jit, layout 5).
 *
 * A managed runtime reads the return address of a call its generated code
 * makes into its own C/C++ runtime: HotSpot takes the last Java frame's pc
 * from the word under last_Java_sp and frame::sender() finds no code blob
 * at a hooked one (java 17 died of SIGSEGV in frame::sender under --graph
 * --module=libjvm); V8's exit frames do the same. Such calls are traced
 * entry only. The generated code lives in anonymous executable memory, and
 * the runtime reserves its code cache up front and commits it piece by
 * piece (HotSpot: one ReservedCodeCacheSize mapping, ---p until used), so a
 * range is an anonymous executable mapping grown over the anonymous
 * mappings next to it. */
#ifndef ASMSPY_ENTRYPATCH_JITRANGES_H
#define ASMSPY_ENTRYPATCH_JITRANGES_H

#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/maps.h"

#include <stddef.h>

/* Fill out[cap] with the JIT code ranges of m, largest first when there are
 * more than cap; no range takes in one of ours[nours] (the agent's own
 * mappings). Returns how many were written. */
size_t ep_jit_ranges(const struct ep_maps *m, const struct agent_mapping *ours, size_t nours,
                     struct agent_mapping *out, size_t cap);

#endif
