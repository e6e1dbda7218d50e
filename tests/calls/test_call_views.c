/* test_call_views: the call views (--calls, --tree, --graph) on a call
 * backend's event stream, synthesized, so every order is reproduced every
 * run and the parts of the story a backend may not deliver yet are pinned
 * (ASMSPY_CALL_REFUSED, ASMSPY_EV_TASK closing calls that never return):
 *   1. uftrace's filters: -F alloc_x, -N c, -F a,b -D 2 print exactly the
 *      function column `uftrace replay` prints for the same calls
 *      (checked against real uftrace on the real program by
 *      test_calls_views.sh);
 *   2. refused functions: listed as not traced with the reason, in text
 *      and JSON, by all three views; the graph never shows them inv=0;
 *   3. calls that never return: closed at the thread's exit / exec, or
 *      printed still running when the session ends;
 *   4. longjmp through a function that is not traced: the next callee
 *      nests under the frame that is still alive;
 *   5. names: C++ without parameter lists (--demangle=full keeps them),
 *      name@plt for PLT entries.
 * argv[1..3]: the built calls, tree and graph plugins (dlopen'd). */
#include "../unit/load_view.h"
#include "check.h"
#include "fake_sampling_host.h"

#include <dlfcn.h>

#define PID 1234

static const struct asmspy_view_ops *load_view(const char *path, const char *mode) {
  return load_view_with(path, mode, &fake_host);
}

/* the victim's functions: entry = 0x401000 + 0x100 * index */
static const char *const fnames[] = {
    "main",
    "a",
    "alloc_x",
    "b",
    "c",
    "d",
    "malloc@plt",
    "refused_f",
    "ns::C<int>::f(int) const",
    "operator delete(void*, unsigned long)@plt",
    "exit@plt",
    "execl@plt",
    "hangs",
};
#define NF (sizeof fnames / sizeof fnames[0])
enum { MAIN, A, ALLOC_X, B, C, D, MALLOC, REFUSED, CXX, DELETE, EXIT, EXECL, HANGS };
#define FADDR(i) (0x401000ull + 0x100ull * (uint64_t)(i))

static int my_symbolize(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out) {
  (void)t;
  for (size_t i = 0; i < NF; i++)
    if (addr >= FADDR(i) && addr < FADDR(i) + 0x100) {
      out->name = fnames[i];
      out->module = "victim";
      out->module_path = "/victim";
      out->start = FADDR(i);
      out->size = 0x100;
      out->offset = addr - FADDR(i);
      out->kind = strstr(fnames[i], "@plt") ? ASMSPY_SYM_EXTERNAL : ASMSPY_SYM_INTERNAL;
      return 0;
    }
  out->name = NULL;
  out->module = "?";
  out->kind = ASMSPY_SYM_UNKNOWN;
  return 0;
}

static ssize_t no_mem(struct asmspy_target *t, uint64_t addr, void *buf, size_t len) {
  (void)t, (void)addr, (void)buf, (void)len;
  return -1;
}

/* ---- a script of events ---- */
static struct asmspy_event evs[512];
static size_t nev;
static uint64_t now = 1000;

static struct asmspy_event *add(uint16_t type, int32_t tid) {
  struct asmspy_event *ev = &evs[nev++];
  memset(ev, 0, sizeof *ev);
  ASMSPY_INIT_HEADER(ev);
  ev->type = type;
  ev->pid = PID;
  ev->tid = tid;
  ev->nthreads = 1;
  ev->target = FAKE_TARGET;
  return ev;
}

static void call_ev(uint32_t what, int f, uint64_t slot, uint32_t flags) {
  struct asmspy_event *ev = add(ASMSPY_EV_CALL, PID);
  ev->flags = (uint16_t)flags;
  ev->ip = FADDR(f);
  ev->u.call.func = FADDR(f);
  ev->u.call.ret = FADDR(MAIN) + 0x10; /* a call site in main */
  ev->u.call.slot = slot;
  ev->u.call.ts_ns = now += 100;
  ev->u.call.what = what;
}
static void enter(int f, uint64_t slot) { call_ev(ASMSPY_CALL_ENTRY, f, slot, 0); }
static void leave(int f, uint64_t slot) { call_ev(ASMSPY_CALL_EXIT, f, slot, 0); }

