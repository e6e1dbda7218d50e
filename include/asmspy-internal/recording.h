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

#include <asmspy/recording.h>

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECORDING_FORMAT_VERSION 1         /* what this reader implements */
#define RECORDING_MAX_LINE (1024u * 1024u) /* bytes per line, without '\n' */

/* The report is the public one (asmspy/recording.h), defined once: the
 * reader fills it from verdict on; abi_version / struct_size and the
 * raw_control_* members are the public entry point's
 * (recording_check.c). */
#define RECORDING_MAX_TYPES ASMSPY_RECORDING_MAX_TYPES
#define RECORDING_TYPE_NAME_MAX ASMSPY_RECORDING_TYPE_NAME_MAX /* longer names: other_types */

enum recording_verdict {
  RECORDING_VALID = ASMSPY_RECORDING_VALID,
  RECORDING_TRUNCATED = ASMSPY_RECORDING_TRUNCATED,
  RECORDING_INVALID = ASMSPY_RECORDING_INVALID,
};

/* ---- validation ------------------------------------------------------------ */

/* Read f to its end (or to the first error) and fill *rep (may be NULL).
 * Returns the verdict: 0 valid, 1 truncated, 2 invalid. Does not close f. */
int recording_validate(FILE *f, struct asmspy_recording_report *rep);

/* Same for a path; "-" is stdin. A file that cannot be opened is INVALID with
 * error_line 0 and error "cannot open: <strerror>". */
int recording_validate_path(const char *path, struct asmspy_recording_report *rep);

/* "valid", "truncated", "invalid". */
const char *recording_verdict_name(int verdict);

/* The count for one event type name in rep (0 when never seen). */
uint64_t recording_type_count(const struct asmspy_recording_report *rep, const char *type);

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
const struct asmspy_recording_report *recording_get_report(const struct recording *rec);

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
