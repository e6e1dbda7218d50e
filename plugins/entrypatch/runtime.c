/* runtime.c: detect runtimes that walk or move their own stacks (runtime.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/runtime.h"
#include "plugins/entrypatch/maps.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A Go runtime in this ELF: the build info section every Go linker since
 * 1.13 writes (stripped binaries too), else the runtime's version symbol
 * (older toolchains, a section renamed by a post-processor). */
static int elf_has_go(Elf *e) {
  size_t shstrndx;
  if (elf_getshdrstrndx(e, &shstrndx) != 0) return 0;
  for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    if (name && strcmp(name, ".go.buildinfo") == 0) return 1;
  }
  for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
        !sh.sh_entsize)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym)) break;
      const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
      if (name && strcmp(name, "runtime.buildVersion") == 0) return 1;
    }
  }
  return 0;
}

/* The file behind mapping g: /proc/<pid>/map_files first (the very file
 * mapped), its path otherwise (map_files needs more privilege on some
 * kernels). -1 when neither opens. */
static int open_mapped(pid_t pid, const struct ep_mapping *g) {
  char path[128];
  snprintf(path, sizeof path, "/proc/%d/map_files/%llx-%llx", (int)pid, (unsigned long long)g->lo,
           (unsigned long long)g->hi);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && g->path[0] == '/') fd = open(g->path, O_RDONLY | O_CLOEXEC);
  return fd;
}

static int file_has_go(pid_t pid, const struct ep_mapping *g) {
  int fd = open_mapped(pid, g);
  if (fd < 0) return 0;
  Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  int go = e && elf_kind(e) == ELF_K_ELF && elf_has_go(e);
  if (e) elf_end(e);
  close(fd);
  return go;
}

int ep_runtime_refusal(pid_t pid, char *why, size_t cap) {
  struct ep_maps maps;
  if (ep_maps_read(pid, &maps) != 0) return 0;
  elf_version(EV_CURRENT);
  int refused = 0;
  for (size_t i = 0; i < maps.n && !refused; i++) {
    const struct ep_mapping *g = &maps.v[i];
    if (!ep_mapping_is_exec_file(g)) continue;
    int seen = 0; /* each file once: its first executable mapping */
    for (size_t k = 0; k < i && !seen; k++)
      seen = maps.v[k].exec && ep_mapping_same_file(&maps.v[k], g);
    if (seen || !file_has_go(pid, g)) continue;
    snprintf(why, cap,
             "a Go program (runtime found in %s): Go's stack copying and traceback meet patched "
             "return addresses; use --backend=singlestep",
             g->path);
    refused = 1;
  }
  ep_maps_free(&maps);
  return refused;
}
