/* sc_proc.c — processes: clone, clone3, execve, wait4, exit, arch_prctl, prlimit64,
 * getrandom.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>

/* ---- processes ---- */
#define K_CSIGNAL 0xffu
#define K_CLONE_PARENT_SETTID 0x00100000u
#define K_CLONE_PIDFD 0x00001000u
#define K_CLONE_SETTLS 0x00080000u
#define K_CLONE_CHILD_SETTID 0x01000000u
#define K_CLONE_CHILD_CLEARTID 0x00200000u

static void put_clone_flags(struct ob *o, uint64_t v) {
  uint64_t sig = v & K_CSIGNAL, rest = v & ~(uint64_t)K_CSIGNAL;
  if (rest) put_flags_tail(o, sc_clone_flags, rest, 1);
  if (sig) {
    if (rest) ob_putc(o, '|');
    put_signal(o, sig);
  }
  if (!v) ob_putc(o, '0');
}

/* strace's shape: clone(child_stack=, flags=[, parent_tid=][, tls=][, child_tidptr=]).
 * x86-64 argument order: flags, stack, parent_tid, child_tid, tls. */
void en_clone(struct dc *d) {
  uint64_t fl = A(0);
  ob_puts(d->o, "child_stack=");
  put_addr(d->o, A(1));
  ob_puts(d->o, ", flags=");
  put_clone_flags(d->o, fl);
  if (fl & (K_CLONE_PARENT_SETTID | K_CLONE_PIDFD)) {
    ob_puts(d->o, ", parent_tid=");
    put_addr(d->o, A(2));
  }
  if (fl & K_CLONE_SETTLS) {
    ob_puts(d->o, ", tls=");
    put_addr(d->o, A(4));
  }
  if (fl & (K_CLONE_CHILD_SETTID | K_CLONE_CHILD_CLEARTID)) {
    ob_puts(d->o, ", child_tidptr=");
    put_addr(d->o, A(3));
  }
}

struct k_clone_args { /* CLONE_ARGS_SIZE_VER0 = 64 */
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

void en_clone3(struct dc *d) { /* clone3(args, size) */
  struct k_clone_args ca;
  if (!A(0))
    ob_puts(d->o, "NULL");
  else if (A(1) < sizeof ca || !mem_full(d, A(0), &ca, sizeof ca))
    put_addr(d->o, A(0));
  else {
    ob_puts(d->o, "{flags=");
    put_flags(d->o, sc_clone3_flags, ca.flags, "0");
    ob_puts(d->o, ", exit_signal=");
    put_signal(d->o, ca.exit_signal);
    ob_puts(d->o, ", stack=");
    put_addr(d->o, ca.stack);
    ob_puts(d->o, ", stack_size=");
    put_xnum(d->o, ca.stack_size);
    ob_putc(d->o, '}');
  }
  next(d);
  put_ulong(d->o, A(1));
}

void en_int(struct dc *d) { put_int(d->o, A(0)); } /* exit, exit_group, epoll_create */

/* argv: ["x", "first", ...] — at most --string-limit elements (strace's
 * max_strlen), each cut at it; envp the same with --verbose, else its
 * address and / * N vars * /. */
#define SC_ARGV_SCAN 4096 /* pointers counted at most */
static void put_argv(struct dc *d, uint64_t addr, int summary) {
  struct ob *o = d->o;
  uint64_t p;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!mem_full(d, addr, &p, sizeof p)) {
    put_addr(o, addr);
    return;
  }
  if (summary) {
    unsigned n = 0;
    while (n < SC_ARGV_SCAN && mem_full(d, addr + 8ull * n, &p, sizeof p) && p) n++;
    put_addr(o, addr);
    ob_printf(o, " /* %u var%s */", n, n == 1 ? "" : "s");
    return;
  }
  size_t lim = d->c->priv_strlim ? d->c->priv_strlim : SC_STR_MAX;
  int verbose = dc_strace(d) && (d->c->priv_flags & SC_ENV_VERBOSE);
  ob_putc(o, '[');
  for (unsigned n = 0; n < SC_ARGV_SCAN && !o->over; n++) {
    if (!mem_full(d, addr + 8ull * n, &p, sizeof p)) {
      ob_puts(o, n ? ", ..." : "...");
      break;
    }
    if (!p) break;
    if (n) ob_puts(o, ", ");
    if (!verbose && n >= lim) {
      ob_puts(o, "...");
      break;
    }
    put_str(d, p);
  }
  ob_putc(o, ']');
}
static int envp_summary(const struct dc *d) {
  return dc_strace(d) && !(d->c->priv_flags & SC_ENV_VERBOSE);
}
void en_execve(struct dc *d) { /* execve(path, argv, envp) */
  put_path(d, A(0));
  next(d);
  put_argv(d, A(1), 0);
  next(d);
  put_argv(d, A(2), envp_summary(d));
}
void en_execveat(struct dc *d) { /* execveat(dirfd, path, argv, envp, flags) */
  en_dirfd_path(d);
  next(d);
  put_argv(d, A(2), 0);
  next(d);
  put_argv(d, A(3), envp_summary(d));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(4), "0");
}

