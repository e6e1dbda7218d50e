/* asmspy --serve[=<path>]: NDJSON commands in, the same recording events
 * out (docs/asmtrace-schema.md, "Serve protocol").
 *
 * The server process never traces. Each session runs in its own child
 * process — the one tracer thread of the ptrace rules — which runs the mode
 * exactly as the CLI does (asmspy_run with the CLI's own arguments) and
 * writes its recording (header, events, end) into a pipe. The server
 * forwards that pipe line by line to the client and puts its own control
 * lines (`cmd` acks, `err` refusals, `session` messages) only BETWEEN whole
 * lines, so the events of one session, with the control lines dropped, are a
 * valid recording. Because the session is a separate process:
 *   - stop works mid-capture: SIGTERM raises the child's stop flag and the
 *     engine leaves through its two-phase detach (the target survives);
 *   - pause is SIGSTOP of the tracer: its tracees stop at their next ptrace
 *     stop (a single-stepped target freezes at once) and nothing is lost;
 *   - the server can die: the child has PR_SET_PDEATHSIG = SIGCONT, whose
 *     handler sees the new parent and raises the stop flag, so even a paused
 *     session wakes up and detaches;
 *   - a crashed child cannot corrupt the stream: a recording it left without
 *     a footer gets one from the server ("reason":"error").
 *
 * The capture never waits for a client. The session writes into its pipe
 * from its tracer thread, with the target stopped mid-step, so that pipe
 * must always be drained: the server waits only in poll(), reads the pipes
 * whatever the client does, and writes to the client only what it takes
 * without blocking (flush_out). What the client has not taken is queued up
 * to a bound (4 MiB, ASMSPY_SERVE_CLIENT_BUFFER); past it the session's
 * event lines are dropped, counted, and replaced by one `lost` event where
 * they were; the lines after it are renumbered so the client's seq stays
 * contiguous, and the footer's `lost` counts the dropped lines. A client
 * that does not read therefore costs events, never the target's progress,
 * and its `stop` (and every other client's connection) is answered at once.
 */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "cli/serve.h"
#include "asmspy-internal/app_api.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EVENT_LINE_MAX (2u * 1024u * 1024u) /* a recording line is <= 1 MiB; slack */
#define MESSAGE_LINE_MAX 4096u

/* ------------------------------------------------------------------------ */
/* Line assembly                                                              */
/* ------------------------------------------------------------------------ */

struct linebuf {
  char *s;
  size_t len, cap;
  int overflow; /* the current line passed the limit: it is being discarded */
};

typedef void (*line_fn)(void *ctx, const char *line, size_t len, int overflowed);

/* Split data into lines; a line longer than limit is reported once, as
 * overflowed (line NULL), when its newline arrives. */
static void linebuf_feed(struct linebuf *lb, const char *data, size_t n, size_t limit, line_fn fn,
                         void *ctx) {
  while (n) {
    const char *nl = memchr(data, '\n', n);
    size_t take = nl ? (size_t)(nl - data) : n;
    if (!lb->overflow && lb->len + take > limit) {
      lb->overflow = 1;
      lb->len = 0;
    }
    if (!lb->overflow) {
      if (lb->len + take + 1 > lb->cap) {
        size_t nc = lb->cap ? lb->cap : 4096;
        while (nc < lb->len + take + 1) nc *= 2;
        char *ns = realloc(lb->s, nc);
        if (!ns) {
          lb->overflow = 1;
          lb->len = 0;
        } else {
          lb->s = ns;
          lb->cap = nc;
        }
      }
      if (!lb->overflow) {
        memcpy(lb->s + lb->len, data, take);
        lb->len += take;
        lb->s[lb->len] = 0;
      }
    }
    data += take;
    n -= take;
    if (nl) {
      data++;
      n--;
      if (lb->overflow)
        fn(ctx, NULL, 0, 1);
      else
        fn(ctx, lb->s ? lb->s : "", lb->len, 0);
      lb->len = 0;
      lb->overflow = 0;
    }
  }
}

static void linebuf_free(struct linebuf *lb) {
  free(lb->s);
  memset(lb, 0, sizeof *lb);
}

/* ------------------------------------------------------------------------ */
/* Server state                                                               */
/* ------------------------------------------------------------------------ */

struct session {
  int id;
  pid_t pid;
  int pidfd; /* -1: poll with a timeout and waitpid(WNOHANG) */
  int ev_fd, msg_fd;
  struct linebuf ev, msg;
  int paused, stopping, bounded;
  int header_seen, end_seen;
  uint64_t events; /* event lines forwarded (the seq of the last one) */
  /* What a client that does not read costs: event lines dropped (the
   * forwarded ones are renumbered and a `lost` line stands where they
   * were), and session messages dropped. */
  uint64_t dropped, dropped_pending, msgs_dropped;
  int dropping; /* dropping until the queue is down to half the buffer */
  char end_reason[32];
  int64_t end_status;
};

/* Bytes queued for one client. The server never blocks on a client: what
 * cannot be written now waits here, and a session's event lines beyond
 * out_limit are dropped (counted, never silently: serve_event_line). */
struct outq {
  char *s;
  size_t head, len, cap; /* the bytes s[head..len) are still to be written */
};

enum out_kind { OUT_SOCKET, OUT_FILE, OUT_STREAM };

struct conn {
  int in_fd, out_fd;
  int is_socket;
  enum out_kind out_kind;
  struct linebuf cmd;
  struct outq q;
  uint64_t lineno;
  int eof;    /* no more commands (EOF, quit, or the client went away) */
  int broken; /* writing to the client failed: drop output */
};

