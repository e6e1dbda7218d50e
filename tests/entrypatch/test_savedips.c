/* test_savedips: savedips.c and maps.c on a fake process: maps text, a
 * fake stack in this process's own memory (read through a host whose
 * read_mem copies from here). Only words in executable file mappings are
 * kept; only words from sp up to the stack mapping's end are read; a word
 * strictly inside (entry, entry + len) is a hit, one at the entry is not. */
#define _GNU_SOURCE
#include "../unit/check.h"
#include "plugins/entrypatch/maps.h"
#include "plugins/entrypatch/savedips.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static ssize_t read_here(struct asmspy_target *t, uint64_t addr, void *buf, size_t len) {
  (void)t;
  memcpy(buf, (const void *)(uintptr_t)addr, len);
  return (ssize_t)len;
}

#define FN 0x401100ull /* a function whose patch would be [FN, FN + 5) */

int main(void) {
  static uint64_t stack[64] __attribute__((aligned(4096)));
  char text[1024];
  /* in address order, as the kernel lists them: this static "stack" sits
   * between the fake code and the vdso */
  snprintf(text, sizeof text,
           "00400000-00401000 r--p 00000000 08:01 100 /bin/victim\n"
           "00401000-00402000 r-xp 00001000 08:01 100 /bin/victim\n"
           "00402000-00403000 r-xp 00000000 00:00 0 \n"
           "%" PRIxPTR "-%" PRIxPTR " rw-p 00000000 00:00 0 [stack]\n"
           "7ffffffff000-7ffffffff100 r-xp 00000000 00:00 0 [vdso]\n",
           (uintptr_t)stack, (uintptr_t)(stack + 64));
  FILE *f = fmemopen(text, strlen(text), "r");
  struct ep_maps maps;
  CHECK(f && ep_maps_parse(f, &maps) == 0, "maps parse");
  fclose(f);
  CHECK(maps.n == 5, "5 mappings (%zu)", maps.n);
  CHECK(maps.n == 5 && strcmp(maps.v[1].path, "/bin/victim") == 0 && maps.v[1].exec &&
            maps.v[1].inode == 100 && maps.v[1].offset == 0x1000,
        "the code mapping");
  CHECK(maps.n == 5 && maps.v[2].path[0] == '\0' && !ep_mapping_is_exec_file(&maps.v[2]),
        "anonymous code is no file");
  CHECK(ep_maps_find(&maps, 0x401234) == &maps.v[1], "find");
  CHECK(ep_maps_find(&maps, 0x403000) == NULL, "find: a hole");
  CHECK(ep_mapping_same_file(&maps.v[0], &maps.v[1]), "same file by inode");

  /* below sp: a word inside the function's first bytes that must NOT be
   * read (dead stack); from sp on: a signal frame's saved ip at FN+3, the
   * entry itself (a function pointer), words in no code mapping */
  memset(stack, 0, sizeof stack);
  stack[2] = FN + 2;          /* below sp */
  stack[10] = 0x12345;        /* junk */
  stack[11] = FN;             /* the entry: not inside */
  stack[12] = 0x400010;       /* r--p */
  stack[13] = 0x402010;       /* anonymous r-xp */
  stack[14] = 0x7ffffffff010; /* vdso */
  stack[20] = FN + 3;         /* a saved ip inside */
  stack[63] = 0x401800;       /* the last word of the mapping: read */

  struct asmspy_host_api host;
  memset(&host, 0, sizeof host);
  host.read_mem = read_here;
  uint64_t sps[1] = {(uint64_t)(uintptr_t)&stack[8]};
  struct ep_addr_set set = {0};
  CHECK(ep_saved_ips_collect(&host, NULL, &maps, sps, 1, &set) == 0, "collect");
  ep_addr_set_seal(&set);
  CHECK(set.n == 3, "kept: FN, FN+3, 0x401800 (%zu)", set.n);
  CHECK(ep_addr_set_hit(&set, FN, FN + 5) == FN + 3, "a saved ip inside the first bytes");
  CHECK(ep_addr_set_hit(&set, FN - 0x10, FN) == 0, "the entry is not strictly inside");
  CHECK(ep_addr_set_hit(&set, FN + 3, FN + 8) == 0, "lo is exclusive");
  CHECK(ep_addr_set_hit(&set, 0x4017fe, 0x401803) == 0x401800, "the top of the stack is read");

  /* the words alone, no maps: every word kept, duplicates folded */
  struct ep_addr_set all = {0};
  const uint64_t words[] = {7, 3, 7, 9};
  CHECK(ep_saved_ips_add_words(&all, words, 4, NULL) == 0, "add");
  ep_addr_set_seal(&all);
  CHECK(all.n == 3 && all.v[0] == 3 && all.v[2] == 9, "sorted, unique");
  CHECK(ep_addr_set_hit(&all, 3, 9) == 7, "between");

  /* sp in no mapping: nothing read */
  struct ep_addr_set none = {0};
  uint64_t lost[1] = {0x10};
  CHECK(ep_saved_ips_collect(&host, NULL, &maps, lost, 1, &none) == 0 && none.n == 0,
        "an sp in no mapping");

  ep_addr_set_free(&set);
  ep_addr_set_free(&all);
  ep_addr_set_free(&none);
  ep_maps_free(&maps);
  return check_summary("savedips");
}
