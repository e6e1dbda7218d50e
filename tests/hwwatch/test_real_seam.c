/* test_real_seam — the hwwatch backend against a live process and the real
 * ptrace seam (x86-64). Debug registers never FIRE on this project's
 * machines, but the kernel still validates and stores what we write, so
 * this proves, on the real kernel, what the fake-seam test proves against a
 * script:
 *   - host->resolve_data finds victim_watch's `counter`;
 *   - run() arms DR0 = &counter, DR7 = 0xd0001 in every thread, accepted by
 *     the kernel (ptrace_write_dr7 registers a perf hw_breakpoint), including
 *     the worker born during the watch (a NEW_TASK stop of the real seam);
 *   - Ctrl-C (the stop flag, raised once that fourth thread is armed) ends the
 *     run cleanly, and detach leaves DR7 = DR0 = 0 in every thread — checked
 *     by attaching again with raw ptrace and reading them back;
 *   - the victim keeps running, untraced.
 * Where watchpoints do fire, hits simply arrive as events meanwhile (each
 * one a WATCH stop the seam swallows: the victim must not die of it).
 * A 60 s alarm guards a hang. Exit 0 pass, 1 fail, 77 not x86-64. */
#define _GNU_SOURCE
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"
#include "plugins/hwwatch/hwwatch.h"

struct asmspy_target *target_open(pid_t pid, int *err); /* libasmspy (host/host.h) */
void target_close(struct asmspy_target *t);

#if defined(__x86_64__)

#define MAX_LOG 256
static struct {
  pid_t tid;
  uint64_t off, val;
  int rc;
} pokes[MAX_LOG];
static int npokes;
static volatile int stop_flag;
static const struct asmspy_seam_api *real_seam;
static pid_t armed_tids[16];
static int narmed, initial_armed = -1;
static uint64_t hits;

static int logged_poke(struct asmspy_seam *sm, pid_t tid, uint64_t off, uint64_t val) {
  int rc = real_seam->poke_user(sm, tid, off, val);
  /* DR6 writes are the per-hit acknowledgements: where debug registers
   * fire there are hundreds, and they would push the disarm out of the log */
  if (npokes < MAX_LOG && off != hw_x86_dr_offset(6))
    pokes[npokes++] = (typeof(pokes[0])){tid, off, val, rc};
  if (off == hw_x86_dr_offset(7) && val != 0 && rc == 0 && narmed < 16) {
    armed_tids[narmed++] = tid;
    if (narmed == 4) stop_flag = 1; /* main + 3 workers armed: "Ctrl-C" */
  }
  return rc;
}

static void note(struct asmspy_out *out, int level, const char *fmt, ...) {
  (void)out;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const char *p = strstr(buf, "armed in ");
  if (p && initial_armed < 0) initial_armed = atoi(p + 9);
  fprintf(stderr, "note[%d]: %s\n", level, buf);
}

static int sink(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  hits += ev->type == ASMSPY_EV_WATCH_HIT;
  return 0;
}

static pid_t spawn(const char *exe, int *outfd) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1);
    close(p[0]);
    execl(exe, exe, "1500", (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  *outfd = p[0];
  return pid;
}

/* Attach with raw ptrace and read DR0/DR7 of every thread back. */
static void check_disarmed(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  CHECK(d != NULL, "open %s", path);
  if (!d) return;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    pid_t tid = atoi(de->d_name);
    if (tid <= 0) continue;
    if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0) {
      CHECK(0, "seize tid %d: %s", (int)tid, strerror(errno));
      continue;
    }
    int st;
    waitpid(tid, &st, __WALL);
    errno = 0;
    long dr7 = ptrace(PTRACE_PEEKUSER, tid, (void *)(uintptr_t)hw_x86_dr_offset(7), 0);
    long dr0 = ptrace(PTRACE_PEEKUSER, tid, (void *)(uintptr_t)hw_x86_dr_offset(0), 0);
    CHECK(errno == 0 && dr7 == 0 && dr0 == 0, "tid %d after detach: DR7=%#lx DR0=%#lx", (int)tid,
          dr7, dr0);
    ptrace(PTRACE_DETACH, tid, 0, 0);
    n++;
  }
  closedir(d);
  CHECK(n == 4, "4 threads read back (%d)", n);
}

