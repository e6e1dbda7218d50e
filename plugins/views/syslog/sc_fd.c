/* sc_fd.c — descriptors: read/write (+v, +p), fcntl, pipes, dup, poll/select/epoll,
 * ftruncate, getdents.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>

/* ---- read / write ---- */
void en_fd(struct dc *d) { put_fd(d, A(0)); }

/* Two styles for what a read-style call returned. The house style prints
 * read(fd=3</x>, 64) = "data" [4]: the data after the return value. strace
 * mode prints it in its argument position at the exit stop,
 * read(3, "data", 64) = 4, and the buffer's address when the call failed. */
void en_read(struct dc *d) { /* read(fd, count) */
  put_fd(d, A(0));
  if (dc_strace(d)) return; /* the rest at the exit */
  next(d);
  put_ulong(d->o, A(2));
}
void en_pread(struct dc *d) {
  en_read(d);
  if (dc_strace(d)) return;
  next(d);
  put_long(d->o, A(3));
}
/* strace mode: the buffer, filled with ret bytes, where it belongs */
void put_read_result(struct dc *d, uint64_t addr) {
  if (OUT_OK(d))
    put_buf(d, addr, (uint64_t)d->ret, PUT_CARRY);
  else
    put_addr(d->o, addr);
}
void ex_read(struct dc *d) {
  if (!dc_strace(d)) return;
  next(d);
  put_read_result(d, A(1));
  next(d);
  put_ulong(d->o, A(2));
}
void ex_pread(struct dc *d) {
  if (!dc_strace(d)) return;
  ex_read(d);
  next(d);
  put_long(d->o, A(3));
}
/* House style: `"data" [n]` after the return: what the call actually read. */
void rt_readbuf(struct dc *d) {
  if (dc_strace(d)) {
    put_long(d->o, (uint64_t)d->ret);
    return;
  }
  put_buf(d, A(1), (uint64_t)d->ret, PUT_CARRY);
  ob_printf(d->o, " [%lld]", (long long)d->ret);
}

void en_write(struct dc *d) {
  put_fd(d, A(0));
  next(d);
  put_buf(d, A(1), A(2), PUT_CARRY);
  next(d);
  put_ulong(d->o, A(2));
}
void en_pwrite(struct dc *d) {
  en_write(d);
  next(d);
  put_long(d->o, A(3));
}

/* ---- readv / writev ---- */
struct k_iovec {
  uint64_t base, len;
};

/* [{iov_base="...", iov_len=N}, ...] with SC_STR_MAX bytes of contents in
 * total; valid bounds the bytes the kernel filled (readv's return). */
void put_iov(struct dc *d, uint64_t addr, uint64_t cnt, uint64_t valid) {
  struct ob *o = d->o;
  struct k_iovec iov[SC_ARRAY_MAX];
  int icnt = (int)cnt;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (icnt <= 0) {
    if (icnt == 0)
      ob_puts(o, "[]");
    else
      put_addr(o, addr);
    return;
  }
  size_t n = icnt > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)icnt;
  n = mem_upto(d, addr, iov, n * sizeof iov[0]) / sizeof iov[0]; /* the readable prefix */
  if (!n) {
    put_addr(o, addr);
    return;
  }
  unsigned char all[SC_STR_MAX];
  size_t budget = SC_STR_MAX, kept = 0;
  int more = 0;
  ob_putc(o, '[');
  for (size_t i = 0; i < n; i++) {
    uint64_t len = iov[i].len < valid ? iov[i].len : valid;
    valid -= len;
    size_t want = len < budget ? (size_t)len : budget;
    if (i) ob_puts(o, ", ");
    ob_puts(o, "{iov_base=");
    size_t got = want ? mem_upto(d, iov[i].base, all + kept, want) : 0;
    if (want && !got) {
      put_addr(o, iov[i].base);
      more = 1;
    } else {
      put_quoted(o, all + kept, got, 0);
      if (got < len) {
        ob_puts(o, "...");
        more = 1;
      }
    }
    kept += got;
    budget -= got;
    ob_printf(o, ", iov_len=%llu}", (unsigned long long)iov[i].len);
  }
  if ((size_t)icnt > n) {
    ob_puts(o, ", ...");
    more = 1;
  }
  ob_putc(o, ']');
  carry(d, all, kept, more);
}

