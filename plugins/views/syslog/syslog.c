/* syslog: the syscall log view (`asmspy --log <pid> [n]`), a mini strace.
 *
 * Pairs each thread's syscall-entry and -exit events into one line
 *     write(fd=3</tmp/notes.txt>, "hello\n", 6) = 6
 * prefixed [tid] while more than one task is followed, and always for a task
 * other than the session's own (a --follow child, down to its exit lines).
 * Arguments are decoded by sc_decode.c from the live target: the ptrace
 * backend delivers each event while the thread is stopped, so buffers, paths
 * and fds are read at the moment the kernel saw them (entry for inputs and
 * fds, exit for outputs).
 * n counts completed syscall lines (default 20; negative = until exit).
 * --json: one `syscall` event per line with the decoded text, the return
 * value, the errno name and the strings the call carried (paths, buffers). */
#define _GNU_SOURCE
#include "plugins/views/syslog/sc_decode.h"
#include "plugins/common/task_prefix.h"

#include <asmspy/plugin.h>
#include "plugins/common/view_options.h"
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/common/record_emit.h"
#include "plugins/common/task_record.h"

/* Its records (the `syslog_records` table at the end of this file). */
enum { SYSLOG_REC_SYSCALL, SYSLOG_REC_TASK, SYSLOG_REC_SIGNAL, SYSLOG_REC_N };
static const struct asmspy_record_schema syslog_records[SYSLOG_REC_N + 1];

#define SYSLOG_DEFAULT_N 20

struct thread_call {
  int32_t tid;
  int in_flight;
  int skipping;   /* the call in flight is filtered out by --trace */
  int unfinished; /* strace -f: its entry was printed `name(args <unfinished ...>` */
  struct sc_call call;
};

#define SYSLOG_NSIG 65

struct syslog_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want, shown;
  struct thread_call *threads;
  size_t nthreads, cap;
  unsigned env_flags;    /* SC_ENV_* from the options */
  unsigned string_limit; /* --string-limit (0: the style's default) */
  uint8_t *traced;       /* --trace: 1 per syscall number shown; NULL = all */
  int64_t ntraced;
  uint8_t sigshown[SYSLOG_NSIG]; /* --signal: 1 per signal number shown */
  int split; /* -1 until known; --strace in text: strace -f's <unfinished ...> / <... resumed> */
  int32_t open_tid; /* split: the task whose entry is "on the line" (0: none) */
};

/* ----------------------------------------------------- decoder env -- */

static ssize_t env_read_mem(void *ctx, uint64_t addr, void *buf, size_t len);
static const char *env_describe_fd(void *ctx, int fd, char *buf, size_t cap);
static const char *env_syscall_name(void *ctx, int64_t nr);

struct env_ctx {
  const struct asmspy_host_api *host;
  struct asmspy_target *target;
};

static ssize_t env_read_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct env_ctx *c = ctx;
  return c->target ? c->host->read_mem(c->target, addr, buf, len) : -1;
}
static const char *env_describe_fd(void *ctx, int fd, char *buf, size_t cap) {
  struct env_ctx *c = ctx;
  return c->target && ASMSPY_HAS(c->host, describe_fd)
             ? c->host->describe_fd(c->target, fd, buf, cap)
             : NULL;
}
static const char *env_syscall_name(void *ctx, int64_t nr) {
  struct env_ctx *c = ctx;
  return ASMSPY_HAS(c->host, syscall_name) ? c->host->syscall_name(nr) : NULL;
}

static struct sc_env make_env(const struct syslog_state *st, struct env_ctx *c) {
  struct sc_env env = {.ctx = c,
                       .read_mem = env_read_mem,
                       .describe_fd = env_describe_fd,
                       .syscall_name = env_syscall_name,
                       .flags = st->env_flags,
                       .string_limit = st->string_limit};
  return env;
}

/* --trace: is syscall nr shown? */
static int traced(const struct syslog_state *st, int64_t nr) {
  if (!st->traced) return 1;
  return nr >= 0 && nr < st->ntraced && st->traced[nr];
}

/* --------------------------------------------------------- threads -- */

