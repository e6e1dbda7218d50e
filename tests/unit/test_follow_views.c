/* test_follow_views: the views under --follow, driven with the exact event
 * orders the ptrace seam produces for a forking target (issue 12). The built
 * plugins are dlopen'd (argv[1..5]: syslog, stream, tree, graph, procs) and
 * fed synthesized events through the scripted host, so each order is
 * reproduced every run instead of by chance.
 *
 *   1. a child's last lines: the seam removes an exiting task before it
 *      reports the exit, so the child's `exit_group(...) = ?`, its
 *      `+++ exited with 0 +++` and the last instruction it stepped arrive
 *      with nthreads back at 1. They must keep the child's [tid] prefix
 *      (log, stream, tree), like every other line of that child.
 *   2. --graph: a forked child runs the same code at the same addresses as
 *      its parent. Its calls are its own rows, each saying which process
 *      (text "[pid] ", JSON nodes[].pid / edges[].pid); no two rows alike.
 *   3. --procs lists every task once:
 *      a. the child's stops, even its exit, reported before its parent's
 *         fork event (waitpid returns the newest tracee first);
 *      b. a snapshot's /proc walk finding a child before its fork event was
 *         consumed, a later snapshot finding it gone, then its events;
 *      c. the final walk finding an exited child still listed (a zombie its
 *         parent has not reaped).
 * 3b and 3c use a real forked child of this test (the view reads /proc). */
#include "load_view.h"
#include "check.h"
#include "fake_sampling_host.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define PARENT 1234
#define CHILD 1240

static const struct asmspy_view_ops *load_view(const char *path, const char *mode) {
  return load_view_with(path, mode, &fake_host);
}

static ssize_t no_mem(struct asmspy_target *t, uint64_t addr, void *buf, size_t len) {
  (void)t, (void)addr, (void)buf, (void)len;
  return -1;
}

static const char *sys_name(int64_t nr) {
  switch (nr) {
  case 39: return "getpid";
  case 231: return "exit_group";
  default: return NULL;
  }
}

static struct asmspy_event ev_base(uint16_t type, int32_t pid, int32_t tid, uint32_t nthreads) {
  struct asmspy_event ev;
  memset(&ev, 0, sizeof ev);
  ASMSPY_INIT_HEADER(&ev);
  ev.type = type;
  ev.pid = pid;
  ev.tid = tid;
  ev.nthreads = nthreads;
  ev.target = FAKE_TARGET;
  return ev;
}

static struct asmspy_event ev_sys(int enter, int32_t pid, int32_t tid, uint32_t n, int64_t nr) {
  struct asmspy_event ev =
      ev_base(enter ? ASMSPY_EV_SYSCALL_ENTER : ASMSPY_EV_SYSCALL_EXIT, pid, tid, n);
  ev.u.sys.nr = nr;
  return ev;
}

static struct asmspy_event ev_task(uint32_t what, int32_t pid, int32_t tid, uint32_t n,
                                   int32_t child, int32_t code) {
  struct asmspy_event ev = ev_base(ASMSPY_EV_TASK, pid, tid, n);
  ev.u.task.what = what;
  ev.u.task.child = child;
  ev.u.task.code = code;
  return ev;
}

static struct asmspy_event ev_insn(int32_t pid, int32_t tid, uint32_t n, uint64_t ip,
                                   const uint8_t *bytes, uint8_t len) {
  struct asmspy_event ev = ev_base(ASMSPY_EV_INSN, pid, tid, n);
  ev.flags = ASMSPY_EVF_SP_UNKNOWN;
  ev.ip = ip;
  memcpy(ev.u.insn.bytes, bytes, len);
  ev.u.insn.len = len;
  return ev;
}

static const uint8_t NOP[] = {0x90}, RET[] = {0xc3};

/* call rel32 at ip to `to` */
static struct asmspy_event ev_call(int32_t pid, int32_t tid, uint32_t n, uint64_t ip, uint64_t to) {
  int32_t rel = (int32_t)(to - (ip + 5));
  uint8_t b[5] = {0xe8};
  memcpy(b + 1, &rel, 4);
  return ev_insn(pid, tid, n, ip, b, 5);
}

