/* sc_decode.c — strace-style syscall formatting for the syscall log view:
 * the dispatch table and the public sc_enter / sc_exit / sc_unfinished.
 *
 * The decoders live one file per syscall family (sc_file.c, sc_fd.c, ...;
 * sc_decode_int.h lists them); the output buffer and the shared printers in
 * sc_out.c. The table {nr, name, nargs, rv, entry, exit, ret}, indexed by
 * syscall number, says which decoder runs at which stop.
 *
 * The line shape is strace's, with asmspy's two conventions from the seed:
 * an fd argument prints as fd=N<what it is>, and read-style calls put the
 * data after the return value: read(fd=3</tmp/x>, 64) = "hello\n" [6].
 */
#define _GNU_SOURCE
#include "sc_decode_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#define SC_MAGIC 0x5ca11ed5u

/* ======================================================================== */
/* Dispatch table                                                            */
/* ======================================================================== */
enum { RV_DEC = 0, RV_HEX = 1 };

struct sc_desc {
  int nr;
  const char *name;
  int nargs;   /* the kernel's arity for this syscall */
  int rv;      /* return format when no rt_ hook: RV_DEC / RV_HEX */
  sc_fn entry; /* arguments known at the entry stop */
  sc_fn exit;  /* out-parameters and what follows them, at the exit stop */
  sc_fn ret;   /* a successful return value, when a plain number won't do */
};

#define D(n, na, rv, en, ex, rt) [__NR_##n] = {__NR_##n, #n, na, rv, en, ex, rt}
#define NOARGS(n) D(n, 0, RV_DEC, NULL, NULL, NULL)