static struct thread_call *thread_for(struct syslog_state *st, int32_t tid) {
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) return &st->threads[i];
  if (st->nthreads == st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 8;
    struct thread_call *nt = realloc(st->threads, nc * sizeof *nt);
    if (!nt) return NULL;
    st->threads = nt;
    st->cap = nc;
  }
  struct thread_call *t = &st->threads[st->nthreads++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  return t;
}

/* An exited task's slot goes (a fork-heavy target under --follow would
 * otherwise grow the table, and every lookup, by one per child); the last
 * slot moves into its place. */
static void thread_drop(struct syslog_state *st, int32_t tid) {
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == tid) {
      if (i != st->nthreads - 1) st->threads[i] = st->threads[st->nthreads - 1];
      st->nthreads--;
      return;
    }
}

/* ---------------------------------------------------------- output -- */

/* "[tid] " while several tasks are followed, and on every line of a task
 * that is not the session's own (task_prefix.h: a child's exit lines too). */
static void prefix_for(const struct syslog_state *st, const struct asmspy_event *ev, char *buf,
                       size_t cap) {
  task_prefix(st->s, ev, buf, cap);
  int tid;
  if ((st->env_flags & SC_ENV_STRACE) && sscanf(buf, "[%d]", &tid) == 1)
    snprintf(buf, cap, "[pid %5d] ", tid); /* strace -f's prefix */
}

/* One completed (or unfinished) syscall line through the writer. */
static int emit_line(struct syslog_state *st, const struct asmspy_event *ev,
                     const struct sc_call *c, const char *line, int64_t ret, int have_ret) {
  const struct asmspy_host_api *h = st->host;
  char prefix[32], text[5000];
  prefix_for(st, ev, prefix, sizeof prefix);
  size_t eq = c->eq_at;
  if ((st->env_flags & SC_ENV_STRACE) && eq < strlen(line) && strncmp(line + eq, " = ", 3) == 0) {
    /* strace's layout: "= " at column 40 when the call is shorter */
    int col = (int)(strlen(prefix) + eq);
    snprintf(text, sizeof text, "%s%.*s%*s= %s", prefix, (int)eq, line, col < 40 ? 40 - col : 1, "",
             line + eq + 3);
  } else {
    snprintf(text, sizeof text, "%s%s", prefix, line);
  }
  st->shown++;
  int done = st->want > 0 && st->shown >= st->want ? ASMSPY_CONSUME_DONE : ASMSPY_CONSUME_MORE;
  const char *name = ASMSPY_HAS(h, syscall_name) ? h->syscall_name(c->nr) : NULL;
  struct asmspy_value carried[SC_MAX_CARRIED];
  int ncarried = c->ncarried < SC_MAX_CARRIED ? c->ncarried : SC_MAX_CARRIED;
  for (int i = 0; i < ncarried; i++) carried[i] = rv_strn(c->carried[i], c->carried_len[i]);
  const struct asmspy_value v[] = {
      rv_int(ev->tid),
      rv_int(c->nr),
      rv_str(name ? name : "?"),
      rv_str(line),
      have_ret ? rv_int(ret) : rv_null(),
      have_ret && ret < 0 && ret >= -4095 ? rv_str(sc_errno_name((int)-ret)) : rv_absent(),
      rv_array(carried, (size_t)ncarried),
  };
  rec_emit(h, st->s->out, &syslog_records[SYSLOG_REC_SYSCALL], v, text);
  return done;
}

/* strace -f's interleaving (--strace, text): strace prints a syscall's
 * entry at once and finishes the line at the exit; when another task prints
 * first, the entry line ends ` <unfinished ...>` and the exit comes as
 * `<... wait4 resumed>[...], 0, NULL) = 1234`. The view prints whole lines
 * at the exit, so it only tracks whose entry would be on the line (open_tid)
 * and, before any line of another task, writes that entry as unfinished:
 * the arguments decoded at the entry, with strace's ", " when more follow at
 * the exit (a dry sc_unfinished of a copy tells). */
static int split_lines(struct syslog_state *st) {
  if (st->split < 0) /* s->out is the writer's once events flow */
    st->split = (st->env_flags & SC_ENV_STRACE) && st->s->out &&
                !(ASMSPY_HAS(st->host, wants_json) && st->host->wants_json &&
                  st->host->wants_json(st->s->out));
  return st->split;
}

