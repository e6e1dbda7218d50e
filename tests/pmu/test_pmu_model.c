/* pmu_model / pe_encode offline: the unavailable reasons of intel_pt,
 * amd_ibs and amd_lbr composed from synthesized CPUID values and kernel PMU
 * lists (every witness combination the reason distinguishes: silicon has it
 * and a hypervisor withholds it, the driver did not bind, the silicon lacks
 * it, the other vendor, a guest without a vPMU), and libpfm4's encoding of
 * event names into sampling attrs (libpfm4's generic perf PMU is present on
 * every host, so no hardware is needed). Exit 0 = pass. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asmspy/plugin.h"
#include "plugins/common/pmu_model.h"
#include "plugins/pmu_event/pe_encode.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

static void expect_has(const char *text, const char *want) {
  CHECK(strstr(text, want) != NULL, "missing \"%s\" in: %s", want, text);
}

static void expect_not(const char *text, const char *unwanted) {
  CHECK(strstr(text, unwanted) == NULL, "unexpected \"%s\" in: %s", unwanted, text);
}

static struct pmu_model intel_guest(void) {
  struct pmu_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.vendor, "GenuineIntel");
  strcpy(m.brand, "Intel Xeon Processor");
  m.family = 6;
  m.model = 0x6a;
  m.guest = 1;
  strcpy(m.hypervisor, "KVMKVMKVM");
  m.pfm_ok = 1;
  strcpy(m.pfm_core, "icx");
  return m;
}

static struct pmu_model amd_host(void) {
  struct pmu_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.vendor, "AuthenticAMD");
  strcpy(m.brand, "AMD EPYC 9654 96-Core Processor");
  m.family = 0x19;
  m.model = 0x11;
  m.pfm_ok = 1;
  strcpy(m.pfm_core, "amd64_fam19h_zen4");
  m.perfctr_core = 1;
  return m;
}

static const struct pmu_kernel_view no_pmu = {"breakpoint,msr,software,tracepoint,uprobe", 0};
static const struct pmu_kernel_view with_cpu = {"breakpoint,cpu,msr,software,tracepoint", 1};

static void test_intel_pt(void) {
  char buf[256];
  const char *lead = "no intel_pt PMU: /sys/x/intel_pt/type missing";
  /* CPUID has PT, a KVM guest without it: the hypervisor is named, and the
   * status says the silicon has it */
  struct pmu_model m = intel_guest();
  m.intel_pt = 1;
  m.perfmon_version = 5;
  int st = pmu_model_reason(PMU_FEAT_INTEL_PT, &m, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "PT in CPUID: status %d", st);
  CHECK(strncmp(buf, lead, strlen(lead)) == 0, "the backend's lead first: %s", buf);
  expect_has(buf, "Intel Xeon Processor (fam 6 model 0x6a, libpfm4: icx)");
  expect_has(buf, "has PT in CPUID 7:EBX[25]");
  expect_has(buf, "KVM without PT passthrough");
  expect_has(buf, "PMUs: breakpoint,cpu,msr");
  /* no PT bit, a guest without any PMU: masked-or-absent, and the vPMU
   * clause (CPUID 0xA perfmon v0) replaces the PMU list */
  m.intel_pt = 0;
  m.perfmon_version = 0;
  st = pmu_model_reason(PMU_FEAT_INTEL_PT, &m, &no_pmu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_HW, "no PT in CPUID: status %d", st);
  expect_has(buf, "shows no PT in CPUID 7:EBX[25]: hidden by KVM, or absent");
  expect_has(buf, "KVM exposes no PMU (CPUID 0xA perfmon v0, no cpu PMU)");
  expect_not(buf, "PMUs:");
  CHECK(strlen(buf) < 256, "reason too long (%zu)", strlen(buf));
  /* bare metal with PT in CPUID: without ToPA the driver cannot bind; with
   * it, the driver is the culprit */
  m.guest = 0;
  m.hypervisor[0] = '\0';
  m.intel_pt = 1;
  st = pmu_model_reason(PMU_FEAT_INTEL_PT, &m, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "bare metal PT: status %d", st);
  expect_has(buf, "has PT in CPUID 7:EBX[25]: but no ToPA output (CPUID 0x14:ECX[0])");
  m.pt_topa = 1;
  st = pmu_model_reason(PMU_FEAT_INTEL_PT, &m, &with_cpu, lead, buf, sizeof buf);
  expect_has(buf, "the PT driver did not bind");
  /* bare metal without PT: the silicon */
  m.intel_pt = 0;
  st = pmu_model_reason(PMU_FEAT_INTEL_PT, &m, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_HW, "bare metal no PT: status %d", st);
  expect_has(buf, "the silicon lacks it");
  /* AMD: the other vendor's feature, nothing withheld */
  struct pmu_model a = amd_host();
  st = pmu_model_reason(PMU_FEAT_INTEL_PT, &a, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_HW, "AMD PT: status %d", st);
  expect_has(buf, "is AMD: Intel PT is Intel-only; PMUs:");
  expect_has(buf, "libpfm4: amd64_fam19h_zen4");
}

