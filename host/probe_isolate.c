/* Run a plugin's probe() isolated in a forked child with a time limit.
 *
 * Why: a probe is a functional self-test — it arms hardware, opens perf
 * events, single-steps a child. A buggy or hostile plugin may crash or hang
 * there; the host must record that as the plugin's status and carry on
 * (Vulkan leaves a failing driver out of enumeration; it does not abort). */
#define _GNU_SOURCE
#include "host/host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long elapsed_ms(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

void probe_isolated(const struct asmspy_plugin *p, const struct asmspy_host_api *host,
                    unsigned timeout_ms, struct asmspy_probe_result *res) {
  memset(res, 0, sizeof *res);
  ASMSPY_INIT_HEADER(res);
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, errno, "probe isolation: pipe: %s", strerror(errno));
    return;
  }
  fflush(NULL); /* no duplicated stdio buffers in the child */
  pid_t child = fork();
  if (child < 0) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, errno, "probe isolation: fork: %s", strerror(errno));
    close(pfd[0]);
    close(pfd[1]);
    return;
  }
  if (child == 0) {
    close(pfd[0]);
    /* Own process group: a probe that forks grandchildren and hangs can be
     * killed as a group. */
    setpgid(0, 0);
    struct asmspy_probe_result r;
    memset(&r, 0, sizeof r);
    ASMSPY_INIT_HEADER(&r);
    r.status = ASMSPY_E_INTERNAL;
    snprintf(r.reason, sizeof r.reason, "probe returned without a verdict");
    int rc = p->probe(host, &r);
    if (rc != 0 && r.status == ASMSPY_USABLE) r.status = rc;
    ssize_t w = write(pfd[1], &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 1);
  }
  close(pfd[1]);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  size_t got = 0;
  int timed_out = 0;
  struct asmspy_probe_result tmp;
  char *dst = (char *)&tmp;
  for (;;) {
    long left = (long)timeout_ms - elapsed_ms(&start);
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
    int pr = poll(&pf, 1, (int)left);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) {
      timed_out = pr == 0;
      break;
    }
    ssize_t n = read(pfd[0], dst + got, sizeof tmp - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
    if (got == sizeof tmp) break;
  }
  close(pfd[0]);
  if (timed_out) {
    kill(-child, SIGKILL);
    kill(child, SIGKILL);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_PROBE_HANG, 0, "probe of '%s' exceeded %u ms and was killed",
                     p->name, timeout_ms);
    return;
  }
  if (WIFSIGNALED(status) && got != sizeof tmp) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_PROBE_CRASH, 0, "probe of '%s' crashed: %s", p->name,
                     strsignal(WTERMSIG(status)));
    return;
  }
  if (got != sizeof tmp) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_PROBE_CRASH, 0,
                     "probe of '%s' exited (status %d) without reporting a verdict", p->name,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return;
  }
  *res = tmp;
  res->reason[sizeof res->reason - 1] = 0;
}
