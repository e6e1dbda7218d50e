/* procs: the process/thread topology view
 *     asmspy --procs <pid> [n] [--count=syscalls|calls] [--json|--dot]
 *
 * Draws the target's whole process tree, like pstree: each process node
 * `node <pid> [exe]`, its threads `tid <tid> (comm)`, and its child processes
 * nested underneath with ├─ └─ │ connectors, every task annotated with a live
 * count inv=<N> (a process node shows the sum over its threads).
 *
 *   --count=syscalls (default)  inv = completed syscalls (SYSCALL_EXIT) per tid;
 *                               near full speed: the ptrace backend
 *   --count=calls               inv = executed calls (an INSN the host's
 *                               insn_class calls CALL) per tid: the single-step backend,
 *                               so the whole tree crawls while it runs
 * The view's caps_required is only ASMSPY_CAP_TASKS (both backends give it);
 * the engine adds SYSCALLS or INSN_STREAM from the --count option, as this
 * view's option_caps table (ABI 1.8) says.
 *
 * Topology: configure() (the target is known, nothing is attached yet) walks
 * /proc from the target: its threads, then its pre-existing descendants
 * (/proc/<pid>/task/<tid>/children, or a /proc/<pid>/stat ppid scan where the
 * kernel lacks that file). configure() also turns on fork following
 * (ASMSPY_SESS_FOLLOW, unless --tid pins one thread), so processes forked
 * during the session are traced and join the tree live from TASK fork/clone
 * events; exits and execs update it. Pre-existing children are not attached
 * by the seam (it seizes only the target's threads): they are drawn with
 * inv=0 and marked "(not traced)". At finish the tree is re-read from /proc
 * for late threads/children, comm (threads rename themselves) and exe.
 *
 * n = how many counted events (syscalls or calls) before the final render
 * (default 200; negative = until the target exits or Ctrl-C). Nothing is
 * printed while running; finish() prints one snapshot (and snapshot(), the
 * TUI's periodic frame, the same rows mid-capture).
 *
 * Output: every task is one `proc` event (the flat list; --json shows only
 * that). The human tree and --dot are the text of those same events, so a
 * --record of either is the same list: the title rides on the first row, a
 * "… N earlier exited" summary on the last row it folds, the dot graph's
 * braces on the first and last rows. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>
#include "plugins/common/view_options.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plugins/common/record_emit.h"

/* Its records (the `procs_records` table at the end of this file). */
enum { PROCS_REC_PROC, PROCS_REC_N };
static const struct asmspy_record_schema procs_records[PROCS_REC_N + 1];

#include "plugins/common/insn_class.h"

#define PROCS_DEFAULT_N 200
/* The human tree keeps at most this many exited entries (exited threads and
 * wholly exited child-process subtrees) per node and folds the older ones
 * into one summary line; a fork-heavy target run with n < 0 would otherwise
 * print thousands of dead children. --json and --dot list every task. */
#define PROCS_KEEP_EXITED 8

enum count_mode { COUNT_SYSCALLS = 0, COUNT_CALLS = 1 };
enum out_format { FMT_TEXT = 0, FMT_JSON = 1, FMT_DOT = 2 };
enum origin { ORIGIN_ATTACH = 0, ORIGIN_FORK, ORIGIN_CLONE, ORIGIN_SEEN, ORIGIN_RESCAN };
static const char *const origin_name[] = {"attach", "fork", "clone", "seen", "rescan"};
static const char *const count_name[] = {"syscalls", "calls"};

struct task {
  int32_t tid, tgid, ppid;
  int32_t proc;   /* index of its process's leader entry (a leader: itself) */
  int32_t parent; /* leaders: the parent process's leader entry, -1 = none in the tree */
  uint64_t inv;
  int32_t nlive;  /* leaders: live tasks of the process (itself included) */
  uint8_t traced; /* its events reach us (pre-existing children: no) */
  uint8_t alive;
  uint8_t has_code;
  uint8_t origin; /* enum origin */
  int32_t code;   /* exit status, or -signal */
  char comm[32];
  char *exe; /* leaders only: /proc/<pid>/exe, or NULL when unreadable */
};

struct procs_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int count;  /* enum count_mode */
  int format; /* enum out_format */
  int64_t want, counted;
  int discovered;
  int reread_root;   /* --launch: configure() saw the pre-exec image (asmspy) */
  int32_t root;      /* leader entry of the target */
  int children_file; /* -1 unknown, 0 no /proc/<p>/task/<t>/children, 1 yes */
  struct task *tasks;
  size_t ntasks, cap;
  int32_t *hash; /* open addressing: tid -> newest entry index, -1 empty */
  size_t hcap;
  /* rendering */
  int32_t pending;    /* row waiting to be emitted (its text may still grow), -1 none */
  char *pending_text; /* NULL: no text for that row */
  size_t pending_len;
  char *prefix_text; /* text to put in front of the next row's text */
};

/* ------------------------------------------------------------ /proc -- */

static int read_small(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap - 1, f);
  fclose(f);
  buf[n] = 0;
  return (int)n;
}

/* Thread group of a tid, or -1 when it is gone. */
static int32_t proc_tgid_of(int32_t tid) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  if (read_small(path, buf, sizeof buf) < 0) return -1;
  char *p = strstr(buf, "\nTgid:");
  return p ? (int32_t)atoi(p + 6) : -1;
}

/* ppid from /proc/<pid>/stat ("pid (comm) S ppid ..."; comm may hold ')'). */
static int32_t proc_ppid_of(int32_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  if (read_small(path, buf, sizeof buf) < 0) return -1;
  char *rp = strrchr(buf, ')');
  if (!rp || !rp[1] || !rp[2]) return -1;
  char state;
  int ppid;
  if (sscanf(rp + 2, "%c %d", &state, &ppid) != 2) return -1;
  return (int32_t)ppid;
}

