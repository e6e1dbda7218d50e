/* --serve=<path>: the unix socket, reachable by its owner only.
 *
 * Whoever can talk to the server can ptrace everything its owner can, so:
 *   - the socket is created with mode 0600 (umask 0177 around bind(), so it
 *     never exists with wider permissions, not even for an instant);
 *   - in a directory that others can write (/tmp), a socket there could be
 *     deleted and replaced by another user's (sticky bit or not, a
 *     group-writable directory allows it), so the socket goes into a private
 *     directory beside it, <dir>/asmspy-<uid>/<name>, created 0700 and
 *     checked to be ours, a real directory and 0700 before use (tmux's
 *     /tmp/tmux-<uid> discipline); the real path is printed on stderr;
 *   - an existing file at the path is never clobbered: a non-socket is
 *     refused, a socket with a live server behind it is refused, and only a
 *     stale socket of our own (connect() refused) is replaced;
 *   - each peer's uid is read with SO_PEERCRED at accept(): a uid other
 *     than the server's is refused with an err line and disconnected (a peer
 *     that reached a 0600 socket of another user is root or was handed the
 *     descriptor, and still gets no session). */
#define _GNU_SOURCE
#include "cli/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Copy path into sa's sun_path. Returns 0, or -1 (nothing copied) when it
 * does not fit with its terminating NUL: a socket path is never cut. */
static int set_sun_path(struct sockaddr_un *sa, const char *path) {
  size_t n = strlen(path);
  if (n >= sizeof sa->sun_path) return -1;
  memcpy(sa->sun_path, path, n + 1);
  return 0;
}

int serve_peer_uid(int fd, uid_t *uid, pid_t *pid) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  *uid = cred.uid;
  if (pid) *pid = cred.pid;
  return 0;
}

/* dir is writable by someone other than its owner, or owned by another
 * user (who could replace what we put there). */
static int dir_is_shared(const struct stat *st) {
  return (st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_uid != geteuid() && st->st_uid != 0);
}

/* A private directory inside a shared one: created 0700, or an existing one
 * that is a real directory (not a symlink), ours, and 0700. */
static int private_dir(const char *parent, char *out, size_t cap, char *err, size_t errcap) {
  int n = snprintf(out, cap, "%s/asmspy-%u", parent, (unsigned)geteuid());
  if (n < 0 || (size_t)n >= cap) {
    snprintf(err, errcap, "socket directory path too long");
    return -1;
  }
  if (mkdir(out, 0700) != 0 && errno != EEXIST) {
    snprintf(err, errcap, "cannot create the private directory %s: %s", out, strerror(errno));
    return -1;
  }
  struct stat st;
  if (lstat(out, &st) != 0) {
    snprintf(err, errcap, "%s: %s", out, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
    snprintf(err, errcap,
             "%s exists but is not a private directory of uid %u (a %s, owner %u, mode %03o): "
             "refusing to put the socket there",
             out, (unsigned)geteuid(),
             S_ISLNK(st.st_mode)   ? "symlink"
             : S_ISDIR(st.st_mode) ? "directory"
                                   : "file",
             (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
    return -1;
  }
  return 0;
}

/* Something exists at path: replace it only if it is a stale socket of ours. */
static int clear_existing(const char *path, const struct stat *st, char *err, size_t errcap) {
  if (!S_ISSOCK(st->st_mode)) {
    snprintf(err, errcap, "%s exists and is not a socket: refusing to replace it", path);
    return -1;
  }
  if (st->st_uid != geteuid()) {
    snprintf(err, errcap, "%s is a socket of uid %u: refusing to replace it", path,
             (unsigned)st->st_uid);
    return -1;
  }
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (set_sun_path(&sa, path) != 0) {
    snprintf(err, errcap, "%s: longer than %zu bytes (sun_path): refusing", path,
             sizeof sa.sun_path - 1);
    return -1;
  }
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int live = probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0;
  int e = errno;
  if (probe >= 0) close(probe);
  if (live) {
    snprintf(err, errcap, "%s: another server is listening there", path);
    return -1;
  }
  if (e != ECONNREFUSED) {
    snprintf(err, errcap, "%s: cannot tell whether a server listens there (%s): refusing", path,
             strerror(e));
    return -1;
  }
  if (unlink(path) != 0) {
    snprintf(err, errcap, "cannot remove the stale socket %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

int serve_socket_open(const char *path, struct serve_socket *ss, char *err, size_t errcap) {
  memset(ss, 0, sizeof *ss);
  ss->fd = -1;
  if (!path || !*path) {
    snprintf(err, errcap, "--serve= needs a socket path");
    return -1;
  }
  char dbuf[PATH_MAX], bbuf[PATH_MAX];
  int pn = snprintf(dbuf, sizeof dbuf, "%s", path);
  if (pn < 0 || (size_t)pn >= sizeof dbuf) {
    snprintf(err, errcap, "--serve=<path>: the path is longer than %zu bytes", sizeof dbuf - 1);
    return -1;
  }
  memcpy(bbuf, dbuf, (size_t)pn + 1);
  const char *dir = dirname(dbuf), *base = basename(bbuf);
  if (!*base || !strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, "..")) {
    snprintf(err, errcap, "--serve=%s: not a file name", path);
    return -1;
  }
  struct stat dst;
  if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
    snprintf(err, errcap, "--serve=%s: %s is not a directory", path, dir);
    return -1;
  }
  char where[PATH_MAX];
  if (dir_is_shared(&dst)) {
    char priv[PATH_MAX];
    if (private_dir(dir, priv, sizeof priv, err, errcap) != 0) return -1;
    int n = snprintf(where, sizeof where, "%s/%s", priv, base);
    if (n < 0 || (size_t)n >= sizeof where) {
      snprintf(err, errcap, "socket path too long");
      return -1;
    }
  } else {
    memcpy(where, path, (size_t)pn + 1); /* pn < PATH_MAX: checked above */
  }
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(where) >= sizeof ss->path || set_sun_path(&sa, where) != 0) {
    snprintf(err, errcap, "socket path %s is longer than %zu bytes (sun_path)", where,
             sizeof ss->path - 1);
    return -1;
  }
  struct stat st;
  if (lstat(where, &st) == 0 && clear_existing(where, &st, err, errcap) != 0) return -1;

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(err, errcap, "socket: %s", strerror(errno));
    return -1;
  }
  mode_t old = umask(0177); /* the socket file is born 0600 */
  int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
  int e = errno;
  umask(old);
  if (rc != 0) {
    snprintf(err, errcap, "bind %s: %s", where, strerror(e));
    close(fd);
    return -1;
  }
  if (lstat(where, &st) != 0 || chmod(where, 0600) != 0 || listen(fd, 4) != 0) {
    snprintf(err, errcap, "%s: %s", where, strerror(errno));
    unlink(where);
    close(fd);
    return -1;
  }
  ss->fd = fd;
  ss->dev = st.st_dev;
  ss->ino = st.st_ino;
  memcpy(ss->path, sa.sun_path, sizeof ss->path); /* checked to fit above */
  return 0;
}

void serve_socket_close(struct serve_socket *ss) {
  if (ss->fd < 0) return;
  close(ss->fd);
  ss->fd = -1;
  struct stat st;
  if (lstat(ss->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == ss->dev &&
      st.st_ino == ss->ino)
    unlink(ss->path);
}
