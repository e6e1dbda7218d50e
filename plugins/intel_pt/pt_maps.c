/* pt_maps — parse /proc/<pid>/maps; build address-filter strings. See pt_maps.h.
 *
 * Line format (fs/proc/task_mmu.c show_map_vma):
 *   "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " then padding, then the path
 * (which may contain spaces, and ends in " (deleted)" once unlinked). */
#define _GNU_SOURCE
#include "plugins/intel_pt/pt_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_line(const char *line, size_t len, struct ptm_map *m) {
  char buf[4352];
  if (len >= sizeof buf) return -1;
  memcpy(buf, line, len);
  buf[len] = '\0';
  unsigned long long start, end, off, ino;
  unsigned maj, min;
  char perms[5];
  int pos = 0;
  if (sscanf(buf, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, perms, &off, &maj, &min, &ino,
             &pos) != 7)
    return -1;
  if (end <= start || strlen(perms) != 4) return -1;
  const char *p = buf + pos;
  while (*p == ' ' || *p == '\t') p++;
  memset(m, 0, sizeof *m);
  m->start = start;
  m->end = end;
  m->offset = off;
  m->dev_major = maj;
  m->dev_minor = min;
  m->inode = ino;
  m->prot = (perms[0] == 'r' ? PTM_READ : 0) | (perms[1] == 'w' ? PTM_WRITE : 0) |
            (perms[2] == 'x' ? PTM_EXEC : 0);
  m->path = strdup(p);
  return m->path ? 0 : -ENOMEM;
}

int ptm_parse(const char *text, struct ptm_maps *out) {
  memset(out, 0, sizeof *out);
  size_t cap = 0;
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    struct ptm_map m;
    int rc = parse_line(line, len, &m);
    if (rc == -ENOMEM) {
      ptm_free(out);
      return -ENOMEM;
    }
    if (rc == 0) {
      if (out->n == cap) {
        size_t nc = cap ? 2 * cap : 64;
        struct ptm_map *nv = realloc(out->v, nc * sizeof *nv);
        if (!nv) {
          free(m.path);
          ptm_free(out);
          return -ENOMEM;
        }
        out->v = nv;
        cap = nc;
      }
      out->v[out->n++] = m;
    }
    line = nl ? nl + 1 : NULL;
  }
  return 0;
}

int ptm_read(const char *maps_path, struct ptm_maps *out) {
  memset(out, 0, sizeof *out);
  int fd = open(maps_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  if (!text) {
    close(fd);
    return -ENOMEM;
  }
  for (;;) {
    if (len + 4096 + 1 > cap) {
      char *nt = realloc(text, cap * 2);
      if (!nt) {
        free(text);
        close(fd);
        return -ENOMEM;
      }
      text = nt;
      cap *= 2;
    }
    ssize_t r = read(fd, text + len, cap - len - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      free(text);
      close(fd);
      return -e;
    }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  text[len] = '\0';
  int rc = ptm_parse(text, out);
  free(text);
  return rc;
}

void ptm_free(struct ptm_maps *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) free(m->v[i].path);
  free(m->v);
  m->v = NULL;
  m->n = 0;
}

const struct ptm_map *ptm_find(const struct ptm_maps *m, uint64_t addr) {
  for (size_t i = 0; i < m->n; i++)
    if (addr >= m->v[i].start && addr < m->v[i].end) return &m->v[i];
  return NULL;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int ptm_is_file_backed(const struct ptm_map *m) {
  if (!m->path || m->path[0] != '/' || m->inode == 0 || ends_with(m->path, " (deleted)")) return 0;
  struct stat st;
  /* Another mount namespace (a container) may show a different file under
   * the same path: only the same inode is the same code. */
  if (stat(m->path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != m->inode) return 0;
  return 1;
}

/* The filter grammar splits on whitespace and ',' (kernel/events/core.c
 * perf_event_parse_addr_filter: strsep(" ,\n")). */
static int path_fits_grammar(const char *p) {
  for (; *p; p++)
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',') return 0;
  return 1;
}

int ptm_filter_string(const struct ptm_maps *m, uint64_t start, uint64_t len, char *buf,
                      size_t cap) {
  if (len == 0 || start + len < start || !buf || cap == 0) return -EINVAL;
  const struct ptm_map *mp = m ? ptm_find(m, start) : NULL;
  int n;
  int file_form =
      mp && start + len <= mp->end && ptm_is_file_backed(mp) && path_fits_grammar(mp->path);
  if (file_form)
    n = snprintf(buf, cap, "filter 0x%" PRIx64 "/0x%" PRIx64 "@%s", start - mp->start + mp->offset,
                 len, mp->path);
  else
    n = snprintf(buf, cap, "filter 0x%" PRIx64 "/0x%" PRIx64, start, len);
  if (n < 0 || (size_t)n >= cap) return -EINVAL;
  return file_form;
}
