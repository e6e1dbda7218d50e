/* sc_decode_int.h — internal to the syslog view's syscall decoder.
 *
 * The decoder is split by syscall family, one file each:
 *   sc_out.c     output buffer, bounded target-memory reads, shared put_*
 *                primitives (numbers, flags, strings, paths, buffers, fds)
 *   sc_file.c    paths, open, stat family, access, rename, readlink, ...
 *   sc_fd.c      read/write, fcntl, pipes, dup, poll/select/epoll, ...
 *   sc_mem.c     mmap, mprotect, munmap, brk
 *   sc_proc.c    clone, execve, wait4, exit, prlimit64, ...
 *   sc_signal.c  signal names and sets, rt_sigaction, kill, ...
 *   sc_net.c     sockaddr and the socket calls
 *   sc_time.c    timespec/timeval, nanosleep, clock_nanosleep
 *   sc_ioctl.c   ioctl requests
 *   sc_misc.c    futex and the rest
 *   sc_sysent.c  the generated table (syscalls.in): arity, kinds, classes;
 *                the generic printer for syscalls without a decoder
 *   sc_decode.c  the dispatch table and the public sc_enter/sc_exit
 *
 * A decoder is a function of one `struct dc` (the call, the output, whether
 * the exit has been reached): en_* run at the entry stop, ex_* at the exit
 * stop (out-parameters and anything after them), rt_* format a successful
 * return value when a plain number won't do. Every target-memory read goes
 * through mem_full / mem_upto (bounded; a failure prints the address).
 */
#ifndef ASMSPY_SC_DECODE_INT_H
#define ASMSPY_SC_DECODE_INT_H

#include "sc_decode.h"
#include "sc_tables.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SC_ARRAY_MAX 16     /* elements shown of any array (iovecs, pollfds, events) */
#define SC_FDSET_MAX 1024   /* fds examined in a select() set */
#define SC_SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */
#define SC_PAGE 4096u

/* Output buffer: appends never overflow; `over` records that something was
 * cut, and ob_finish then ends the line in "...". */
struct ob {
  char *p;
  size_t cap, len;
  int over;   /* something did not fit */
  int strace; /* SC_ENV_STRACE: strace's spellings where the styles differ */
};

/* Decoding context */
struct dc {
  const struct sc_env *env; /* NULL in sc_unfinished: no memory, no fds */
  struct sc_call *c;
  struct ob *o;
  int have_ret; /* at the exit stop with a return value */
  int failed;   /* have_ret and ret is an error */
  int64_t ret;
};

#define A(i) (d->c->args[i])
/* The call succeeded, so its out-parameters are worth reading. */
#define OUT_OK(d) ((d)->have_ret && !(d)->failed)

/* printxval's fallback format for a value with no name */
enum xfmt { XDEC, XSDEC, XHEX };

/* put_buf's how */
#define PUT_CARRY 1
#define PUT_HEX 2

typedef void (*sc_fn)(struct dc *d);

/* ---- the generated syscall table (syscalls.in -> sc_syscalls_gen.h) ---- */
enum sc_kind {
  SK_NONE,
  SK_INT,
  SK_UINT,
  SK_LONG,
  SK_ULONG,
  SK_HEX,
  SK_FD,
  SK_DIRFD,
  SK_PATH,
  SK_STR,
  SK_PTR,
  SK_SIZE,
  SK_OFF,
  SK_MODE,
  SK_SIGNAL,
  SK_PID,
  SK_UID,
  SK_CLOCKID,
  SK_FLAGS
};
struct sc_argspec {
  uint8_t kind;            /* SK_* */
  const struct sc_xlat *x; /* SK_FLAGS: the names (NULL: hex) */
  const char *name;        /* the kernel's name for it */
};
struct sc_sysent {
  const char *name;
  uint8_t nargs;
  uint16_t cls; /* SC_CLS_* */
  struct sc_argspec a[6];
};