/* Printable comm: control and non-ASCII bytes become '?'. 0 when unreadable. */
static int proc_comm(int32_t tgid, int32_t tid, char *out, size_t cap) {
  char path[96], buf[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)tgid, (int)tid);
  int n = read_small(path, buf, sizeof buf);
  if (n <= 0) return 0;
  while (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
  size_t i = 0;
  for (; buf[i] && i + 1 < cap; i++)
    out[i] = (unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f ? '?' : buf[i];
  out[i] = 0;
  return 1;
}

static char *proc_exe(int32_t tgid) {
  char path[64], buf[PATH_MAX];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)tgid);
  ssize_t n = readlink(path, buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = 0;
  return strdup(buf);
}

/* Is tid still a live (non-zombie) task of tgid? */
static int task_alive_now(int32_t tgid, int32_t tid) {
  char path[96], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
  if (read_small(path, buf, sizeof buf) < 0) return 0;
  char *rp = strrchr(buf, ')');
  if (!rp || !rp[1] || !rp[2]) return 0;
  return rp[2] != 'Z' && rp[2] != 'X';
}

/* Does process tgid still run: its leader, or (a leader that exited while
 * its threads run is a zombie) any of its threads? A zombie child is still
 * listed in its parent's /proc children until it is reaped. */
static int process_alive_now(int32_t tgid) {
  if (task_alive_now(tgid, tgid)) return 1;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)tgid);
  DIR *d = opendir(path);
  if (!d) return 0;
  int alive = 0;
  struct dirent *de;
  while (!alive && (de = readdir(d))) {
    int32_t tid = (int32_t)atoi(de->d_name);
    if (tid > 0 && tid != tgid) alive = task_alive_now(tgid, tid);
  }
  closedir(d);
  return alive;
}

/* ------------------------------------------------------- the table -- */

static size_t hslot(const struct procs_state *st, int32_t tid) {
  return ((uint32_t)tid * 2654435761u) & (st->hcap - 1);
}

/* Newest entry for tid, or -1. */
static int32_t lookup(const struct procs_state *st, int32_t tid) {
  if (!st->hcap) return -1;
  for (size_t i = hslot(st, tid);; i = (i + 1) & (st->hcap - 1)) {
    int32_t v = st->hash[i];
    if (v < 0) return -1;
    if (st->tasks[v].tid == tid) return v;
  }
}

static void hash_put(struct procs_state *st, int32_t idx) {
  int32_t tid = st->tasks[idx].tid;
  for (size_t i = hslot(st, tid);; i = (i + 1) & (st->hcap - 1)) {
    int32_t v = st->hash[i];
    if (v < 0 || st->tasks[v].tid == tid) {
      st->hash[i] = idx;
      return;
    }
  }
}

static int hash_grow(struct procs_state *st) {
  size_t nc = st->hcap ? st->hcap * 2 : 64;
  int32_t *nh = malloc(nc * sizeof *nh);
  if (!nh) return -1;
  for (size_t i = 0; i < nc; i++) nh[i] = -1;
  free(st->hash);
  st->hash = nh;
  st->hcap = nc;
  /* re-insert in index order: the newest entry per tid ends up in place */
  for (size_t i = 0; i < st->ntasks; i++) hash_put(st, (int32_t)i);
  return 0;
}

/* A new entry (the newest for its tid); -1 on allocation failure. */
static int32_t task_new(struct procs_state *st, int32_t tid, int32_t tgid) {
  if (st->ntasks >= INT32_MAX - 1) return -1;
  if (st->ntasks == st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 32;
    struct task *nt = realloc(st->tasks, nc * sizeof *nt);
    if (!nt) return -1;
    st->tasks = nt;
    st->cap = nc;
  }
  if ((st->ntasks + 1) * 2 > st->hcap && hash_grow(st) != 0) return -1;
  int32_t idx = (int32_t)st->ntasks++;
  struct task *t = &st->tasks[idx];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->tgid = tgid;
  t->proc = idx;
  t->parent = -1;
  t->alive = 1;
  t->nlive = 1;
  hash_put(st, idx);
  return idx;
}

/* Live leader entry of process tgid, or -1. */
static void set_dead(struct procs_state *st, int32_t i) {
  struct task *t = &st->tasks[i];
  if (!t->alive) return;
  t->alive = 0;
  st->tasks[t->proc].nlive--;
}

/* The newest leader entry of process tgid (live or not), or -1. */
static int32_t leader_of(const struct procs_state *st, int32_t tgid) {
  int32_t i = lookup(st, tgid);
  if (i < 0 || st->tasks[i].proc != i) return -1;
  return i;
}

/* ... only while the process lives (a leader that exited while its threads
 * run is still the process). */
static int32_t live_leader(const struct procs_state *st, int32_t tgid) {
  int32_t i = leader_of(st, tgid);
  return i >= 0 && st->tasks[i].nlive > 0 ? i : -1;
}

/* The leader entry of process tgid, created from /proc if unknown.
 * ppid < 0: read it. */
static int32_t ensure_process(struct procs_state *st, int32_t tgid, int32_t ppid, int origin,
                              int traced) {
  int32_t i = live_leader(st, tgid);
  if (i >= 0) return i;
  if (ppid < 0) ppid = proc_ppid_of(tgid);
  i = task_new(st, tgid, tgid);
  if (i < 0) return -1;
  struct task *t = &st->tasks[i];
  t->ppid = ppid < 0 ? 0 : ppid;
  t->origin = (uint8_t)origin;
  t->traced = (uint8_t)traced;
  if (!proc_comm(tgid, tgid, t->comm, sizeof t->comm)) snprintf(t->comm, sizeof t->comm, "?");
  t->exe = proc_exe(tgid);
  int32_t p = ppid > 0 ? live_leader(st, ppid) : -1;
  t->parent = p;
  return i;
}

/* A thread entry of process `leader`. */
static int32_t add_thread(struct procs_state *st, int32_t leader, int32_t tid, int origin,
                          int traced) {
  int32_t tgid = st->tasks[leader].tgid;
  if (tid == tgid) return leader;
  int32_t i = task_new(st, tid, tgid);
  if (i < 0) return -1;
  struct task *t = &st->tasks[i], *l = &st->tasks[leader];
  t->proc = leader;
  t->nlive = 0;
  l->nlive++;
  t->ppid = l->ppid;
  t->origin = (uint8_t)origin;
  t->traced = (uint8_t)traced;
  if (!proc_comm(tgid, tid, t->comm, sizeof t->comm)) memcpy(t->comm, l->comm, sizeof t->comm);
  return i;
}