static const struct sc_desc descs[] = {
    /* file I/O */
    D(read, 3, RV_DEC, en_read, ex_read, rt_readbuf), D(write, 3, RV_DEC, en_write, NULL, NULL),
    D(pread64, 4, RV_DEC, en_pread, ex_pread, rt_readbuf),
    D(pwrite64, 4, RV_DEC, en_pwrite, NULL, NULL),
    D(readv, 3, RV_DEC, en_readv, ex_readv, rt_readv), D(writev, 3, RV_DEC, en_writev, NULL, NULL),
    D(preadv, 5, RV_DEC, en_preadv, ex_preadv, rt_readv),
    D(pwritev, 5, RV_DEC, en_pwritev, NULL, NULL),
#ifdef __NR_open /* not on every arch (AArch64 has only the *at forms) */
    D(open, 3, RV_DEC, en_open, NULL, NULL),
#endif
    D(openat, 4, RV_DEC, en_openat, NULL, NULL),
#ifdef __NR_creat
    D(creat, 2, RV_DEC, en_path_mode, NULL, NULL),
#endif
    D(close, 1, RV_DEC, en_close, NULL, NULL),
#ifdef __NR_stat
    D(stat, 2, RV_DEC, en_path, ex_stat1, NULL),
#endif
#ifdef __NR_lstat
    D(lstat, 2, RV_DEC, en_path, ex_stat1, NULL),
#endif
    D(fstat, 2, RV_DEC, en_fd, ex_stat1, NULL),
    D(newfstatat, 4, RV_DEC, en_dirfd_path, ex_newfstatat, NULL),
    D(statx, 5, RV_DEC, en_statx, ex_statx, NULL),
#ifdef __NR_access
    D(access, 2, RV_DEC, en_access, NULL, NULL),
#endif
    D(faccessat, 3, RV_DEC, en_faccessat, NULL, NULL),
    D(faccessat2, 4, RV_DEC, en_faccessat2, NULL, NULL), D(lseek, 3, RV_DEC, en_lseek, NULL, NULL),
    D(fadvise64, 4, RV_DEC, en_fadvise64, NULL, NULL),
    D(ftruncate, 2, RV_DEC, en_fd_long, NULL, NULL), D(fsync, 1, RV_DEC, en_fd, NULL, NULL),
    D(fdatasync, 1, RV_DEC, en_fd, NULL, NULL),
    D(getdents64, 3, RV_DEC, en_getdents, ex_getdents, NULL),
    /* memory */
    D(mmap, 6, RV_HEX, en_mmap, NULL, NULL), D(mprotect, 3, RV_DEC, en_mprotect, NULL, NULL),
    D(munmap, 2, RV_DEC, en_addr_len, NULL, NULL), D(brk, 1, RV_HEX, en_addr, NULL, NULL),
    /* processes */
    D(clone, 5, RV_DEC, en_clone, NULL, NULL), D(clone3, 2, RV_DEC, en_clone3, NULL, NULL),
#ifdef __NR_fork
    NOARGS(fork),
#endif
#ifdef __NR_vfork
    NOARGS(vfork),
#endif
    D(execve, 3, RV_DEC, en_execve, NULL, NULL), D(execveat, 5, RV_DEC, en_execveat, NULL, NULL),
    D(exit, 1, RV_DEC, en_int, NULL, NULL), D(exit_group, 1, RV_DEC, en_int, NULL, NULL),
    D(wait4, 4, RV_DEC, en_int, ex_wait4, NULL), D(set_tid_address, 1, RV_DEC, en_addr, NULL, NULL),
    D(set_robust_list, 2, RV_DEC, en_addr_len, NULL, NULL),
#ifdef __NR_arch_prctl
    D(arch_prctl, 2, RV_DEC, en_arch_prctl, ex_arch_prctl, NULL),
#endif
    D(prlimit64, 4, RV_DEC, en_prlimit64, ex_prlimit64, NULL),
    D(getrandom, 3, RV_DEC, NULL, ex_getrandom, NULL), NOARGS(getpid), NOARGS(gettid),
    NOARGS(getppid), NOARGS(getuid), NOARGS(geteuid), NOARGS(getgid), NOARGS(getegid),
#ifdef __NR_getpgrp
    NOARGS(getpgrp),
#endif
    NOARGS(setsid), NOARGS(sched_yield),
#ifdef __NR_pause
    NOARGS(pause),
#endif
    NOARGS(sync), NOARGS(munlockall), NOARGS(vhangup),
#ifdef __NR_inotify_init
    NOARGS(inotify_init),
#endif
    NOARGS(rt_sigreturn), NOARGS(restart_syscall),
    /* signals */
    D(rt_sigaction, 4, RV_DEC, en_rt_sigaction, ex_rt_sigaction, NULL),
    D(rt_sigprocmask, 4, RV_DEC, en_rt_sigprocmask, ex_rt_sigprocmask, NULL),
    D(kill, 2, RV_DEC, en_kill, NULL, NULL), D(tkill, 2, RV_DEC, en_kill, NULL, NULL),
    D(tgkill, 3, RV_DEC, en_tgkill, NULL, NULL),
    /* time */
    D(nanosleep, 2, RV_DEC, en_nanosleep, ex_nanosleep, NULL),
    D(clock_nanosleep, 4, RV_DEC, en_clock_nanosleep, ex_clock_nanosleep, NULL),
    D(clock_gettime, 2, RV_DEC, en_clockid, ex_clock_get, NULL),
    D(clock_getres, 2, RV_DEC, en_clockid, ex_clock_get, NULL),
    /* fd control */
    D(ioctl, 3, RV_DEC, en_ioctl, ex_ioctl, NULL),
    D(fcntl, 3, RV_DEC, en_fcntl, ex_fcntl, rt_fcntl), D(futex, 6, RV_DEC, en_futex, NULL, NULL),
#ifdef __NR_pipe
    D(pipe, 1, RV_DEC, NULL, ex_pipe, NULL),
#endif
    D(pipe2, 2, RV_DEC, NULL, ex_pipe2, NULL), D(dup, 1, RV_DEC, en_fd, NULL, NULL),
#ifdef __NR_dup2
    D(dup2, 2, RV_DEC, en_dup2, NULL, NULL),
#endif
    D(dup3, 3, RV_DEC, en_dup3, NULL, NULL),
    /* sockets */
    D(socket, 3, RV_DEC, en_socket, NULL, NULL),
    D(socketpair, 4, RV_DEC, en_socket, ex_socketpair, NULL),
    D(connect, 3, RV_DEC, en_connect, NULL, NULL), D(bind, 3, RV_DEC, en_connect, NULL, NULL),
    D(listen, 2, RV_DEC, en_fd_int, NULL, NULL),
    D(accept, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(accept4, 4, RV_DEC, en_sock_result, ex_accept4, NULL),
    D(getsockname, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(getpeername, 3, RV_DEC, en_sock_result, ex_sock_result, NULL),
    D(sendto, 6, RV_DEC, en_sendto, NULL, NULL),
    D(recvfrom, 6, RV_DEC, en_recvfrom, ex_recvfrom, rt_readbuf),
    D(shutdown, 2, RV_DEC, en_shutdown, NULL, NULL),
/* paths */
#ifdef __NR_unlink
    D(unlink, 1, RV_DEC, en_path, NULL, NULL),
#endif
    D(unlinkat, 3, RV_DEC, en_unlinkat, NULL, NULL),
#ifdef __NR_rmdir
    D(rmdir, 1, RV_DEC, en_path, NULL, NULL),
#endif
#ifdef __NR_mkdir
    D(mkdir, 2, RV_DEC, en_path_mode, NULL, NULL),
#endif
    D(mkdirat, 3, RV_DEC, en_mkdirat, NULL, NULL),
#ifdef __NR_rename
    D(rename, 2, RV_DEC, en_rename, NULL, NULL),
#endif
    D(renameat, 4, RV_DEC, en_renameat, NULL, NULL),
    D(renameat2, 5, RV_DEC, en_renameat2, NULL, NULL), D(chdir, 1, RV_DEC, en_path, NULL, NULL),
    D(fchdir, 1, RV_DEC, en_fd, NULL, NULL),
#ifdef __NR_readlink
    D(readlink, 3, RV_DEC, en_path, ex_readlink, NULL),
#endif
    D(readlinkat, 4, RV_DEC, en_dirfd_path, ex_readlinkat, NULL),
    D(getcwd, 2, RV_DEC, NULL, ex_getcwd, NULL), D(umask, 1, RV_DEC, en_umask, NULL, rt_octal),
/* readiness */
#ifdef __NR_poll
    D(poll, 3, RV_DEC, en_poll, NULL, rt_poll),
#endif
    D(ppoll, 5, RV_DEC, en_ppoll, NULL, rt_poll),
#ifdef __NR_select
    D(select, 5, RV_DEC, en_select, NULL, rt_select),
#endif
    D(pselect6, 6, RV_DEC, en_pselect6, NULL, rt_pselect6),
#ifdef __NR_epoll_wait
    D(epoll_wait, 4, RV_DEC, en_fd, ex_epoll_wait, NULL),
#endif
    D(epoll_pwait, 6, RV_DEC, en_fd, ex_epoll_pwait, NULL),
    D(epoll_ctl, 4, RV_DEC, en_epoll_ctl, NULL, NULL),
#ifdef __NR_epoll_create
    D(epoll_create, 1, RV_DEC, en_int, NULL, NULL),
#endif
    D(epoll_create1, 1, RV_DEC, en_epoll_create1, NULL, NULL),
    /* ---- issue 26 part B: sockets, time, memory, misc (sc_net.c sc_time.c sc_mem.c sc_misc.c) ---- */
    D(setsockopt, 5, RV_DEC, en_setsockopt, NULL, NULL),
    D(getsockopt, 5, RV_DEC, en_getsockopt, ex_getsockopt, NULL),
    D(sendmsg, 3, RV_DEC, en_sendmsg, NULL, NULL),
    D(recvmsg, 3, RV_DEC, en_recvmsg, ex_recvmsg, NULL),
    D(sendmmsg, 4, RV_DEC, en_fd, ex_sendmmsg, NULL),
    D(recvmmsg, 5, RV_DEC, en_recvmmsg, ex_recvmmsg, rt_recvmmsg),
    D(gettimeofday, 2, RV_DEC, NULL, ex_gettimeofday, NULL),
#ifdef __NR_time
    D(time, 1, RV_DEC, NULL, ex_time, rt_time),
#endif
    D(times, 1, RV_DEC, NULL, ex_times, NULL),
    D(setitimer, 3, RV_DEC, en_setitimer, ex_setitimer, NULL),
    D(getitimer, 2, RV_DEC, en_getitimer, ex_getitimer, NULL),
    D(timer_create, 3, RV_DEC, en_timer_create, ex_timer_create, NULL),
    D(timer_settime, 4, RV_DEC, en_timer_settime, ex_timer_settime, NULL),
    D(timer_gettime, 2, RV_DEC, en_timer_gettime, ex_timer_gettime, NULL),
    D(timerfd_create, 2, RV_DEC, en_timerfd_create, NULL, NULL),
    D(timerfd_settime, 4, RV_DEC, en_timerfd_settime, ex_timer_settime, NULL),
    D(timerfd_gettime, 2, RV_DEC, en_timerfd_gettime, ex_timer_gettime, NULL),
    D(madvise, 3, RV_DEC, en_madvise, NULL, NULL), D(msync, 3, RV_DEC, en_msync, NULL, NULL),
    D(mlock, 2, RV_DEC, en_addr_len, NULL, NULL), D(munlock, 2, RV_DEC, en_addr_len, NULL, NULL),
    D(mlock2, 3, RV_DEC, en_mlock2, NULL, NULL), D(mlockall, 1, RV_DEC, en_mlockall, NULL, NULL),
    D(mincore, 3, RV_DEC, en_mincore, ex_mincore, NULL),
    D(mremap, 5, RV_HEX, en_mremap, NULL, NULL),
    D(membarrier, 3, RV_DEC, en_membarrier, NULL, rt_membarrier),
    D(pkey_alloc, 2, RV_DEC, en_pkey_alloc, NULL, NULL),
    D(pkey_mprotect, 4, RV_DEC, en_pkey_mprotect, NULL, NULL),
    D(capget, 2, RV_DEC, en_capget, ex_capget, NULL), D(capset, 2, RV_DEC, en_capset, NULL, NULL),
    D(seccomp, 3, RV_DEC, en_seccomp, ex_seccomp, NULL),
    D(getresuid, 3, RV_DEC, NULL, ex_getresid, NULL),
    D(getresgid, 3, RV_DEC, NULL, ex_getresid, NULL),
    /* ---- end of issue 26 part B ---- */
    /* ---- issue 26 part A: struct decoders (files, fds, signals, processes) ---- */
    D(utimensat, 4, RV_DEC, en_utimensat, NULL, NULL),
#ifdef __NR_getdents
    D(getdents, 3, RV_DEC, en_getdents, ex_getdents, NULL),
#endif
    D(flock, 2, RV_DEC, en_flock, NULL, NULL),
#ifdef __NR_sendfile
    D(sendfile, 4, RV_DEC, en_sendfile, ex_sendfile, NULL),
#endif
    D(eventfd2, 2, RV_DEC, en_eventfd2, NULL, NULL),
    D(inotify_init1, 1, RV_DEC, en_inotify_init1, NULL, NULL),
    D(memfd_create, 2, RV_DEC, en_memfd_create, NULL, NULL),
    D(close_range, 3, RV_DEC, en_close_range, NULL, NULL),
    D(sigaltstack, 2, RV_DEC, en_sigaltstack, ex_sigaltstack, NULL),
    D(rt_sigpending, 2, RV_DEC, NULL, ex_rt_sigpending, NULL),
    D(rt_sigsuspend, 2, RV_DEC, en_rt_sigsuspend, NULL, NULL),
    D(rt_sigtimedwait, 4, RV_DEC, en_rt_sigtimedwait, ex_rt_sigtimedwait, rt_signo),
    D(rt_sigqueueinfo, 3, RV_DEC, en_rt_sigqueueinfo, NULL, NULL),
    D(rt_tgsigqueueinfo, 4, RV_DEC, en_rt_tgsigqueueinfo, NULL, NULL),
    D(waitid, 5, RV_DEC, en_waitid, ex_waitid, NULL),
    D(getrusage, 2, RV_DEC, en_getrusage, ex_getrusage, NULL),
#ifdef __NR_getrlimit
    D(getrlimit, 2, RV_DEC, en_rlimit_res, ex_getrlimit, NULL),
#endif
    D(setrlimit, 2, RV_DEC, en_setrlimit, NULL, NULL), D(uname, 1, RV_DEC, NULL, ex_uname, NULL),
    D(sysinfo, 1, RV_DEC, NULL, ex_sysinfo, NULL),
    D(getpriority, 2, RV_DEC, en_getpriority, NULL, NULL),
    D(setpriority, 3, RV_DEC, en_setpriority, NULL, NULL),
    D(personality, 1, RV_DEC, en_personality, NULL, rt_personality),
    D(sched_setaffinity, 3, RV_DEC, en_sched_setaffinity, NULL, NULL),
    D(sched_getaffinity, 3, RV_DEC, en_sched_getaffinity, ex_sched_getaffinity, NULL),
    D(getcpu, 3, RV_DEC, NULL, ex_getcpu, NULL), D(prctl, 5, RV_DEC, en_prctl, ex_prctl, rt_prctl),
    /* ---- end of issue 26 part A ---- */
};

#define NDESCS ((int64_t)(sizeof descs / sizeof descs[0]))

static const struct sc_desc *lookup(int64_t nr) {
  if (nr < 0 || nr >= NDESCS || !descs[nr].name) return NULL;
  return &descs[nr];
}

/* ======================================================================== */
/* Public API                                                                */
/* ======================================================================== */
int sc_is_error(int64_t ret) { return ret >= -4095 && ret <= -1; }

int sc_nargs(int64_t nr) {
  const struct sc_sysent *e = sc_sysent_of(nr);
  if (e) return e->nargs;
  const struct sc_desc *s = lookup(nr);
  return s ? s->nargs : -1;
}

int sc_decoded(int64_t nr) { return lookup(nr) != NULL; }

const char *sc_errno_name(int err) { return sc_errno_table_name(err); }

const char *sc_name(const struct sc_env *env, int64_t nr, char *buf, size_t cap) {
  const char *n = NULL;
  if (env && env->syscall_name) n = env->syscall_name(env->ctx, nr);
  if (!n) {
    const struct sc_desc *s = lookup(nr);
    if (s) n = s->name;
  }
  if (!n) {
    const struct sc_sysent *e = sc_sysent_of(nr);
    if (e) n = e->name;
  }
  if (n) return n;
  if (buf && cap) {
    snprintf(buf, cap, "syscall_%#llx", (unsigned long long)nr);
    return buf;
  }
  return "syscall_?";
}

/* -1 ENOENT (No such file or directory); the kernel's restart codes the way
 * strace shows them: ? ERESTARTSYS (To be restarted if SA_RESTART is set). */
static void put_error(struct ob *o, int64_t ret) {
  int e = (int)-ret;
  const char *restart = NULL;
  switch (e) {
  case 512: restart = "To be restarted if SA_RESTART is set"; break;
  case 513: restart = "To be restarted"; break;
  case 514: restart = "To be restarted if no handler"; break;
  case 516: restart = "Interrupted by signal"; break;
  default: break;
  }
  const char *name = sc_errno_name(e);
  if (restart) {
    ob_printf(o, "? %s (%s)", name, restart);
    return;
  }
  if (name)
    ob_printf(o, "-1 %s (", name);
  else
    ob_printf(o, "-1 ERRNO_%d (", e);
  const char *desc = strerrordesc_np(e);
  if (desc)
    ob_puts(o, desc);
  else
    ob_printf(o, "Unknown error %d", e);
  ob_putc(o, ')');
}

static void put_ret(struct dc *d, const struct sc_desc *s) {
  if (d->failed)
    put_error(d->o, d->ret);
  else if (s && s->ret)
    s->ret(d);
  else if (s && s->rv == RV_HEX)
    put_xnum(d->o, (uint64_t)d->ret);
  else
    put_long(d->o, (uint64_t)d->ret);
}

void sc_enter(const struct sc_env *env, struct sc_call *c, int64_t nr, const uint64_t args[6]) {
  if (!c) return;
  c->nr = nr;
  for (int i = 0; i < 6; i++) c->args[i] = args ? args[i] : 0;
  c->ncarried = 0;
  for (int i = 0; i < SC_MAX_CARRIED; i++) {
    c->carried[i][0] = '\0';
    c->carried_len[i] = 0;
    c->carried_more[i] = 0;
  }
  c->priv_savedok = 0;
  c->priv_saved[0] = c->priv_saved[1] = 0;
  c->priv_flags = env ? env->flags : 0;
  c->priv_strlim = env && env->string_limit          ? env->string_limit
                   : (c->priv_flags & SC_ENV_STRACE) ? SC_STRACE_STR_DEFAULT
                                                     : 0;

  struct ob o;
  ob_init(&o, c->text, sizeof c->text);
  o.strace = (c->priv_flags & SC_ENV_STRACE) != 0;
  struct dc d = {.env = env, .c = c, .o = &o};
  char nbuf[32];
  ob_puts(&o, sc_name(env, nr, nbuf, sizeof nbuf));
  ob_putc(&o, '(');
  const struct sc_desc *s = lookup(nr);
  const struct sc_sysent *e = sc_sysent_of(nr);
  if (s) {
    if (s->entry) s->entry(&d);
  } else if (e) { /* no decoder: each argument at its kind (syscalls.in) */
    put_args_generic(&d, e);
  } else { /* a number the table does not know: all six registers */
    for (int i = 0; i < 6; i++) {
      next(&d);
      put_xnum(&o, c->args[i]);
    }
  }
  c->priv_textlen = (uint32_t)o.len;
  c->priv_magic = SC_MAGIC;
}

/* Shared tail of sc_exit / sc_unfinished. */
static void finish_line(const struct sc_env *env, struct sc_call *c, int have_ret, int64_t ret,
                        char *line, size_t cap) {
  struct ob o;
  ob_init(&o, line, cap);
  o.strace = c->priv_magic == SC_MAGIC && (c->priv_flags & SC_ENV_STRACE);
  if (c->priv_magic != SC_MAGIC) { /* no entry seen (attached mid-call) */
    char nbuf[32];
    ob_puts(&o, sc_name(env, c->nr, nbuf, sizeof nbuf));
    ob_puts(&o, "(...)");
    c->eq_at = (uint32_t)o.len;
    ob_puts(&o, " = ");
    if (!have_ret)
      ob_putc(&o, '?');
    else if (sc_is_error(ret))
      put_error(&o, ret);
    else
      put_long(&o, (uint64_t)ret);
    ob_finish(&o);
    return;
  }
  ob_putn(&o, c->text, strnlen(c->text, sizeof c->text));
  const struct sc_desc *s = lookup(c->nr);
  struct dc d = {.env = env,
                 .c = c,
                 .o = &o,
                 .have_ret = have_ret,
                 .failed = have_ret && sc_is_error(ret),
                 .ret = ret};
  if (s && s->exit) s->exit(&d);
  ob_putc(&o, ')');
  c->eq_at = (uint32_t)o.len;
  ob_puts(&o, " = ");
  if (have_ret)
    put_ret(&d, s);
  else
    ob_putc(&o, '?');
  ob_finish(&o);
  c->priv_magic = 0; /* a second exit for the same entry is not this call */
}

void sc_exit(const struct sc_env *env, struct sc_call *c, int64_t ret, char *line, size_t cap) {
  if (!c || !line || !cap) return;
  finish_line(env, c, 1, ret, line, cap);
}

void sc_unfinished(struct sc_call *c, char *line, size_t cap) {
  if (!c || !line || !cap) return;
  finish_line(NULL, c, 0, 0, line, cap);
}
