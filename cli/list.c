/* --list [active|scan] [--json] [--record=<f>]: every process, with a `!`
 * (and a short reason) on the ones asmspy cannot trace.
 *   (default)  by pid;
 *   active     recent CPU first: utime+stime of every process sampled twice,
 *              LIST_ACTIVE_MS apart, sorted by the delta;
 *   scan       string-rich memory first: a few KB of each readable process's
 *              heap / anonymous / stack memory, ranked by alphanumeric
 *              density (the STR column); unreadable processes rank last.
 * Reads /proc (and, for scan, target memory with process_vm_readv); never
 * attaches. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "asmspy-internal/app_api.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LIST_ACTIVE_MS 200
#define LIST_SCAN_BUDGET (8u * 1024 * 1024) /* bytes of target memory read in all */
#define LIST_SCAN_DEADLINE_MS 3000

enum list_sort { SORT_PID, SORT_ACTIVE, SORT_SCAN };

struct row {
  struct procinfo_brief b;
  struct procinfo_attach a;
  uint64_t cpu_delta; /* active: ticks over the window */
  int str;            /* scan: per-mille density, or -errno (unreadable), or INT_MIN unscanned */
  int gone;
};

#define STR_UNSCANNED (-100000)

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int cmp_pid(const void *x, const void *y) {
  const struct row *a = x, *b = y;
  return (a->b.pid > b->b.pid) - (a->b.pid < b->b.pid);
}

static int cmp_active(const void *x, const void *y) {
  const struct row *a = x, *b = y;
  if (a->cpu_delta != b->cpu_delta) return a->cpu_delta < b->cpu_delta ? 1 : -1;
  return cmp_pid(x, y);
}

static int cmp_scan(const void *x, const void *y) {
  const struct row *a = x, *b = y;
  int ra = a->str >= 0, rb = b->str >= 0;
  if (ra != rb) return rb - ra; /* readable first */
  if (ra && a->str != b->str) return a->str < b->str ? 1 : -1;
  return cmp_pid(x, y);
}

static int read_cpu(pid_t pid, uint64_t *ticks) {
  struct procinfo_brief b;
  if (procinfo_brief_read(pid, &b) != 0) return -1;
  *ticks = b.utime + b.stime;
  return 0;
}

static const char *marker(const struct procinfo_attach *a) {
  return a->verdict == PROCINFO_ATTACH_NO ? "!" : a->verdict == PROCINFO_ATTACH_MAYBE ? "?" : " ";
}

/* Printable comm for the text column (a comm is arbitrary bytes). */
static void clean(char *dst, const char *src, size_t cap) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; i++)
    dst[i] = ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) ? '?' : src[i];
  dst[i] = '\0';
}

enum { LIST_JSON, LIST_RECORD };
const struct asmspy_option cli_list_options[] = {
    [LIST_JSON] = {"json", NULL, "one process event per process as NDJSON on stdout"},
    [LIST_RECORD] = {"record", "<f>", "also write the recording to <f>"},
    {NULL, NULL, NULL},
};

/* The positional: the sort order (at most one). */
static int parse_sort(const struct asmspy_optval *ov, enum list_sort *sort) {
  int have_sort = 0;
  *sort = SORT_PID;
  for (uint32_t i = 0; i < ov->npos; i++) {
    if (!have_sort && strcmp(ov->pos[i], "active") == 0) {
      *sort = SORT_ACTIVE;
      have_sort = 1;
    } else if (!have_sort && strcmp(ov->pos[i], "scan") == 0) {
      *sort = SORT_SCAN;
      have_sort = 1;
    } else {
      return cli_usage_error("--list: unknown argument '%s' (--list [active|scan] [--json])",
                             ov->pos[i]);
    }
  }
  return 0;
}

/* One row per live process in /proc, with its attach verdict. Returns the
 * rows (NULL when none) and their count, or -errno when /proc is unreadable. */
