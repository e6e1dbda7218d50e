/* cli_records.h — the schemas of the records the asmspy command writes. */
#ifndef ASMSPY_CLI_RECORDS_H
#define ASMSPY_CLI_RECORDS_H

#include "asmspy/plugin.h"

/* procinfo, process, symbol, plugin (NULL type ends it); *modes, parallel,
 * names the command that writes each ("info" for --info). */
const struct asmspy_record_schema *cli_record_schemas(const char *const **modes);

#endif
