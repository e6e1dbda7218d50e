/* asmspy_scope_loader.h: libasmspy's scope calls, found at first use, for
 * the compiled binding shims (bindings/java/native, bindings/node/src).
 * dlopen of $ASMSPY_LIB, else the libasmspy.so.0 beside the shim (an
 * install), else libasmspy.so.0 / libasmspy.so through the loader, then dlsym of every asmspy_scope_* call: a shim builds against its
 * runtime's headers only, and a missing libasmspy is a recorded no-op (tier
 * NONE, the loader's error as the reason), never a load failure. Call
 * load_lib once (pthread_once on g_once); g.begin non-NULL = all found.
 * Included by exactly one file per shim: the table is that file's own. */
#ifndef ASMSPY_BINDINGS_SCOPE_LOADER_H
#define ASMSPY_BINDINGS_SCOPE_LOADER_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*begin_fn)(const char *, const void *, size_t, unsigned);
typedef int (*end_fn)(void *);
typedef void (*free_fn)(void *);
typedef const char *(*str_fn)(const void *);
typedef uint64_t (*u64_fn)(const void *);
typedef int (*int_fn)(const void *);

static struct {
  begin_fn begin;
  end_fn end;
  free_fn free;
  str_fn text, path, tier, reason, name;
  u64_fn insn_count, gaps;
  int_fn truncated;
  char loaded_from[512];
  char error[1024];
} g;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* The shim's own directory + "/libasmspy.so.0": an installed shim sits
 * beside libasmspy. Its $ORIGIN rpath says the same, but a dlopen made
 * through an interposer (ASan's dlopen interceptor) is searched with the
 * interposer's paths, not the shim's; an explicit path does not depend on
 * who the caller appears to be. */
/* The build says where libasmspy is installed relative to the shim (its
 * rpath without "$ORIGIN": ASMSPY_SHIM_LIBDIR_REL, e.g. "/../../../lib"), or
 * absolutely (ASMSPY_SHIM_LIBDIR_ABS); by default beside it. */
#if !defined(ASMSPY_SHIM_LIBDIR_REL) && !defined(ASMSPY_SHIM_LIBDIR_ABS)
#define ASMSPY_SHIM_LIBDIR_REL ""
#endif
static const char *beside_shim(char *buf, size_t cap) {
  int n;
#ifdef ASMSPY_SHIM_LIBDIR_ABS
  n = snprintf(buf, cap, "%s/libasmspy.so.0", ASMSPY_SHIM_LIBDIR_ABS);
#else
  Dl_info di;
  if (!dladdr((void *)&beside_shim, &di) || !di.dli_fname) return NULL;
  const char *slash = strrchr(di.dli_fname, '/');
  if (!slash) return NULL;
  n = snprintf(buf, cap, "%.*s%s/libasmspy.so.0", (int)(slash - di.dli_fname), di.dli_fname,
               ASMSPY_SHIM_LIBDIR_REL);
#endif
  return n > 0 && (size_t)n < cap ? buf : NULL;
}

static void load_lib(void) {
  const char *env = getenv("ASMSPY_LIB");
  char own[512];
  const char *names[] = {env && *env ? env : NULL, beside_shim(own, sizeof own), "libasmspy.so.0",
                         "libasmspy.so"};
  void *h = NULL;
  size_t used = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
    if (!names[i]) continue;
    h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (h) {
      snprintf(g.loaded_from, sizeof g.loaded_from, "%s", names[i]);
    } else {
      const char *e = dlerror();
      int n = snprintf(g.error + used, sizeof g.error - used, "%s%s", used ? "; " : "",
                       e ? e : names[i]);
      if (n > 0 && (size_t)n < sizeof g.error - used) used += (size_t)n;
    }
  }
  if (!h) return;
#define SYM(field, type, name)                                                                     \
  do {                                                                                             \
    g.field = (type)dlsym(h, name);                                                                \
    if (!g.field) {                                                                                \
      snprintf(g.error, sizeof g.error, "%s: no symbol %s", g.loaded_from, name);                  \
      g.begin = NULL;                                                                              \
      return;                                                                                      \
    }                                                                                              \
  } while (0)
  SYM(end, end_fn, "asmspy_scope_end");
  SYM(free, free_fn, "asmspy_scope_free");
  SYM(text, str_fn, "asmspy_scope_text");
  SYM(path, str_fn, "asmspy_scope_path");
  SYM(tier, str_fn, "asmspy_scope_tier");
  SYM(reason, str_fn, "asmspy_scope_reason");
  SYM(name, str_fn, "asmspy_scope_name");
  SYM(insn_count, u64_fn, "asmspy_scope_insn_count");
  SYM(gaps, u64_fn, "asmspy_scope_gaps");
  SYM(truncated, int_fn, "asmspy_scope_truncated");
  SYM(begin, begin_fn, "asmspy_scope_begin"); /* last: non-NULL means all loaded */
#undef SYM
  g.error[0] = '\0';
}

#endif
