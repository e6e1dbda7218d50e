/* tui_menu_dump <pid>: the TUI's mode menu for pid, built exactly as the
 * TUI builds it (procinfo verdicts + tui_modes_judge over the registry),
 * one line per entry without a terminal:
 *   <key> <layout> <mode> <available|unavailable> <title>
 * tests/tui/test_third_party_view.sh reads it. */
#include "tui/modes.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tui_menu_dump <pid>\n");
    return 2;
  }
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!e) return 1;
  static struct procinfo pi;
  static struct tui_modes modes;
  int err = procinfo_read((pid_t)atoi(argv[1]), e, PROCINFO_NO_SYMBOLS, &pi);
  if (err) {
    fprintf(stderr, "tui_menu_dump: pid %s: error %d\n", argv[1], err);
    return 1;
  }
  tui_modes_judge(e, &pi, &modes);
  for (size_t i = 0; i < modes.n; i++) {
    const struct tui_mode *m = &modes.v[i];
    printf("%c %u %s %s %s\n", m->key, m->layout, m->mode,
           m->available ? "available" : "unavailable", m->title);
  }
  procinfo_free(&pi);
  asmspy_engine_close(e);
  return 0;
}