/* a call tree in a string: "main(a(alloc_x(malloc,b(c(d))),b(c(d))),c(d),b(c(d)))" */
static const char *tree_calls(const char *p, uint64_t slot) {
  while (*p && *p != ')') {
    char name[32];
    size_t n = strcspn(p, "(),");
    snprintf(name, sizeof name, "%.*s", (int)n, p);
    p += n;
    int f = -1;
    for (size_t i = 0; i < NF; i++)
      if (!strcmp(fnames[i], name) || (!strcmp(name, "malloc") && i == MALLOC)) f = (int)i;
    if (f < 0) {
      printf("FAIL - script names %s\n", name);
      exit(1);
    }
    enter(f, slot);
    if (*p == '(') p = tree_calls(p + 1, slot - 0x20) + 1;
    leave(f, slot);
    if (*p == ',') p++;
  }
  return p;
}

static void refused_ev(int f, const char *why) {
  struct asmspy_event *ev = add(ASMSPY_EV_CALL, 0);
  ev->ip = FADDR(f);
  ev->u.call.func = FADDR(f);
  ev->u.call.what = ASMSPY_CALL_REFUSED;
  ev->u.call.why = why;
}

static void task_ev(uint32_t what) {
  struct asmspy_event *ev = add(ASMSPY_EV_TASK, PID);
  ev->u.task.what = what;
}

/* open a view with these options, feed the script, finish(end), close */
static void run(const struct asmspy_view_ops *v, const char *mode, int end, const char *opts) {
  char buf[256], *argv[8];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", opts ? opts : "");
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && argc < 7;
       tok = strtok_r(NULL, " ", &save))
    argv[argc++] = tok;
  argv[argc] = NULL;
  struct asmspy_session s;
  fake_session(&s, mode, argc, argv);
  s.max = -1;
  fake_reset_output();
  void *st = NULL;
  if (v->open(&fake_host, &s, &st) != 0) {
    CHECK(0, "%s %s: open refused", mode, opts);
    return;
  }
  for (size_t i = 0; i < nev; i++)
    if (v->consume(st, &evs[i]) == ASMSPY_CONSUME_DONE) break;
  v->finish(st, end);
  v->close(st);
}

/* the function column of --calls' text (after "| "), one line each */
static const char *column(void) {
  static char col[16384];
  col[0] = 0;
  for (const char *p = fake_out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *bar = memchr(p, '|', len);
    if (bar && p[0] != '#') {
      size_t n = strlen(col);
      snprintf(col + n, sizeof col - n, "%.*s\n", (int)(len - (size_t)(bar + 2 - p)), bar + 2);
    } else if (!bar && strncmp(p, "not traced", 10) == 0) {
      size_t n = strlen(col);
      snprintf(col + n, sizeof col - n, "%.*s\n", (int)len, p);
    }
    p = nl ? nl + 1 : p + len;
  }
  return col;
}

#define CHECK_COL(what, want)                                                                      \
  do {                                                                                             \
    const char *got_ = column();                                                                   \
    CHECK(strcmp(got_, want) == 0, "%s:\n--- want\n%s--- got\n%s", what, want, got_);              \
  } while (0)

