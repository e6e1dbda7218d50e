/* remote_maps.c — code that may change under a translation, in a traced
 * process (docs/codecache.md, "Code that changes").
 *
 * A JIT (V8, HotSpot, Mono) writes code into anonymous or memfd memory and
 * patches it in place; a program may also make its own code writable
 * (mprotect) and rewrite it. A copy made before such a write would run the
 * old code. So:
 *   - code in a mapping that is writable or not backed by a file is
 *     translated as a checked block (translate.c, CC_CHECKED): before each
 *     run it compares its original bytes with what it translated, and when
 *     they differ it asks here (CC_RSTUB_STALE) for a new translation;
 *   - every munmap, mremap, mmap and mprotect asks first (CC_RSTUB_UNMAP):
 *     one that takes away, replaces (MAP_FIXED) or makes writable code that
 *     unchecked blocks translated drops every translation; one that may
 *     change what a mapping is runs natively and is caught at its exit,
 *     and until then every new translation is checked;
 *   - the executable mappings are read from /proc/<pid>/maps when an
 *     address is in none of those last read, and after such a call.
 * Writes that need neither (another process's process_vm_writev, a write
 * to /proc/<pid>/mem of read-only code) are not seen. */
#define _GNU_SOURCE
#include "plugins/codecache/remote.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define F(off) ((off) / 8)

/* /proc/<pid>/maps' executable mappings into rm->xmaps. 0 or -1. */
static int read_xmaps(struct cc_remote *rm) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)rm->s->pid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  rm->nxmaps = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long lo, hi, ino;
    char perms[8] = "";
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &lo, &hi, perms, &ino, &path_at) < 4)
      continue;
    if (!strchr(perms, 'x')) continue;
    const char *name = path_at ? line + path_at : "";
    size_t n = strcspn(name, "\n");
    /* backed by a file nobody writes through another mapping: not a memfd
     * (a JIT's double map), not deleted, not shared */
    int file = n && name[0] == '/' && ino != 0 && strncmp(name, "/memfd:", 7) != 0 &&
               !(n > 10 && !strncmp(name + n - 9, "(deleted)", 9)) && perms[3] != 's';
    if (rm->nxmaps == rm->capxmaps) {
      size_t nc = rm->capxmaps ? rm->capxmaps * 2 : 64;
      struct rm_xmap *m = realloc(rm->xmaps, nc * sizeof *m);
      if (!m) break;
      rm->xmaps = m, rm->capxmaps = nc;
    }
    rm->xmaps[rm->nxmaps++] = (struct rm_xmap){lo, hi, strchr(perms, 'w') != NULL || !file};
  }
  fclose(f);
  rm->xmaps_stale = 0;
  return 0;
}

static const struct rm_xmap *xmap_of(const struct cc_remote *rm, uint64_t addr) {
  for (size_t i = 0; i < rm->nxmaps; i++)
    if (addr >= rm->xmaps[i].lo && addr < rm->xmaps[i].hi) return &rm->xmaps[i];
  return NULL;
}

int rm_code_volatile(struct cc_cache *c, uint64_t addr) {
  struct cc_remote *rm = c->remote;
  if (rm->maps_changing) return 1; /* a mapping may be changing right now */
  const struct rm_xmap *m = rm->xmaps_stale ? NULL : xmap_of(rm, addr);
  if (!m && read_xmaps(rm) == 0) m = xmap_of(rm, addr);
  return m ? m->vol : 1; /* in no executable mapping we can see: assume the worst */
}

uint64_t rm_answer_map_call(struct cc_remote *rm, struct rthread *t, const uint64_t *top,
                            uint64_t cont) {
  /* rdispatch.S pushed rax, flags, rcx, rdx, rsi, rdi, r11, r10 below the
   * stub index: top[-2] is rax (the call), top[-7] rdi, top[-6] rsi,
   * top[-5] rdx, top[-9] r10 */
  uint64_t nr = top[-2], addr = top[-7], len = top[-6], prot = top[-5], flags = top[-9];
  rm->xmaps_stale = 1; /* what is mapped where may differ from now on */
  int goes = nr == SYS_munmap || nr == SYS_mremap;
  int fixed = nr == SYS_mmap && (flags & MAP_FIXED);
  int protect = nr == SYS_mprotect || nr == 329 /* pkey_mprotect */;
  if (nr == SYS_mmap && !fixed) return cont; /* a new mapping: seen when its code runs */
  /* code that goes, is replaced, or turns writable under unchecked blocks */
  int drop = (goes || fixed) ? rm_translated_in(rm, addr, len, 0)
                             : (prot & PROT_WRITE) && rm_translated_in(rm, addr, len, 1);
  if (!drop && goes) return cont; /* nothing translated goes: the copy runs */
  if (drop) rm->flush_req = 1;    /* remote.c drops every translation first */
  t->catch_nr = (int)nr;          /* it runs natively: back in at its exit */
  if ((fixed || protect) && !t->catch_maps) t->catch_maps = 1, rm->maps_changing++;
  return 0;
}

void rm_map_call_done(struct cc_remote *rm, struct rthread *t) {
  if (t->catch_nr == SYS_rt_sigreturn) return;
  if (t->catch_maps) {
    t->catch_maps = 0;
    if (rm->maps_changing) rm->maps_changing--;
  }
  rm->xmaps_stale = 1;
}

uint64_t rm_answer_stale(struct cc_remote *rm, struct rthread *t, uint64_t orig,
                         uint64_t repoint_at) {
  uint32_t hit = cc_lookup(&rm->c, orig);
  uint64_t code = 0;
  if (hit && cc_block_current(&rm->c, &rm->c.blocks[hit - 1])) {
    code = rm->c.blocks[hit - 1].code; /* translated again already (another thread) */
  } else {
    const char *why = NULL;
    int64_t bi = rm_translate_again(rm, orig, t->tid, &why);
    if (bi < 0) {
      rm->untranslated++;
      rm->last_why = why, rm->last_why_ip = orig;
      return 0;
    }
    code = rm->c.blocks[bi].code;
    rm->stale_hits++;
  }
  /* the changed block's entry (a jmp, its rel32 at repoint_at) leads to the
   * new translation from now on, and with it every branch linked there;
   * never to itself (its bytes may have changed back meanwhile) */
  uint8_t *rel = rm_local(rm, repoint_at);
  int32_t d;
  if (code != repoint_at - 1 && rel && !(repoint_at & 3) && cc_rel32(repoint_at + 4, code, &d))
    __atomic_store_n((int32_t *)(void *)rel, d, __ATOMIC_RELEASE);
  return code;
}
