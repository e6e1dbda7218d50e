/* Plugin discovery, loading, ABI negotiation, descriptor validation and the
 * registry of every plugin's status.
 *
 * The host knows no plugin by name. It scans, in order:
 *   1. every directory in $ASMSPY_PLUGIN_PATH (':'-separated),
 *   2. <build root>/plugins when libasmspy itself runs from the build tree,
 *   3. the installed plugin directory: the one beside the libasmspy (or the
 *      asmspy command) that runs, <libdir>/asmspy/plugins found from its own
 *      file, so a relocated prefix (`meson install` anywhere, a copied tree)
 *      finds its own plugins; when that does not exist, the configured
 *      <prefix>/<libdir>/asmspy/plugins,
 * ($ASMSPY_PLUGIN_PATH_ONLY=1 skips 2 and 3: a caller, a test or a scope
 * binding that wants exactly the plugins it names, or none at all)
 * for files named asmspy_*.so (recursively, a few levels, so the build tree's
 * one-folder-per-plugin layout works unchanged). The first plugin to claim a
 * name wins; a later one is recorded as a duplicate, never loaded twice.
 *
 * Loader checklist (SQLite loadext + Vulkan negotiation + LV2 size rule):
 *   dlopen fails            -> ASMSPY_E_NO_LIB with dlerror()
 *   no entry symbol         -> ASMSPY_E_NO_ENTRY
 *   entry returns NULL      -> ASMSPY_E_ABI (plugin refused our major)
 *   descriptor major differs-> ASMSPY_E_ABI "plugin ABI 2.0, host speaks 1.0"
 *   min_host_minor > ours   -> ASMSPY_E_ABI "plugin needs host ABI 1.N, host speaks 1.M" (1.12)
 *   descriptor too small / missing required op / bad name -> ASMSPY_E_BAD_DESCRIPTOR
 * Every struct read from a plugin is first copied into a zeroed host-sized
 * struct, min(theirs, ours) bytes: an older smaller struct reads as "field
 * absent" (zero), a newer bigger one has its unknown tail ignored. */
#define _GNU_SOURCE
#include "asmspy_config.h"
#include "host/host.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Smallest descriptor a 1.0 plugin can have: everything through `view`. */
#define PLUGIN_SIZE_1_0 (offsetof(struct asmspy_plugin, view) + sizeof(void *))
#define BACKEND_OPS_SIZE_1_0 (offsetof(struct asmspy_backend_ops, run) + sizeof(void *))
#define VIEW_OPS_SIZE_1_0 (offsetof(struct asmspy_view_ops, close) + sizeof(void *))

struct registry_row {
  struct asmspy_plugin_info info;
  void *dl;
  /* host-owned normalized copies of what the plugin handed us */
  struct asmspy_plugin desc;
  struct asmspy_backend_ops backend;
  struct asmspy_view_ops view;
  int probed;
};

struct asmspy_engine {
  /* One allocation per row: rows never move once created, because info.desc,
   * desc.backend and desc.view point INTO their row (and consumers keep
   * asmspy_plugin_info pointers). A flat realloc'd array of rows left all of
   * those dangling as soon as a 17th plugin was found. */
  struct registry_row **rows;
  size_t nrows, cap;
  unsigned flags;
};

static unsigned probe_timeout_ms(void) {
  const char *e = getenv("ASMSPY_PROBE_TIMEOUT_MS");
  long v = e ? strtol(e, NULL, 10) : 0;
  return v > 0 ? (unsigned)v : 10000u;
}

static struct registry_row *row_new(struct asmspy_engine *e, const char *path) {
  if (e->nrows == e->cap) {
    size_t nc = e->cap ? e->cap * 2 : 16;
    struct registry_row **nr = realloc(e->rows, nc * sizeof *nr);
    if (!nr) return NULL;
    e->rows = nr;
    e->cap = nc;
  }
  struct registry_row *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  e->rows[e->nrows++] = r;
  r->info.path = strdup(path);
  const char *base = strrchr(path, '/');
  r->info.name = strdup(base ? base + 1 : path); /* replaced by the descriptor's name */
  r->info.description = "";
  r->info.plugin_version = "";
  return r;
}

