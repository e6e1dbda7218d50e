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
extern const struct sc_xlat sc_fadvise_advice[];

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

/* ---- issue 26 part B: socket options, memory advice, timers, misc ---- */
extern const struct sc_xlat sc_socketlayers[];
extern const struct sc_xlat sc_sock_options[];    /* SOL_SOCKET */
extern const struct sc_xlat sc_sock_ip_options[]; /* SOL_IP */
extern const struct sc_xlat sc_sock_ipv6_options[];
extern const struct sc_xlat sc_sock_tcp_options[];
extern const struct sc_xlat sc_sock_udp_options[];
extern const struct sc_xlat sc_scm_types[];     /* cmsg_type at SOL_SOCKET */
extern const struct sc_xlat sc_ip_cmsg_types[]; /* cmsg_type at SOL_IP */
extern const struct sc_xlat sc_madvise_cmds[];
extern const struct sc_xlat sc_msync_flags[];
extern const struct sc_xlat sc_mlockall_flags[];
extern const struct sc_xlat sc_mlock_flags[];
extern const struct sc_xlat sc_mremap_flags[];
extern const struct sc_xlat sc_membarrier_cmds[];
extern const struct sc_xlat sc_membarrier_flags[];
extern const struct sc_xlat sc_pkey_access[];
extern const struct sc_xlat sc_itimer_which[];
extern const struct sc_xlat sc_timerfd_create_flags[];
extern const struct sc_xlat sc_timerfd_settime_flags[];
extern const struct sc_xlat sc_sigev_notify[];
extern const struct sc_xlat sc_cap_versions[];
extern const struct sc_xlat sc_seccomp_ops[];
extern const struct sc_xlat sc_seccomp_ret_actions[];
extern const struct sc_xlat sc_seccomp_filter_flags[];
extern const struct sc_xlat sc_netlink_protocols[];
extern const struct sc_xlat sc_ethernet_protocols[]; /* ETH_P_*, host order */
extern const struct sc_xlat sc_arphrd_types[];
extern const struct sc_xlat sc_packet_types[]; /* sll_pkttype */
const char *sc_cap_name(unsigned bit);         /* "CAP_CHOWN" for 0, NULL past the last */

#endif /* ASMSPY_SC_TABLES_H */
