/* Print the fields the host writer writes itself (host/output.c's table),
 * one "record.field" per line: the serve suite's metrics test checks that
 * docs/metrics.md catalogues every one of them. */
#include "host/host.h"

#include <stdio.h>

int main(void) {
  size_t n = 0;
  const struct out_field *f = out_field_table(&n);
  for (size_t i = 0; i < n; i++) printf("%s.%s\n", f[i].record, f[i].field);
  return n ? 0 : 1;
}
