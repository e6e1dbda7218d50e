/* app_api.h — libasmspy's APPLICATION API: what the asmspy command (cli/),
 * the TUI (tui/) and the maintainer tools (tools/) may call beyond the
 * public asmspy_* API of include/asmspy/. INTERNAL: not installed, no ABI,
 * no struct_size discipline; it changes with the tree, and the only code
 * that links it is built in this tree (docs/architecture.md,
 * "The application library").
 *
 * The applications include this header (and the public ones, and common/),
 * never host/: tests/abi/check_app_api.sh greps cli/, tui/ and tools/ for a
 * host/ include and checks with nm that every libasmspy symbol they link is
 * either exported by libasmspy.so or declared in include/asmspy-internal/.
 * They link it as libasmspy_app.a (the same objects as libasmspy.a, so one
 * copy of the engine's state per process); host/host.h includes this
 * header, so a declaration here and its definition in host/ cannot drift.
 *
 * Besides the declarations below, the application API is made of whole
 * host modules whose headers live next to this one:
 *   json.h           the JSON escaper and the strict reader (DOM)
 *   recording.h      the .asmtrace reader/validator, code-image versions
 *   record_schema.h  the record schemas: the host's own and the views'
 *   symbols.h        symbol tables of a live process (symtab_*)
 *   procinfo.h       the no-attach process snapshot and attach verdict
 */
#ifndef ASMSPY_INTERNAL_APP_API_H
#define ASMSPY_INTERNAL_APP_API_H

#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "asmspy-internal/json.h"
#include "asmspy-internal/procinfo.h"
#include "asmspy-internal/record_schema.h"
#include "asmspy-internal/recording.h"
#include "asmspy-internal/symbols.h"

/* ---- target.c: one traced process (opened without attaching) ----------- */
struct asmspy_target *target_open(pid_t pid, int *err);
void target_close(struct asmspy_target *t);
struct asmspy_symtab *target_symtab(struct asmspy_target *t);
/* data_symbols.c: --watch addresses (host->resolve_data) */
int target_resolve_data(struct asmspy_target *t, const char *spec, uint64_t *addr, uint64_t *size,
                        char *err, size_t errcap);
/* Every data symbol (STT_OBJECT / STT_COMMON, defined, not TLS) of every
 * module mapped into pid, the names target_resolve_data accepts (the TUI's
 * watch prompt completes from them). fn returns non-zero to stop. 0, or
 * -errno when pid's modules cannot be read. */
typedef int (*data_symbol_fn)(void *ctx, const char *name, uint64_t addr, uint64_t size,
                              const char *module);
int target_data_symbols(pid_t pid, data_symbol_fn fn, void *ctx);

/* ---- disasm.c: Capstone, Intel syntax, cached by (addr, bytes) --------- */
int disasm_one(uint64_t addr, const uint8_t *bytes, size_t len, char *text, size_t cap);

/* ---- output.c: the one writer (--serve and replay write through it) ---- */
struct out_opts {
  const char *mode;
  const char *backend;
  pid_t pid;
  int json;                /* NDJSON to json_out instead of text */
  const char *record_path; /* also write NDJSON lines to this file */
  FILE *text_out;
  FILE *json_out;
  int argc; /* the command line, recorded in the header */
  char *const *argv;
  /* Embedders (the TUI): when set, every record's text and every note go to
   * record_sink instead of text_out / stderr, with the record's type and JSON
   * body (views then always format the body: out_wants_json() is true).
   * The JSON channels (json, record_path) are unaffected. */
  asmspy_record_fn record_sink;
  void *record_ctx;
  /* Typed records (host->emit_record) go here instead of record_sink. */
  asmspy_typed_record_fn typed_sink;
};
struct asmspy_out *out_open(const struct out_opts *o, int *err);
/* End reasons for the footer. */
enum out_end_reason {
  OUT_END_COMPLETED = 0,
  OUT_END_N_REACHED,
  OUT_END_TARGET_EXITED,
  OUT_END_INTERRUPTED,
  OUT_END_ERROR,
};
void out_set_end_reason(struct asmspy_out *out, enum out_end_reason why);
int out_emit(struct asmspy_out *out, const char *type, const char *json_fields, const char *text);
void out_note(struct asmspy_out *out, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes the footer and closes the record file. */
void out_close(struct asmspy_out *out, int status);
int out_wants_json(const struct asmspy_out *out);
int out_wants_text(const struct asmspy_out *out);
int out_wants_values(const struct asmspy_out *out);

/* ---- engine_launch.c ------------------------------------------------------ */
/* The wait status the last --launch'ed command ended with (and forgets it),
 * or -1: the CLI exits with it (the command's exit code, or its signal). */
int launch_take_status(void);
/* The application ignores sig for its own sake (the tracer's SIGTTOU in its
 * own process group) where the user's disposition was the default: a
 * launched command gets SIG_DFL back before exec, as it would have had
 * without asmspy (an ignored disposition survives exec). */
void launch_child_default_signal(int sig);

/* ---- sampler_ladder.c: host->run_sampler ---------------------------------- */
/* The engine the ladder walks (the TUI runs samplers outside asmspy_run). */
void sampler_ladder_set_engine(struct asmspy_engine *e);
/* The rung used when none is named (--sample): the ladder's first. */
const struct asmspy_plugin_info *sampler_default(const struct asmspy_engine *e);
int host_run_sampler(const struct asmspy_session *s, const char *sampler, int64_t window_ms,
                     asmspy_sink_fn sink, void *ctx, char *used, size_t cap);

/* ---- attach_diag.c ---------------------------------------------------------- */
/* Before any attach: 1 with `why` ("pid 2 is a kernel thread: no user space
 * to trace", "pid N is a zombie (...)", "pid N is exiting ...", or, when its
 * memory map cannot even be read, the refusal explained as by
 * attach_explain_refusal) when pid cannot be traced at all; 0 when nothing
 * rules it out (then the attach is the judge), including a pid that does not
 * exist (the caller says "no such process"). */
int attach_precheck(pid_t pid, char *why, size_t cap);

/* ---- undo_journal.c: the supervisor's side ---------------------------------- */
/* Map a journal of `bytes` shared with the children forked from now on
 * (before the tracer is forked). 0, or -errno. */
int undo_journal_create(size_t bytes);
/* After the tracer died: restore every entry left (attach, write the old
 * bytes back where the new ones are still there, detach). Writes one line
 * per target to stderr. Returns the number of places restored. */
int undo_journal_replay(void);

#endif
