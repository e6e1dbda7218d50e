/* undo_journal.c: see undo_journal.h. */
#define _GNU_SOURCE
#include "host/undo_journal.h"
#include "host/host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define UNDO_BYTES_MAX 32

struct undo_entry {
  int32_t pid; /* 0: a free slot */
  uint32_t len;
  uint64_t addr;
  uint8_t old_bytes[UNDO_BYTES_MAX];
  uint8_t new_bytes[UNDO_BYTES_MAX];
};

struct undo_journal {
  uint64_t magic;
  uint32_t cap, n; /* slots, slots ever used (a high-water mark) */
  struct undo_entry e[];
};

#define UNDO_MAGIC 0x6f646e7579707361ull /* "aspyundo" */

/* Set in the supervisor before the fork; the tracer inherits the mapping. */
static struct undo_journal *journal;

int undo_journal_create(size_t bytes) {
  if (journal) return 0;
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return -errno;
  journal = m;
  journal->magic = UNDO_MAGIC;
  journal->cap = (uint32_t)((bytes - sizeof *journal) / sizeof(struct undo_entry));
  journal->n = 0;
  return 0;
}

int undo_push(struct asmspy_target *t, uint64_t addr, const void *old_bytes, const void *new_bytes,
              size_t len) {
  if (!journal || !t) return 0;
  if (len > UNDO_BYTES_MAX) return -EINVAL;
  struct undo_entry *e = NULL;
  for (uint32_t i = 0; i < journal->n && !e; i++)
    if (!journal->e[i].pid) e = &journal->e[i];
  if (!e) {
    if (journal->n == journal->cap) return -ENOSPC;
    e = &journal->e[journal->n];
  }
  e->addr = addr;
  e->len = (uint32_t)len;
  memcpy(e->old_bytes, old_bytes, len);
  memcpy(e->new_bytes, new_bytes, len);
  __atomic_store_n(&e->pid, (int32_t)target_pid(t), __ATOMIC_RELEASE); /* complete: valid */
  if (e == &journal->e[journal->n]) __atomic_store_n(&journal->n, journal->n + 1, __ATOMIC_RELEASE);
  return 0;
}

void undo_clear(struct asmspy_target *t) {
  if (!journal || !t) return;
  pid_t pid = target_pid(t);
  for (uint32_t i = 0; i < journal->n; i++)
    if (journal->e[i].pid == pid) __atomic_store_n(&journal->e[i].pid, 0, __ATOMIC_RELEASE);
}

/* Every entry of pid, restored while all its threads are stopped. */
static int replay_pid(pid_t pid) {
  int err = 0;
  struct asmspy_target *t = target_open(pid, &err);
  if (!t) return 0; /* gone: nothing left to restore */
  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "undo";
  s.pid = pid;
  s.target = t;
  struct asmspy_seam *sm = NULL;
  int restored = 0;
  if (seam_api.attach(&s, &sm) == 0) {
    for (uint32_t i = 0; i < journal->n; i++) {
      struct undo_entry *e = &journal->e[i];
      if (e->pid != pid) continue;
      uint8_t now[UNDO_BYTES_MAX];
      if (target_read_mem(t, e->addr, now, e->len) == (ssize_t)e->len &&
          memcmp(now, e->new_bytes, e->len) == 0 &&
          target_write_mem(t, e->addr, e->old_bytes, e->len) == (ssize_t)e->len)
        restored++;
      e->pid = 0;
    }
    seam_api.detach(sm);
  }
  target_close(t);
  if (restored)
    fprintf(stderr, "asmspy: the tracer died mid-session: put back %d patched place(s) in pid %d\n",
            restored, (int)pid);
  return restored;
}

int undo_journal_replay(void) {
  if (!journal) return 0;
  int total = 0;
  for (uint32_t i = 0; i < journal->n; i++)
    if (journal->e[i].pid) total += replay_pid(journal->e[i].pid);
  return total;
}
