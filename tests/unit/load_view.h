/* tests/unit/load_view.h — load a built view plugin for a unit test: dlopen
 * it, call its entry with the test's fake host, check it is the view of that
 * mode. Exits 1 with a FAIL line otherwise. */
#ifndef ASMSPY_TESTS_LOAD_VIEW_H
#define ASMSPY_TESTS_LOAD_VIEW_H

#include <asmspy/plugin.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const struct asmspy_view_ops *load_view_with(const char *path, const char *mode,
                                                           const struct asmspy_host_api *host) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    printf("FAIL - dlopen %s: %s\n", path, dlerror());
    exit(1);
  }
  asmspy_plugin_entry_fn entry = (asmspy_plugin_entry_fn)dlsym(dl, "asmspy_plugin_entry");
  const struct asmspy_plugin *p = entry ? entry(ASMSPY_ABI_VERSION, host) : NULL;
  if (!p || !p->view || strcmp(p->view->mode, mode)) {
    printf("FAIL - %s is not the %s view\n", path, mode);
    exit(1);
  }
  return p->view;
}

#endif
