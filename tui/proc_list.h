/* proc_list: the process picker's data, without curses.
 *
 * A /proc scan (pid, user, name, command line, attach verdict with its
 * reason: cli/procinfo.c, which never attaches), three sort orders — PID,
 * recently active (utime+stime sampled twice, a short window apart), string
 * scan (alphanumeric density of a few KB of each process's readable memory,
 * the STR column) — a flat or tree layout (├─ └─ │ connectors, children
 * under their parent in the same sort), and a filter: whitespace-separated
 * terms, every one a case-insensitive substring of "pid user name cmdline".
 * A refresh re-reads /proc as htop does, keeping what is known per process:
 * its CPU% becomes the share over the time since the previous read, its
 * string scan is kept, and only new processes are scanned. In every order
 * user processes come first and kernel threads (~100 rows nobody traces:
 * PF_KTHREAD, or no command line) after them. */
#ifndef ASMSPY_TUI_PROC_LIST_H
#define ASMSPY_TUI_PROC_LIST_H

#include "asmspy-internal/app_api.h"

#include <stddef.h>
#include <stdint.h>

enum tui_psort { TUI_PSORT_PID = 0, TUI_PSORT_ACTIVE, TUI_PSORT_SCAN, TUI_PSORT_COUNT };

#define TUI_STR_UNSCANNED (-100000) /* not scanned (budget): ranks last */

struct tui_proc {
  struct procinfo_brief b;
  struct procinfo_attach a;
  char cmdline[512];  /* NULs as spaces; "[comm]" for a kernel thread */
  uint64_t cpu_delta; /* ACTIVE: ticks over the window */
  uint64_t cpu_seen;  /* utime+stime at the last read (the next window's start) */
  int str;            /* SCAN: per-mille density, -errno, or TUI_STR_UNSCANNED */
  int gone;
  int kernel; /* a kernel thread (PF_KTHREAD, or no command line): listed last */
  /* layout (tui_proclist_arrange) */
  char prefix[96]; /* tree connectors before the name, "" when flat */
};

struct tui_proclist {
  struct tui_proc *v;
  size_t n;
  enum tui_psort sort;
  int tree;
  uint64_t window_ms; /* ACTIVE: the sampled window */
  uint64_t seen_ms;   /* CLOCK_MONOTONIC of the last read (cpu_seen's time) */
  long hz;
  size_t *rows; /* the visible rows, indexes into v, in display order */
  size_t nrows;
};

/* Read every process from /proc (replacing what was there). 0 or -errno. */
int tui_proclist_scan(struct tui_proclist *l);
/* ACTIVE: sample utime+stime again after window_ms (sleeps). */
void tui_proclist_sample_active(struct tui_proclist *l, unsigned window_ms);
/* SCAN: string density of every readable process not scanned yet, within
 * a byte budget (and at most max_procs of them; 0: no limit). */
void tui_proclist_sample_strings(struct tui_proclist *l, size_t max_procs);
/* Re-read /proc (new processes in, exited ones out) keeping each one's
 * string scan and measuring CPU over the time since the last read; with
 * the SCAN sort, a few new processes are scanned. 0 or -errno (the list
 * unchanged). */
int tui_proclist_refresh(struct tui_proclist *l);
/* Milliseconds since the last read of /proc (scan, sample or refresh). */
uint64_t tui_proclist_age_ms(const struct tui_proclist *l);
/* Order, lay out (flat or tree) and filter into l->rows. */
int tui_proclist_arrange(struct tui_proclist *l, const char *filter);
void tui_proclist_free(struct tui_proclist *l);

const char *tui_psort_name(enum tui_psort s); /* "PID", "ACTIVE", "STR" */
/* 1 when every term of filter matches the row. */
int tui_proc_matches(const struct tui_proc *p, const char *filter);

#endif
