/* plugins/common/pmu_model.c — CPUID and libpfm4 as witnesses for the
 * hardware backends' reasons (see pmu_model.h).
 *
 * CPUID leaves (Intel SDM vol. 2A "CPUID"; AMD APM vol. 3 appendix E):
 *   0            vendor;  1: family/model, ECX[31] hypervisor present
 *   (7,0)        EBX[25] Intel PT, EDX[19] Arch LBR
 *   (14h,0)      ECX[0] PT ToPA output (valid when 7:EBX[25] is set)
 *   0Ah          EAX[7:0] architectural perfmon version, EAX[15:8] counters
 *   40000000h    hypervisor signature (EBX,ECX,EDX)
 *   80000001h    ECX[10] IBS, ECX[23] PerfCtrExtCore
 *   80000002-4h  brand string
 *   80000008h    EBX[31] BRS (Zen 3)
 *   8000001Bh    EAX IBS capabilities, bit 0 IBSFFV (valid when IBS is set)
 *   80000022h    EAX[1] LbrExtV2, EBX[9:4] its stack depth
 * libpfm4: pfm_initialize, pfm_get_pmu_info over pfm_for_all_pmus; a PMU is
 * "present" when libpfm4 recognises this CPU's family/model, which it does
 * from CPUID, not from the kernel's PMU registration.
 */
#define _GNU_SOURCE
#include "plugins/common/pmu_model.h"

#include <perfmon/pfmlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_probe.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PMU_HAVE_CPUID 1
#endif

/* ------------------------------------------------------------------ CPUID */

#ifdef PMU_HAVE_CPUID
static void regs_to_text(char *dst, const uint32_t *r, int n) {
  memcpy(dst, r, (size_t)n * 4);
  dst[n * 4] = '\0';
}

/* "Intel(R) Xeon(R) Processor  @ 2.0GHz" -> "Intel Xeon Processor @ 2.0GHz":
 * the marks cost reason bytes and say nothing. */
static void tidy_brand(char *s) {
  static const char *const drop[] = {"(R)", "(r)", "(TM)", "(tm)"};
  for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
    char *p;
    size_t l = strlen(drop[i]);
    while ((p = strstr(s, drop[i])) != NULL) memmove(p, p + l, strlen(p + l) + 1);
  }
  char *w = s;
  for (const char *r = s; *r; r++) {
    if (*r == ' ' && (w == s || w[-1] == ' ')) continue;
    *w++ = *r;
  }
  while (w > s && w[-1] == ' ') w--;
  *w = '\0';
}
#endif

void pmu_model_read_cpuid(struct pmu_model *m) {
#ifdef PMU_HAVE_CPUID
  uint32_t a, b, c, d;
  uint32_t max = __get_cpuid_max(0, NULL);
  if (max == 0) return;
  __cpuid(0, a, b, c, d);
  uint32_t v[3] = {b, d, c};
  regs_to_text(m->vendor, v, 3);
  int intel = strcmp(m->vendor, "GenuineIntel") == 0;
  int amd = strcmp(m->vendor, "AuthenticAMD") == 0 || strcmp(m->vendor, "HygonGenuine") == 0;
  __cpuid(1, a, b, c, d);
  unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
  if (fam == 0xf) fam += (a >> 20) & 0xff;
  if (fam == 0x6 || fam >= 0xf) mod |= ((a >> 16) & 0xf) << 4;
  m->family = fam;
  m->model = mod;
  m->guest = (int)((c >> 31) & 1);
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    m->intel_pt = intel && ((b >> 25) & 1);
    m->arch_lbr = intel && ((d >> 19) & 1);
  }
  if (m->intel_pt && max >= 0x14) {
    __cpuid_count(0x14, 0, a, b, c, d);
    m->pt_topa = (int)(c & 1);
  }
  if (intel && max >= 0xa) {
    __cpuid(0xa, a, b, c, d);
    m->perfmon_version = a & 0xff;
    m->gp_counters = (a >> 8) & 0xff;
  }
  if (m->guest) {
    __cpuid(0x40000000, a, b, c, d);
    uint32_t h[3] = {b, c, d};
    regs_to_text(m->hypervisor, h, 3);
    for (char *p = m->hypervisor; *p; p++)
      if ((unsigned char)*p < ' ' || (unsigned char)*p > '~') *p = '?';
  }
  uint32_t ext = __get_cpuid_max(0x80000000, NULL);
  if (ext >= 0x80000001) {
    __cpuid(0x80000001, a, b, c, d);
    m->ibs = amd && ((c >> 10) & 1);
    m->perfctr_core = amd && ((c >> 23) & 1);
  }
  if (ext >= 0x80000004) {
    uint32_t r[12];
    for (uint32_t i = 0; i < 3; i++)
      __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    regs_to_text(m->brand, r, 12);
    tidy_brand(m->brand);
  }
  if (amd && ext >= 0x80000008) {
    __cpuid(0x80000008, a, b, c, d);
    m->brs = (int)((b >> 31) & 1);
  }
  if (m->ibs && ext >= 0x8000001b) {
    __cpuid(0x8000001b, a, b, c, d);
    m->ibs_caps = a;
  }
  if (amd && ext >= 0x80000022) {
    __cpuid(0x80000022, a, b, c, d);
    m->lbr_v2 = (int)((a >> 1) & 1);
    m->lbr_v2_depth = (b >> 4) & 0x3f;
  }