static void put_wstatus(struct dc *d, uint64_t addr) {
  struct ob *o = d->o;
  int32_t s;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || d->ret <= 0 || !mem_full(d, addr, &s, sizeof s)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "[{");
  if ((s & 0x7f) == 0) {
    ob_printf(o, "WIFEXITED(s) && WEXITSTATUS(s) == %d", (s >> 8) & 0xff);
  } else if ((s & 0xff) == 0x7f) {
    ob_puts(o, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
    put_signal(o, (s >> 8) & 0xff);
    if (s >> 16) ob_printf(o, " && s>>16 == %d", (s >> 16) & 0xffff);
  } else if (s == 0xffff) {
    ob_puts(o, "WIFCONTINUED(s)");
  } else {
    ob_puts(o, "WIFSIGNALED(s) && WTERMSIG(s) == ");
    put_signal(o, s & 0x7f);
    if (s & 0x80) ob_puts(o, " && WCOREDUMP(s)");
  }
  ob_puts(o, "}]");
}

static void put_tv(struct ob *o, const struct timeval *tv) {
  ob_printf(o, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv->tv_sec, (long long)tv->tv_usec);
}
/* {ru_utime={tv_sec=0, tv_usec=80}, ru_stime={...}, ...}; every field with --verbose */
static void put_rusage(struct dc *d, uint64_t addr) {
  struct rusage ru;
  struct ob *o = d->o;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || !mem_full(d, addr, &ru, sizeof ru)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "{ru_utime=");
  put_tv(o, &ru.ru_utime);
  ob_puts(o, ", ru_stime=");
  put_tv(o, &ru.ru_stime);
  if (dc_strace(d) && !(d->c->priv_flags & SC_ENV_VERBOSE)) {
    ob_puts(o, ", ...}");
    return;
  }
  ob_printf(o,
            ", ru_maxrss=%ld, ru_ixrss=%ld, ru_idrss=%ld, ru_isrss=%ld, ru_minflt=%ld, "
            "ru_majflt=%ld, ru_nswap=%ld, ru_inblock=%ld, ru_oublock=%ld, ru_msgsnd=%ld, "
            "ru_msgrcv=%ld, ru_nsignals=%ld, ru_nvcsw=%ld, ru_nivcsw=%ld}",
            ru.ru_maxrss, ru.ru_ixrss, ru.ru_idrss, ru.ru_isrss, ru.ru_minflt, ru.ru_majflt,
            ru.ru_nswap, ru.ru_inblock, ru.ru_oublock, ru.ru_msgsnd, ru.ru_msgrcv, ru.ru_nsignals,
            ru.ru_nvcsw, ru.ru_nivcsw);
}

void ex_wait4(struct dc *d) { /* wait4(pid, wstatus, options, rusage) */
  next(d);
  put_wstatus(d, A(1));
  next(d);
  put_flags(d->o, sc_wait_options, (uint32_t)A(2), "0");
  next(d);
  put_rusage(d, A(3));
}