static void test_amd_ibs(void) {
  char buf[256];
  const char *lead = "no ibs_op PMU: /sys/x/ibs_op/type missing";
  struct pmu_model a = amd_host();
  a.ibs = 1;
  int st = pmu_model_reason(PMU_FEAT_AMD_IBS, &a, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "IBS in CPUID: status %d", st);
  expect_has(buf, "has IBS in CPUID 0x80000001:ECX[10]: but CPUID 0x8000001B reports no valid");
  a.ibs_caps = 0x3ff; /* IBSFFV and the Zen op/fetch capabilities */
  st = pmu_model_reason(PMU_FEAT_AMD_IBS, &a, &with_cpu, lead, buf, sizeof buf);
  expect_has(buf, "has IBS in CPUID 0x80000001:ECX[10]: the IBS driver did not register");
  /* an unknown hypervisor signature is quoted; an AMD guest without a core
   * PMU gets the vPMU clause without Intel's leaf 0xA */
  a.guest = 1;
  strcpy(a.hypervisor, "FancyHV");
  st = pmu_model_reason(PMU_FEAT_AMD_IBS, &a, &no_pmu, lead, buf, sizeof buf);
  expect_has(buf, "hypervisor 'FancyHV' without IBS virtualisation");
  expect_has(buf, "; it exposes no PMU (no cpu PMU)");
  CHECK(strlen(buf) < 255, "reason truncated (%zu): %s", strlen(buf), buf);
  expect_not(buf, "0xA");
  /* Intel: IBS is AMD-only */
  struct pmu_model m = intel_guest();
  st = pmu_model_reason(PMU_FEAT_AMD_IBS, &m, &no_pmu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_HW, "Intel IBS: status %d", st);
  CHECK(strncmp(buf, "no ibs_op PMU: /sys/x/ibs_op/type missing; ", 43) == 0, "lead: %s", buf);
  expect_has(buf, "is Intel: IBS is AMD-only; KVM exposes no PMU");
  /* libpfm4 that recognises no core PMU, or failed */
  m.pfm_core[0] = '\0';
  pmu_model_cpu_text(&m, buf, sizeof buf);
  expect_has(buf, "libpfm4: only perf's generic PMU");
  m.pfm_ok = 0;
  pmu_model_cpu_text(&m, buf, sizeof buf);
  expect_has(buf, "libpfm4 failed to initialise");
}

