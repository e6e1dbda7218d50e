/* cc_dlopen: libraries loaded, run and unloaded in a loop (libm's cos,
 * libz's crc32): code is mapped, translated, unmapped (dlclose), and new
 * code may be mapped at the same addresses. codecache drops its
 * translations at each unmap of translated code (docs/codecache.md); the
 * listing must equal singlestep's (diff_launch.sh). argv[1]: rounds. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  double s = 0;
  for (int i = 0; i < n; i++) {
    void *h = dlopen(i % 2 ? "libz.so.1" : "libm.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      printf("dlopen: %s\n", dlerror());
      return 1;
    }
    if (i % 2) {
      unsigned long (*crc)(unsigned long, const unsigned char *, unsigned) =
          (unsigned long (*)(unsigned long, const unsigned char *, unsigned))dlsym(h, "crc32");
      s += crc ? (double)(crc(0, (const unsigned char *)"abc", 3) % 1000) : -1;
    } else {
      double (*c)(double) = (double (*)(double))dlsym(h, "cos");
      s += c ? c(i * 0.01) : -1;
    }
    dlclose(h);
  }
  printf("%.6f\n", s);
  return 0;
}
