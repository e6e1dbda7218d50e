/* entrypatch: the call-tracing backend that injects an agent into a running
 * process and patches the entries of its functions, so calls are recorded
 * at native speed between the trampolines (uftrace's approach, without
 * recompiling and without launching: attach to any pid).
 *
 * Files:
 *   agent_layout.h  the memory the agent and asmspy share, and its layout
 *   agent.c         the agent: code that runs inside the target (thunks,
 *                   shadow stacks, rings)
 *   select.c        which functions (main executable + PLT by default)
 *   plan.c          can an entry be patched; relocating its prologue
 *   patchable.c     what only the whole process shows: branch targets in
 *                   the module (branchscan.c), ips saved on stacks
 *                   (savedips.c), over the process's maps (maps.c)
 *   runtime.c       runtimes that forbid patching (Go): refused whole
 *   region.c        the bytes of a code region (blob + stubs)
 *   inject.c        mapping memory into the target through the seam
 *   reader.c        draining the rings into ASMSPY_EV_CALL events
 *   agents.c        agents already in the process: a live one refused, a
 *                   killed session's leftovers undone first
 *   undo.c          taking an agent out: entries, hooked frames, memory
 *   proc_stat.c     a process's state and name (/proc/<pid>/stat)
 *   session.c       one capture: attach, install, run free, leave
 *   probe.c         the functional probe (the agent installed in itself) */
#include <asmspy/plugin.h>

#include "plugins/entrypatch/probe.h"
#include "plugins/entrypatch/session.h"

static const struct asmspy_backend_ops entrypatch_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = ep_session_run,
    .suits = ep_session_suits,
};

static const struct asmspy_plugin entrypatch_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "entrypatch",
    .description = "function calls at native speed: an injected agent patches function entries "
                   "(attach to a running pid)",
    .caps = ASMSPY_CAP_CALLS | ASMSPY_CAP_ATTACH_PID,
    .probe = ep_probe,
    .backend = &entrypatch_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(entrypatch_plugin)
