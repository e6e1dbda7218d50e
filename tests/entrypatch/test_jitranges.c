/* test_jitranges: jitranges.c on maps text shaped like a JVM's and a node's:
 * an anonymous executable mapping grows over its anonymous neighbours (the
 * reserved rest of a code cache), never over a file, the stack or one of
 * the agent's own mappings; the agent's code region is no JIT; more ranges
 * than the agent holds keep the largest. */
#define _GNU_SOURCE
#include "../unit/check.h"
#include "plugins/entrypatch/jitranges.h"

#include <stdio.h>
#include <string.h>

static size_t ranges(const char *text, const struct agent_mapping *ours, size_t nours,
                     struct agent_mapping *out, size_t cap) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  struct ep_maps maps;
  CHECK(f && ep_maps_parse(f, &maps) == 0, "maps parse");
  if (f) fclose(f);
  size_t n = ep_jit_ranges(&maps, ours, nours, out, cap);
  ep_maps_free(&maps);
  return n;
}

int main(void) {
  struct agent_mapping out[AGENT_MAX_JIT];
  /* HotSpot: the code cache reserved at once, committed rwx piece by piece */
  const char *jvm = "00400000-00401000 r-xp 00000000 08:01 100 /usr/bin/java\n"
                    "7f0000000000-7f0000100000 rwxp 00000000 00:00 0 \n"
                    "7f0000100000-7f0000800000 ---p 00000000 00:00 0 \n"
                    "7f0000800000-7f0000900000 rwxp 00000000 00:00 0 \n"
                    "7f0000900000-7f000f000000 ---p 00000000 00:00 0 \n"
                    "7f000f000000-7f000f100000 r-xp 00000000 08:01 200 /usr/lib/libjvm.so\n"
                    "7f000f200000-7f000f201000 r-xp 00000000 00:00 0 \n"
                    "7ffff0000000-7ffff0100000 rw-p 00000000 00:00 0 [stack]\n";
  /* the agent's code region is the lone anonymous r-xp at 7f000f200000 */
  struct agent_mapping ours[] = {{0x7f000f200000ull, 0x1000}, {0, 0}};
  size_t n = ranges(jvm, ours, 2, out, AGENT_MAX_JIT);
  CHECK(n == 1, "one JIT range (%zu)", n);
  CHECK(n >= 1 && out[0].base == 0x7f0000000000ull && out[0].size == 0xf000000ull,
        "the whole reserved code cache [%#llx, +%#llx)", (unsigned long long)out[0].base,
        (unsigned long long)out[0].size);

  /* the agent region right after the code cache: the range stops before it */
  const char *next = "7f0000000000-7f0000100000 rwxp 00000000 00:00 0 \n"
                     "7f0000100000-7f0000101000 r-xp 00000000 00:00 0 \n"
                     "7f0000101000-7f0000200000 rw-p 00000000 00:00 0 \n";
  struct agent_mapping ours2[] = {{0x7f0000100000ull, 0x1000}};
  n = ranges(next, ours2, 1, out, AGENT_MAX_JIT);
  CHECK(n == 1 && out[0].base == 0x7f0000000000ull && out[0].size == 0x100000,
        "stops at the agent's region (%zu)", n);

  /* no JIT at all: a plain C program */
  const char *c = "00400000-00401000 r-xp 00000000 08:01 100 /bin/victim\n"
                  "01000000-01100000 rw-p 00000000 00:00 0 [heap]\n"
                  "7ffff7fc0000-7ffff7fc2000 r-xp 00000000 00:00 0 [vdso]\n";
  n = ranges(c, NULL, 0, out, AGENT_MAX_JIT);
  CHECK(n == 0, "no JIT in a C program (%zu)", n);

  /* a named anonymous mapping ([anon:...], V8 names some) counts; more
   * ranges than room keeps the largest */
  char many[4096] = "";
  for (int i = 0; i < 20; i++) {
    char line[128];
    snprintf(line, sizeof line, "%llx-%llx r-xp 00000000 00:00 0 %s\n",
             0x10000000ull + (unsigned long long)i * 0x1000000ull,
             0x10000000ull + (unsigned long long)i * 0x1000000ull + 0x1000ull * (unsigned)(i + 1),
             i == 19 ? "[anon:v8]" : "");
    strcat(many, line);
  }
  n = ranges(many, NULL, 0, out, 4);
  int has19 = 0, smallest_ok = 1;
  for (size_t i = 0; i < n; i++) {
    if (out[i].size == 0x14000) has19 = 1;
    if (out[i].size < 0x11000) smallest_ok = 0;
  }
  CHECK(n == 4 && has19 && smallest_ok, "the 4 largest of 20 ranges kept (%zu)", n);
  return check_summary("jitranges");
}
