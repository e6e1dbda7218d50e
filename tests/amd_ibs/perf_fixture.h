/* tests/amd_ibs/perf_fixture.h — what the sampler tests (amd_ibs, amd_lbr)
 * need to feed the backends' real drain and decode code without hardware:
 *
 *   bytes     a little-endian byte builder: records are written field by
 *             field from the documented layouts, never by overlaying the
 *             structs the code under test reads through
 *   fake ring a perf mmap area (control page + 2^n data pages) in plain
 *             memory with a writer that wraps records around the ring end
 *             exactly as the kernel does; data_head is published after each
 *             record, data_tail is what the drain under test publishes
 *   event log an asmspy_sink_fn that keeps copies of every event (note
 *             texts copied: they are valid only during the call), and can
 *             ask to stop after N events
 *   fake host a host_api table whose note() keeps the notes for asserting
 *
 * Header-only, included by exactly one test file per program.
 */
#ifndef ASMSPY_TESTS_PERF_FIXTURE_H
#define ASMSPY_TESTS_PERF_FIXTURE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asmspy/plugin.h"
#include "plugins/common/perf_sampling.h"

/* ---- bytes ---------------------------------------------------------------- */

struct bytes {
  uint8_t b[8192];
  size_t n;
};

static inline void put_le(struct bytes *o, uint64_t v, unsigned width) {
  for (unsigned i = 0; i < width; i++) o->b[o->n++] = (uint8_t)(v >> (8 * i));
}
static inline void put16(struct bytes *o, uint16_t v) { put_le(o, v, 2); }
static inline void put32(struct bytes *o, uint32_t v) { put_le(o, v, 4); }
static inline void put64(struct bytes *o, uint64_t v) { put_le(o, v, 8); }
static inline void pad8(struct bytes *o) {
  while (o->n % 8) o->b[o->n++] = 0;
}

/* Start a record: perf_event_header { u32 type; u16 misc; u16 size } with the
 * size patched by rec_end(). Returns the record's offset in o. */
static inline size_t rec_begin(struct bytes *o, uint32_t type, uint16_t misc) {
  size_t at = o->n;
  put32(o, type);
  put16(o, misc);
  put16(o, 0);
  return at;
}
/* Pad to 8 and write the size (or force a size, for corrupt headers). */
static inline void rec_end(struct bytes *o, size_t at, int forced_size) {
  pad8(o);
  uint16_t size = forced_size >= 0 ? (uint16_t)forced_size : (uint16_t)(o->n - at);
  o->b[at + 6] = (uint8_t)size;
  o->b[at + 7] = (uint8_t)(size >> 8);
}

/* PERF_RECORD_LOST { u64 id; u64 lost; } */
static inline void rec_lost(struct bytes *o, uint64_t id, uint64_t lost) {
  size_t at = rec_begin(o, PERF_RECORD_LOST, 0);
  put64(o, id);
  put64(o, lost);
  rec_end(o, at, -1);
}
/* PERF_RECORD_LOST_SAMPLES { u64 lost; } */
static inline void rec_lost_samples(struct bytes *o, uint64_t lost) {
  size_t at = rec_begin(o, PERF_RECORD_LOST_SAMPLES, 0);
  put64(o, lost);
  rec_end(o, at, -1);
}
/* PERF_RECORD_THROTTLE / UNTHROTTLE { u64 time; u64 id; u64 stream_id; } */
static inline void rec_throttle(struct bytes *o, uint32_t type, uint64_t time) {
  size_t at = rec_begin(o, type, 0);
  put64(o, time);
  put64(o, 1);
  put64(o, 1);
  rec_end(o, at, -1);
}
/* PERF_RECORD_COMM { u32 pid, tid; char comm[]; }: a type the samplers never
 * ask for, to prove it is skipped by its size. */
static inline void rec_comm(struct bytes *o, uint32_t pid, const char *comm) {
  size_t at = rec_begin(o, PERF_RECORD_COMM, 0);
  put32(o, pid);
  put32(o, pid);
  for (const char *c = comm; *c; c++) o->b[o->n++] = (uint8_t)*c;
  o->b[o->n++] = 0;
  rec_end(o, at, -1);
}

