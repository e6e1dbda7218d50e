/* intel_pt — the backend's entry points, one file each:
 *   intel_pt.c    descriptor, probe (functional: trace a child, decode it)
 *   pt_run.c      run(): a pid session (--stream etc.), one PT event per thread
 *   pt_inproc.c   inproc_begin/inproc_end: the STRONG scope tier
 * and their shared layers: pt_capture.c (perf event + AUX), pt_maps.c
 * (/proc/<pid>/maps, filters), pt_image.c (libipt image), pt_decode.c
 * (libipt decode -> events). */
#ifndef ASMSPY_INTEL_PT_H
#define ASMSPY_INTEL_PT_H

#include <asmspy/plugin.h>

#ifndef IPT_SYSFS_ROOT /* tests may point the backend at a fake sysfs tree */
#define IPT_SYSFS_ROOT "/sys/bus/event_source/devices"
#endif

int ipt_run(const struct asmspy_host_api *host, const struct asmspy_session *s);
int ipt_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                     void **handle);
int ipt_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx);

#endif