void en_writev(struct dc *d) { /* writev(fd, iov, iovcnt) */
  put_fd(d, A(0));
  next(d);
  put_iov(d, A(1), A(2), UINT64_MAX);
  next(d);
  put_int(d->o, A(2));
}
void en_pwritev(struct dc *d) { /* pwritev(fd, iov, iovcnt, offset) */
  en_writev(d);
  next(d);
  put_long(d->o, A(3));
}
void en_readv(struct dc *d) { /* readv(fd, iovcnt): the data follows " = " */
  put_fd(d, A(0));
  if (dc_strace(d)) return;
  next(d);
  put_int(d->o, A(2));
}
void en_preadv(struct dc *d) {
  en_readv(d);
  if (dc_strace(d)) return;
  next(d);
  put_long(d->o, A(3));
}
void ex_readv(struct dc *d) { /* strace mode: readv(3, [{iov_base=...}], 2) */
  if (!dc_strace(d)) return;
  next(d);
  if (OUT_OK(d))
    put_iov(d, A(1), A(2), (uint64_t)d->ret);
  else
    put_addr(d->o, A(1));
  next(d);
  put_int(d->o, A(2));
}
void ex_preadv(struct dc *d) {
  if (!dc_strace(d)) return;
  ex_readv(d);
  next(d);
  put_long(d->o, A(3));
}
void rt_readv(struct dc *d) {
  if (dc_strace(d)) {
    put_long(d->o, (uint64_t)d->ret);
    return;
  }
  put_iov(d, A(1), A(2), (uint64_t)d->ret);
  ob_printf(d->o, " [%lld]", (long long)d->ret);
}

/* ---- fcntl ---- */
enum {
  K_F_DUPFD = 0,
  K_F_GETFD = 1,
  K_F_SETFD = 2,
  K_F_GETFL = 3,
  K_F_SETFL = 4,
  K_F_GETLK = 5,
  K_F_SETLK = 6,
  K_F_SETLKW = 7,
  K_F_SETOWN = 8,
  K_F_GETOWN = 9,
  K_F_SETSIG = 10,
  K_F_GETSIG = 11,
  K_F_SETOWN_EX = 15,
  K_F_GETOWN_EX = 16,
  K_F_OFD_GETLK = 36,
  K_F_OFD_SETLK = 37,
  K_F_OFD_SETLKW = 38,
  K_F_SETLEASE = 1024,
  K_F_GETLEASE = 1025,
  K_F_NOTIFY = 1026,
  K_F_DUPFD_CLOEXEC = 1030,
  K_F_SETPIPE_SZ = 1031,
  K_F_GETPIPE_SZ = 1032,
  K_F_ADD_SEALS = 1033,
  K_F_GET_SEALS = 1034
};

struct k_flock {
  int16_t type, whence;
  int32_t pad;
  int64_t start, len;
  int32_t pid, pad2;
};

static void put_flock(struct dc *d, uint64_t addr, int with_pid) {
  struct k_flock fl;
  if (!addr || !mem_full(d, addr, &fl, sizeof fl)) {
    put_addr(d->o, addr);
    return;
  }
  ob_puts(d->o, "{l_type=");
  put_xval(d->o, sc_lock_types, (uint16_t)fl.type, XSDEC);
  ob_puts(d->o, ", l_whence=");
  put_xval(d->o, sc_seek_whence, (uint16_t)fl.whence, XSDEC);
  ob_printf(d->o, ", l_start=%lld, l_len=%lld", (long long)fl.start, (long long)fl.len);
  if (with_pid) ob_printf(d->o, ", l_pid=%d", fl.pid);
  ob_putc(d->o, '}');
}

static const struct sc_xlat seal_flags[] = {{0x1, "F_SEAL_SEAL"},          {0x2, "F_SEAL_SHRINK"},
                                            {0x4, "F_SEAL_GROW"},          {0x8, "F_SEAL_WRITE"},
                                            {0x10, "F_SEAL_FUTURE_WRITE"}, {0, NULL}};
static const struct sc_xlat dn_flags[] = {{0x1, "DN_ACCESS"},
                                          {0x2, "DN_MODIFY"},
                                          {0x4, "DN_CREATE"},
                                          {0x8, "DN_DELETE"},
                                          {0x10, "DN_RENAME"},
                                          {0x20, "DN_ATTRIB"},
                                          {0x80000000u, "DN_MULTISHOT"},
                                          {0, NULL}};
static const struct sc_xlat owner_types[] = {
    {0, "F_OWNER_TID"}, {1, "F_OWNER_PID"}, {2, "F_OWNER_PGRP"}, {0, NULL}};