static void script_filter(void) {
  nev = 0;
  tree_calls("main(a(alloc_x(malloc,b(c(d))),b(c(d))),c(d),b(c(d)))", 0x7ffff000);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    printf("usage: %s calls.so tree.so graph.so\n", argv[0]);
    return 2;
  }
  fake_host_init();
  fake_host.symbolize = my_symbolize;
  fake_host.read_mem = no_mem;
  const struct asmspy_view_ops *calls = load_view(argv[1], "calls");
  const struct asmspy_view_ops *tree = load_view(argv[2], "tree");
  const struct asmspy_view_ops *graph = load_view(argv[3], "graph");

  /* 1. uftrace's filters (the columns `uftrace replay` prints) */
  script_filter();
  run(calls, "calls", 0, "--filter=alloc_x");
  CHECK_COL("-F alloc_x", "alloc_x() {\n  malloc@plt();\n  b() {\n    c() {\n      d();\n"
                          "    } /* c */\n  } /* b */\n} /* alloc_x */\n");
  run(calls, "calls", 0, "--notrace=c");
  CHECK_COL("-N c", "main() {\n  a() {\n    alloc_x() {\n      malloc@plt();\n      b();\n"
                    "    } /* alloc_x */\n    b();\n  } /* a */\n  b();\n} /* main */\n");
  run(calls, "calls", 0, "--exclude=c");
  CHECK_COL("--exclude is --notrace", "main() {\n  a() {\n    alloc_x() {\n      malloc@plt();\n"
                                      "      b();\n    } /* alloc_x */\n    b();\n  } /* a */\n"
                                      "  b();\n} /* main */\n");
  run(calls, "calls", 0, "--filter=a,b --depth=2");
  CHECK_COL("-F a,b -D 2", "a() {\n  alloc_x() {\n    b() {\n      c();\n    } /* b */\n"
                           "  } /* alloc_x */\n  b() {\n    c();\n  } /* b */\n} /* a */\n"
                           "b() {\n  c();\n} /* b */\n");
  run(calls, "calls", 0, "--depth=2");
  CHECK_COL("-D 2", "main() {\n  a();\n  c();\n  b();\n} /* main */\n");
  run(calls, "calls", 0, "--filter=b* --notrace=d");
  CHECK_COL("-F b* -N d", "b() {\n  c();\n} /* b */\nb() {\n  c();\n} /* b */\nb() {\n  c();\n"
                          "} /* b */\n");
  run(tree, "tree", 0, "--filter=alloc_x");
  CHECK(strcmp(fake_out, "-> alloc_x [victim]\n  -> malloc@plt [victim]\n  -> b [victim]\n"
                         "    -> c [victim]\n      -> d [victim]\n") == 0,
        "tree -F alloc_x:\n%s", fake_out);
  run(tree, "tree", 0, "--notrace=c --depth=3");
  CHECK(strcmp(fake_out, "-> main [victim]\n  -> a [victim]\n    -> alloc_x [victim]\n"
                         "    -> b [victim]\n  -> b [victim]\n") == 0,
        "tree -N c -D 3:\n%s", fake_out);
  fake_wants_json_flag = 1;
  run(graph, "graph", 0, "--filter=alloc_x");
  CHECK(strstr(fake_json, "\"name\":\"c\"") && !strstr(fake_json, "\"name\":\"a\""),
        "graph -F alloc_x counts the calls below alloc_x only:\n%s", fake_json);
  run(graph, "graph", 0, "--notrace=b");
  /* b and what it calls are hidden: c counts once (main calls it itself) */
  CHECK(!strstr(fake_json, "\"name\":\"b\"") &&
            strstr(fake_json,
                   "\"name\":\"c\",\"module\":\"victim\",\"kind\":\"internal\",\"inv\":1,") &&
            strstr(fake_json, "\"name\":\"alloc_x\""),
        "graph -N b:\n%s", fake_json);
  fake_wants_json_flag = 0;

  /* 2 + 3. refused; exit closes what is open */
  nev = 0;
  refused_ev(REFUSED, "a call in its first 5 bytes");
  enter(MAIN, 0x7ffff000);
  enter(A, 0x7fffefe0);
  leave(A, 0x7fffefe0);
  enter(EXIT, 0x7fffefe0);
  enter(D, 0x7fffefc0); /* an atexit handler */
  leave(D, 0x7fffefc0);
  task_ev(ASMSPY_TASK_EXIT);
  run(calls, "calls", 0, NULL);
  CHECK_COL("exit", "main() {\n  a();\n  exit@plt() {\n    d();\n"
                    "  } /* exit@plt: no return (exit) */\n} /* main: no return (exit) */\n"
                    "not traced: refused_f (a call in its first 5 bytes)\n");
  CHECK(!strstr(fake_out, "inv=0"), "calls: %s", fake_out);
  fake_record_flag = 1; /* text and JSON */
  run(calls, "calls", 0, NULL);
  CHECK(strstr(fake_json, "not_traced {\"name\":\"refused_f\",\"module\":\"victim\",\"addr\":"
                          "\"0x401700\",\"traced\":false,\"why\":\"a call in its first 5 bytes\"}"),
        "calls JSON:\n%s", fake_json);
  CHECK(strstr(fake_json, "\"ended\":\"exit\""), "calls JSON: ended:\n%s", fake_json);
  run(tree, "tree", 0, NULL);
  CHECK(fake_has_line("not traced: refused_f (a call in its first 5 bytes)"), "tree:\n%s",
        fake_out);
  CHECK(strstr(fake_json, "\"traced\":false,\"why\":\"a call in its first 5 bytes\""),
        "tree JSON:\n%s", fake_json);
  run(graph, "graph", 0, NULL);
  CHECK(strstr(fake_out, "not traced: refused_f (a call in its first 5 bytes)") &&
            strstr(fake_out, "refused_f                      inv=-"),
        "graph text:\n%s", fake_out);
  CHECK(strstr(fake_json, "\"name\":\"refused_f\",\"module\":\"victim\",\"kind\":\"internal\","
                          "\"traced\":false,\"why\":\"a call in its first 5 bytes\""),
        "graph JSON:\n%s", fake_json);
  fake_record_flag = 0;

  /* a refused function seen as the caller (its return address) of a traced one */
  nev = 0;
  refused_ev(REFUSED, "a jump inside the function loops back to its entry");
  enter(D, 0x7ffff000);
  evs[nev - 1].u.call.ret = FADDR(REFUSED) + 0x20;
  leave(D, 0x7ffff000);
  run(graph, "graph", 0, NULL);
  CHECK(!strstr(fake_out, "inv=0 ") && strstr(fake_out, "refused_f                      inv=-"),
        "graph: a refused caller is not traced, never inv=0:\n%s", fake_out);

  /* exec */
  nev = 0;
  enter(MAIN, 0x7ffff000);
  enter(EXECL, 0x7fffefe0);
  task_ev(ASMSPY_TASK_EXEC);
  run(calls, "calls", 0, NULL);
  CHECK_COL("exec", "main() {\n  execl@plt(); /* no return (exec) */\n"
                    "} /* main: no return (exec) */\n");

  /* still running when the session ends; the target exited unreported */
  nev = 0;
  enter(MAIN, 0x7ffff000);
  enter(HANGS, 0x7fffefe0);
  run(calls, "calls", 0, NULL);
  CHECK_COL("detach", "main() {\n  hangs(); /* still running at detach */\n"
                      "} /* main: still running at detach */\n");
  run(calls, "calls", ASMSPY_FACT_EXITED, NULL);
  CHECK_COL("exited", "main() {\n  hangs(); /* no return (exit) */\n"
                      "} /* main: no return (exit) */\n");

  /* 4. longjmp through a function that is not traced: a (slot ..fe0) calls
   * an untraced function, which calls d (slot ..f80); d longjmps back into
   * a, which calls b at a slot above d's: d is gone, b nests under a */
  nev = 0;
  enter(MAIN, 0x7ffff000);
  enter(A, 0x7fffefe0);
  enter(D, 0x7fffef80);
  enter(B, 0x7fffefc0);
  leave(B, 0x7fffefc0);
  leave(A, 0x7fffefe0);
  leave(MAIN, 0x7ffff000);
  run(calls, "calls", 0, NULL);
  CHECK_COL("longjmp", "main() {\n  a() {\n    d(); /* unwound */\n    b();\n  } /* a */\n"
                       "} /* main */\n");
  run(tree, "tree", 0, NULL);
  CHECK(strcmp(fake_out, "-> main [victim]\n  -> a [victim]\n    -> d [victim]\n"
                         "    -> b [victim]\n") == 0,
        "tree longjmp:\n%s", fake_out);

  /* 5. names */
  nev = 0;
  enter(MAIN, 0x7ffff000);
  enter(CXX, 0x7fffefe0);
  leave(CXX, 0x7fffefe0);
  enter(DELETE, 0x7fffefe0);
  leave(DELETE, 0x7fffefe0);
  leave(MAIN, 0x7ffff000);
  run(calls, "calls", 0, NULL);
  CHECK_COL("names", "main() {\n  ns::C::f();\n  operator delete@plt();\n} /* main */\n");
  run(calls, "calls", 0, "--demangle=full");
  CHECK_COL("--demangle=full", "main() {\n  ns::C<int>::f(int) const;\n"
                               "  operator delete(void*, unsigned long)@plt;\n} /* main */\n");
  run(tree, "tree", 0, NULL);
  CHECK(strstr(fake_out, "-> ns::C::f [victim]") &&
            strstr(fake_out, "-> operator delete@plt [victim]"),
        "tree names:\n%s", fake_out);
  run(graph, "graph", 0, NULL);
  CHECK(strstr(fake_out, "ns::C::f ") && strstr(fake_out, "operator delete@plt "),
        "graph names:\n%s", fake_out);
  run(graph, "graph", 0, "--demangle=full");
  CHECK(strstr(fake_out, "ns::C<int>::f(int) const"), "graph full names:\n%s", fake_out);

  /* options: --tree takes every call-backend option */
  nev = 0;
  run(tree, "tree", 0, "--patch=a* --module=libc* --max-funcs=10 --notrace=x --filter=y");
  CHECK(1, "tree options");
  return check_summary("test_call_views");
}
