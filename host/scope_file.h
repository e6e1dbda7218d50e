/* scope_file.h — a scope's listing file: only when asked, written safely
 * (scope_file.c says where and how). */
#pragma once
#include <stddef.h>

/* The listing path for a sanitized scope name, per ASMSPY_SCOPE_FILE; 0 and
 * out = "" when no file is asked for (or no private directory could be made). */
int scope_file_path(const char *clean_name, char *out, size_t cap);
/* Write text to path through a fresh O_EXCL|O_NOFOLLOW 0600 file renamed
 * over it. 0, or -errno (no file written). */
int scope_file_write(const char *path, const char *text);
