/* calls_views: the victim of test_calls_views.sh (the call views' story:
 * uftrace's filters, refused functions, calls that never return, longjmp
 * through a function that is not traced). `calls_views <mode>`:
 *   filter    main -> a -> alloc_x -> malloc, b -> c -> d; a -> free, b;
 *             main -> c, b (the shapes -F / -N / -D are checked on)
 *   refused   main -> spin_refused (its first instruction is a loop's
 *             target: the call backend cannot patch it) -> d
 *   longjmp   main -> jumper -> mid_refused (not traced) -> deep -> longjmp
 *             back into jumper, which then calls after_jump: after_jump
 *             nests under jumper, not under the dead deep
 *   exit | _exit | pthread_exit | execl | abort
 *             main -> goes_away -> exit(0) / _exit(0) / pthread_exit in a
 *             thread / execl("/bin/true") — calls that never return
 *   hang      main -> hangs -> sleeps until killed (open at detach); says
 *             "hanging" on stdout first
 * A last argument --wait: print the pid and wait for SIGUSR1 first.
 * Built without inlining and sibling calls, like calls_workload. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wait_start.h"

volatile long sink;

__attribute__((noinline)) void d(void) { sink += 1; }
/* each starts with a store, not a call: a call in the first 5 bytes is
 * another refusal (tested on spin_refused instead) */
__attribute__((noinline)) void c(void) {
  sink += 2;
  d();
}
__attribute__((noinline)) void b(void) {
  sink += 3;
  c();
}
__attribute__((noinline)) void *alloc_x(void) {
  sink += 4;
  void *p = malloc(16);
  b();
  return p;
}
__attribute__((noinline)) void a(void) {
  sink += 5;
  free(alloc_x());
  b();
}

/* its first instruction is the target of its own loop branch: no patch may
 * overwrite it (the backend refuses it and says so) */
long spin_refused(long n);
long mid_refused(long n);
/* clang-format off */
__asm__(".text\n"
        ".globl spin_refused\n"
        ".type spin_refused, @function\n"
        "spin_refused:\n"
        "  sub $1, %rdi\n"
        "  jg spin_refused\n"
        "  sub $8, %rsp\n"
        "  call d\n"
        "  add $8, %rsp\n"
        "  mov %rdi, %rax\n"
        "  ret\n"
        ".size spin_refused, .-spin_refused\n"
        ".globl mid_refused\n"
        ".type mid_refused, @function\n"
        "mid_refused:\n"
        "  sub $1, %rdi\n"
        "  jg mid_refused\n"
        "  sub $8, %rsp\n"
        "  call deep\n"
        "  add $8, %rsp\n"
        "  ret\n"
        ".size mid_refused, .-mid_refused\n");
/* clang-format on */

static jmp_buf env;
__attribute__((noinline, used)) void deep(void) {
  sink += 6;
  longjmp(env, 1);
}
__attribute__((noinline)) void after_jump(void) { sink += 7; }
__attribute__((noinline)) void jumper(void) {
  sink += 10;
  if (setjmp(env) == 0) mid_refused(1);
  after_jump();
  sink += 8;
}

__attribute__((noinline)) void goes_away(const char *how) {
  sink += 9;
  if (!strcmp(how, "exit")) exit(0);
  if (!strcmp(how, "_exit")) _exit(0);
  if (!strcmp(how, "execl")) execl("/bin/true", "true", (char *)NULL);
  if (!strcmp(how, "pthread_exit")) pthread_exit(NULL);
}
static void *thread_main(void *arg) {
  goes_away(arg);
  return NULL;
}
__attribute__((noinline)) void hangs(void) {
  sink += 11;
  for (;;) pause();
}

int main(int argc, char **argv) {
  sink += 12;
  const char *mode = argc > 1 ? argv[1] : "filter";
  if (argc > 2 && !strcmp(argv[argc - 1], "--wait")) wait_start();
  if (!strcmp(mode, "filter")) {
    a();
    c();
    b();
  } else if (!strcmp(mode, "refused")) {
    spin_refused(3);
    d();
  } else if (!strcmp(mode, "longjmp")) {
    jumper();
    d();
  } else if (!strcmp(mode, "pthread_exit")) {
    pthread_t t;
    pthread_create(&t, NULL, thread_main, (void *)mode);
    pthread_join(t, NULL);
    d();
  } else if (!strcmp(mode, "hang")) {
    printf("hanging\n");
    fflush(stdout);
    hangs();
  } else {
    goes_away(mode);
  }
  printf("done %ld\n", sink);
  return 0;
}
