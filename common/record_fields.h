/* common/record_fields.h — shorthand for record schema tables (struct
 * asmspy_field rows, include/asmspy/plugin.h): the views' `records` tables
 * and the host's own (host/host_records.c) are written with these, so a row
 * reads as "name, type, constraint, flags, meaning". */
#ifndef ASMSPY_COMMON_RECORD_FIELDS_H
#define ASMSPY_COMMON_RECORD_FIELDS_H

#include "asmspy/plugin.h"

#include <stdint.h>

/* Schema rows (struct asmspy_field), by type. `fl` is ASMSPY_FIELDF_*. */
#define RF_INT(nm, mn, fl, m)                                                                      \
  { .name = nm, .type = ASMSPY_FIELD_INT, .flags = fl, .meaning = m, .min = mn }
#define RF_INT_IN(nm, choices, fl, m)                                                              \
  {                                                                                                \
    .name = nm, .type = ASMSPY_FIELD_INT, .flags = fl, .meaning = m, .values = choices,            \
    .min = INT64_MIN                                                                               \
  }
#define RF_STR(nm, fl, m)                                                                          \
  { .name = nm, .type = ASMSPY_FIELD_STR, .flags = fl, .meaning = m }
#define RF_HEX(nm, fl, m)                                                                          \
  { .name = nm, .type = ASMSPY_FIELD_HEX, .flags = fl, .meaning = m }
#define RF_BOOL(nm, fl, m)                                                                         \
  { .name = nm, .type = ASMSPY_FIELD_BOOL, .flags = fl, .meaning = m }
#define RF_ENUM(nm, choices, fl, m)                                                                \
  { .name = nm, .type = ASMSPY_FIELD_ENUM, .flags = fl, .meaning = m, .values = choices }
#define RF_BYTES(nm, least, most, fl, m)                                                           \
  { .name = nm, .type = ASMSPY_FIELD_BYTES, .flags = fl, .meaning = m, .min = least, .max = most }
#define RF_ARRAY(nm, elem, members, fl, m)                                                         \
  {                                                                                                \
    .name = nm, .type = ASMSPY_FIELD_ARRAY, .flags = fl, .meaning = m, .values = elem,             \
    .fields = members                                                                              \
  }
#define RF_OBJECT(nm, members, fl, m)                                                              \
  { .name = nm, .type = ASMSPY_FIELD_OBJECT, .flags = fl, .meaning = m, .fields = members }
#define RF_END                                                                                     \
  { .name = NULL }
#define ANY_INT INT64_MIN
#define OPT ASMSPY_FIELDF_OPTIONAL
#define NUL ASMSPY_FIELDF_NULLABLE
#define INSN_ADDR ASMSPY_FIELDF_INSN_ADDR
#define INSN_TEXT ASMSPY_FIELDF_INSN_TEXT
#define INSN_KIND ASMSPY_FIELDF_INSN_KIND
#define TITLE ASMSPY_FIELDF_TITLE

#endif