static void row_fail(struct registry_row *r, int status, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void row_fail(struct registry_row *r, int status, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->info.reason, sizeof r->info.reason, fmt, ap);
  va_end(ap);
  r->info.status = status;
  r->info.sys_errno = err;
  r->info.desc = NULL;
  r->probed = 1;
}

static int valid_name(const char *n) {
  if (!n || !*n || strlen(n) > 64) return 0;
  for (const char *c = n; *c; c++)
    if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_')) return 0;
  return 1;
}

/* Copy a plugin struct into a zeroed host struct: min(their size, ours). */
static void copy_sized(void *dst, size_t dst_size, const void *src, uint32_t src_size) {
  memset(dst, 0, dst_size);
  memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
  ((uint32_t *)dst)[1] = src_size; /* keep THEIR struct_size: ASMSPY_HAS stays truthful */
}

static const struct registry_row *find_row(const struct asmspy_engine *e, const char *name) {
  for (size_t i = 0; i < e->nrows; i++)
    if (e->rows[i]->info.desc && strcmp(e->rows[i]->info.name, name) == 0) return e->rows[i];
  return NULL;
}

static void load_one(struct asmspy_engine *e, const char *path) {
  for (size_t i = 0; i < e->nrows; i++) /* same file reached through two paths */
    if (strcmp(e->rows[i]->info.path, path) == 0) return;
  struct registry_row *r = row_new(e, path);
  if (!r) return;
  r->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!r->dl) {
    const char *why = dlerror();
    row_fail(r, ASMSPY_E_NO_LIB, 0, "unable to open shared library [%s]: %s", path,
             why ? why : "?");
    return;
  }
  asmspy_plugin_entry_fn entry = (asmspy_plugin_entry_fn)dlsym(r->dl, ASMSPY_PLUGIN_ENTRY_NAME);
  if (!entry) {
    row_fail(r, ASMSPY_E_NO_ENTRY, 0, "no entry point [%s] in [%s]", ASMSPY_PLUGIN_ENTRY_NAME,
             path);
    return;
  }
  const struct asmspy_plugin *p = entry(ASMSPY_ABI_VERSION, asmspy_host_api());
  if (!p) {
    row_fail(r, ASMSPY_E_ABI, 0, "plugin refused host ABI %u.%u", ASMSPY_ABI_MAJOR,
             ASMSPY_ABI_MINOR);
    return;
  }
  r->info.abi_version = p->abi_version;
  if (ASMSPY_ABI_MAJOR_OF(p->abi_version) != ASMSPY_ABI_MAJOR) {
    row_fail(r, ASMSPY_E_ABI, 0, "plugin ABI %u.%u, host speaks %u.%u",
             ASMSPY_ABI_MAJOR_OF(p->abi_version), ASMSPY_ABI_MINOR_OF(p->abi_version),
             ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);
    return;
  }
  if (p->struct_size < PLUGIN_SIZE_1_0) {
    row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0, "descriptor struct_size %u < %zu (ABI 1.0 minimum)",
             p->struct_size, (size_t)PLUGIN_SIZE_1_0);
    return;
  }
  copy_sized(&r->desc, sizeof r->desc, p, p->struct_size);
  /* 1.12: the plugin says which host minor it needs at least */
  if (ASMSPY_HAS(&r->desc, min_host_minor) && r->desc.min_host_minor > ASMSPY_ABI_MINOR) {
    row_fail(r, ASMSPY_E_ABI, 0, "plugin needs host ABI %u.%u, host speaks %u.%u", ASMSPY_ABI_MAJOR,
             r->desc.min_host_minor, ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);
    return;
  }
  if (!valid_name(r->desc.name)) {
    row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0, "descriptor name is missing or not [a-z0-9_]+");
    return;
  }
  free((char *)r->info.name);
  r->info.name = strdup(r->desc.name);
  r->info.description = r->desc.description ? r->desc.description : "";
  r->info.kind = r->desc.kind;
  /* 1.1 member: read only when the plugin's struct has it (ASMSPY_HAS looks
   * at the plugin's own struct_size, kept by copy_sized). */
  r->info.plugin_version =
      ASMSPY_HAS(&r->desc, plugin_version) && r->desc.plugin_version ? r->desc.plugin_version : "";
  r->info.caps = r->desc.caps;
  if (r->desc.kind == ASMSPY_KIND_BACKEND) {
    const struct asmspy_backend_ops *b = r->desc.backend;
    if (!b || b->struct_size < BACKEND_OPS_SIZE_1_0 || !b->run) {
      row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0, "backend descriptor lacks backend ops / run()");
      return;
    }
    copy_sized(&r->backend, sizeof r->backend, b, b->struct_size);
    r->desc.backend = &r->backend;
    if (!r->desc.probe) {
      row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0, "backend descriptor lacks probe()");
      return;
    }
  } else if (r->desc.kind == ASMSPY_KIND_VIEW) {
    const struct asmspy_view_ops *v = r->desc.view;
    if (!v || v->struct_size < VIEW_OPS_SIZE_1_0 || !v->mode || !v->open || !v->consume ||
        !v->finish || !v->close) {
      row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0,
               "view descriptor lacks view ops (mode/open/consume/finish/close)");
      return;
    }
    copy_sized(&r->view, sizeof r->view, v, v->struct_size);
    r->desc.view = &r->view;
  } else {
    row_fail(r, ASMSPY_E_BAD_DESCRIPTOR, 0, "descriptor kind %u is neither backend nor view",
             r->desc.kind);
    return;
  }
  if (find_row(e, r->desc.name)) {
    row_fail(r, ASMSPY_E_DUP_NAME, 0, "name '%s' already registered by an earlier plugin",
             r->desc.name);
    return;
  }
  r->info.desc = &r->desc;
  r->info.status = ASMSPY_USABLE;
}