static const struct sc_xlat idtypes[] = {
    {0, "P_ALL"}, {1, "P_PID"}, {2, "P_PGID"}, {3, "P_PIDFD"}, {0, NULL}};
static const struct sc_xlat waitid_options[] = {
    {WNOHANG, "WNOHANG"},       {WSTOPPED, "WSTOPPED"},    {WEXITED, "WEXITED"},
    {WCONTINUED, "WCONTINUED"}, {WNOWAIT, "WNOWAIT"},      {0x20000000, "__WNOTHREAD"},
    {0x40000000, "__WALL"},     {0x80000000u, "__WCLONE"}, {0, NULL}};
void en_waitid(struct dc *d) { /* waitid(idtype, id, infop, options, rusage) */
  put_xval(d->o, idtypes, (uint32_t)A(0), XDEC);
  next(d);
  put_int(d->o, A(1));
}
void ex_waitid(struct dc *d) {
  next(d);
  put_siginfo(d, A(2), 1);
  next(d);
  put_flags(d->o, waitid_options, (uint32_t)A(3), "0");
  next(d);
  put_rusage(d, A(4));
}

void en_getrusage(struct dc *d) { /* getrusage(who, usage) */
  static const struct sc_xlat who[] = {
      {0, "RUSAGE_SELF"}, {(uint32_t)-1, "RUSAGE_CHILDREN"}, {1, "RUSAGE_THREAD"}, {0, NULL}};
  put_xval(d->o, who, (uint32_t)A(0), XSDEC);
}
void ex_getrusage(struct dc *d) {
  next(d);
  put_rusage(d, A(1));
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_arch_prctl(struct dc *d) { /* arch_prctl(code, addr) */
  const char *n = sc_xlat_name(sc_arch_prctl_codes, (uint32_t)A(0));
  if (n) {
    ob_puts(d->o, n);
  } else { /* strace: 0x3001 / * ARCH_??? * /, then the argument in hex */
    put_xnum(d->o, (uint32_t)A(0));
    if (dc_strace(d)) ob_puts(d->o, " /* ARCH_??? */");
    next(d);
    if (A(1))
      put_xnum(d->o, A(1));
    else
      ob_putc(d->o, '0');
    return;
  }
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) { /* not ARCH_GET_FS/GS */
    next(d);
    put_addr(d->o, A(1));
  }
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) ex_arch_prctl(struct dc *d) {
  uint64_t v;
  if (!sc_xlat_name(sc_arch_prctl_codes, (uint32_t)A(0))) return;
  if ((uint32_t)A(0) != 0x1003 && (uint32_t)A(0) != 0x1004) return;
  next(d);
  if (A(1) && OUT_OK(d) && mem_full(d, A(1), &v, sizeof v))
    ob_printf(d->o, "[%#llx]", (unsigned long long)v);
  else
    put_addr(d->o, A(1));
}

static void put_rlim_value(struct ob *o, uint64_t v) {
  if (v == UINT64_MAX)
    ob_puts(o, "RLIM64_INFINITY");
  else if (v > 1024 && v % 1024 == 0)
    ob_printf(o, "%llu*1024", (unsigned long long)(v / 1024));
  else
    ob_printf(o, "%llu", (unsigned long long)v);
}
static void put_rlimit(struct dc *d, uint64_t addr, int out) {
  uint64_t r[2];
  if (!addr)
    ob_puts(d->o, "NULL");
  else if ((out && !OUT_OK(d)) || !mem_full(d, addr, r, sizeof r))
    put_addr(d->o, addr);
  else {
    ob_puts(d->o, "{rlim_cur=");
    put_rlim_value(d->o, r[0]);
    ob_puts(d->o, ", rlim_max=");
    put_rlim_value(d->o, r[1]);
    ob_putc(d->o, '}');
  }
}
void en_prlimit64(struct dc *d) { /* prlimit64(pid, resource, new, old) */
  put_int(d->o, A(0));
  next(d);
  put_xval(d->o, sc_rlimit_resources, (uint32_t)A(1), XDEC);
  next(d);
  put_rlimit(d, A(2), 0);
}
void ex_prlimit64(struct dc *d) {
  next(d);
  put_rlimit(d, A(3), 1);
}

