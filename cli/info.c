/* --info <pid> [--json] [--record=<f>]: the process snapshot. A thin
 * consumer of host/procinfo.c (the TUI and --serve reuse it): read,
 * render, emit one `procinfo` event through the one writer. Reads /proc and
 * the mapped ELF files only; never attaches, never calls ptrace on the
 * target. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "asmspy-internal/app_api.h"

#include <errno.h>
#include <string.h>

/* --info reads one process and attaches nothing: --tid, --follow and
 * --backend are not among its options. */
const struct asmspy_option cli_info_options[] = {
    {"json", NULL, "one procinfo event as NDJSON on stdout"},
    {"record", "<f>", "also write the recording to <f>"},
    {NULL, NULL, NULL},
};

int cli_cmd_info(int argc, char **argv) {
  struct cli_mode_args a;
  if (cli_parse_mode_args("info", argc, argv, 1, cli_info_options, NULL, 1, "<pid>", &a))
    return CLI_EXIT_USAGE;
  if (a.view_argc)
    return cli_usage_error(
        "--info: unexpected argument '%s' (--info <pid> [--json] [--record=<f>])", a.view_argv[0]);
  struct procinfo pi;
  int err = procinfo_read(a.pid, NULL, 0, &pi);
  if (err) {
    procinfo_free(&pi);
    fprintf(stderr, "asmspy: pid %d: %s\n", (int)a.pid,
            err == ESRCH || err == ENOENT ? "no such process" : strerror(err));
    return CLI_EXIT_FAIL;
  }
  struct out_opts oo = {.mode = "info", .pid = a.pid, .json = a.json, .record_path = a.record};
  struct asmspy_out *out = out_open(&oo, &err);
  if (!out) {
    procinfo_free(&pi);
    fprintf(stderr, "asmspy: cannot open recording '%s': %s\n", a.record, strerror(err));
    return CLI_EXIT_FAIL;
  }
  char *fields = out_wants_json(out) ? procinfo_json_fields(&pi) : NULL;
  char *text = out_wants_text(out) ? procinfo_text(&pi) : NULL;
  int rc = CLI_EXIT_OK;
  if ((out_wants_json(out) && !fields) || (out_wants_text(out) && !text)) {
    out_set_end_reason(out, OUT_END_ERROR);
    out_note(out, ASMSPY_NOTE_WARN, "out of memory rendering pid %d", (int)a.pid);
    rc = CLI_EXIT_FAIL;
  } else {
    out_emit(out, "procinfo", fields, text);
  }
  out_close(out, rc == CLI_EXIT_OK ? 0 : -ASMSPY_E_NOMEM);
  free(fields);
  free(text);
  procinfo_free(&pi);
  return rc;
}
