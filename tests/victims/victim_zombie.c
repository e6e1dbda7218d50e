/* victim_zombie: a parent that forks a child which exits at once, and never
 * reaps it: the child stays a zombie (state Z) for as long as the parent
 * lives (the attach-diagnosis tests).
 *
 * Output: line 1 the parent's pid, line 2 the child's pid. The child has
 * exited, or is about to: poll /proc/<child>/stat for state Z. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the child at once */
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) _exit(0);
  printf("%d\n%d\n", (int)getpid(), (int)child);
  fflush(stdout);
  for (;;) pause(); /* never wait(): the child stays a zombie */
}