/* sc_sysent.c */
const struct sc_sysent *sc_sysent_of(int64_t nr);
void put_arg(struct dc *d, const struct sc_argspec *a, uint64_t v);
void put_args_generic(struct dc *d, const struct sc_sysent *e);

/* ---- the options in force (fixed at entry, kept in the call) ---- */
static inline int dc_strace(const struct dc *d) { return (d->c->priv_flags & SC_ENV_STRACE) != 0; }
/* describe fds: the house style always, strace mode with --decode-fds */
static inline int dc_fdpaths(const struct dc *d) {
  return !dc_strace(d) || (d->c->priv_flags & SC_ENV_DECODE_FDS);
}
/* put_quoted's hex: 0 none, 1 the whole string if non-ASCII, 2 always */
static inline int dc_hex(const struct dc *d) {
  return d->c->priv_flags & SC_ENV_HEX_ALL ? 2 : d->c->priv_flags & SC_ENV_HEX_NONASCII ? 1 : 0;
}

/* sc_out.c */
void ob_init(struct ob *o, char *p, size_t cap);
void ob_putn(struct ob *o, const char *s, size_t n);
void ob_puts(struct ob *o, const char *s);
void ob_putc(struct ob *o, char ch);
__attribute__((format(printf, 2, 3))) void ob_printf(struct ob *o, const char *fmt, ...);
void ob_finish(struct ob *o);
int mem_full(const struct dc *d, uint64_t addr, void *buf, size_t len);
size_t mem_upto(const struct dc *d, uint64_t addr, void *buf, size_t len);
void put_addr(struct ob *o, uint64_t v);
void put_xnum(struct ob *o, uint64_t v);
void put_int(struct ob *o, uint64_t v);
void put_uint(struct ob *o, uint64_t v);
void put_long(struct ob *o, uint64_t v);
void put_ulong(struct ob *o, uint64_t v);
void put_octmode(struct ob *o, uint64_t v);
void put_xval(struct ob *o, const struct sc_xlat *x, uint64_t v, enum xfmt f);
void put_flags_tail(struct ob *o, const struct sc_xlat *x, uint64_t v, int first);
void put_flags(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *zero_name);
void put_field_flags(struct ob *o, const struct sc_xlat *field, uint64_t mask,
                     const struct sc_xlat *flags, uint64_t v);
void put_quoted(struct ob *o, const unsigned char *s, size_t n, int hex);
void put_str(struct dc *d, uint64_t addr);
void carry(struct dc *d, const void *p, size_t n, int more);
void put_path(struct dc *d, uint64_t addr);
void put_buf(struct dc *d, uint64_t addr, uint64_t len, int how);
void put_fd_as(struct dc *d, uint64_t v, int describe);
void put_fd(struct dc *d, uint64_t v);
void put_dirfd(struct dc *d, uint64_t v);
void put_intptr(struct dc *d, uint64_t addr);

/* sc_file.c */
void put_open_flags(struct ob *o, uint64_t v);
void en_open(struct dc *d);
void en_openat(struct dc *d);
void en_path_mode(struct dc *d);
void en_close(struct dc *d);
void en_path(struct dc *d);
void ex_stat1(struct dc *d);
void en_dirfd_path(struct dc *d);
void ex_newfstatat(struct dc *d);
void en_statx(struct dc *d);
void ex_statx(struct dc *d);
void en_access(struct dc *d);
void en_faccessat(struct dc *d);
void en_faccessat2(struct dc *d);
void en_lseek(struct dc *d);
void en_fadvise64(struct dc *d);
void en_unlinkat(struct dc *d);
void en_mkdirat(struct dc *d);
void en_rename(struct dc *d);
void en_renameat(struct dc *d);
void en_renameat2(struct dc *d);
void ex_readlink(struct dc *d);
void ex_readlinkat(struct dc *d);
void ex_getcwd(struct dc *d);
void en_umask(struct dc *d);
void rt_octal(struct dc *d);
void en_utimensat(struct dc *d);

