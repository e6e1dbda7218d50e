/* pe_encode: a perf event named by the user -> a sampling perf_event_attr,
 * through libpfm4 (pfm_get_os_event_encoding, PFM_OS_PERF_EVENT_EXT). */
#ifndef ASMSPY_PLUGINS_PMU_EVENT_PE_ENCODE_H
#define ASMSPY_PLUGINS_PMU_EVENT_PE_ENCODE_H

#include <linux/perf_event.h>
#include <stddef.h>

/* Samples per second when the name sets neither period= nor freq= (the
 * kernel adjusts the period to hit it; perf record's -F, smaller). */
#define PE_DEFAULT_FREQ_HZ 1000u

/* The sample layout every pmu_event sampler opens and parses. */
#define PE_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD)

/* Encode `name` ("cpu-clock", "perf::TASK-CLOCK:period=100000", "CYCLES:u",
 * "r01c4"...) at user privilege level (PFM_PLM3: exclude_kernel and
 * exclude_hv, what perf_event_paranoid 2 allows on another process) into
 * *attr, ready to open disabled as a sampler: PE_SAMPLE_TYPE, and
 * PE_DEFAULT_FREQ_HZ unless the name carried a period or frequency. canon
 * gets libpfm4's fully qualified name ("perf::PERF_COUNT_SW_CPU_CLOCK:u=1:...").
 * Returns 0, or -1 with a one-line why ("libpfm4 cannot encode 'x': event
 * not found"). */
int pe_encode(const char *name, struct perf_event_attr *attr, char *canon, size_t ccap, char *why,
              size_t wcap);

/* "hardware", "software", "raw", "hw-cache", "tracepoint", "breakpoint" or
 * "PMU type N": the kind of event attr.type names, for reasons. */
const char *pe_type_name(unsigned type, char *buf, size_t cap);

#endif
