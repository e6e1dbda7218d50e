/* plugins/common/pmu_model.h — what the silicon has versus what the kernel
 * (or the hypervisor under it) exposes, for the hardware backends' "why not"
 * reasons (intel_pt, amd_ibs, amd_lbr).
 *
 * A missing /sys/bus/event_source/devices/<pmu> alone cannot tell "this CPU
 * has no Intel PT" from "a hypervisor hides it" from "the driver did not
 * bind". Two independent witnesses can:
 *   - CPUID, which names the silicon's features (a hypervisor may mask bits,
 *     but a set bit the kernel does not use is evidence against the kernel);
 *   - libpfm4, which identifies the core PMU model from the CPU's
 *     family/model (pfm_get_pmu_info: is_present), independently of the
 *     kernel's own PMU registration.
 *
 * Compiled into each backend that needs it (plugins never link each other);
 * the reason composition is pure (pmu_model_reason) so it is tested offline
 * with synthesized CPUID values and PMU lists.
 */
#ifndef ASMSPY_PLUGINS_COMMON_PMU_MODEL_H
#define ASMSPY_PLUGINS_COMMON_PMU_MODEL_H

#include <stddef.h>

/* The silicon as CPUID and libpfm4 describe it. Zero / "" = not known. */
struct pmu_model {
  char vendor[13];          /* CPUID.0: "GenuineIntel", "AuthenticAMD" */
  char brand[49];           /* CPUID.80000002-4, "(R)"/"(TM)" dropped: "Intel Xeon Processor" */
  unsigned family, model;   /* CPUID.1, display family/model */
  int guest;                /* CPUID.1:ECX[31], the hypervisor-present bit */
  char hypervisor[13];      /* CPUID.40000000 signature: "KVMKVMKVM", "" on bare metal */
  unsigned perfmon_version; /* Intel CPUID.0A:EAX[7:0]: 0 = no architectural PMU offered */
  unsigned gp_counters;     /* Intel CPUID.0A:EAX[15:8] */
  int intel_pt;             /* CPUID.(7,0):EBX[25] */
  int pt_topa;           /* CPUID.(14h,0):ECX[0]: ToPA output, which the kernel's PT driver needs */
  int arch_lbr;          /* Intel CPUID.(7,0):EDX[19] */
  int ibs;               /* AMD CPUID.80000001:ECX[10] */
  unsigned ibs_caps;     /* AMD CPUID.8000001B:EAX: bit 0 = the capability bits are valid */
  int perfctr_core;      /* AMD CPUID.80000001:ECX[23]: the core PMU extension */
  int brs;               /* AMD CPUID.80000008:EBX[31]: Zen 3 branch sampling */
  int lbr_v2;            /* AMD CPUID.80000022:EAX[1]: LbrExtV2 (Zen 4) */
  unsigned lbr_v2_depth; /* AMD CPUID.80000022:EBX[9:4] */
  int pfm_ok;            /* pfm_initialize succeeded */
  char pfm_core[64];     /* libpfm4's present core PMUs ("icl"), "" when none */
};

/* The kernel's side, as the probe measured it. */
struct pmu_kernel_view {
  const char *pmus; /* the PMUs the kernel registered ("breakpoint,msr,...") */
  int core_pmu;     /* 1 when a core "cpu" PMU is registered */
};

enum pmu_feature {
  PMU_FEAT_INTEL_PT,     /* intel_pt PMU */
  PMU_FEAT_AMD_IBS,      /* ibs_op PMU */
  PMU_FEAT_BRANCH_STACK, /* cpu/caps/branches: LbrExtV2, BRS, Intel LBR */
};

/* Fill m from this CPU (CPUID; zeros elsewhere than x86) and from libpfm4. */
void pmu_model_read(struct pmu_model *m);
void pmu_model_read_cpuid(struct pmu_model *m);
void pmu_model_read_pfm(struct pmu_model *m);

/* 1 when CPUID says the silicon has the feature (a masking hypervisor
 * makes this 0 too: the reason says so). */
int pmu_model_has(const struct pmu_model *m, enum pmu_feature f);

/* "Intel Xeon Processor, family 6 model 0x6a, libpfm4 PMU: icl" */
void pmu_model_cpu_text(const struct pmu_model *m, char *buf, size_t cap);

/* One reason line for a missing feature PMU: `lead` first (the backend's
 * established prefix, e.g. "no intel_pt PMU: <path> missing"), then what the
 * silicon has per CPUID and libpfm4, then who withholds it (hypervisor,
 * kernel driver, or the silicon itself), then the PMUs the kernel has.
 * Returns the status the reason stands for: ASMSPY_E_NO_KERNEL when the
 * silicon has the feature (it is withheld above the hardware), else
 * ASMSPY_E_NO_HW. */
int pmu_model_reason(enum pmu_feature f, const struct pmu_model *m, const struct pmu_kernel_view *k,
                     const char *lead, char *buf, size_t cap);

/* The probes' entry: read this machine's model (CPUID, libpfm4, and the
 * /proc/cpuinfo flag the kernel derived, which counts as a witness too), the
 * PMUs registered under root (a core PMU = root/cpu), and compose the reason
 * led by `lead` (which names the missing file) into buf. Returns pmu_model_reason's status. */
int pmu_model_explain_missing(enum pmu_feature f, const char *root, const char *lead, char *buf,
                              size_t cap);

#endif /* ASMSPY_PLUGINS_COMMON_PMU_MODEL_H */
