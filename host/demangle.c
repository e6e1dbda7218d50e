/* C++ symbol demangling for display (perf / uftrace show demangled names).
 *
 * The Itanium demangler lives in libstdc++ (__cxa_demangle). asmspy is C and
 * does not link libstdc++; it is looked up at run time: already loaded in a
 * C++ program using scopes, else dlopen'd once (libstdc++.so.6 is part of
 * every Debian system's gcc runtime). Without it, names stay mangled: a
 * correct if ugly fallback. */
#define _GNU_SOURCE
#include "host/demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void) {
  demangler = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (demangler) return;
  void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
  if (lib) demangler = (cxa_demangle_fn)dlsym(lib, "__cxa_demangle");
  /* lib stays loaded for the life of the process: demangler points into it */
}

char *demangle_cxx(const char *name) {
  if (!name || name[0] != '_' || name[1] != 'Z') return NULL;
  pthread_once(&demangler_once, find_demangler);
  if (!demangler) return NULL;
  int status = -1;
  char *out = demangler(name, NULL, NULL, &status);
  if (status != 0) {
    free(out);
    return NULL;
  }
  return out;
}