/* open a view on a session of `pid` (flags), feed evs, finish, close */
static void run(const struct asmspy_view_ops *v, const char *mode, int32_t pid, uint32_t flags,
                const struct asmspy_event *evs, size_t n, int argc, char **argv) {
  struct asmspy_session s;
  fake_session(&s, mode, argc, argv);
  s.pid = pid;
  s.flags = flags;
  fake_reset_output();
  void *st = NULL;
  if (v->open(&fake_host, &s, &st) != 0) {
    CHECK(0, "%s: open refused", mode);
    return;
  }
  for (size_t i = 0; i < n; i++)
    if (v->consume(st, &evs[i]) == ASMSPY_CONSUME_DONE) break;
  v->finish(st, 0);
  v->close(st);
}

/* Every text line in fake_out that contains `what` starts with `prefix`;
 * returns how many lines contained it. */
static int lines_with(const char *what, const char *prefix, int *unprefixed) {
  int n = 0;
  *unprefixed = 0;
  for (const char *p = fake_out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, p);
    if (strstr(line, what)) {
      n++;
      if (strncmp(line, prefix, strlen(prefix))) {
        (*unprefixed)++;
        fprintf(stderr, "  unprefixed: %s\n", line);
      }
    }
    p += len + (nl ? 1 : 0);
  }
  return n;
}

/* Is there a text line starting with `head` that contains `part`? */
static int has_line_with(const char *head, const char *part) {
  for (const char *p = fake_out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, p);
    if (!strncmp(line, head, strlen(head)) && strstr(line, part)) return 1;
    p += len + (nl ? 1 : 0);
  }
  return 0;
}

static const char *no_fd(struct asmspy_target *t, int fd, char *buf, size_t cap) {
  (void)t, (void)fd, (void)buf, (void)cap;
  return NULL;
}

/* --------------------------------------------------- 1. the prefix -- */

static void test_log(const struct asmspy_view_ops *v) {
  struct asmspy_event evs[] = {
      ev_sys(1, CHILD, CHILD, 2, 39),
      ev_sys(0, CHILD, CHILD, 2, 39),
      ev_sys(1, CHILD, CHILD, 2, 231),                  /* exit_group: it never returns */
      ev_task(ASMSPY_TASK_EXIT, CHILD, CHILD, 1, 0, 0), /* the seam: child already removed */
      ev_sys(1, PARENT, PARENT, 1, 39),
      ev_sys(0, PARENT, PARENT, 1, 39),
  };
  evs[1].u.sys.ret = CHILD;
  evs[5].u.sys.ret = PARENT;
  char *argv[] = {NULL};
  run(v, "log", PARENT, ASMSPY_SESS_FOLLOW, evs, sizeof evs / sizeof *evs, 0, argv);
  printf("%s", fake_out);
  int bad;
  CHECK(fake_has_line("[1240] getpid() = 1240"), "the child's getpid line is prefixed");
  CHECK(lines_with("exit_group", "[1240] ", &bad) == 1 && !bad,
        "the child's exit_group line carries [1240] (nthreads was 1 when it was reported)");
  CHECK(lines_with("+++ exited with 0 +++", "[1240] ", &bad) == 1 && !bad,
        "the child's exit line carries [1240]");
  CHECK(fake_has_line("getpid() = 1234"), "the parent alone again: no prefix, as before");

  /* --tid=<t>: one thread, never prefixed, even though it is not the pid */
  struct asmspy_event one[] = {ev_sys(1, PARENT, CHILD, 1, 39), ev_sys(0, PARENT, CHILD, 1, 39)};
  one[1].u.sys.ret = PARENT;
  struct asmspy_session s;
  fake_session(&s, "log", 0, argv);
  s.tid = CHILD;
  fake_reset_output();
  void *st = NULL;
  CHECK(v->open(&fake_host, &s, &st) == 0, "log --tid opens");
  if (st) {
    for (size_t i = 0; i < 2; i++) v->consume(st, &one[i]);
    v->finish(st, 0);
    v->close(st);
  }
  CHECK(fake_has_line("getpid() = 1234"), "--tid: no prefix (got %s)", fake_out);
}

