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

/* The tables are laid out by hand, several entries a line in strace's order:
 * clang-format would put one per line. */
/* clang-format off */
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
/* fadvise64's advice, x86-64/AArch64 values (s390's 4/5 differ) */
const struct sc_xlat sc_fadvise_advice[] = {
    L(0, "POSIX_FADV_NORMAL"),   L(1, "POSIX_FADV_RANDOM"),   L(2, "POSIX_FADV_SEQUENTIAL"),
    L(3, "POSIX_FADV_WILLNEED"), L(4, "POSIX_FADV_DONTNEED"), L(5, "POSIX_FADV_NOREUSE"),
    END};

/* ---- memory ---------------------------------------------------------------- */
const struct sc_xlat sc_mmap_prot[] = {X(PROT_READ), X(PROT_WRITE), X(PROT_EXEC),
                                       L(0x8, "PROT_SEM"), X(PROT_GROWSDOWN), X(PROT_GROWSUP),
                                       END};
const struct sc_xlat sc_mmap_type[] = {X(MAP_SHARED), X(MAP_PRIVATE), L(0x3, "MAP_SHARED_VALIDATE"),
                                       END};
const struct sc_xlat sc_mmap_flags[] = { /* strace's print order */
    X(MAP_FIXED),    X(MAP_ANONYMOUS), L(0x40, "MAP_32BIT") /* x86-64 only */, X(MAP_NORESERVE),
    X(MAP_POPULATE), X(MAP_NONBLOCK),  X(MAP_GROWSDOWN), X(MAP_DENYWRITE), X(MAP_EXECUTABLE),
    X(MAP_LOCKED),   X(MAP_STACK),     X(MAP_HUGETLB),   L(0x80000, "MAP_SYNC"),
    L(0x4000000, "MAP_UNINITIALIZED"), L(0x100000, "MAP_FIXED_NOREPLACE"), END};

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

/* ==== issue 26 part B: sockets options, memory advice, timers, misc ======== */
/* Values are the asm-generic ABI (x86-64 and AArch64 alike), as strace 6.1's
 * xlat tables spell them. */
const struct sc_xlat sc_socketlayers[] = {
    L(0, "SOL_IP"),       L(1, "SOL_SOCKET"),   L(6, "SOL_TCP"),      L(17, "SOL_UDP"),
    L(40, "AF_VSOCK"),    L(41, "SOL_IPV6"),    L(58, "SOL_ICMPV6"),  L(100, "SOL_CAN_BASE"),
    L(101, "SOL_CAN_RAW"), L(132, "SOL_SCTP"),  L(136, "SOL_UDPLITE"), L(255, "SOL_RAW"),
    L(256, "SOL_IPX"),    L(257, "SOL_AX25"),   L(258, "SOL_ATALK"),  L(259, "SOL_NETROM"),
    L(260, "SOL_ROSE"),   L(261, "SOL_DECNET"), L(262, "SOL_X25"),    L(263, "SOL_PACKET"),
    L(264, "SOL_ATM"),    L(265, "SOL_AAL"),    L(266, "SOL_IRDA"),   L(267, "SOL_NETBEUI"),
    L(268, "SOL_LLC"),    L(269, "SOL_DCCP"),   L(270, "SOL_NETLINK"), L(271, "SOL_TIPC"),
    L(272, "SOL_RXRPC"),  L(273, "SOL_PPPOL2TP"), L(274, "SOL_BLUETOOTH"), L(275, "SOL_PNPIPE"),
    L(276, "SOL_RDS"),    L(277, "SOL_IUCV"),   L(278, "SOL_CAIF"),   L(279, "SOL_ALG"),
    L(280, "SOL_NFC"),    L(281, "SOL_KCM"),    L(282, "SOL_TLS"),    L(283, "SOL_XDP"), END};