void ex_getrandom(struct dc *d) { /* getrandom(buf, len, flags): all at exit */
  if (OUT_OK(d))
    put_buf(d, A(0), (uint64_t)d->ret, PUT_HEX);
  else
    put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
  next(d);
  put_flags(d->o, sc_getrandom_flags, (uint32_t)A(2), "0");
}

/* getrlimit(resource, out), setrlimit(resource, in) */
void en_rlimit_res(struct dc *d) { put_xval(d->o, sc_rlimit_resources, (uint32_t)A(0), XDEC); }
void en_setrlimit(struct dc *d) {
  en_rlimit_res(d);
  next(d);
  put_rlimit(d, A(1), 0);
}
void ex_getrlimit(struct dc *d) {
  next(d);
  put_rlimit(d, A(1), 1);
}

/* ---- uname, sysinfo ---- */
static void put_uts_field(struct ob *o, const char *name, const char *v, size_t cap, int first) {
  ob_printf(o, "%s%s=", first ? "" : ", ", name);
  put_quoted(o, (const unsigned char *)v, strnlen(v, cap), 0);
}
void ex_uname(struct dc *d) { /* uname(buf): all at the exit */
  struct utsname u;
  struct ob *o = d->o;
  if (!A(0)) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || !mem_full(d, A(0), &u, sizeof u)) {
    put_addr(o, A(0));
    return;
  }
  ob_putc(o, '{');
  put_uts_field(o, "sysname", u.sysname, sizeof u.sysname, 1);
  put_uts_field(o, "nodename", u.nodename, sizeof u.nodename, 0);
  if (dc_strace(d) && !(d->c->priv_flags & SC_ENV_VERBOSE)) {
    ob_puts(o, ", ...}");
    return;
  }
  put_uts_field(o, "release", u.release, sizeof u.release, 0);
  put_uts_field(o, "version", u.version, sizeof u.version, 0);
  put_uts_field(o, "machine", u.machine, sizeof u.machine, 0);
  put_uts_field(o, "domainname", u.domainname, sizeof u.domainname, 0);
  ob_putc(o, '}');
}
void ex_sysinfo(struct dc *d) {
  struct sysinfo si;
  struct ob *o = d->o;
  if (!A(0)) {
    ob_puts(o, "NULL");
    return;
  }
  if (!OUT_OK(d) || !mem_full(d, A(0), &si, sizeof si)) {
    put_addr(o, A(0));
    return;
  }
  ob_printf(o,
            "{uptime=%ld, loads=[%lu, %lu, %lu], totalram=%lu, freeram=%lu, sharedram=%lu, "
            "bufferram=%lu, totalswap=%lu, freeswap=%lu, procs=%u, totalhigh=%lu, "
            "freehigh=%lu, mem_unit=%u}",
            si.uptime, si.loads[0], si.loads[1], si.loads[2], si.totalram, si.freeram, si.sharedram,
            si.bufferram, si.totalswap, si.freeswap, (unsigned)si.procs, si.totalhigh, si.freehigh,
            si.mem_unit);
}

/* ---- priority, personality, affinity, getcpu ---- */
static const struct sc_xlat prio_which[] = {
    {0, "PRIO_PROCESS"}, {1, "PRIO_PGRP"}, {2, "PRIO_USER"}, {0, NULL}};
void en_getpriority(struct dc *d) { /* getpriority(which, who) */
  put_xval(d->o, prio_which, (uint32_t)A(0), XSDEC);
  next(d);
  put_int(d->o, A(1));
}
void en_setpriority(struct dc *d) {
  en_getpriority(d);
  next(d);
  put_int(d->o, A(2));
}

static const struct sc_xlat per_types[] = {
    {0, "PER_LINUX"},   {1, "PER_SVR4"},     {2, "PER_SVR3"},
    {3, "PER_SCOSVR3"}, {4, "PER_WYSEV386"}, {5, "PER_ISCR4"},
    {6, "PER_BSD"},     {7, "PER_XENIX"},    {8, "PER_LINUX32"},
    {9, "PER_IRIX32"},  {10, "PER_IRIXN32"}, {11, "PER_IRIX64"},
    {12, "PER_RISCOS"}, {13, "PER_SOLARIS"}, {14, "PER_UW7"},
    {15, "PER_OSF4"},   {16, "PER_HPUX"},    {0, NULL}};
