/* test_scope_file: a scope's listing file is written only when asked for,
 * and never through a symlink someone planted (issue 24, item 5).
 *
 *   1. no ASMSPY_SCOPE_FILE: no file at all (asmspy_scope_path is ""); the
 *      old default, $TMPDIR/asmspy-scope-<name>-<pid>.txt, stays absent;
 *   2. a symlink planted at that old default name AND at the name inside the
 *      directory ASMSPY_SCOPE_FILE names, both pointing at a 0600 "precious"
 *      file: the precious file is untouched, the listing is a regular 0600
 *      file of its own;
 *   3. ASMSPY_SCOPE_FILE=1: the listing lands in a private (0700, ours)
 *      directory, mode 0600, and says what ran.
 * Each scope is a small region scope over a local function: bounded work. */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    if (c) {                                                                                       \
      printf("ok: ");                                                                              \
    } else {                                                                                       \
      printf("FAIL: ");                                                                            \
      failures++;                                                                                  \
    }                                                                                              \
    printf(__VA_ARGS__);                                                                           \
    printf("\n");                                                                                  \
  } while (0)

__attribute__((noinline)) static long sum(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += i;
  return s;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* One quiet region scope named name over sum(); returns its path (copied). */
static const char *run_scope(const char *name, long *result) {
  static char path[1024];
  asmspy_scope *s = asmspy_scope_begin(name, (const void *)sum, 0, ASMSPY_SCOPE_QUIET);
  *result = sum(20);
  asmspy_scope_end(s);
  snprintf(path, sizeof path, "%s", asmspy_scope_path(s));
  asmspy_scope_free(s);
  return path;
}

int main(void) {
  char base[] = "/tmp/asmspy-scope-file-test.XXXXXX";
  if (!mkdtemp(base)) return 99;
  char tmpdir[600], named[600], precious[600];
  snprintf(tmpdir, sizeof tmpdir, "%s/tmpdir", base);
  snprintf(named, sizeof named, "%s/named", base);
  snprintf(precious, sizeof precious, "%s/precious", base);
  if (mkdir(tmpdir, 0700) || mkdir(named, 0700)) return 99;
  FILE *pf = fopen(precious, "w");
  if (!pf) return 99;
  fputs("precious\n", pf);
  fclose(pf);
  chmod(precious, 0600);
  setenv("TMPDIR", tmpdir, 1);
  unsetenv("XDG_RUNTIME_DIR");
  unsetenv("ASMSPY_SCOPE_FILE");
  long r = 0;

  /* 1. not asked for: no file */
  const char *p = run_scope("nofile", &r);
  CHECK(r == 190, "sum(20) computed right under the scope (%ld)", r);
  CHECK(p[0] == 0, "no ASMSPY_SCOPE_FILE: asmspy_scope_path is empty ('%s')", p);
  CHECK(dir_entries(tmpdir) == 0, "no ASMSPY_SCOPE_FILE: nothing written to $TMPDIR (%d entries)",
        dir_entries(tmpdir));

  /* 2. planted symlinks, at the old default name and in the named directory */
  char old_link[800], new_link[800];
  snprintf(old_link, sizeof old_link, "%s/asmspy-scope-planted-%d.txt", tmpdir, (int)getpid());
  snprintf(new_link, sizeof new_link, "%s/asmspy-scope-planted-%d.txt", named, (int)getpid());
  if (symlink(precious, old_link) || symlink(precious, new_link)) return 99;
  setenv("ASMSPY_SCOPE_FILE", named, 1);
  p = run_scope("planted", &r);
  const char *body = slurp(precious);
  CHECK(body && !strcmp(body, "precious\n"), "the file behind the planted symlinks is untouched");
  struct stat st;
  CHECK(p[0] && !strcmp(p, new_link),
        "ASMSPY_SCOPE_FILE=<dir>: the listing is named in that dir (%s)", p);
  CHECK(p[0] && lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
        "the listing replaced the symlink with a regular 0600 file");
  body = p[0] ? slurp(p) : NULL;
  CHECK(body && strstr(body, "# scope planted:"), "the listing says what ran");

  /* 3. ASMSPY_SCOPE_FILE=1: a private directory */
  setenv("ASMSPY_SCOPE_FILE", "1", 1);
  p = run_scope("private", &r);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", p);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  struct stat ds;
  CHECK(p[0] && lstat(dir, &ds) == 0 && S_ISDIR(ds.st_mode) && (ds.st_mode & 0777) == 0700 &&
            ds.st_uid == geteuid(),
        "ASMSPY_SCOPE_FILE=1: a private 0700 directory of ours (%s)", dir);
  CHECK(p[0] && lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
        "ASMSPY_SCOPE_FILE=1: the listing is a 0600 file (%s)", p);
  body = p[0] ? slurp(p) : NULL;
  CHECK(body && strstr(body, "# scope private:"), "ASMSPY_SCOPE_FILE=1: the listing says what ran");

  if (p[0]) {
    unlink(p);
    rmdir(dir);
  }
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  if (system(cmd) != 0) printf("note: could not remove %s\n", base);
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
  return failures ? 1 : 0;
}