static uint64_t read_counter(pid_t pid, uint64_t addr) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
  FILE *f = fopen(path, "re");
  uint32_t v = 0;
  if (f) {
    if (fseek(f, (long)addr, SEEK_SET) != 0 || fread(&v, sizeof v, 1, f) != 1) v = 0;
    fclose(f);
  }
  return v;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_real_seam <asmspy_hwwatch.so> <victim_watch>\n");
    return 99;
  }
  alarm(60);
  int fd = -1;
  pid_t pid = spawn(argv[2], &fd);
  char line[32] = "";
  FILE *pf = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (pid <= 0 || !pf || !fgets(line, sizeof line, pf) || atoi(line) != pid) {
    fprintf(stderr, "victim did not start\n");
    return 99;
  }
  int err = 0;
  struct asmspy_target *t = target_open(pid, &err);
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  asmspy_plugin_entry_fn entry = h ? (asmspy_plugin_entry_fn)dlsym(h, ASMSPY_PLUGIN_ENTRY_NAME) : 0;
  const struct asmspy_host_api *real = asmspy_host_api();
  const struct asmspy_plugin *p = entry ? entry(ASMSPY_ABI_VERSION, real) : NULL;
  if (!t || !p) {
    fprintf(stderr, "setup: target %p (%s), plugin %p (%s)\n", (void *)t, strerror(err), (void *)p,
            h ? "no entry" : dlerror());
    kill(pid, SIGKILL);
    return 99;
  }
  real_seam = real->seam;
  struct asmspy_seam_api seam = *real->seam;
  seam.poke_user = logged_poke;
  struct asmspy_host_api host = *real;
  host.seam = &seam;
  host.note = note;

  uint64_t addr = 0, size = 0;
  char why[256];
  int rc = host.resolve_data(t, "counter", &addr, &size, why, sizeof why);
  CHECK(rc == 0 && size == 4, "resolve_data counter: %s", rc ? why : "size");

  struct asmspy_session s;
  memset(&s, 0, sizeof s);
  ASMSPY_INIT_HEADER(&s);
  s.mode = "watch";
  s.pid = pid;
  s.max = -1;
  s.stop = &stop_flag;
  s.target = t;
  s.sink = sink;
  s.watch_addr = addr;
  s.watch_len = 4;
  s.watch_access = ASMSPY_WATCH_WRITE;
  rc = p->backend->run(&host, &s);
  CHECK(rc == 0, "run ended by the stop flag: %d (%s)", rc, rc ? asmspy_strerror(rc) : "");
  CHECK(narmed == 4, "4 threads armed (%d)", narmed);
  CHECK(initial_armed >= 1 && initial_armed < 4,
        "at least one thread armed after attach, through NEW_TASK (%d at attach)", initial_armed);
  for (int i = 0; i < narmed; i++) {
    int dr0 = -1, dr7 = -1, off7 = -1;
    for (int k = 0; k < npokes; k++) {
      if (pokes[k].tid != armed_tids[i]) continue;
      if (dr0 < 0 && pokes[k].off == hw_x86_dr_offset(0) && pokes[k].val == addr && !pokes[k].rc)
        dr0 = k;
      if (dr7 < 0 && pokes[k].off == hw_x86_dr_offset(7) && pokes[k].val == 0xd0001 && !pokes[k].rc)
        dr7 = k;
      if (dr7 >= 0 && pokes[k].off == hw_x86_dr_offset(7) && pokes[k].val == 0 && !pokes[k].rc)
        off7 = k;
    }
    CHECK(dr0 >= 0 && dr7 > dr0 && off7 > dr7,
          "tid %d: kernel accepted DR0=&counter, DR7=0xd0001, then DR7=0 (%d %d %d)",
          (int)armed_tids[i], dr0, dr7, off7);
  }
  check_disarmed(pid);

  /* still alive and writing (bounded by tries, not time) */
  uint64_t c0 = read_counter(pid, addr), c1 = c0;
  for (int i = 0; i < 500 && c1 == c0; i++) {
    usleep(2000);
    c1 = read_counter(pid, addr);
  }
  CHECK(c1 != c0, "the victim keeps writing counter after detach (%llu)", (unsigned long long)c1);
  int st;
  CHECK(waitpid(pid, &st, WNOHANG) == 0, "the victim is alive");
  fprintf(stderr, "%llu hits while armed (0 where debug registers never fire)\n",
          (unsigned long long)hits);
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  target_close(t);
  dlclose(h);
  return check_summary("test_real_seam");
}

#else
int main(void) {
  printf("SKIP: the real-seam check programs x86-64 debug registers\n");
  return 77;
}
#endif
