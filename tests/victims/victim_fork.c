/* victim_fork: forks a child every few milliseconds; each child opens its
 * own file (named after its pid), writes to it and exits. Under --follow the
 * children's syscalls must show up with the CHILD's fd paths (its own fd
 * table, its own symbols). Prints its pid first. argv[1]: directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  printf("%d\n", (int)getpid());
  fflush(stdout);
  for (;;) {
    pid_t child = fork();
    if (child == 0) {
      char path[512];
      snprintf(path, sizeof path, "%s/child-%d.txt", dir, (int)getpid());
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        if (write(fd, "child\n", 6) < 0) _exit(1);
        close(fd);
      }
      unlink(path);
      _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
    usleep(5000);
  }
}
