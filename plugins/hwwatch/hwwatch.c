/* hwwatch — capture backend: data watchpoints in the CPU debug registers
 * (x86-64 DR0-3 through PTRACE_POKEUSER, AArch64 NT_ARM_HW_WATCH through
 * PTRACE_SETREGSET): who touches a field, and the value, while the target
 * runs at native speed between hits.
 *
 * This file is the descriptor and entry point; the map of the other files
 * is hwwatch.h. The probe is functional (arm, let a child write, count the
 * hits): in some KVM guests the debug registers accept DR7 but never fire,
 * and only firing proves them.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"
#include "plugins/hwwatch/hwwatch.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
int hw_probe_impl(const struct asmspy_seam_api *seam, struct asmspy_probe_result *res) {
  (void)seam;
  return pp_verdict(res, ASMSPY_E_NO_HW, 0, 0,
                    "hardware watchpoints are supported on x86-64 and AArch64 only");
}
#endif

static int hw_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  /* the probe traces a child of its own, spawned and driven by the seam */
  return hw_probe_impl(host->seam, res);
}

static const struct asmspy_backend_ops hw_backend_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_backend_ops),
    .run = hw_run,
};

static const struct asmspy_plugin hw_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = (uint32_t)sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = HW_NAME,
    .description = "data watchpoints in the CPU debug registers: who writes a field, and the "
                   "value (x86-64 DR0-3, AArch64 NT_ARM_HW_WATCH)",
    .caps = HW_CAPS,
    .probe = hw_probe,
    .backend = &hw_backend_ops,
    .view = NULL,
    .plugin_version = "0.2.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(hw_plugin)
