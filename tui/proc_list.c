/* proc_list: the process picker's data (see proc_list.h). */
#define _GNU_SOURCE
#include "tui/proc_list.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define SCAN_BUDGET (8u * 1024 * 1024) /* bytes of target memory read in all */
#define SCAN_DEADLINE_MS 3000

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void read_cmdline(struct tui_proc *p) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)p->b.pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, p->cmdline, sizeof p->cmdline - 1) : -1;
  if (fd >= 0) close(fd);
  if (n <= 0) { /* kernel threads (and zombies) have none */
    snprintf(p->cmdline, sizeof p->cmdline, "[%s]", p->b.comm);
    p->kernel = 1;
    return;
  }
  while (n > 0 && p->cmdline[n - 1] == '\0') n--;
  for (ssize_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p->cmdline[i];
    if (c == '\0')
      p->cmdline[i] = ' ';
    else if (c < 0x20 || c == 0x7f)
      p->cmdline[i] = '?';
  }
  p->cmdline[n] = '\0';
}

/* Every process /proc lists now, read into a fresh array. 0 or -errno. */
static int read_all(struct tui_proc **out, size_t *n) {
  pid_t *pids;
  long np = procinfo_list_pids(&pids);
  *out = NULL;
  *n = 0;
  if (np < 0) return (int)np;
  struct tui_proc *v = np ? calloc((size_t)np, sizeof *v) : NULL;
  if (np && !v) {
    free(pids);
    return -ENOMEM;
  }
  for (long i = 0; i < np; i++) {
    struct tui_proc *p = &v[*n];
    memset(p, 0, sizeof *p);
    if (procinfo_brief_read(pids[i], &p->b) != 0) continue; /* exited meanwhile */
    procinfo_attach_assess(&p->b, &p->a);
    read_cmdline(p);
    p->str = TUI_STR_UNSCANNED;
    p->cpu_seen = p->b.utime + p->b.stime;
    (*n)++;
  }
  free(pids);
  *out = v;
  return 0;
}

static void clock_tick(struct tui_proclist *l) {
  l->hz = sysconf(_SC_CLK_TCK);
  if (l->hz <= 0) l->hz = 100;
}

int tui_proclist_scan(struct tui_proclist *l) {
  struct tui_proc *v;
  size_t n;
  int err = read_all(&v, &n);
  if (err) return err;
  free(l->v);
  l->v = v;
  l->n = n;
  l->window_ms = 0;
  l->seen_ms = mono_ms();
  clock_tick(l);
  return 0;
}

uint64_t tui_proclist_age_ms(const struct tui_proclist *l) { return mono_ms() - l->seen_ms; }

static int cmp_by_pid(const void *x, const void *y, void *ctx) {
  const struct tui_proc *v = ctx;
  pid_t a = v[*(const size_t *)x].b.pid, b = v[*(const size_t *)y].b.pid;
  return (a > b) - (a < b);
}

