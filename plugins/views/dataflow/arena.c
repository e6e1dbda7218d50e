/* The render arena of the dataflow view (streams.h): chunks chained from
 * head, each allocation zeroed, all freed at once. */
#include "plugins/views/dataflow/streams.h"

#include <stdlib.h>
#include <string.h>

struct df_chunk {
  struct df_chunk *next;
  max_align_t data[]; /* the allocation */
};

void *df_alloc(struct df_arena *a, size_t n) {
  if (a->oom) return NULL;
  struct df_chunk *c = calloc(1, sizeof *c + (n ? n : 1));
  if (!c) {
    a->oom = 1;
    return NULL;
  }
  c->next = a->head;
  a->head = c;
  return c->data;
}

char *df_strdup(struct df_arena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = df_alloc(a, n);
  if (p) memcpy(p, s, n);
  return p;
}

struct asmspy_value *df_values(struct df_arena *a, size_t n) {
  return df_alloc(a, (n ? n : 1) * sizeof(struct asmspy_value));
}

void df_arena_free(struct df_arena *a) {
  while (a->head) {
    struct df_chunk *n = a->head->next;
    free(a->head);
    a->head = n;
  }
  a->oom = 0;
}
