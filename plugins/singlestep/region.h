/* Region capture (region.c): whole invocations of one code region. */
#ifndef ASMSPY_SINGLESTEP_REGION_H
#define ASMSPY_SINGLESTEP_REGION_H
#include <asmspy/plugin.h>
int region_run(const struct asmspy_host_api *host, const struct asmspy_session *s);
#endif