/* The entry of v (indexed by pid order through byp) for pid, or NULL. */
static const struct tui_proc *find_pid(const struct tui_proc *v, const size_t *byp, size_t n,
                                       pid_t pid) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    pid_t at = v[byp[mid]].b.pid;
    if (at == pid) return &v[byp[mid]];
    if (at < pid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

#define REFRESH_SCANS 8 /* new processes string-scanned per refresh: the UI waits for them */

int tui_proclist_refresh(struct tui_proclist *l) {
  struct tui_proc *v;
  size_t n;
  int err = read_all(&v, &n);
  if (err) return err;
  uint64_t now = mono_ms();
  size_t *byp = malloc((l->n ? l->n : 1) * sizeof *byp);
  if (!byp) {
    free(v);
    return -ENOMEM;
  }
  for (size_t i = 0; i < l->n; i++) byp[i] = i;
  qsort_r(byp, l->n, sizeof *byp, cmp_by_pid, l->v);
  for (size_t i = 0; i < n; i++) {
    struct tui_proc *p = &v[i];
    const struct tui_proc *was = find_pid(l->v, byp, l->n, p->b.pid);
    if (was && was->gone) was = NULL;
    /* a process not seen before started within the window: all its CPU is in it */
    p->cpu_delta =
        was ? (p->cpu_seen > was->cpu_seen ? p->cpu_seen - was->cpu_seen : 0) : p->cpu_seen;
    /* the memory scanned is the same program's unless it exec'd (or the pid was reused) */
    if (was && strcmp(was->b.comm, p->b.comm) == 0) p->str = was->str;
  }
  free(byp);
  free(l->v);
  l->v = v;
  l->n = n;
  l->window_ms = now - l->seen_ms;
  l->seen_ms = now;
  clock_tick(l);
  if (l->sort == TUI_PSORT_SCAN) tui_proclist_sample_strings(l, REFRESH_SCANS);
  return 0;
}

void tui_proclist_sample_active(struct tui_proclist *l, unsigned window_ms) {
  uint64_t t0 = mono_ms();
  struct timespec ts = {window_ms / 1000, (long)(window_ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
  l->window_ms = mono_ms() - t0;
  for (size_t i = 0; i < l->n; i++) {
    struct procinfo_brief now;
    if (procinfo_brief_read(l->v[i].b.pid, &now) != 0) {
      l->v[i].gone = 1;
      continue;
    }
    uint64_t before = l->v[i].cpu_seen, after = now.utime + now.stime;
    l->v[i].cpu_delta = after > before ? after - before : 0;
    l->v[i].cpu_seen = after;
  }
  l->seen_ms = mono_ms();
}

void tui_proclist_sample_strings(struct tui_proclist *l, size_t max_procs) {
  uint64_t deadline = mono_ms() + SCAN_DEADLINE_MS;
  size_t spent = 0, tried = 0;
  for (size_t i = 0; i < l->n; i++) {
    struct tui_proc *p = &l->v[i];
    if (p->str != TUI_STR_UNSCANNED) continue; /* scanned before (a refresh keeps it) */
    if (p->b.kthread || p->b.state == 'Z' || p->b.state == 'X') {
      p->str = -ENODATA;
      continue;
    }
    if (spent + PROCINFO_SCAN_BYTES > SCAN_BUDGET || mono_ms() > deadline) continue;
    if (max_procs && tried++ >= max_procs) break;
    p->str = procinfo_string_density(p->b.pid);
    if (p->str >= 0) spent += PROCINFO_SCAN_BYTES;
  }
}

const char *tui_psort_name(enum tui_psort s) {
  switch (s) {
  case TUI_PSORT_ACTIVE: return "ACTIVE";
  case TUI_PSORT_SCAN: return "STR";
  default: return "PID";
  }
}

/* ------------------------------------------------------------ order -- */

static int cmp_pid(const struct tui_proc *a, const struct tui_proc *b) {
  return (a->b.pid > b->b.pid) - (a->b.pid < b->b.pid);
}

static int cmp_rows(const void *x, const void *y, void *ctx) {
  const struct tui_proclist *l = ctx;
  const struct tui_proc *a = &l->v[*(const size_t *)x], *b = &l->v[*(const size_t *)y];
  int ka = a->kernel || a->b.kthread, kb = b->kernel || b->b.kthread;
  if (ka != kb) return ka - kb; /* user processes first, kernel threads last */
  if (l->sort == TUI_PSORT_ACTIVE && a->cpu_delta != b->cpu_delta)
    return a->cpu_delta < b->cpu_delta ? 1 : -1;
  if (l->sort == TUI_PSORT_SCAN) {
    int ra = a->str >= 0, rb = b->str >= 0;
    if (ra != rb) return rb - ra; /* readable first */
    if (ra && a->str != b->str) return a->str < b->str ? 1 : -1;
    if (a->cpu_delta != b->cpu_delta)
      return a->cpu_delta < b->cpu_delta ? 1 : -1; /* then recency */
  }
  return cmp_pid(a, b);
}

/* Case-insensitive substring. */
static int has(const char *hay, const char *needle, size_t nlen) {
  size_t hl = strlen(hay);
  for (size_t i = 0; i + nlen <= hl; i++)
    if (strncasecmp(hay + i, needle, nlen) == 0) return 1;
  return 0;
}

int tui_proc_matches(const struct tui_proc *p, const char *filter) {
  if (!filter) return 1;
  char pid[16];
  snprintf(pid, sizeof pid, "%d", (int)p->b.pid);
  const char *t = filter;
  for (;;) {
    while (*t == ' ') t++;
    if (!*t) return 1;
    size_t len = strcspn(t, " ");
    if (!has(pid, t, len) && !has(p->b.user, t, len) && !has(p->b.comm, t, len) &&
        !has(p->cmdline, t, len))
      return 0;
    t += len;
  }
}

/* index of pid in v, or -1 (linear: the tree is built once per arrange) */
static long index_of(const struct tui_proclist *l, pid_t pid) {
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i].b.pid == pid && !l->v[i].gone) return (long)i;
  return -1;
}

struct tree_build {
  struct tui_proclist *l;
  size_t *kids;      /* children lists, concatenated */
  size_t *kid_start; /* per process: where its children start in kids */
  size_t *kid_count;
  size_t *out;
  size_t nout;
};

/* Depth-first: the row, then its children with connectors. `lead` is the
 * ancestors' part ("│  " or "   " per level). */
static void tree_walk(struct tree_build *t, size_t i, const char *lead, int last, int depth) {
  struct tui_proc *p = &t->l->v[i];
  if (depth == 0)
    p->prefix[0] = '\0';
  else
    snprintf(p->prefix, sizeof p->prefix, "%s%s", lead,
             last ? "\xe2\x94\x94\xe2\x94\x80 " /* └─ */
                  : "\xe2\x94\x9c\xe2\x94\x80 " /* ├─ */);
  t->out[t->nout++] = i;
  char next[sizeof p->prefix];
  if (depth == 0)
    next[0] = '\0';
  else
    snprintf(next, sizeof next, "%s%s", lead, last ? "   " : "\xe2\x94\x82  " /* │ */);
  /* deep trees: stop adding to the lead once it is full (rows stay listed) */
  for (size_t k = 0; k < t->kid_count[i]; k++)
    tree_walk(t, t->kids[t->kid_start[i] + k], strlen(next) + 8 < sizeof next ? next : lead,
              k + 1 == t->kid_count[i], depth + 1);
}

static int arrange_tree(struct tui_proclist *l, size_t *sorted, size_t *out) {
  struct tree_build t = {.l = l, .out = out};
  long *parent = malloc((l->n ? l->n : 1) * sizeof *parent);
  t.kids = malloc((l->n ? l->n : 1) * sizeof *t.kids);
  t.kid_start = calloc(l->n ? l->n : 1, sizeof *t.kid_start);
  t.kid_count = calloc(l->n ? l->n : 1, sizeof *t.kid_count);
  if (!parent || !t.kids || !t.kid_start || !t.kid_count) {
    free(parent), free(t.kids), free(t.kid_start), free(t.kid_count);
    return -1;
  }
  for (size_t i = 0; i < l->n; i++) {
    long p = l->v[i].gone || l->v[i].b.ppid == l->v[i].b.pid ? -1 : index_of(l, l->v[i].b.ppid);
    parent[i] = p;
    if (p >= 0) t.kid_count[p]++;
  }
  size_t at = 0;
  for (size_t i = 0; i < l->n; i++) {
    t.kid_start[i] = at;
    at += t.kid_count[i];
    t.kid_count[i] = 0;
  }
  /* children in the sorted order, so siblings follow the current sort */
  for (size_t k = 0; k < l->n; k++) {
    size_t i = sorted[k];
    if (parent[i] >= 0) t.kids[t.kid_start[parent[i]] + t.kid_count[parent[i]]++] = i;
  }
  for (size_t k = 0; k < l->n; k++) {
    size_t i = sorted[k];
    if (parent[i] < 0) tree_walk(&t, i, "", 1, 0);
  }
  free(parent), free(t.kids), free(t.kid_start), free(t.kid_count);
  return (int)t.nout;
}

int tui_proclist_arrange(struct tui_proclist *l, const char *filter) {
  free(l->rows);
  l->rows = NULL;
  l->nrows = 0;
  size_t *sorted = malloc((l->n ? l->n : 1) * sizeof *sorted);
  size_t *order = malloc((l->n ? l->n : 1) * sizeof *order);
  if (!sorted || !order) {
    free(sorted), free(order);
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; i < l->n; i++) {
    l->v[i].prefix[0] = '\0';
    if (!l->v[i].gone) sorted[m++] = i;
  }
  qsort_r(sorted, m, sizeof *sorted, cmp_rows, l);
  size_t norder = m;
  if (l->tree) {
    int r = arrange_tree(l, sorted, order);
    if (r < 0) {
      free(sorted), free(order);
      return -1;
    }
    norder = (size_t)r;
  } else {
    memcpy(order, sorted, m * sizeof *order);
  }
  free(sorted);
  /* the filter selects rows; in a tree each kept row keeps its connectors */
  size_t k = 0;
  for (size_t j = 0; j < norder; j++)
    if (tui_proc_matches(&l->v[order[j]], filter)) order[k++] = order[j];
  l->rows = order;
  l->nrows = k;
  return 0;
}

void tui_proclist_free(struct tui_proclist *l) {
  free(l->v);
  free(l->rows);
  memset(l, 0, sizeof *l);
}