#else
  (void)m; /* no CPUID: the reason says only what libpfm4 and the kernel say */
#endif
}

/* ---------------------------------------------------------------- libpfm4 */

void pmu_model_read_pfm(struct pmu_model *m) {
  m->pfm_core[0] = '\0';
  /* pfm_initialize is idempotent and cheap after the first call; the
   * library state is shared by every plugin in the process, so it is never
   * torn down here */
  m->pfm_ok = pfm_initialize() == PFM_SUCCESS;
  if (!m->pfm_ok) return;
  size_t used = 0;
  pfm_pmu_t p;
  pfm_for_all_pmus(p) {
    pfm_pmu_info_t info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present) continue;
    if (info.type != PFM_PMU_TYPE_CORE || !info.name) continue;
    int w =
        snprintf(m->pfm_core + used, sizeof m->pfm_core - used, "%s%s", used ? "," : "", info.name);
    if (w < 0 || (size_t)w >= sizeof m->pfm_core - used) break;
    used += (size_t)w;
  }
}

void pmu_model_read(struct pmu_model *m) {
  memset(m, 0, sizeof *m);
  pmu_model_read_cpuid(m);
  pmu_model_read_pfm(m);
}

/* ---------------------------------------------------------------- reasons */

static int is_amd(const struct pmu_model *m) {
  return strcmp(m->vendor, "AuthenticAMD") == 0 || strcmp(m->vendor, "HygonGenuine") == 0;
}

static int is_intel(const struct pmu_model *m) { return strcmp(m->vendor, "GenuineIntel") == 0; }

int pmu_model_has(const struct pmu_model *m, enum pmu_feature f) {
  switch (f) {
  case PMU_FEAT_INTEL_PT: return m->intel_pt;
  case PMU_FEAT_AMD_IBS: return m->ibs;
  case PMU_FEAT_BRANCH_STACK: return m->lbr_v2 || m->brs || m->arch_lbr;
  }
  return 0;
}

void pmu_model_cpu_text(const struct pmu_model *m, char *buf, size_t cap) {
  const char *name = m->brand[0] ? m->brand : m->vendor[0] ? m->vendor : "unknown CPU";
  const char *pfm = !m->pfm_ok       ? "libpfm4 failed to initialise"
                    : m->pfm_core[0] ? m->pfm_core
                                     : "only perf's generic PMU";
  if (m->vendor[0])
    snprintf(buf, cap, "%s (fam %u model %#x, libpfm4: %s)", name, m->family, m->model, pfm);
  else
    snprintf(buf, cap, "%s (libpfm4: %s)", name, pfm);
}

