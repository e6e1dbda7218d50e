/* In-process single-step of the calling thread (scopes): EFLAGS.TF plus a
 * SIGTRAP handler. The backend_ops inproc_begin/inproc_end of the singlestep
 * plugin (ABI 1.4). See inproc.c and docs/scope.md. */
#ifndef ASMSPY_SINGLESTEP_INPROC_H
#define ASMSPY_SINGLESTEP_INPROC_H

#include <asmspy/plugin.h>

int ss_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                    void **handle);
int ss_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx);

#endif