static const struct sc_xlat per_flags[] = {{0x0020000, "UNAME26"},
                                           {0x0040000, "ADDR_NO_RANDOMIZE"},
                                           {0x0080000, "FDPIC_FUNCPTRS"},
                                           {0x0100000, "MMAP_PAGE_ZERO"},
                                           {0x0200000, "ADDR_COMPAT_LAYOUT"},
                                           {0x0400000, "READ_IMPLIES_EXEC"},
                                           {0x0800000, "ADDR_LIMIT_32BIT"},
                                           {0x1000000, "SHORT_INODE"},
                                           {0x2000000, "WHOLE_SECONDS"},
                                           {0x4000000, "STICKY_TIMEOUTS"},
                                           {0x8000000, "ADDR_LIMIT_3GB"},
                                           {0, NULL}};
static void put_personality(struct ob *o, uint32_t p) {
  const char *n = sc_xlat_name(per_types, p & 0xff);
  if (n)
    ob_puts(o, n);
  else
    ob_printf(o, "%#x /* PER_??? */", p & 0xff);
  put_flags_tail(o, per_flags, p & ~0xffu, 0);
}
void en_personality(struct dc *d) {
  uint32_t p = (uint32_t)A(0);
  if (p == 0xffffffffu)
    ob_puts(d->o, "0xffffffff");
  else
    put_personality(d->o, p);
}
/* = 0x40000 (PER_LINUX|ADDR_NO_RANDOMIZE) */
void rt_personality(struct dc *d) {
  if (!dc_strace(d)) {
    put_long(d->o, (uint64_t)d->ret);
    return;
  }
  put_xnum(d->o, (uint64_t)d->ret);
  ob_puts(d->o, " (");
  put_personality(d->o, (uint32_t)d->ret);
  ob_putc(d->o, ')');
}

/* [0 1 5]: the cpus set in a mask of len bytes */
static void put_cpumask(struct dc *d, uint64_t addr, uint64_t len) {
  uint64_t bits[128]; /* 8192 cpus */
  struct ob *o = d->o;
  size_t n = len > sizeof bits ? sizeof bits : (size_t)len;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!n || !mem_full(d, addr, bits, n)) {
    put_addr(o, addr);
    return;
  }
  ob_putc(o, '[');
  int first = 1;
  for (size_t cpu = 0; cpu < n * 8; cpu++) {
    if (!(((const unsigned char *)bits)[cpu / 8] & (1u << (cpu % 8)))) continue;
    ob_printf(o, first ? "%zu" : " %zu", cpu);
    first = 0;
  }
  if (len > sizeof bits) ob_puts(o, first ? "..." : " ...");
  ob_putc(o, ']');
}
void en_sched_setaffinity(struct dc *d) { /* (pid, len, mask) */
  put_int(d->o, A(0));
  next(d);
  put_uint(d->o, A(1));
  next(d);
  put_cpumask(d, A(2), (uint32_t)A(1));
}
void en_sched_getaffinity(struct dc *d) {
  put_int(d->o, A(0));
  next(d);
  put_uint(d->o, A(1));
}
void ex_sched_getaffinity(struct dc *d) {
  next(d);
  if (OUT_OK(d))
    put_cpumask(d, A(2), (uint64_t)d->ret);
  else
    put_addr(d->o, A(2));
}
static void put_uintptr_out(struct dc *d, uint64_t addr) {
  uint32_t v;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (OUT_OK(d) && mem_full(d, addr, &v, sizeof v))
    ob_printf(d->o, "[%u]", v);
  else
    put_addr(d->o, addr);
}
void ex_getcpu(struct dc *d) { /* getcpu(cpu, node, cache): all at the exit */
  put_uintptr_out(d, A(0));
  next(d);
  put_uintptr_out(d, A(1));
  next(d);
  put_addr(d->o, A(2));
}