static void close_open_entry(struct syslog_state *st, const struct asmspy_event *ev) {
  if (!split_lines(st) || !st->open_tid || st->open_tid == ev->tid) return;
  int32_t otid = st->open_tid;
  st->open_tid = 0;
  struct thread_call *t = NULL;
  for (size_t i = 0; i < st->nthreads; i++)
    if (st->threads[i].tid == otid) t = &st->threads[i];
  if (!t || !t->in_flight || t->unfinished) return;
  static struct sc_call dry; /* 4 KiB: not on the stack */
  char full[5000], text[5200], prefix[32];
  dry = t->call;
  sc_unfinished(&dry, full, sizeof full);
  size_t n = strnlen(t->call.text, sizeof t->call.text);
  int more = strncmp(full, t->call.text, n) == 0 && strncmp(full + n, ", ", 2) == 0;
  struct asmspy_event pe = *ev; /* its prefix as the current line counts tasks */
  pe.tid = otid;
  prefix_for(st, &pe, prefix, sizeof prefix);
  snprintf(text, sizeof text, "%s%.*s%s <unfinished ...>", prefix, (int)n, t->call.text,
           more ? ", " : "");
  st->host->emit(st->s->out, NULL, NULL, text); /* text only: no record of its own */
  t->unfinished = 1;
}

/* The exit line of a call printed unfinished: `<... name resumed>` and what
 * its full line has after the entry's part. */
static void resumed_line(const struct sc_call *c, char *line, size_t cap, uint32_t *eq_at) {
  size_t n = strnlen(c->text, sizeof c->text);
  char *rest = line;
  if (strncmp(line, c->text, n) == 0) {
    rest = line + n;
    if (strncmp(rest, ", ", 2) == 0) rest += 2;
  }
  const char *paren = strchr(c->text, '(');
  char out[5200];
  int head = snprintf(out, sizeof out, "<... %.*s resumed>",
                      paren ? (int)(paren - c->text) : (int)n, c->text);
  snprintf(out + head, sizeof out - (size_t)head, "%s", rest);
  size_t cut = (size_t)(rest - line);
  *eq_at = *eq_at >= cut ? (uint32_t)(*eq_at - cut + (size_t)head) : (uint32_t)strlen(out);
  snprintf(line, cap, "%s", out);
}

static int on_enter(struct syslog_state *st, const struct asmspy_event *ev) {
  struct thread_call *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  if (!traced(st, ev->u.sys.nr)) { /* not decoded at all: --trace costs nothing */
    t->in_flight = 0;
    t->skipping = 1;
    return ASMSPY_CONSUME_MORE;
  }
  t->skipping = 0;
  struct env_ctx c = {st->host, ev->target};
  struct sc_env env = make_env(st, &c);
  sc_enter(&env, &t->call, ev->u.sys.nr, ev->u.sys.args);
  t->in_flight = 1;
  t->unfinished = 0;
  if (split_lines(st)) {
    close_open_entry(st, ev);
    st->open_tid = ev->tid;
  }
  return ASMSPY_CONSUME_MORE;
}

static int on_exit_event(struct syslog_state *st, const struct asmspy_event *ev) {
  struct thread_call *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  char line[5000];
  struct env_ctx c = {st->host, ev->target};
  struct sc_env env = make_env(st, &c);
  if (t->skipping) {
    t->skipping = 0;
    return ASMSPY_CONSUME_MORE;
  }
  if (!t->in_flight && !traced(st, ev->u.sys.nr)) return ASMSPY_CONSUME_MORE;
  if (!t->in_flight) {
    /* We arrived mid-syscall (its entry happened before we attached, or it
     * is the execve that started a --launch): only the result is known. */
    if (ev->u.sys.nr < 0) return ASMSPY_CONSUME_MORE; /* nothing to name */
    memset(&t->call, 0, sizeof t->call);
    t->call.nr = ev->u.sys.nr;
    const char *name = env.syscall_name(env.ctx, ev->u.sys.nr);
    snprintf(line, sizeof line, "%s(...) = %" PRId64, name ? name : "syscall", ev->u.sys.ret);
    t->call.eq_at = (uint32_t)(strstr(line, "(...)") - line + 5);
    return emit_line(st, ev, &t->call, line, ev->u.sys.ret, 1);
  }
  t->in_flight = 0;
  sc_exit(&env, &t->call, ev->u.sys.ret, line, sizeof line);
  close_open_entry(st, ev);
  if (st->open_tid == ev->tid) st->open_tid = 0;
  if (t->unfinished) {
    t->unfinished = 0;
    resumed_line(&t->call, line, sizeof line, &t->call.eq_at);
  }
  return emit_line(st, ev, &t->call, line, ev->u.sys.ret, 1);
}

