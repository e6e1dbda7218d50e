/* The codecache backend's scope ops (inproc.c) and its record decoder
 * (decode.c). */
#ifndef ASMSPY_CODECACHE_INPROC_H
#define ASMSPY_CODECACHE_INPROC_H

#include <asmspy/plugin.h>

#include "plugins/codecache/cache.h"

int cc_inproc_begin(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                    void **handle);
int cc_inproc_end(void *handle, asmspy_sink_fn sink, void *sink_ctx);

/* The block records of h as instruction events, then the notes
 * (truncation, debug). nrec: records written. full: a block found the
 * buffer full. */
void cc_decode_emit(struct cc_handle *h, const struct cc_cache *c, uint64_t nrec, int full,
                    asmspy_sink_fn sink, void *sink_ctx);

#endif