struct server {
  struct asmspy_engine *engine; /* views, for mode checks (never probes) */
  struct conn conn;
  int have_conn;
  struct serve_socket sock; /* fd -1 in stdio mode */
  struct session *sess;
  int next_id;
  int quitting;
  size_t out_limit; /* a client's buffer for event lines (ASMSPY_SERVE_CLIENT_BUFFER) */
};

#define OUT_LIMIT_DEFAULT (4u * 1024u * 1024u)
#define OUT_LIMIT_MIN 4096u
/* Control lines (acks, refusals, session lines) and a recording's header,
 * footer and `lost` lines are never dropped; past this much more the
 * server stops reading the client's commands until it reads its output. */
#define OUT_CONTROL_SLACK (1024u * 1024u)
/* A session pipe is read at most this much per loop turn, so a fast
 * session cannot starve the command channel (stop stays prompt). */
#define DRAIN_TURN_BYTES (1024u * 1024u)

static size_t outq_pending(const struct conn *c) { return c->q.len - c->q.head; }

static void conn_broken(struct conn *c) {
  c->broken = c->eof = 1;
  free(c->q.s);
  memset(&c->q, 0, sizeof c->q);
}

static void outq_push(struct conn *c, const char *data, size_t n, int newline) {
  struct outq *q = &c->q;
  size_t need = n + (newline ? 1 : 0);
  if (q->cap - q->len < need && q->head) { /* reuse what was written */
    memmove(q->s, q->s + q->head, q->len - q->head);
    q->len -= q->head;
    q->head = 0;
  }
  if (q->cap - q->len < need) {
    size_t nc = q->cap ? q->cap : 65536;
    while (nc - q->len < need) nc *= 2;
    char *ns = realloc(q->s, nc);
    if (!ns) { /* out of memory: this client can no longer be served whole */
      conn_broken(c);
      return;
    }
    q->s = ns;
    q->cap = nc;
  }
  memcpy(q->s + q->len, data, n);
  q->len += n;
  if (newline) q->s[q->len++] = '\n';
}

/* Write what the client can take now, without ever waiting for it. A
 * socket takes MSG_DONTWAIT; a pipe or terminal (stdio mode) is written
 * only PIPE_BUF bytes at a time and only when poll says it has room, which
 * a pipe then never blocks on (its file status flags belong to whoever
 * shares it, so O_NONBLOCK is not set on it); a regular file never blocks. */
