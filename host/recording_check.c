/* recording_check.c — asmspy_recording_check (include/asmspy/recording.h):
 * the public entry point over the recording reader (recording.c), for
 * programs that link only the shared library, asmtrace-check first.
 *
 * It walks the recording with the reader's iterator (so its verdict is the
 * reader's), scans each accepted event's human text for raw control bytes,
 * and copies the reader's part of the report (the reader fills the public
 * struct itself) into the caller's, within its struct_size. */
#define _GNU_SOURCE
#include "host/recording.h"
#include "common/ctl_escape.h"

#include <asmspy/recording.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The struct as it first shipped (ABI 1.8): smaller is a caller we cannot
 * fill; appended members never move this. */
#define REPORT_SIZE_FIRST                                                                          \
  (offsetof(struct asmspy_recording_report, raw_control_member) +                                  \
   sizeof(((struct asmspy_recording_report *)0)->raw_control_member))

/* The reader's part of the report (recording.c fills the same struct):
 * from verdict up to the raw-control members this file adds. */
static void copy_report(struct asmspy_recording_report *out,
                        const struct asmspy_recording_report *r) {
  size_t head = offsetof(struct asmspy_recording_report, verdict);
  size_t tail = offsetof(struct asmspy_recording_report, raw_control_events);
  memcpy((char *)out + head, (const char *)r + head, tail - head);
}

/* One event's member, if it is a string carrying a raw control byte ('\n'
 * allowed): counted once per event (*hit), the first one named. */
static void scan_text_member(struct asmspy_recording_report *out, const struct json_value *ev,
                             const char *member, int *hit) {
  const struct json_value *v = json_get(ev, member);
  if (*hit || !v || v->type != JSON_STRING) return;
  size_t at = ctl_text_first_control(v->u.str.s, v->u.str.len, 1);
  if (at == v->u.str.len) return;
  *hit = 1;
  if (out->raw_control_events++ == 0) {
    json_get_int(ev, "seq", &out->raw_control_first_seq);
    snprintf(out->raw_control_member, sizeof out->raw_control_member, "%s", member);
    out->raw_control_byte = (unsigned char)v->u.str.s[at];
  }
}

/* Read path to its end into *out; returns the verdict. */
static int check_into(const char *path, struct asmspy_recording_report *out) {
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "re");
  struct recording *rec = f ? recording_open_file(f) : NULL;
  if (!rec) {
    int e = errno;
    if (f && !is_stdin) fclose(f);
    out->verdict = ASMSPY_RECORDING_INVALID;
    snprintf(out->error, sizeof out->error, "%s: %s", f ? "cannot read" : "cannot open",
             strerror(e));
    return out->verdict;
  }
  const struct json_value *ev;
  while (recording_next(rec, &ev) > 0) {
    int hit = 0;
    scan_text_member(out, ev, "human", &hit);
    scan_text_member(out, ev, "text", &hit);
  }
  copy_report(out, recording_get_report(rec));
  recording_close(rec);
  if (!is_stdin) fclose(f);
  return out->verdict;
}

int asmspy_recording_check(const char *path, struct asmspy_recording_report *rep) {
  if (!path || !rep) return -ASMSPY_E_USAGE;
  if (ASMSPY_ABI_MAJOR_OF(rep->abi_version) != ASMSPY_ABI_MAJOR ||
      rep->struct_size < REPORT_SIZE_FIRST)
    return -ASMSPY_E_ABI;
  struct asmspy_recording_report full;
  memset(&full, 0, sizeof full);
  int verdict = check_into(path, &full);
  /* Fill what both sides know; the caller's newer tail (if any) is zeroed
   * and struct_size tells it where our part ends (ASMSPY_HAS). */
  size_t n = rep->struct_size < sizeof full ? rep->struct_size : sizeof full;
  size_t head = offsetof(struct asmspy_recording_report, verdict);
  memset((char *)rep + head, 0, rep->struct_size - head);
  memcpy((char *)rep + head, (const char *)&full + head, n - head);
  rep->abi_version = ASMSPY_ABI_VERSION;
  rep->struct_size = (uint32_t)n;
  return verdict;
}

const char *asmspy_recording_verdict_name(int verdict) { return recording_verdict_name(verdict); }
