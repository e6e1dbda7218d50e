/* choose.h: which modules a call session patches by default (choose.c).
 *
 * The main executable always. When it holds little code of its own (a
 * launcher: pyenv's python3.11, /usr/bin/ruby, the java launcher, anything
 * under EP_LITTLE_FUNCS functions), the program's code is in a library: the
 * mapped libraries whose basename is on the interpreter list
 * (ep_interpreter_lib: libpython3*, libruby*, libjvm.so, libnode*, liblua*,
 * libperl*, libphp*, ...), or, when none is mapped, the library the
 * executable itself needs (DT_NEEDED) that holds the most functions, the C
 * and C++ runtimes (libc, libm, libstdc++, ...) left out. */
#ifndef ASMSPY_ENTRYPATCH_CHOOSE_H
#define ASMSPY_ENTRYPATCH_CHOOSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An executable with fewer own functions than this (PLT stubs and the ELF
 * glue not counted) is a launcher. */
#define EP_LITTLE_FUNCS 64u

/* One mapped module, as select.c counts it. */
struct ep_module {
  const char *name; /* basename, host-owned */
  uint32_t funcs;   /* its functions (PLT stubs not counted) */
  int is_exe;
  int chosen; /* EP_MOD_* */
};

enum { EP_MOD_NO = 0, EP_MOD_EXE, EP_MOD_ASKED, EP_MOD_AUTO };

/* A libpython3*, libruby*, libjvm.so, ... basename. */
int ep_interpreter_lib(const char *base);
/* libc, libm, ld.so, libstdc++, libgcc_s, ...: never "the program's code". */
int ep_runtime_lib(const char *base);

/* A comma-separated list of module globs (call_module): a pattern without
 * * ? [ matches as a substring ("libc"), otherwise fnmatch on the basename. */
int ep_module_matches(const char *list, const char *base);

/* Mark mods[i].chosen: the executable, the modules of `asked` (call_module,
 * may be NULL), and, when the executable is a launcher, the automatic ones
 * (pid's DT_NEEDED read from /proc/<pid>/exe for the fallback). Writes a
 * one-line account of the choice into why (without a trailing newline). */
void ep_choose_modules(pid_t pid, struct ep_module *mods, size_t n, const char *asked, char *why,
                       size_t whycap);

#endif
