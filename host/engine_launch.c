/* --launch for the modes that name a symbol: `--launch trace <sym> -- cmd`,
 * `--launch dataflow <sym> -- cmd`, `--launch watch <var> -- cmd`.
 *
 * A launched command is a fork of the tracer stopped before its exec: its
 * address space is still asmspy's own, so a symbol resolved then names
 * asmspy's code ("no function named", or a breakpoint that lands in the
 * wrong image). The symbol has to be resolved in the program, after the
 * exec and after ld.so has mapped its libraries (a libc function is as
 * valid as one of the executable's).
 *
 * So the host table a launched session's view configures with resolves
 * lazily: the first resolve_region / resolve_data on the launched target
 * first runs the command under ptrace through its exec and ld.so to its
 * entry point (ASMSPY_SESS_TO_ENTRY) and HOLDS it there, stopped, traced
 * by this thread; then the spec is resolved against the program's image.
 * The backend's seam.attach of that pid then adopts the held seam instead
 * of seizing anew (a second tracer cannot seize it, and letting it go in
 * between would let the program run past the region before anyone
 * watches). The backend therefore starts exactly where a launched
 * backend with TO_ENTRY would: the program at its first instruction with
 * its libraries mapped, nothing of it run yet.
 *
 * A view that samples first (--dataflow --auto) lets the command run free
 * (sampler_ladder.c, released_pid): it is then a running pid like any
 * other, and nothing is held.
 *
 * One session per tracer process (asmspy_run is not re-entered), so the
 * state is process-wide, like the sampler ladder's. */
#define _GNU_SOURCE
#include "common/ctl_escape.h"
#include "host/host.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static struct {
  const struct asmspy_host_api *base; /* the table wrapped */
  struct asmspy_host_api api;         /* base, resolving after the exec */
  struct asmspy_seam_api seam;        /* base->seam, adopting the held seam */
  struct asmspy_target *target;       /* the launched command's target */
  pid_t pid;                          /* the launched command, 0 = no launch */
  int tried;                          /* the hold was attempted (once) */
  int hold_status;                    /* its result */
  struct asmspy_seam *held;           /* run to its entry, stopped, ours */
  /* the seam keeps a pointer to the session it attached with: this one
   * outlives the hold (a static, not the caller's stack) */
  struct asmspy_session session;
} L;

/* Run the launched command to its entry point and keep it there. 0, or a
 * -ASMSPY_E_* status with err filled. */
static int hold_at_entry(char *err, size_t errcap) {
  if (L.tried) {
    if (L.hold_status && err && errcap)
      snprintf(err, errcap, "pid %d did not reach its entry point: %s", (int)L.pid,
               asmspy_strerror(L.hold_status));
    return L.hold_status;
  }
  L.tried = 1;
  /* the seam the backend would have attached (its ptrace options: clone
   * and --follow's fork following), run on to the entry point */
  L.session.flags |= ASMSPY_SESS_LAUNCHED | ASMSPY_SESS_TO_ENTRY;
  L.session.tid = 0;
  L.hold_status = seam_api.attach(&L.session, &L.held);
  if (L.hold_status) {
    L.held = NULL;
    if (err && errcap)
      snprintf(err, errcap, "pid %d did not reach its entry point: %s", (int)L.pid,
               asmspy_strerror(L.hold_status));
  }
  return L.hold_status;
}

/* A resolve on the launched target before the program exists: hold it at
 * its entry first. Not once a sampler let it run (--auto): it is then a
 * running pid whose image is already the program's. */
static int ensure_program(struct asmspy_target *t, char *err, size_t errcap) {
  if (!L.pid || t != L.target || sampler_ladder_released(L.pid)) return 0;
  return hold_at_entry(err, errcap);
}

/* A refusal names the launched program, not its pid (one the user never
 * saw): " in pid N (see asmspy --syms)" becomes " in '<cmd>' (or the
 * libraries it maps)", "pid N ..." at the start "'<cmd>' ...". */
static int name_the_command(int rc, char *err, size_t errcap) {
  const char *cmd =
      L.session.launch_argv && L.session.launch_argv[0] ? L.session.launch_argv[0] : NULL;
  if (!rc || !err || !errcap || !cmd) return rc;
  char pid_in[32], pid_at[32], out[1024];
  snprintf(pid_in, sizeof pid_in, " in pid %d", (int)L.pid);
  snprintf(pid_at, sizeof pid_at, "pid %d", (int)L.pid);
  char *at = strstr(err, pid_in);
  if (at) {
    const char *rest = at + strlen(pid_in);
    if (strncmp(rest, " (see asmspy --syms)", 20) == 0) rest += 20;
    snprintf(out, sizeof out, "%.*s in '%s' (or the libraries it maps)%s", (int)(at - err), err,
             cmd, rest);
  } else if (strncmp(err, pid_at, strlen(pid_at)) == 0) {
    snprintf(out, sizeof out, "'%s'%s", cmd, err + strlen(pid_at));
  } else {
    return rc;
  }
  snprintf(err, errcap, "%s", out);
  return rc;
}

