/* sc_tables.c — constant tables for the syscall decoder (see sc_tables.h).
 *
 * X(NAME) takes the value from the system headers; L(value, "NAME") spells
 * out an x86-64 ABI value the userspace headers lack or define differently
 * (glibc's O_LARGEFILE is 0 on x86-64, the kernel's is 0100000).
 */
#define _GNU_SOURCE
#include "sc_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#define X(v) {(uint64_t)(v), #v}
#define L(v, n) {(uint64_t)(v), n}
#define END {0, NULL}

const char *sc_xlat_name(const struct sc_xlat *x, uint64_t v) {
  for (; x && x->name; x++)
    if (x->val == v) return x->name;
  return NULL;
}

/* ---- open(2) family ------------------------------------------------------ */
const struct sc_xlat sc_open_accmode[] = {X(O_RDONLY), X(O_WRONLY), X(O_RDWR), END};

/* Print order follows strace (O_..._CLOEXEC|O_DIRECTORY, O_CLOEXEC|O_TMPFILE);
 * the multi-bit O_SYNC and O_TMPFILE precede O_DSYNC and O_DIRECTORY. */
const struct sc_xlat sc_open_flags[] = {
    X(O_CREAT),  X(O_EXCL),     X(O_NOCTTY),   X(O_TRUNC),   X(O_APPEND),
    X(O_NONBLOCK), L(04010000, "O_SYNC"), X(O_DSYNC), L(020000, "O_ASYNC"),
    X(O_DIRECT), L(0100000, "O_LARGEFILE"), X(O_NOFOLLOW), X(O_NOATIME), X(O_CLOEXEC),
    X(O_PATH),   L(020200000, "O_TMPFILE"), X(O_DIRECTORY), END};

const struct sc_xlat sc_at_flags[] = {X(AT_SYMLINK_NOFOLLOW), X(AT_SYMLINK_FOLLOW),
                                      X(AT_NO_AUTOMOUNT), X(AT_EMPTY_PATH), END};
const struct sc_xlat sc_at_removedir[] = {X(AT_REMOVEDIR), END};
const struct sc_xlat sc_access_modes[] = {X(R_OK), X(W_OK), X(X_OK), END};
const struct sc_xlat sc_faccessat_flags[] = {X(AT_SYMLINK_NOFOLLOW), X(AT_EACCESS),
                                             X(AT_EMPTY_PATH), END};
const struct sc_xlat sc_rename_flags[] = {L(1, "RENAME_NOREPLACE"), L(2, "RENAME_EXCHANGE"),
                                          L(4, "RENAME_WHITEOUT"), END};
const struct sc_xlat sc_pipe_flags[] = {X(O_NONBLOCK), X(O_DIRECT), X(O_CLOEXEC),
                                        L(0x80, "O_NOTIFICATION_PIPE"), END};

/* ---- stat ------------------------------------------------------------------ */
const struct sc_xlat sc_file_types[] = {X(S_IFREG), X(S_IFDIR), X(S_IFLNK),  X(S_IFCHR),
                                        X(S_IFBLK), X(S_IFIFO), X(S_IFSOCK), END};
const struct sc_xlat sc_mode_bits[] = {X(S_ISUID), X(S_ISGID), X(S_ISVTX), END};
const struct sc_xlat sc_statx_masks[] = {
    L(0xfff, "STATX_ALL"),    L(0x7ff, "STATX_BASIC_STATS"), L(0x1, "STATX_TYPE"),
    L(0x2, "STATX_MODE"),     L(0x4, "STATX_NLINK"),         L(0x8, "STATX_UID"),
    L(0x10, "STATX_GID"),     L(0x20, "STATX_ATIME"),        L(0x40, "STATX_MTIME"),
    L(0x80, "STATX_CTIME"),   L(0x100, "STATX_INO"),         L(0x200, "STATX_SIZE"),
    L(0x400, "STATX_BLOCKS"), L(0x800, "STATX_BTIME"),       L(0x1000, "STATX_MNT_ID"),
    L(0x2000, "STATX_DIOALIGN"), END};
