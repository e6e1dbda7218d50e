/* data_list: the watch prompt's data symbols, without curses.
 *
 * Every data symbol (STT_OBJECT / STT_COMMON, not TLS) of every module the
 * target maps — the names --watch resolves (host/data_symbols.c, the same
 * libdwfl walk) — loaded by the UI thread (nothing is attached), sorted by
 * name, filtered by what is typed (the part before a "+off"), and the Tab
 * completion over the rows the filter keeps. */
#ifndef ASMSPY_TUI_DATA_LIST_H
#define ASMSPY_TUI_DATA_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tui_datasym {
  char *name, *module; /* owned */
  uint64_t addr, size;
};

struct tui_datalist {
  pid_t pid;
  struct tui_datasym *v;
  size_t n, cap;
  size_t *rows; /* indexes into v that match the filter, in name order */
  size_t nrows;
};

/* Load pid's data symbols (replacing any). 0 or an errno. */
int tui_datalist_load(struct tui_datalist *l, pid_t pid);
/* Keep the rows whose name contains the input's symbol part (before '+'):
 * those starting with it first, then the rest. A 0x... input keeps none. */
int tui_datalist_filter(struct tui_datalist *l, const char *input);
/* Tab: the completed input, into out. The longest common prefix of the
 * names starting with the typed part when it is longer than what was typed,
 * else the selected row's name (a "+off" typed is kept). 1 when out differs
 * from input. */
int tui_datalist_complete(const struct tui_datalist *l, const char *input, size_t sel, char *out,
                          size_t cap);
void tui_datalist_free(struct tui_datalist *l);

#endif
