/* libasmspy — the engine as a linkable tier.
 *
 * The asmspy CLI is this library's first consumer; a TUI, a GUI or a test
 * harness calls the same entry points. Two rules every consumer inherits:
 *   - One tracer thread: asmspy_run() runs start to finish on the thread that
 *     called it (ptrace is per-thread). Run it on a dedicated thread.
 *   - Stop via the flag, never by killing the thread: set *opts->stop and
 *     pthread_kill(thread, SIGALRM) (with a no-SA_RESTART handler installed,
 *     see asmspy_install_stop_signal) to unblock waitpid; asmspy_run returns
 *     through its two-phase detach, which keeps the target alive.
 *
 * Return convention: 0 clean; negative -ASMSPY_E_* = the tracer failed;
 * positive ASMSPY_FACT_* = the tracer worked, nothing to report.
 */
#ifndef ASMSPY_ASMSPY_H
#define ASMSPY_ASMSPY_H

#include <asmspy/api.h>
#include <asmspy/plugin.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASMSPY_VERSION_STRING "0.1.0"

struct asmspy_engine;

/* One row of the registry: every plugin found, usable or not. */
struct asmspy_plugin_info {
  const char *name; /* from the descriptor, or the file's basename if it never loaded */
  const char *path; /* the .so */
  const char *description;
  uint32_t kind;        /* enum asmspy_kind, 0 if unknown (load failed) */
  uint32_t abi_version; /* what the plugin was built against (0 if unknown) */
  uint64_t caps;
  int32_t status; /* ASMSPY_USABLE, 3xx unavailable, 4xx load problem */
  int32_t sys_errno;
  char reason[256];
  const struct asmspy_plugin *desc; /* NULL unless it loaded and negotiated */
  const char *plugin_version;       /* "" unless the plugin (ABI >= 1.1) says */
};

/* Open the registry. Plugins are searched in, in order: every directory of
 * $ASMSPY_PLUGIN_PATH (':'-separated), the build tree (when the running
 * binary lives in one), and the installed plugin directory. A plugin name
 * seen twice keeps the first. Probes run isolated (forked child, time limit)
 * unless flags has ASMSPY_ENGINE_NO_PROBE. */
#define ASMSPY_ENGINE_NO_PROBE (1u << 0)
/* Probe a plugin only when it is first needed (asmspy_run probes the view
 * and the backends it considers); --backends wants them all up front. */
#define ASMSPY_ENGINE_LAZY_PROBE (1u << 1)
ASMSPY_API struct asmspy_engine *asmspy_engine_open(unsigned flags);
ASMSPY_API void asmspy_engine_close(struct asmspy_engine *e);

ASMSPY_API size_t asmspy_plugin_count(const struct asmspy_engine *e);
ASMSPY_API const struct asmspy_plugin_info *asmspy_plugin_at(const struct asmspy_engine *e,
                                                             size_t i);
/* kind 0 = any kind. NULL when absent. */
ASMSPY_API const struct asmspy_plugin_info *asmspy_find_plugin(const struct asmspy_engine *e,
                                                               uint32_t kind, const char *name);
/* The view serving CLI mode `mode` ("stream"), or NULL. */
ASMSPY_API const struct asmspy_plugin_info *asmspy_find_view_for_mode(const struct asmspy_engine *e,
                                                                      const char *mode);
/* Run the probe of one plugin now (isolated). Updates the row. */
ASMSPY_API void asmspy_probe_plugin(struct asmspy_engine *e, struct asmspy_plugin_info *row);

/* The services table handed to plugins (also usable by consumers). */
ASMSPY_API const struct asmspy_host_api *asmspy_host_api(void);

/* Write `asmspy --backends` output (human or NDJSON recording) to f. */
ASMSPY_API void asmspy_print_backends(const struct asmspy_engine *e, FILE *f, int json);

/* One record as the writer emits it (embedders: the TUI). type names the
 * record ("syscall", "graph", "note", ...); json_fields is its JSON body
 * (object members without braces) or NULL; text is the human rendering
 * (lines separated by '\n', no trailing newline) or NULL. Notes arrive as
 * type "note" with text "# ..." ("# SKIP ..." for a skip). Pointers are
 * valid only during the call. */
typedef void (*asmspy_record_fn)(void *ctx, const char *type, const char *json_fields,
                                 const char *text);