/* {type=F_OWNER_PID, pid=123} */
static void put_owner_ex(struct dc *d, uint64_t addr) {
  int32_t ox[2];
  if (!addr || !mem_full(d, addr, ox, sizeof ox)) {
    put_addr(d->o, addr);
    return;
  }
  ob_puts(d->o, "{type=");
  put_xval(d->o, owner_types, (uint32_t)ox[0], XHEX);
  ob_printf(d->o, ", pid=%d}", ox[1]);
}

void en_fcntl(struct dc *d) { /* fcntl(fd, cmd[, arg]) — arity depends on cmd */
  uint32_t cmd = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_fcntl_cmds, cmd, XHEX);
  switch (cmd) {
  case K_F_GETFD:
  case K_F_GETFL:
  case K_F_GETOWN:
  case K_F_GETSIG:
  case K_F_GETLEASE:
  case K_F_GETPIPE_SZ:
  case K_F_GET_SEALS: return; /* no third argument */
  case K_F_GETLK:
  case K_F_OFD_GETLK:
  case K_F_GETOWN_EX: return; /* an out-parameter */
  case K_F_SETOWN_EX:
    next(d);
    put_owner_ex(d, A(2));
    return;
  case K_F_NOTIFY:
    next(d);
    put_flags(d->o, dn_flags, (uint32_t)A(2), "0");
    return;
  case K_F_SETFD:
    next(d);
    put_flags(d->o, sc_fd_flags, (uint32_t)A(2), "0");
    return;
  case K_F_SETFL:
    next(d);
    put_open_flags(d->o, A(2));
    return;
  case K_F_SETLK:
  case K_F_SETLKW:
  case K_F_OFD_SETLK:
  case K_F_OFD_SETLKW:
    next(d);
    put_flock(d, A(2), 0);
    return;
  case K_F_SETSIG:
    next(d);
    put_signal(d->o, A(2));
    return;
  case K_F_SETLEASE:
    next(d);
    put_xval(d->o, sc_lock_types, (uint32_t)A(2), XSDEC);
    return;
  case K_F_DUPFD:
  case K_F_DUPFD_CLOEXEC:
  case K_F_SETOWN:
  case K_F_SETPIPE_SZ:
    next(d);
    put_int(d->o, A(2));
    return;
  case K_F_ADD_SEALS:
    next(d);
    put_flags(d->o, seal_flags, (uint32_t)A(2), "0");
    return;
  default:
    next(d);
    put_xnum(d->o, A(2));
    return;
  }
}
void ex_fcntl(struct dc *d) {
  uint32_t cmd = (uint32_t)A(1);
  if (cmd != K_F_GETLK && cmd != K_F_OFD_GETLK && cmd != K_F_GETOWN_EX) return;
  next(d);
  if (!OUT_OK(d))
    put_addr(d->o, A(2));
  else if (cmd == K_F_GETOWN_EX)
    put_owner_ex(d, A(2));
  else
    put_flock(d, A(2), 1);
}
/* strace: fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE). */
void rt_fcntl(struct dc *d) {
  uint32_t cmd = (uint32_t)A(1);
  uint64_t r = (uint64_t)d->ret;
  if (cmd == K_F_GETFL) {
    ob_printf(d->o, "%#llx (flags ", (unsigned long long)r);
    put_open_flags(d->o, r);
    ob_putc(d->o, ')');
  } else if (cmd == K_F_GETFD && r) {
    ob_printf(d->o, "%#llx (flags ", (unsigned long long)r);
    put_flags(d->o, sc_fd_flags, r, "0");
    ob_putc(d->o, ')');
  } else if (cmd == K_F_GET_SEALS && dc_strace(d)) {
    ob_printf(d->o, "%#llx (seals ", (unsigned long long)r);
    put_flags(d->o, seal_flags, r, "0");
    ob_putc(d->o, ')');
  } else if (cmd == K_F_GETLEASE && dc_strace(d)) {
    ob_printf(d->o, "%#llx (", (unsigned long long)r);
    put_xval(d->o, sc_lock_types, r, XHEX);
    ob_putc(d->o, ')');
  } else if (cmd == K_F_GETSIG && dc_strace(d) && r) {
    ob_printf(d->o, "%lld (", (long long)r);
    put_signal(d->o, r);
    ob_putc(d->o, ')');
  } else {
    put_long(d->o, r);
  }
}

