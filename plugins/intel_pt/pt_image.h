/* pt_image — the memory image libipt decodes against.
 *
 * A PT trace holds only branch outcomes; the decoder re-walks the code to
 * find the instructions between them, so it must see the same bytes the
 * CPU ran. Two sources, as libipt offers them:
 *   - file sections: every executable mapping backed by a regular file we
 *     can open under the same path and inode (pt_iscache_add_file +
 *     pt_image_add_cached; libipt maps the file itself, shared between the
 *     per-thread decoders through one section cache);
 *   - a read-memory callback for everything else (anonymous / JIT code,
 *     [vdso], deleted or foreign-namespace files): it reads the live
 *     process (host->read_mem for another pid, process_vm_readv on itself
 *     for scopes) through a small page cache, because libipt asks for one
 *     instruction's bytes at a time.
 * libipt images must not be shared between decoders: pti_clone() hands each
 * decoder its own pt_image over the shared cache and callback.
 */
#ifndef ASMSPY_INTEL_PT_IMAGE_H
#define ASMSPY_INTEL_PT_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plugins/intel_pt/pt_maps.h"

struct pt_image;
struct pti_image;

/* Read len bytes of the traced process at addr into buf: bytes read, or a
 * negative errno. */
typedef ssize_t (*pti_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct pti_stats {
  uint32_t file_sections;   /* executable mappings libipt maps from their file */
  uint32_t memory_ranges;   /* executable mappings served by the callback */
  uint64_t callback_reads;  /* page reads through read_fn */
  uint64_t callback_misses; /* reads that found nothing mapped */
};

/* An empty image whose callback reads through read_fn (may be NULL: then
 * only file sections resolve). */
struct pti_image *pti_new(const char *name, pti_read_fn read_fn, void *read_ctx);
void pti_free(struct pti_image *im);

/* Add every executable mapping of m: file sections where possible, the rest
 * is left to the callback (counted in stats). Returns the number of file
 * sections added or a negative pt_error_code. */
int pti_add_maps(struct pti_image *im, const struct ptm_maps *m);
/* Add one file section [vaddr, vaddr+size) from path at offset (an mmap seen
 * in the sideband). Returns its isid (> 0) or a negative pt_error_code. */
int pti_add_file(struct pti_image *im, const char *path, uint64_t offset, uint64_t size,
                 uint64_t vaddr);
/* Add section isid (from pti_add_file) to a clone made before it existed.
 * Returns 0 or a negative pt_error_code. */
int pti_attach(struct pti_image *im, struct pt_image *img, int isid);

/* Forget cached pages (the process may have rewritten code since). */
void pti_invalidate(struct pti_image *im);

/* A fresh pt_image for one decoder: the sections added so far plus the
 * callback. Free with pti_release(). NULL on failure. */
struct pt_image *pti_clone(struct pti_image *im);
void pti_release(struct pt_image *img);

const struct pti_stats *pti_get_stats(const struct pti_image *im);

/* pti_read_fn for the calling process itself: process_vm_readv on our own
 * pid, so an unmapped address is an error code, never a fault. */
ssize_t pti_read_self(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