const struct sc_xlat sc_sock_options[] = {
    L(1, "SO_DEBUG"), L(2, "SO_REUSEADDR"), L(3, "SO_TYPE"), L(4, "SO_ERROR"),
    L(5, "SO_DONTROUTE"), L(6, "SO_BROADCAST"), L(7, "SO_SNDBUF"), L(8, "SO_RCVBUF"),
    L(9, "SO_KEEPALIVE"), L(10, "SO_OOBINLINE"), L(11, "SO_NO_CHECK"), L(12, "SO_PRIORITY"),
    L(13, "SO_LINGER"), L(14, "SO_BSDCOMPAT"), L(15, "SO_REUSEPORT"), L(16, "SO_PASSCRED"),
    L(17, "SO_PEERCRED"), L(18, "SO_RCVLOWAT"), L(19, "SO_SNDLOWAT"), L(20, "SO_RCVTIMEO_OLD"),
    L(21, "SO_SNDTIMEO_OLD"), L(22, "SO_SECURITY_AUTHENTICATION"),
    L(23, "SO_SECURITY_ENCRYPTION_TRANSPORT"), L(24, "SO_SECURITY_ENCRYPTION_NETWORK"),
    L(25, "SO_BINDTODEVICE"), L(27, "SO_DETACH_FILTER"), L(28, "SO_PEERNAME"),
    L(29, "SO_TIMESTAMP_OLD"), L(30, "SO_ACCEPTCONN"), L(31, "SO_PEERSEC"),
    L(32, "SO_SNDBUFFORCE"), L(33, "SO_RCVBUFFORCE"), L(34, "SO_PASSSEC"),
    L(35, "SO_TIMESTAMPNS_OLD"), L(36, "SO_MARK"), L(37, "SO_TIMESTAMPING_OLD"),
    L(38, "SO_PROTOCOL"), L(39, "SO_DOMAIN"), L(40, "SO_RXQ_OVFL"), L(41, "SO_WIFI_STATUS"),
    L(42, "SO_PEEK_OFF"), L(43, "SO_NOFCS"), L(44, "SO_LOCK_FILTER"),
    L(45, "SO_SELECT_ERR_QUEUE"), L(46, "SO_BUSY_POLL"), L(47, "SO_MAX_PACING_RATE"),
    L(48, "SO_BPF_EXTENSIONS"), L(49, "SO_INCOMING_CPU"), L(50, "SO_ATTACH_BPF"),
    L(51, "SO_ATTACH_REUSEPORT_CBPF"), L(52, "SO_ATTACH_REUSEPORT_EBPF"), L(53, "SO_CNX_ADVICE"),
    L(55, "SO_MEMINFO"), L(56, "SO_INCOMING_NAPI_ID"), L(57, "SO_COOKIE"),
    L(59, "SO_PEERGROUPS"), L(60, "SO_ZEROCOPY"), L(61, "SO_TXTIME"), L(62, "SO_BINDTOIFINDEX"),
    L(63, "SO_TIMESTAMP_NEW"), L(64, "SO_TIMESTAMPNS_NEW"), L(65, "SO_TIMESTAMPING_NEW"),
    L(66, "SO_RCVTIMEO_NEW"), L(67, "SO_SNDTIMEO_NEW"), L(68, "SO_DETACH_REUSEPORT_BPF"),
    L(69, "SO_PREFER_BUSY_POLL"), L(70, "SO_BUSY_POLL_BUDGET"), L(71, "SO_NETNS_COOKIE"),
    L(72, "SO_BUF_LOCK"), L(73, "SO_RESERVE_MEM"), L(74, "SO_TXREHASH"), L(75, "SO_RCVMARK"),
    END};