static int path_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect asmspy_*.so files under dir (depth-limited), sorted. */
static void scan_dir(struct asmspy_engine *e, const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **found = NULL;
  size_t nfound = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 3) {
        char **nf = realloc(found, (nfound + 1) * sizeof *nf);
        if (!nf) continue;
        found = nf;
        found[nfound++] = strdup(path); /* sorted with the files, recursed in order */
      }
      continue;
    }
    size_t len = strlen(de->d_name);
    if (!S_ISREG(st.st_mode) || strncmp(de->d_name, "asmspy_", 7) != 0 || len < 4 ||
        strcmp(de->d_name + len - 3, ".so") != 0)
      continue;
    char **nf = realloc(found, (nfound + 1) * sizeof *nf);
    if (!nf) continue;
    found = nf;
    found[nfound++] = strdup(path);
  }
  closedir(d);
  if (nfound > 1) /* found is NULL when nothing matched: qsort(NULL, 0) is UB */
    qsort(found, nfound, sizeof *found, path_cmp);
  for (size_t i = 0; i < nfound; i++) {
    struct stat st;
    if (found[i] && stat(found[i], &st) == 0) {
      if (S_ISDIR(st.st_mode))
        scan_dir(e, found[i], depth + 1);
      else
        load_one(e, found[i]);
    }
    free(found[i]);
  }
  free(found);
}

/* Is libasmspy itself running out of the build tree? */
static int running_from_build_tree(void) {
  Dl_info info;
  if (!dladdr((void *)&asmspy_engine_open, &info) || !info.dli_fname) return 0;
  char real[PATH_MAX], root[PATH_MAX];
  /* libasmspy.a linked into the asmspy command: dladdr names the main
   * program by its argv[0], which is a bare "asmspy" when it was found on
   * PATH; the kernel's /proc/self/exe is the file itself. */
  const char *self = strchr(info.dli_fname, '/') ? info.dli_fname : "/proc/self/exe";
  if (!realpath(self, real) || !realpath(ASMSPY_BUILD_ROOT, root)) return 0;
  size_t n = strlen(root);
  return strncmp(real, root, n) == 0 && real[n] == '/';
}

/* The plugin directory relative to the file this code runs from: the
 * installed libasmspy.so (<libdir>/asmspy/plugins) or, libasmspy.a linked
 * into an installed program, that program (<bindir>/../<libdir>/asmspy/plugins).
 * 1 and the directory in out when it exists. */
