/* host/symbols.h: the host's name for asmspy-internal/symbols.h, a module the
 * applications use too (their application API: asmspy-internal/app_api.h). */
#ifndef ASMSPY_HOST_SYMBOLS_FWD_H
#define ASMSPY_HOST_SYMBOLS_FWD_H
#include "asmspy-internal/symbols.h"
#endif