const struct sc_xlat sc_sock_ip_options[] = {
    L(1, "IP_TOS"), L(2, "IP_TTL"), L(3, "IP_HDRINCL"), L(4, "IP_OPTIONS"),
    L(5, "IP_ROUTER_ALERT"), L(6, "IP_RECVOPTS"), L(7, "IP_RETOPTS"), L(8, "IP_PKTINFO"),
    L(9, "IP_PKTOPTIONS"), L(10, "IP_MTU_DISCOVER"), L(11, "IP_RECVERR"), L(12, "IP_RECVTTL"),
    L(13, "IP_RECVTOS"), L(14, "IP_MTU"), L(15, "IP_FREEBIND"), L(16, "IP_IPSEC_POLICY"),
    L(17, "IP_XFRM_POLICY"), L(18, "IP_PASSSEC"), L(19, "IP_TRANSPARENT"),
    L(20, "IP_ORIGDSTADDR"), L(21, "IP_MINTTL"), L(22, "IP_NODEFRAG"), L(23, "IP_CHECKSUM"),
    L(24, "IP_BIND_ADDRESS_NO_PORT"), L(25, "IP_RECVFRAGSIZE"), L(26, "IP_RECVERR_RFC4884"),
    L(32, "IP_MULTICAST_IF"), L(33, "IP_MULTICAST_TTL"), L(34, "IP_MULTICAST_LOOP"),
    L(35, "IP_ADD_MEMBERSHIP"), L(36, "IP_DROP_MEMBERSHIP"), L(37, "IP_UNBLOCK_SOURCE"),
    L(38, "IP_BLOCK_SOURCE"), L(39, "IP_ADD_SOURCE_MEMBERSHIP"),
    L(40, "IP_DROP_SOURCE_MEMBERSHIP"), L(41, "IP_MSFILTER"), L(42, "MCAST_JOIN_GROUP"),
    L(43, "MCAST_BLOCK_SOURCE"), L(44, "MCAST_UNBLOCK_SOURCE"), L(45, "MCAST_LEAVE_GROUP"),
    L(46, "MCAST_JOIN_SOURCE_GROUP"), L(47, "MCAST_LEAVE_SOURCE_GROUP"), L(48, "MCAST_MSFILTER"),
    L(49, "IP_MULTICAST_ALL"), L(50, "IP_UNICAST_IF"), END};
const struct sc_xlat sc_sock_ipv6_options[] = {
    L(1, "IPV6_ADDRFORM"), L(2, "IPV6_2292PKTINFO"), L(3, "IPV6_2292HOPOPTS"),
    L(4, "IPV6_2292DSTOPTS"), L(5, "IPV6_2292RTHDR"), L(6, "IPV6_2292PKTOPTIONS"),
    L(7, "IPV6_CHECKSUM"), L(8, "IPV6_2292HOPLIMIT"), L(9, "IPV6_NEXTHOP"), L(10, "IPV6_AUTHHDR"),
    L(11, "IPV6_FLOWINFO"), L(16, "IPV6_UNICAST_HOPS"), L(17, "IPV6_MULTICAST_IF"),
    L(18, "IPV6_MULTICAST_HOPS"), L(19, "IPV6_MULTICAST_LOOP"), L(20, "IPV6_ADD_MEMBERSHIP"),
    L(21, "IPV6_DROP_MEMBERSHIP"), L(22, "IPV6_ROUTER_ALERT"), L(23, "IPV6_MTU_DISCOVER"),
    L(24, "IPV6_MTU"), L(25, "IPV6_RECVERR"), L(26, "IPV6_V6ONLY"), L(27, "IPV6_JOIN_ANYCAST"),
    L(28, "IPV6_LEAVE_ANYCAST"), L(29, "IPV6_MULTICAST_ALL"), L(30, "IPV6_ROUTER_ALERT_ISOLATE"),
    L(31, "IPV6_RECVERR_RFC4884"), L(32, "IPV6_FLOWLABEL_MGR"), L(33, "IPV6_FLOWINFO_SEND"),
    L(34, "IPV6_IPSEC_POLICY"), L(35, "IPV6_XFRM_POLICY"), L(36, "IPV6_HDRINCL"),
    L(42, "MCAST_JOIN_GROUP"), L(43, "MCAST_BLOCK_SOURCE"), L(44, "MCAST_UNBLOCK_SOURCE"),
    L(45, "MCAST_LEAVE_GROUP"), L(46, "MCAST_JOIN_SOURCE_GROUP"), L(47, "MCAST_LEAVE_SOURCE_GROUP"),
    L(48, "MCAST_MSFILTER"), L(49, "IPV6_RECVPKTINFO"), L(50, "IPV6_PKTINFO"),
    L(51, "IPV6_RECVHOPLIMIT"), L(52, "IPV6_HOPLIMIT"), L(53, "IPV6_RECVHOPOPTS"),
    L(54, "IPV6_HOPOPTS"), L(55, "IPV6_RTHDRDSTOPTS"), L(56, "IPV6_RECVRTHDR"), L(57, "IPV6_RTHDR"),
    L(58, "IPV6_RECVDSTOPTS"), L(59, "IPV6_DSTOPTS"), L(60, "IPV6_RECVPATHMTU"),
    L(61, "IPV6_PATHMTU"), L(62, "IPV6_DONTFRAG"), L(63, "IPV6_USE_MIN_MTU"),
    L(66, "IPV6_RECVTCLASS"), L(67, "IPV6_TCLASS"), L(70, "IPV6_AUTOFLOWLABEL"),
    L(72, "IPV6_ADDR_PREFERENCES"), L(73, "IPV6_MINHOPCOUNT"), L(74, "IPV6_ORIGDSTADDR"),
    L(75, "IPV6_TRANSPARENT"), L(76, "IPV6_UNICAST_IF"), L(77, "IPV6_RECVFRAGSIZE"),
    L(78, "IPV6_FREEBIND"), END};
