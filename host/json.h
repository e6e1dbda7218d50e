/* host/json.h: the host's name for asmspy-internal/json.h, a module the
 * applications use too (their application API: asmspy-internal/app_api.h). */
#ifndef ASMSPY_HOST_JSON_FWD_H
#define ASMSPY_HOST_JSON_FWD_H
#include "asmspy-internal/json.h"
#endif
