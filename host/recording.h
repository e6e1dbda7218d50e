/* host/recording.h: the host's name for asmspy-internal/recording.h, a module the
 * applications use too (their application API: asmspy-internal/app_api.h). */
#ifndef ASMSPY_HOST_RECORDING_FWD_H
#define ASMSPY_HOST_RECORDING_FWD_H
#include "asmspy-internal/recording.h"
#endif
