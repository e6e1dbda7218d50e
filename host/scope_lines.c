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

#define LINES 16384u /* a Python `with` scope lists ~5,000 distinct addresses */

struct line {
  uint64_t ip;
  uint8_t len, tlen;
  uint8_t bytes[16];
  char text[168]; /* with its newline, not NUL-terminated */
};

static struct line *g_lines; /* under scope.c's lock */
static unsigned long long g_adds, g_subs;

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
  if (g_lines && (n[0] != g_adds || n[1] != g_subs)) memset(g_lines, 0, LINES * sizeof *g_lines);
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

void scope_line_add(struct strbuf *b, struct asmspy_target *t, uint64_t ip, const uint8_t *bytes,
                    uint8_t len) {
  if (len > 16) len = 16;
  if (!g_lines) g_lines = calloc(LINES, sizeof *g_lines);
  struct line *e = g_lines ? &g_lines[(ip ^ (ip >> 13)) % LINES] : NULL;
  if (e && e->ip == ip && e->len == len && !memcmp(e->bytes, bytes, len)) {
    strbuf_addn(b, e->text, e->tlen);
    return;
  }
  char out[448];
  int kept;
  render(t, ip, bytes, len, out, sizeof out - 1, &kept);
  size_t n = strlen(out);
  out[n++] = '\n';
  strbuf_addn(b, out, n);
  if (!kept || !e || n > sizeof e->text) return;
  e->ip = ip;
  e->len = len;
  memcpy(e->bytes, bytes, len);
  memcpy(e->text, out, n);
  e->tlen = (uint8_t)n;
}
