/* session.h: one call capture (session.c). */
#ifndef ASMSPY_ENTRYPATCH_SESSION_H
#define ASMSPY_ENTRYPATCH_SESSION_H

#include <asmspy/plugin.h>

/* backend_ops.run of entrypatch. */
int ep_session_run(const struct asmspy_host_api *host, const struct asmspy_session *s);

#endif
