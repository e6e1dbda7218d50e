/* scope_file.c — where a scope's listing file goes, and writing it safely.
 *
 * A scope writes its listing to a file only when asked (docs/scope.md):
 *   ASMSPY_SCOPE_FILE unset, "" or "0"  no file (asmspy_scope_path is "")
 *   ASMSPY_SCOPE_FILE=1                  a private directory: $XDG_RUNTIME_DIR/asmspy
 *                                        (0700, ours), else one mkdtemp directory
 *                                        per process under $TMPDIR (or /tmp)
 *   ASMSPY_SCOPE_FILE=<dir>              that directory, named by the user
 * The file itself is asmspy-scope-<name>-<pid>.txt there. Why so careful: the
 * old fopen("/tmp/asmspy-scope-...", "w") followed a symlink another user
 * planted (a root-run scope overwrote a root-owned 0600 file), and every
 * scope left a file behind (issue 24). So the text goes to a fresh file
 * opened O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, which is then renamed over
 * the final name: rename replaces a planted symlink instead of following it,
 * a reader never sees half a listing, and in a sticky shared directory
 * another user's file is never replaced (EPERM: no file, path ""). */
#define _GNU_SOURCE
#include "host/scope_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_dir_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_private[512]; /* the private directory, made once per process */

/* dir exists, is a real directory (not a symlink), ours, and closed to
 * group and others. */
static int private_dir_ok(const char *dir) {
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & 077) == 0;
}

/* Under g_dir_lock: $XDG_RUNTIME_DIR/asmspy, else a mkdtemp directory. */
static const char *private_dir(void) {
  if (g_private[0]) return g_private;
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  if (xdg && xdg[0] == '/') {
    char d[512];
    snprintf(d, sizeof d, "%s/asmspy", xdg);
    if ((mkdir(d, 0700) == 0 || errno == EEXIST) && private_dir_ok(d)) {
      snprintf(g_private, sizeof g_private, "%s", d);
      return g_private;
    }
  }
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  char t[512];
  snprintf(t, sizeof t, "%s/asmspy-scope.XXXXXX", tmp);
  if (!mkdtemp(t)) return NULL; /* mkdtemp: mode 0700, a new name */
  snprintf(g_private, sizeof g_private, "%s", t);
  return g_private;
}

int scope_file_path(const char *clean_name, char *out, size_t cap) {
  out[0] = 0;
  const char *want = getenv("ASMSPY_SCOPE_FILE");
  if (!want || !*want || !strcmp(want, "0")) return 0;
  const char *dir = want;
  pthread_mutex_lock(&g_dir_lock);
  if (!strcmp(want, "1")) dir = private_dir();
  if (dir) snprintf(out, cap, "%s/asmspy-scope-%s-%d.txt", dir, clean_name, (int)getpid());
  pthread_mutex_unlock(&g_dir_lock);
  return out[0] ? 1 : 0;
}

int scope_file_write(const char *path, const char *text) {
  char tmp[600];
  int fd = -1;
  static unsigned seq;
  for (int tries = 0; tries < 8 && fd < 0; tries++) {
    unsigned r = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL) ^
                 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED) * 40503u;
    snprintf(tmp, sizeof tmp, "%s.%08x", path, r);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return -errno;
  }
  if (fd < 0) return -EEXIST;
  size_t len = strlen(text), done = 0;
  while (done < len) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += (size_t)w;
  }
  int ok = done == len && close(fd) == 0;
  if (!ok || rename(tmp, path) != 0) {
    int e = errno ? errno : EIO;
    unlink(tmp);
    return -e;
  }
  return 0;
}