/* ---- prctl ---- */
enum {
  K_PR_SET_PDEATHSIG = 1,
  K_PR_GET_PDEATHSIG = 2,
  K_PR_GET_DUMPABLE = 3,
  K_PR_SET_DUMPABLE = 4,
  K_PR_GET_KEEPCAPS = 7,
  K_PR_SET_KEEPCAPS = 8,
  K_PR_GET_TIMING = 13,
  K_PR_SET_TIMING = 14,
  K_PR_SET_NAME = 15,
  K_PR_GET_NAME = 16,
  K_PR_GET_SECCOMP = 21,
  K_PR_SET_SECCOMP = 22,
  K_PR_CAPBSET_READ = 23,
  K_PR_CAPBSET_DROP = 24,
  K_PR_GET_TIMERSLACK = 30,
  K_PR_SET_TIMERSLACK = 29,
  K_PR_TASK_PERF_EVENTS_DISABLE = 31,
  K_PR_TASK_PERF_EVENTS_ENABLE = 32,
  K_PR_SET_CHILD_SUBREAPER = 36,
  K_PR_GET_CHILD_SUBREAPER = 37,
  K_PR_SET_NO_NEW_PRIVS = 38,
  K_PR_SET_THP_DISABLE = 41,
  K_PR_SET_PTRACER = 0x59616d61,
  K_PR_SET_IO_FLUSHER = 57
};
static const struct sc_xlat prctl_options[] = {{1, "PR_SET_PDEATHSIG"},
                                               {2, "PR_GET_PDEATHSIG"},
                                               {3, "PR_GET_DUMPABLE"},
                                               {4, "PR_SET_DUMPABLE"},
                                               {5, "PR_GET_UNALIGN"},
                                               {6, "PR_SET_UNALIGN"},
                                               {7, "PR_GET_KEEPCAPS"},
                                               {8, "PR_SET_KEEPCAPS"},
                                               {9, "PR_GET_FPEMU"},
                                               {10, "PR_SET_FPEMU"},
                                               {11, "PR_GET_FPEXC"},
                                               {12, "PR_SET_FPEXC"},
                                               {13, "PR_GET_TIMING"},
                                               {14, "PR_SET_TIMING"},
                                               {15, "PR_SET_NAME"},
                                               {16, "PR_GET_NAME"},
                                               {19, "PR_GET_ENDIAN"},
                                               {20, "PR_SET_ENDIAN"},
                                               {21, "PR_GET_SECCOMP"},
                                               {22, "PR_SET_SECCOMP"},
                                               {23, "PR_CAPBSET_READ"},
                                               {24, "PR_CAPBSET_DROP"},
                                               {25, "PR_GET_TSC"},
                                               {26, "PR_SET_TSC"},
                                               {27, "PR_GET_SECUREBITS"},
                                               {28, "PR_SET_SECUREBITS"},
                                               {29, "PR_SET_TIMERSLACK"},
                                               {30, "PR_GET_TIMERSLACK"},
                                               {31, "PR_TASK_PERF_EVENTS_DISABLE"},
                                               {32, "PR_TASK_PERF_EVENTS_ENABLE"},
                                               {33, "PR_MCE_KILL"},
                                               {34, "PR_MCE_KILL_GET"},
                                               {35, "PR_SET_MM"},
                                               {36, "PR_SET_CHILD_SUBREAPER"},
                                               {37, "PR_GET_CHILD_SUBREAPER"},
                                               {38, "PR_SET_NO_NEW_PRIVS"},
                                               {39, "PR_GET_NO_NEW_PRIVS"},
                                               {40, "PR_GET_TID_ADDRESS"},
                                               {41, "PR_SET_THP_DISABLE"},
                                               {42, "PR_GET_THP_DISABLE"},
                                               {43, "PR_MPX_ENABLE_MANAGEMENT"},
                                               {44, "PR_MPX_DISABLE_MANAGEMENT"},
                                               {45, "PR_SET_FP_MODE"},
                                               {46, "PR_GET_FP_MODE"},
                                               {47, "PR_CAP_AMBIENT"},
                                               {50, "PR_SVE_SET_VL"},
                                               {51, "PR_SVE_GET_VL"},
                                               {52, "PR_GET_SPECULATION_CTRL"},
                                               {53, "PR_SET_SPECULATION_CTRL"},
                                               {54, "PR_PAC_RESET_KEYS"},
                                               {55, "PR_SET_TAGGED_ADDR_CTRL"},
                                               {56, "PR_GET_TAGGED_ADDR_CTRL"},
                                               {57, "PR_SET_IO_FLUSHER"},
                                               {58, "PR_GET_IO_FLUSHER"},
                                               {59, "PR_SET_SYSCALL_USER_DISPATCH"},
                                               {60, "PR_PAC_SET_ENABLED_KEYS"},
                                               {61, "PR_PAC_GET_ENABLED_KEYS"},
                                               {62, "PR_SCHED_CORE"},
                                               {0x59616d61, "PR_SET_PTRACER"},
                                               {0x53564d41, "PR_SET_VMA"},
                                               {0, NULL}};
