/* scope_lines — a scope listing's rendered lines kept by address.
 *
 * Every scope over the same code renders the same lines: a Python `with`
 * scope lists ~4,200 instructions of interpreter glue, and rendering them
 * (a symbol lookup, Capstone, formatting) cost about a millisecond, far
 * more than capturing them by translation (tens of microseconds). Kept by
 * address and bytes in one process-wide table, so only code not seen
 * before is rendered. Scopes end on any thread: every call here is made
 * under scope.c's lock (render), which guards the table too.
 * A line whose address no module covers is not kept (the symbols may
 * arrive later); the table is emptied when the link map changes. */
#define _GNU_SOURCE
#include "host/scope_lines.h"

#include "host/host.h"
#include "common/strbuf.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 32768u /* open addressing, PROBES deep; a Ruby scope lists ~10,000 */
#define PROBES 8
#define ARENA (2u << 20) /* the lines' text; when it is full everything starts over */

struct line {
  uint64_t ip;
  uint32_t text; /* offset in g_arena */
  uint8_t len, tlen;
  uint8_t bytes[16];
};

static struct line *g_lines; /* under scope.c's lock */
static char *g_arena;
static size_t g_used;
static unsigned long long g_adds, g_subs;

static void forget_all(void) {
  if (g_lines) memset(g_lines, 0, SLOTS * sizeof *g_lines);
  g_used = 0;
}

static int counts(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  unsigned long long *n = data;
  n[0] = info->dlpi_adds;
  n[1] = info->dlpi_subs;
  return 1;
}

void scope_lines_check_maps(void) {
  unsigned long long n[2] = {0, 0};
  dl_iterate_phdr(counts, n);
  if (n[0] != g_adds || n[1] != g_subs) forget_all();
  g_adds = n[0], g_subs = n[1];
}

/* The line rendered now; *kept: worth keeping (a module covers it). */
static void render(struct asmspy_target *t, uint64_t ip, const uint8_t *bytes, uint8_t len,
                   char *out, size_t cap, int *kept) {
  char desc[200], dis[160];
  const char *d = t ? target_describe(t, ip, desc, sizeof desc) : NULL;
  *kept = d && !strstr(d, "[?]");
  if (!d) snprintf(desc, sizeof desc, "0x%llx", (unsigned long long)ip), d = desc;
  if (!len || !disasm_one(ip, bytes, len, dis, sizeof dis)) snprintf(dis, sizeof dis, "(bad)");
  snprintf(out, cap, "%s  %s", d, dis);
}

static uint64_t slot_of(uint64_t ip) { return (ip * 0x9e3779b97f4a7c15ull) >> 49; }

void scope_line_add(struct strbuf *b, struct asmspy_target *t, uint64_t ip, const uint8_t *bytes,
                    uint8_t len) {
  if (len > 16) len = 16;
  if (!g_lines) {
    g_lines = calloc(SLOTS, sizeof *g_lines);
    g_arena = malloc(ARENA);
    if (!g_lines || !g_arena) free(g_lines), free(g_arena), g_lines = NULL, g_arena = NULL;
  }
  uint64_t h = slot_of(ip);
  struct line *free_slot = NULL;
  for (unsigned k = 0; g_lines && k < PROBES; k++) {
    struct line *e = &g_lines[(h + k) % SLOTS];
    if (!e->ip) {
      if (!free_slot) free_slot = e;
      break;
    }
    if (e->ip == ip && e->len == len && !memcmp(e->bytes, bytes, len)) {
      strbuf_addn(b, g_arena + e->text, e->tlen);
      return;
    }
  }
  char out[448];
  int kept;
  render(t, ip, bytes, len, out, sizeof out - 1, &kept);
  size_t n = strlen(out);
  out[n++] = '\n';
  strbuf_addn(b, out, n);
  if (!kept || !g_lines || n > 255) return;
  if (g_used + n > ARENA) { /* full: start over (the next scopes refill it) */
    forget_all();
    free_slot = &g_lines[h % SLOTS];
  }
  struct line *e = free_slot ? free_slot : &g_lines[h % SLOTS]; /* probes full: replace */
  e->ip = ip;
  e->len = len;
  memcpy(e->bytes, bytes, len);
  e->text = (uint32_t)g_used;
  e->tlen = (uint8_t)n;
  memcpy(g_arena + g_used, out, n);
  g_used += n;
}
