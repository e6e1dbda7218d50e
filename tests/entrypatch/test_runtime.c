/* test_runtime: ep_runtime_refusal (runtime.c) on a Go program this test
 * builds (go build, offline, its cache in a temporary directory) and
 * starts: refused, naming the file the runtime was found in. This process
 * (C) is not refused, nor is a pid that does not exist. Skips (77) when no
 * Go toolchain is installed (scripts/install-deps.sh --dev installs golang-go). */
#define _GNU_SOURCE
#include "../unit/check.h"
#include "plugins/entrypatch/runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char go_source[] = "package main\n"
                                "\n"
                                "import (\n"
                                "\t\"fmt\"\n"
                                "\t\"time\"\n"
                                ")\n"
                                "\n"
                                "func main() {\n"
                                "\tfmt.Println(\"ready\")\n"
                                "\tfor {\n"
                                "\t\ttime.Sleep(10 * time.Millisecond)\n"
                                "\t}\n"
                                "}\n";

int main(void) {
  if (system("command -v go >/dev/null 2>&1") != 0) {
    printf("SKIP: no go toolchain\n");
    return 77;
  }
  char dir[] = "/tmp/asmspy-go.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[512], cmd[2048];
  snprintf(path, sizeof path, "%s/main.go", dir);
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs(go_source, f);
  fclose(f);
  /* offline and self-contained: no module proxy, no toolchain download,
   * caches under dir */
  snprintf(cmd, sizeof cmd,
           "cd %s && env GOCACHE=%s/cache GOPATH=%s/gopath GOPROXY=off GOFLAGS= GO111MODULE=off "
           "GOTOOLCHAIN=local CGO_ENABLED=0 go build -o gohello main.go",
           dir, dir, dir);
  int built = system(cmd);
  CHECK(built == 0, "go build failed (%d)", built);

  char bin[512];
  snprintf(bin, sizeof bin, "%s/gohello", dir);
  int fds[2];
  pid_t child = -1;
  if (built == 0 && pipe(fds) == 0) {
    child = fork();
    if (child == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      execl(bin, bin, (char *)NULL);
      _exit(127);
    }
    close(fds[1]);
    char line[64] = "";
    FILE *out = fdopen(fds[0], "r");
    /* after its first line the Go runtime is mapped and running */
    CHECK(out && fgets(line, sizeof line, out) && strcmp(line, "ready\n") == 0,
          "the Go program did not start");
    char why[512] = "";
    CHECK(ep_runtime_refusal(child, why, sizeof why) == 1, "a Go program not refused");
    CHECK(strstr(why, "a Go program (runtime found in ") && strstr(why, "gohello") &&
              strstr(why, "--backend=singlestep"),
          "reason: %s", why);
    printf("# %s\n", why);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (out) fclose(out);
  }
  char why[512] = "";
  CHECK(ep_runtime_refusal(getpid(), why, sizeof why) == 0, "this C program refused: %s", why);
  CHECK(ep_runtime_refusal(child > 0 ? child : 999999, why, sizeof why) == 0,
        "a gone process refused");
  snprintf(cmd, sizeof cmd, "chmod -R u+w %s; rm -rf %s", dir, dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary("runtime");
}
