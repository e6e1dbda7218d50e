/* calls into libc; built -fno-plt as well: `call *foo@GOTPCREL(%rip)`, no
 * PLT stub to patch */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oracle.h"
ORACLE_SINK_DEF;
NOINLINE size_t measure(const char *s) { return strlen(s); }
NOINLINE char *dup(const char *s) {
  char *d = malloc(measure(s) + 1);
  strcpy(d, s);
  return d;
}
int main(void) {
  char *d = dup("oracle");
  SINK(atoi("12"));
  puts(d);
  free(d);
  return 0;
}