/* sc_fd.c */
void en_fd(struct dc *d);
void en_read(struct dc *d);
void en_pread(struct dc *d);
void rt_readbuf(struct dc *d);
void put_read_result(struct dc *d, uint64_t addr);
void ex_read(struct dc *d);
void ex_pread(struct dc *d);
void put_iov(struct dc *d, uint64_t addr, uint64_t cnt, uint64_t valid);
void ex_readv(struct dc *d);
void ex_preadv(struct dc *d);
void en_write(struct dc *d);
void en_pwrite(struct dc *d);
void en_writev(struct dc *d);
void en_pwritev(struct dc *d);
void en_readv(struct dc *d);
void en_preadv(struct dc *d);
void rt_readv(struct dc *d);
void en_fcntl(struct dc *d);
void ex_fcntl(struct dc *d);
void rt_fcntl(struct dc *d);
void ex_pipe(struct dc *d);
void ex_pipe2(struct dc *d);
void en_dup2(struct dc *d);
void en_dup3(struct dc *d);
void en_poll(struct dc *d);
void en_ppoll(struct dc *d);
void rt_poll(struct dc *d);
void en_select(struct dc *d);
void en_pselect6(struct dc *d);
void rt_select(struct dc *d);
void rt_pselect6(struct dc *d);
void ex_epoll_wait(struct dc *d);
void ex_epoll_pwait(struct dc *d);
void en_epoll_ctl(struct dc *d);
void en_epoll_create1(struct dc *d);
void en_fd_long(struct dc *d);
void en_getdents(struct dc *d);
void ex_getdents(struct dc *d);
void en_flock(struct dc *d);
void en_sendfile(struct dc *d);
void ex_sendfile(struct dc *d);
void en_eventfd2(struct dc *d);
void en_inotify_init1(struct dc *d);
void en_memfd_create(struct dc *d);
void en_close_range(struct dc *d);

/* sc_mem.c */
void en_mmap(struct dc *d);
void en_mprotect(struct dc *d);
void en_addr_len(struct dc *d);
void en_addr(struct dc *d);

/* sc_proc.c */
void en_clone(struct dc *d);
void en_clone3(struct dc *d);
void en_int(struct dc *d);
void en_execve(struct dc *d);
void en_execveat(struct dc *d);
void ex_wait4(struct dc *d);
void en_arch_prctl(struct dc *d);
void ex_arch_prctl(struct dc *d);
void en_prlimit64(struct dc *d);
void ex_prlimit64(struct dc *d);
void ex_getrandom(struct dc *d);
void en_waitid(struct dc *d);
void ex_waitid(struct dc *d);
void en_getrusage(struct dc *d);
void ex_getrusage(struct dc *d);
void en_rlimit_res(struct dc *d);
void en_setrlimit(struct dc *d);
void ex_getrlimit(struct dc *d);
void ex_uname(struct dc *d);
void ex_sysinfo(struct dc *d);
void en_getpriority(struct dc *d);
void en_setpriority(struct dc *d);
void en_personality(struct dc *d);
void rt_personality(struct dc *d);
void en_sched_setaffinity(struct dc *d);
void en_sched_getaffinity(struct dc *d);
void ex_sched_getaffinity(struct dc *d);
void ex_getcpu(struct dc *d);
void en_prctl(struct dc *d);
void ex_prctl(struct dc *d);
void rt_prctl(struct dc *d);

/* sc_signal.c */
void put_signal(struct ob *o, uint64_t v);
void put_sigset(struct dc *d, uint64_t addr, uint64_t size);
void en_rt_sigaction(struct dc *d);
void ex_rt_sigaction(struct dc *d);
void en_rt_sigprocmask(struct dc *d);
void ex_rt_sigprocmask(struct dc *d);
void en_kill(struct dc *d);
void en_tgkill(struct dc *d);
void put_siginfo(struct dc *d, uint64_t addr, int out);
void put_siginfo_fields(struct ob *o, const struct sc_siginfo *si);
void en_sigaltstack(struct dc *d);
void ex_sigaltstack(struct dc *d);
void ex_rt_sigpending(struct dc *d);
void en_rt_sigsuspend(struct dc *d);
void en_rt_sigtimedwait(struct dc *d);
void ex_rt_sigtimedwait(struct dc *d);
void rt_signo(struct dc *d);
void en_rt_sigqueueinfo(struct dc *d);
void en_rt_tgsigqueueinfo(struct dc *d);

