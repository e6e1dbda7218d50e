/* test_select: which functions a call session patches (select.c, choose.c),
 * against a made-up process: a host whose symbol_at lists a fixed table.
 * The executable's module is this program's own basename (select.c reads
 * /proc/<pid>/exe), so s.pid = getpid().
 *   - the default: the executable and its PLT stubs, no library;
 *   - a launcher (under EP_LITTLE_FUNCS functions): + the interpreter
 *     library mapped (libpython3*), never libc; with none mapped, the
 *     largest library the executable needs (DT_NEEDED: libelf here);
 *   - --module as comma globs ("libfoo*,bar"), a bare word as a substring;
 *   - call_patch (-P): only its matches, across the chosen modules;
 *   - call_include / call_exclude (-F / -N): their matches on top, from any
 *     module ("malloc" also names malloc@plt);
 *   - the cap: -F/-N matches, then the executable's PLT, then its
 *     functions, then the larger ones;
 *   - V8 builtins and HotSpot runtime entries never. */
#define _GNU_SOURCE
#include "../unit/check.h"
#include "plugins/entrypatch/choose.h"
#include "plugins/entrypatch/select.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fsym {
  uint64_t start, size;
  const char *name, *module;
};

static struct fsym *table;
static size_t ntable;
static char exe[256];
static char last_note[2048];

static int fake_symbol_at(struct asmspy_target *t, size_t i, struct asmspy_symbol *out) {
  (void)t;
  if (i >= ntable) return -1;
  out->name = table[i].name;
  out->module = table[i].module;
  out->start = table[i].start;
  out->size = table[i].size;
  out->kind = strcmp(table[i].module, exe) ? ASMSPY_SYM_EXTERNAL : ASMSPY_SYM_INTERNAL;
  return 0;
}

static void fake_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out, (void)level;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_note, sizeof last_note, fmt, ap);
  va_end(ap);
}

/* The table: n made-up functions per module, addresses ascending. */
static uint64_t next_addr = 0x400000;
static size_t tcap;
static void sym(const char *module, const char *name, uint64_t size) {
  if (ntable == tcap) {
    tcap = tcap ? tcap * 2 : 256;
    table = realloc(table, tcap * sizeof *table);
  }
  table[ntable++] = (struct fsym){next_addr, size, strdup(name), module};
  next_addr += size ? size : 16;
}
static void funcs(const char *module, const char *prefix, unsigned n, uint64_t size) {
  char name[64];
  for (unsigned i = 0; i < n; i++) {
    snprintf(name, sizeof name, "%s%u", prefix, i);
    sym(module, name, size);
  }
}
static void reset(void) {
  for (size_t i = 0; i < ntable; i++) free((char *)table[i].name);
  ntable = 0;
  next_addr = 0x400000;
}

struct result {
  struct ep_candidate *c;
  long n;
  uint64_t capped, twice;
};

static struct result run(const char *module, const char *patch, const char *inc, const char *exc,
                         uint32_t max) {
  struct asmspy_host_api host;
  memset(&host, 0, sizeof host);
  ASMSPY_INIT_HEADER(&host);
  host.symbol_at = fake_symbol_at;
  host.note = fake_note;
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.pid = getpid();
  s.out = (struct asmspy_out *)&s; /* any non-NULL: notes go to fake_note */
  s.call_module = module;
  s.call_patch = patch;
  s.call_include = inc;
  s.call_exclude = exc;
  s.call_max_funcs = max;
  struct result r = {0};
  last_note[0] = '\0';
  r.n = ep_select(&host, &s, NULL, &r.c, &r.capped, &r.twice);
  return r;
}

static int has(const struct result *r, const char *name) {
  for (long i = 0; i < r->n; i++)
    if (!strcmp(r->c[i].name, name)) return 1;
  return 0;
}
static long count_in(const struct result *r, const char *module) {
  long k = 0;
  for (long i = 0; i < r->n; i++) k += !strcmp(r->c[i].module, module);
  return k;
}