const struct sc_xlat sc_sock_tcp_options[] = {
    L(1, "TCP_NODELAY"), L(2, "TCP_MAXSEG"), L(3, "TCP_CORK"), L(4, "TCP_KEEPIDLE"),
    L(5, "TCP_KEEPINTVL"), L(6, "TCP_KEEPCNT"), L(7, "TCP_SYNCNT"), L(8, "TCP_LINGER2"),
    L(9, "TCP_DEFER_ACCEPT"), L(10, "TCP_WINDOW_CLAMP"), L(11, "TCP_INFO"), L(12, "TCP_QUICKACK"),
    L(13, "TCP_CONGESTION"), L(14, "TCP_MD5SIG"), L(15, "TCP_COOKIE_TRANSACTIONS"),
    L(16, "TCP_THIN_LINEAR_TIMEOUTS"), L(17, "TCP_THIN_DUPACK"), L(18, "TCP_USER_TIMEOUT"),
    L(19, "TCP_REPAIR"), L(20, "TCP_REPAIR_QUEUE"), L(21, "TCP_QUEUE_SEQ"),
    L(22, "TCP_REPAIR_OPTIONS"), L(23, "TCP_FASTOPEN"), L(24, "TCP_TIMESTAMP"),
    L(25, "TCP_NOTSENT_LOWAT"), L(26, "TCP_CC_INFO"), L(27, "TCP_SAVE_SYN"), L(28, "TCP_SAVED_SYN"),
    L(29, "TCP_REPAIR_WINDOW"), L(30, "TCP_FASTOPEN_CONNECT"), L(31, "TCP_ULP"),
    L(32, "TCP_MD5SIG_EXT"), L(33, "TCP_FASTOPEN_KEY"), L(34, "TCP_FASTOPEN_NO_COOKIE"),
    L(35, "TCP_ZEROCOPY_RECEIVE"), L(36, "TCP_INQ"), L(37, "TCP_TX_DELAY"), END};
const struct sc_xlat sc_sock_udp_options[] = {L(1, "UDP_CORK"), L(100, "UDP_ENCAP"),
                                              L(101, "UDP_NO_CHECK6_TX"), L(102, "UDP_NO_CHECK6_RX"),
                                              L(103, "UDP_SEGMENT"), L(104, "UDP_GRO"), END};
const struct sc_xlat sc_scm_types[] = {
    L(1, "SCM_RIGHTS"), L(2, "SCM_CREDENTIALS"), L(3, "SCM_SECURITY"), L(41, "SO_WIFI_STATUS"),
    L(61, "SO_TXTIME"), L(29, "SO_TIMESTAMP_OLD"), L(35, "SO_TIMESTAMPNS_OLD"),
    L(37, "SO_TIMESTAMPING_OLD"), L(63, "SO_TIMESTAMP_NEW"), L(64, "SO_TIMESTAMPNS_NEW"),
    L(65, "SO_TIMESTAMPING_NEW"), L(0x36, "SCM_TIMESTAMPING_OPT_STATS"),
    L(0x3a, "SCM_TIMESTAMPING_PKTINFO"), END};
const struct sc_xlat sc_ip_cmsg_types[] = {
    L(1, "IP_TOS"), L(2, "IP_TTL"), L(6, "IP_RECVOPTS"), L(7, "IP_RETOPTS"), L(8, "IP_PKTINFO"),
    L(11, "IP_RECVERR"), L(20, "IP_ORIGDSTADDR"), L(23, "IP_CHECKSUM"), L(3, "SCM_SECURITY"),
    END};

