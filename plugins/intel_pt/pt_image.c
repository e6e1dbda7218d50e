/* pt_image — libipt images from a process's mappings. See pt_image.h. */
#define _GNU_SOURCE
#include "plugins/intel_pt/pt_image.h"

#include <errno.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PTI_PAGE 4096u
#define PTI_SLOTS 64u /* direct-mapped page cache: a hot loop's code fits */
/* Keep file sections mapped between decoders: the stream is decoded one PSB
 * piece at a time, each by a fresh decoder that would otherwise map and
 * unmap every section it touches again. */
#define PTI_ISCACHE_LIMIT (256ull << 20)

struct pti_page {
  uint64_t base; /* page address; valid when len > 0 */
  uint32_t len;  /* bytes readable from base (a short read at a mapping end) */
  uint8_t bytes[PTI_PAGE];
};

struct pti_image {
  struct pt_image_section_cache *iscache;
  struct pt_image *image; /* the master: clones copy its sections */
  pti_read_fn read_fn;
  void *read_ctx;
  struct pti_page *pages; /* PTI_SLOTS */
  struct pti_stats stats;
};

/* One page through the cache; NULL when nothing is mapped there. */
static const struct pti_page *page_at(struct pti_image *im, uint64_t base) {
  struct pti_page *p = &im->pages[(base / PTI_PAGE) % PTI_SLOTS];
  if (p->len && p->base == base) return p;
  im->stats.callback_reads++;
  ssize_t n = im->read_fn(im->read_ctx, base, p->bytes, PTI_PAGE);
  if (n <= 0) {
    p->len = 0;
    im->stats.callback_misses++;
    return NULL;
  }
  p->base = base;
  p->len = (uint32_t)n;
  return p;
}

/* libipt's read_memory_callback_t: fill as much of buffer as is mapped from
 * ip on, across a page boundary if the instruction straddles one (libipt
 * decodes from what we return and reports -pte_bad_insn when it is short). */
static int pti_read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
                       void *context) {
  (void)asid; /* one process per image: every address space is ours */
  struct pti_image *im = context;
  if (!im->read_fn) return -pte_nomap;
  size_t got = 0;
  while (got < size) {
    uint64_t addr = ip + got;
    uint64_t base = addr & ~(uint64_t)(PTI_PAGE - 1);
    const struct pti_page *p = page_at(im, base);
    if (!p || addr - base >= p->len) break;
    size_t avail = p->len - (size_t)(addr - base);
    size_t take = size - got < avail ? size - got : avail;
    memcpy(buffer + got, p->bytes + (addr - base), take);
    got += take;
    if (p->len < PTI_PAGE) break; /* the mapping ends inside this page */
  }
  return got ? (int)got : -pte_nomap;
}

struct pti_image *pti_new(const char *name, pti_read_fn read_fn, void *read_ctx) {
  struct pti_image *im = calloc(1, sizeof *im);
  if (!im) return NULL;
  im->pages = calloc(PTI_SLOTS, sizeof *im->pages);
  im->iscache = pt_iscache_alloc(name);
  im->image = pt_image_alloc(name);
  if (!im->pages || !im->iscache || !im->image) {
    pti_free(im);
    return NULL;
  }
  im->read_fn = read_fn;
  im->read_ctx = read_ctx;
  (void)pt_iscache_set_limit(im->iscache, PTI_ISCACHE_LIMIT);
  pt_image_set_callback(im->image, pti_read_cb, im);
  return im;
}

void pti_free(struct pti_image *im) {
  if (!im) return;
  if (im->image) pt_image_free(im->image);
  /* sections stay alive while a clone still uses them (libipt refcounts) */
  if (im->iscache) pt_iscache_free(im->iscache);
  free(im->pages);
  free(im);
}

int pti_add_file(struct pti_image *im, const char *path, uint64_t offset, uint64_t size,
                 uint64_t vaddr) {
  int isid = pt_iscache_add_file(im->iscache, path, offset, size, vaddr);
  if (isid < 0) return isid;
  int rc = pt_image_add_cached(im->image, im->iscache, isid, NULL);
  if (rc < 0) return rc;
  im->stats.file_sections++;
  return isid;
}

int pti_attach(struct pti_image *im, struct pt_image *img, int isid) {
  return pt_image_add_cached(img, im->iscache, isid, NULL);
}

int pti_add_maps(struct pti_image *im, const struct ptm_maps *m) {
  int added = 0;
  for (size_t i = 0; i < m->n; i++) {
    const struct ptm_map *mp = &m->v[i];
    if (!(mp->prot & PTM_EXEC)) continue;
    /* A writable+executable file mapping may have been patched in memory:
     * only the callback sees the live bytes. */
    if (!(mp->prot & PTM_WRITE) && ptm_is_file_backed(mp) &&
        pti_add_file(im, mp->path, mp->offset, mp->end - mp->start, mp->start) > 0) {
      added++;
      continue;
    }
    im->stats.memory_ranges++;
  }
  return added;
}

void pti_invalidate(struct pti_image *im) {
  for (unsigned i = 0; i < PTI_SLOTS; i++) im->pages[i].len = 0;
}

struct pt_image *pti_clone(struct pti_image *im) {
  struct pt_image *img = pt_image_alloc(pt_image_name(im->image));
  if (!img) return NULL;
  if (pt_image_copy(img, im->image) < 0) {
    pt_image_free(img);
    return NULL;
  }
  pt_image_set_callback(img, pti_read_cb, im);
  return img;
}

void pti_release(struct pt_image *img) {
  if (img) pt_image_free(img);
}

const struct pti_stats *pti_get_stats(const struct pti_image *im) { return &im->stats; }

ssize_t pti_read_self(void *ctx, uint64_t addr, void *buf, size_t len) {
  (void)ctx;
  struct iovec local = {buf, len};
  struct iovec remote = {(void *)(uintptr_t)addr, len};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n >= 0) return n;
  /* A range that runs off the end of a mapping fails as a whole: retry up
   * to the page boundary so the readable head is still served. */
  size_t room = PTI_PAGE - (size_t)(addr & (PTI_PAGE - 1));
  if (room >= len) return -errno;
  local.iov_len = remote.iov_len = room;
  n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  return n >= 0 ? n : -errno;
}