static void test_stream(const struct asmspy_view_ops *v) {
  struct asmspy_event evs[] = {
      ev_insn(CHILD, CHILD, 2, 0x401000, NOP, 1),
      ev_insn(CHILD, CHILD, 1, 0x401001, NOP, 1), /* the step completed at its exit */
      ev_task(ASMSPY_TASK_EXIT, CHILD, CHILD, 1, 0, 0),
      ev_insn(PARENT, PARENT, 1, 0x401002, NOP, 1),
  };
  char *argv[] = {NULL};
  run(v, "stream", PARENT, ASMSPY_SESS_FOLLOW, evs, sizeof evs / sizeof *evs, 0, argv);
  printf("%s", fake_out);
  int bad;
  CHECK(lines_with("main+0x1 ", "[1240] ", &bad) == 1 && !bad,
        "the child's last step carries [1240]");
  CHECK(lines_with("main+0x0 ", "[1240] ", &bad) == 1 && !bad, "its first too");
  CHECK(lines_with("main+0x2 ", "main+0x2", &bad) == 1 && !bad, "the parent alone: no prefix");
}

static void test_tree(const struct asmspy_view_ops *v) {
  /* flow mode (no EXACT_SP): a call is followed by its callee's first insn */
  struct asmspy_event evs[] = {
      ev_call(CHILD, CHILD, 2, 0x401001, 0x401100),
      ev_insn(CHILD, CHILD, 2, 0x401100, NOP, 1),
      ev_call(CHILD, CHILD, 1, 0x401101, 0x401300), /* after the parent exited */
      ev_insn(CHILD, CHILD, 1, 0x401300, RET, 1),
  };
  char *argv[] = {"-1"};
  fake_record_flag = 1;
  run(v, "tree", PARENT, ASMSPY_SESS_FOLLOW, evs, sizeof evs / sizeof *evs, 0, argv);
  fake_record_flag = 0;
  printf("%s%s", fake_out, fake_json);
  int bad;
  CHECK(lines_with("-> ", "[1240] ", &bad) == 2 && !bad,
        "every call line of the child carries [1240], also with nthreads 1");
  CHECK(strstr(fake_json, "call {\"tid\":1240,\"pid\":1240,\"depth\":1,") != NULL,
        "the call JSON names the child's process");
}

/* ----------------------------------------------------- 2. the graph -- */

static void test_graph(const struct asmspy_view_ops *v) {
  /* parent and child make the same call at the same addresses */
  struct asmspy_event evs[] = {
      ev_call(PARENT, PARENT, 2, 0x401001, 0x401100), ev_insn(PARENT, PARENT, 2, 0x401100, RET, 1),
      ev_call(CHILD, CHILD, 2, 0x401001, 0x401100),   ev_insn(CHILD, CHILD, 2, 0x401100, RET, 1),
      ev_call(CHILD, CHILD, 2, 0x401006, 0x401100),   ev_insn(CHILD, CHILD, 2, 0x401100, RET, 1),
  };
  char *argv[] = {NULL};
  fake_record_flag = 1;
  run(v, "graph", PARENT, ASMSPY_SESS_FOLLOW, evs, sizeof evs / sizeof *evs, 0, argv);
  fake_record_flag = 0;
  printf("%s%s", fake_out, fake_json);
  CHECK(strstr(fake_out, "(pid 1234; 2 processes, rows by [pid])") != NULL,
        "the title counts the processes");
  int bad;
  CHECK(lines_with("entered_often", "[", &bad) == 2 && !bad,
        "entered_often: one row per process, each with its [pid]");
  CHECK(strstr(fake_out, "[1234] [int] entered_often") &&
            strstr(fake_out, "[1240] [int] entered_often"),
        "the rows name 1234 and 1240");
  CHECK(has_line_with("[1240] [int] entered_often ", " inv=2 ") &&
            has_line_with("[1234] [int] entered_often ", " inv=1 "),
        "each row counts its own process's calls only");
  CHECK(strstr(fake_json, "{\"pid\":1234,\"addr\":\"0x401100\",\"name\":\"entered_often\"") &&
            strstr(fake_json, "{\"pid\":1240,\"addr\":\"0x401100\",\"name\":\"entered_often\""),
        "JSON nodes carry their pid");
  CHECK(strstr(fake_json,
               "{\"pid\":1240,\"caller\":\"0x401000\",\"callee\":\"0x401100\",\"count\":2}") &&
            strstr(fake_json,
                   "{\"pid\":1234,\"caller\":\"0x401000\",\"callee\":\"0x401100\",\"count\":1}"),
        "JSON edges carry their pid");

  /* one process: the rows stay as they were (no prefix), nodes still carry pid */
  fake_record_flag = 1;
  run(v, "graph", PARENT, 0, evs, 2, 0, argv);
  fake_record_flag = 0;
  CHECK(strstr(fake_out, "sorted by invocations (pid 1234)\n[int] entered_often") != NULL,
        "a single process: title and rows unchanged (got %s)", fake_out);
  CHECK(strstr(fake_json, "\"pid\":1234,\"addr\"") != NULL, "a single process: nodes[].pid");
}