static void test_branch_stack(void) {
  char buf[256];
  const char *lead = "no branch-stack depth: /sys/x/cpu/caps/branches missing";
  struct pmu_model a = amd_host();
  a.lbr_v2 = 1;
  a.lbr_v2_depth = 16;
  int st = pmu_model_reason(PMU_FEAT_BRANCH_STACK, &a, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "LbrExtV2: status %d", st);
  expect_has(buf, "has LbrExtV2 (CPUID 0x80000022, depth 16): the kernel is older than 6.1");
  a.lbr_v2 = 0;
  a.brs = 1;
  st = pmu_model_reason(PMU_FEAT_BRANCH_STACK, &a, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "BRS: status %d", st);
  expect_has(buf, "CONFIG_PERF_EVENTS_AMD_BRS");
  a.brs = 0;
  st = pmu_model_reason(PMU_FEAT_BRANCH_STACK, &a, &with_cpu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_HW, "no LBR: status %d", st);
  expect_has(buf, "shows neither LbrExtV2 nor BRS in CPUID: the cpu PMU has no branch records");
  /* bare metal, no core PMU at all, the silicon has Arch LBR */
  struct pmu_model m = intel_guest();
  m.guest = 0;
  m.hypervisor[0] = '\0';
  m.arch_lbr = 1;
  st = pmu_model_reason(PMU_FEAT_BRANCH_STACK, &m, &no_pmu, lead, buf, sizeof buf);
  CHECK(st == ASMSPY_E_NO_KERNEL, "Arch LBR: status %d", st);
  expect_has(buf, "has Arch LBR (CPUID 7:EDX[19]): the kernel registered no core cpu PMU");
}

static void test_encode(void) {
  struct perf_event_attr a;
  char canon[256], why[256];
  /* the generic perf PMU: software events by their perf names */
  CHECK(pe_encode("cpu-clock", &a, canon, sizeof canon, why, sizeof why) == 0, "cpu-clock: %s",
        why);
  CHECK(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CPU_CLOCK,
        "cpu-clock: type %u config %llu", a.type, (unsigned long long)a.config);
  CHECK(a.exclude_kernel, "PFM_PLM3: user only");
  CHECK(a.freq && a.sample_freq == PE_DEFAULT_FREQ_HZ, "default: frequency mode");
  CHECK(a.sample_type == PE_SAMPLE_TYPE && a.disabled && a.size == sizeof a, "sampler fields");
  expect_has(canon, "PERF_COUNT_SW_CPU_CLOCK");
  CHECK(pe_encode("perf::TASK-CLOCK:period=100000", &a, canon, sizeof canon, why, sizeof why) == 0,
        "task-clock:period: %s", why);
  CHECK(a.config == PERF_COUNT_SW_TASK_CLOCK && !a.freq && a.sample_period == 100000,
        "period= kept: freq %u period %llu", a.freq, (unsigned long long)a.sample_period);
  /* hardware names encode whatever the kernel has (refusal is the kernel's) */
  CHECK(pe_encode("instructions", &a, canon, sizeof canon, why, sizeof why) == 0, "instructions");
  CHECK(a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_INSTRUCTIONS, "instructions");
  char tbuf[32];
  CHECK(strcmp(pe_type_name(a.type, tbuf, sizeof tbuf), "hardware") == 0, "type name");
  CHECK(strcmp(pe_type_name(42, tbuf, sizeof tbuf), "PMU type 42") == 0, "dynamic type name");
  /* refusals: one line naming the input and libpfm4's verdict */
  CHECK(pe_encode("nonsense", &a, canon, sizeof canon, why, sizeof why) != 0, "nonsense encoded");
  expect_has(why, "libpfm4 cannot encode 'nonsense': event not found");
  CHECK(pe_encode("", &a, canon, sizeof canon, why, sizeof why) != 0, "empty name encoded");
  expect_has(why, "--sampler=event:<name>");
  CHECK(pe_encode(NULL, &a, canon, sizeof canon, why, sizeof why) != 0, "NULL name encoded");
}

int main(void) {
  test_intel_pt();
  test_amd_ibs();
  test_branch_stack();
  test_encode();
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("ok: pmu_model reasons and libpfm4 encodings\n");
  return 0;
}