static long collect_rows(struct row **out) {
  pid_t *pids;
  long np = procinfo_list_pids(&pids);
  *out = NULL;
  if (np < 0) return np;
  struct row *rows = np ? calloc((size_t)np, sizeof *rows) : NULL;
  size_t n = 0;
  for (long i = 0; rows && i < np; i++) {
    struct row *r = &rows[n];
    if (procinfo_brief_read(pids[i], &r->b) != 0) continue; /* exited meanwhile */
    procinfo_attach_assess(&r->b, &r->a);
    r->str = STR_UNSCANNED;
    n++;
  }
  free(pids);
  *out = rows;
  return (long)n;
}

/* active: every process's CPU ticks again, LIST_ACTIVE_MS later. Returns the
 * window actually slept (ms). */
static uint64_t measure_active(struct row *rows, size_t n) {
  uint64_t t0 = mono_ms();
  struct timespec ts = {0, LIST_ACTIVE_MS * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !cli_stop_flag) {
  }
  uint64_t window_ms = mono_ms() - t0;
  for (size_t i = 0; i < n; i++) {
    uint64_t now;
    if (read_cpu(rows[i].b.pid, &now) != 0) {
      rows[i].gone = 1;
      continue;
    }
    uint64_t before = rows[i].b.utime + rows[i].b.stime;
    rows[i].cpu_delta = now > before ? now - before : 0;
  }
  return window_ms;
}

/* scan: the string density of each readable process, within a byte budget
 * and a deadline (what is left unscanned ranks last). */
static void measure_scan(struct row *rows, size_t n) {
  uint64_t deadline = mono_ms() + LIST_SCAN_DEADLINE_MS;
  size_t spent = 0;
  for (size_t i = 0; i < n; i++) {
    struct row *r = &rows[i];
    if (r->b.kthread || r->b.state == 'Z' || r->b.state == 'X') {
      r->str = -ENODATA;
      continue;
    }
    if (spent + PROCINFO_SCAN_BYTES > LIST_SCAN_BUDGET || mono_ms() > deadline || cli_stop_flag)
      continue;
    r->str = procinfo_string_density(r->b.pid);
    if (r->str >= 0) spent += PROCINFO_SCAN_BYTES;
  }
}

/* What --list measured, shared by every row's rendering. */
struct list_window {
  enum list_sort sort;
  uint64_t window_ms; /* active */
  long hz;            /* clock ticks per second */
};

/* The row's human line (the column header before the first one). */
static void row_text(const struct row *r, const struct list_window *w, const char *header,
                     char *text, size_t cap) {
  char comm[32], extra[32] = "";
  clean(comm, r->b.comm, sizeof comm);
  if (w->sort == SORT_ACTIVE) {
    double pct = w->window_ms
                     ? 100.0 * (double)r->cpu_delta / (double)w->hz * 1000.0 / (double)w->window_ms
                     : 0.0;
    snprintf(extra, sizeof extra, " %6.1f", pct);
  } else if (w->sort == SORT_SCAN) {
    if (r->str >= 0)
      snprintf(extra, sizeof extra, " %6.1f", r->str / 10.0);
    else
      snprintf(extra, sizeof extra, " %6s", "-");
  }
  snprintf(text, cap, "%s%s %7d %-12.12s %4d %c  %-16.16s%s  %s", header, marker(&r->a),
           (int)r->b.pid, r->b.user, r->b.threads, r->b.state ? r->b.state : '?', comm, extra,
           r->a.verdict == PROCINFO_ATTACH_YES ? "" : r->a.short_reason);
  /* trailing blanks of an empty NOTE */
  for (size_t k = strlen(text); k > 0 && text[k - 1] == ' '; k--) text[k - 1] = '\0';
}