/* ----------------------------------------------------- 3. the procs -- */

/* JSON proc rows for tid in fake_json */
static int proc_rows(int32_t tid) {
  char key[64];
  snprintf(key, sizeof key, "proc {\"tid\":%d,", (int)tid);
  int n = 0;
  for (const char *p = fake_json; (p = strstr(p, key)) != NULL; p++) n++;
  return n;
}

static const char *proc_row(int32_t tid) {
  char key[64];
  snprintf(key, sizeof key, "proc {\"tid\":%d,", (int)tid);
  return strstr(fake_json, key);
}

/* A pid nothing in /proc holds: a child of the fake that never existed. */
static int32_t absent_pid(void) {
  for (int32_t p = 4000000; p > 300000; p -= 7919) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)p);
    if (access(path, F_OK) != 0) return p;
  }
  return 0;
}

struct procs_run {
  const struct asmspy_view_ops *v;
  struct asmspy_session s;
  void *st;
};

static int procs_open(struct procs_run *r, const struct asmspy_view_ops *v) {
  static char *argv[] = {"-1"};
  r->v = v;
  fake_session(&r->s, "procs", 0, argv);
  r->s.pid = getpid();
  r->s.max = -1;
  r->st = NULL;
  fake_reset_output();
  if (v->open(&fake_host, &r->s, &r->st) != 0) return -1;
  if (ASMSPY_HAS(v, configure) && v->configure) v->configure(r->st, &fake_host, &r->s);
  return 0;
}

static void procs_feed(struct procs_run *r, struct asmspy_event ev) { r->v->consume(r->st, &ev); }

static void procs_end(struct procs_run *r) {
  fake_reset_output();
  r->v->finish(r->st, 0);
  r->v->close(r->st);
}

static void test_procs_birth_last(const struct asmspy_view_ops *v) {
  int32_t me = getpid(), child = absent_pid();
  CHECK(child > 0, "found a pid no process holds");
  struct procs_run r;
  fake_record_flag = 1;
  if (procs_open(&r, v) != 0) {
    CHECK(0, "procs: open refused");
    return;
  }
  /* the child's whole life, then its parent's fork event */
  procs_feed(&r, ev_sys(1, child, child, 2, 39));
  procs_feed(&r, ev_sys(0, child, child, 2, 39));
  procs_feed(&r, ev_sys(1, child, child, 2, 231));
  procs_feed(&r, ev_task(ASMSPY_TASK_EXIT, child, child, 1, 0, 0));
  procs_feed(&r, ev_task(ASMSPY_TASK_FORK, me, me, 1, child, 0));
  procs_feed(&r, ev_sys(0, me, me, 1, 61));
  procs_end(&r);
  fake_record_flag = 0;
  printf("%s", fake_out);
  CHECK(proc_rows(child) == 1, "3a: the child is listed once (got %d rows)", proc_rows(child));
  const char *row = proc_row(child);
  char want[64];
  snprintf(want, sizeof want, "\"ppid\":%d,", (int)me);
  CHECK(row && strstr(row, want) && strstr(row, "\"origin\":\"fork\"") &&
            strstr(row, "\"code\":0") && strstr(row, "\"inv\":1,"),
        "3a: that row is the fork of the test, with its exit code and its call");

  /* its exit is all we saw of it before the fork event */
  child = absent_pid() - 1;
  fake_record_flag = 1;
  if (procs_open(&r, v) != 0) return;
  procs_feed(&r, ev_task(ASMSPY_TASK_EXIT, child, child, 1, 0, 0));
  procs_feed(&r, ev_task(ASMSPY_TASK_FORK, me, me, 1, child, 0));
  procs_end(&r);
  fake_record_flag = 0;
  row = proc_row(child);
  CHECK(proc_rows(child) == 1 && row && strstr(row, "\"code\":0") &&
            strstr(row, "\"origin\":\"fork\""),
        "3a: a child first known by its exit: once, exited 0, forked by the test");
}