/* ---- pipes, dup ---- */
static void put_fd_pair(struct dc *d, uint64_t addr) {
  int32_t fds[2];
  if (addr && OUT_OK(d) && mem_full(d, addr, fds, sizeof fds))
    ob_printf(d->o, "[%d, %d]", fds[0], fds[1]);
  else
    put_addr(d->o, addr);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) ex_pipe(struct dc *d) { put_fd_pair(d, A(0)); }
void ex_pipe2(struct dc *d) {
  put_fd_pair(d, A(0));
  next(d);
  put_flags(d->o, sc_pipe_flags, (uint32_t)A(1), "0");
}
void en_dup2(struct dc *d) { /* newfd described at entry: the file it is about to lose */
  put_fd(d, A(0));
  next(d);
  put_fd(d, A(1));
}
void en_dup3(struct dc *d) {
  en_dup2(d);
  next(d);
  put_flags(d->o, sc_pipe_flags, (uint32_t)A(2), "0");
}

/* ---- readiness: poll, select, epoll ---- */
struct k_pollfd {
  int32_t fd;
  int16_t events, revents;
};

/* entry: [{fd=3, events=POLLIN}]; exit (revents): only the ready ones. */
static int put_pollfds(struct dc *d, uint64_t addr, uint64_t nfds, int revents) {
  struct k_pollfd p[SC_ARRAY_MAX];
  size_t n = nfds > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)nfds;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return 0;
  }
  if (n && !mem_full(d, addr, p, n * sizeof p[0])) {
    put_addr(d->o, addr);
    return 0;
  }
  ob_putc(d->o, '[');
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    if (revents && !p[i].revents) continue;
    if (shown++) ob_puts(d->o, ", ");
    if (!revents && p[i].fd < 0) { /* strace: an ignored slot shows no events */
      ob_printf(d->o, "{fd=%d}", p[i].fd);
      continue;
    }
    ob_printf(d->o, "{fd=%d, %s=", p[i].fd, revents ? "revents" : "events");
    put_flags(d->o, sc_poll_events, (uint16_t)(revents ? p[i].revents : p[i].events), "0");
    ob_putc(d->o, '}');
  }
  if (nfds > n) ob_puts(d->o, shown ? ", ..." : "...");
  ob_putc(d->o, ']');
  return 1;
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_poll(struct dc *d) { /* poll(fds, nfds, timeout_ms) */
  put_pollfds(d, A(0), (uint32_t)A(1), 0);
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_int(d->o, A(2));
}
void en_ppoll(struct dc *d) { /* ppoll(fds, nfds, tsp, sigmask, sigsetsize) */
  put_pollfds(d, A(0), (uint32_t)A(1), 0);
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_timespec(d, A(2));
  next(d);
  put_sigset(d, A(3), A(4));
  next(d);
  put_ulong(d->o, A(4));
}
/* = 1 ([{fd=3, revents=POLLIN}]) / = 0 (Timeout) */
void rt_poll(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  if (d->ret == 0) {
    ob_puts(d->o, " (Timeout)");
  } else {
    ob_puts(d->o, " (");
    if (!put_pollfds(d, A(0), (uint32_t)A(1), 1)) ob_puts(d->o, "?");
    if (d->c->nr == SYS_ppoll && A(2) && dc_strace(d)) { /* ppoll: the time left */
      ob_puts(d->o, ", left ");
      put_timespec(d, A(2));
    }
    ob_putc(d->o, ')');
  }
}

/* [3 7]: the fds below nfds set in an fd_set. */
static void put_fdset(struct dc *d, uint64_t addr, int nfds) {
  uint64_t bits[SC_FDSET_MAX / 64];
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  if (nfds < 0) nfds = 0;
  if (nfds > SC_FDSET_MAX) nfds = SC_FDSET_MAX;
  size_t words = ((size_t)nfds + 63) / 64;
  if (words && !mem_full(d, addr, bits, words * 8)) {
    put_addr(d->o, addr);
    return;
  }
  ob_putc(d->o, '[');
  int first = 1;
  for (int fd = 0; fd < nfds; fd++) {
    if (!(bits[fd / 64] & (1ull << (fd % 64)))) continue;
    if (!first) ob_putc(d->o, ' ');
    first = 0;
    ob_printf(d->o, "%d", fd);
  }
  ob_putc(d->o, ']');
}