/* The row's "process" record body. */
static void row_json(const struct row *r, const struct list_window *w, char *fields, size_t cap) {
  char comm_e[200], user_e[400], reason_e[600];
  json_escape(comm_e, sizeof comm_e, r->b.comm, strlen(r->b.comm));
  json_escape(user_e, sizeof user_e, r->b.user, strlen(r->b.user));
  json_escape(reason_e, sizeof reason_e, r->a.short_reason, strlen(r->a.short_reason));
  int len = snprintf(fields, cap,
                     "\"pid\":%d,\"ppid\":%d,\"uid\":%u,\"user\":\"%s\",\"comm\":\"%s\","
                     "\"threads\":%d,\"state\":\"%c\",\"kernel_thread\":%s,"
                     "\"attach\":\"%s\",\"traceable\":%s,\"reason\":",
                     (int)r->b.pid, (int)r->b.ppid, (unsigned)r->b.uid[0], user_e, comm_e,
                     r->b.threads, r->b.state ? r->b.state : '?', r->b.kthread ? "true" : "false",
                     procinfo_verdict_name(r->a.verdict),
                     r->a.verdict == PROCINFO_ATTACH_NO ? "false" : "true");
  size_t used = len > 0 && (size_t)len < cap ? (size_t)len : 0;
  if (r->a.verdict == PROCINFO_ATTACH_YES)
    used += (size_t)snprintf(fields + used, cap - used, "null");
  else
    used += (size_t)snprintf(fields + used, cap - used, "\"%s\"", reason_e);
  if (used < cap && w->sort == SORT_ACTIVE)
    used += (size_t)snprintf(fields + used, cap - used,
                             ",\"cpu_ticks\":%" PRIu64 ",\"window_ms\":%" PRIu64 ",\"hz\":%ld",
                             r->cpu_delta, w->window_ms, w->hz);
  if (used < cap && w->sort == SORT_SCAN) {
    if (r->str >= 0)
      snprintf(fields + used, cap - used, ",\"str_permille\":%d", r->str);
    else
      snprintf(fields + used, cap - used, ",\"str_permille\":null,\"str_error\":\"%s\"",
               r->str == STR_UNSCANNED ? "not scanned (budget)" : strerror(-r->str));
  }
}

int cli_cmd_list(int argc, char **argv) {
  struct asmspy_optval ov;
  if (cli_parse_options("list", cli_list_options, argc, argv, &ov)) return CLI_EXIT_USAGE;
  struct list_window w = {.sort = SORT_PID};
  if (parse_sort(&ov, &w.sort)) return CLI_EXIT_USAGE;
  const char *record = ov.value[LIST_RECORD];

  struct row *rows = NULL;
  long got = collect_rows(&rows);
  if (got < 0) {
    fprintf(stderr, "asmspy: cannot read /proc: %s\n", strerror((int)-got));
    return CLI_EXIT_FAIL;
  }
  size_t n = (size_t)got;
  if (w.sort == SORT_ACTIVE) w.window_ms = measure_active(rows, n);
  if (w.sort == SORT_SCAN) measure_scan(rows, n);
  if (n > 1) /* rows is NULL when nothing was listed: qsort(NULL, 0) is undefined */
    qsort(rows, n, sizeof *rows,
          w.sort == SORT_ACTIVE ? cmp_active
          : w.sort == SORT_SCAN ? cmp_scan
                                : cmp_pid);

  int err = 0;
  struct out_opts oo = {
      .mode = "list", .pid = 0, .json = ov.value[LIST_JSON] != NULL, .record_path = record};
  struct asmspy_out *out = out_open(&oo, &err);
  if (!out) {
    free(rows);
    fprintf(stderr, "asmspy: cannot open recording '%s': %s\n", record, strerror(err));
    return CLI_EXIT_FAIL;
  }
  w.hz = sysconf(_SC_CLK_TCK);
  if (w.hz <= 0) w.hz = 100;
  /* The column header is part of the first row's human text, so it goes
   * through the writer: a recording replays (--replay) with it. */
  char header[160];
  snprintf(header, sizeof header, "  %7s %-12s %4s %s  %-16s%s  %s\n", "PID", "USER", "THR", "S",
           "COMM",
           w.sort == SORT_ACTIVE ? "   CPU%"
           : w.sort == SORT_SCAN ? "    STR"
                                 : "",
           "NOTE");
  int header_done = 0;
  for (size_t i = 0; i < n; i++) {
    if (rows[i].gone) continue;
    char text[512 + sizeof header], fields[1024] = "";
    row_text(&rows[i], &w, header_done ? "" : header, text, sizeof text);
    if (out_wants_json(out)) row_json(&rows[i], &w, fields, sizeof fields);
    out_emit(out, "process", fields, text);
    header_done = 1;
  }
  out_close(out, 0);
  free(rows);
  return CLI_EXIT_OK;
}