static int launch_resolve_region(struct asmspy_target *t, const char *spec, uint64_t *start,
                                 uint64_t *len, char *err, size_t errcap) {
  int rc = ensure_program(t, err, errcap);
  if (!rc) rc = L.base->resolve_region(t, spec, start, len, err, errcap);
  return t == L.target ? name_the_command(rc, err, errcap) : rc;
}

static int launch_resolve_data(struct asmspy_target *t, const char *spec, uint64_t *addr,
                               uint64_t *size, char *err, size_t errcap) {
  int rc = ensure_program(t, err, errcap);
  if (!rc) rc = L.base->resolve_data(t, spec, addr, size, err, errcap);
  return t == L.target ? name_the_command(rc, err, errcap) : rc;
}

/* The backend's attach of the held pid takes the held seam over (it owns
 * it from now on and detaches it); any other attach is the real one. */
static int launch_attach(const struct asmspy_session *s, struct asmspy_seam **out) {
  if (L.held && s->pid == L.pid) {
    *out = L.held;
    L.held = NULL;
    return 0;
  }
  /* a backend attaching the launched pid itself (nothing was resolved
   * first): from now on it is the tracer, so nothing may hold it */
  if (L.pid && s->pid == L.pid) L.tried = 1;
  return L.base->seam->attach(s, out);
}

const struct asmspy_host_api *launch_host_api(const struct asmspy_host_api *base,
                                              struct asmspy_session *s) {
  launch_hold_end(0);
  if (!(s->flags & ASMSPY_SESS_LAUNCHED)) return base;
  L.base = base;
  L.pid = s->pid;
  L.target = s->target;
  L.session = *s;
  L.api = *base;
  if (ASMSPY_HAS(base, resolve_region) && base->resolve_region)
    L.api.resolve_region = launch_resolve_region;
  if (ASMSPY_HAS(base, resolve_data) && base->resolve_data)
    L.api.resolve_data = launch_resolve_data;
  L.seam = *base->seam;
  L.seam.attach = launch_attach;
  L.api.seam = &L.seam;
  return &L.api;
}

int launch_held(pid_t pid) { return pid > 0 && L.held && L.pid == pid; }

void launch_hold_end(int kill_held) {
  /* a hold no backend took over (configure refused, a SKIP). A command
   * that is to die dies while still held: detached first, it would run
   * from its entry point until the kill (a refused --launch must not run
   * the program at all). */
  if (L.held) {
    if (kill_held) {
      kill(L.pid, SIGKILL);
      L.session.out = NULL; /* asmspy's own kill: no "KILLED while traced" note */
    }
    seam_api.detach(L.held);
  }
  memset(&L, 0, sizeof L);
}

/* The launched command's wait status, for the CLI's exit (-1: none). Apart
 * from L: launch_hold_end forgets L before the command ends. */
static int launch_status = -1;
/* The launched pid, and its wait status if the seam reaped it while tracing
 * it to its end (then launch_wait's own waitpid finds no child). */
static pid_t tracked_pid;
static int reaped_status = -1;

void launch_track(pid_t pid) {
  tracked_pid = pid;
  reaped_status = launch_status = -1;
}

void launch_reaped(pid_t pid, int status) {
  if (pid > 0 && pid == tracked_pid) reaped_status = status;
}

/* --launch: like strace, the command runs to completion after we detach.
 * An end that is not a plain exit 0 is noted as strace says it ("exited
 * with 3", "killed by SIGTERM"); the status itself is the CLI's exit
 * status (strace's rule: the command's exit code, its signal re-raised). */
void launch_wait(pid_t launched, const char *cmd, const volatile int *stop) {
  int st;
  pid_t got;
  launch_status = -1;
  while ((got = waitpid(launched, &st, 0)) < 0 && errno == EINTR) {
    if (stop && *stop) kill(launched, SIGTERM);
  }
  if (got != launched) {
    if (launched != tracked_pid || reaped_status == -1) return;
    st = reaped_status; /* reaped while traced to its end */
  }
  launch_status = st;
  char line[1024];
  if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
    snprintf(line, sizeof line, "# launched '%s' exited with %d (asmspy exits with it)", cmd,
             WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    snprintf(line, sizeof line, "# launched '%s' killed by SIG%s (asmspy ends by it too)", cmd,
             sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
  else
    return;
  ctl_text_fput(stderr, line, strlen(line), 0); /* the command's name, escaped */
  fputc('\n', stderr);
}

int launch_take_status(void) {
  int st = launch_status;
  launch_status = -1;
  return st;
}
