/* proc_list: the process picker's data, without curses.
 *
 * A /proc scan (pid, user, name, command line, attach verdict with its
 * reason: cli/procinfo.c, which never attaches), three sort orders — PID,
 * recently active (utime+stime sampled twice, a short window apart), string
 * scan (alphanumeric density of a few KB of each process's readable memory,
 * the STR column) — a flat or tree layout (├─ └─ │ connectors, children
 * under their parent in the same sort), and a filter: whitespace-separated
 * terms, every one a case-insensitive substring of "pid user name cmdline". */
#ifndef ASMSPY_TUI_PROC_LIST_H
#define ASMSPY_TUI_PROC_LIST_H

#include "cli/procinfo.h"

#include <stddef.h>
#include <stdint.h>

enum tui_psort { TUI_PSORT_PID = 0, TUI_PSORT_ACTIVE, TUI_PSORT_SCAN, TUI_PSORT_COUNT };

#define TUI_STR_UNSCANNED (-100000) /* not scanned (budget): ranks last */

struct tui_proc {
  struct procinfo_brief b;
  struct procinfo_attach a;
  char cmdline[512]; /* NULs as spaces; "[comm]" for a kernel thread */
  uint64_t cpu_delta;  /* ACTIVE: ticks over the window */
  int str;             /* SCAN: per-mille density, -errno, or TUI_STR_UNSCANNED */
  int gone;
  /* layout (tui_proclist_arrange) */
  char prefix[96];     /* tree connectors before the name, "" when flat */
};

struct tui_proclist {
  struct tui_proc *v;
  size_t n;
  enum tui_psort sort;
  int tree;
  uint64_t window_ms; /* ACTIVE: the sampled window */
  long hz;
  size_t *rows; /* the visible rows, indexes into v, in display order */
  size_t nrows;
};

/* Read every process from /proc (replacing what was there). 0 or -errno. */
int tui_proclist_scan(struct tui_proclist *l);
/* ACTIVE: sample utime+stime again after window_ms (sleeps). */
void tui_proclist_sample_active(struct tui_proclist *l, unsigned window_ms);
/* SCAN: string density of every readable process, within a byte budget. */
void tui_proclist_sample_strings(struct tui_proclist *l);
/* Order, lay out (flat or tree) and filter into l->rows. */
int tui_proclist_arrange(struct tui_proclist *l, const char *filter);
void tui_proclist_free(struct tui_proclist *l);

const char *tui_psort_name(enum tui_psort s); /* "PID", "ACTIVE", "STR" */
/* 1 when every term of filter matches the row. */
int tui_proc_matches(const struct tui_proc *p, const char *filter);

#endif
