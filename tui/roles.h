/* roles: what the TUI reads from a view's record schemas (ABI 1.12 field
 * roles, ASMSPY_FIELDF_SORT_KEY ...), without curses. The live screens are
 * built from these and the typed records: no tui/ file names a view or
 * parses a view's text.
 *
 *   screen    feed, table or two panes, from the roles the view's records
 *             carry (a view without roles: from its layout);
 *   rows      a table's rows: each record whose fields carry row roles, or
 *             each element of a record's ARRAY of objects whose members do
 *             (element k is the record's text line k + 1);
 *   values    a row's member, typed or from a member the view rendered as
 *             JSON (ASMSPY_VALUE_JSON), read by its schema field. */
#ifndef ASMSPY_TUI_ROLES_H
#define ASMSPY_TUI_ROLES_H

#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/records.h"

enum tui_screen_kind { TUI_SCREEN_FEED = 0, TUI_SCREEN_TABLE = 1, TUI_SCREEN_TWO_PANE = 2 };

#define TUI_ROW_ROLES                                                                              \
  (ASMSPY_FIELDF_SORT_KEY | ASMSPY_FIELDF_DRILL_PID | ASMSPY_FIELDF_DRILL_ADDR |                   \
   ASMSPY_FIELDF_DRILL_FUNC)
#define TUI_MAX_SORT_KEYS 6

/* Every role bit the records (ending with a NULL type) carry, nested members too. */
uint32_t tui_schema_roles(const struct asmspy_record_schema *records);
/* The screen for these roles; layout (enum asmspy_tui_layout) when there are none. */
enum tui_screen_kind tui_screen_for(uint32_t roles, uint32_t layout);
/* The names of the SORT_KEY fields (top level and row arrays), deduplicated,
 * at most max; returns how many. */
size_t tui_sort_keys(const struct asmspy_record_schema *records, char names[][32], size_t max);

/* The first field of fields with `role` at or after index *from (NULL: none);
 * *from is left at the index after it. */
const struct asmspy_field *tui_field_with(const struct asmspy_field *fields, uint32_t role,
                                          size_t *from);
/* The ARRAY-of-objects field of a record whose elements are rows (NULL: none). */
const struct asmspy_field *tui_row_array(const struct asmspy_record_schema *schema);
/* 1 when the record itself is a row (its own fields carry row roles). */
int tui_rec_is_row(const struct tui_rec *r);

/* One row: a record, or element k of its row array. */
struct tui_row {
  const struct tui_rec *rec;
  const struct asmspy_field *fields; /* the row's members */
  const struct asmspy_value *values; /* typed values parallel to fields, or NULL */
  const void *json;                  /* else the element as parsed JSON (struct json_value) */
};

/* The elements of a record's ARRAY member: typed, or parsed from its JSON
 * (freed with tui_elems_free). n = 0 when absent. */
struct tui_elems {
  const struct asmspy_field *field;
  const struct asmspy_value *items; /* typed */
  void *parsed;                     /* struct json_value * (an array) */
  size_t n;
};
void tui_elems_of(const struct tui_rec *r, const struct asmspy_field *field, struct tui_elems *out);
void tui_elems_free(struct tui_elems *e);
/* Element k as a row. */
struct tui_row tui_elems_row(const struct tui_elems *e, const struct tui_rec *r, size_t k);
/* A record as a row. */
struct tui_row tui_rec_row(const struct tui_rec *r);

/* A row's member as a number (INT, HEX, NUMBER, BOOL; a "0x..." string):
 * 1 and *out set, or 0 when absent, null or not numeric. */
int tui_row_u64(const struct tui_row *row, const char *name, uint64_t *out);
int tui_row_i64(const struct tui_row *row, const char *name, int64_t *out);

#endif
