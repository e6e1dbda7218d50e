/* record_writer.c — host->emit_record: a view's typed record to every
 * channel. The JSON body is rendered from the values in schema order
 * (common/record_json.h, the renderer a view on an older host uses too, so
 * the bytes are the same either way), only when something reads it; the
 * text is the record's own; an embedder with a typed sink (the TUI) gets the
 * record itself (output.c). */
#include "host/host.h"
#include "host/json.h"

#include "common/record_json.h"

int out_emit_record(struct asmspy_out *out, const struct asmspy_record *rec) {
  if (!out || !rec || !ASMSPY_HAS(rec, text) || !rec->schema || !rec->schema->type ||
      !rec->schema->fields || !rec->values)
    return -1;
  struct strbuf body = {0};
  if (out_needs_json_body(out)) {
    record_json_body(&body, rec, json_escape);
    if (body.oom) {
      strbuf_free(&body);
      return -1;
    }
  }
  int rc = out_emit_typed(out, body.s, rec);
  strbuf_free(&body);
  return rc;
}
