/* victim_dlopen: loads a library after start-up and calls into it, so the
 * tracer's symbol table (read when it attached, or at exec under --launch)
 * does not know the library yet.
 *
 * Before the dlopen it calls malloc and printf (libc, loaded by ld.so after
 * exec: what --launch must name). Then it dlopen()s libm.so.6 (not linked in)
 * and calls cbrt() (an ordinary exported function, not an
 * ifunc whose implementation only a debug .symtab names) through dlsym's pointer in a loop.
 *
 * When to dlopen:
 *   now     right away
 *   signal  after SIGUSR1 arrives (until then: usleep in a loop), so a test
 *           can attach first and only then let the library be mapped
 *
 * Output: line 1 the pid, then "loaded 0x<cbrt>" once libm is in.
 * Usage: victim_dlopen [now|signal] [sleep_us=1000] [calls=-1 (forever)] */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t go;
volatile double dsink;
volatile long lsink;

static void on_usr1(int sig) {
  (void)sig;
  go = 1;
}

__attribute__((noinline)) static void use_libc(long i) {
  char *p = malloc(64);
  if (!p) exit(1);
  snprintf(p, 64, "%ld", i);
  lsink += (long)strlen(p);
  free(p);
}

int main(int argc, char **argv) {
  const char *when = argc > 1 ? argv[1] : "now";
  long sleep_us = argc > 2 ? atol(argv[2]) : 1000;
  long calls = argc > 3 ? atol(argv[3]) : -1;
  signal(SIGUSR1, on_usr1);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  use_libc(1);
  if (strcmp(when, "signal") == 0)
    while (!go) usleep(1000);

  void *lib = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  double (*cbrt_fn)(double) = (double (*)(double))dlsym(lib, "cbrt");
  if (!cbrt_fn) return 1;
  printf("loaded %p\n", (void *)cbrt_fn);
  fflush(stdout);
  for (long i = 0; calls < 0 || i < calls; i++) {
    dsink = cbrt_fn((double)i + 0.5);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  return 0;
}