const struct sc_xlat sc_statx_sync[] = {L(0x0000, "AT_STATX_SYNC_AS_STAT"),
                                        L(0x2000, "AT_STATX_FORCE_SYNC"),
                                        L(0x4000, "AT_STATX_DONT_SYNC"), END};
const struct sc_xlat sc_statx_flags[] = {X(AT_SYMLINK_NOFOLLOW), X(AT_NO_AUTOMOUNT),
                                         X(AT_EMPTY_PATH), END};

const struct sc_xlat sc_seek_whence[] = {X(SEEK_SET), X(SEEK_CUR),  X(SEEK_END),
                                         X(SEEK_DATA), X(SEEK_HOLE), END};

/* ---- memory ---------------------------------------------------------------- */
const struct sc_xlat sc_mmap_prot[] = {X(PROT_READ), X(PROT_WRITE), X(PROT_EXEC),
                                       L(0x8, "PROT_SEM"), X(PROT_GROWSDOWN), X(PROT_GROWSUP),
                                       END};
const struct sc_xlat sc_mmap_type[] = {X(MAP_SHARED), X(MAP_PRIVATE), L(0x3, "MAP_SHARED_VALIDATE"),
                                       END};
const struct sc_xlat sc_mmap_flags[] = {
    X(MAP_FIXED),    X(MAP_ANONYMOUS), L(0x40, "MAP_32BIT") /* x86-64 only */, X(MAP_GROWSDOWN), X(MAP_DENYWRITE),
    X(MAP_EXECUTABLE), X(MAP_LOCKED),  X(MAP_NORESERVE), X(MAP_POPULATE),  X(MAP_NONBLOCK),
    X(MAP_STACK),    X(MAP_HUGETLB),   L(0x80000, "MAP_SYNC"), L(0x100000, "MAP_FIXED_NOREPLACE"),
    L(0x4000000, "MAP_UNINITIALIZED"), END};

/* ---- processes, signals, time --------------------------------------------- */
#define CLONE_COMMON                                                                               \
  L(0x00000100, "CLONE_VM"), L(0x00000200, "CLONE_FS"), L(0x00000400, "CLONE_FILES"),              \
      L(0x00000800, "CLONE_SIGHAND"), L(0x00001000, "CLONE_PIDFD"),                                \
      L(0x00002000, "CLONE_PTRACE"), L(0x00004000, "CLONE_VFORK"),                                 \
      L(0x00008000, "CLONE_PARENT"), L(0x00010000, "CLONE_THREAD"),                                \
      L(0x00020000, "CLONE_NEWNS"), L(0x00040000, "CLONE_SYSVSEM"),                                \
      L(0x00080000, "CLONE_SETTLS"), L(0x00100000, "CLONE_PARENT_SETTID"),                         \
      L(0x00200000, "CLONE_CHILD_CLEARTID"), L(0x00400000, "CLONE_DETACHED"),                      \
      L(0x00800000, "CLONE_UNTRACED"), L(0x01000000, "CLONE_CHILD_SETTID"),                        \
      L(0x02000000, "CLONE_NEWCGROUP"), L(0x04000000, "CLONE_NEWUTS"),                             \
      L(0x08000000, "CLONE_NEWIPC"), L(0x10000000, "CLONE_NEWUSER"),                               \
      L(0x20000000, "CLONE_NEWPID"), L(0x40000000, "CLONE_NEWNET"), L(0x80000000, "CLONE_IO")
const struct sc_xlat sc_clone_flags[] = {CLONE_COMMON, END};
const struct sc_xlat sc_clone3_flags[] = {L(0x80, "CLONE_NEWTIME"), CLONE_COMMON,
                                          L(0x100000000ull, "CLONE_CLEAR_SIGHAND"),
                                          L(0x200000000ull, "CLONE_INTO_CGROUP"), END};

