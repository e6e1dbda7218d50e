/* choose.c: the modules a call session patches by default (see choose.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/choose.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int glob_any(const char *const *pats, const char *base) {
  for (size_t i = 0; pats[i]; i++)
    if (fnmatch(pats[i], base, 0) == 0) return 1;
  return 0;
}

/* The runtimes whose code is the program's when the executable only starts
 * them. */
int ep_interpreter_lib(const char *base) {
  static const char *const interp[] = {"libpython[0-9]*",
                                       "libruby*",
                                       "libjvm.so",
                                       "libnode.so*",
                                       "liblua*",
                                       "libluajit*",
                                       "libperl.so*",
                                       "libphp*",
                                       "libtcl[0-9]*",
                                       "libguile*",
                                       "libR.so",
                                       "libjulia*",
                                       "libmonosgen*",
                                       "libcoreclr.so",
                                       "libpypy*",
                                       "liberts*",
                                       "libgjs*",
                                       "libmozjs*",
                                       "libv8.so*",
                                       "libSystem.Native.so",
                                       NULL};
  return glob_any(interp, base);
}

int ep_runtime_lib(const char *base) {
  static const char *const rt[] = {
      "libc.so*",  "libm.so*",   "ld-linux*",   "ld-*.so*",     "libpthread*", "libdl.so*",
      "librt.so*", "libstdc++*", "libgcc_s*",   "libc++*",      "libunwind*",  "libatomic*",
      "libz.so*",  "libresolv*", "libutil.so*", "libcrypt.so*", "libasan*",    "libubsan*",
      "libtsan*",  "liblsan*",   "libmvec*",    "libgomp*",     "linux-vdso*", "libselinux*",
      "libpcre*",  NULL};
  return glob_any(rt, base);
}

int ep_module_matches(const char *list, const char *base) {
  char pat[256];
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    while (n && (*p == ' ')) p++, n--;
    if (n && n < sizeof pat) {
      memcpy(pat, p, n);
      pat[n] = '\0';
      if (strpbrk(pat, "*?[") ? fnmatch(pat, base, 0) == 0 : strstr(base, pat) != NULL) return 1;
    }
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

/* Is `base` a DT_NEEDED entry of the executable of pid? */
static int exe_needs(Elf *elf, const char *base) {
  if (!elf) return 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize) continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(d, (int)i, &dyn)) break;
      if (dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag != DT_NEEDED) continue;
      const char *need = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
      /* libruby-3.1.so.3.1 names libruby-3.1.so.3.1.2 (a symlink) */
      if (need && !strncmp(base, need, strlen(need))) return 1;
    }
  }
  return 0;
}

static void add(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *why, size_t cap, const char *fmt, ...) {
  size_t l = strnlen(why, cap);
  if (l + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why + l, cap - l, fmt, ap);
  va_end(ap);
}

void ep_choose_modules(pid_t pid, struct ep_module *mods, size_t n, const char *asked, char *why,
                       size_t whycap) {
  why[0] = '\0';
  const struct ep_module *exe = NULL;
  for (size_t i = 0; i < n; i++) {
    mods[i].chosen = EP_MOD_NO;
    if (mods[i].is_exe) {
      mods[i].chosen = EP_MOD_EXE;
      exe = &mods[i];
    } else if (asked && *asked && ep_module_matches(asked, mods[i].name)) {
      mods[i].chosen = EP_MOD_ASKED;
    }
  }
  if (exe)
    add(why, whycap, "%s (%u function%s)", exe->name, exe->funcs, exe->funcs == 1 ? "" : "s");
  else
    add(why, whycap, "the executable (no symbols)");
  size_t nasked = 0;
  for (size_t i = 0; i < n; i++)
    if (mods[i].chosen == EP_MOD_ASKED) {
      add(why, whycap, "%s%s (%u, --module)", nasked ? ", " : " + ", mods[i].name, mods[i].funcs);
      nasked++;
    }
  if (asked && *asked && !nasked) add(why, whycap, "; --module=%s matches no mapped module", asked);
  if (exe && exe->funcs >= EP_LITTLE_FUNCS) return;
  /* a launcher: the program's code is in a library */
  size_t nauto = 0;
  for (size_t i = 0; i < n; i++)
    if (mods[i].chosen == EP_MOD_NO && ep_interpreter_lib(mods[i].name)) {
      mods[i].chosen = EP_MOD_AUTO;
      add(why, whycap, "%s%s (%u functions)", nauto ? ", " : " + ", mods[i].name, mods[i].funcs);
      nauto++;
    }
  if (nauto) {
    add(why, whycap,
        ": the executable has under %u functions of its own, so the interpreter "
        "librar%s mapped",
        EP_LITTLE_FUNCS, nauto > 1 ? "ies" : "y");
    return;
  }
  /* no known runtime: the biggest library the executable itself needs */
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  struct ep_module *best = NULL;
  for (size_t i = 0; i < n; i++)
    if (mods[i].chosen == EP_MOD_NO && !ep_runtime_lib(mods[i].name) && mods[i].funcs &&
        (!best || mods[i].funcs > best->funcs) && exe_needs(elf, mods[i].name))
      best = &mods[i];
  if (elf) elf_end(elf);
  close(fd);
  if (!best) return;
  best->chosen = EP_MOD_AUTO;
  add(why, whycap,
      " + %s (%u functions): the executable has under %u functions of its own, and this is "
      "the largest library it needs",
      best->name, best->funcs, EP_LITTLE_FUNCS);
}
