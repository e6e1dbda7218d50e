/* The scripted seam (see fake_seam.h). */
#include "fake_seam.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct fake_seam fs;
struct asmspy_seam {
  int unused;
};
static struct asmspy_seam the_seam;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!fs.violations) vsnprintf(fs.violation, sizeof fs.violation, fmt, ap);
  va_end(ap);
  fs.violations++;
}

void fs_reset(void) { memset(&fs, 0, sizeof fs); }

struct fs_task *fs_task(pid_t tid) {
  for (int i = 0; i < FS_MAX_TASKS; i++)
    if (fs.tasks[i].exists && fs.tasks[i].tid == tid) return &fs.tasks[i];
  return NULL;
}

struct fs_task *fs_add_task(pid_t tid, int stopped) {
  for (int i = 0; i < FS_MAX_TASKS; i++)
    if (!fs.tasks[i].exists) {
      struct fs_task *t = &fs.tasks[i];
      memset(t, 0, sizeof *t);
      t->exists = 1;
      t->tid = tid;
      t->stopped = stopped;
      t->watch.dbg_info = 0x0604; /* debug arch 6 (v8), 4 watchpoint slots */
      t->last_resume_sig = -1;
      return t;
    }
  return NULL;
}

void fs_push(struct fs_entry e) {
  if (fs.nscript < FS_MAX_SCRIPT) fs.script[fs.nscript++] = e;
}

static void log_add(struct fs_log l) {
  if (fs.nlog < FS_MAX_LOG) fs.log[fs.nlog++] = l;
}

static struct fs_task *stopped_task(pid_t tid, const char *op) {
  struct fs_task *t = fs_task(tid);
  if (!t) return NULL;
  if (!t->stopped) {
    violation("%s on running tid %d", op, (int)tid);
    return NULL;
  }
  return t;
}

static int f_attach(const struct asmspy_session *s, struct asmspy_seam **out) {
  fs.session = s;
  fs.attached++;
  *out = &the_seam;
  return 0;
}

static void fill_stop(struct asmspy_stop *st, uint32_t kind, pid_t tid) {
  uint32_t size = st->struct_size;
  memset(st, 0, sizeof *st);
  st->abi_version = ASMSPY_ABI_VERSION;
  st->struct_size = size;
  st->kind = kind;
  st->tid = tid;
  st->pid = fs.tasks[0].tid;
  uint32_t n = 0;
  for (int i = 0; i < FS_MAX_TASKS; i++) n += fs.tasks[i].exists;
  st->nthreads = n;
}

static int f_next_stop_impl(struct asmspy_stop *st, int allow_timeout) {
  if (fs.session && fs.session->stop && *fs.session->stop) {
    fill_stop(st, ASMSPY_STOP_INTERRUPTED, 0);
    return 0;
  }
  if (fs.next < fs.nscript) {
    struct fs_entry *e = &fs.script[fs.next++];
    struct fs_task *t = fs_task(e->tid);
    if (!t) {
      violation("script stop for unknown tid %d", (int)e->tid);
      fill_stop(st, ASMSPY_STOP_NONE, 0);
      return 0;
    }
    if (t->stopped && !e->queued)
      violation("scripted stop %zu for tid %d, which the tracer never resumed", fs.next,
                (int)e->tid);
    if (e->kind == ASMSPY_STOP_STEP && !t->stepped)
      violation("STEP stop for tid %d, which was not stepped", (int)e->tid);
    t->stopped = 1;
    t->stepped = 0;
    log_add((struct fs_log){.what = 'S', .tid = e->tid});
    if (e->set_dr6) t->dr[6] = e->dr6;
    if (e->set_mem) fs.mem = e->mem;
    if (e->set_ip) t->ip = e->ip;
    fill_stop(st, e->kind, e->tid);
    st->sig = e->sig;
    st->si_code = e->si_code;
    st->new_tid = e->new_tid;
    if (e->kind == ASMSPY_STOP_NEW_TASK && !fs_task(e->new_tid)) {
      /* born running, its first stop comes later; like the kernel's clone
       * it inherits the parent's DR7 value but no breakpoint (DR0-3 = 0) */
      struct fs_task *child = fs_add_task(e->new_tid, 0);
      t = fs_task(e->tid);
      if (child && t) child->dr[7] = t->dr[7];
    }
    if (e->kind == ASMSPY_STOP_EXITED) t->exists = 0;
    return 0;
  }
  for (int i = 0; i < FS_MAX_TASKS; i++) {
    struct fs_task *t = &fs.tasks[i];
    if (t->exists && t->interrupt_pending) {
      t->interrupt_pending = 0;
      t->stopped = 1;
      t->stepped = 0;
      fill_stop(st, ASMSPY_STOP_GROUP, t->tid);
      return 0;
    }
  }
  fill_stop(st, allow_timeout ? ASMSPY_STOP_TIMEOUT : ASMSPY_STOP_NONE, 0);
  return 0;
}

static int f_next_stop(struct asmspy_seam *sm, struct asmspy_stop *st) {
  (void)sm;
  return f_next_stop_impl(st, 0);
}

static int f_next_stop_timeout(struct asmspy_seam *sm, struct asmspy_stop *st, int64_t ms) {
  (void)sm;
  (void)ms;
  return f_next_stop_impl(st, 1);
}