const struct sc_xlat sc_madvise_cmds[] = {
    L(0, "MADV_NORMAL"), L(1, "MADV_RANDOM"), L(2, "MADV_SEQUENTIAL"), L(3, "MADV_WILLNEED"),
    L(4, "MADV_DONTNEED"), L(8, "MADV_FREE"), L(9, "MADV_REMOVE"), L(10, "MADV_DONTFORK"),
    L(11, "MADV_DOFORK"), L(12, "MADV_MERGEABLE"), L(13, "MADV_UNMERGEABLE"),
    L(14, "MADV_HUGEPAGE"), L(15, "MADV_NOHUGEPAGE"), L(16, "MADV_DONTDUMP"), L(17, "MADV_DODUMP"),
    L(18, "MADV_WIPEONFORK"), L(19, "MADV_KEEPONFORK"), L(20, "MADV_COLD"), L(21, "MADV_PAGEOUT"),
    L(22, "MADV_POPULATE_READ"), L(23, "MADV_POPULATE_WRITE"), L(24, "MADV_DONTNEED_LOCKED"),
    L(25, "MADV_COLLAPSE"), L(100, "MADV_HWPOISON"), L(101, "MADV_SOFT_OFFLINE"), END};
const struct sc_xlat sc_msync_flags[] = {X(MS_ASYNC), X(MS_INVALIDATE), X(MS_SYNC), END};
const struct sc_xlat sc_mlockall_flags[] = {L(1, "MCL_CURRENT"), L(2, "MCL_FUTURE"),
                                            L(4, "MCL_ONFAULT"), END};
const struct sc_xlat sc_mlock_flags[] = {L(1, "MLOCK_ONFAULT"), END};
const struct sc_xlat sc_mremap_flags[] = {L(1, "MREMAP_MAYMOVE"), L(2, "MREMAP_FIXED"),
                                          L(4, "MREMAP_DONTUNMAP"), END};
const struct sc_xlat sc_membarrier_cmds[] = {
    L(1 << 0, "MEMBARRIER_CMD_GLOBAL"), L(1 << 1, "MEMBARRIER_CMD_GLOBAL_EXPEDITED"),
    L(1 << 2, "MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED"),
    L(1 << 3, "MEMBARRIER_CMD_PRIVATE_EXPEDITED"),
    L(1 << 4, "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED"),
    L(1 << 5, "MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE"),
    L(1 << 6, "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE"),
    L(1 << 7, "MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ"),
    L(1 << 8, "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ"), END};
const struct sc_xlat sc_membarrier_flags[] = {L(1, "MEMBARRIER_CMD_FLAG_CPU"), END};
const struct sc_xlat sc_pkey_access[] = {L(1, "PKEY_DISABLE_ACCESS"), L(2, "PKEY_DISABLE_WRITE"),
                                         L(4, "PKEY_DISABLE_EXECUTE"), END};

const struct sc_xlat sc_itimer_which[] = {L(0, "ITIMER_REAL"), L(1, "ITIMER_VIRTUAL"),
                                          L(2, "ITIMER_PROF"), END};
const struct sc_xlat sc_timerfd_create_flags[] = {L(02000000, "TFD_CLOEXEC"),
                                                  L(04000, "TFD_NONBLOCK"), END};
const struct sc_xlat sc_timerfd_settime_flags[] = {L(1, "TFD_TIMER_ABSTIME"),
                                                   L(2, "TFD_TIMER_CANCEL_ON_SET"), END};
const struct sc_xlat sc_sigev_notify[] = {L(0, "SIGEV_SIGNAL"), L(1, "SIGEV_NONE"),
                                          L(2, "SIGEV_THREAD"), L(4, "SIGEV_THREAD_ID"), END};

const struct sc_xlat sc_cap_versions[] = {L(0x19980330, "_LINUX_CAPABILITY_VERSION_1"),
                                          L(0x20071026, "_LINUX_CAPABILITY_VERSION_2"),
                                          L(0x20080522, "_LINUX_CAPABILITY_VERSION_3"), END};
const struct sc_xlat sc_seccomp_ops[] = {L(0, "SECCOMP_SET_MODE_STRICT"),
                                         L(1, "SECCOMP_SET_MODE_FILTER"),
                                         L(2, "SECCOMP_GET_ACTION_AVAIL"),
                                         L(3, "SECCOMP_GET_NOTIF_SIZES"), END};
