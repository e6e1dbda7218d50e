/* pe_encode: libpfm4 turns the user's event name into perf_event_attr
 * fields (type, config, config1/2, exclude_*, and with the EXT flavour the
 * perf-only modifiers period=, freq=, precise=, excl); this file adds what
 * a sampler needs around them. libpfm4 sets only the fields it knows, so the
 * attr's size and sample fields are ours. */
#define _GNU_SOURCE
#include "plugins/pmu_event/pe_encode.h"

#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pe_encode(const char *name, struct perf_event_attr *attr, char *canon, size_t ccap, char *why,
              size_t wcap) {
  if (canon && ccap) canon[0] = '\0';
  if (!name || !name[0]) {
    snprintf(why, wcap, "no event named: --sampler=event:<name> (e.g. event:cpu-clock)");
    return -1;
  }
  int rc = pfm_initialize(); /* idempotent; shared library state is never torn down */
  if (rc != PFM_SUCCESS) {
    snprintf(why, wcap, "libpfm4 pfm_initialize: %s", pfm_strerror(rc));
    return -1;
  }
  memset(attr, 0, sizeof *attr);
  char *fstr = NULL;
  pfm_perf_encode_arg_t arg;
  memset(&arg, 0, sizeof arg);
  arg.attr = attr;
  arg.fstr = &fstr;
  arg.size = sizeof arg;
  rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) {
    snprintf(why, wcap, "libpfm4 cannot encode '%s': %s", name, pfm_strerror(rc));
    free(fstr);
    return -1;
  }
  if (canon && ccap) snprintf(canon, ccap, "%s", fstr ? fstr : name);
  free(fstr);
  attr->size = sizeof *attr;
  attr->sample_type = PE_SAMPLE_TYPE;
  attr->disabled = 1;
  attr->wakeup_events = 64;
  if (attr->sample_period == 0) { /* neither period= nor freq= given */
    attr->freq = 1;
    attr->sample_freq = PE_DEFAULT_FREQ_HZ;
  }
  return 0;
}

const char *pe_type_name(unsigned type, char *buf, size_t cap) {
  switch (type) {
  case PERF_TYPE_HARDWARE: return "hardware";
  case PERF_TYPE_SOFTWARE: return "software";
  case PERF_TYPE_TRACEPOINT: return "tracepoint";
  case PERF_TYPE_HW_CACHE: return "hw-cache";
  case PERF_TYPE_RAW: return "raw";
  case PERF_TYPE_BREAKPOINT: return "breakpoint";
  default: snprintf(buf, cap, "PMU type %u", type); return buf;
  }
}