static int on_task(struct syslog_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  char prefix[32], text[256];
  prefix_for(st, ev, prefix, sizeof prefix);
  int done = ASMSPY_CONSUME_MORE;
  if (ev->u.task.what == ASMSPY_TASK_EXIT) {
    struct thread_call *t = thread_for(st, ev->tid);
    close_open_entry(st, ev);
    if (st->open_tid == ev->tid) st->open_tid = 0;
    if (t && t->in_flight) { /* exit_group / exit never return */
      char line[5000];
      sc_unfinished(&t->call, line, sizeof line);
      t->in_flight = 0;
      if (t->unfinished) {
        t->unfinished = 0;
        resumed_line(&t->call, line, sizeof line, &t->call.eq_at);
      }
      done = emit_line(st, ev, &t->call, line, 0, 0);
    }
    int code = ev->u.task.code;
    if (code >= 0)
      snprintf(text, sizeof text, "%s+++ exited with %d +++", prefix, code);
    else
      snprintf(text, sizeof text, "%s+++ killed by SIG%s +++", prefix,
               sigabbrev_np(-code) ? sigabbrev_np(-code) : "?");
    const struct asmspy_value v[] = {rv_str("exit"), rv_int(ev->tid), rv_absent(), rv_int(code)};
    rec_emit(h, st->s->out, &syslog_records[SYSLOG_REC_TASK], v, text);
    thread_drop(st, ev->tid);
  } else {
    const struct asmspy_value v[] = {rv_str(task_record_what(ev)), rv_int(ev->tid),
                                     rv_int(ev->u.task.child), rv_absent()};
    /* strace shows these through the syscalls: no text */
    rec_emit(h, st->s->out, &syslog_records[SYSLOG_REC_TASK], v, NULL);
  }
  return done;
}

/* A signal line. strace mode: `--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED,
 * si_pid=1234, ...} ---`, the struct by the waitid/rt_sigtimedwait printer
 * (sc_siginfo_text) from the event's siginfo (1.12; a backend without it
 * gives signo and si_code only); house style `--- SIGCHLD ---`. A job-control
 * group-stop is strace's `--- stopped by SIGSTOP ---` in both. */
