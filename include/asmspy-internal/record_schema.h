/* record_schema.h — the record schemas the host knows (its own, and those
 * of the loaded views), and the check of one JSON record against one. */
#ifndef ASMSPY_HOST_RECORD_SCHEMA_H
#define ASMSPY_HOST_RECORD_SCHEMA_H

#include "asmspy/plugin.h"
#include "asmspy-internal/json.h"

#include <stddef.h>

/* host_records.c: the host's own records (header, end, note, lost,
 * codeimage), ending with a NULL type. */
const struct asmspy_record_schema *host_record_schemas(void);

/* record_catalog.c: the schema of records of `type`: the host's own first,
 * then the first loaded view declaring it (the views found the way asmspy
 * finds them: $ASMSPY_PLUGIN_PATH, the build tree, the plugin directory;
 * loaded once per process, without probes). NULL: nobody declares it. */
const struct asmspy_record_schema *record_schema_find(const char *type);
/* Every view schema, in plugin order, each with the view's mode
 * (NULL-terminated arrays owned by the catalog; *n set). */
const struct asmspy_record_schema *const *record_view_schemas(const char *const **modes, size_t *n);

/* record_check.c: check obj's members against fields (nested objects and
 * arrays of objects too). `what` names obj in messages ("insn",
 * "graph.nodes[]"). Returns 0, or -1 with msg set to the first problem:
 * "<what>.<member> is missing (must be ...)" / "<what>.<member> must be ...". */
int record_check(const struct json_value *obj, const struct asmspy_field *fields, const char *what,
                 char *msg, size_t cap);

#endif