static const struct sc_xlat pr_dumpable[] = {
    {0, "SUID_DUMP_DISABLE"}, {1, "SUID_DUMP_USER"}, {2, "SUID_DUMP_ROOT"}, {0, NULL}};
static const char *const cap_names[] = {"CAP_CHOWN",
                                        "CAP_DAC_OVERRIDE",
                                        "CAP_DAC_READ_SEARCH",
                                        "CAP_FOWNER",
                                        "CAP_FSETID",
                                        "CAP_KILL",
                                        "CAP_SETGID",
                                        "CAP_SETUID",
                                        "CAP_SETPCAP",
                                        "CAP_LINUX_IMMUTABLE",
                                        "CAP_NET_BIND_SERVICE",
                                        "CAP_NET_BROADCAST",
                                        "CAP_NET_ADMIN",
                                        "CAP_NET_RAW",
                                        "CAP_IPC_LOCK",
                                        "CAP_IPC_OWNER",
                                        "CAP_SYS_MODULE",
                                        "CAP_SYS_RAWIO",
                                        "CAP_SYS_CHROOT",
                                        "CAP_SYS_PTRACE",
                                        "CAP_SYS_PACCT",
                                        "CAP_SYS_ADMIN",
                                        "CAP_SYS_BOOT",
                                        "CAP_SYS_NICE",
                                        "CAP_SYS_RESOURCE",
                                        "CAP_SYS_TIME",
                                        "CAP_SYS_TTY_CONFIG",
                                        "CAP_MKNOD",
                                        "CAP_LEASE",
                                        "CAP_AUDIT_WRITE",
                                        "CAP_AUDIT_CONTROL",
                                        "CAP_SETFCAP",
                                        "CAP_MAC_OVERRIDE",
                                        "CAP_MAC_ADMIN",
                                        "CAP_SYSLOG",
                                        "CAP_WAKE_ALARM",
                                        "CAP_BLOCK_SUSPEND",
                                        "CAP_AUDIT_READ",
                                        "CAP_PERFMON",
                                        "CAP_BPF",
                                        "CAP_CHECKPOINT_RESTORE"};