/* sc_net.c */
void en_socket(struct dc *d);
void en_connect(struct dc *d);
void en_sendto(struct dc *d);
void en_recvfrom(struct dc *d);
void ex_recvfrom(struct dc *d);
void en_sock_result(struct dc *d);
void ex_sock_result(struct dc *d);
void ex_accept4(struct dc *d);
void en_fd_int(struct dc *d);
void en_shutdown(struct dc *d);
void ex_socketpair(struct dc *d);

/* sc_time.c */
void put_timespec(struct dc *d, uint64_t addr);
void put_timeval(struct dc *d, uint64_t addr);
void en_nanosleep(struct dc *d);
void ex_nanosleep(struct dc *d);
void en_clock_nanosleep(struct dc *d);
void ex_clock_nanosleep(struct dc *d);
void en_clockid(struct dc *d);
void ex_clock_get(struct dc *d);

/* sc_ioctl.c */
void en_ioctl(struct dc *d);
void ex_ioctl(struct dc *d);

/* sc_misc.c */
void en_futex(struct dc *d);

/* ", " between arguments: nothing right after the opening parenthesis. */
static inline void next(struct dc *d) {
  struct ob *o = d->o;
  if (o->len && o->p[o->len - 1] != '(') ob_puts(o, ", ");
}

/* ---- issue 26 part B (sc_out.c, sc_net.c, sc_time.c, sc_mem.c, sc_misc.c) ---- */
void put_xval_q(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *dflt);
void put_flags_q(struct ob *o, const struct sc_xlat *x, uint64_t v, const char *dflt);
void put_errno_val(struct ob *o, int64_t e);
/* sc_net.c */
void en_setsockopt(struct dc *d);
void en_getsockopt(struct dc *d);
void ex_getsockopt(struct dc *d);
void en_sendmsg(struct dc *d);
void en_recvmsg(struct dc *d);
void ex_recvmsg(struct dc *d);
void ex_sendmmsg(struct dc *d);
void en_recvmmsg(struct dc *d);
void ex_recvmmsg(struct dc *d);
void rt_recvmmsg(struct dc *d);
/* sc_time.c */
void put_itimerval(struct dc *d, uint64_t addr);
void put_itimerspec(struct dc *d, uint64_t addr);
void ex_gettimeofday(struct dc *d);
void ex_time(struct dc *d);
void rt_time(struct dc *d);
void ex_times(struct dc *d);
void en_setitimer(struct dc *d);
void ex_setitimer(struct dc *d);
void en_getitimer(struct dc *d);
void ex_getitimer(struct dc *d);
void en_timer_create(struct dc *d);
void ex_timer_create(struct dc *d);
void en_timer_settime(struct dc *d);
void ex_timer_settime(struct dc *d);
void en_timer_gettime(struct dc *d);
void ex_timer_gettime(struct dc *d);
void en_timerfd_create(struct dc *d);
void en_timerfd_settime(struct dc *d);
void en_timerfd_gettime(struct dc *d);
/* sc_mem.c */
void en_madvise(struct dc *d);
void en_msync(struct dc *d);
void en_mlock2(struct dc *d);
void en_mlockall(struct dc *d);
void en_mincore(struct dc *d);
void ex_mincore(struct dc *d);
void en_mremap(struct dc *d);
void en_membarrier(struct dc *d);
void rt_membarrier(struct dc *d);
void en_pkey_alloc(struct dc *d);
void en_pkey_mprotect(struct dc *d);
/* sc_misc.c */
void en_capget(struct dc *d);
void ex_capget(struct dc *d);
void en_capset(struct dc *d);
void en_seccomp(struct dc *d);
void ex_seccomp(struct dc *d);
void ex_getresid(struct dc *d);

#endif /* ASMSPY_SC_DECODE_INT_H */
