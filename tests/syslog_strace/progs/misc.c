/* misc: futex, epoll, getrandom, capabilities, ids, seccomp; deterministic. */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  uint32_t fw = 1;
  struct timespec ts = {0, 1000};
  syscall(SYS_futex, &fw, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  syscall(SYS_futex, &fw, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0); /* EAGAIN */
  syscall(SYS_futex, &fw, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0); /* ETIMEDOUT */
  syscall(SYS_futex, &fw, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &ts, NULL,
          FUTEX_BITSET_MATCH_ANY);
  syscall(SYS_futex, &fw, FUTEX_WAKE, 1, NULL, NULL, 0);
  syscall(SYS_futex, &fw, FUTEX_CMP_REQUEUE_PRIVATE, 1, 2, &fw, 1);
  syscall(SYS_futex, &fw, FUTEX_WAKE_OP_PRIVATE, 1, 1, &fw,
          FUTEX_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_GT, 1));

  int sv[2];
  syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv);
  int ep = (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 0x1122334455667788ull};
  syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, sv[0], &ev);
  ev.events = EPOLLIN | EPOLLOUT;
  ev.data.fd = sv[1];
  syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, sv[1], &ev);
  ev.events = EPOLLOUT;
  syscall(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, sv[1], &ev);
  struct epoll_event out[4];
  syscall(SYS_epoll_pwait, ep, out, 4, 0, NULL, 8);
  syscall(SYS_write, sv[1], "x", 1);
  syscall(SYS_epoll_pwait, ep, out, 4, 0, NULL, 8);
  syscall(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, sv[1], NULL);
  syscall(SYS_close, ep);
  syscall(SYS_close, sv[0]);
  syscall(SYS_close, sv[1]);

  unsigned char rnd[8];
  syscall(SYS_getrandom, rnd, sizeof rnd, GRND_NONBLOCK);
  syscall(SYS_getrandom, rnd, 0, 0);
  syscall(SYS_getrandom, rnd, 4, 0x40); /* EINVAL */

  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct cd[2];
  syscall(SYS_capget, &h, cd);
  syscall(SYS_capset, &h, cd);
  h.version = 0;
  syscall(SYS_capget, &h, NULL);

  syscall(SYS_getuid);
  syscall(SYS_geteuid);
  syscall(SYS_getgid);
  syscall(SYS_getegid);
  syscall(SYS_getresuid, &fw, &fw, &fw);
  syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &(uint32_t){SECCOMP_RET_KILL_PROCESS});
  syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, NULL); /* EFAULT */
  syscall(SYS_sched_yield);
  return 0;
}
