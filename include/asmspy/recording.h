/* asmspy/recording.h — check an .asmtrace recording (or saved `asmspy --json`
 * output) against its schema (docs/asmtrace-schema.md) through libasmspy's
 * public API: what asmtrace-check prints, for any program.
 *
 *   struct asmspy_recording_report rep;
 *   ASMSPY_INIT_HEADER(&rep);
 *   int verdict = asmspy_recording_check("rec.asmtrace", &rep);
 *
 * The report is a boundary struct (asmspy/plugin.h's rules): the caller sets
 * abi_version / struct_size; the library writes only within struct_size and
 * sets struct_size to what it filled, so a caller built against a newer
 * header reads a member only when ASMSPY_HAS(&rep, member) says so. Members
 * are only ever appended. Plain data: no pointers, nothing to free. Strings
 * come from the file (copied, truncated to fit, NUL-terminated): UTF-8 that
 * may contain any character, sanitize before printing. */
#ifndef ASMSPY_RECORDING_H
#define ASMSPY_RECORDING_H

#include <asmspy/api.h>
#include <asmspy/plugin.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Verdicts, also the return value of asmspy_recording_check. */
#define ASMSPY_RECORDING_VALID 0
#define ASMSPY_RECORDING_TRUNCATED 1 /* well-formed so far, the end footer is missing */
#define ASMSPY_RECORDING_INVALID 2   /* something violates the schema (first error reported) */

#define ASMSPY_RECORDING_MAX_TYPES 32     /* distinct event types counted by name */
#define ASMSPY_RECORDING_TYPE_NAME_MAX 32 /* longer type names count as other_types */

struct asmspy_recording_type_count {
  char name[ASMSPY_RECORDING_TYPE_NAME_MAX]; /* "insn", "note", ... */
  uint64_t count;
};

/* Laid out without holes (every member at its natural alignment). */
struct asmspy_recording_report {
  uint32_t abi_version;
  uint32_t struct_size;
  int32_t verdict;      /* ASMSPY_RECORDING_* */
  int32_t have_header;  /* the header members below are meaningful */
  int32_t backend_null; /* the header's "backend":null (no backend, e.g. --backends) */
  int32_t have_end;     /* the footer members below are meaningful */

  /* header */
  int64_t format_version;
  int64_t pid;
  char tool[64];
  char tool_version[64];
  char mode[64];
  char backend[64]; /* "" when null */
  char kernel[128];
  char arch[64];
  char hostname[256]; /* optional in the header: "" when absent */
  char start_time[64];

  /* events (lines between header and footer) */
  uint64_t lines;       /* physical lines read */
  uint64_t events;      /* event lines accepted (== the last seq) */
  uint64_t lost_events; /* sum of "count" over "lost" events */
  uint64_t n_types;     /* used entries of types[], in order of first appearance */
  struct asmspy_recording_type_count types[ASMSPY_RECORDING_MAX_TYPES];
  uint64_t other_types; /* events whose type did not fit the table */

  /* footer */
  int64_t end_events;
  int64_t lost; /* the footer's "lost" */
  int64_t end_status;
  char end_reason[32];

  /* First problem. INVALID: the line (1-based; 0 when not tied to a line,
   * e.g. the file cannot be opened) and the message. TRUNCATED: why ("no
   * end footer after 17 events"). Empty for VALID. */
  uint64_t error_line;
  char error[256];
  /* A non-fatal remark (newer format_version, missing final newline). */
  char warning[256];

  /* Human text carrying a raw control byte: asmspy's writer renders control
   * bytes in an event's "human" / "text" visibly (\x1b) and keeps only '\n',
   * so a raw one means the recording came from elsewhere, and printing it
   * as it is would hand a terminal an escape sequence. The verdict stands
   * (the schema is met); raw_control_events counts the events carrying one,
   * the rest names the first. */
  uint64_t raw_control_events;
  int64_t raw_control_first_seq;
  uint32_t raw_control_byte;
  char raw_control_member[12]; /* "human" or "text" */
};

/* Read the recording at path ("-" = stdin) to its end (or to the first
 * error) and fill *rep. Returns the verdict (ASMSPY_RECORDING_*); a file that
 * cannot be opened or read is INVALID with error_line 0 ("cannot open: ...").
 * Returns -ASMSPY_E_ABI, touching nothing, when rep's header
 * names another ABI major or a struct smaller than this API's first one;
 * -ASMSPY_E_USAGE when path or rep is NULL. */
ASMSPY_API int asmspy_recording_check(const char *path, struct asmspy_recording_report *rep);

/* "valid", "truncated", "invalid" (any other value reads "invalid"). */
ASMSPY_API const char *asmspy_recording_verdict_name(int verdict);

#ifdef __cplusplus
}
#endif
#endif
