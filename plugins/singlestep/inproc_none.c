/* In-process single-step where the architecture has no user-settable trap
 * flag (AArch64): the singlestep backend's scope tier refuses, and says why.
 *
 * x86-64 steps the calling thread from inside the process by setting
 * EFLAGS.TF in its own flags (inproc.c). AArch64 single-step is
 * MDSCR_EL1.SS plus PSTATE.SS, both written only by the kernel (for a
 * ptrace tracer), so a process cannot step itself: the scope tier ladder
 * moves on to the next tier, and asmspy_scope_begin reports
 * ASMSPY_E_NO_HW with this reason when no tier is left. */
#include "plugins/singlestep/inproc.h"

int ss_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                    void **handle) {
  (void)host;
  (void)req;
  if (handle) *handle = NULL;
  return -ASMSPY_E_NO_HW; /* no user-settable single-step on this architecture */
}

int ss_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx) {
  (void)handle;
  (void)sink;
  (void)sink_ctx;
  return -ASMSPY_E_USAGE; /* begin never handed out a handle */
}