static int on_signal(struct syslog_state *st, const struct asmspy_event *ev) {
  char prefix[32], text[512], name[48], info[384];
  int signo = ev->u.signal.signo;
  int stopped = (ev->flags & ASMSPY_EVF_SIG_GROUP_STOP) != 0;
  if (signo > 0 && signo < SYSLOG_NSIG && !st->sigshown[signo]) return ASMSPY_CONSUME_MORE;
  close_open_entry(st, ev);
  prefix_for(st, ev, prefix, sizeof prefix);
  const char *abbrev = sigabbrev_np(signo);
  snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "?");
  int has_info = (ev->flags & ASMSPY_EVF_SIG_INFO) != 0;
  if (stopped) {
    snprintf(text, sizeof text, "%s--- stopped by %s ---", prefix, name);
  } else if (st->env_flags & SC_ENV_STRACE) {
    struct sc_siginfo si = {.signo = signo, .code = ev->u.signal.code};
    if (has_info) {
      si.err = ev->u.signal.err;
      si.pid = ev->u.signal.pid;
      si.uid = ev->u.signal.uid;
      si.status = ev->u.signal.status;
      si.utime = ev->u.signal.utime;
      si.stime = ev->u.signal.stime;
      si.addr = ev->u.signal.addr;
      si.value = ev->u.signal.value;
      si.band = ev->u.signal.band;
      si.fd = ev->u.signal.fd;
      si.timerid = ev->u.signal.timerid;
      si.overrun = ev->u.signal.overrun;
      si.syscall = ev->u.signal.syscall;
      si.arch = ev->u.signal.arch;
      sc_siginfo_text(st->env_flags, &si, info, sizeof info);
    } else { /* signo and si_code only: the struct's head */
      sc_siginfo_text(st->env_flags, &si, info, sizeof info);
      char *cut = strstr(info, ", si_pid=");
      if (!cut) cut = strstr(info, ", si_addr=");
      if (cut) snprintf(cut, sizeof info - (size_t)(cut - info), "}");
    }
    snprintf(text, sizeof text, "%s--- %s %s ---", prefix, name, info);
  } else {
    snprintf(text, sizeof text, "%s--- %s ---", prefix, name);
  }
  int sender = has_info && !stopped && (ev->u.signal.code <= 0 || signo == SIGCHLD) &&
               ev->u.signal.code != -2;
  const struct asmspy_value v[] = {rv_int(ev->tid),
                                   rv_int(signo),
                                   rv_str(name),
                                   stopped ? rv_absent() : rv_int(ev->u.signal.code),
                                   sender ? rv_int(ev->u.signal.pid) : rv_absent(),
                                   stopped ? rv_bool(1) : rv_absent()};
  rec_emit(st->host, st->s->out, &syslog_records[SYSLOG_REC_SIGNAL], v, text);
  return ASMSPY_CONSUME_MORE;
}

/* ------------------------------------------------------------ view -- */

/* Its positionals (the CLI takes <pid> and n before the view sees the rest),
 * and its options: strace's own, under their long names (docs/syslog.md);
 * the shared --tid/--follow/--json/... are the CLI's. The table feeds
 * parsing, --help, the man page, shell completion and serve's checks. */
#define POSITIONALS "<pid> [n]"
enum { OPT_STRACE, OPT_STRLIM, OPT_HEX, OPT_VERBOSE, OPT_DECODE_FDS, OPT_TRACE, OPT_SIGNAL };
static const struct asmspy_option syslog_options[] = {
    [OPT_STRACE] = {"strace", NULL,
                    "strace's line format: fds as numbers, read data in place, strings cut at 32"},
    [OPT_STRLIM] = {"string-limit", "<n>", "bytes of a string or buffer shown (strace -s)"},
    [OPT_HEX] = {"hex", "non-ascii|all",
                 "strings in hex: when non-ASCII, or always (strace -x/-xx)"},
    [OPT_VERBOSE] = {"verbose", NULL, "unabbreviated structures (strace -v)"},
    [OPT_DECODE_FDS] = {"decode-fds", NULL, "with --strace: fds as 3</path> (strace -y)"},
    [OPT_TRACE] = {"trace", "<set>",
                   "syscalls shown: names, %file %network %process %signal %memory %ipc %desc "
                   "%creds %clock, ! negates (strace -e trace=)"},
    [OPT_SIGNAL] = {"signal", "<set>",
                    "signals shown: names or numbers, ! negates (strace -e signal=)"},
    {NULL, NULL, NULL},
};

/* --trace=<set>: a comma list of names, %classes, all, none; a leading !
 * negates the whole set (strace's -e trace=). NULL and a message on error. */
static uint8_t *parse_trace(const char *spec, int64_t *n, char *err, size_t errcap) {
  int neg = 0;
  if (*spec == '!') {
    neg = 1;
    spec++;
  }
  *n = sc_nr_max();
  uint8_t *set = calloc((size_t)*n + 1, 1);
  if (!set) {
    snprintf(err, errcap, "out of memory");
    return NULL;
  }
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int optional = 0;
    if (*tok == '?') {
      optional = 1;
      tok++;
    }
    if (strcmp(tok, "all") == 0) {
      memset(set, 1, (size_t)*n);
    } else if (strcmp(tok, "none") == 0) {
      memset(set, 0, (size_t)*n);
    } else if (*tok == '%' || sc_class_by_name(tok)) {
      unsigned cls = sc_class_by_name(*tok == '%' ? tok + 1 : tok);
      if (!cls) {
        snprintf(err, errcap, "--trace: unknown class '%s'", tok);
        free(set);
        return NULL;
      }
      for (int64_t nr = 0; nr < *n; nr++)
        if (sc_classes(nr) & cls) set[nr] = 1;
    } else {
      int64_t nr = sc_nr_by_name(tok);
      if (nr < 0 && !optional) {
        snprintf(err, errcap, "--trace: unknown syscall '%s'", tok);
        free(set);
        return NULL;
      }
      if (nr >= 0) set[nr] = 1;
    }
  }
  if (neg)
    for (int64_t nr = 0; nr < *n; nr++) set[nr] = !set[nr];
  return set;
}