/* strace 6.1's names and order (RESTORER first); it does not know
 * SA_UNSUPPORTED (0x400) or SA_EXPOSE_TAGBITS (0x800): they print as hex */
const struct sc_xlat sc_sa_flags[] = {
    L(0x04000000, "SA_RESTORER"), L(0x08000000, "SA_ONSTACK"), L(0x10000000, "SA_RESTART"),
    L(0x40000000, "SA_NODEFER"), L(0x80000000, "SA_RESETHAND"), L(0x00000004, "SA_SIGINFO"),
    L(0x00000001, "SA_NOCLDSTOP"), L(0x00000002, "SA_NOCLDWAIT"), END};
const struct sc_xlat sc_sigprocmask_how[] = {X(SIG_BLOCK), X(SIG_UNBLOCK), X(SIG_SETMASK), END};
const struct sc_xlat sc_clocks[] = {
    X(CLOCK_REALTIME),        X(CLOCK_MONOTONIC),       X(CLOCK_PROCESS_CPUTIME_ID),
    X(CLOCK_THREAD_CPUTIME_ID), X(CLOCK_MONOTONIC_RAW), X(CLOCK_REALTIME_COARSE),
    X(CLOCK_MONOTONIC_COARSE), X(CLOCK_BOOTTIME),       X(CLOCK_REALTIME_ALARM),
    X(CLOCK_BOOTTIME_ALARM),  X(CLOCK_TAI),             END};
const struct sc_xlat sc_clock_flags[] = {X(TIMER_ABSTIME), END};
const struct sc_xlat sc_wait_options[] = {X(WNOHANG), X(WUNTRACED), X(WCONTINUED),
                                          L(0x20000000, "__WNOTHREAD"), L(0x40000000, "__WALL"),
                                          L(0x80000000, "__WCLONE"), END};
const struct sc_xlat sc_arch_prctl_codes[] = {
    L(0x1001, "ARCH_SET_GS"), L(0x1002, "ARCH_SET_FS"), L(0x1003, "ARCH_GET_FS"),
    L(0x1004, "ARCH_GET_GS"), L(0x1011, "ARCH_GET_CPUID"), L(0x1012, "ARCH_SET_CPUID"),
    L(0x1021, "ARCH_GET_XCOMP_SUPP"), L(0x1022, "ARCH_GET_XCOMP_PERM"),
    L(0x1023, "ARCH_REQ_XCOMP_PERM"), L(0x2001, "ARCH_MAP_VDSO_X32"),
    L(0x2002, "ARCH_MAP_VDSO_32"), L(0x2003, "ARCH_MAP_VDSO_64"), END};
const struct sc_xlat sc_rlimit_resources[] = {
    X(RLIMIT_CPU),  X(RLIMIT_FSIZE), X(RLIMIT_DATA),       X(RLIMIT_STACK),
    X(RLIMIT_CORE), X(RLIMIT_RSS),   X(RLIMIT_NPROC),      X(RLIMIT_NOFILE),
    X(RLIMIT_MEMLOCK), X(RLIMIT_AS), X(RLIMIT_LOCKS),      X(RLIMIT_SIGPENDING),
    X(RLIMIT_MSGQUEUE), X(RLIMIT_NICE), X(RLIMIT_RTPRIO),  X(RLIMIT_RTTIME), END};
const struct sc_xlat sc_getrandom_flags[] = {L(1, "GRND_NONBLOCK"), L(2, "GRND_RANDOM"),
                                             L(4, "GRND_INSECURE"), END};