/* ---- fake ring -------------------------------------------------------------- */

struct fake_ring {
  struct pp_ring r;
  uint8_t *mem;
  uint64_t head;
};

/* 2^data_pages_log2 data pages; the free-running offsets start at `start`
 * (start near the ring size makes the next records wrap). */
static inline void fr_init(struct fake_ring *f, unsigned data_pages_log2, uint64_t start) {
  size_t page = 4096;
  size_t len = (1 + ((size_t)1 << data_pages_log2)) * page;
  f->mem = aligned_alloc(page, len);
  memset(f->mem, 0, len);
  memset(&f->r, 0, sizeof f->r);
  f->r.base = f->mem;
  f->r.len = len;
  f->r.page = page;
  f->r.pc = (struct perf_event_mmap_page *)f->mem;
  f->r.pc->data_offset = page;
  f->r.pc->data_size = len - page;
  f->r.pc->data_tail = start;
  f->r.pc->data_head = start;
  f->head = start;
}

/* Append len bytes at data_head, wrapping at the ring's end, and publish. */
static inline void fr_write(struct fake_ring *f, const void *p, size_t len) {
  const uint8_t *src = p;
  uint8_t *data = f->mem + f->r.pc->data_offset;
  uint64_t mask = f->r.pc->data_size - 1;
  for (size_t i = 0; i < len; i++) data[(f->head + i) & mask] = src[i];
  f->head += len;
  __atomic_store_n(&f->r.pc->data_head, f->head, __ATOMIC_RELEASE);
}

static inline void fr_write_bytes(struct fake_ring *f, const struct bytes *o) {
  fr_write(f, o->b, o->n);
}

static inline void fr_free(struct fake_ring *f) {
  free(f->mem);
  f->mem = NULL;
}

/* ---- event log -------------------------------------------------------------- */

#define LOG_MAX 256

struct event_log {
  struct asmspy_event ev[LOG_MAX];
  char note[LOG_MAX][320];
  size_t n;
  size_t stop_after; /* > 0: ask to stop once this many events arrived */
};

static inline int log_sink(void *ctx, const struct asmspy_event *ev) {
  struct event_log *l = ctx;
  if (l->n < LOG_MAX) {
    l->ev[l->n] = *ev;
    if (ev->type == ASMSPY_EV_NOTE && ev->u.note.text)
      snprintf(l->note[l->n], sizeof l->note[0], "%s", ev->u.note.text);
    l->n++;
  }
  return l->stop_after && l->n >= l->stop_after;
}

static inline size_t log_count(const struct event_log *l, uint16_t type) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++) n += l->ev[i].type == type;
  return n;
}

/* The last event of a type, or NULL. */
static inline const struct asmspy_event *log_last(const struct event_log *l, uint16_t type) {
  for (size_t i = l->n; i-- > 0;)
    if (l->ev[i].type == type) return &l->ev[i];
  return NULL;
}

/* ---- fake host ----------------------------------------------------------------- */

#define NOTES_MAX 32
static char fake_notes[NOTES_MAX][512];
static int fake_note_levels[NOTES_MAX];
static size_t fake_nnotes;

static inline void fake_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out;
  if (fake_nnotes >= NOTES_MAX) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fake_notes[fake_nnotes], sizeof fake_notes[0], fmt, ap);
  va_end(ap);
  fake_note_levels[fake_nnotes] = level;
  fprintf(stderr, "  note[%d]: %s\n", level, fake_notes[fake_nnotes]);
  fake_nnotes++;
}

/* 1 when some note contains `needle`. */
static inline int fake_noted(const char *needle) {
  for (size_t i = 0; i < fake_nnotes; i++)
    if (strstr(fake_notes[i], needle)) return 1;
  return 0;
}

static inline void fake_host_init(struct asmspy_host_api *h) {
  memset(h, 0, sizeof *h);
  ASMSPY_INIT_HEADER(h);
  h->note = fake_note;
}

#endif /* ASMSPY_TESTS_PERF_FIXTURE_H */
