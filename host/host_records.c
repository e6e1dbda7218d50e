/* host_records.c — the schemas of the records the host itself writes,
 * whatever the mode: the recording's header and end footer, notes, lost
 * counts and the region sessions' codeimage records. They are
 * asmspy_record_schema tables like a view's `records`, so the validator
 * (recording.c), replay and the generated docs/metrics.md read the host's
 * records and the views' the same way. */
#include "host/record_schema.h"

#include "common/record_fields.h"

static const struct asmspy_field host_fields[] = {
    RF_STR("kernel", 0, "uname -r"),
    RF_STR("arch", 0, "uname -m"),
    RF_STR("hostname", OPT, "the host name"),
    RF_END,
};
static const struct asmspy_field header_fields[] = {
    RF_ENUM("format", "asmtrace", 0, "the file format"),
    RF_INT("format_version", ANY_INT, 0, "its version (1)"),
    RF_STR("tool", 0, "\"asmspy\""),
    RF_STR("tool_version", 0, "its version"),
    RF_STR("mode", 0, "the mode that produced it (\"stream\", \"info\", ...)"),
    RF_INT("pid", 0, 0, "the target (0 for modes without one)"),
    RF_STR("backend", NUL, "the capture backend, or null"),
    RF_OBJECT("host", host_fields, 0, "the machine"),
    RF_STR("start_time", 0, "start, ISO 8601 UTC"),
    RF_INT("start_unix_ns", 0, OPT, "start, ns since the epoch"),
    RF_BOOL("human", OPT, "event lines carry their human text (a replay prints it)"),
    RF_ARRAY("argv", "string", NULL, OPT, "the asmspy command line, when recorded"),
    RF_END,
};
static const struct asmspy_field end_fields[] = {
    RF_INT("events", 0, 0, "event lines in the recording (= the last seq)"),
    RF_INT("lost", 0, 0, "events the backend dropped in total"),
    RF_ENUM("reason", "n_reached|target_exited|target_killed|interrupted|error|completed", 0,
            "why the recording ended"),
    RF_INT("status", ANY_INT, 0, "asmspy's status code (0, -ASMSPY_E_*, +ASMSPY_FACT_*)"),
    RF_INT("end_unix_ns", 0, OPT, "end instant, ns since the epoch"),
    RF_END,
};
static const struct asmspy_field note_fields[] = {
    RF_ENUM("level", "info|warn|skip", 0,
            "info, warn, skip (a capability this host lacks: an answer, not a failure)"),
    RF_STR("text", 0, "the message"),
    RF_END,
};
static const struct asmspy_field lost_fields[] = {
    RF_INT("count", 0, 0, "events the backend knows it dropped here"),
    RF_END,
};
static const struct asmspy_field codeimage_fields[] = {
    RF_INT("pid", ANY_INT, OPT, "the process whose memory it is"),
    RF_HEX("base", 0, "the region's start"),
    RF_INT("len", 1, 0, "the region's length in bytes"),
    RF_INT("version", 1, 0, "1, 2, ... per region: bumps only when the bytes changed"),
    RF_INT("when", 1, 0, "the logical time of this version: the seq of this line"),
    RF_ENUM("detect", "pagemap-scan|soft-dirty|compare", OPT, "how changes are found"),
    RF_BYTES("bytes", 1, 0, 0, "the region's bytes, hex, 2*len digits"),
    RF_END,
};

static const struct asmspy_record_schema host_records[] = {
    {"header", "the first line of every recording", header_fields, NULL},
    {"end", "the last line of every recording", end_fields, NULL},
    {"note", "a message (every mode)", note_fields, NULL},
    {"lost", "data the backend dropped", lost_fields, NULL},
    {"codeimage",
     "region sessions: the region's bytes as they were when it ran (at an entry, and again only "
     "when they changed)",
     codeimage_fields, NULL},
    {.type = NULL},
};

const struct asmspy_record_schema *host_record_schemas(void) { return host_records; }