static int relative_plugin_dir(char *out, size_t outlen) {
  Dl_info info;
  if (!dladdr((void *)&asmspy_engine_open, &info) || !info.dli_fname) return 0;
  char real[PATH_MAX], exe[PATH_MAX];
  const char *self = strchr(info.dli_fname, '/') ? info.dli_fname : "/proc/self/exe";
  if (!realpath(self, real)) return 0;
  int is_exe = realpath("/proc/self/exe", exe) && strcmp(exe, real) == 0;
  char *slash = strrchr(real, '/');
  if (!slash) return 0;
  *slash = '\0';
  const char *rel = is_exe ? ASMSPY_PLUGIN_DIR_FROM_BINDIR : ASMSPY_PLUGIN_DIR_FROM_LIBDIR;
  int n =
      rel[0] == '/' ? snprintf(out, outlen, "%s", rel) : snprintf(out, outlen, "%s/%s", real, rel);
  struct stat st;
  if (n <= 0 || (size_t)n >= outlen || stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  char clean[PATH_MAX]; /* <bindir>/../lib/...: the plugins' paths read without the detour */
  if (realpath(out, clean) && strlen(clean) < outlen) snprintf(out, outlen, "%s", clean);
  return 1;
}

struct asmspy_engine *asmspy_engine_open(unsigned flags) {
  struct asmspy_engine *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->flags = flags;
  const char *env = getenv("ASMSPY_PLUGIN_PATH");
  if (env && *env) {
    char *copy = strdup(env), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
      scan_dir(e, dir, 0);
    free(copy);
  }
  const char *only = getenv("ASMSPY_PLUGIN_PATH_ONLY");
  if (!(only && strcmp(only, "1") == 0)) {
    if (running_from_build_tree()) scan_dir(e, ASMSPY_BUILD_ROOT "/plugins", 0);
    char rel[PATH_MAX];
    scan_dir(e, relative_plugin_dir(rel, sizeof rel) ? rel : ASMSPY_PLUGIN_DIR, 0);
  }
  if (!(flags & (ASMSPY_ENGINE_NO_PROBE | ASMSPY_ENGINE_LAZY_PROBE)))
    for (size_t i = 0; i < e->nrows; i++) asmspy_probe_plugin(e, &e->rows[i]->info);
  return e;
}

void asmspy_probe_plugin(struct asmspy_engine *e, struct asmspy_plugin_info *info) {
  struct registry_row *r = (struct registry_row *)info; /* info is the row's first member */
  (void)e;
  if (r->probed || !r->info.desc) return;
  r->probed = 1;
  if (!r->desc.probe) { /* views may omit probe(): nothing to test */
    r->info.status = ASMSPY_USABLE;
    snprintf(r->info.reason, sizeof r->info.reason, "no probe needed");
    return;
  }
  struct asmspy_probe_result res;
  probe_isolated(&r->desc, asmspy_host_api(), probe_timeout_ms(), &res);
  r->info.status = res.status;
  r->info.sys_errno = res.sys_errno;
  snprintf(r->info.reason, sizeof r->info.reason, "%s", res.reason);
}

void asmspy_engine_close(struct asmspy_engine *e) {
  if (!e) return;
  for (size_t i = 0; i < e->nrows; i++) {
    free((char *)e->rows[i]->info.path);
    free((char *)e->rows[i]->info.name);
    /* dlclose deliberately skipped: a plugin may have registered atexit or
     * thread-local destructors; unloading it under them is how hosts crash
     * at exit (SQLite's SQLITE_OK_LOAD_PERMANENTLY exists for this). */
    free(e->rows[i]);
  }
  free(e->rows);
  free(e);
}

size_t asmspy_plugin_count(const struct asmspy_engine *e) { return e->nrows; }

const struct asmspy_plugin_info *asmspy_plugin_at(const struct asmspy_engine *e, size_t i) {
  return i < e->nrows ? &e->rows[i]->info : NULL;
}

const struct asmspy_plugin_info *asmspy_find_plugin(const struct asmspy_engine *e, uint32_t kind,
                                                    const char *name) {
  for (size_t i = 0; i < e->nrows; i++) {
    const struct asmspy_plugin_info *in = &e->rows[i]->info;
    if (in->desc && strcmp(in->name, name) == 0 && (!kind || in->kind == kind)) return in;
  }
  return NULL;
}

const struct asmspy_plugin_info *asmspy_find_view_for_mode(const struct asmspy_engine *e,
                                                           const char *mode) {
  for (size_t i = 0; i < e->nrows; i++) {
    const struct asmspy_plugin_info *in = &e->rows[i]->info;
    if (in->desc && in->kind == ASMSPY_KIND_VIEW && strcmp(in->desc->view->mode, mode) == 0)
      return in;
  }
  return NULL;
}
