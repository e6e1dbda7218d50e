/* recording.h — reader and validator for .asmtrace recordings (and for the
 * identical NDJSON stream of `asmspy --json`), schema version 1.
 *
 * The schema is docs/asmtrace-schema.md. In short: line 1 is the header
 * ({"type":"header","format":"asmtrace","format_version":1,...}), then event
 * lines each carrying "seq" = 1, 2, 3, ... with no gap, then the footer
 * {"type":"end","events":N,...} as the very last line.
 *
 * Two ways in:
 *   - recording_validate() / recording_validate_path(): read everything and
 *     fill a report (verdict, header fields, counts per event type, footer,
 *     first error). Used by asmtrace-check and the tests.
 *   - the iterator: recording_open() then recording_next() until it returns
 *     <= 0, for consumers that want the events. It applies exactly the same
 *     checks, so a consumer never sees an event from an invalid line.
 *
 * Verdicts: VALID; TRUNCATED = everything read is well-formed but the end
 * footer is missing (the writer was killed, the disk filled, the stream was
 * cut): the events read are usable, the recording is incomplete; INVALID =
 * something violates the schema (first error's line number and message are
 * reported, reading stops there).
 *
 * Lines are read with a hard cap of RECORDING_MAX_LINE bytes (a longer line
 * is an error, found without ever buffering more than the cap).
 */
#ifndef ASMSPY_HOST_RECORDING_H
#define ASMSPY_HOST_RECORDING_H

#include "asmspy-internal/json.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECORDING_FORMAT_VERSION 1          /* what this reader implements */
#define RECORDING_MAX_LINE (1024u * 1024u)  /* bytes per line, without '\n' */
#define RECORDING_MAX_TYPES 32              /* distinct event types counted by name */
#define RECORDING_TYPE_NAME_MAX 32          /* type names of this length or more go to other_types */

enum recording_verdict {
  RECORDING_VALID = 0,
  RECORDING_TRUNCATED = 1,
  RECORDING_INVALID = 2,
};

struct recording_type_count {
  char name[RECORDING_TYPE_NAME_MAX]; /* "insn", "note", ... */
  uint64_t count;
};

/* Everything a validation learned. Plain data: no pointers, nothing to free.
 * Strings from the file are copied (truncated to fit, always NUL-terminated;
 * they are UTF-8 and may contain any character: sanitize before printing). */
struct recording_report {
  int verdict; /* enum recording_verdict (so far, while iterating) */

  /* header (meaningful when have_header) */
  int have_header;
  int64_t format_version;
  char tool[64];
  char tool_version[64];
  char mode[64];
  int64_t pid;
  int backend_null; /* "backend":null (no backend, e.g. --backends) */
  char backend[64]; /* "" when null */
  char kernel[128];
  char arch[64];
  char hostname[256]; /* optional in the header: "" when absent */
  char start_time[64];

  /* events (lines between header and footer) */
  uint64_t lines;       /* physical lines read */
  uint64_t events;      /* event lines accepted (== the last seq) */
  uint64_t lost_events; /* sum of "count" over "lost" events */
  size_t n_types;       /* used entries of types[], in order of first appearance */
  struct recording_type_count types[RECORDING_MAX_TYPES];
  uint64_t other_types; /* events whose type did not fit the table */

  /* footer (meaningful when have_end) */
  int have_end;
  int64_t end_events;
  int64_t lost; /* the footer's "lost" */
  char end_reason[32];
  int64_t end_status;

  /* First problem. For INVALID: the line (1-based; 0 when not tied to a line,
   * e.g. the file cannot be opened) and the message. For TRUNCATED: why
   * ("no end footer after 17 events"); error_line is the cut line when the
   * last line is incomplete, else 0. Empty for VALID. */
  uint64_t error_line;
  char error[256];
  /* A non-fatal remark (newer format_version, missing final newline). */
  char warning[256];
};

/* ---- validation ------------------------------------------------------------ */

/* Read f to its end (or to the first error) and fill *rep (may be NULL).
 * Returns the verdict: 0 valid, 1 truncated, 2 invalid. Does not close f. */
int recording_validate(FILE *f, struct recording_report *rep);

/* Same for a path; "-" is stdin. A file that cannot be opened is INVALID with
 * error_line 0 and error "cannot open: <strerror>". */
int recording_validate_path(const char *path, struct recording_report *rep);

/* "valid", "truncated", "invalid". */
const char *recording_verdict_name(int verdict);

/* The count for one event type name in rep (0 when never seen). */
uint64_t recording_type_count(const struct recording_report *rep, const char *type);

/* ---- iteration --------------------------------------------------------------- */

struct recording;

/* Open a recording; "-" is stdin (not closed by recording_close). Reads and
 * checks the header line at once. Returns NULL only when the file cannot be
 * opened or memory is short (errno set); a bad header is reported by the
 * first recording_next() returning -1 and in recording_get_report(). */
struct recording *recording_open(const char *path);

/* Iterate an already open stream; f is not closed by recording_close. */
struct recording *recording_open_file(FILE *f);

/* The next event line, parsed and checked.
 *   1  *event is set: a JSON object with "type" and "seq". It belongs to rec
 *      and stays valid until the next recording_next() or recording_close().
 *   0  no more events: the end footer was read and nothing follows it
 *      (VALID), or the input ended without a footer (TRUNCATED). Check
 *      recording_get_report(rec)->verdict.
 *  -1  the recording is INVALID at the reported line; iteration is over.
 * Once it has returned 0 or -1 it keeps returning the same value. */
int recording_next(struct recording *rec, const struct json_value **event);

/* The parsed header object (NULL when line 1 was not a valid header). */
const struct json_value *recording_header(const struct recording *rec);

/* The parsed end footer (NULL until it has been read, or when absent). */
const struct json_value *recording_footer(const struct recording *rec);

/* The report accumulated so far (never NULL for a non-NULL rec). */
const struct recording_report *recording_get_report(const struct recording *rec);

/* Release rec (NULL is fine), closing the file if recording_open opened it. */
void recording_close(struct recording *rec);

/* ---- code images (recording_codeimage.c) ---------------------------------- */

/* Every version of every code region a recording holds (its `codeimage`
 * events), to answer: which bytes were at addr at logical time t? */
struct recording_codeimages;
struct recording_codeimages *recording_codeimages_new(void);
void recording_codeimages_free(struct recording_codeimages *ci);
/* Add one `codeimage` event line. Returns 0, or -1 when ev is not a
 * well-formed codeimage (it is then ignored). */
int recording_codeimages_add(struct recording_codeimages *ci, const struct json_value *ev);
size_t recording_codeimages_count(const struct recording_codeimages *ci);
/* The bytes at addr as they were at logical time t (a seq): those of the
 * version with the greatest `when` <= t among the versions covering addr.
 * Copies up to cap bytes (never past that version's end) to buf and returns
 * how many; 0 when no version covers addr at t. *version and *when (may be
 * NULL) name the version used. */
size_t recording_codeimages_at(const struct recording_codeimages *ci, uint64_t addr, uint64_t t,
                               uint8_t *buf, size_t cap, uint64_t *version, uint64_t *when);

#ifdef __cplusplus
}
#endif
#endif
