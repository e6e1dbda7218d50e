/* data_list: the watch prompt's data symbols (see data_list.h). */
#define _GNU_SOURCE
#include "tui/data_list.h"

#include "asmspy-internal/app_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add(void *ctx, const char *name, uint64_t addr, uint64_t size, const char *module) {
  struct tui_datalist *l = ctx;
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 256;
    struct tui_datasym *v = realloc(l->v, nc * sizeof *v);
    if (!v) return 1;
    l->v = v;
    l->cap = nc;
  }
  struct tui_datasym *d = &l->v[l->n];
  d->name = strdup(name);
  d->module = strdup(module);
  if (!d->name || !d->module) {
    free(d->name);
    free(d->module);
    return 1;
  }
  d->addr = addr;
  d->size = size;
  l->n++;
  return 0;
}

/* The executable's module name while sorting (qsort takes no context). */
static const char *sort_exe;

/* The program's own variables first (what a user watches), then by name. */
static int by_name(const void *x, const void *y) {
  const struct tui_datasym *a = x, *b = y;
  int ea = sort_exe && !strcmp(a->module, sort_exe), eb = sort_exe && !strcmp(b->module, sort_exe);
  if (ea != eb) return eb - ea;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  c = strcmp(a->module, b->module);
  return c ? c : (a->addr > b->addr) - (a->addr < b->addr);
}

int tui_datalist_load(struct tui_datalist *l, pid_t pid) {
  tui_datalist_free(l);
  l->pid = pid;
  int rc = target_data_symbols(pid, add, l);
  if (rc) return -rc;
  char link[64], exe[4096];
  snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(link, exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char *base = strrchr(exe, '/');
  sort_exe = base ? base + 1 : exe;
  if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, by_name);
  /* one row per (name, module, addr): a symbol in .symtab and .dynsym */
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (k && !by_name(&l->v[k - 1], &l->v[i])) {
      free(l->v[i].name);
      free(l->v[i].module);
      continue;
    }
    l->v[k++] = l->v[i];
  }
  sort_exe = NULL;
  l->n = k;
  l->rows = malloc((l->n ? l->n : 1) * sizeof *l->rows);
  if (!l->rows) return ENOMEM;
  return tui_datalist_filter(l, "");
}

/* The symbol part of an input: up to its '+' (sym+off). */
static size_t base_len(const char *input) {
  const char *plus = strchr(input, '+');
  return plus ? (size_t)(plus - input) : strlen(input);
}

int tui_datalist_filter(struct tui_datalist *l, const char *input) {
  l->nrows = 0;
  if (!l->rows) return 0;
  size_t n = base_len(input);
  if (n >= 2 && input[0] == '0' && (input[1] == 'x' || input[1] == 'X')) return 0;
  char part[256];
  if (n >= sizeof part) n = sizeof part - 1;
  memcpy(part, input, n);
  part[n] = '\0';
  for (int pass = 0; pass < 2; pass++) /* prefix matches first */
    for (size_t i = 0; i < l->n; i++) {
      const char *hit = strstr(l->v[i].name, part);
      if (hit && (hit == l->v[i].name) == !pass) l->rows[l->nrows++] = i;
    }
  return 0;
}

int tui_datalist_complete(const struct tui_datalist *l, const char *input, size_t sel, char *out,
                          size_t cap) {
  size_t n = base_len(input);
  const char *tail = input + n; /* "+off" or "" */
  const char *common = NULL;
  size_t clen = 0;
  for (size_t r = 0; r < l->nrows; r++) {
    const char *name = l->v[l->rows[r]].name;
    if (strncmp(name, input, n) != 0) continue;
    if (!common) {
      common = name;
      clen = strlen(name);
      continue;
    }
    size_t k = 0;
    while (k < clen && name[k] == common[k]) k++;
    clen = k;
  }
  if (common && clen > n) {
    snprintf(out, cap, "%.*s%s", (int)clen, common, tail);
  } else if (sel < l->nrows) {
    snprintf(out, cap, "%s%s", l->v[l->rows[sel]].name, tail);
  } else {
    snprintf(out, cap, "%s", input);
  }
  return strcmp(out, input) != 0;
}

void tui_datalist_free(struct tui_datalist *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].name);
    free(l->v[i].module);
  }
  free(l->v);
  free(l->rows);
  memset(l, 0, sizeof *l);
}
