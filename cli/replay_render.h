/* replay_render.h — --replay's renderings of a record from its schema. */
#ifndef ASMSPY_CLI_REPLAY_RENDER_H
#define ASMSPY_CLI_REPLAY_RENDER_H

#include "asmspy/plugin.h"
#include "asmspy-internal/app_api.h"
#include "common/strbuf.h"

#include <stdint.h>

/* The human line of ev rebuilt from schema->text (for recordings without
 * "human"). Returns 0 when the schema has no template (nothing to print). */
int replay_text(const struct asmspy_record_schema *schema, const struct json_value *ev,
                struct strbuf *out);

/* A --disasm heading: "<type> <first TITLE> (seq S) <name>=<value>..."
 * ("sample #3 (seq 40) ret=35", "dataflow helper (seq 12)"). */
void replay_heading(const struct asmspy_record_schema *schema, const struct json_value *ev,
                    int64_t seq, struct strbuf *out);

#endif
