/* session.h: one call capture (session.c). */
#ifndef ASMSPY_ENTRYPATCH_SESSION_H
#define ASMSPY_ENTRYPATCH_SESSION_H

#include <asmspy/plugin.h>

/* backend_ops.run of entrypatch. */
int ep_session_run(const struct asmspy_host_api *host, const struct asmspy_session *s);
/* backend_ops.suits (1.11): ASMSPY_FACT_UNSUITED with why for a target the
 * agent must not go into (a runtime that walks or moves its stacks, another
 * asmspy's live agent); the run refuses the same ones. */
int ep_session_suits(const struct asmspy_host_api *host, const struct asmspy_session *s, char *why,
                     size_t whycap);

#endif