/* --signal=<set>: names (SIGCHLD or CHLD), numbers, all, none; ! negates. */
static int parse_signals(const char *spec, uint8_t shown[SYSLOG_NSIG], char *err, size_t errcap) {
  int neg = 0;
  if (*spec == '!') {
    neg = 1;
    spec++;
  }
  memset(shown, 0, SYSLOG_NSIG);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (strcmp(tok, "all") == 0) {
      memset(shown, 1, SYSLOG_NSIG);
      continue;
    }
    if (strcmp(tok, "none") == 0) {
      memset(shown, 0, SYSLOG_NSIG);
      continue;
    }
    char *end;
    long v = strtol(tok, &end, 10);
    int sig = -1;
    if (*tok && !*end) {
      sig = v > 0 && v < SYSLOG_NSIG ? (int)v : -1;
    } else {
      const char *nm = strncasecmp(tok, "SIG", 3) == 0 ? tok + 3 : tok;
      for (int i = 1; i < SYSLOG_NSIG; i++) {
        const char *ab = sigabbrev_np(i);
        if (ab && strcasecmp(ab, nm) == 0) sig = i;
      }
    }
    if (sig < 0) {
      snprintf(err, errcap, "--signal: unknown signal '%s'", tok);
      return -1;
    }
    shown[sig] = 1;
  }
  if (neg)
    for (int i = 0; i < SYSLOG_NSIG; i++) shown[i] = !shown[i];
  return 0;
}

static int syslog_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                       void **state) {
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, syslog_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos)
    return vo_refuse(host, s, syslog_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  struct syslog_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : SYSLOG_DEFAULT_N;
  memset(st->sigshown, 1, sizeof st->sigshown);
  char err[256];
  err[0] = '\0';
  if (ov.value[OPT_STRACE]) st->env_flags |= SC_ENV_STRACE;
  if (ov.value[OPT_DECODE_FDS]) st->env_flags |= SC_ENV_DECODE_FDS;
  if (ov.value[OPT_VERBOSE]) st->env_flags |= SC_ENV_VERBOSE;
  if (ov.value[OPT_HEX]) {
    if (strcmp(ov.value[OPT_HEX], "all") == 0)
      st->env_flags |= SC_ENV_HEX_ALL;
    else if (strcmp(ov.value[OPT_HEX], "non-ascii") == 0)
      st->env_flags |= SC_ENV_HEX_NONASCII;
    else
      snprintf(err, sizeof err, "--hex: '%s' is neither non-ascii nor all", ov.value[OPT_HEX]);
  }
  if (!err[0] && ov.value[OPT_STRLIM]) {
    char *end;
    long v = strtol(ov.value[OPT_STRLIM], &end, 10);
    if (!*ov.value[OPT_STRLIM] || *end || v < 1 || v > SC_STR_MAX)
      snprintf(err, sizeof err, "--string-limit: '%s' is not a number from 1 to %d",
               ov.value[OPT_STRLIM], SC_STR_MAX);
    else
      st->string_limit = (unsigned)v;
  }
  if (!err[0] && ov.value[OPT_TRACE])
    st->traced = parse_trace(ov.value[OPT_TRACE], &st->ntraced, err, sizeof err);
  if (!err[0] && ov.value[OPT_SIGNAL])
    parse_signals(ov.value[OPT_SIGNAL], st->sigshown, err, sizeof err);
  if (err[0]) {
    free(st->traced);
    free(st);
    return vo_refuse(host, s, syslog_options, POSITIONALS, "%s", err);
  }
  st->split = -1; /* strace -f's split lines are text: a JSON record is one whole call */
  *state = st;
  return 0;
}