static pid_t spawn_child(int exit_at_once) {
  pid_t c = fork();
  if (c == 0) {
    if (!exit_at_once) pause();
    _exit(0);
  }
  return c;
}

static void test_procs_snapshot(const struct asmspy_view_ops *v) {
  if (!ASMSPY_HAS(v, snapshot) || !v->snapshot) {
    CHECK(0, "procs has snapshot()");
    return;
  }
  int32_t me = getpid();
  struct procs_run r;
  fake_record_flag = 1;
  if (procs_open(&r, v) != 0) return;
  pid_t c = spawn_child(0); /* born after the walk at open: its fork event is "late" */
  CHECK(c > 0, "fork");
  if (c <= 0) return;
  fake_reset_output();
  v->snapshot(r.st); /* finds it in /proc before its fork event */
  CHECK(proc_rows(c) == 1, "3b: the first snapshot lists the child");
  kill(c, SIGKILL);
  waitpid(c, NULL, 0); /* gone from /proc; its events are still on their way */
  fake_reset_output();
  v->snapshot(r.st);
  CHECK(proc_rows(c) == 1, "3b: still once in the second snapshot");
  procs_feed(&r, ev_task(ASMSPY_TASK_FORK, me, me, 1, c, 0));
  procs_feed(&r, ev_sys(0, c, c, 2, 39));
  procs_feed(&r, ev_task(ASMSPY_TASK_EXIT, c, c, 1, 0, -SIGKILL));
  procs_end(&r);
  fake_record_flag = 0;
  printf("%s", fake_out);
  const char *row = proc_row(c);
  CHECK(proc_rows(c) == 1, "3b: once at the end (got %d rows)", proc_rows(c));
  CHECK(row && strstr(row, "\"inv\":1,") && strstr(row, "\"code\":-9"),
        "3b: that row holds its syscall and its exit");
}

static void test_procs_zombie(const struct asmspy_view_ops *v) {
  int32_t me = getpid();
  struct procs_run r;
  fake_record_flag = 1;
  if (procs_open(&r, v) != 0) return;
  pid_t c = spawn_child(1);
  CHECK(c > 0, "fork");
  if (c <= 0) return;
  procs_feed(&r, ev_task(ASMSPY_TASK_FORK, me, me, 2, c, 0));
  procs_feed(&r, ev_sys(0, c, c, 2, 39));
  procs_feed(&r, ev_task(ASMSPY_TASK_EXIT, c, c, 1, 0, 0));
  /* a zombie until reaped: wait until /proc says so (bounded by count) */
  char path[64], buf[256] = "";
  snprintf(path, sizeof path, "/proc/%d/stat", (int)c);
  for (int i = 0; i < 2000; i++) {
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    if (rp && rp[1] && rp[2] == 'Z') break;
    usleep(1000);
  }
  procs_end(&r); /* the final walk still sees it among the test's children */
  waitpid(c, NULL, 0);
  fake_record_flag = 0;
  printf("%s", fake_out);
  CHECK(proc_rows(c) == 1, "3c: a zombie child is listed once (got %d rows)", proc_rows(c));
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s SYSLOG.so STREAM.so TREE.so GRAPH.so PROCS.so\n", argv[0]);
    return 99;
  }
  fake_host_init();
  fake_host.disasm = fake_disasm_min;
  fake_host.insn_class = fake_insn_class_min;
  fake_host.read_mem = no_mem;
  fake_host.syscall_name = sys_name;
  fake_host.describe_fd = no_fd;

  test_log(load_view(argv[1], "log"));
  test_stream(load_view(argv[2], "stream"));
  test_tree(load_view(argv[3], "tree"));
  test_graph(load_view(argv[4], "graph"));
  const struct asmspy_view_ops *procs = load_view(argv[5], "procs");
  test_procs_birth_last(procs);
  test_procs_snapshot(procs);
  test_procs_zombie(procs);
  return check_summary("follow_views");
}
