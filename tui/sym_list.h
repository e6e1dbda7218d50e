/* sym_list: the symbol picker's data (modes 2 and 9), without curses.
 *
 * The target's resolved function symbols (host/symbols.c: ELF symbols of
 * every mapped module, PLT stubs, the JIT perf-map), loaded by the UI thread
 * into its own table (nothing is attached: /proc and the ELF files only),
 * filterable, in one of three orders — address (the default), hot edges
 * (entry-arrival counts from an out-of-band sampler, the --auto ranking),
 * name. Where no sampler can rank (no IBS on this host) the hot order falls
 * back to address order and says why. */
#ifndef ASMSPY_TUI_SYM_LIST_H
#define ASMSPY_TUI_SYM_LIST_H

#include <asmspy/asmspy.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum tui_ssort { TUI_SSORT_ADDR = 0, TUI_SSORT_HOT, TUI_SSORT_NAME, TUI_SSORT_COUNT };

struct tui_sym {
  uint64_t start, size;
  const char *name, *module; /* owned by the table */
  uint32_t kind;
  uint64_t hot; /* entry arrivals in the sample (HOT) */
};

struct tui_symlist {
  pid_t pid;
  struct asmspy_symtab *table;
  struct tui_sym *v;
  size_t n;
  enum tui_ssort sort;
  int hot_ranked; /* the HOT order is a real ranking (else address order) */
  char note[512]; /* why HOT fell back, or how it was ranked */
  size_t *rows;
  size_t nrows;
};

/* Load (or, with a table already loaded, reload: F3) pid's symbols.
 * 0 or an errno. */
int tui_symlist_load(struct tui_symlist *l, pid_t pid);
/* The HOT order: ask e's sampler; on a host without one, note why. */
void tui_symlist_rank_hot(struct tui_symlist *l, struct asmspy_engine *e);
int tui_symlist_arrange(struct tui_symlist *l, const char *filter);
/* The row (index into l->rows) whose name is exactly the filter (leading
 * and trailing spaces aside): the first in display order, a case-exact
 * name before one equal but for case. -1 when none is. */
long tui_symlist_exact(const struct tui_symlist *l, const char *filter);
void tui_symlist_free(struct tui_symlist *l);
const char *tui_ssort_name(enum tui_ssort s); /* "address", "hot edges", "name" */

#endif