const struct sc_xlat sc_seccomp_ret_actions[] = {
    L(0x80000000u, "SECCOMP_RET_KILL_PROCESS"), L(0, "SECCOMP_RET_KILL_THREAD"),
    L(0x00030000, "SECCOMP_RET_TRAP"), L(0x00050000, "SECCOMP_RET_ERRNO"),
    L(0x7fc00000, "SECCOMP_RET_USER_NOTIF"), L(0x7ff00000, "SECCOMP_RET_TRACE"),
    L(0x7ffc0000, "SECCOMP_RET_LOG"), L(0x7fff0000, "SECCOMP_RET_ALLOW"), END};
const struct sc_xlat sc_seccomp_filter_flags[] = {
    L(1, "SECCOMP_FILTER_FLAG_TSYNC"), L(2, "SECCOMP_FILTER_FLAG_LOG"),
    L(4, "SECCOMP_FILTER_FLAG_SPEC_ALLOW"), L(8, "SECCOMP_FILTER_FLAG_NEW_LISTENER"),
    L(16, "SECCOMP_FILTER_FLAG_TSYNC_ESRCH"), L(32, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"),
    END};
/* Capability bit numbers, 0..40 (strace's capabilities xlat). */
static const char *const cap_names[] = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
    "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
    "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
    "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
};
const char *sc_cap_name(unsigned bit) {
  return bit < sizeof cap_names / sizeof cap_names[0] ? cap_names[bit] : NULL;
}
const struct sc_xlat sc_netlink_protocols[] = {
    L(0, "NETLINK_ROUTE"), L(1, "NETLINK_UNUSED"), L(2, "NETLINK_USERSOCK"),
    L(3, "NETLINK_FIREWALL"), L(4, "NETLINK_SOCK_DIAG"), L(5, "NETLINK_NFLOG"),
    L(6, "NETLINK_XFRM"), L(7, "NETLINK_SELINUX"), L(8, "NETLINK_ISCSI"), L(9, "NETLINK_AUDIT"),
    L(10, "NETLINK_FIB_LOOKUP"), L(11, "NETLINK_CONNECTOR"), L(12, "NETLINK_NETFILTER"),
    L(13, "NETLINK_IP6_FW"), L(14, "NETLINK_DNRTMSG"), L(15, "NETLINK_KOBJECT_UEVENT"),
    L(16, "NETLINK_GENERIC"), L(18, "NETLINK_SCSITRANSPORT"), L(19, "NETLINK_ECRYPTFS"),
    L(20, "NETLINK_RDMA"), L(21, "NETLINK_CRYPTO"), L(22, "NETLINK_SMC"), END};
const struct sc_xlat sc_ethernet_protocols[] = {
    L(0x0003, "ETH_P_ALL"), L(0x0004, "ETH_P_802_2"), L(0x0800, "ETH_P_IP"),
    L(0x0806, "ETH_P_ARP"), L(0x8035, "ETH_P_RARP"), L(0x8100, "ETH_P_8021Q"),
    L(0x86dd, "ETH_P_IPV6"), L(0x8847, "ETH_P_MPLS_UC"), L(0x888e, "ETH_P_PAE"),
    L(0x88a8, "ETH_P_8021AD"), L(0x88cc, "ETH_P_LLDP"), END};
const struct sc_xlat sc_arphrd_types[] = {
    L(0, "ARPHRD_NETROM"), L(1, "ARPHRD_ETHER"), L(24, "ARPHRD_IEEE1394"),
    L(512, "ARPHRD_PPP"), L(768, "ARPHRD_TUNNEL"), L(769, "ARPHRD_TUNNEL6"),
    L(772, "ARPHRD_LOOPBACK"), L(776, "ARPHRD_SIT"), L(778, "ARPHRD_IPGRE"),
    L(801, "ARPHRD_IEEE80211"), L(803, "ARPHRD_IEEE80211_RADIOTAP"), L(0xfffe, "ARPHRD_NONE"),
    L(0xffff, "ARPHRD_VOID"), END};
const struct sc_xlat sc_packet_types[] = {
    L(0, "PACKET_HOST"), L(1, "PACKET_BROADCAST"), L(2, "PACKET_MULTICAST"),
    L(3, "PACKET_OTHERHOST"), L(4, "PACKET_OUTGOING"), L(5, "PACKET_LOOPBACK"),
    L(6, "PACKET_USER"), L(7, "PACKET_KERNEL"), END};
/* clang-format on */
