/* One basic block, original -> code cache (translate.c). */
#ifndef ASMSPY_CODECACHE_TRANSLATE_H
#define ASMSPY_CODECACHE_TRANSLATE_H

#include "plugins/codecache/cache.h"

/* Translate the block at orig; its index in c->blocks, or -1 with *why
 * (a static string) and *why_kind (enum cc_why) saying what stopped it. */
int64_t cc_translate(struct cc_cache *c, uint64_t orig, const char **why, int *why_kind);

/* Where a call (its bytes p, at address ip) goes, seen through a PLT stub
 * or a -fno-plt GOT slot; 0 when it is not a direct call nor
 * call *slot(%rip). */
uint64_t cc_call_target(const uint8_t *p, uint64_t ip);

#endif
