/* host/record_schema.h: the host's name for asmspy-internal/record_schema.h, a module the
 * applications use too (their application API: asmspy-internal/app_api.h). */
#ifndef ASMSPY_HOST_RECORD_SCHEMA_FWD_H
#define ASMSPY_HOST_RECORD_SCHEMA_FWD_H
#include "asmspy-internal/record_schema.h"
#endif