/* The hypervisor by its CPUID.40000000 signature ("KVMKVMKVM" -> "KVM"),
 * the raw signature when unknown, "a hypervisor" when it gives none. */
static void hv_text(const struct pmu_model *m, char *buf, size_t cap) {
  static const struct {
    const char *sig, *name;
  } known[] = {
      {"KVMKVMKVM", "KVM"},     {"Microsoft Hv", "Hyper-V"},    {"VMwareVMware", "VMware"},
      {"XenVMMXenVMM", "Xen"},  {"TCGTCGTCGTCG", "QEMU TCG"},   {"bhyve bhyve ", "bhyve"},
      {"ACRNACRNACRN", "ACRN"}, {"VBoxVBoxVBox", "VirtualBox"},
  };
  if (!m->hypervisor[0]) {
    snprintf(buf, cap, "a hypervisor");
    return;
  }
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(m->hypervisor, known[i].sig) == 0) {
      snprintf(buf, cap, "%s", known[i].name);
      return;
    }
  snprintf(buf, cap, "hypervisor '%s'", m->hypervisor);
}

/* What CPUID says of the feature, as a clause after "this CPU (...)". */
static void silicon_text(enum pmu_feature f, const struct pmu_model *m, char *buf, size_t cap) {
  switch (f) {
  case PMU_FEAT_INTEL_PT:
    if (is_amd(m))
      snprintf(buf, cap, "is AMD: Intel PT is Intel-only");
    else
      snprintf(buf, cap, "%s PT in CPUID 7:EBX[25]", m->intel_pt ? "has" : "shows no");
    return;
  case PMU_FEAT_AMD_IBS:
    if (is_intel(m))
      snprintf(buf, cap, "is Intel: IBS is AMD-only");
    else
      snprintf(buf, cap, "%s IBS in CPUID 0x80000001:ECX[10]", m->ibs ? "has" : "shows no");
    return;
  case PMU_FEAT_BRANCH_STACK:
    if (m->lbr_v2)
      snprintf(buf, cap, "has LbrExtV2 (CPUID 0x80000022, depth %u)", m->lbr_v2_depth);
    else if (m->brs)
      snprintf(buf, cap, "has Zen 3 BRS (CPUID 0x80000008:EBX[31])");
    else if (m->arch_lbr)
      snprintf(buf, cap, "has Arch LBR (CPUID 7:EDX[19])");
    else if (is_intel(m))
      snprintf(buf, cap, "shows no Arch LBR in CPUID 7:EDX[19]");
    else
      snprintf(buf, cap, "shows neither LbrExtV2 nor BRS in CPUID");
    return;
  }
  buf[0] = '\0';
}

/* Who withholds a feature the silicon has, or why it is missing. */
static void withheld_text(enum pmu_feature f, const struct pmu_model *m,
                          const struct pmu_kernel_view *k, char *buf, size_t cap) {
  char hv[48];
  hv_text(m, hv, sizeof hv);
  int has = pmu_model_has(m, f);
  buf[0] = '\0';
  if ((f == PMU_FEAT_INTEL_PT && is_amd(m)) || (f == PMU_FEAT_AMD_IBS && is_intel(m)))
    return; /* the other vendor's feature: the silicon clause said it all */
  if (f == PMU_FEAT_BRANCH_STACK && k->core_pmu) {
    /* the core PMU is there, its branch-stack depth is not */
    if (m->lbr_v2)
      snprintf(buf, cap, "the kernel is older than 6.1 or PerfMonV2 is not exposed");
    else if (m->brs)
      snprintf(buf, cap, "the kernel is built without CONFIG_PERF_EVENTS_AMD_BRS");
    else
      snprintf(buf, cap, "the cpu PMU has no branch records");
    return;
  }
  if (has && m->guest) {
    const char *what = f == PMU_FEAT_INTEL_PT  ? "PT passthrough"
                       : f == PMU_FEAT_AMD_IBS ? "IBS virtualisation"
                                               : "a vPMU with branch records";
    snprintf(buf, cap, "%s without %s", hv, what);
  } else if (has && f == PMU_FEAT_INTEL_PT && !m->pt_topa) {
    snprintf(buf, cap, "but no ToPA output (CPUID 0x14:ECX[0]), which the PT driver needs");
  } else if (has && f == PMU_FEAT_AMD_IBS && !(m->ibs_caps & 1)) {
    snprintf(buf, cap, "but CPUID 0x8000001B reports no valid IBS capabilities (%#x)", m->ibs_caps);
  } else if (has) {
    const char *drv = f == PMU_FEAT_INTEL_PT  ? "the PT driver did not bind (PT on at boot?)"
                      : f == PMU_FEAT_AMD_IBS ? "the IBS driver did not register"
                                              : "the kernel registered no core cpu PMU";
    snprintf(buf, cap, "%s", drv);
  } else if (m->guest) {
    snprintf(buf, cap, "hidden by %s, or absent", hv);
  } else {
    snprintf(buf, cap, "the silicon lacks it");
  }
}