static int traced_tid(const struct procs_state *st, int32_t tid) {
  return !st->s->tid || st->s->tid == tid;
}

/* Every thread in /proc/<tgid>/task not yet known alive. */
static void scan_threads(struct procs_state *st, int32_t leader, int origin, int traced) {
  char path[64];
  int32_t tgid = st->tasks[leader].tgid;
  snprintf(path, sizeof path, "/proc/%d/task", (int)tgid);
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d))) {
    int32_t tid = (int32_t)atoi(de->d_name);
    if (tid <= 0 || tid == tgid) continue;
    int32_t k = lookup(st, tid);
    if (k >= 0 && st->tasks[k].alive && st->tasks[k].tgid == tgid) continue;
    if (!task_alive_now(tgid, tid)) continue;
    add_thread(st, leader, tid, origin, traced && traced_tid(st, tid));
  }
  closedir(d);
}

/* Child process pids of tgid, into *out (malloc'd); returns the count. */
static size_t list_children(struct procs_state *st, int32_t tgid, int32_t **out) {
  size_t n = 0, cap = 0;
  int32_t *v = NULL;
#define PUSH_CHILD(pid_)                                                                           \
  do {                                                                                             \
    if (n == cap) {                                                                                \
      size_t nc_ = cap ? cap * 2 : 16;                                                             \
      int32_t *nv_ = realloc(v, nc_ * sizeof *nv_);                                                \
      if (!nv_) goto done;                                                                         \
      v = nv_;                                                                                     \
      cap = nc_;                                                                                   \
    }                                                                                              \
    v[n++] = (pid_);                                                                               \
  } while (0)
  if (st->children_file < 0) {
    char probe[96];
    snprintf(probe, sizeof probe, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    st->children_file = access(probe, R_OK) == 0;
  }
  char path[96];
  if (st->children_file) {
    snprintf(path, sizeof path, "/proc/%d/task", (int)tgid);
    DIR *d = opendir(path);
    if (d) {
      struct dirent *de;
      while ((de = readdir(d))) {
        int32_t tid = (int32_t)atoi(de->d_name);
        if (tid <= 0) continue;
        char cpath[128];
        snprintf(cpath, sizeof cpath, "/proc/%d/task/%d/children", (int)tgid, (int)tid);
        FILE *f = fopen(cpath, "re");
        if (!f) continue;
        int pid;
        while (fscanf(f, "%d", &pid) == 1) PUSH_CHILD((int32_t)pid);
        fclose(f);
      }
      closedir(d);
    }
  } else { /* no CONFIG_PROC_CHILDREN: every process whose ppid is tgid */
    DIR *d = opendir("/proc");
    if (d) {
      struct dirent *de;
      while ((de = readdir(d))) {
        int32_t pid = (int32_t)atoi(de->d_name);
        if (pid <= 0 || pid == tgid) continue;
        if (proc_ppid_of(pid) == tgid) PUSH_CHILD(pid);
      }
      closedir(d);
    }
  }
#undef PUSH_CHILD
done:
  *out = v;
  return n;
}

/* The pre-existing (or late) descendants of leader, breadth first. */
static void scan_descendants(struct procs_state *st, int32_t leader, int origin) {
  size_t qn = 0, qcap = 0;
  int32_t *queue = NULL;
  int32_t cur = leader;
  for (size_t qi = 0;; qi++) {
    int32_t *kids = NULL;
    size_t nk = list_children(st, st->tasks[cur].tgid, &kids);
    for (size_t k = 0; k < nk; k++) {
      int32_t c = live_leader(st, kids[k]);
      if (c < 0) {
        /* gone meanwhile, or a zombie not yet reaped: its entry (if we saw
         * it) is already marked exited, and a new one would list it twice */
        if (proc_tgid_of(kids[k]) != kids[k] || !process_alive_now(kids[k])) continue;
        c = ensure_process(st, kids[k], st->tasks[cur].tgid, origin, 0);
        if (c < 0) continue;
        st->tasks[c].parent = cur;
        scan_threads(st, c, origin, 0);
      }
      if (qn == qcap) {
        size_t nc = qcap ? qcap * 2 : 16;
        int32_t *nq = realloc(queue, nc * sizeof *nq);
        if (!nq) break;
        queue = nq;
        qcap = nc;
      }
      /* visit each process once (the table may already know c) */
      int seen = 0;
      for (size_t j = 0; j < qn && !seen; j++) seen = queue[j] == c;
      if (!seen && c != leader) queue[qn++] = c;
    }
    free(kids);
    if (qi >= qn) break;
    cur = queue[qi];
  }
  free(queue);
}

static void discover(struct procs_state *st, int32_t pid) {
  if (st->discovered) return;
  st->discovered = 1;
  int32_t tgid = proc_tgid_of(pid);
  if (tgid <= 0) tgid = pid;
  int32_t root = ensure_process(st, tgid, -1, ORIGIN_ATTACH, traced_tid(st, tgid));
  if (root < 0) return;
  st->root = root;
  scan_threads(st, root, ORIGIN_ATTACH, 1);
  scan_descendants(st, root, ORIGIN_ATTACH);
}

/* --------------------------------------------------------- events -- */

/* An entry no birth event has claimed yet: made from the task's own events
 * ("seen": its first stop beat its parent's fork/clone event) or from /proc
 * ("rescan": a snapshot found it before that event was consumed). The birth
 * event that comes later is this task's, even once it has exited. */
static int unborn(const struct task *t) {
  return t->origin == ORIGIN_SEEN || t->origin == ORIGIN_RESCAN;
}

/* A task found in /proc mid-capture whose events are still on their way:
 * a child of a followed process (or a thread of a traced one). */
static int may_still_report(const struct procs_state *st, int32_t k) {
  const struct task *t = &st->tasks[k];
  if (t->traced) return 1;
  if (t->origin != ORIGIN_RESCAN) return 0;
  if (t->proc != k) return !st->s->tid && st->tasks[t->proc].traced;
  return (st->s->flags & ASMSPY_SESS_FOLLOW) && t->parent >= 0 && st->tasks[t->parent].traced;
}

/* The entry an event's tid belongs to (created when its first stop beat its
 * birth event, or it was born between the /proc walk and the attach). */
static int32_t task_for_event(struct procs_state *st, const struct asmspy_event *ev) {
  int32_t i = lookup(st, ev->tid);
  if (i >= 0 && st->tasks[i].alive) return i;
  if (i >= 0 && !st->tasks[i].has_code && st->tasks[i].origin == ORIGIN_RESCAN) {
    /* a rescan guessed it gone (no exit was seen): an event of it says it
     * was not. The same task again, not a second entry for its tid. */
    struct task *t = &st->tasks[i];
    t->alive = 1;
    t->traced = 1;
    st->tasks[t->proc].nlive++;
    return i;
  }
  int32_t tgid = proc_tgid_of(ev->tid);
  if (tgid <= 0) tgid = ev->pid > 0 ? ev->pid : ev->tid;
  int32_t leader = ensure_process(st, tgid, -1, ORIGIN_SEEN, 1);
  if (leader < 0) return -1;
  if (ev->tid == tgid) {
    st->tasks[leader].traced = 1;
    return leader;
  }
  return add_thread(st, leader, ev->tid, ORIGIN_SEEN, 1);
}

static void on_birth(struct procs_state *st, const struct asmspy_event *ev) {
  int32_t child = ev->u.task.child;
  if (child <= 0) return;
  int32_t parent_task = task_for_event(st, ev);
  if (parent_task < 0) return;
  int32_t pleader = st->tasks[parent_task].proc;
  /* a clone() without CLONE_THREAD makes a process, though ptrace reports
   * it as PTRACE_EVENT_CLONE: ask /proc which it is */
  int32_t ctgid = proc_tgid_of(child);
  int is_process = ev->u.task.what == ASMSPY_TASK_FORK || ctgid == child;
  int32_t c = lookup(st, child);
  /* its first stop beat this event (it may even have run to its exit since:
   * the seam reports a child's stops before its parent's fork event when
   * waitpid returns them first), or a snapshot's /proc walk found it */
  if (c >= 0 && (st->tasks[c].alive || unborn(&st->tasks[c]))) {
    struct task *t = &st->tasks[c];
    t->origin = (uint8_t)(is_process ? ORIGIN_FORK : ORIGIN_CLONE);
    t->traced = 1;
    if (is_process && t->proc == c) {
      struct task *p = &st->tasks[pleader];
      t->parent = pleader;
      t->ppid = p->tgid;
      for (size_t k = 0; k < st->ntasks; k++)
        if (st->tasks[k].proc == c) st->tasks[k].ppid = t->ppid;
      /* first known from its exit: /proc had nothing left to name it */
      if (!strcmp(t->comm, "?")) memcpy(t->comm, st->tasks[parent_task].comm, sizeof t->comm);
      if (!t->exe && p->exe) t->exe = strdup(p->exe);
    }
    return;
  }
  if (is_process) {
    c = task_new(st, child, child);
    if (c < 0) return;
    struct task *t = &st->tasks[c], *p = &st->tasks[pleader];
    t->ppid = p->tgid;
    t->parent = pleader;
    t->origin = ORIGIN_FORK;
    t->traced = 1;
    /* a fresh fork is a copy: fall back to the parent's names */
    if (!proc_comm(child, child, t->comm, sizeof t->comm))
      memcpy(t->comm, st->tasks[parent_task].comm, sizeof t->comm);
    t->exe = proc_exe(child);
    if (!t->exe && p->exe) t->exe = strdup(p->exe);
  } else {
    add_thread(st, pleader, child, ORIGIN_CLONE, 1);
  }
}

static void on_exec(struct procs_state *st, const struct asmspy_event *ev) {
  int32_t i = task_for_event(st, ev);
  if (i < 0) return;
  int32_t leader = st->tasks[i].proc;
  struct task *l = &st->tasks[leader];
  /* exec kills every other thread of the process (no exit events) */
  for (size_t k = 0; k < st->ntasks; k++) {
    struct task *t = &st->tasks[k];
    if (t->proc == leader && t->tid != ev->tid && (int32_t)k != leader) set_dead(st, (int32_t)k);
  }
  if (!l->alive) { /* the exec'ing thread took over the leader's tid */
    l->alive = 1;
    l->nlive++;
  }
  proc_comm(l->tgid, l->tgid, l->comm, sizeof l->comm);
  char *exe = proc_exe(l->tgid);
  if (exe) {
    free(l->exe);
    l->exe = exe;
  }
}

static void on_exit_event(struct procs_state *st, const struct asmspy_event *ev) {
  int32_t i = lookup(st, ev->tid);
  /* its exit is the first we hear of it (it ended before its parent's fork
   * event was reported): an entry now, with its code, for that event to claim */
  if (i < 0 ||
      (!st->tasks[i].alive && !st->tasks[i].has_code && st->tasks[i].origin == ORIGIN_RESCAN))
    i = task_for_event(st, ev);
  if (i < 0 || !st->tasks[i].alive) return;
  struct task *t = &st->tasks[i];
  set_dead(st, i);
  t->has_code = 1;
  t->code = ev->u.task.code;
}

/* x86-64: a call is E8 (rel32) or FF /2, /3 after optional prefixes, so an
 * instruction holding neither byte need not be disassembled. */
static int may_be_call(const struct asmspy_event *ev) {
#if defined(__x86_64__)
  size_t n = ev->u.insn.len < sizeof ev->u.insn.bytes ? ev->u.insn.len : sizeof ev->u.insn.bytes;
  return memchr(ev->u.insn.bytes, 0xe8, n) || memchr(ev->u.insn.bytes, 0xff, n);
#else
  (void)ev;
  return 1;
#endif
}

static int procs_consume(void *state, const struct asmspy_event *ev) {
  struct procs_state *st = state;
  if (!st->discovered) discover(st, st->s->pid > 0 ? st->s->pid : ev->pid);
  if (st->reread_root && st->ntasks && ev->pid == st->tasks[st->root].tgid) {
    /* --launch: the seam ran the child to its exec before the first event
     * (that exec is never reported); it is stopped now, in the new image */
    st->reread_root = 0;
    struct task *r = &st->tasks[st->root];
    proc_comm(r->tgid, r->tid, r->comm, sizeof r->comm);
    char *exe = proc_exe(r->tgid);
    if (exe) {
      free(r->exe);
      r->exe = exe;
    }
  }
  int counted = 0;
  switch (ev->type) {
  case ASMSPY_EV_SYSCALL_EXIT:
    if (st->count != COUNT_SYSCALLS) return ASMSPY_CONSUME_MORE;
    counted = 1;
    break;
  case ASMSPY_EV_INSN: {
    if (st->count != COUNT_CALLS || !ev->u.insn.len || !may_be_call(ev)) return ASMSPY_CONSUME_MORE;
    if (!(pi_event_class(st->host, ev) & ASMSPY_INSN_CALL)) return ASMSPY_CONSUME_MORE;
    counted = 1;
    break;
  }
  case ASMSPY_EV_TASK:
    switch (ev->u.task.what) {
    case ASMSPY_TASK_CLONE:
    case ASMSPY_TASK_FORK: on_birth(st, ev); break;
    case ASMSPY_TASK_EXEC: on_exec(st, ev); break;
    case ASMSPY_TASK_EXIT: on_exit_event(st, ev); break;
    default: break;
    }
    return ASMSPY_CONSUME_MORE;
  default: return ASMSPY_CONSUME_MORE;
  }
  if (counted) {
    int32_t i = task_for_event(st, ev);
    if (i >= 0) st->tasks[i].inv++;
    st->counted++;
  }
  return st->want > 0 && st->counted >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
}

/* ------------------------------------------------- finish: refresh -- */

/* Re-read the tree from /proc: tasks that vanished unseen (untraced ones),
 * threads and children born late, names (threads rename themselves).
 * mid_capture (a snapshot): a task that looks gone is left alive while its
 * events may still come (a traced task, or one this walk found under a
 * followed process before its birth event was consumed): its exit event,
 * with the exit code, is on its way, and marking it dead now would make its
 * remaining events start a second entry for the same tid. */
static void refresh(struct procs_state *st, int mid_capture) {
  size_t n = st->ntasks;
  for (size_t k = 0; k < n; k++) {
    struct task *t = &st->tasks[k];
    if (!t->alive) continue;
    if (task_alive_now(t->tgid, t->tid))
      proc_comm(t->tgid, t->tid, t->comm, sizeof t->comm);
    else if (!(mid_capture && may_still_report(st, (int32_t)k)))
      set_dead(st, (int32_t)k); /* no code: it ended unseen */
  }
  for (size_t k = 0; k < n; k++) {
    struct task *l = &st->tasks[k];
    if (l->proc != (int32_t)k || l->nlive <= 0) continue;
    char *exe = proc_exe(l->tgid);
    if (exe) {
      free(l->exe);
      l->exe = exe;
    }
    scan_threads(st, (int32_t)k, ORIGIN_RESCAN, st->tasks[k].traced);
  }
  if (st->ntasks) scan_descendants(st, st->root, ORIGIN_RESCAN);
}

/* ---------------------------------------------------- finish: rows -- */

static const char *base_name(const char *path) {
  if (!path) return NULL;
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static void append(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char **buf, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *add = NULL;
  int n = vasprintf(&add, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  char *nb = realloc(*buf, *len + (size_t)n + 1);
  if (!nb) {
    free(add);
    return;
  }
  memcpy(nb + *len, add, (size_t)n + 1);
  *buf = nb;
  *len += (size_t)n;
  free(add);
}

static void emit_row(struct procs_state *st, int32_t idx, const char *text) {
  const struct asmspy_host_api *h = st->host;
  const struct task *t = &st->tasks[idx];
  const struct task *l = &st->tasks[t->proc];
  const struct asmspy_value v[] = {
      rv_int(t->tid),
      rv_int(t->tgid),
      rv_int(t->ppid),
      rv_bool(t->proc == idx),
      rv_str(t->comm),
      rv_str(l->exe), /* NULL: null */
      rv_int((int64_t)t->inv),
      rv_str(count_name[st->count]),
      rv_bool(t->traced),
      rv_bool(t->alive),
      rv_str(origin_name[t->origin]),
      t->has_code ? rv_int(t->code) : rv_absent(),
  };
  rec_emit(h, st->s->out, &procs_records[PROCS_REC_PROC], v, text);
}

static void flush_pending(struct procs_state *st) {
  if (st->pending >= 0) emit_row(st, st->pending, st->pending_text);
  free(st->pending_text);
  st->pending = -1;
  st->pending_text = NULL;
  st->pending_len = 0;
}

/* One task's row (text may be NULL): emitted when the next row comes, so
 * later text can still join it (attach_text). */
static void row(struct procs_state *st, int32_t idx, const char *text) {
  flush_pending(st);
  st->pending = idx;
  if (st->prefix_text) {
    st->pending_text = st->prefix_text;
    st->pending_len = strlen(st->prefix_text);
    st->prefix_text = NULL;
    if (text) append(&st->pending_text, &st->pending_len, "\n%s", text);
  } else if (text) {
    st->pending_text = strdup(text);
    st->pending_len = st->pending_text ? strlen(text) : 0;
  }
}

/* More lines on the row last given to row(). */
static void attach_text(struct procs_state *st, const char *text) {
  if (st->pending < 0) return;
  append(&st->pending_text, &st->pending_len, st->pending_text ? "\n%s" : "%s", text);
}

/* "exited 0", "killed SIGKILL", "gone" (ended unseen); "" while alive. */
static void exit_word(const struct task *t, int alive, char *buf, size_t cap) {
  if (alive)
    buf[0] = 0;
  else if (!t->has_code)
    snprintf(buf, cap, "gone");
  else if (t->code >= 0)
    snprintf(buf, cap, "exited %d", t->code);
  else
    snprintf(buf, cap, "killed SIG%s", sigabbrev_np(-t->code) ? sigabbrev_np(-t->code) : "?");
}

/* Built once per render: who hangs under whom, and per-process sums. */
struct layout {
  int32_t *thr_head, *thr_next; /* a process's non-leader threads, birth order */
  int32_t *kid_head, *kid_next; /* a process's child processes, birth order */
  uint64_t *pinv;               /* leaders: inv summed over the process's tasks */
  uint8_t *sdead;               /* leaders: the process and all its descendants exited */
  uint8_t *ptraced;             /* leaders: some task of the process is traced */
};

static void layout_free(struct layout *L) {
  free(L->thr_head);
  free(L->thr_next);
  free(L->kid_head);
  free(L->kid_next);
  free(L->pinv);
  free(L->sdead);
  free(L->ptraced);
}

static int layout_build(const struct procs_state *st, struct layout *L) {
  size_t n = st->ntasks;
  memset(L, 0, sizeof *L);
  L->thr_head = malloc(n * sizeof(int32_t));
  L->thr_next = malloc(n * sizeof(int32_t));
  L->kid_head = malloc(n * sizeof(int32_t));
  L->kid_next = malloc(n * sizeof(int32_t));
  L->pinv = calloc(n, sizeof(uint64_t));
  L->sdead = calloc(n, 1);
  L->ptraced = calloc(n, 1);
  if (!L->thr_head || !L->thr_next || !L->kid_head || !L->kid_next || !L->pinv || !L->sdead ||
      !L->ptraced) {
    layout_free(L);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    L->thr_head[i] = L->thr_next[i] = L->kid_head[i] = L->kid_next[i] = -1;
  for (size_t k = n; k-- > 0;) { /* push at the head, backwards: lists in birth order */
    const struct task *t = &st->tasks[k];
    int32_t i = (int32_t)k;
    L->pinv[t->proc] += t->inv;
    L->ptraced[t->proc] |= t->traced;
    if (t->proc != i) {
      L->thr_next[i] = L->thr_head[t->proc];
      L->thr_head[t->proc] = i;
    } else if (t->parent >= 0 && t->parent != i) {
      L->kid_next[i] = L->kid_head[t->parent];
      L->kid_head[t->parent] = i;
    }
  }
  for (size_t k = 0; k < n; k++)
    L->sdead[k] = st->tasks[k].proc == (int32_t)k && st->tasks[k].nlive <= 0;
  /* a live process keeps every ancestor's subtree alive */
  for (size_t k = 0; k < n; k++) {
    const struct task *t = &st->tasks[k];
    if (t->proc != (int32_t)k || t->nlive <= 0) continue;
    for (int32_t p = t->parent; p >= 0 && L->sdead[p]; p = st->tasks[p].parent) L->sdead[p] = 0;
  }
  return 0;
}

static void text_thread_line(const struct procs_state *st, int32_t i, char *buf, size_t cap) {
  const struct task *t = &st->tasks[i];
  char word[48];
  exit_word(t, t->alive, word, sizeof word);
  snprintf(buf, cap, "tid %d (%s)  inv=%" PRIu64 "%s%s%s", t->tid, t->comm, t->inv,
           t->traced ? "" : "  (not traced)", word[0] ? "  " : "", word);
}

static void text_node_line(const struct procs_state *st, const struct layout *L, int32_t l,
                           char *buf, size_t cap) {
  const struct task *t = &st->tasks[l];
  char word[48];
  exit_word(t, t->nlive > 0, word, sizeof word);
  const char *exe = base_name(t->exe);
  snprintf(buf, cap, "node %d [%s]  inv=%" PRIu64 "%s%s%s", t->tgid, exe ? exe : t->comm,
           L->pinv[l], L->ptraced[l] ? "" : "  (not traced)", word[0] ? "  " : "", word);
}

/* A folded subtree: every task still gets its row, without text. */
static void rows_silent(struct procs_state *st, const struct layout *L, int32_t leader) {
  row(st, leader, NULL);
  for (int32_t c = L->thr_head[leader]; c >= 0; c = L->thr_next[c]) row(st, c, NULL);
  for (int32_t c = L->kid_head[leader]; c >= 0; c = L->kid_next[c]) rows_silent(st, L, c);
}

/* An entry the tree may fold: an exited thread, or a child process whose
 * whole subtree has exited. */
static int foldable(const struct procs_state *st, const struct layout *L, int32_t i) {
  return st->tasks[i].proc == i ? L->sdead[i] : !st->tasks[i].alive;
}

/* Draw one process node and everything under it: `lead` prefixes the node's
 * own line, `cont` the lines below it. Items under a node: the leader's own
 * tid line, its other threads, then its child processes, in birth order;
 * past PROCS_KEEP_EXITED exited items the oldest fold into one line. */
static void text_node(struct procs_state *st, const struct layout *L, int32_t leader,
                      const char *lead, const char *cont, int depth) {
  size_t nitems = 0, nfold = 0;
  for (int32_t c = L->thr_head[leader]; c >= 0; c = L->thr_next[c])
    nitems++, nfold += foldable(st, L, c);
  for (int32_t c = L->kid_head[leader]; c >= 0; c = L->kid_next[c])
    nitems++, nfold += foldable(st, L, c);
  size_t fold = nfold > PROCS_KEEP_EXITED ? nfold - PROCS_KEEP_EXITED : 0;

  /* the node's row is its leader task: node line + the leader's tid line */
  char node[1024], tline[512], text[4096];
  text_node_line(st, L, leader, node, sizeof node);
  text_thread_line(st, leader, tline, sizeof tline);
  snprintf(text, sizeof text, "%s%s\n%s%s%s", lead, node, cont, nitems ? "├─ " : "└─ ", tline);
  row(st, leader, text);

  /* the oldest exited items, folded: rows without text, one summary line */
  size_t shown_total = nitems;
  if (fold) {
    size_t left = fold, threads = 0, procs = 0;
    uint64_t inv = 0;
    for (int32_t c = L->thr_head[leader]; c >= 0 && left; c = L->thr_next[c])
      if (foldable(st, L, c)) left--, threads++, inv += st->tasks[c].inv, row(st, c, NULL);
    for (int32_t c = L->kid_head[leader]; c >= 0 && left; c = L->kid_next[c])
      if (foldable(st, L, c)) left--, procs++, inv += L->pinv[c], rows_silent(st, L, c);
    char sum[2600];
    snprintf(sum, sizeof sum,
             "%s├─ … %zu earlier exited: %zu process%s, %zu thread%s (inv=%" PRIu64 ")", cont, fold,
             procs, procs == 1 ? "" : "es", threads, threads == 1 ? "" : "s", inv);
    attach_text(st, sum);
    shown_total -= fold;
  }

  /* the rest, in order; which were folded is re-derived the same way */
  size_t left = fold, shown = 0;
  int deep = depth > 100; /* stop indenting there; still draw */
  for (int pass = 0; pass < 2; pass++) {
    int32_t c = pass == 0 ? L->thr_head[leader] : L->kid_head[leader];
    for (; c >= 0; c = pass == 0 ? L->thr_next[c] : L->kid_next[c]) {
      if (left && foldable(st, L, c)) {
        left--;
        continue;
      }
      int last = ++shown == shown_total;
      if (pass == 0) {
        char line[512];
        text_thread_line(st, c, line, sizeof line);
        snprintf(text, sizeof text, "%s%s%s", cont, last ? "└─ " : "├─ ", line);
        row(st, c, text);
      } else {
        char sub_lead[2048], sub_cont[2048];
        snprintf(sub_lead, sizeof sub_lead, "%s%s", cont, deep ? "" : last ? "└─ " : "├─ ");
        snprintf(sub_cont, sizeof sub_cont, "%s%s", cont, deep ? "" : last ? "   " : "│  ");
        text_node(st, L, c, sub_lead, sub_cont, depth + 1);
      }
    }
  }
}

/* DOT: processes are boxes with solid parent->child edges, threads dashed
 * ellipses hanging off their process by dashed edges. */
static void dot_escape(const char *src, char *dst, size_t cap) {
  size_t o = 0;
  for (; *src && o + 3 < cap; src++) {
    unsigned char ch = (unsigned char)*src;
    if (ch == '"' || ch == '\\') dst[o++] = '\\';
    dst[o++] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
  }
  dst[o] = 0;
}

static void dot_id(const struct procs_state *st, int32_t i, int proc, char *buf, size_t cap) {
  const struct task *t = &st->tasks[i];
  if (lookup(st, t->tid) == i)
    snprintf(buf, cap, "%c%d", proc ? 'p' : 't', t->tid);
  else /* an earlier task whose id was reused since */
    snprintf(buf, cap, "%c%d_%d", proc ? 'p' : 't', t->tid, (int)i);
}

static void dot_rows(struct procs_state *st, const struct layout *L) {
  for (size_t k = 0; k < st->ntasks; k++) {
    int32_t i = (int32_t)k;
    const struct task *t = &st->tasks[i];
    char text[4096], comm[sizeof t->comm * 2], pid_id[64], tid_id[64], word[48];
    dot_escape(t->comm, comm, sizeof comm);
    dot_id(st, t->proc, 1, pid_id, sizeof pid_id);
    dot_id(st, i, 0, tid_id, sizeof tid_id);
    int n = 0;
    if (t->proc == i) {
      const char *b = base_name(t->exe);
      char exe[512];
      dot_escape(b ? b : t->comm, exe, sizeof exe);
      exit_word(t, t->nlive > 0, word, sizeof word);
      n += snprintf(text + n, sizeof text - (size_t)n,
                    "  \"%s\" [shape=box, style=solid, label=\"node %d\\n[%s]\\ninv=%" PRIu64
                    "%s%s%s\"%s];\n",
                    pid_id, t->tgid, exe, L->pinv[i], L->ptraced[i] ? "" : "\\n(not traced)",
                    word[0] ? "\\n" : "", word,
                    t->nlive > 0 ? "" : ", color=gray50, fontcolor=gray50");
      if (t->parent >= 0) {
        char parent_id[64];
        dot_id(st, t->parent, 1, parent_id, sizeof parent_id);
        n += snprintf(text + n, sizeof text - (size_t)n, "  \"%s\" -> \"%s\" [style=solid];\n",
                      parent_id, pid_id);
      }
    }
    exit_word(t, t->alive, word, sizeof word);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "  \"%s\" [shape=ellipse, style=dashed, label=\"tid %d\\n(%s)\\ninv=%" PRIu64
                  "%s%s%s\"%s];\n",
                  tid_id, t->tid, comm, t->inv, t->traced ? "" : "\\n(not traced)",
                  word[0] ? "\\n" : "", word, t->alive ? "" : ", color=gray50, fontcolor=gray50");
    snprintf(text + n, sizeof text - (size_t)n, "  \"%s\" -> \"%s\" [style=dashed];", pid_id,
             tid_id);
    row(st, i, text);
  }
}

/* The tree as it stands, as rows through host->emit: finish() at the end,
 * snapshot() (the TUI's periodic frame) while the capture runs. */
static int render_tree(struct procs_state *st, int mid_capture) {
  if (!st->discovered) discover(st, st->s->pid);
  refresh(st, mid_capture);
  struct layout L;
  if (!st->ntasks || layout_build(st, &L) != 0) {
    st->host->note(st->s->out, ASMSPY_NOTE_WARN, "procs: pid %d: no task found in /proc",
                   (int)st->s->pid);
    return 0;
  }
  size_t nprocs = 0;
  for (size_t k = 0; k < st->ntasks; k++) nprocs += st->tasks[k].proc == (int32_t)k;
  char title[256];
  if (st->format == FMT_DOT) {
    snprintf(title, sizeof title,
             "digraph procs {\n  label=\"process tree of pid %d, inv = %s\";\n"
             "  node [fontname=\"monospace\"];",
             (int)st->tasks[st->root].tgid, count_name[st->count]);
    st->prefix_text = strdup(title);
    dot_rows(st, &L);
    attach_text(st, "}");
  } else {
    snprintf(title, sizeof title,
             "process tree — %zu process%s, %zu task%s, inv counts %s (pid %d, %" PRId64
             " counted)",
             nprocs, nprocs == 1 ? "" : "es", st->ntasks, st->ntasks == 1 ? "" : "s",
             count_name[st->count], (int)st->tasks[st->root].tgid, st->counted);
    st->prefix_text = strdup(title);
    text_node(st, &L, st->root, "", "", 0);
    /* processes whose parent is not in the tree: their own roots */
    for (size_t k = 0; k < st->ntasks; k++) {
      int32_t i = (int32_t)k;
      if (st->tasks[i].proc == i && st->tasks[i].parent < 0 && i != st->root)
        text_node(st, &L, i, "", "", 0);
    }
  }
  flush_pending(st);
  layout_free(&L);
  return 0;
}

static int procs_finish(void *state, int end_status) {
  (void)end_status;
  return render_tree(state, 0);
}

static int procs_snapshot(void *state) { return render_tree(state, 1); }

/* ------------------------------------------------------------ view -- */

/* Its positionals, and the options this mode accepts after them: parsing,
 * --help, the man page, shell completion and serve's checks read the table
 * (the index enum keeps open() in step with it). */
#define POSITIONALS "<pid> [n]"
enum { OPT_COUNT, OPT_DOT };
static const struct asmspy_option procs_options[] = {
    [OPT_COUNT] = {"count", "syscalls|calls",
                   "what each task counts: syscalls (default, near full speed) or calls "
                   "(single-step)"},
    [OPT_DOT] = {"dot", NULL, "a Graphviz digraph of the process tree (not with --json)"},
    {NULL, NULL, NULL},
};

static int procs_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      void **state) {
  int count = COUNT_SYSCALLS, dot = 0;
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, procs_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, procs_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  /* the parser checked the choices */
  if (ov.value[OPT_COUNT] && strcmp(ov.value[OPT_COUNT], "calls") == 0) count = COUNT_CALLS;
  dot = ov.value[OPT_DOT] != NULL;
  if (dot && (s->flags & ASMSPY_SESS_JSON)) {
    host->note(NULL, ASMSPY_NOTE_WARN,
               "--procs: --json and --dot are exclusive (--dot is the text; add --record=<f> "
               "for the event list too)");
    return -ASMSPY_E_USAGE;
  }
  struct procs_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->count = count;
  st->format = dot ? FMT_DOT : (s->flags & ASMSPY_SESS_JSON) ? FMT_JSON : FMT_TEXT;
  st->want = s->max ? s->max : PROCS_DEFAULT_N;
  st->children_file = -1;
  st->root = 0;
  st->pending = -1;
  *state = st;
  return 0;
}

/* The target is known and nothing is attached yet: read the topology, and
 * ask the seam to follow forks so later children are traced and reported. */
static int procs_configure(void *state, const struct asmspy_host_api *host,
                           struct asmspy_session *s) {
  (void)host;
  struct procs_state *st = state;
  if (!s->tid) s->flags |= ASMSPY_SESS_FOLLOW;
  discover(st, s->pid);
  st->reread_root = (s->flags & ASMSPY_SESS_LAUNCHED) != 0;
  return 0;
}

static void procs_close(void *state) {
  struct procs_state *st = state;
  if (!st) return;
  for (size_t k = 0; k < st->ntasks; k++) free(st->tasks[k].exe);
  free(st->tasks);
  free(st->hash);
  free(st->pending_text);
  free(st->prefix_text);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field proc_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the task"),
    RF_INT("tgid", ANY_INT, ASMSPY_FIELDF_DRILL_PID, "its process"),
    RF_INT("ppid", ANY_INT, 0, "the process's parent"),
    RF_BOOL("leader", OPT, "tid == tgid (a node row, not a thread row)"),
    RF_STR("comm", 0, "its name"),
    RF_STR("exe", NUL | OPT, "the process's executable (null: unreadable)"),
    RF_INT("inv", 0, 0, "events counted for it"),
    RF_ENUM("count", "syscalls|calls", OPT, "what inv counts"),
    RF_BOOL("traced", OPT, "its events reached the view"),
    RF_BOOL("alive", OPT, "running at the end"),
    RF_ENUM("origin", "attach|fork|clone|seen|rescan", OPT, "how the view learned of it"),
    RF_INT("code", ANY_INT, OPT, "exit status / -signal, when seen"),
    RF_END,
};

static const struct asmspy_record_schema procs_records[PROCS_REC_N + 1] = {
    [PROCS_REC_PROC] = {"proc", "one task of the process tree", proc_fields, NULL},
    [PROCS_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry procs_tui = {'6', ASMSPY_TUI_TOPOLOGY, 0,
                                                  "process/thread topology"};

/* What --count asks of the backend beyond caps_required (TASKS, which both
 * the syscall tracer and the single-stepper give): counting syscalls (the
 * default) needs the syscall stops, near full speed; counting calls needs an
 * instruction stream. The engine picks the backend from this. */
static const struct asmspy_option_caps procs_option_caps[] = {
    {"count", "syscalls", ASMSPY_CAP_SYSCALLS, 1},
    {"count", "calls", ASMSPY_CAP_INSN_STREAM, 0},
    {NULL, NULL, 0, 0},
};

static const struct asmspy_view_ops procs_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "procs",
    /* + SYSCALLS or INSN_STREAM by --count: procs_option_caps */
    .caps_required = ASMSPY_CAP_TASKS,
    .usage = POSITIONALS,
    .open = procs_open,
    .consume = procs_consume,
    .finish = procs_finish,
    .snapshot = procs_snapshot,
    .close = procs_close,
    .configure = procs_configure,
    .options = procs_options,
    .option_caps = procs_option_caps,
    .records = procs_records,
    .tui = &procs_tui,
};

static const struct asmspy_plugin procs_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "procs",
    .description = "process/thread topology: the process tree with per-task syscall or call counts",
    .caps = ASMSPY_CAP_TASKS,
    .view = &procs_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(procs_plugin)
