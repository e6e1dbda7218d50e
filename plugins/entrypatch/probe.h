/* probe.h: entrypatch's functional probe (probe.c). */
#ifndef ASMSPY_ENTRYPATCH_PROBE_H
#define ASMSPY_ENTRYPATCH_PROBE_H

#include <asmspy/plugin.h>

int ep_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res);

#endif