static void en_select_sets(struct dc *d) {
  put_int(d->o, A(0));
  for (int i = 1; i <= 3; i++) {
    next(d);
    put_fdset(d, A(i), (int)A(0));
  }
  next(d);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_select(struct dc *d) { /* select(nfds, r, w, e, timeval) */
  en_select_sets(d);
  put_timeval(d, A(4));
}
void en_pselect6(struct dc *d) { /* pselect6(nfds, r, w, e, timespec, {sigset, size}) */
  uint64_t sm[2];
  en_select_sets(d);
  put_timespec(d, A(4));
  next(d);
  if (!A(5))
    ob_puts(d->o, "NULL");
  else if (!mem_full(d, A(5), sm, sizeof sm))
    put_addr(d->o, A(5));
  else {
    ob_putc(d->o, '{');
    put_sigset(d, sm[0], sm[1]);
    ob_printf(d->o, ", %llu}", (unsigned long long)sm[1]);
  }
}
/* = 1 (in [3], out [4], left {tv_sec=0, tv_usec=997}) / = 0 (Timeout) */
static void rt_select_common(struct dc *d, int timespec) {
  static const char *const names[] = {"in", "out", "except"};
  struct ob *o = d->o;
  put_long(o, (uint64_t)d->ret);
  if (d->ret == 0) {
    ob_puts(o, " (Timeout)");
    return;
  }
  ob_puts(o, " (");
  int first = 1;
  for (int i = 1; i <= 3; i++) {
    if (!A(i)) continue;
    ob_printf(o, "%s%s ", first ? "" : ", ", names[i - 1]);
    put_fdset(d, A(i), (int)A(0));
    first = 0;
  }
  if (A(4)) {
    ob_printf(o, "%sleft ", first ? "" : ", ");
    if (timespec)
      put_timespec(d, A(4));
    else
      put_timeval(d, A(4));
  }
  ob_putc(o, ')');
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) rt_select(struct dc *d) { rt_select_common(d, 0); }
void rt_pselect6(struct dc *d) { rt_select_common(d, 1); }

struct __attribute__((packed)) k_epoll_event {
  uint32_t events;
  uint64_t data;
};

static void put_epoll_event1(struct ob *o, const struct k_epoll_event *ev) {
  ob_puts(o, "{events=");
  put_flags(o, sc_epoll_events, ev->events, "0");
  ob_printf(o, ", data={u32=%u, u64=%llu}}", (uint32_t)ev->data, (unsigned long long)ev->data);
}

void ex_epoll_wait(struct dc *d) { /* epoll_wait(epfd, events, maxevents, timeout) */
  struct k_epoll_event ev[SC_ARRAY_MAX];
  next(d);
  if (!OUT_OK(d) || d->ret <= 0) {
    if (OUT_OK(d) && A(1))
      ob_puts(d->o, "[]");
    else
      put_addr(d->o, A(1));
  } else {
    size_t n = (uint64_t)d->ret > SC_ARRAY_MAX ? SC_ARRAY_MAX : (size_t)d->ret;
    if (!mem_full(d, A(1), ev, n * sizeof ev[0])) {
      put_addr(d->o, A(1));
    } else {
      ob_putc(d->o, '[');
      for (size_t i = 0; i < n; i++) {
        if (i) ob_puts(d->o, ", ");
        put_epoll_event1(d->o, &ev[i]);
      }
      if ((uint64_t)d->ret > n) ob_puts(d->o, ", ...");
      ob_putc(d->o, ']');
    }
  }
  next(d);
  put_int(d->o, A(2));
  next(d);
  put_int(d->o, A(3));
}
void ex_epoll_pwait(struct dc *d) { /* + sigmask, sigsetsize */
  ex_epoll_wait(d);
  next(d);
  put_sigset(d, A(4), A(5));
  next(d);
  put_ulong(d->o, A(5));
}
void en_epoll_ctl(struct dc *d) { /* epoll_ctl(epfd, op, fd, event) */
  struct k_epoll_event ev;
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_epoll_ctl_ops, (uint32_t)A(1), XSDEC);
  next(d);
  put_fd(d, A(2));
  next(d);
  if (!A(3))
    ob_puts(d->o, "NULL");
  else if (!mem_full(d, A(3), &ev, sizeof ev))
    put_addr(d->o, A(3));
  else
    put_epoll_event1(d->o, &ev);
}
void en_epoll_create1(struct dc *d) { put_flags(d->o, sc_epoll_create_flags, (uint32_t)A(0), "0"); }