int pmu_model_reason(enum pmu_feature f, const struct pmu_model *m, const struct pmu_kernel_view *k,
                     const char *lead, char *buf, size_t cap) {
  char cpu[128], silicon[80], who[112], tail[200], hv[48];
  pmu_model_cpu_text(m, cpu, sizeof cpu);
  silicon_text(f, m, silicon, sizeof silicon);
  withheld_text(f, m, k, who, sizeof who);
  hv_text(m, hv, sizeof hv);
  /* A guest without a core PMU: the hypervisor offers no vPMU at all, the
   * reason behind every hardware backend's refusal at once; that clause
   * replaces the PMU list (a reason has 255 bytes). Otherwise the kernel's
   * PMUs are the evidence. */
  /* a long hypervisor name already said in `who` is not spelled twice */
  const char *who_pmu = strstr(who, hv) && strlen(hv) > 10 ? "it" : hv;
  if (m->guest && !k->core_pmu && is_intel(m))
    snprintf(tail, sizeof tail, "%s exposes no PMU (CPUID 0xA perfmon v%u, no cpu PMU)", who_pmu,
             m->perfmon_version);
  else if (m->guest && !k->core_pmu)
    snprintf(tail, sizeof tail, "%s exposes no PMU (no cpu PMU)", who_pmu);
  else
    snprintf(tail, sizeof tail, "PMUs: %s", k->pmus && k->pmus[0] ? k->pmus : "none");
  snprintf(buf, cap, "%s; %s %s%s%s; %s", lead, cpu, silicon, who[0] ? ": " : "", who, tail);
  return pmu_model_has(m, f) ? ASMSPY_E_NO_KERNEL : ASMSPY_E_NO_HW;
}

int pmu_model_explain_missing(enum pmu_feature f, const char *root, const char *lead, char *buf,
                              size_t cap) {
  struct pmu_model m;
  pmu_model_read(&m);
  /* the kernel's cpuinfo flags come from CPUID too (minus what it disabled):
   * either witness saying "present" means the silicon has it */
  switch (f) {
  case PMU_FEAT_INTEL_PT: m.intel_pt |= pp_cpu_has_flag("intel_pt") == 1; break;
  case PMU_FEAT_AMD_IBS: m.ibs |= pp_cpu_has_flag("ibs") == 1; break;
  case PMU_FEAT_BRANCH_STACK:
    m.brs |= pp_cpu_has_flag("brs") == 1;
    m.lbr_v2 |= pp_cpu_has_flag("amd_lbr_v2") == 1;
    m.arch_lbr |= pp_cpu_has_flag("arch_lbr") == 1;
    break;
  }
  char pmus[160], cpu_dir[512];
  pp_pmu_list_text(root, pmus, sizeof pmus);
  snprintf(cpu_dir, sizeof cpu_dir, "%s/cpu", root);
  struct pmu_kernel_view k = {.pmus = pmus, .core_pmu = access(cpu_dir, F_OK) == 0};
  return pmu_model_reason(f, &m, &k, lead, buf, cap);
}
