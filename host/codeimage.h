/* host/codeimage.h — JIT-safe bytes: the `codeimage` records of region
 * sessions (--trace, --dataflow, --dataflow --auto).
 *
 * Reading a JIT's code after the fact answers the wrong question: the
 * address may have been patched, freed or reused since it ran. So a region
 * session records the region's bytes as they were, with a logical time, and
 * records them again whenever they really change. A reader resolves an
 * address at time t to the version with the greatest `when` <= t
 * (host/recording.h: recording_codeimages_*).
 *
 * The engine owns one codeimage_set per session when a JSON channel is open
 * (text-only runs record nothing, so they pay nothing). At every
 * REGION_ENTER the set decides whether the region's pages may have changed
 * (soft-dirty bits through PAGEMAP_SCAN or /proc/<pid>/pagemap bit 55, when
 * this kernel reports them; otherwise every entry is a candidate) and, for a
 * candidate, reads the bytes and compares them with the last version. Two
 * rules keep asmspy's own perturbation out of the record:
 *   - every byte asmspy itself wrote into the target (the region engine's
 *     int3 breakpoints, through host->write_mem) is known to the set's
 *     ledger and masked back to the target's own byte before comparing;
 *   - a snapshot byte-identical to the last version is never emitted (a
 *     breakpoint write marks the page soft-dirty, so "dirty" alone is not a
 *     change).
 */
#ifndef ASMSPY_HOST_CODEIMAGE_H
#define ASMSPY_HOST_CODEIMAGE_H

#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>

/* Regions larger than this are not recorded (a hex snapshot must fit the
 * 1 MiB line of the asmtrace format); the session says so in a note. */
#define CODEIMAGE_MAX_LEN (256u * 1024u)

/* How page changes are detected. */
enum codeimage_detector {
  CODEIMAGE_COMPARE = 0,      /* the kernel reports nothing: compare bytes at every entry */
  CODEIMAGE_SOFT_DIRTY = 1,   /* clear_refs "4" + /proc/<pid>/pagemap bit 55 */
  CODEIMAGE_PAGEMAP_SCAN = 2, /* clear_refs "4" + PAGEMAP_SCAN PAGE_IS_SOFT_DIRTY (Linux >= 6.7) */
};
const char *codeimage_detector_name(int detector);

/* Which detector this kernel offers, measured on a scratch page of asmspy's
 * own process (the target is never touched): clear its soft-dirty bits,
 * write the page, and see whether the kernel reports the write. For
 * CODEIMAGE_COMPARE, why[] holds the measured reason. */
int codeimage_probe_detector(char *why, size_t cap);

struct codeimage_set;

/* One set per region session; out must have a JSON channel. When the kernel
 * cannot report page changes, a note with the measured reason is written
 * now (capture goes on, comparing bytes). */
struct codeimage_set *codeimage_open(struct asmspy_target *t, pid_t pid, struct asmspy_out *out);
void codeimage_close(struct codeimage_set *cs);

/* At a region entry (the sampled thread stopped at the entry, the other
 * threads held): when [base, base+len) differs from its last recorded
 * version, emit a `codeimage` record and fill *ev with the matching
 * ASMSPY_EV_CODEIMAGE event for the view (its bytes stay valid until the
 * next call); returns 1. 0 = unchanged, -1 = not recorded (unreadable or too
 * large: noted once per region). */
int codeimage_check(struct codeimage_set *cs, uint64_t base, uint64_t len, struct asmspy_event *ev);

/* A backend emitted its own ASMSPY_EV_CODEIMAGE: record it unless it is
 * byte-identical to that region's last version. Returns 1 when recorded. */
int codeimage_offer(struct codeimage_set *cs, const struct asmspy_event *ev);

/* The host services table to hand the backend for this session: identical
 * to base, except that write_mem also enters every byte asmspy writes into
 * the target in the set's ledger (so codeimage_check can mask it). One
 * ledger per process: asmspy runs one tracing session per process (a target
 * has one ptrace jack; --serve runs each session in its own child). */
const struct asmspy_host_api *codeimage_host_api(struct codeimage_set *cs,
                                                 const struct asmspy_host_api *base);

/* ---- pure pieces, exposed for the unit test ------------------------------ */

/* One byte asmspy wrote into the target: what was there before (orig) and
 * what asmspy put there (written). */
struct codeimage_patch {
  uint64_t addr;
  uint8_t orig, written;
};

/* Replace, in snap[0..len) taken at base, every byte that still holds what
 * asmspy wrote by the target's own byte. A byte that holds something else
 * was rewritten by the target after asmspy's write: that is the target's
 * code and is kept. */
void codeimage_mask(uint8_t *snap, uint64_t base, size_t len, const struct codeimage_patch *p,
                    size_t np);

#endif /* ASMSPY_HOST_CODEIMAGE_H */