/* the remaining arguments from i on, hex (strace's print_prctl_args) */
static void prctl_rest(struct dc *d, int i) {
  for (; i < 5; i++) {
    next(d);
    if (A(i))
      put_xnum(d->o, A(i));
    else
      ob_putc(d->o, '0');
  }
}
void en_prctl(struct dc *d) { /* prctl(option, arg2, arg3, arg4, arg5) */
  uint32_t op = (uint32_t)A(0);
  struct ob *o = d->o;
  const char *n = sc_xlat_name(prctl_options, op);
  if (n)
    ob_puts(o, n);
  else
    ob_printf(o, "%#x%s", op, dc_strace(d) ? " /* PR_??? */" : "");
  switch (op) {
  case K_PR_GET_KEEPCAPS:
  case K_PR_GET_SECCOMP:
  case K_PR_GET_TIMERSLACK:
  case K_PR_GET_TIMING:
  case K_PR_GET_DUMPABLE:
  case K_PR_TASK_PERF_EVENTS_DISABLE:
  case K_PR_TASK_PERF_EVENTS_ENABLE:
  case K_PR_GET_NAME:
  case K_PR_GET_PDEATHSIG:
  case K_PR_GET_CHILD_SUBREAPER: return; /* nothing, or an out-parameter */
  case K_PR_SET_CHILD_SUBREAPER:
  case K_PR_SET_KEEPCAPS:
  case K_PR_SET_TIMING:
    next(d);
    put_ulong(o, A(1));
    return;
  case K_PR_SET_DUMPABLE:
    next(d);
    put_xval(o, pr_dumpable, A(1), XDEC);
    return;
  case K_PR_CAPBSET_READ:
  case K_PR_CAPBSET_DROP:
    next(d);
    if (A(1) < sizeof cap_names / sizeof cap_names[0])
      ob_puts(o, cap_names[A(1)]);
    else
      ob_printf(o, "%#llx /* CAP_??? */", (unsigned long long)A(1));
    return;
  case K_PR_SET_NAME: {
    char buf[16];
    size_t got;
    next(d);
    got = A(1) ? mem_upto(d, A(1), buf, sizeof buf) : 0;
    if (!got) {
      put_addr(o, A(1));
      return;
    }
    const char *nul = memchr(buf, 0, got);
    size_t len = nul ? (size_t)(nul - buf) : (got > 15 ? 15 : got);
    put_quoted(o, (const unsigned char *)buf, len, dc_hex(d));
    if (!nul) ob_puts(o, "...");
    return;
  }
  case K_PR_SET_PDEATHSIG:
    next(d);
    if (A(1) > 128)
      put_ulong(o, A(1));
    else
      put_signal(o, A(1));
    return;
  case K_PR_SET_TIMERSLACK:
    next(d);
    put_long(o, A(1));
    return;
  case K_PR_SET_PTRACER:
    next(d);
    if ((int)A(1) == -1)
      ob_puts(o, "PR_SET_PTRACER_ANY");
    else
      put_int(o, A(1));
    return;
  case K_PR_SET_NO_NEW_PRIVS:
  case K_PR_SET_THP_DISABLE:
  case K_PR_SET_IO_FLUSHER:
    next(d);
    put_ulong(o, A(1));
    prctl_rest(d, 2);
    return;
  default: prctl_rest(d, 1); return;
  }
}
void ex_prctl(struct dc *d) {
  uint32_t op = (uint32_t)A(0);
  struct ob *o = d->o;
  switch (op) {
  case K_PR_GET_NAME: {
    char buf[16];
    next(d);
    if (!OUT_OK(d) || !A(1) || !mem_full(d, A(1), buf, sizeof buf)) {
      put_addr(o, A(1));
      return;
    }
    const char *nul = memchr(buf, 0, sizeof buf);
    put_quoted(o, (const unsigned char *)buf, nul ? (size_t)(nul - buf) : sizeof buf, dc_hex(d));
    if (!nul) ob_puts(o, "...");
    return;
  }
  case K_PR_GET_PDEATHSIG: {
    uint32_t sig;
    next(d);
    if (OUT_OK(d) && A(1) && mem_full(d, A(1), &sig, sizeof sig)) {
      ob_putc(o, '[');
      put_signal(o, sig);
      ob_putc(o, ']');
    } else {
      put_addr(o, A(1));
    }
    return;
  }
  case K_PR_GET_CHILD_SUBREAPER: {
    uint32_t v;
    next(d);
    if (OUT_OK(d) && A(1) && mem_full(d, A(1), &v, sizeof v))
      ob_printf(o, "[%u]", v);
    else
      put_addr(o, A(1));
    return;
  }
  default: return;
  }
}
/* = 1 (SUID_DUMP_USER) */
void rt_prctl(struct dc *d) {
  put_long(d->o, (uint64_t)d->ret);
  if ((uint32_t)A(0) == K_PR_GET_DUMPABLE && dc_strace(d)) {
    const char *n = sc_xlat_name(pr_dumpable, (uint64_t)d->ret);
    if (n) ob_printf(d->o, " (%s)", n);
  }
}