static int do_resume(pid_t tid, int sig, int step) {
  struct fs_task *t = stopped_task(tid, step ? "step" : "resume");
  if (!t) return -ESRCH;
  t->stopped = 0;
  t->stepped = step;
  t->last_resume_sig = sig;
  log_add((struct fs_log){.what = step ? 't' : 'r', .tid = tid, .val = (uint64_t)sig});
  return 0;
}

static int f_step(struct asmspy_seam *sm, pid_t tid, int sig) {
  (void)sm;
  return do_resume(tid, sig, 1);
}

static int f_resume(struct asmspy_seam *sm, pid_t tid, int sig) {
  (void)sm;
  return do_resume(tid, sig, 0);
}

static int f_get_regs(struct asmspy_seam *sm, pid_t tid, struct asmspy_regs *regs) {
  (void)sm;
  struct fs_task *t = stopped_task(tid, "get_regs");
  if (!t) return -ESRCH;
  regs->ip = t->ip;
  return 0;
}

static int f_detach(struct asmspy_seam *sm) {
  (void)sm;
  fs.detached++;
  for (int i = 0; i < FS_MAX_TASKS; i++) {
    struct fs_task *t = &fs.tasks[i];
    if (!t->exists) continue;
    int armed = (t->dr[7] & 0xff) != 0;
    for (int s = 0; s < 4; s++) armed |= (t->watch.dbg_regs[s].ctrl & 1u) != 0;
    fs.armed_at_detach += armed;
  }
  log_add((struct fs_log){.what = 'd'});
  return 0;
}

static int f_interrupt_all(struct asmspy_seam *sm, pid_t except) {
  (void)sm;
  for (int i = 0; i < FS_MAX_TASKS; i++) {
    struct fs_task *t = &fs.tasks[i];
    if (t->exists && !t->stopped && t->tid != except) t->interrupt_pending = 1;
  }
  return 0;
}

static int f_peek_user(struct asmspy_seam *sm, pid_t tid, uint64_t off, uint64_t *v) {
  (void)sm;
  struct fs_task *t = stopped_task(tid, "peek_user");
  if (!t) return -ESRCH;
  if (off < HW_X86_DEBUGREG_OFFSET || off >= HW_X86_DEBUGREG_OFFSET + 64 || off % 8) return -EIO;
  *v = t->dr[(off - HW_X86_DEBUGREG_OFFSET) / 8];
  return 0;
}

static int f_poke_user(struct asmspy_seam *sm, pid_t tid, uint64_t off, uint64_t v) {
  (void)sm;
  struct fs_task *t = stopped_task(tid, "poke_user");
  if (!t) return -ESRCH;
  if (off < HW_X86_DEBUGREG_OFFSET || off >= HW_X86_DEBUGREG_OFFSET + 64 || off % 8) return -EIO;
  unsigned i = (unsigned)((off - HW_X86_DEBUGREG_OFFSET) / 8);
  log_add((struct fs_log){.what = 'p', .tid = tid, .off = off, .val = v});
  if (i == 7 && fs.refuse_dr7 && v != 0) return fs.refuse_dr7;
  t->dr[i] = v;
  return 0;
}

static int f_get_regset(struct asmspy_seam *sm, pid_t tid, uint32_t nt, void *buf, size_t *len) {
  (void)sm;
  struct fs_task *t = stopped_task(tid, "get_regset");
  if (!t) return -ESRCH;
  if (nt != HW_ARM64_NT_HW_WATCH) return -EINVAL;
  size_t n = *len < sizeof t->watch ? *len : sizeof t->watch;
  memcpy(buf, &t->watch, n);
  *len = n;
  return 0;
}

static int f_set_regset(struct asmspy_seam *sm, pid_t tid, uint32_t nt, const void *buf,
                        size_t len) {
  (void)sm;
  struct fs_task *t = stopped_task(tid, "set_regset");
  if (!t) return -ESRCH;
  if (nt != HW_ARM64_NT_HW_WATCH || len > sizeof t->watch || len < 8) return -EINVAL;
  uint32_t info = t->watch.dbg_info; /* read-only for the tracer */
  memcpy(&t->watch, buf, len);
  t->watch.dbg_info = info;
  log_add((struct fs_log){.what = 's',
                          .tid = tid,
                          .off = len,
                          .ctrl0 = t->watch.dbg_regs[0].ctrl,
                          .addr0 = t->watch.dbg_regs[0].addr});
  return 0;
}

static uint32_t f_list_threads(struct asmspy_seam *sm, pid_t *tids, uint32_t cap) {
  (void)sm;
  uint32_t n = 0;
  for (int i = 0; i < FS_MAX_TASKS && n < cap; i++)
    if (fs.tasks[i].exists) tids[n++] = fs.tasks[i].tid;
  return n;
}

const struct asmspy_seam_api fake_seam_api = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_seam_api),
    .attach = f_attach,
    .next_stop = f_next_stop,
    .step = f_step,
    .resume = f_resume,
    .get_regs = f_get_regs,
    .detach = f_detach,
    .next_stop_timeout = f_next_stop_timeout,
    .interrupt_all = f_interrupt_all,
    .peek_user = f_peek_user,
    .poke_user = f_poke_user,
    .get_regset = f_get_regset,
    .set_regset = f_set_regset,
    .list_threads = f_list_threads,
};