/* 1.8: one typed record as a view emitted it (struct asmspy_record,
 * asmspy/plugin.h): the values themselves, so an embedder never parses the
 * JSON back. rec->text is the human rendering (NULL in --json mode, or when
 * the record prints nothing). Valid only during the call:
 * asmspy_record_copy() keeps one. */
typedef void (*asmspy_typed_record_fn)(void *ctx, const struct asmspy_record *rec);

/* A deep copy of rec in one allocation (free() it), or NULL. Its schema
 * pointer is the view's static table (plugins are never unloaded). */
ASMSPY_API struct asmspy_record *asmspy_record_copy(const struct asmspy_record *rec);
/* The value of member `name` among fields/values (a record's
 * schema->fields and values, or a nested object's), or NULL when the
 * fields do not name it or it is ABSENT. */
ASMSPY_API const struct asmspy_value *asmspy_value_of(const struct asmspy_field *fields,
                                                      const struct asmspy_value *values,
                                                      const char *name);
/* The same for a record's top-level member. */
ASMSPY_API const struct asmspy_value *asmspy_record_get(const struct asmspy_record *rec,
                                                        const char *name);
/* The schema field of member `name` (for a nested member's `fields`), or NULL. */
ASMSPY_API const struct asmspy_field *asmspy_field_of(const struct asmspy_field *fields,
                                                      const char *name);

/* A boundary struct like those of asmspy/plugin.h: the caller fills the two
 * header words (ASMSPY_INIT_HEADER(&opts), or .abi_version =
 * ASMSPY_ABI_VERSION, .struct_size = sizeof opts) and asmspy_run refuses
 * another major or a struct shorter than this first size-prefixed one (ABI
 * 1.8: up to on_frame). Members are only appended; the library reads a newer
 * one only when ASMSPY_HAS(opts, member). */
struct asmspy_run_opts {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *mode;    /* "stream" */
  const char *backend; /* NULL = the best usable backend for the view's caps */
  pid_t pid;           /* 0 with launch_argv */
  pid_t tid;           /* 0 = whole process */
  int64_t max;         /* n (negative = until exit) */
  unsigned flags;      /* ASMSPY_SESS_FOLLOW | ASMSPY_SESS_JSON */
  int argc;            /* mode-specific args for the view */
  char *const *argv;
  char *const *launch_argv; /* --launch: command to spawn traced */
  const char *record_path;  /* --record=<f>, or NULL */
  const volatile int *stop; /* async stop flag (may be NULL) */
  FILE *text_out;           /* human text (default stdout) */
  FILE *json_out;           /* NDJSON (default stdout) */
  /* --- embedders (the TUI); zero = off. Everything below is called on the
   * thread running asmspy_run. --- */
  /* Every record and note, as emitted, instead of text_out / stderr. */
  asmspy_record_fn on_record;
  void *record_ctx;
  /* Snapshot views (view_ops.snapshot): every snapshot_ms of capture the
   * engine renders the view's current state between two events, bracketed
   * by on_frame(record_ctx, 1) ... on_frame(record_ctx, 0); the final render
   * of finish() is bracketed the same way. The records in between are one
   * complete frame; a consumer draws the last complete one. */
  int64_t snapshot_ms;
  void (*on_frame)(void *ctx, int begin);
  /* Typed records (emit_record) go here instead of on_record, with
   * record_ctx; raw emits and notes still reach on_record. */
  asmspy_typed_record_fn on_typed_record;
};

/* Run one mode end to end: pick backend + view, attach (or launch), capture,
 * render, detach. Returns 0, -ASMSPY_E_*, or a positive ASMSPY_FACT_*
 * (-ASMSPY_E_ABI: opts's header is not one this library reads). When
 * the selected backend probed unavailable, "# SKIP <name>: <reason>" is
 * printed and ASMSPY_RUN_SKIPPED is returned (the CLI exits 0: the question
 * could not be asked here, which is not a failure). */
#define ASMSPY_RUN_SKIPPED 1000
ASMSPY_API int asmspy_run(struct asmspy_engine *e, const struct asmspy_run_opts *opts);

/* Human rendering of any status code (positive, negative or zero). */
ASMSPY_API const char *asmspy_strerror(int status);

/* Install a no-op, no-SA_RESTART handler for sig (SIGALRM) so pthread_kill
 * interrupts a blocked waitpid in the tracer thread. */
ASMSPY_API void asmspy_install_stop_signal(int sig);

#ifdef __cplusplus
}
#endif
#endif
