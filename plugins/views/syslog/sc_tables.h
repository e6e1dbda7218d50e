/* sc_tables.h — constant tables for sc_decode.c (strace's "xlat" idea).
 *
 * Each table is a {value, name} array ending in {0, NULL}. Flag tables are
 * printed by one generic printflags (entries tried in order, so a multi-bit
 * name such as O_TMPFILE must come before its component bits), value tables
 * by one generic printxval. All values are the x86-64 Linux ABI.
 */
#ifndef ASMSPY_SC_TABLES_H
#define ASMSPY_SC_TABLES_H

#include <stdint.h>

struct sc_xlat {
  uint64_t val;
  const char *name;
};

/* Name of v in a value table, or NULL. */
const char *sc_xlat_name(const struct sc_xlat *x, uint64_t v);

/* open(2) family */
extern const struct sc_xlat sc_open_accmode[]; /* O_RDONLY/O_WRONLY/O_RDWR (flags & O_ACCMODE) */
extern const struct sc_xlat sc_open_flags[];   /* O_CREAT ... O_TMPFILE, O_DIRECTORY */
extern const struct sc_xlat sc_at_flags[];     /* AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, ... */
extern const struct sc_xlat sc_at_removedir[]; /* unlinkat */
extern const struct sc_xlat sc_access_modes[]; /* R_OK|W_OK|X_OK (0 = F_OK) */
extern const struct sc_xlat sc_faccessat_flags[];
extern const struct sc_xlat sc_rename_flags[];
extern const struct sc_xlat sc_pipe_flags[]; /* pipe2/dup3: O_CLOEXEC, O_NONBLOCK, O_DIRECT */

/* stat */
extern const struct sc_xlat sc_file_types[]; /* S_IFREG ... (mode & S_IFMT) */
extern const struct sc_xlat sc_mode_bits[];  /* S_ISUID, S_ISGID, S_ISVTX */
extern const struct sc_xlat sc_statx_masks[];
extern const struct sc_xlat sc_statx_sync[];  /* (flags & AT_STATX_SYNC_TYPE) */
extern const struct sc_xlat sc_statx_flags[]; /* the remaining AT_* bits */

extern const struct sc_xlat sc_seek_whence[];

/* memory */
extern const struct sc_xlat sc_mmap_prot[];
extern const struct sc_xlat sc_mmap_type[]; /* (flags & MAP_TYPE) */
extern const struct sc_xlat sc_mmap_flags[];

/* processes, signals, time */
extern const struct sc_xlat sc_clone_flags[];  /* clone(2): low byte is the exit signal */
extern const struct sc_xlat sc_clone3_flags[]; /* clone3(2): 64-bit, no signal byte */
extern const struct sc_xlat sc_sa_flags[];
extern const struct sc_xlat sc_sigprocmask_how[];
extern const struct sc_xlat sc_clocks[];
extern const struct sc_xlat sc_clock_flags[]; /* TIMER_ABSTIME */
extern const struct sc_xlat sc_wait_options[];
extern const struct sc_xlat sc_arch_prctl_codes[];
extern const struct sc_xlat sc_rlimit_resources[];
extern const struct sc_xlat sc_getrandom_flags[];

/* Signal name "SIGINT" for 1..31, NULL otherwise (realtime ones are computed). */
const char *sc_signal_name(int sig);

/* fd control */
extern const struct sc_xlat sc_ioctl_requests[];
extern const struct sc_xlat sc_fcntl_cmds[];
extern const struct sc_xlat sc_fd_flags[]; /* FD_CLOEXEC */
extern const struct sc_xlat sc_lock_types[];

/* futex */
extern const struct sc_xlat sc_futex_cmds[]; /* op & FUTEX_CMD_MASK */
extern const struct sc_xlat sc_futex_wake_ops[];
extern const struct sc_xlat sc_futex_wake_cmps[];

/* sockets */
extern const struct sc_xlat sc_address_families[];
extern const struct sc_xlat sc_socket_types[]; /* type & 0xf */
extern const struct sc_xlat sc_socket_flags[]; /* SOCK_CLOEXEC, SOCK_NONBLOCK */
extern const struct sc_xlat sc_inet_protocols[];
extern const struct sc_xlat sc_msg_flags[];
extern const struct sc_xlat sc_shutdown_how[];

/* readiness */
extern const struct sc_xlat sc_poll_events[];
extern const struct sc_xlat sc_epoll_events[];
extern const struct sc_xlat sc_epoll_ctl_ops[];
extern const struct sc_xlat sc_epoll_create_flags[];

/* errno: name and kernel-internal restart codes */
const char *sc_errno_table_name(int err);

#endif /* ASMSPY_SC_TABLES_H */
