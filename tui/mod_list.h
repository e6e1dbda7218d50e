/* mod_list: the module chooser's data, without curses.
 *
 * A call backend (entrypatch) patches the main executable by default; on
 * an interpreter (python3, node, ruby, java) the program runs in a library
 * and nothing shows. The chooser lists the target's executable file
 * mappings (/proc/<pid>/maps: an 'x' permission and a path), one row per
 * file, and the ones picked become the call mode's --module=<globs> (their
 * basenames, comma-separated: the backend matches globs on basenames). */
#ifndef ASMSPY_TUI_MOD_LIST_H
#define ASMSPY_TUI_MOD_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tui_mod {
  char path[512];
  const char *base; /* into path */
  uint64_t bytes;   /* executable bytes mapped */
  int main_exe;     /* /proc/<pid>/exe: patched anyway (the backend's default) */
  int picked;
};

struct tui_modlist {
  struct tui_mod *v;
  size_t n;
  pid_t pid;
};

/* Read pid's executable file mappings (replacing what was there), the
 * main executable first, then by path. 0 or -errno. */
int tui_modlist_load(struct tui_modlist *l, pid_t pid);
/* Pick the modules a --module value names (exactly their basenames). */
void tui_modlist_pick(struct tui_modlist *l, const char *globs);
/* The picked modules' basenames, comma-separated, into out ("" when none). */
void tui_modlist_globs(const struct tui_modlist *l, char *out, size_t cap);
void tui_modlist_free(struct tui_modlist *l);

#endif