/* ---- misc fd calls ---- */
void en_fd_long(struct dc *d) { /* ftruncate(fd, length) */
  put_fd(d, A(0));
  next(d);
  put_long(d->o, A(1));
}
void en_getdents(struct dc *d) { /* getdents64(fd, dirp, count): dirp at the exit */
  put_fd(d, A(0));
}
/* strace: getdents64(3, 0x55d0 / * 12 entries * /, 32768) = 360 */
void ex_getdents(struct dc *d) {
  static __thread unsigned char buf[65536];
  next(d);
  put_addr(d->o, A(1));
  if (OUT_OK(d) && d->ret >= 0 && (uint64_t)d->ret <= sizeof buf &&
      (d->ret == 0 || mem_full(d, A(1), buf, (size_t)d->ret))) {
    size_t n = 0, off = 0, len = (size_t)d->ret;
    while (off + 18 <= len) { /* d_reclen at offset 16 in both layouts */
      uint16_t rl;
      memcpy(&rl, buf + off + 16, sizeof rl);
      if (!rl) break;
      off += rl;
      n++;
    }
    ob_printf(d->o, " /* %zu entries */", n);
  }
  next(d);
  put_uint(d->o, A(2));
}

/* ---- flock, sendfile, fd-creating calls ---- */
static const struct sc_xlat flock_ops[] = {
    {1, "LOCK_SH"}, {2, "LOCK_EX"}, {8, "LOCK_UN"}, {0, NULL}};
static const struct sc_xlat flock_flags[] = {
    {4, "LOCK_NB"}, {32, "LOCK_MAND"}, {64, "LOCK_READ"}, {128, "LOCK_WRITE"}, {0, NULL}};
void en_flock(struct dc *d) { /* flock(fd, op) */
  uint32_t op = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, flock_ops, op & ~0xf4u, XHEX);
  put_flags_tail(d->o, flock_flags, op & 0xf4u, 0);
}

/* sendfile(out, in, [off] => [off after], count) */
void en_sendfile(struct dc *d) {
  int64_t off;
  put_fd(d, A(0));
  next(d);
  put_fd(d, A(1));
  next(d);
  if (!A(2))
    ob_puts(d->o, "NULL");
  else if (mem_full(d, A(2), &off, sizeof off))
    ob_printf(d->o, "[%lld]", (long long)off);
  else
    put_addr(d->o, A(2));
}
void ex_sendfile(struct dc *d) {
  int64_t off;
  if (A(2) && OUT_OK(d) && mem_full(d, A(2), &off, sizeof off))
    ob_printf(d->o, " => [%lld]", (long long)off);
  next(d);
  put_ulong(d->o, A(3));
}

static const struct sc_xlat efd_flags[] = {
    {1, "EFD_SEMAPHORE"}, {04000, "EFD_NONBLOCK"}, {02000000, "EFD_CLOEXEC"}, {0, NULL}};
void en_eventfd2(struct dc *d) {
  put_uint(d->o, A(0));
  next(d);
  put_flags(d->o, efd_flags, (uint32_t)A(1), "0");
}
static const struct sc_xlat in_init_flags[] = {
    {04000, "IN_NONBLOCK"}, {02000000, "IN_CLOEXEC"}, {0, NULL}};
void en_inotify_init1(struct dc *d) { put_flags(d->o, in_init_flags, (uint32_t)A(0), "0"); }
static const struct sc_xlat mfd_flags[] = {{1, "MFD_CLOEXEC"}, {2, "MFD_ALLOW_SEALING"},
                                           {4, "MFD_HUGETLB"}, {8, "MFD_NOEXEC_SEAL"},
                                           {16, "MFD_EXEC"},   {0, NULL}};
void en_memfd_create(struct dc *d) {
  put_str(d, A(0));
  next(d);
  uint32_t f = (uint32_t)A(1);
  put_flags(d->o, mfd_flags, f & 0x3ffffffu, "0");
  if (f >> 26) { /* MFD_HUGETLB's page size: log2 << 26 */
    ob_printf(d->o, "%s%u<<MFD_HUGE_SHIFT", (f & 0x3ffffffu) ? "|" : "", f >> 26);
  }
}
static const struct sc_xlat close_range_flags[] = {
    {2, "CLOSE_RANGE_UNSHARE"}, {4, "CLOSE_RANGE_CLOEXEC"}, {0, NULL}};
void en_close_range(struct dc *d) { /* close_range(first, last, flags) */
  put_uint(d->o, A(0));
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_flags(d->o, close_range_flags, (uint32_t)A(2), "0");
}
