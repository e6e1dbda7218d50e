/* mod_list: the module chooser's data (see mod_list.h). */
#define _GNU_SOURCE
#include "tui/mod_list.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add(struct tui_modlist *l, size_t *cap, const char *path, uint64_t bytes,
               const char *exe) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i].path, path)) {
      l->v[i].bytes += bytes;
      return 0;
    }
  if (l->n == *cap) {
    size_t nc = *cap ? *cap * 2 : 16;
    struct tui_mod *nv = realloc(l->v, nc * sizeof *nv);
    if (!nv) return -ENOMEM;
    l->v = nv;
    *cap = nc;
  }
  struct tui_mod *m = &l->v[l->n++];
  memset(m, 0, sizeof *m);
  snprintf(m->path, sizeof m->path, "%s", path);
  m->bytes = bytes;
  m->main_exe = exe[0] && !strcmp(exe, path);
  return 0;
}

static int cmp_mod(const void *x, const void *y) {
  const struct tui_mod *a = x, *b = y;
  if (a->main_exe != b->main_exe) return b->main_exe - a->main_exe;
  return strcmp(a->path, b->path);
}

int tui_modlist_load(struct tui_modlist *l, pid_t pid) {
  tui_modlist_free(l);
  l->pid = pid;
  char path[64], exe[512] = "";
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -errno;
  char line[1024];
  size_t cap = 0;
  int err = 0;
  while (!err && fgets(line, sizeof line, f)) {
    uint64_t lo, hi;
    char perms[8];
    int off = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n", &lo, &hi, perms, &off) < 3 ||
        !off)
      continue;
    char *p = line + off;
    p[strcspn(p, "\n")] = '\0';
    if (!strchr(perms, 'x') || p[0] != '/') continue; /* [vdso], anonymous (JIT) code */
    err = add(l, &cap, p, hi - lo, exe);
  }
  fclose(f);
  if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_mod);
  for (size_t i = 0; i < l->n; i++) { /* after the sort: base points into the final place */
    const char *slash = strrchr(l->v[i].path, '/');
    l->v[i].base = slash ? slash + 1 : l->v[i].path;
  }
  return err;
}

void tui_modlist_pick(struct tui_modlist *l, const char *globs) {
  for (size_t i = 0; i < l->n; i++) {
    size_t bl = strlen(l->v[i].base);
    l->v[i].picked = 0;
    for (const char *t = globs; t && *t;) {
      size_t len = strcspn(t, ",");
      if (len == bl && !strncmp(t, l->v[i].base, len)) l->v[i].picked = 1;
      t += len;
      if (*t == ',') t++;
    }
  }
}

void tui_modlist_globs(const struct tui_modlist *l, char *out, size_t cap) {
  size_t k = 0;
  if (cap) out[0] = '\0';
  for (size_t i = 0; i < l->n && cap; i++) {
    if (!l->v[i].picked) continue;
    int w = snprintf(out + k, cap - k, "%s%s", k ? "," : "", l->v[i].base);
    if (w < 0 || (size_t)w >= cap - k) {
      out[k] = '\0';
      break;
    }
    k += (size_t)w;
  }
}

void tui_modlist_free(struct tui_modlist *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}
