/* sockets: AF_UNIX socketpair and a bound datagram socket; deterministic. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int main(void) {
  int sv[2];
  char buf[64];
  syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv);
  syscall(SYS_sendto, sv[0], "ping", 4, 0, NULL, 0);
  syscall(SYS_recvfrom, sv[1], buf, sizeof buf, 0, NULL, NULL);
  syscall(SYS_shutdown, sv[0], SHUT_WR);
  syscall(SYS_close, sv[0]);
  syscall(SYS_close, sv[1]);
  int s = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
  struct sockaddr_in in;
  memset(&in, 0, sizeof in);
  in.sin_family = AF_INET;
  in.sin_port = htons(0);
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  syscall(SYS_bind, s, &in, sizeof in);
  int one = 1;
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  syscall(SYS_close, s);
  int u = (int)syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un un;
  memset(&un, 0, sizeof un);
  un.sun_family = AF_UNIX;
  strcpy(un.sun_path, "/nonexistent/sock");
  syscall(SYS_connect, u, &un, sizeof un);
  syscall(SYS_close, u);
  return 0;
}