static void flush_out(struct server *sv) {
  struct conn *c = &sv->conn;
  while (sv->have_conn && !c->broken && outq_pending(c)) {
    size_t n = outq_pending(c);
    ssize_t w;
    if (c->out_kind == OUT_SOCKET) {
      w = send(c->out_fd, c->q.s + c->q.head, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
      if (c->out_kind == OUT_STREAM) {
        struct pollfd p = {c->out_fd, POLLOUT, 0};
        int r = poll(&p, 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) return; /* full: later */
        if (r < 0 || (p.revents & (POLLERR | POLLNVAL))) {
          conn_broken(c);
          return;
        }
        if (n > PIPE_BUF) n = PIPE_BUF;
      }
      w = write(c->out_fd, c->q.s + c->q.head, n);
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (w <= 0) {
      conn_broken(c);
      return;
    }
    c->q.head += (size_t)w;
  }
  if (sv->have_conn && !c->broken && c->q.head == c->q.len) c->q.head = c->q.len = 0;
}

/* Queue one control line for the client (never dropped). */
static void send_line(struct server *sv, const char *line, size_t len) {
  if (!sv->have_conn || sv->conn.broken) return;
  outq_push(&sv->conn, line, len, 1);
}

static void send_strbuf(struct server *sv, struct strbuf *b) {
  if (b->s && !b->oom) send_line(sv, b->s, b->len);
  free(b->s);
  memset(b, 0, sizeof *b);
}

static void send_err(struct server *sv, const struct serve_refusal *why, uint64_t line,
                     const char *verb, const char *id_json) {
  struct strbuf b = {0};
  serve_err_line(&b, why, line, verb, id_json, sv->sess ? sv->sess->id : 0);
  send_strbuf(sv, &b);
}

static void send_session_message(struct server *sv, struct session *s, const char *text,
                                 size_t len) {
  struct strbuf b = {0};
  strbuf_addf(&b, "{\"type\":\"session\",\"session\":%d,\"event\":\"message\",\"text\":", s->id);
  strbuf_json_strn(&b, text, len);
  strbuf_addf(&b, "}");
  send_strbuf(sv, &b);
}

/* ------------------------------------------------------------------------ */
/* Validation with the CLI's own parsers                                      */
/* ------------------------------------------------------------------------ */

/* The CLI's parsers (cli_parse_mode_args, a view's open) report a usage
 * error as one line on stderr. The server validates a start with the very
 * same code, so it captures what they print (a memfd stands in for fd 2
 * meanwhile: the server is single-threaded) and turns it into the err
 * line. */
struct stderr_capture {
  int saved, fd;
};

static int capture_begin(struct stderr_capture *c) {
  fflush(stderr);
  c->fd = memfd_create("asmspy-serve-usage", MFD_CLOEXEC);
  c->saved = c->fd >= 0 ? dup(2) : -1;
  if (c->fd < 0 || c->saved < 0 || dup2(c->fd, 2) < 0) {
    if (c->fd >= 0) close(c->fd);
    if (c->saved >= 0) close(c->saved);
    c->fd = c->saved = -1;
    return -1;
  }
  return 0;
}

/* Restore stderr; the first captured line, without "asmspy: " and the
 * " (see asmspy --help)" tail, into msg. */
static void capture_end(struct stderr_capture *c, char *msg, size_t cap) {
  msg[0] = 0;
  if (c->fd < 0) return;
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  char buf[1024];
  ssize_t n = pread(c->fd, buf, sizeof buf - 1, 0);
  close(c->fd);
  if (n <= 0) return;
  buf[n] = 0;
  char *line = buf;
  char *nl = strchr(line, '\n');
  if (nl) *nl = 0;
  if (!strncmp(line, "asmspy: ", 8)) line += 8;
  char *tail = strstr(line, " (see asmspy --help)");
  if (tail) *tail = 0;
  size_t len = strlen(line);
  if (len >= cap) len = cap - 1;
  memcpy(msg, line, len);
  msg[len] = 0;
}

/* Open the mode's view on the start's arguments and close it again: the
 * view parses its options in open(), before anything is attached, so this
 * is the CLI's own usage check with no side effect on any process. */
static int view_accepts(struct server *sv, const struct serve_cmd *cmd,
                        const struct cli_mode_args *a, struct serve_refusal *why) {
  const struct asmspy_plugin_info *v = asmspy_find_view_for_mode(sv->engine, cmd->view_mode);
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = cmd->view_mode;
  s.pid = a->pid;
  s.tid = a->tid;
  s.max = a->max;
  s.flags = ASMSPY_SESS_JSON | (a->follow ? ASMSPY_SESS_FOLLOW : 0);
  s.argc = a->view_argc;
  s.argv = a->view_argv;
  s.launch_argv = cmd->launch;
  void *state = NULL;
  struct stderr_capture cap;
  int captured = capture_begin(&cap) == 0;
  int rc = v->desc->view->open(asmspy_host_api(), &s, &state);
  if (captured) capture_end(&cap, why->msg, sizeof why->msg);
  if (rc == 0) {
    v->desc->view->close(state);
    return 0;
  }
  snprintf(why->rule, sizeof why->rule, "usage");
  if (!why->msg[0])
    snprintf(why->msg, sizeof why->msg, "--%s refused its parameters: %s", cmd->view_mode,
             asmspy_strerror(rc));
  return -1;
}

/* ---- what the command parser asks of the modes: the registry's views ---- */

static const struct asmspy_option *view_options(const struct asmspy_engine *e, const char *mode) {
  const struct asmspy_plugin_info *v = asmspy_find_view_for_mode(e, mode);
  const struct asmspy_view_ops *ops = v && v->desc ? v->desc->view : NULL;
  return ops && ASMSPY_HAS(ops, options) ? ops->options : NULL;
}

static const struct asmspy_option *modes_options_of(void *ctx, const char *mode) {
  return view_options(((struct server *)ctx)->engine, mode);
}

/* The view declaring an `auto` flag (the first in --info's order). */
static const char *modes_auto_mode(void *ctx) {
  struct server *sv = ctx;
  const struct asmspy_plugin_info *views[PROCINFO_MAX_MODES];
  size_t nv = procinfo_views(sv->engine, views, PROCINFO_MAX_MODES);
  for (size_t i = 0; i < nv; i++)
    for (const struct asmspy_option *o = view_options(sv->engine, views[i]->desc->view->mode);
         o && o->name; o++)
      if (strcmp(o->name, "auto") == 0 && !o->arg) return views[i]->desc->view->mode;
  return NULL;
}

/* The modes this asmspy serves, in the order --info and the TUI show them
 * (the registry's views), then "auto" when a view declares --auto. */
static void list_modes(struct server *sv, char *out, size_t cap) {
  const struct asmspy_plugin_info *views[PROCINFO_MAX_MODES];
  size_t nv = procinfo_views(sv->engine, views, PROCINFO_MAX_MODES), n = 0;
  out[0] = 0;
  for (size_t i = 0; i < nv && n + 40 < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", views[i]->desc->view->mode);
  if (modes_auto_mode(sv) && n + 10 < cap) snprintf(out + n, cap - n, ", auto");
}

/* Everything that can be checked before a session starts: the mode exists,
 * the CLI's argument parser and the view accept the parameters, a named
 * backend exists, the target exists. */
static int check_start(struct server *sv, const struct serve_cmd *cmd, struct cli_mode_args *a,
                       struct serve_refusal *why) {
  if (!asmspy_find_view_for_mode(sv->engine, cmd->view_mode)) {
    char modes[512];
    list_modes(sv, modes, sizeof modes);
    return serve_refuse(why, "mode", "unknown mode '%s' (this asmspy serves: %s)", cmd->mode,
                        modes);
  }
  struct stderr_capture cap;
  int captured = capture_begin(&cap) == 0;
  /* the CLI's own parse, against the same tables: the shared options and
   * the view's */
  const struct asmspy_plugin_info *v = asmspy_find_view_for_mode(sv->engine, cmd->view_mode);
  int rc = cli_parse_mode_args(cmd->view_mode, cmd->argc, cmd->argv, cmd->launch == NULL,
                               cli_shared_options, cli_view_options(v), cli_view_has_table(v),
                               v->desc->view->usage, a);
  if (captured) capture_end(&cap, why->msg, sizeof why->msg);
  if (rc) {
    snprintf(why->rule, sizeof why->rule, "usage");
    if (!why->msg[0]) snprintf(why->msg, sizeof why->msg, "start: invalid parameters");
    return -1;
  }
  why->msg[0] = 0;
  if (a->backend) {
    const struct asmspy_plugin_info *b =
        asmspy_find_plugin(sv->engine, ASMSPY_KIND_BACKEND, a->backend);
    if (!b)
      return serve_refuse(why, "param", "unknown backend '%s' (see asmspy --backends)", a->backend);
  }
  if (view_accepts(sv, cmd, a, why)) return -1;
  if (!cmd->launch && kill(a->pid, 0) != 0 && errno == ESRCH)
    return serve_refuse(why, "target", "pid %d: no such process", (int)a->pid);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The session child                                                          */
/* ------------------------------------------------------------------------ */

static volatile pid_t session_parent;

static void on_session_stop(int sig) {
  (void)sig;
  cli_stop_flag = 1;
}

/* SIGCONT is PR_SET_PDEATHSIG: the server died (getppid() changed). A
 * resume from a live server is just a resume. */
static void on_session_cont(int sig) {
  (void)sig;
  if (getppid() != session_parent) cli_stop_flag = 1;
}

static void install(int sig, void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: the tracer's waitpid must see EINTR */
  sigaction(sig, &sa, NULL);
}

static void session_child(const struct serve_cmd *cmd, const struct cli_mode_args *a, int ev_w,
                          int msg_w) {
  install(SIGINT, on_session_stop);
  install(SIGTERM, on_session_stop);
  install(SIGHUP, on_session_stop);
  install(SIGPIPE, on_session_stop);
  install(SIGCONT, on_session_cont);
  prctl(PR_SET_PDEATHSIG, SIGCONT);
  if (getppid() != session_parent) _exit(CLI_EXIT_FAIL); /* the server died before prctl */
  prctl(PR_SET_NAME, "asmspy-session");
  /* fd 0 /dev/null; 1 and 2 the message pipe (a launched command's output
   * and any stray print become `session` messages, never event lines);
   * 3 the event pipe; nothing else (the client's socket must close when
   * the server closes it). */
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(msg_w, 1) < 0 || dup2(msg_w, 2) < 0 ||
      dup2(ev_w, 3) < 0)
    _exit(CLI_EXIT_FAIL);
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
    for (int fd = 4; fd < 1024; fd++) close(fd);
  fcntl(3, F_SETFD, FD_CLOEXEC);
  FILE *json_out = fdopen(3, "w");
  if (!json_out) _exit(CLI_EXIT_FAIL);
  setvbuf(stderr, NULL, _IOLBF, 0);
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!e) _exit(CLI_EXIT_FAIL);
  struct asmspy_run_opts o = {
      .abi_version = ASMSPY_ABI_VERSION,
      .struct_size = sizeof(struct asmspy_run_opts),
      .mode = cmd->view_mode,
      .backend = a->backend,
      .pid = a->pid,
      .tid = a->tid,
      .max = a->max,
      .flags = ASMSPY_SESS_JSON | (a->follow ? ASMSPY_SESS_FOLLOW : 0),
      .argc = a->view_argc,
      .argv = a->view_argv,
      .launch_argv = cmd->launch,
      .record_path = a->record,
      .stop = &cli_stop_flag,
      .text_out = stderr,
      .json_out = json_out,
  };
  int rc = asmspy_run(e, &o);
  asmspy_engine_close(e);
  fflush(NULL);
  _exit(cli_exit_code_for(rc));
}

/* ------------------------------------------------------------------------ */
/* Session lifecycle in the server                                            */
/* ------------------------------------------------------------------------ */

static int start_session(struct server *sv, const struct serve_cmd *cmd,
                         const struct cli_mode_args *a, struct serve_refusal *why) {
  int ev[2], msg[2];
  if (pipe2(ev, O_CLOEXEC) != 0) return serve_refuse(why, "internal", "pipe: %s", strerror(errno));
  if (pipe2(msg, O_CLOEXEC) != 0) {
    close(ev[0]);
    close(ev[1]);
    return serve_refuse(why, "internal", "pipe: %s", strerror(errno));
  }
  struct session *s = calloc(1, sizeof *s);
  if (!s) {
    close(ev[0]), close(ev[1]), close(msg[0]), close(msg[1]);
    return serve_refuse(why, "internal", "out of memory");
  }
  fflush(NULL);
  session_parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    free(s);
    close(ev[0]), close(ev[1]), close(msg[0]), close(msg[1]);
    return serve_refuse(why, "internal", "fork: %s", strerror(e));
  }
  if (pid == 0) session_child(cmd, a, ev[1], msg[1]); /* never returns */
  close(ev[1]);
  close(msg[1]);
  s->id = ++sv->next_id;
  s->pid = pid;
  s->ev_fd = ev[0];
  s->msg_fd = msg[0];
  fcntl(s->ev_fd, F_SETFL, O_NONBLOCK);
  fcntl(s->msg_fd, F_SETFL, O_NONBLOCK);
  /* slack for a moment the server is not scheduled: the session writes
   * into this pipe from its tracer thread (best effort: capped by
   * /proc/sys/fs/pipe-max-size for an unprivileged server) */
  fcntl(s->ev_fd, F_SETPIPE_SZ, 1 << 20);
  s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  s->bounded = cmd->bounded;
  sv->sess = s;
  return 0;
}

/* Ask the session to end through its two-phase detach. */
static void stop_session(struct session *s) {
  if (!s) return;
  s->stopping = 1;
  kill(s->pid, SIGTERM);
  if (s->paused) {
    kill(s->pid, SIGCONT);
    s->paused = 0;
  }
}

/* ------------------------------------------------------------------------ */
/* A session's lines to a client that may not read                           */
/* ------------------------------------------------------------------------ */

/* The member `,"key":<unsigned integer>` of a line the writer made
 * (host/output.c): *at is the offset of its digits, *nd their count. A
 * string value cannot contain the pattern (its quotes are escaped). */
static int uint_member(const char *line, size_t len, const char *key, size_t *at, size_t *nd,
                       uint64_t *v) {
  char pat[40];
  int pn = snprintf(pat, sizeof pat, ",\"%s\":", key);
  if (pn < 0 || (size_t)pn >= sizeof pat) return 0;
  const char *m = memmem(line, len, pat, (size_t)pn);
  if (!m) return 0;
  size_t i = (size_t)(m - line) + (size_t)pn, j = i;
  uint64_t x = 0;
  while (j < len && j - i < 20 && line[j] >= '0' && line[j] <= '9')
    x = x * 10 + (uint64_t)(line[j++] - '0');
  if (j == i) return 0;
  *at = i;
  *nd = j - i;
  *v = x;
  return 1;
}

/* line with the digits at [at, at+nd) replaced by v, into b (emptied first). */
static void splice_uint(struct strbuf *b, const char *line, size_t len, size_t at, size_t nd,
                        uint64_t v) {
  b->len = 0;
  if (b->s) b->s[0] = 0;
  strbuf_addf(b, "%.*s%" PRIu64 "%.*s", (int)at, line, v, (int)(len - at - nd), line + at + nd);
}

/* The events dropped since the last forwarded one, as one `lost` event in
 * their place (docs/asmtrace-schema.md: a lost event has a seq and counts
 * in the footer's events; the footer's lost counts the dropped ones). */
static void send_lost_pending(struct server *sv, struct session *s) {
  if (!s->dropped_pending) return;
  s->events++;
  char line[512];
  int n = snprintf(line, sizeof line,
                   "{\"type\":\"lost\",\"seq\":%" PRIu64 ",\"count\":%" PRIu64
                   ",\"human\":\"# lost %" PRIu64 " events: the serve client was not reading and "
                   "its output buffer (%zu bytes) was full; the capture went on\"}",
                   s->events, s->dropped_pending, s->dropped_pending, sv->out_limit);
  if (n > 0 && (size_t)n < sizeof line) send_line(sv, line, (size_t)n);
  s->dropped_pending = 0;
}

/* One event line: forwarded (renumbered once anything was dropped, so the
 * client's seq stays contiguous), or dropped when the client's buffer is
 * full. Dropping goes on until the buffer is down to half, so a slow reader
 * gets runs of events between few `lost` lines rather than one in two. */
static void send_event_line(struct server *sv, struct session *s, const char *line, size_t len) {
  size_t pending = sv->have_conn && !sv->conn.broken ? outq_pending(&sv->conn) : 0;
  if (s->dropping && pending <= sv->out_limit / 2) s->dropping = 0;
  if (!s->dropping && pending + len + 1 > sv->out_limit) s->dropping = 1;
  if (s->dropping) {
    s->dropped++;
    s->dropped_pending++;
    return;
  }
  send_lost_pending(sv, s);
  s->events++;
  size_t at, nd;
  uint64_t old;
  if (!s->dropped || !uint_member(line, len, "seq", &at, &nd, &old)) {
    send_line(sv, line, len); /* nothing dropped yet: the writer's own seq */
    return;
  }
  struct strbuf b = {0};
  splice_uint(&b, line, len, at, nd, s->events);
  /* a codeimage's "when" is the seq of its own line (host/codeimage.c): it
   * moves with the line, and never points past it */
  uint64_t when;
  if (b.s && !b.oom && !strncmp(b.s, "{\"type\":\"codeimage\"", 19) &&
      uint_member(b.s, b.len, "when", &at, &nd, &when) && (when == old || when > s->events)) {
    char *copy = strndup(b.s, b.len);
    if (copy) splice_uint(&b, copy, strlen(copy), at, nd, s->events);
    free(copy);
  }
  if (b.s && !b.oom) send_line(sv, b.s, b.len);
  free(b.s);
}

/* The footer: after any pending `lost` line, with the events the client
 * got and the lost counting the dropped ones too. */
static void send_footer_line(struct server *sv, struct session *s, const char *line, size_t len) {
  send_lost_pending(sv, s);
  size_t at, nd;
  uint64_t v;
  if (!s->dropped || !uint_member(line, len, "events", &at, &nd, &v)) {
    send_line(sv, line, len);
    return;
  }
  struct strbuf b = {0};
  splice_uint(&b, line, len, at, nd, s->events);
  char *copy = b.s && !b.oom ? strndup(b.s, b.len) : NULL;
  if (copy && uint_member(copy, strlen(copy), "lost", &at, &nd, &v))
    splice_uint(&b, copy, strlen(copy), at, nd, v + s->dropped);
  free(copy);
  if (b.s && !b.oom) send_line(sv, b.s, b.len);
  free(b.s);
}

/* One line of the session's recording. The server only looks at where it
 * stands in the recording (header / event / end). */
static void on_event_line(void *ctx, const char *line, size_t len, int overflowed) {
  struct server *sv = ctx;
  struct session *s = sv->sess;
  if (overflowed) return; /* cannot happen: the writer caps its lines at 1 MiB */
  if (!strncmp(line, "{\"type\":\"header\"", 16)) {
    s->header_seen = 1;
    send_line(sv, line, len);
  } else if (!strncmp(line, "{\"type\":\"end\"", 13)) {
    s->end_seen = 1;
    struct json_value *v = json_parse(line, len, NULL);
    const char *reason = json_get_str(v, "reason");
    snprintf(s->end_reason, sizeof s->end_reason, "%s", reason ? reason : "");
    json_get_int(v, "status", &s->end_status);
    json_free(v);
    send_footer_line(sv, s, line, len);
  } else if (s->header_seen && !s->end_seen) {
    send_event_line(sv, s, line, len);
  } else {
    send_line(sv, line, len);
  }
}

static void send_msgs_dropped(struct server *sv, struct session *s) {
  if (!s->msgs_dropped) return;
  char text[160];
  int n = snprintf(text, sizeof text,
                   "(%" PRIu64 " session messages were dropped: the client was not reading and "
                   "its output buffer was full)",
                   s->msgs_dropped);
  s->msgs_dropped = 0;
  if (n > 0)
    send_session_message(sv, s, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

static void on_message_line(void *ctx, const char *line, size_t len, int overflowed) {
  struct server *sv = ctx;
  struct session *s = sv->sess;
  if (sv->have_conn && !sv->conn.broken && outq_pending(&sv->conn) + len + 64 > sv->out_limit) {
    s->msgs_dropped++;
    return;
  }
  send_msgs_dropped(sv, s);
  if (overflowed) {
    send_session_message(sv, s, "(a message line over 4 KiB was dropped)", 39);
    return;
  }
  send_session_message(sv, s, line, len);
}

/* Read what a session pipe holds now, up to budget bytes (0: all of it).
 * Returns 0 at EOF. */
static int drain(struct server *sv, int fd, struct linebuf *lb, size_t limit, line_fn fn,
                 size_t budget) {
  char buf[65536];
  size_t got = 0;
  for (;;) {
    if (budget && got >= budget) return 1; /* more next turn: commands first */
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      got += (size_t)n;
      linebuf_feed(lb, buf, (size_t)n, limit, fn, sv);
      continue;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    return 1; /* EAGAIN: nothing more for now */
  }
}

/* The child is gone: forward what it left, complete its recording if it
 * died without the footer, and say how it ended. */
static void finish_session(struct server *sv, int wstatus) {
  struct session *s = sv->sess;
  drain(sv, s->ev_fd, &s->ev, EVENT_LINE_MAX, on_event_line, 0);
  drain(sv, s->msg_fd, &s->msg, MESSAGE_LINE_MAX, on_message_line, 0);
  if (s->msg.len) send_session_message(sv, s, s->msg.s, s->msg.len); /* unterminated */
  send_msgs_dropped(sv, s);
  send_lost_pending(sv, s); /* a recording the child left without its footer */
  const char *recording = "none";
  if (s->header_seen && s->end_seen) {
    recording = "complete";
  } else if (s->header_seen) {
    /* a partial last line (the child died mid-write) is not an event: it is
     * dropped, and the footer counts the event lines that were forwarded */
    char line[256];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int n = snprintf(line, sizeof line,
                     "{\"type\":\"end\",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
                     ",\"reason\":\"error\",\"status\":%d,\"end_unix_ns\":%" PRIu64
                     ",\"written_by\":\"serve\"}",
                     s->events, s->dropped, -ASMSPY_E_INTERNAL,
                     (uint64_t)((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec));
    send_line(sv, line, (size_t)n);
    snprintf(s->end_reason, sizeof s->end_reason, "error");
    s->end_status = -ASMSPY_E_INTERNAL;
    recording = "footer-by-server";
  }
  struct strbuf b = {0};
  strbuf_addf(&b, "{\"type\":\"session\",\"session\":%d,\"event\":\"ended\"", s->id);
  if (WIFEXITED(wstatus))
    strbuf_addf(&b, ",\"exit\":%d", WEXITSTATUS(wstatus));
  else
    strbuf_addf(&b, ",\"exit\":null,\"signal\":%d", WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
  strbuf_addf(&b, ",\"recording\":\"%s\",\"events\":%" PRIu64, recording, s->events);
  if (s->dropped) strbuf_addf(&b, ",\"dropped\":%" PRIu64, s->dropped);
  if (s->end_reason[0]) {
    strbuf_addf(&b, ",\"reason\":");
    strbuf_json_str(&b, s->end_reason);
    strbuf_addf(&b, ",\"status\":%" PRId64 ",\"status_text\":", s->end_status);
    strbuf_json_str(&b, asmspy_strerror((int)s->end_status));
  }
  strbuf_addf(&b, "}");
  send_strbuf(sv, &b);
  close(s->ev_fd);
  close(s->msg_fd);
  if (s->pidfd >= 0) close(s->pidfd);
  linebuf_free(&s->ev);
  linebuf_free(&s->msg);
  free(s);
  sv->sess = NULL;
}

/* Reap the child if it has exited. */
static void reap_session(struct server *sv) {
  if (!sv->sess) return;
  int st;
  pid_t r = waitpid(sv->sess->pid, &st, WNOHANG);
  if (r == sv->sess->pid) finish_session(sv, st);
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                   */
/* ------------------------------------------------------------------------ */

static void do_command(struct server *sv, const char *line, size_t len) {
  uint64_t lineno = sv->conn.lineno;
  struct serve_cmd cmd;
  struct serve_refusal why = {{0}, {0}};
  const struct serve_modes modes = {modes_options_of, modes_auto_mode, sv};
  if (serve_parse_command(line, len, &modes, &cmd, &why) != 0) {
    send_err(sv, &why, lineno, cmd.verb_name, cmd.id_json);
    serve_cmd_free(&cmd);
    return;
  }
  struct session *s = sv->sess;
  switch (cmd.verb) {
  case SERVE_START: {
    if (s) {
      serve_refuse(&why, "one-session",
                   "session %d is running: one session at a time (a target has one ptrace jack; "
                   "stop it first)",
                   s->id);
      break;
    }
    struct cli_mode_args a;
    if (check_start(sv, &cmd, &a, &why) != 0 || start_session(sv, &cmd, &a, &why) != 0) break;
    struct strbuf b = {0};
    serve_ack_line(&b, &cmd, lineno, sv->sess->id);
    send_strbuf(sv, &b);
    serve_cmd_free(&cmd);
    return;
  }
  case SERVE_PAUSE:
  case SERVE_RESUME:
  case SERVE_STOP:
    if (!s) {
      serve_refuse(&why, "no-session", "%s: no session is running", cmd.verb_name);
      break;
    }
    if (cmd.verb == SERVE_STOP) {
      stop_session(s);
    } else if (!s->stopping) {
      int pause = cmd.verb == SERVE_PAUSE;
      if (pause != s->paused && kill(s->pid, pause ? SIGSTOP : SIGCONT) == 0) s->paused = pause;
    }
    {
      struct strbuf b = {0};
      serve_ack_line(&b, &cmd, lineno, s->id);
      send_strbuf(sv, &b);
    }
    serve_cmd_free(&cmd);
    return;
  case SERVE_QUIT: {
    struct strbuf b = {0};
    serve_ack_line(&b, &cmd, lineno, s ? s->id : 0);
    send_strbuf(sv, &b);
    sv->quitting = 1;
    sv->conn.eof = 1; /* nothing after quit is read */
    stop_session(s);
    serve_cmd_free(&cmd);
    return;
  }
  }
  send_err(sv, &why, lineno, cmd.verb_name, cmd.id_json);
  serve_cmd_free(&cmd);
}

static void on_command_line(void *ctx, const char *line, size_t len, int overflowed) {
  struct server *sv = ctx;
  if (sv->conn.eof) return; /* after quit */
  sv->conn.lineno++;
  if (overflowed) {
    struct serve_refusal why;
    serve_refuse(&why, "too-long", "a command line is at most %u bytes", SERVE_MAX_COMMAND);
    send_err(sv, &why, sv->conn.lineno, NULL, NULL);
    return;
  }
  do_command(sv, line, len);
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                   */
/* ------------------------------------------------------------------------ */

static void refuse_client(int fd, const char *rule, const char *msg) {
  /* written directly: this peer never becomes the connection */
  struct serve_refusal why;
  serve_refuse(&why, rule, "%s", msg);
  struct strbuf b = {0};
  serve_err_line(&b, &why, 0, NULL, NULL, 0);
  strbuf_addf(&b, "\n");
  if (b.s) (void)!send(fd, b.s, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
  free(b.s);
  /* Closing a unix socket with unread input resets the peer, which could
   * then lose the err line: say we are done, discard what it sent, close. */
  shutdown(fd, SHUT_WR);
  char sink[4096];
  for (int i = 0; i < 256 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++) {
  }
  close(fd);
}

/* A connecting client: the one client when none is connected and its uid is
 * ours; refused with an err line otherwise. */
static void accept_client(struct server *sv) {
  int fd = accept4(sv->sock.fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  uid_t uid;
  pid_t pid = 0;
  if (serve_peer_uid(fd, &uid, &pid) != 0) {
    refuse_client(fd, "peer-uid", "cannot read the peer's credentials (SO_PEERCRED): refused");
    return;
  }
  if (uid != geteuid()) {
    char msg[200];
    snprintf(msg, sizeof msg, "peer uid %u (pid %d) is not this server's uid %u: refused",
             (unsigned)uid, (int)pid, (unsigned)geteuid());
    refuse_client(fd, "peer-uid", msg);
    return;
  }
  if (sv->have_conn) {
    refuse_client(fd, "one-client", "another client is connected: one client at a time");
    return;
  }
  memset(&sv->conn, 0, sizeof sv->conn);
  sv->conn.in_fd = sv->conn.out_fd = fd;
  sv->conn.is_socket = 1;
  sv->conn.out_kind = OUT_SOCKET;
  sv->have_conn = 1;
}

static void close_conn(struct server *sv) {
  if (!sv->have_conn) return;
  if (sv->conn.is_socket) { /* as in refuse_client: no reset for unread input */
    shutdown(sv->conn.in_fd, SHUT_WR);
    char sink[4096];
    for (int i = 0; i < 256 && recv(sv->conn.in_fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++) {
    }
    close(sv->conn.in_fd);
  }
  linebuf_free(&sv->conn.cmd);
  free(sv->conn.q.s);
  memset(&sv->conn.q, 0, sizeof sv->conn.q);
  sv->have_conn = 0;
}

/* How the client's output is written without waiting (flush_out). */
static enum out_kind out_kind_of(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return OUT_STREAM;
  if (S_ISSOCK(st.st_mode)) return OUT_SOCKET;
  if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) return OUT_FILE;
  return OUT_STREAM;
}

/* The server waits only in poll(): for a command, a session's lines, the
 * session's exit, a connecting client, or room in the client's socket. It
 * never waits for the client to read, so a session always makes progress:
 * what the client does not take is queued up to out_limit, then dropped
 * with a `lost` line (send_event_line). */
static int serve_loop(struct server *sv) {
  for (;;) {
    flush_out(sv);                        /* what the client can take now */
    if (cli_stop_flag && !sv->quitting) { /* SIGINT / SIGTERM / SIGHUP to the server */
      sv->quitting = 1;
      if (sv->have_conn) sv->conn.eof = 1;
      stop_session(sv->sess);
    }
    /* the command channel is done: a bounded session may finish (unless
     * paused or nobody reads), an unbounded one is stopped */
    if (sv->have_conn && sv->conn.eof && sv->sess && !sv->sess->stopping &&
        (!sv->sess->bounded || sv->sess->paused || sv->conn.broken))
      stop_session(sv->sess);
    /* a finished connection goes once the client has everything */
    int out_pending = sv->have_conn && !sv->conn.broken && outq_pending(&sv->conn);
    int wait_for_client = out_pending && !cli_stop_flag; /* a signal ends it regardless */
    if (!sv->sess && sv->have_conn && sv->conn.eof && !wait_for_client) {
      close_conn(sv);
      if (sv->sock.fd < 0) return CLI_EXIT_OK; /* stdio: EOF or quit ends the server */
    }
    if (!sv->sess && sv->quitting && !wait_for_client) return CLI_EXIT_OK;

    struct pollfd p[7];
    int np = 0, i_cmd = -1, i_out = -1, i_ev = -1, i_msg = -1, i_pid = -1, i_lis = -1;
    /* commands are read while the client's queue is within its bound: one
     * that sends and never reads is not answered into unbounded memory */
    if (sv->have_conn && !sv->conn.eof &&
        outq_pending(&sv->conn) < sv->out_limit + OUT_CONTROL_SLACK)
      p[i_cmd = np++] = (struct pollfd){sv->conn.in_fd, POLLIN, 0};
    if (out_pending) p[i_out = np++] = (struct pollfd){sv->conn.out_fd, POLLOUT, 0};
    if (sv->sess) {
      p[i_ev = np++] = (struct pollfd){sv->sess->ev_fd, POLLIN, 0};
      p[i_msg = np++] = (struct pollfd){sv->sess->msg_fd, POLLIN, 0};
      if (sv->sess->pidfd >= 0) p[i_pid = np++] = (struct pollfd){sv->sess->pidfd, POLLIN, 0};
    }
    if (sv->sock.fd >= 0 && !sv->quitting)
      p[i_lis = np++] = (struct pollfd){sv->sock.fd, POLLIN, 0};
    int timeout = sv->sess && sv->sess->pidfd < 0 ? 100 : -1;
    int n = poll(p, (nfds_t)np, timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      return CLI_EXIT_FAIL;
    }
    if (i_out >= 0 && (p[i_out].revents & (POLLERR | POLLHUP | POLLNVAL)) &&
        !(p[i_out].revents & POLLOUT))
      conn_broken(&sv->conn); /* the client is gone: nothing more reaches it */
    if (i_ev >= 0 && p[i_ev].revents)
      drain(sv, sv->sess->ev_fd, &sv->sess->ev, EVENT_LINE_MAX, on_event_line, DRAIN_TURN_BYTES);
    if (i_msg >= 0 && p[i_msg].revents)
      drain(sv, sv->sess->msg_fd, &sv->sess->msg, MESSAGE_LINE_MAX, on_message_line,
            DRAIN_TURN_BYTES);
    if (sv->sess && (i_pid < 0 || p[i_pid].revents)) reap_session(sv);
    if (i_lis >= 0 && p[i_lis].revents) accept_client(sv);
    if (i_cmd >= 0 && p[i_cmd].revents && sv->have_conn && !sv->conn.eof) {
      char buf[16384];
      ssize_t r = read(sv->conn.in_fd, buf, sizeof buf);
      if (r > 0)
        linebuf_feed(&sv->conn.cmd, buf, (size_t)r, SERVE_MAX_COMMAND, on_command_line, sv);
      else if (r == 0 || (errno != EINTR && errno != EAGAIN))
        sv->conn.eof = 1; /* a last line without '\n' is not a command */
    }
  }
}

int cli_cmd_serve(int argc, char **argv) {
  /* argv[0] is "--serve" or "--serve=<path>" (main passes it through) */
  const char *path = NULL;
  if (argc >= 1 && !strncmp(argv[0], "--serve=", 8)) path = argv[0] + 8;
  if (argc > (path ? 1 : 0))
    return cli_usage_error("--serve takes no arguments (--serve or --serve=<socket>), got '%s'",
                           argv[path ? 1 : 0]);
  if (path && !*path) return cli_usage_error("--serve= needs a socket path");

  struct server sv;
  memset(&sv, 0, sizeof sv);
  sv.sock.fd = -1;
  sv.out_limit = OUT_LIMIT_DEFAULT;
  const char *lim = getenv("ASMSPY_SERVE_CLIENT_BUFFER");
  if (lim && *lim) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(lim, &end, 10);
    if (errno || *end || v < OUT_LIMIT_MIN || v > (1ull << 32)) {
      fprintf(stderr, "asmspy: ASMSPY_SERVE_CLIENT_BUFFER=%s: want a byte count from %u to %llu\n",
              lim, OUT_LIMIT_MIN, 1ull << 32);
      return CLI_EXIT_USAGE;
    }
    sv.out_limit = (size_t)v;
  }
  sv.engine = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  if (!sv.engine) {
    fprintf(stderr, "asmspy: --serve: cannot load the plugins\n");
    return CLI_EXIT_FAIL;
  }
  signal(SIGPIPE, SIG_IGN); /* a client that goes away is an EPIPE, not a death */
  if (path) {
    char err[512];
    if (serve_socket_open(path, &sv.sock, err, sizeof err) != 0) {
      fprintf(stderr, "asmspy: --serve: %s\n", err);
      asmspy_engine_close(sv.engine);
      return CLI_EXIT_FAIL;
    }
    fprintf(stderr, "asmspy: serving on %s%s\n", sv.sock.path,
            strcmp(sv.sock.path, path) ? " (the directory is writable by others: a private "
                                         "0700 directory holds the socket)"
                                       : "");
  } else {
    sv.conn.in_fd = 0;
    sv.conn.out_fd = 1;
    sv.conn.out_kind = out_kind_of(1);
    sv.have_conn = 1;
  }
  int rc = serve_loop(&sv);
  flush_out(&sv);
  close_conn(&sv);
  serve_socket_close(&sv.sock);
  asmspy_engine_close(sv.engine);
  return rc;
}