static int syslog_consume(void *state, const struct asmspy_event *ev) {
  struct syslog_state *st = state;
  switch (ev->type) {
  case ASMSPY_EV_SYSCALL_ENTER: return on_enter(st, ev);
  case ASMSPY_EV_SYSCALL_EXIT: return on_exit_event(st, ev);
  case ASMSPY_EV_TASK: return on_task(st, ev);
  case ASMSPY_EV_SIGNAL: return on_signal(st, ev);
  default: return ASMSPY_CONSUME_MORE;
  }
}

static int syslog_finish(void *state, int end_status) {
  (void)state;
  (void)end_status;
  return 0;
}

static void syslog_close(void *state) {
  struct syslog_state *st = state;
  if (!st) return;
  free(st->threads);
  free(st->traced);
  free(st);
}

/* --- 1.8: the tables the host learns this view from --- */

/* The records this view writes: the validator, replay and docs/metrics.md
 * read them. */
static const struct asmspy_field syscall_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the calling thread"),
    RF_INT("nr", 0, 0, "syscall number"),
    RF_STR("name", 0, "syscall name"),
    RF_STR("text", 0, "the decoded line without the [tid] prefix"),
    {.name = "ret",
     .type = ASMSPY_FIELD_INT,
     .flags = NUL | ASMSPY_FIELDF_HIGHLIGHT,
     .min = ANY_INT,
     .meaning = "return value (-errno on failure); null when it never returned"},
    RF_STR("error", OPT | ASMSPY_FIELDF_HIGHLIGHT, "the errno name of a failed call"),
    RF_ARRAY("carried", "string", NULL, ASMSPY_FIELDF_CARRIED,
             "strings that crossed the kernel boundary (paths, up to 200 bytes of buffers)"),
    RF_END,
};
static const struct asmspy_field signal_fields[] = {
    RF_INT("tid", ANY_INT, 0, "the receiving thread"),
    RF_INT("signo", 1, 0, "the signal number"),
    RF_STR("name", 0, "the signal name (SIGALRM)"),
    RF_INT("code", ANY_INT, OPT, "its si_code"),
    RF_INT("pid", ANY_INT, OPT, "si_pid: the sender, or the child of a SIGCHLD"),
    RF_BOOL("stopped", OPT, "a job-control group-stop by the signal, not a delivery"),
    RF_END,
};

static const struct asmspy_record_schema syslog_records[SYSLOG_REC_N + 1] = {
    [SYSLOG_REC_SYSCALL] = {"syscall", "one completed (or unfinished) syscall", syscall_fields,
                            "{text}"},
    [SYSLOG_REC_TASK] = {"task", TASK_RECORD_MEANING, task_record_fields, NULL},
    [SYSLOG_REC_SIGNAL] = {"signal", "a signal delivered to the target (or its group-stop)",
                           signal_fields, NULL},
    [SYSLOG_REC_N] = {.type = NULL},
};

/* Its entry in the TUI's mode menu. */
static const struct asmspy_tui_entry syslog_tui = {'1', ASMSPY_TUI_FEED_CARRIED, 0, "syscall log"};

static const struct asmspy_view_ops syslog_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_view_ops),
    .mode = "log",
    .caps_required = ASMSPY_CAP_SYSCALLS,
    .usage = POSITIONALS,
    .open = syslog_open,
    .consume = syslog_consume,
    .finish = syslog_finish,
    .close = syslog_close,
    .options = syslog_options,
    .option_caps = NULL,
    .records = syslog_records,
    .tui = &syslog_tui,
};

#define SC_STR_(x) #x
#define SC_STR(x) SC_STR_(x)

static const struct asmspy_plugin syslog_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "syslog",
    .description = "syscall log: every syscall named, " SC_STR(
        SC_DECODED_COUNT) " decoded like strace, fds resolved",
    .caps = ASMSPY_CAP_SYSCALLS,
    .view = &syslog_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(syslog_plugin)
