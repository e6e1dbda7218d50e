/* records: what the TUI keeps of a session's output, without curses.
 *
 * The engine hands the TUI every record a view emits: a typed record
 * (asmspy_run_opts.on_typed_record: the view's values themselves, never
 * JSON to parse back) or a plain one (on_record: type and text). A record is
 * kept whole — its text split into lines plus its typed values — because
 * some screens act on a record, not a line (the tree's right pane
 * disassembles the selected call's address, the syscall log shows the
 * strings a call carried, the data flow walks a step's reads).
 *
 *   tui_rec       one record, immutable once made, reference counted so the
 *                 tracer thread can drop it from the ring while the UI still
 *                 draws a frozen copy;
 *   tui_reclist   an ordered list of records: a feed ring bounded by a line
 *                 budget (the oldest records fall out), or one frame;
 *   tui_model     a frozen, flattened copy the UI draws and scrolls: line i
 *                 -> (record, line within it).
 */
#ifndef ASMSPY_TUI_RECORDS_H
#define ASMSPY_TUI_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "asmspy/asmspy.h"

#define TUI_FEED_LINES 2048 /* the history a feed keeps (the seed's number) */

struct tui_rec {
  int refs;                    /* atomic */
  char *type;                  /* "syscall", "note", ... */
  struct asmspy_record *typed; /* the typed record (an owned copy), or NULL */
  uint32_t nlines;
  char **lines; /* nlines pointers into one buffer */
};

/* A record from one emit; typed (may be NULL) is copied. text NULL = no
 * human text (0 lines). NULL on ENOMEM. */
struct tui_rec *tui_rec_new(const char *type, const struct asmspy_record *typed, const char *text);
/* The value of a typed record's member (NULL: not typed, or absent). */
const struct asmspy_value *tui_rec_get(const struct tui_rec *r, const char *name);
void tui_rec_ref(struct tui_rec *r);
void tui_rec_unref(struct tui_rec *r);

/* Records in order, in a ring that grows as needed. max_lines > 0: after a
 * push, the oldest records are dropped while more than max_lines lines are
 * kept (the newest record always stays, however long). */
struct tui_reclist {
  struct tui_rec **v;
  size_t cap, head, n; /* cap is a power of two; record i is v[(head + i) & (cap - 1)] */
  size_t nlines;
  size_t max_lines;
  uint64_t pushed_lines; /* every line ever pushed (a feed's running total) */
};

/* Takes its own reference. 0, or -1 on ENOMEM (nothing changed). */
int tui_reclist_push(struct tui_reclist *l, struct tui_rec *r);
struct tui_rec *tui_reclist_at(const struct tui_reclist *l, size_t i);
void tui_reclist_clear(struct tui_reclist *l); /* drops every record, keeps max_lines */
void tui_reclist_free(struct tui_reclist *l);

struct tui_mline {
  uint32_t rec, part; /* record index in the model, line within the record */
};

struct tui_model {
  struct tui_rec **recs;
  size_t nrecs;
  size_t *rec_first; /* the model line where each record starts */
  struct tui_mline *lines;
  size_t nlines;
};

/* Replace *m with a copy of l (references, not bytes). 0 or -1 (ENOMEM: *m
 * is then empty). */
int tui_model_from(struct tui_model *m, const struct tui_reclist *l);
/* A model of one text (lines split at '\n'), as one record of `type`. */
int tui_model_from_text(struct tui_model *m, const char *type, const char *text);
void tui_model_free(struct tui_model *m);
/* *dst = another reference-holding copy of src. 0 or -1. */
int tui_model_copy(struct tui_model *dst, const struct tui_model *src);
const char *tui_model_line(const struct tui_model *m, size_t i);
const struct tui_rec *tui_model_rec(const struct tui_model *m, size_t i);
/* The line index where record k of the model starts. */
size_t tui_model_rec_start(const struct tui_model *m, size_t k);

#endif