int main(void) {
  char path[256];
  ssize_t l = readlink("/proc/self/exe", path, sizeof path - 1);
  if (l <= 0) return 1;
  path[l] = '\0';
  snprintf(exe, sizeof exe, "%s", strrchr(path, '/') + 1);

  /* a program of its own code: the executable only */
  sym(exe, "_start", 34);
  funcs(exe, "work", 100, 64);
  sym(exe, "malloc@plt", 16);
  sym(exe, "free@plt", 16);
  sym("libpython3.11.so.1.0", "PyObject_Malloc", 247);
  funcs("libpython3.11.so.1.0", "Py_f", 20, 300);
  sym("libc.so.6", "malloc", 500);
  sym("libc.so.6", "free", 400);
  sym("libc.so.6", "Pyx", 100);
  sym("libc.so.6", "_Unwind_Resume", 100);
  sym("libfoo.so.1", "foo_a", 100);
  sym("libbar.so", "bar_a", 100);
  struct result r = run(NULL, NULL, NULL, NULL, 0);
  CHECK(r.n == 103 && count_in(&r, exe) == 102, "default: %ld (%ld in the executable)", r.n,
        count_in(&r, exe));
  CHECK(has(&r, "malloc@plt") && has(&r, "work7") && !has(&r, "_start"), "PLT in, _start out");
  CHECK(has(&r, "_Unwind_Resume"), "the unwinder hook is always in");
  CHECK(!count_in(&r, "libpython3.11.so.1.0"), "a program with code: no library added");
  CHECK(strstr(last_note, "patching ") && strstr(last_note, exe), "note: %s", last_note);
  free(r.c);

  /* --module: comma globs, a bare word as a substring */
  r = run("libfoo*,bar", NULL, NULL, NULL, 0);
  CHECK(has(&r, "foo_a") && has(&r, "bar_a") && !has(&r, "malloc"), "--module=libfoo*,bar");
  free(r.c);
  r = run("libc", NULL, NULL, NULL, 0);
  CHECK(has(&r, "malloc") && has(&r, "Pyx") && !has(&r, "foo_a"), "--module=libc (substring)");
  free(r.c);
  r = run("libpython3*", NULL, NULL, NULL, 0);
  CHECK(count_in(&r, "libpython3.11.so.1.0") == 21, "--module=libpython3*: %ld",
        count_in(&r, "libpython3.11.so.1.0"));
  free(r.c);
  r = run("nomatch*", NULL, NULL, NULL, 0);
  CHECK(strstr(last_note, "matches no mapped module"), "note: %s", last_note);
  free(r.c);

  /* -P: only its matches, in the chosen modules (Pyx is in libc: not chosen) */
  r = run("libpython3*", "Py*", NULL, NULL, 0);
  CHECK(r.n == 22 && has(&r, "PyObject_Malloc") && !has(&r, "Pyx") && !has(&r, "work1"),
        "--patch=Py*: %ld", r.n);
  free(r.c);
  r = run(NULL, "malloc", NULL, NULL, 0);
  CHECK(has(&r, "malloc@plt") && !has(&r, "free@plt") && !has(&r, "malloc"),
        "--patch=malloc: the executable's malloc@plt only");
  free(r.c);

  /* -F / -N: on top of the default, from any module */
  r = run(NULL, NULL, "malloc", "free", 0);
  CHECK(r.n == 105 && has(&r, "malloc") && has(&r, "free") && has(&r, "work3"),
        "-F malloc -N free added to the default: %ld", r.n);
  free(r.c);
  r = run(NULL, "work1", "Py_f3", NULL, 0);
  CHECK(has(&r, "work1") && has(&r, "Py_f3") && !has(&r, "work2"), "-P work1 -F Py_f3");
  free(r.c);

  /* the cap: -F first, the PLT, then the larger functions */
  r = run(NULL, NULL, "Py_f1", NULL, 3);
  CHECK(r.n == 4 && has(&r, "Py_f1") && has(&r, "malloc@plt") && has(&r, "free@plt") &&
            r.capped == 100,
        "cap 3: %ld kept, %llu capped", r.n, (unsigned long long)r.capped);
  free(r.c);

  /* a launcher: the interpreter library comes in, libc never */
  reset();
  sym(exe, "main", 5);
  sym(exe, "Py_BytesMain@plt", 16);
  funcs("libpython3.11.so.1.0", "Py_f", 200, 300);
  funcs("libcrypto.so.3", "EVP_", 300, 200);
  funcs("libc.so.6", "c_", 300, 200);
  r = run(NULL, NULL, NULL, NULL, 0);
  CHECK(count_in(&r, "libpython3.11.so.1.0") == 200 && !count_in(&r, "libc.so.6") &&
            !count_in(&r, "libcrypto.so.3") && has(&r, "main"),
        "launcher: %ld in libpython", count_in(&r, "libpython3.11.so.1.0"));
  CHECK(strstr(last_note, "libpython3.11.so.1.0") && strstr(last_note, "interpreter"), "note: %s",
        last_note);
  free(r.c);

  /* a launcher of no known runtime: the largest library it needs (this
   * program needs libelf, not libcrypto) */
  reset();
  sym(exe, "main", 5);
  funcs("libelf.so.1", "elf_", 100, 100);
  funcs("libcrypto.so.3", "EVP_", 300, 200);
  funcs("libc.so.6", "c_", 300, 200);
  r = run(NULL, NULL, NULL, NULL, 0);
  CHECK(count_in(&r, "libelf.so.1") == 100 && !count_in(&r, "libcrypto.so.3") &&
            !count_in(&r, "libc.so.6"),
        "launcher, DT_NEEDED: %ld in libelf (%s)", count_in(&r, "libelf.so.1"), last_note);
  free(r.c);

  /* managed runtimes: never what they find by return address */
  reset();
  sym(exe, "main", 5);
  sym("libjvm.so", "SharedRuntime::resolve_static_call_C(JavaThread*)", 300);
  sym("libjvm.so", "InterpreterRuntime::new(JavaThread*, ConstantPool*, int)", 300);
  sym("libjvm.so", "G1CollectedHeap::do_collection(bool)", 300);
  sym("libjvm.so", "Builtins_Nope", 300);
  r = run(NULL, NULL, NULL, NULL, 0);
  CHECK(has(&r, "G1CollectedHeap::do_collection(bool)") && count_in(&r, "libjvm.so") == 1,
        "libjvm: runtime entries never (%ld)", count_in(&r, "libjvm.so"));
  CHECK(strstr(last_note, "HotSpot runtime entry"), "note: %s", last_note);
  free(r.c);
  CHECK(ep_runtime_unsafe("Builtins_CallFunction_ReceiverIsAny", "node") != NULL, "V8 builtin");
  CHECK(ep_runtime_unsafe("v8::internal::Heap::CollectGarbage", "node") == NULL, "V8 C++");
  CHECK(ep_runtime_unsafe("SharedRuntime::f", "libc.so.6") == NULL, "only in libjvm");

  CHECK(ep_module_matches("libpython3*", "libpython3.11.so.1.0"), "glob");
  CHECK(!ep_module_matches("libpython3*", "python3.11"), "glob anchored");
  CHECK(ep_module_matches("x, libc", "libc.so.6"), "a space after the comma");
  CHECK(ep_interpreter_lib("libruby-3.1.so.3.1.2") && ep_interpreter_lib("libjvm.so") &&
            !ep_interpreter_lib("libc.so.6"),
        "interpreter list");
  reset();
  free(table);
  return check_summary("select");
}