static const char *const signal_names[32] = {
    [1] = "SIGHUP",   [2] = "SIGINT",     [3] = "SIGQUIT",  [4] = "SIGILL",  [5] = "SIGTRAP",
    [6] = "SIGABRT",  [7] = "SIGBUS",     [8] = "SIGFPE",   [9] = "SIGKILL", [10] = "SIGUSR1",
    [11] = "SIGSEGV", [12] = "SIGUSR2",   [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM",
    [16] = "SIGSTKFLT", [17] = "SIGCHLD", [18] = "SIGCONT", [19] = "SIGSTOP", [20] = "SIGTSTP",
    [21] = "SIGTTIN", [22] = "SIGTTOU",   [23] = "SIGURG",  [24] = "SIGXCPU", [25] = "SIGXFSZ",
    [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH", [29] = "SIGIO", [30] = "SIGPWR",
    [31] = "SIGSYS",
};

const char *sc_signal_name(int sig) {
  return (sig > 0 && sig < 32) ? signal_names[sig] : NULL;
}

/* ---- fd control ------------------------------------------------------------ */
const struct sc_xlat sc_ioctl_requests[] = {
    L(0x5401, "TCGETS"),     L(0x5402, "TCSETS"),     L(0x5403, "TCSETSW"),
    L(0x5404, "TCSETSF"),    L(0x540b, "TCFLSH"),     L(0x540e, "TIOCSCTTY"),
    L(0x540f, "TIOCGPGRP"),  L(0x5410, "TIOCSPGRP"),  L(0x5413, "TIOCGWINSZ"),
    L(0x5414, "TIOCSWINSZ"), L(0x541b, "FIONREAD"),   L(0x5421, "FIONBIO"),
    L(0x5450, "FIONCLEX"),   L(0x5451, "FIOCLEX"),    L(0x5452, "FIOASYNC"),
    L(0x80045430, "TIOCGPTN"), L(0x40045431, "TIOCSPTLCK"), END};
const struct sc_xlat sc_fcntl_cmds[] = {
    L(0, "F_DUPFD"),        L(1, "F_GETFD"),          L(2, "F_SETFD"),
    L(3, "F_GETFL"),        L(4, "F_SETFL"),          L(5, "F_GETLK"),
    L(6, "F_SETLK"),        L(7, "F_SETLKW"),         L(8, "F_SETOWN"),
    L(9, "F_GETOWN"),       L(10, "F_SETSIG"),        L(11, "F_GETSIG"),
    L(15, "F_SETOWN_EX"),   L(16, "F_GETOWN_EX"),     L(36, "F_OFD_GETLK"),
    L(37, "F_OFD_SETLK"),   L(38, "F_OFD_SETLKW"),    L(1024, "F_SETLEASE"),
    L(1025, "F_GETLEASE"),  L(1026, "F_NOTIFY"),      L(1030, "F_DUPFD_CLOEXEC"),
    L(1031, "F_SETPIPE_SZ"), L(1032, "F_GETPIPE_SZ"), L(1033, "F_ADD_SEALS"),
    L(1034, "F_GET_SEALS"), END};
const struct sc_xlat sc_fd_flags[] = {X(FD_CLOEXEC), END};
const struct sc_xlat sc_lock_types[] = {X(F_RDLCK), X(F_WRLCK), X(F_UNLCK), END};

/* ---- futex ------------------------------------------------------------------ */
const struct sc_xlat sc_futex_cmds[] = {
    L(0, "FUTEX_WAIT"),         L(1, "FUTEX_WAKE"),        L(2, "FUTEX_FD"),
    L(3, "FUTEX_REQUEUE"),      L(4, "FUTEX_CMP_REQUEUE"), L(5, "FUTEX_WAKE_OP"),
    L(6, "FUTEX_LOCK_PI"),      L(7, "FUTEX_UNLOCK_PI"),   L(8, "FUTEX_TRYLOCK_PI"),
    L(9, "FUTEX_WAIT_BITSET"),  L(10, "FUTEX_WAKE_BITSET"), L(11, "FUTEX_WAIT_REQUEUE_PI"),
    L(12, "FUTEX_CMP_REQUEUE_PI"), L(13, "FUTEX_LOCK_PI2"), END};
const struct sc_xlat sc_futex_wake_ops[] = {L(0, "FUTEX_OP_SET"), L(1, "FUTEX_OP_ADD"),
                                            L(2, "FUTEX_OP_OR"),  L(3, "FUTEX_OP_ANDN"),
                                            L(4, "FUTEX_OP_XOR"), END};
const struct sc_xlat sc_futex_wake_cmps[] = {
    L(0, "FUTEX_OP_CMP_EQ"), L(1, "FUTEX_OP_CMP_NE"), L(2, "FUTEX_OP_CMP_LT"),
    L(3, "FUTEX_OP_CMP_LE"), L(4, "FUTEX_OP_CMP_GT"), L(5, "FUTEX_OP_CMP_GE"), END};

/* ---- sockets ------------------------------------------------------------------ */
const struct sc_xlat sc_address_families[] = {
    L(0, "AF_UNSPEC"),   L(1, "AF_UNIX"),     L(2, "AF_INET"),     L(3, "AF_AX25"),
    L(4, "AF_IPX"),      L(5, "AF_APPLETALK"), L(6, "AF_NETROM"),  L(7, "AF_BRIDGE"),
    L(8, "AF_ATMPVC"),   L(9, "AF_X25"),      L(10, "AF_INET6"),   L(11, "AF_ROSE"),
    L(12, "AF_DECnet"),  L(13, "AF_NETBEUI"), L(14, "AF_SECURITY"), L(15, "AF_KEY"),
    L(16, "AF_NETLINK"), L(17, "AF_PACKET"),  L(18, "AF_ASH"),     L(19, "AF_ECONET"),
    L(20, "AF_ATMSVC"),  L(21, "AF_RDS"),     L(22, "AF_SNA"),     L(23, "AF_IRDA"),
    L(24, "AF_PPPOX"),   L(25, "AF_WANPIPE"), L(26, "AF_LLC"),     L(27, "AF_IB"),
    L(28, "AF_MPLS"),    L(29, "AF_CAN"),     L(30, "AF_TIPC"),    L(31, "AF_BLUETOOTH"),
    L(32, "AF_IUCV"),    L(33, "AF_RXRPC"),   L(34, "AF_ISDN"),    L(35, "AF_PHONET"),
    L(36, "AF_IEEE802154"), L(37, "AF_CAIF"), L(38, "AF_ALG"),     L(39, "AF_NFC"),
    L(40, "AF_VSOCK"),   L(41, "AF_KCM"),     L(42, "AF_QIPCRTR"), L(43, "AF_SMC"),
    L(44, "AF_XDP"),     L(45, "AF_MCTP"),    END};
const struct sc_xlat sc_socket_types[] = {X(SOCK_STREAM), X(SOCK_DGRAM),     X(SOCK_RAW),
                                          X(SOCK_RDM),    X(SOCK_SEQPACKET), X(SOCK_DCCP),
                                          X(SOCK_PACKET), END};
const struct sc_xlat sc_socket_flags[] = {X(SOCK_CLOEXEC), X(SOCK_NONBLOCK), END};
const struct sc_xlat sc_inet_protocols[] = {
    X(IPPROTO_IP),   X(IPPROTO_ICMP), X(IPPROTO_IGMP),   X(IPPROTO_IPIP), X(IPPROTO_TCP),
    X(IPPROTO_EGP),  X(IPPROTO_PUP),  X(IPPROTO_UDP),    X(IPPROTO_IDP),  X(IPPROTO_TP),
    X(IPPROTO_DCCP), X(IPPROTO_IPV6), X(IPPROTO_RSVP),   X(IPPROTO_GRE),  X(IPPROTO_ESP),
    X(IPPROTO_AH),   X(IPPROTO_ICMPV6), X(IPPROTO_MTP),  X(IPPROTO_BEETPH), X(IPPROTO_ENCAP),
    X(IPPROTO_PIM),  X(IPPROTO_COMP), X(IPPROTO_SCTP),   X(IPPROTO_UDPLITE), X(IPPROTO_MPLS),
    X(IPPROTO_RAW),  L(262, "IPPROTO_MPTCP"), END};
const struct sc_xlat sc_msg_flags[] = {
    X(MSG_OOB),       X(MSG_PEEK),    X(MSG_DONTROUTE), X(MSG_CTRUNC),   X(MSG_PROXY),
    X(MSG_TRUNC),     X(MSG_DONTWAIT), X(MSG_EOR),      X(MSG_WAITALL),  X(MSG_FIN),
    X(MSG_SYN),       X(MSG_CONFIRM), X(MSG_RST),       X(MSG_ERRQUEUE), X(MSG_NOSIGNAL),
    X(MSG_MORE),      X(MSG_WAITFORONE), X(MSG_BATCH),  X(MSG_ZEROCOPY), X(MSG_FASTOPEN),
    X(MSG_CMSG_CLOEXEC), END};
const struct sc_xlat sc_shutdown_how[] = {X(SHUT_RD), X(SHUT_WR), X(SHUT_RDWR), END};

/* ---- readiness ------------------------------------------------------------- */
const struct sc_xlat sc_poll_events[] = {
    X(POLLIN),     X(POLLPRI),    X(POLLOUT),    X(POLLERR),    X(POLLHUP),
    X(POLLNVAL),   X(POLLRDNORM), X(POLLRDBAND), X(POLLWRNORM), X(POLLWRBAND),
    X(POLLMSG),    X(POLLRDHUP),  END};
const struct sc_xlat sc_epoll_events[] = {
    X(EPOLLIN),     X(EPOLLPRI),     X(EPOLLOUT),     X(EPOLLERR),    X(EPOLLHUP),
    L(0x20, "EPOLLNVAL"), X(EPOLLRDNORM),  X(EPOLLRDBAND),  X(EPOLLWRNORM), X(EPOLLWRBAND),
    X(EPOLLMSG),    X(EPOLLRDHUP),   L(1u << 28, "EPOLLEXCLUSIVE"),
    L(1u << 29, "EPOLLWAKEUP"), L(1u << 30, "EPOLLONESHOT"), L(1u << 31, "EPOLLET"), END};
const struct sc_xlat sc_epoll_ctl_ops[] = {X(EPOLL_CTL_ADD), X(EPOLL_CTL_DEL), X(EPOLL_CTL_MOD),
                                           END};
const struct sc_xlat sc_epoll_create_flags[] = {X(EPOLL_CLOEXEC), END};

/* ---- errno ------------------------------------------------------------------ */
#define E(n) [n] = #n
static const char *const errno_names[] = {
    E(EPERM),        E(ENOENT),       E(ESRCH),          E(EINTR),         E(EIO),
    E(ENXIO),        E(E2BIG),        E(ENOEXEC),        E(EBADF),         E(ECHILD),
    E(EAGAIN),       E(ENOMEM),       E(EACCES),         E(EFAULT),        E(ENOTBLK),
    E(EBUSY),        E(EEXIST),       E(EXDEV),          E(ENODEV),        E(ENOTDIR),
    E(EISDIR),       E(EINVAL),       E(ENFILE),         E(EMFILE),        E(ENOTTY),
    E(ETXTBSY),      E(EFBIG),        E(ENOSPC),         E(ESPIPE),        E(EROFS),
    E(EMLINK),       E(EPIPE),        E(EDOM),           E(ERANGE),        E(EDEADLK),
    E(ENAMETOOLONG), E(ENOLCK),       E(ENOSYS),         E(ENOTEMPTY),     E(ELOOP),
    E(ENOMSG),       E(EIDRM),        E(ECHRNG),         E(EL2NSYNC),      E(EL3HLT),
    E(EL3RST),       E(ELNRNG),       E(EUNATCH),        E(ENOCSI),        E(EL2HLT),
    E(EBADE),        E(EBADR),        E(EXFULL),         E(ENOANO),        E(EBADRQC),
    E(EBADSLT),      E(EBFONT),       E(ENOSTR),         E(ENODATA),       E(ETIME),
    E(ENOSR),        E(ENONET),       E(ENOPKG),         E(EREMOTE),       E(ENOLINK),
    E(EADV),         E(ESRMNT),       E(ECOMM),          E(EPROTO),        E(EMULTIHOP),
    E(EDOTDOT),      E(EBADMSG),      E(EOVERFLOW),      E(ENOTUNIQ),      E(EBADFD),
    E(EREMCHG),      E(ELIBACC),      E(ELIBBAD),        E(ELIBSCN),       E(ELIBMAX),
    E(ELIBEXEC),     E(EILSEQ),       E(ERESTART),       E(ESTRPIPE),      E(EUSERS),
    E(ENOTSOCK),     E(EDESTADDRREQ), E(EMSGSIZE),       E(EPROTOTYPE),    E(ENOPROTOOPT),
    E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
    E(EADDRINUSE),   E(EADDRNOTAVAIL), E(ENETDOWN),      E(ENETUNREACH),   E(ENETRESET),
    E(ECONNABORTED), E(ECONNRESET),   E(ENOBUFS),        E(EISCONN),       E(ENOTCONN),
    E(ESHUTDOWN),    E(ETOOMANYREFS), E(ETIMEDOUT),      E(ECONNREFUSED),  E(EHOSTDOWN),
    E(EHOSTUNREACH), E(EALREADY),     E(EINPROGRESS),    E(ESTALE),        E(EUCLEAN),
    E(ENOTNAM),      E(ENAVAIL),      E(EISNAM),         E(EREMOTEIO),     E(EDQUOT),
    E(ENOMEDIUM),    E(EMEDIUMTYPE),  E(ECANCELED),      E(ENOKEY),        E(EKEYEXPIRED),
    E(EKEYREVOKED),  E(EKEYREJECTED), E(EOWNERDEAD),     E(ENOTRECOVERABLE), E(ERFKILL),
    E(EHWPOISON),
};
#undef E

/* Kernel-internal codes a tracer can see at a syscall-exit stop
 * (include/linux/errno.h). */
static const char *const kernel_errno_names[] = {
    [512 - 512] = "ERESTARTSYS",     [513 - 512] = "ERESTARTNOINTR",
    [514 - 512] = "ERESTARTNOHAND",  [515 - 512] = "ENOIOCTLCMD",
    [516 - 512] = "ERESTART_RESTARTBLOCK", [517 - 512] = "EPROBE_DEFER",
    [518 - 512] = "EOPENSTALE",      [519 - 512] = "ENOPARAM",
    [521 - 512] = "EBADHANDLE",      [522 - 512] = "ENOTSYNC",
    [523 - 512] = "EBADCOOKIE",      [524 - 512] = "ENOTSUPP",
    [525 - 512] = "ETOOSMALL",       [526 - 512] = "ESERVERFAULT",
    [527 - 512] = "EBADTYPE",        [528 - 512] = "EJUKEBOX",
    [529 - 512] = "EIOCBQUEUED",     [530 - 512] = "ERECALLCONFLICT",
};

const char *sc_errno_table_name(int err) {
  if (err < 0) err = -err;
  if (err > 0 && (size_t)err < sizeof errno_names / sizeof errno_names[0]) return errno_names[err];
  if (err >= 512 && (size_t)(err - 512) < sizeof kernel_errno_names / sizeof kernel_errno_names[0])
    return kernel_errno_names[err - 512];
  return NULL;
}
