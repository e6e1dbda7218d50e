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
  struct sc_call call;
};

struct syslog_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  int64_t want, shown;
  struct thread_call *threads;
  size_t nthreads, cap;
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
  return c->target && ASMSPY_HAS(c->host, describe_fd) ? c->host->describe_fd(c->target, fd, buf, cap)
                                                         : NULL;
}
static const char *env_syscall_name(void *ctx, int64_t nr) {
  struct env_ctx *c = ctx;
  return ASMSPY_HAS(c->host, syscall_name) ? c->host->syscall_name(nr) : NULL;
}

static struct sc_env make_env(struct env_ctx *c) {
  struct sc_env env = {.ctx = c,
                       .read_mem = env_read_mem,
                       .describe_fd = env_describe_fd,
                       .syscall_name = env_syscall_name};
  return env;
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
}

/* One completed (or unfinished) syscall line through the writer. */
static int emit_line(struct syslog_state *st, const struct asmspy_event *ev, const struct sc_call *c,
                     const char *line, int64_t ret, int have_ret) {
  const struct asmspy_host_api *h = st->host;
  char prefix[32], text[5000];
  prefix_for(st, ev, prefix, sizeof prefix);
  snprintf(text, sizeof text, "%s%s", prefix, line);
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

static int on_enter(struct syslog_state *st, const struct asmspy_event *ev) {
  struct thread_call *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  struct env_ctx c = {st->host, ev->target};
  struct sc_env env = make_env(&c);
  sc_enter(&env, &t->call, ev->u.sys.nr, ev->u.sys.args);
  t->in_flight = 1;
  return ASMSPY_CONSUME_MORE;
}

static int on_exit_event(struct syslog_state *st, const struct asmspy_event *ev) {
  struct thread_call *t = thread_for(st, ev->tid);
  if (!t) return ASMSPY_CONSUME_MORE;
  char line[5000];
  struct env_ctx c = {st->host, ev->target};
  struct sc_env env = make_env(&c);
  if (!t->in_flight) {
    /* We arrived mid-syscall (its entry happened before we attached, or it
     * is the execve that started a --launch): only the result is known. */
    if (ev->u.sys.nr < 0) return ASMSPY_CONSUME_MORE; /* nothing to name */
    memset(&t->call, 0, sizeof t->call);
    t->call.nr = ev->u.sys.nr;
    const char *name = env.syscall_name(env.ctx, ev->u.sys.nr);
    snprintf(line, sizeof line, "%s(...) = %" PRId64, name ? name : "syscall", ev->u.sys.ret);
    return emit_line(st, ev, &t->call, line, ev->u.sys.ret, 1);
  }
  t->in_flight = 0;
  sc_exit(&env, &t->call, ev->u.sys.ret, line, sizeof line);
  return emit_line(st, ev, &t->call, line, ev->u.sys.ret, 1);
}

static int on_task(struct syslog_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  char prefix[32], text[256];
  prefix_for(st, ev, prefix, sizeof prefix);
  int done = ASMSPY_CONSUME_MORE;
  if (ev->u.task.what == ASMSPY_TASK_EXIT) {
    struct thread_call *t = thread_for(st, ev->tid);
    if (t && t->in_flight) { /* exit_group / exit never return */
      char line[5000];
      sc_unfinished(&t->call, line, sizeof line);
      t->in_flight = 0;
      done = emit_line(st, ev, &t->call, line, 0, 0);
    }
    int code = ev->u.task.code;
    if (code >= 0)
      snprintf(text, sizeof text, "%s+++ exited with %d +++", prefix, code);
    else
      snprintf(text, sizeof text, "%s+++ killed by SIG%s +++", prefix, sigabbrev_np(-code) ? sigabbrev_np(-code) : "?");
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

static int on_signal(struct syslog_state *st, const struct asmspy_event *ev) {
  char prefix[32], text[128], name[48];
  prefix_for(st, ev, prefix, sizeof prefix);
  const char *abbrev = sigabbrev_np(ev->u.signal.signo);
  snprintf(text, sizeof text, "%s--- SIG%s ---", prefix, abbrev ? abbrev : "?");
  snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "?");
  const struct asmspy_value v[] = {rv_int(ev->tid), rv_int(ev->u.signal.signo), rv_str(name),
                                   rv_int(ev->u.signal.code)};
  rec_emit(st->host, st->s->out, &syslog_records[SYSLOG_REC_SIGNAL], v, text);
  return ASMSPY_CONSUME_MORE;
}

/* ------------------------------------------------------------ view -- */

/* Its positionals (the CLI takes <pid> and n before the view sees the rest),
 * and its options: none of its own (the shared --tid/--follow/--json/...
 * are the CLI's). The table feeds parsing, --help, the man page, shell
 * completion and serve's checks. */
#define POSITIONALS "<pid> [n]"
static const struct asmspy_option syslog_options[] = {
    {NULL, NULL, NULL},
};

static int syslog_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                       void **state) {
  struct asmspy_optval ov;
  int rc = vo_parse(host, s, syslog_options, POSITIONALS, &ov);
  if (rc) return rc;
  if (ov.npos) return vo_refuse(host, s, syslog_options, POSITIONALS, "unexpected argument '%s'", ov.pos[0]);
  struct syslog_state *st = calloc(1, sizeof *st);
  if (!st) return -ASMSPY_E_NOMEM;
  st->host = host;
  st->s = s;
  st->want = s->max ? s->max : SYSLOG_DEFAULT_N;
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
    {.name = "ret", .type = ASMSPY_FIELD_INT, .flags = NUL | ASMSPY_FIELDF_HIGHLIGHT, .min = ANY_INT,
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
    RF_END,
};

static const struct asmspy_record_schema syslog_records[SYSLOG_REC_N + 1] = {
    [SYSLOG_REC_SYSCALL] = {"syscall", "one completed (or unfinished) syscall", syscall_fields,
                            "{text}"},
    [SYSLOG_REC_TASK] = {"task", TASK_RECORD_MEANING, task_record_fields, NULL},
    [SYSLOG_REC_SIGNAL] = {"signal", "a signal delivered to the target", signal_fields, NULL},
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
    .description = "syscall log: every syscall named, " SC_STR(SC_DECODED_COUNT) " decoded like strace, fds resolved",
    .caps = ASMSPY_CAP_SYSCALLS,
    .view = &syslog_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(syslog_plugin)
