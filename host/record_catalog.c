/* record_catalog.c — which schema describes records of a type: the host's
 * own (host_records.c), then the loaded views' `records` tables. The host
 * keeps no list of view record types: a view written after this file (an
 * out-of-tree one on $ASMSPY_PLUGIN_PATH) is validated, replayed and
 * documented by its own schema.
 *
 * The views are read from a registry this file opens once per process,
 * without probes (a schema is static data: nothing needs to run), the way
 * asmspy finds its plugins; it stays open (plugins are never unloaded). */
#define _GNU_SOURCE
#include "asmspy/asmspy.h"
#include "host/record_schema.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct {
  pthread_once_t once;
  const struct asmspy_record_schema **schemas; /* every view's, NULL-terminated */
  const char **modes;                          /* the mode of each */
  size_t n;
  /* the registry stays open for the life of the process (the schemas are
   * its plugins' static data); held here, reachable, not leaked */
  struct asmspy_engine *engine;
} cat = {.once = PTHREAD_ONCE_INIT};

static void load_views(void) {
  struct asmspy_engine *e = cat.engine = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  if (!e) return;
  size_t cap = 0;
  for (size_t i = 0; i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *in = asmspy_plugin_at(e, i);
    const struct asmspy_view_ops *v =
        in && in->desc && in->kind == ASMSPY_KIND_VIEW ? in->desc->view : NULL;
    if (!v || !ASMSPY_HAS(v, records) || !v->records) continue;
    for (const struct asmspy_record_schema *r = v->records; r->type; r++) {
      if (cat.n + 2 > cap) {
        size_t nc = cap ? cap * 2 : 32;
        const struct asmspy_record_schema **ns = realloc(cat.schemas, nc * sizeof *ns);
        const char **nm = realloc(cat.modes, nc * sizeof *nm);
        if (ns) cat.schemas = ns;
        if (nm) cat.modes = nm;
        if (!ns || !nm) return;
        cap = nc;
      }
      cat.schemas[cat.n] = r;
      cat.modes[cat.n] = v->mode;
      cat.n++;
      cat.schemas[cat.n] = NULL;
      cat.modes[cat.n] = NULL;
    }
  }
}

const struct asmspy_record_schema *const *record_view_schemas(const char *const **modes,
                                                              size_t *n) {
  pthread_once(&cat.once, load_views);
  if (modes) *modes = cat.modes;
  if (n) *n = cat.n;
  return cat.schemas;
}

const struct asmspy_record_schema *record_schema_find(const char *type) {
  if (!type) return NULL;
  for (const struct asmspy_record_schema *r = host_record_schemas(); r->type; r++)
    if (!strcmp(r->type, type)) return r;
  size_t n = 0;
  const struct asmspy_record_schema *const *all = record_view_schemas(NULL, &n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(all[i]->type, type)) return all[i];
  return NULL;
}
