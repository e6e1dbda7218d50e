/* test_sc_decode.c — unit test of plugins/views/syslog/sc_decode.c: every
 * modelled syscall family formats the exact expected line against a fake
 * environment (a fake address space of a few buffers at fake addresses, a
 * fake fd table, a syscall-name callback).
 *
 * Standalone: exit 0 when every check passes, 1 otherwise (each failure
 * prints the expected and the actual line). Build, e.g.:
 *   python3 host/tables/gen_syscall_names.py --auto /tmp/gen/asmspy_syscall_names.h
 *   gcc -std=gnu11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -I include -I . -I /tmp/gen -o /tmp/test_sc tests/unit/test_sc_decode.c \
 *       plugins/views/syslog/sc_decode.c plugins/views/syslog/sc_tables.c
 * The generated name table is optional: without it on the include path the
 * fake env names syscalls from a small table of its own.
 */
#define _GNU_SOURCE
#include "plugins/views/syslog/sc_decode.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include("asmspy_syscall_names.h")
#include "asmspy_syscall_names.h"
#define HAVE_GENERATED_NAMES 1
#endif
#endif

#include "check.h"

/* ------------------------------------------------------------------------- */
/* Fake address space                                                          */
/* ------------------------------------------------------------------------- */
struct region {
  uint64_t addr;
  size_t len;
  unsigned char *bytes;
};
static struct region regions[128];
static int nregions;
static size_t largest_request, total_requested;

static void *map(uint64_t addr, const void *data, size_t len) {
  if (nregions == (int)(sizeof regions / sizeof regions[0])) abort();
  struct region *r = &regions[nregions++];
  r->addr = addr;
  r->len = len;
  r->bytes = calloc(1, len ? len : 1);
  if (!r->bytes) abort();
  if (data) memcpy(r->bytes, data, len);
  return r->bytes;
}
static void map_str(uint64_t addr, const char *s) { map(addr, s, strlen(s) + 1); }

static ssize_t fake_read_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  (void)ctx;
  if (len > largest_request) largest_request = len;
  total_requested += len;
  for (int i = 0; i < nregions; i++) {
    struct region *r = &regions[i];
    if (addr >= r->addr && addr < r->addr + r->len) {
      size_t n = r->addr + r->len - addr;
      if (n > len) n = len;
      memcpy(buf, r->bytes + (addr - r->addr), n);
      return (ssize_t)n; /* short at the region's end, like process_vm_readv */
    }
  }
  return -EFAULT;
}

/* ------------------------------------------------------------------------- */
/* Fake fd table and names                                                     */
/* ------------------------------------------------------------------------- */
static const char *fake_describe_fd(void *ctx, int fd, char *buf, size_t cap) {
  (void)ctx;
  const char *s = NULL;
  switch (fd) {
  case 0:
  case 1:
  case 2: s = "/dev/pts/0"; break;
  case 3: s = "/tmp/notes.txt"; break;
  case 5: s = "TCP 127.0.0.1:40730->127.0.0.1:8080"; break;
  case 7: s = "TCP LISTEN 127.0.0.1:8080"; break;
  case 8: s = "anon_inode:[eventpoll]"; break;
  case 9: s = "pipe:[123]"; break;
  default: return NULL; /* 4, 6, 10+: unknown */
  }
  snprintf(buf, cap, "%s", s);
  return buf;
}

static const char *fake_syscall_name(void *ctx, int64_t nr) {
  (void)ctx;
#ifdef HAVE_GENERATED_NAMES
  return asmspy_syscall_name_of(nr);
#else
  switch (nr) { /* the unmodelled ones the test uses; the rest come from the library */
  case __NR_mincore: return "mincore";
  case __NR_getxattr: return "getxattr";
  default: return NULL;
  }
#endif
}

static struct sc_env env = {
    .ctx = NULL,
    .read_mem = fake_read_mem,
    .describe_fd = fake_describe_fd,
    .syscall_name = fake_syscall_name,
};

/* ------------------------------------------------------------------------- */
/* Harness                                                                     */
/* ------------------------------------------------------------------------- */
static struct sc_call call; /* ~5 KB: static, not on the stack */
static char got[8192];

typedef void (*between_fn)(void);

static void run(int line, const struct sc_env *e, int64_t nr, const uint64_t args[6], int64_t ret,
                between_fn between, const char *want) {
  memset(&call, 0x5a, sizeof call); /* sc_enter must not depend on a zeroed call */
  sc_enter(e, &call, nr, args);
  if (between) between();
  sc_exit(e, &call, ret, got, sizeof got);
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    fprintf(stderr, "FAIL %s:%d\n  expected: %s\n  got:      %s\n", __FILE__, line, want, got);
  }
}

static void run_unfinished(int line, int64_t nr, const uint64_t args[6], const char *want) {
  memset(&call, 0, sizeof call);
  sc_enter(&env, &call, nr, args);
  sc_unfinished(&call, got, sizeof got);
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    fprintf(stderr, "FAIL %s:%d (unfinished)\n  expected: %s\n  got:      %s\n", __FILE__, line,
            want, got);
  }
}

/* T(expected line, return value, syscall number, args...) */
#define T(want, ret, nr, ...)                                                                      \
  do {                                                                                             \
    const uint64_t a_[6] = {__VA_ARGS__};                                                          \
    run(__LINE__, &env, nr, a_, ret, NULL, want);                                                  \
  } while (0)
/* TB: like T, with a hook between the entry and the exit stop (the kernel
 * writing out-parameters). */
#define TB(want, ret, between, nr, ...)                                                            \
  do {                                                                                             \
    const uint64_t a_[6] = {__VA_ARGS__};                                                          \
    run(__LINE__, &env, nr, a_, ret, between, want);                                               \
  } while (0)
#define TU(want, nr, ...)                                                                          \
  do {                                                                                             \
    const uint64_t a_[6] = {__VA_ARGS__};                                                          \
    run_unfinished(__LINE__, nr, a_, want);                                                        \
  } while (0)

#define FD_CWD ((uint64_t)(int64_t)-100)
#define NEG(x) ((uint64_t)(int64_t)(x))
#define ERR(e) (-(int64_t)(e))

/* Is carried[i] exactly these bytes? */
static int carried_is(int i, const void *bytes, size_t len, int more) {
  return i < call.ncarried && call.carried_len[i] == len && call.carried_more[i] == more &&
         memcmp(call.carried[i], bytes, len) == 0 && call.carried[i][len] == '\0';
}

/* ------------------------------------------------------------------------- */
/* Fake target memory                                                          */
/* ------------------------------------------------------------------------- */
#define P_NOTES ((uint64_t)0x10000)    /* "/tmp/notes.txt" */
#define P_HELLO ((uint64_t)0x10100)    /* "hello from pid 1234\n" */
#define P_NOPE ((uint64_t)0x10200)     /* "/nope" */
#define P_TMP ((uint64_t)0x10300)      /* "/tmp" */
#define P_EMPTY ((uint64_t)0x10400)    /* "" */
#define P_HI ((uint64_t)0x10500)       /* "hi\n" */
#define P_CAT ((uint64_t)0x10600)      /* "/usr/bin/cat" */
#define P_SELFEXE ((uint64_t)0x10700)  /* "/proc/self/exe" */
#define P_ESC ((uint64_t)0x10800)      /* bytes needing escapes */
#define P_BIG ((uint64_t)0x11000)      /* 300 x 'x' */
#define P_STAT ((uint64_t)0x12000)     /* struct stat: S_IFREG|0644, 18 bytes */
#define P_STATX ((uint64_t)0x12100)    /* struct statx */
#define P_STATDIR ((uint64_t)0x12400)  /* struct stat: S_IFDIR|S_ISVTX|0777, 4096 */
#define P_IOV ((uint64_t)0x13000)      /* 2 iovecs -> P_IOV0, P_IOV1 */
#define P_IOV0 ((uint64_t)0x13100)     /* "hello " */
#define P_IOV1 ((uint64_t)0x13200)     /* "world\n" */
#define P_SIN ((uint64_t)0x14000)      /* sockaddr_in 127.0.0.1:8080 */
#define P_SIN6 ((uint64_t)0x14100)     /* sockaddr_in6 [::1]:80 */
#define P_SUN ((uint64_t)0x14200)      /* sockaddr_un "/tmp/sock" */
#define P_SUNABS ((uint64_t)0x14300)   /* sockaddr_un abstract "name" */
#define P_SA99 ((uint64_t)0x14400)     /* family 99 */
#define P_SANL ((uint64_t)0x14480)     /* AF_NETLINK */
#define P_LEN16 ((uint64_t)0x14500)    /* int 16 */
#define P_LEN2 ((uint64_t)0x14510)     /* int 2 */
#define P_LENVR ((uint64_t)0x14520)    /* int: 128 at entry, 16 at exit */
#define P_ACT ((uint64_t)0x15000)      /* sigaction: handler, [INT TERM], SA_RESTORER|SA_RESTART */
#define P_ACTDFL ((uint64_t)0x15040)   /* sigaction: SIG_DFL */
#define P_ACTIGN ((uint64_t)0x15080)   /* sigaction: SIG_IGN */
#define P_SET ((uint64_t)0x15100)      /* sigset [INT TERM] */
#define P_SETFULL ((uint64_t)0x15108)  /* sigset ~[RTMIN RT_1] */
#define P_TS ((uint64_t)0x15200)       /* timespec {0, 2000000} */
#define P_REM ((uint64_t)0x15210)      /* timespec {0, 1000} */
#define P_TV ((uint64_t)0x15220)       /* timeval {0, 1000} */
#define P_PIPE ((uint64_t)0x16000)     /* int[2] {3, 4} */
#define P_CLONE3 ((uint64_t)0x16100)   /* struct clone_args */
#define P_RLIM ((uint64_t)0x16200)     /* {8192*1024, infinity} */
#define P_RLIMNEW ((uint64_t)0x16210)  /* {1000, 1024*1024} */
#define P_WINSZ ((uint64_t)0x16300)    /* {24, 80, 0, 0} */
#define P_INT237 ((uint64_t)0x16400)   /* int 237 */
#define P_INT1 ((uint64_t)0x16410)     /* int 1 */
#define P_WST0 ((uint64_t)0x16500)     /* wait status: exited 0 */
#define P_WSTKILL ((uint64_t)0x16504)  /* wait status: SIGKILL + core */
#define P_FLOCKW ((uint64_t)0x16600)   /* flock F_WRLCK */
#define P_FLOCKU ((uint64_t)0x16620)   /* flock F_UNLCK */
#define P_POLL ((uint64_t)0x16700)     /* 2 pollfds */
#define P_FDSET ((uint64_t)0x16800)    /* fd_set {0, 3} */
#define P_EPEV ((uint64_t)0x16900)     /* epoll_event {EPOLLIN, 7} */
#define P_EPEVET ((uint64_t)0x16910)   /* epoll_event {EPOLLIN|EPOLLET, 7} */
#define P_RAND ((uint64_t)0x16a00)     /* 8 random bytes */
#define P_FSBASE ((uint64_t)0x16a10)   /* u64 0x7f1ebd107740 */
#define P_LINK ((uint64_t)0x16b00)     /* "/usr/bin/cat" (not NUL-terminated use) */
#define P_EDGE ((uint64_t)0x17000)     /* 16 bytes, no NUL, then unmapped */
#define P_LONGPATH ((uint64_t)0x18000) /* 300 x 'p' + NUL */
#define P_BIN ((uint64_t)0x19000)      /* binary data with NULs */
#define P_BAD ((uint64_t)0xdead0000)   /* unmapped */

static void setup_memory(void) {
  map_str(P_NOTES, "/tmp/notes.txt");
  map_str(P_HELLO, "hello from pid 1234\n");
  map_str(P_NOPE, "/nope");
  map_str(P_TMP, "/tmp");
  map_str(P_EMPTY, "");
  map_str(P_HI, "hi\n");
  map_str(P_CAT, "/usr/bin/cat");
  map_str(P_SELFEXE, "/proc/self/exe");
  map(P_ESC, "\0\1\0012\177\"\\\t", 8);
  char *big = map(P_BIG, NULL, 300);
  memset(big, 'x', 300);

  struct stat st;
  memset(&st, 0, sizeof st);
  st.st_mode = S_IFREG | 0644;
  st.st_size = 18;
  map(P_STAT, &st, sizeof st);
  st.st_mode = S_IFDIR | S_ISVTX | 0777;
  st.st_size = 4096;
  map(P_STATDIR, &st, sizeof st);
  struct statx sx;
  memset(&sx, 0, sizeof sx);
  sx.stx_mask = 0x17ff; /* STATX_BASIC_STATS|STATX_MNT_ID */
  sx.stx_mode = S_IFREG | 0644;
  sx.stx_size = 18;
  map(P_STATX, &sx, sizeof sx);

  uint64_t iov[4] = {P_IOV0, 6, P_IOV1, 6};
  map(P_IOV, iov, sizeof iov);
  map(P_IOV0, "hello ", 6);
  map(P_IOV1, "world\n", 6);

  unsigned char sin[16] = {2, 0, 0x1f, 0x90, 127, 0, 0, 1};
  map(P_SIN, sin, sizeof sin);
  unsigned char sin6[28] = {10, 0, 0, 80};
  sin6[8 + 15] = 1; /* ::1 */
  map(P_SIN6, sin6, sizeof sin6);
  unsigned char sun[110] = {1, 0};
  memcpy(sun + 2, "/tmp/sock", 10);
  map(P_SUN, sun, sizeof sun);
  unsigned char sunabs[7] = {1, 0, 0, 'n', 'a', 'm', 'e'};
  map(P_SUNABS, sunabs, sizeof sunabs);
  unsigned char sa99[16] = {99, 0};
  map(P_SA99, sa99, sizeof sa99);
  unsigned char sanl[12] = {16, 0};
  map(P_SANL, sanl, sizeof sanl);
  int32_t i16 = 16, i2 = 2, i128 = 128;
  map(P_LEN16, &i16, 4);
  map(P_LEN2, &i2, 4);
  map(P_LENVR, &i128, 4);

  uint64_t act[4] = {0x55df3620fdc0, 0x14000000, 0x7ff7aff70050, (1u << 1) | (1u << 14)};
  map(P_ACT, act, sizeof act);
  uint64_t dfl[4] = {0, 0, 0, 0};
  map(P_ACTDFL, dfl, sizeof dfl);
  uint64_t ign[4] = {1, 0, 0, 0};
  map(P_ACTIGN, ign, sizeof ign);
  uint64_t set = (1u << 1) | (1u << 14);
  map(P_SET, &set, 8);
  uint64_t full = ~((1ull << 31) | (1ull << 32));
  map(P_SETFULL, &full, 8);
  int64_t ts[2] = {0, 2000000}, rem[2] = {0, 1000}, tv[2] = {0, 1000};
  map(P_TS, ts, sizeof ts);
  map(P_REM, rem, sizeof rem);
  map(P_TV, tv, sizeof tv);

  int32_t pfd[2] = {3, 4};
  map(P_PIPE, pfd, sizeof pfd);
  uint64_t ca[11] = {0x4100, 0, 0, 0, 17, 0x7f0000100000, 0x9000, 0, 0, 0, 0};
  map(P_CLONE3, ca, sizeof ca);
  uint64_t rl[2] = {8192 * 1024, UINT64_MAX}, rln[2] = {1000, 1024 * 1024};
  map(P_RLIM, rl, sizeof rl);
  map(P_RLIMNEW, rln, sizeof rln);
  uint16_t ws[4] = {24, 80, 0, 0};
  map(P_WINSZ, ws, sizeof ws);
  int32_t i237 = 237, i1 = 1, w0 = 0, wkill = 0x89;
  map(P_INT237, &i237, 4);
  map(P_INT1, &i1, 4);
  map(P_WST0, &w0, 4);
  map(P_WSTKILL, &wkill, 4);
  struct flock flw = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  map(P_FLOCKW, &flw, sizeof flw);
  struct flock flu = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
  map(P_FLOCKU, &flu, sizeof flu);
  int16_t pollfds[8] = {7, 0, 1, 1, /**/ 5, 0, 5, 0}; /* {fd, events, revents} x2 */
  map(P_POLL, pollfds, sizeof pollfds);
  uint64_t fdset[16] = {0x9};
  map(P_FDSET, fdset, sizeof fdset);
  unsigned char ev[12] = {1, 0, 0, 0, 7};
  map(P_EPEV, ev, sizeof ev);
  unsigned char evet[12] = {1, 0, 0, 0x80, 7};
  map(P_EPEVET, evet, sizeof evet);
  map(P_RAND, "\xf5\xd2\x96\xb5\x58\x9f\xff\x51", 8);
  uint64_t fsbase = 0x7f1ebd107740;
  map(P_FSBASE, &fsbase, 8);
  map(P_LINK, "/usr/bin/catXXXX", 16);
  map(P_EDGE, "abcdefghijklmnop", 16);
  char *lp = map(P_LONGPATH, NULL, 301);
  memset(lp, 'p', 300);
  map(P_BIN, "ab\0cd", 5);
}

/* Between-hooks: the kernel writes an out-parameter during the call. */
static void kernel_sets_addrlen_16(void) {
  for (int i = 0; i < nregions; i++)
    if (regions[i].addr == P_LENVR) {
      int32_t v = 16;
      memcpy(regions[i].bytes, &v, 4);
    }
}
static void kernel_resets_addrlen_128(void) {
  for (int i = 0; i < nregions; i++)
    if (regions[i].addr == P_LENVR) {
      int32_t v = 128;
      memcpy(regions[i].bytes, &v, 4);
    }
}

/* ------------------------------------------------------------------------- */
/* Cases                                                                       */
/* ------------------------------------------------------------------------- */
static void test_seed_examples(void) {
  /* the brief's example block, line for line */
  T("access(\"/tmp/notes.txt\", F_OK) = 0", 0, __NR_access, P_NOTES, 0);
  CHECK(carried_is(0, "/tmp/notes.txt", 14, 0), "access carried the path");
  T("openat(AT_FDCWD, \"/tmp/notes.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3", 3, __NR_openat,
    FD_CWD, P_NOTES, 0x241, 0644);
  CHECK(call.ncarried == 1 && carried_is(0, "/tmp/notes.txt", 14, 0), "openat carried the path");
  T("write(fd=3</tmp/notes.txt>, \"hello from pid 1234\\n\", 20) = 20", 20, __NR_write, 3, P_HELLO,
    20);
  CHECK(carried_is(0, "hello from pid 1234\n", 20, 0), "write carried its data");
  T("close(fd=3) = 0", 0, __NR_close, 3);
  T("read(fd=3</tmp/notes.txt>, 64) = \"hello from pid 1234\\n\" [20]", 20, __NR_read, 3, P_HELLO,
    64);
  CHECK(carried_is(0, "hello from pid 1234\n", 20, 0), "read carried its data");
  T("openat(AT_FDCWD, \"/nope\", O_RDONLY) = -1 ENOENT (No such file or directory)", ERR(ENOENT),
    __NR_openat, FD_CWD, P_NOPE, O_RDONLY);
  T("getpid() = 1234", 1234, __NR_getpid);
  T("mincore(0x1, 2147291136, NULL) = 0", 0, __NR_mincore, 1, 0x7ffd1000, 0, 4, 5, 6);
}

static void test_file_io(void) {
  T("read(fd=3</tmp/notes.txt>, 64) = \"\" [0]", 0, __NR_read, 3, P_HELLO, 64);
  T("read(fd=0</dev/pts/0>, 64) = -1 EAGAIN (Resource temporarily unavailable)", ERR(EAGAIN),
    __NR_read, 0, P_HELLO, 64);
  T("read(fd=0</dev/pts/0>, 64) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)", -512,
    __NR_read, 0, P_HELLO, 64);
  T("read(fd=4, 16) = 0xdead0000 [5]", 5, __NR_read, 4, P_BAD, 16); /* failed memory read */
  T("pread64(fd=3</tmp/notes.txt>, 64, 0) = \"hello from pid 1234\\n\" [20]", 20, __NR_pread64, 3,
    P_HELLO, 64, 0);
  T("pwrite64(fd=3</tmp/notes.txt>, \"hello from pid 1234\\n\", 20, 100) = 20", 20, __NR_pwrite64,
    3, P_HELLO, 20, 100);
  T("write(fd=3</tmp/notes.txt>, \"\", 0) = 0", 0, __NR_write, 3, P_HELLO, 0);
  T("write(fd=3</tmp/notes.txt>, 0xdead0000, 5) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_write,
    3, P_BAD, 5);
  T("write(fd=1</dev/pts/0>, \"\\0\\1\\0012\\177\\\"\\\\\\t\", 8) = 8", 8, __NR_write, 1, P_ESC, 8);
  T("write(fd=9<pipe:[123]>, \"ab\\0cd\", 5) = 5", 5, __NR_write, 9, P_BIN, 5);
  CHECK(carried_is(0, "ab\0cd", 5, 0), "binary carried with its NUL, len %u",
        (unsigned)call.carried_len[0]);

  /* readv / writev: iovec contents */
  T("writev(fd=1</dev/pts/0>, [{iov_base=\"hello \", iov_len=6}, {iov_base=\"world\\n\", "
    "iov_len=6}], 2) = 12",
    12, __NR_writev, 1, P_IOV, 2);
  CHECK(carried_is(0, "hello world\n", 12, 0), "writev carried the gathered data");
  T("readv(fd=3</tmp/notes.txt>, 2) = [{iov_base=\"hello \", iov_len=6}, {iov_base=\"world\\n\", "
    "iov_len=6}] [12]",
    12, __NR_readv, 3, P_IOV, 2);
  T("readv(fd=3</tmp/notes.txt>, 2) = [{iov_base=\"hello \", iov_len=6}, {iov_base=\"wo\", "
    "iov_len=6}] [8]",
    8, __NR_readv, 3, P_IOV, 2);
  CHECK(carried_is(0, "hello wo", 8, 0), "readv carried what was read");
  T("readv(fd=3</tmp/notes.txt>, 2) = -1 EBADF (Bad file descriptor)", ERR(EBADF), __NR_readv, 3,
    P_IOV, 2);
  /* a hostile iovcnt: the readable prefix of the array, then ... */
  T("writev(fd=3</tmp/notes.txt>, [{iov_base=\"hello \", iov_len=6}, {iov_base=\"world\\n\", "
    "iov_len=6}, ...], 1000000) = -1 EINVAL (Invalid argument)",
    ERR(EINVAL), __NR_writev, 3, P_IOV, 1000000);
  T("writev(fd=3</tmp/notes.txt>, 0xdead0000, 2) = -1 EFAULT (Bad address)", ERR(EFAULT),
    __NR_writev, 3, P_BAD, 2);
  T("preadv(fd=3</tmp/notes.txt>, 2, 0) = [{iov_base=\"hello \", iov_len=6}, {iov_base=\"\", "
    "iov_len=6}] [6]",
    6, __NR_preadv, 3, P_IOV, 2, 0, 0);
  T("pwritev(fd=3</tmp/notes.txt>, [{iov_base=\"hello \", iov_len=6}, {iov_base=\"world\\n\", "
    "iov_len=6}], 2, 4096) = 12",
    12, __NR_pwritev, 3, P_IOV, 2, 4096, 0);
}

static void test_oversized(void) {
  char x200[201];
  memset(x200, 'x', 200);
  x200[200] = '\0';
  char want[512];

  /* a 1 GB write prints 200 bytes and reads little */
  largest_request = total_requested = 0;
  snprintf(want, sizeof want, "write(fd=3</tmp/notes.txt>, \"%s\"..., 1073741824) = 1073741824",
           x200);
  T(want, 1073741824, __NR_write, 3, P_BIG, 1073741824);
  CHECK(largest_request <= 4096 && total_requested <= 4096, "bounded reads: largest %zu total %zu",
        largest_request, total_requested);
  CHECK(call.carried_len[0] == 200 && call.carried_more[0] == 1, "write carry capped: %u/%u",
        (unsigned)call.carried_len[0], (unsigned)call.carried_more[0]);

  snprintf(want, sizeof want, "read(fd=3</tmp/notes.txt>, 1073741824) = \"%s\"... [1073741824]",
           x200);
  T(want, 1073741824, __NR_read, 3, P_BIG, 1073741824);

  /* data that runs into unmapped memory: what is readable, then ... */
  T("write(fd=3</tmp/notes.txt>, \"abcdefghijklmnop\"..., 100) = 100", 100, __NR_write, 3, P_EDGE,
    100);
  T("open(\"abcdefghijklmnop\"..., O_RDONLY) = -1 ENOENT (No such file or directory)", ERR(ENOENT),
    __NR_open, P_EDGE, O_RDONLY);

  /* a path longer than 200 bytes */
  char p200[201];
  memset(p200, 'p', 200);
  p200[200] = '\0';
  snprintf(want, sizeof want, "open(\"%s\"..., O_RDONLY) = -1 ENAMETOOLONG (File name too long)",
           p200);
  T(want, ERR(ENAMETOOLONG), __NR_open, P_LONGPATH, O_RDONLY);
  CHECK(call.carried_len[0] == 200 && call.carried_more[0] == 1, "long path carry capped");

  /* a hostile write of 200+ escaped bytes still fits the line */
  largest_request = 0;
  T("sendto(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, 0xdead0000, 18446744073709551615, "
    "MSG_NOSIGNAL, NULL, 0) = -1 EFAULT (Bad address)",
    ERR(EFAULT), __NR_sendto, 5, P_BAD, UINT64_MAX, 0x4000, 0, 0);
  CHECK(largest_request <= 4096, "hostile sendto length: largest request %zu", largest_request);

  /* the line buffer is smaller than the line: cut, ends in "..." */
  static struct sc_call c2;
  char small[24];
  const uint64_t a[6] = {FD_CWD, P_NOTES, 0x241, 0644};
  sc_enter(&env, &c2, __NR_openat, a);
  sc_exit(&env, &c2, 3, small, sizeof small);
  CHECK(strcmp(small, "openat(AT_FDCWD, \"/t...") == 0 && strlen(small) == sizeof small - 1,
        "cut line: %s", small);
}

static void test_open_family(void) {
  T("open(\"/tmp/notes.txt\", O_RDONLY|O_CLOEXEC) = 3", 3, __NR_open, P_NOTES, O_RDONLY | O_CLOEXEC,
    0777); /* no O_CREAT: the stray mode is not shown */
  T("open(\"/tmp/notes.txt\", O_RDWR|O_CREAT|O_EXCL, 0600) = 3", 3, __NR_open, P_NOTES,
    O_RDWR | O_CREAT | O_EXCL, 0600);
  T("openat(AT_FDCWD, \"/tmp\", O_RDWR|O_CLOEXEC|O_TMPFILE, 0600) = 9", 9, __NR_openat, FD_CWD,
    P_TMP, O_RDWR | O_CLOEXEC | O_TMPFILE, 0600);
  T("openat(AT_FDCWD, \"/tmp\", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3", 3, __NR_openat,
    FD_CWD, P_TMP, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY);
  T("openat(fd=3</tmp/notes.txt>, \"/nope\", O_WRONLY|O_APPEND|O_LARGEFILE|0x40000000) = -1 "
    "ENOTDIR (Not a directory)",
    ERR(ENOTDIR), __NR_openat, 3, P_NOPE, O_WRONLY | O_APPEND | 0100000 | 0x40000000);
  T("openat(AT_FDCWD, 0xdead0000, O_RDONLY) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_openat,
    FD_CWD, P_BAD, O_RDONLY);
  T("openat(AT_FDCWD, NULL, O_RDONLY) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_openat, FD_CWD,
    0, O_RDONLY);
  T("creat(\"/tmp/notes.txt\", 0644) = 3", 3, __NR_creat, P_NOTES, 0644);
  T("close(fd=4) = -1 EBADF (Bad file descriptor)", ERR(EBADF), __NR_close, 4);
  T("close(-1) = -1 EBADF (Bad file descriptor)", ERR(EBADF), __NR_close, NEG(-1));
  /* the lead's choice: describe the fd close is about to drop */
  struct sc_env e2 = env;
  e2.flags = SC_ENV_DESCRIBE_CLOSED_FD;
  const uint64_t a[6] = {3};
  run(__LINE__, &e2, __NR_close, a, 0, NULL, "close(fd=3</tmp/notes.txt>) = 0");
}

static void test_stat_family(void) {
  T("stat(\"/tmp/notes.txt\", {st_mode=S_IFREG|0644, st_size=18}) = 0", 0, __NR_stat, P_NOTES,
    P_STAT);
  T("lstat(\"/tmp\", {st_mode=S_IFDIR|S_ISVTX|0777, st_size=4096}) = 0", 0, __NR_lstat, P_TMP,
    P_STATDIR);
  T("stat(\"/nope\", 0x12000) = -1 ENOENT (No such file or directory)", ERR(ENOENT), __NR_stat,
    P_NOPE, P_STAT);
  T("fstat(fd=3</tmp/notes.txt>, {st_mode=S_IFREG|0644, st_size=18}) = 0", 0, __NR_fstat, 3,
    P_STAT);
  T("fstat(fd=3</tmp/notes.txt>, 0xdead0000) = 0", 0, __NR_fstat, 3, P_BAD);
  T("newfstatat(AT_FDCWD, \"/tmp/notes.txt\", {st_mode=S_IFREG|0644, st_size=18}, 0) = 0", 0,
    __NR_newfstatat, FD_CWD, P_NOTES, P_STAT, 0);
  T("newfstatat(fd=3</tmp/notes.txt>, \"\", {st_mode=S_IFREG|0644, st_size=18}, AT_EMPTY_PATH) = 0",
    0, __NR_newfstatat, 3, P_EMPTY, P_STAT, AT_EMPTY_PATH);
  T("statx(AT_FDCWD, \"/tmp/notes.txt\", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, "
    "STATX_BASIC_STATS, {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_mode=S_IFREG|0644, "
    "stx_size=18}) = 0",
    0, __NR_statx, FD_CWD, P_NOTES, AT_SYMLINK_NOFOLLOW, 0x7ff, P_STATX);
  T("statx(fd=3</tmp/notes.txt>, \"\", AT_STATX_DONT_SYNC|AT_EMPTY_PATH, STATX_TYPE|STATX_SIZE, "
    "0x12100) = -1 EBADF (Bad file descriptor)",
    ERR(EBADF), __NR_statx, 3, P_EMPTY, 0x4000 | AT_EMPTY_PATH, 0x201, P_STATX);
  T("access(\"/tmp/notes.txt\", R_OK|W_OK) = 0", 0, __NR_access, P_NOTES, R_OK | W_OK);
  T("faccessat(AT_FDCWD, \"/tmp/notes.txt\", X_OK) = -1 EACCES (Permission denied)", ERR(EACCES),
    __NR_faccessat, FD_CWD, P_NOTES, X_OK);
  T("faccessat2(AT_FDCWD, \"/tmp/notes.txt\", R_OK, AT_EACCESS) = 0", 0, __NR_faccessat2, FD_CWD,
    P_NOTES, R_OK, AT_EACCESS);
  T("lseek(fd=3</tmp/notes.txt>, 0, SEEK_END) = 18", 18, __NR_lseek, 3, 0, SEEK_END);
  T("lseek(fd=3</tmp/notes.txt>, -2, SEEK_CUR) = 16", 16, __NR_lseek, 3, NEG(-2), SEEK_CUR);
  T("lseek(fd=3</tmp/notes.txt>, 5, SEEK_DATA) = -1 ENXIO (No such device or address)", ERR(ENXIO),
    __NR_lseek, 3, 5, SEEK_DATA);
  T("lseek(fd=3</tmp/notes.txt>, 0, SEEK_HOLE) = 18", 18, __NR_lseek, 3, 0, SEEK_HOLE);
#ifdef __NR_fadvise64
  T("fadvise64(fd=3</tmp/notes.txt>, 0, 0, POSIX_FADV_SEQUENTIAL) = 0", 0, __NR_fadvise64, 3, 0, 0,
    2);
  T("fadvise64(fd=3</tmp/notes.txt>, -1, 4096, 9) = -1 EINVAL (Invalid argument)", ERR(EINVAL),
    __NR_fadvise64, 3, NEG(-1), 4096, 9);
#endif
  T("lseek(fd=3</tmp/notes.txt>, 0, 7) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_lseek, 3,
    0, 7);
  T("ftruncate(fd=3</tmp/notes.txt>, 0) = 0", 0, __NR_ftruncate, 3, 0);
  T("fsync(fd=3</tmp/notes.txt>) = 0", 0, __NR_fsync, 3);
  T("getdents64(fd=3</tmp/notes.txt>, 0x7ffd0000, 32768) = 48", 48, __NR_getdents64, 3, 0x7ffd0000,
    32768);
}

static void test_memory(void) {
  T("mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1ebd2f7000",
    0x7f1ebd2f7000, __NR_mmap, 0, 8192, 3, 0x22, NEG(-1), 0);
  T("mmap(0x7f1ebd130000, 1400832, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, "
    "fd=3</tmp/notes.txt>, 0x26000) = 0x7f1ebd130000",
    0x7f1ebd130000, __NR_mmap, 0x7f1ebd130000, 1400832, 5, 0x812, 3, 0x26000);
  T("mmap(NULL, 4096, PROT_NONE, MAP_SHARED|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0) = -1 ENOMEM "
    "(Cannot allocate memory)",
    ERR(ENOMEM), __NR_mmap, 0, 4096, 0, 0x4021, NEG(-1), 0);
  T("mmap(NULL, 2097152, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_"
    "SHIFT, -1, 0) = 0x7f0000000000",
    0x7f0000000000, __NR_mmap, 0, 2097152, 3, 0x40022 | (21u << 26), NEG(-1), 0);
  T("mprotect(0x7f1ebd2d9000, 16384, PROT_READ) = 0", 0, __NR_mprotect, 0x7f1ebd2d9000, 16384, 1);
  T("mprotect(0x1000, 4096, PROT_READ|PROT_EXEC) = -1 ENOMEM (Cannot allocate memory)", ERR(ENOMEM),
    __NR_mprotect, 0x1000, 4096, 5);
  T("munmap(0x7f1ebd2ec000, 42263) = 0", 0, __NR_munmap, 0x7f1ebd2ec000, 42263);
  T("brk(NULL) = 0x55d8d32be000", 0x55d8d32be000, __NR_brk, 0);
  T("brk(0x55d8d32df000) = 0x55d8d32df000", 0x55d8d32df000, __NR_brk, 0x55d8d32df000);
}

static void test_processes(void) {
  T("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
    "child_tidptr=0x7ff7aff31a10) = 9413",
    9413, __NR_clone, 0x01200011, 0, 0, 0x7ff7aff31a10, 0);
  T("clone(child_stack=0x7f00aaaa0ff0, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_"
    "THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, "
    "parent_tid=0x7f00aaaa19d0, tls=0x7f00aaaa1700, child_tidptr=0x7f00aaaa19d0) = 4242",
    4242, __NR_clone, 0x3d0f00, 0x7f00aaaa0ff0, 0x7f00aaaa19d0, 0x7f00aaaa19d0, 0x7f00aaaa1700);
  T("clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f0000100000, "
    "stack_size=0x9000}, 88) = 777",
    777, __NR_clone3, P_CLONE3, 88);
  T("clone3(0x16100, 8) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_clone3, P_CLONE3, 8);
  T("fork() = 4243", 4243, __NR_fork);
  T("execve(\"/usr/bin/cat\", 0x7ffd1000, 0x7ffd2000) = 0", 0, __NR_execve, P_CAT, 0x7ffd1000,
    0x7ffd2000);
  CHECK(call.ncarried == 1 && carried_is(0, "/usr/bin/cat", 12, 0), "execve carried the path");
  T("execve(\"/nope\", 0x7ffd1000, 0x7ffd2000) = -1 ENOENT (No such file or directory)",
    ERR(ENOENT), __NR_execve, P_NOPE, 0x7ffd1000, 0x7ffd2000);
  T("execveat(fd=3</tmp/notes.txt>, \"\", 0x7ffd1000, NULL, AT_EMPTY_PATH) = -1 ENOEXEC (Exec "
    "format error)",
    ERR(ENOEXEC), __NR_execveat, 3, P_EMPTY, 0x7ffd1000, 0, AT_EMPTY_PATH);
  T("wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 9411", 9411, __NR_wait4, NEG(-1),
    P_WST0, 0, 0);
  T("wait4(-1, 0x16500, WNOHANG|__WALL, NULL) = 0", 0, __NR_wait4, NEG(-1), P_WST0, 1 | 0x40000000,
    0);
  T("wait4(9412, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL && WCOREDUMP(s)}], 0, 0x7ffd3000) = "
    "9412",
    9412, __NR_wait4, 9412, P_WSTKILL, 0, 0x7ffd3000);
  T("wait4(-1, 0x16500, WNOHANG, NULL) = -1 ECHILD (No child processes)", ERR(ECHILD), __NR_wait4,
    NEG(-1), P_WST0, 1, 0);
  T("getpid() = 1234", 1234, __NR_getpid);
  T("gettid() = 1235", 1235, __NR_gettid);
  T("getppid() = 1", 1, __NR_getppid);
  T("getuid() = 0", 0, __NR_getuid);
  T("sched_yield() = 0", 0, __NR_sched_yield);
  T("set_tid_address(0x7f1ebd107a10) = 7967", 7967, __NR_set_tid_address, 0x7f1ebd107a10);
  T("set_robust_list(0x7f1ebd107a20, 24) = 0", 0, __NR_set_robust_list, 0x7f1ebd107a20, 24);
  T("arch_prctl(ARCH_SET_FS, 0x7f1ebd107740) = 0", 0, __NR_arch_prctl, 0x1002, 0x7f1ebd107740);
  T("arch_prctl(ARCH_GET_FS, [0x7f1ebd107740]) = 0", 0, __NR_arch_prctl, 0x1003, P_FSBASE);
  T("arch_prctl(0x3001, 0x7ffd0000) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_arch_prctl,
    0x3001, 0x7ffd0000);
  T("prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0", 0,
    __NR_prlimit64, 0, RLIMIT_STACK, 0, P_RLIM);
  T("prlimit64(1234, RLIMIT_NOFILE, {rlim_cur=1000, rlim_max=1024*1024}, NULL) = 0", 0,
    __NR_prlimit64, 1234, RLIMIT_NOFILE, P_RLIMNEW, 0);
  T("getrandom(\"\\xf5\\xd2\\x96\\xb5\\x58\\x9f\\xff\\x51\", 8, GRND_NONBLOCK) = 8", 8,
    __NR_getrandom, P_RAND, 8, 1);
  T("getrandom(0x16a00, 8, GRND_RANDOM|0x10) = -1 EINVAL (Invalid argument)", ERR(EINVAL),
    __NR_getrandom, P_RAND, 8, 0x12);
}

static void test_signals_time(void) {
  T("rt_sigaction(SIGINT, {sa_handler=0x55df3620fdc0, sa_mask=[INT TERM], "
    "sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7ff7aff70050}, NULL, 8) = 0",
    0, __NR_rt_sigaction, SIGINT, P_ACT, 0, 8);
  T("rt_sigaction(SIGQUIT, NULL, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0", 0,
    __NR_rt_sigaction, SIGQUIT, 0, P_ACTDFL, 8);
  T("rt_sigaction(SIGPIPE, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 0x15040, 8) = -1 EINVAL "
    "(Invalid argument)",
    ERR(EINVAL), __NR_rt_sigaction, SIGPIPE, P_ACTIGN, P_ACTDFL, 8);
  T("rt_sigaction(SIGRT_2, 0xdead0000, NULL, 8) = -1 EFAULT (Bad address)", ERR(EFAULT),
    __NR_rt_sigaction, 34, P_BAD, 0, 8);
  T("rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0", 0, __NR_rt_sigprocmask, SIG_BLOCK, P_SET,
    0, 8);
  T("rt_sigprocmask(SIG_SETMASK, [INT TERM], ~[RTMIN RT_1], 8) = 0", 0, __NR_rt_sigprocmask,
    SIG_SETMASK, P_SET, P_SETFULL, 8);
  T("rt_sigprocmask(SIG_UNBLOCK, ~[RTMIN RT_1], NULL, 8) = 0", 0, __NR_rt_sigprocmask, SIG_UNBLOCK,
    P_SETFULL, 0, 8);
  T("rt_sigprocmask(SIG_BLOCK, 0xdead0000, NULL, 8) = -1 EFAULT (Bad address)", ERR(EFAULT),
    __NR_rt_sigprocmask, SIG_BLOCK, P_BAD, 0, 8);
  T("kill(1234, SIGTERM) = 0", 0, __NR_kill, 1234, SIGTERM);
  T("kill(1234, 0) = 0", 0, __NR_kill, 1234, 0);
  T("kill(99999, SIGKILL) = -1 ESRCH (No such process)", ERR(ESRCH), __NR_kill, 99999, SIGKILL);
  T("tgkill(1234, 1235, SIGRT_2) = 0", 0, __NR_tgkill, 1234, 1235, 34);
  T("tkill(1235, SIGRTMIN) = 0", 0, __NR_tkill, 1235, 32);
  T("nanosleep({tv_sec=0, tv_nsec=2000000}, NULL) = 0", 0, __NR_nanosleep, P_TS, 0);
  T("nanosleep({tv_sec=0, tv_nsec=2000000}, 0x15210) = 0", 0, __NR_nanosleep, P_TS, P_REM);
  T("nanosleep({tv_sec=0, tv_nsec=2000000}, {tv_sec=0, tv_nsec=1000}) = ? ERESTART_RESTARTBLOCK "
    "(Interrupted by signal)",
    -516, __NR_nanosleep, P_TS, P_REM);
  T("nanosleep(0xdead0000, NULL) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_nanosleep, P_BAD, 0);
  T("clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=2000000}, 0x15210) = 0", 0,
    __NR_clock_nanosleep, 0, 0, P_TS, P_REM);
  T("clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, {tv_sec=0, tv_nsec=2000000}, NULL) = 0", 0,
    __NR_clock_nanosleep, 1, 1, P_TS, 0);
  T("clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=2000000}, {tv_sec=0, tv_nsec=1000}) = "
    "-1 EINTR (Interrupted system call)",
    ERR(EINTR), __NR_clock_nanosleep, 1, 0, P_TS, P_REM);
}

static void test_fd_control(void) {
  T("ioctl(fd=1</dev/pts/0>, TCGETS, 0x7ffd3a0263c0) = -1 ENOTTY (Inappropriate ioctl for "
    "device)",
    ERR(ENOTTY), __NR_ioctl, 1, 0x5401, 0x7ffd3a0263c0);
  T("ioctl(fd=1</dev/pts/0>, TCSETS, 0x7ffd3a0263c0) = 0", 0, __NR_ioctl, 1, 0x5402,
    0x7ffd3a0263c0);
  T("ioctl(fd=1</dev/pts/0>, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0", 0,
    __NR_ioctl, 1, 0x5413, P_WINSZ);
  T("ioctl(fd=4, TIOCGWINSZ, 0x16300) = -1 ENOTTY (Inappropriate ioctl for device)", ERR(ENOTTY),
    __NR_ioctl, 4, 0x5413, P_WINSZ);
  T("ioctl(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, FIONREAD, [237]) = 0", 0, __NR_ioctl, 5,
    0x541b, P_INT237);
  T("ioctl(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, FIONBIO, [1]) = 0", 0, __NR_ioctl, 5, 0x5421,
    P_INT1);
  T("ioctl(fd=3</tmp/notes.txt>, FIOCLEX) = 0", 0, __NR_ioctl, 3, 0x5451);
  T("ioctl(fd=3</tmp/notes.txt>, 0xc0186201, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for "
    "device)",
    ERR(ENOTTY), __NR_ioctl, 3, 0xc0186201, 0x7ffd0000);

  T("fcntl(fd=3</tmp/notes.txt>, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)", 0x8002, __NR_fcntl,
    3, F_GETFL);
  T("fcntl(fd=3</tmp/notes.txt>, F_SETFL, O_RDWR|O_NONBLOCK) = 0", 0, __NR_fcntl, 3, F_SETFL,
    O_RDWR | O_NONBLOCK);
  T("fcntl(fd=1</dev/pts/0>, F_DUPFD, 10) = 11", 11, __NR_fcntl, 1, F_DUPFD, 10);
  T("fcntl(fd=11, F_DUPFD_CLOEXEC, 0) = 12", 12, __NR_fcntl, 11, F_DUPFD_CLOEXEC, 0);
  T("fcntl(fd=11, F_GETFD) = 0x1 (flags FD_CLOEXEC)", 1, __NR_fcntl, 11, F_GETFD);
  T("fcntl(fd=11, F_GETFD) = 0", 0, __NR_fcntl, 11, F_GETFD);
  T("fcntl(fd=255, F_GETFD) = -1 EBADF (Bad file descriptor)", ERR(EBADF), __NR_fcntl, 255,
    F_GETFD);
  T("fcntl(fd=11, F_SETFD, FD_CLOEXEC) = 0", 0, __NR_fcntl, 11, F_SETFD, FD_CLOEXEC);
  T("fcntl(fd=3</tmp/notes.txt>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, "
    "l_len=0}) = 0",
    0, __NR_fcntl, 3, F_SETLK, P_FLOCKW);
  T("fcntl(fd=3</tmp/notes.txt>, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, "
    "l_len=0}) = 0",
    0, __NR_fcntl, 3, F_SETLKW, P_FLOCKW);
  T("fcntl(fd=3</tmp/notes.txt>, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=0, "
    "l_pid=0}) = 0",
    0, __NR_fcntl, 3, F_GETLK, P_FLOCKU);
  T("fcntl(fd=3</tmp/notes.txt>, F_SETSIG, SIGIO) = 0", 0, __NR_fcntl, 3, F_SETSIG, SIGIO);
  T("fcntl(fd=3</tmp/notes.txt>, 0x4d2, 0x5) = -1 EINVAL (Invalid argument)", ERR(EINVAL),
    __NR_fcntl, 3, 1234, 5);

  T("futex(0x7f1ebd2dea4c, FUTEX_WAKE_PRIVATE, 2147483647) = 0", 0, __NR_futex, 0x7f1ebd2dea4c, 129,
    2147483647);
  T("futex(0x7f1ebd2dea4c, FUTEX_WAIT_PRIVATE, 2, NULL) = -1 EAGAIN (Resource temporarily "
    "unavailable)",
    ERR(EAGAIN), __NR_futex, 0x7f1ebd2dea4c, 128, 2, 0);
  T("futex(0x7fffd8475aec, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 1, {tv_sec=0, "
    "tv_nsec=2000000}, FUTEX_BITSET_MATCH_ANY) = -1 ETIMEDOUT (Connection timed out)",
    ERR(ETIMEDOUT), __NR_futex, 0x7fffd8475aec, 9 | 256, 1, P_TS, 0, 0xffffffff);
  T("futex(0x7fffd8475aec, FUTEX_WAKE_OP_PRIVATE, 1, 1, 0x7fffd8475aec, "
    "FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1) = 0",
    0, __NR_futex, 0x7fffd8475aec, 5 | 128, 1, 1, 0x7fffd8475aec, 0x04000001);
  T("futex(0x7fffd8475aec, FUTEX_WAKE_BITSET, 1, FUTEX_BITSET_MATCH_ANY) = 0", 0, __NR_futex,
    0x7fffd8475aec, 10, 1, 0, 0, 0xffffffff);
  T("futex(0x7fffd8475aec, FUTEX_CMP_REQUEUE_PRIVATE, 1, 2147483647, 0x7fffd8475af0, 2) = 1", 1,
    __NR_futex, 0x7fffd8475aec, 4 | 128, 1, 2147483647, 0x7fffd8475af0, 2);
  T("futex(0x7fffd8475aec, FUTEX_UNLOCK_PI_PRIVATE) = 0", 0, __NR_futex, 0x7fffd8475aec, 7 | 128);
  T("futex(0x7fffd8475aec, FUTEX_LOCK_PI, NULL) = 0", 0, __NR_futex, 0x7fffd8475aec, 6, 0, 0);
  T("futex(0x7fffd8475aec, 0x7f, 0, NULL, NULL, 0) = -1 ENOSYS (Function not implemented)",
    ERR(ENOSYS), __NR_futex, 0x7fffd8475aec, 0x7f);
}

/* issue 26 part B: socket options, memory advice, timers (house style) */
static void test_issue26b(void) {
  T("setsockopt(fd=4, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0", 0, __NR_setsockopt, 4, SOL_SOCKET,
    SO_REUSEADDR, P_INT1, 4);
  T("setsockopt(fd=4, SOL_TCP, TCP_NODELAY, [1], 4) = 0", 0, __NR_setsockopt, 4, IPPROTO_TCP, 1,
    P_INT1, 4);
  T("setsockopt(fd=4, SOL_SOCKET, SO_RCVBUF, 0xdead0000, 4) = -1 EFAULT (Bad address)", ERR(EFAULT),
    __NR_setsockopt, 4, SOL_SOCKET, SO_RCVBUF, P_BAD, 4);
  T("madvise(0x14000, 4096, MADV_DONTNEED) = 0", 0, __NR_madvise, P_SIN, 4096, 4);
  T("madvise(0x14000, 4096, 1234) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_madvise, P_SIN,
    4096, 1234);
  T("mlockall(MCL_CURRENT|MCL_FUTURE) = 0", 0, __NR_mlockall, 3);
  T("gettimeofday({tv_sec=0, tv_usec=1000}, NULL) = 0", 0, __NR_gettimeofday, P_TV, 0);
  T("membarrier(MEMBARRIER_CMD_QUERY, 0) = 0x18 (MEMBARRIER_CMD_PRIVATE_EXPEDITED|"
    "MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)",
    0x18, __NR_membarrier, 0, 0, 0);
}

static void test_sockets(void) {
  T("socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 5", 5, __NR_socket, AF_INET,
    SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  T("socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 4", 4, __NR_socket,
    AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  T("socket(AF_UNIX, SOCK_STREAM, 0) = 6", 6, __NR_socket, AF_UNIX, SOCK_STREAM, 0);
  T("socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 10", 10, __NR_socket, AF_NETLINK,
    SOCK_RAW | SOCK_CLOEXEC, 0);
  T("socket(99, SOCK_DGRAM, 0) = -1 EAFNOSUPPORT (Address family not supported by protocol)",
    ERR(EAFNOSUPPORT), __NR_socket, 99, SOCK_DGRAM, 0);

  /* sockaddr of each family */
  T("connect(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, {AF_INET, 127.0.0.1:8080}, 16) = 0", 0,
    __NR_connect, 5, P_SIN, 16);
  T("bind(fd=4, {AF_INET6, [::1]:80}, 28) = 0", 0, __NR_bind, 4, P_SIN6, 28);
  T("connect(fd=6, {AF_UNIX, \"/tmp/sock\"}, 12) = -1 ENOENT (No such file or directory)",
    ERR(ENOENT), __NR_connect, 6, P_SUN, 12);
  CHECK(carried_is(0, "/tmp/sock", 9, 0), "unix socket path carried");
  T("connect(fd=6, {AF_UNIX, \"@name\"}, 7) = -1 ECONNREFUSED (Connection refused)",
    ERR(ECONNREFUSED), __NR_connect, 6, P_SUNABS, 7);
  T("bind(fd=6, {AF_99, ...}, 16) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_bind, 6,
    P_SA99, 16);
  T("bind(fd=10, {AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 0", 0, __NR_bind, 10, P_SANL,
    12);
  T("connect(fd=6, 0xdead0000, 16) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_connect, 6, P_BAD,
    16);
  T("connect(fd=6, 0x14000, 0) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_connect, 6, P_SIN,
    0);
  T("listen(fd=7<TCP LISTEN 127.0.0.1:8080>, 5) = 0", 0, __NR_listen, 7, 5);

  T("sendto(fd=4, \"hi\\n\", 3, 0, {AF_INET6, [::1]:80}, 28) = 3", 3, __NR_sendto, 4, P_HI, 3, 0,
    P_SIN6, 28);
  T("sendto(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, \"hi\\n\", 3, MSG_DONTWAIT|MSG_NOSIGNAL, "
    "NULL, 0) = 3",
    3, __NR_sendto, 5, P_HI, 3, 0x40 | 0x4000, 0, 0);
  T("recvfrom(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, 64, 0, NULL, NULL) = \"hello from pid "
    "1234\\n\" [20]",
    20, __NR_recvfrom, 5, P_HELLO, 64, 0, 0, 0);
  T("recvfrom(fd=4, 64, MSG_DONTWAIT, {AF_INET, 127.0.0.1:8080}, [16]) = \"hi\\n\" [3]", 3,
    __NR_recvfrom, 4, P_HI, 64, 0x40, P_SIN, P_LEN16);
  T("recvfrom(fd=4, 64, MSG_DONTWAIT, 0x14000, [16]) = -1 EAGAIN (Resource temporarily "
    "unavailable)",
    ERR(EAGAIN), __NR_recvfrom, 4, P_HI, 64, 0x40, P_SIN, P_LEN16);

  T("accept(fd=7<TCP LISTEN 127.0.0.1:8080>, {AF_INET, 127.0.0.1:8080}, [16]) = 8", 8, __NR_accept,
    7, P_SIN, P_LEN16);
  TB("accept4(fd=7<TCP LISTEN 127.0.0.1:8080>, {AF_INET, 127.0.0.1:8080}, [128 => 16], "
     "SOCK_CLOEXEC) = 8",
     8, kernel_sets_addrlen_16, __NR_accept4, 7, P_SIN, P_LENVR, SOCK_CLOEXEC);
  kernel_resets_addrlen_128();
  T("accept4(fd=7<TCP LISTEN 127.0.0.1:8080>, 0x14000, [128], SOCK_CLOEXEC|SOCK_NONBLOCK) = -1 "
    "EAGAIN (Resource temporarily unavailable)",
    ERR(EAGAIN), __NR_accept4, 7, P_SIN, P_LENVR, SOCK_CLOEXEC | SOCK_NONBLOCK);
  T("accept(fd=7<TCP LISTEN 127.0.0.1:8080>, NULL, NULL) = 8", 8, __NR_accept, 7, 0, 0);
  T("getsockname(fd=7<TCP LISTEN 127.0.0.1:8080>, {AF_INET, 127.0.0.1:8080}, [16]) = 0", 0,
    __NR_getsockname, 7, P_SIN, P_LEN16);
  T("getpeername(fd=6, {AF_UNIX}, [2]) = 0", 0, __NR_getpeername, 6, P_SUN, P_LEN2);
  T("getpeername(fd=7<TCP LISTEN 127.0.0.1:8080>, 0x14000, [16]) = -1 ENOTCONN (Transport "
    "endpoint is not connected)",
    ERR(ENOTCONN), __NR_getpeername, 7, P_SIN, P_LEN16);
  T("shutdown(fd=5<TCP 127.0.0.1:40730->127.0.0.1:8080>, SHUT_RDWR) = 0", 0, __NR_shutdown, 5,
    SHUT_RDWR);
}

static void test_pipes_dup(void) {
  T("pipe([3, 4]) = 0", 0, __NR_pipe, P_PIPE);
  T("pipe2([3, 4], O_CLOEXEC) = 0", 0, __NR_pipe2, P_PIPE, O_CLOEXEC);
  T("pipe2([3, 4], 0) = 0", 0, __NR_pipe2, P_PIPE, 0);
  T("pipe2(0x16000, O_CLOEXEC|0x1) = -1 EINVAL (Invalid argument)", ERR(EINVAL), __NR_pipe2, P_PIPE,
    O_CLOEXEC | 1);
  T("pipe(0xdead0000) = 0", 0, __NR_pipe, P_BAD);
  T("dup(fd=3</tmp/notes.txt>) = 4", 4, __NR_dup, 3);
  T("dup2(fd=3</tmp/notes.txt>, fd=1</dev/pts/0>) = 1", 1, __NR_dup2, 3, 1);
  T("dup3(fd=3</tmp/notes.txt>, fd=100, O_CLOEXEC) = 100", 100, __NR_dup3, 3, 100, O_CLOEXEC);
}

static void test_paths(void) {
  T("unlink(\"/tmp/notes.txt\") = 0", 0, __NR_unlink, P_NOTES);
  T("unlinkat(AT_FDCWD, \"/tmp\", AT_REMOVEDIR) = -1 ENOTEMPTY (Directory not empty)",
    ERR(ENOTEMPTY), __NR_unlinkat, FD_CWD, P_TMP, AT_REMOVEDIR);
  T("unlinkat(fd=3</tmp/notes.txt>, \"/nope\", 0) = 0", 0, __NR_unlinkat, 3, P_NOPE, 0);
  T("rmdir(\"/tmp\") = -1 EBUSY (Device or resource busy)", ERR(EBUSY), __NR_rmdir, P_TMP);
  T("mkdir(\"/tmp\", 0755) = -1 EEXIST (File exists)", ERR(EEXIST), __NR_mkdir, P_TMP, 0755);
  T("mkdirat(AT_FDCWD, \"/nope\", 0700) = 0", 0, __NR_mkdirat, FD_CWD, P_NOPE, 0700);
  T("rename(\"/tmp/notes.txt\", \"/nope\") = 0", 0, __NR_rename, P_NOTES, P_NOPE);
  CHECK(call.ncarried == 2 && carried_is(0, "/tmp/notes.txt", 14, 0) &&
            carried_is(1, "/nope", 5, 0),
        "rename carried both paths (%d)", call.ncarried);
  T("renameat(AT_FDCWD, \"/tmp/notes.txt\", AT_FDCWD, \"/nope\") = 0", 0, __NR_renameat, FD_CWD,
    P_NOTES, FD_CWD, P_NOPE);
  T("renameat2(AT_FDCWD, \"/tmp/notes.txt\", fd=3</tmp/notes.txt>, \"/nope\", RENAME_NOREPLACE) = "
    "-1 EEXIST (File exists)",
    ERR(EEXIST), __NR_renameat2, FD_CWD, P_NOTES, 3, P_NOPE, 1);
  T("chdir(\"/tmp\") = 0", 0, __NR_chdir, P_TMP);
  T("fchdir(fd=3</tmp/notes.txt>) = -1 ENOTDIR (Not a directory)", ERR(ENOTDIR), __NR_fchdir, 3);
  T("readlink(\"/proc/self/exe\", \"/usr/bin/cat\", 4096) = 12", 12, __NR_readlink, P_SELFEXE,
    P_LINK, 4096);
  CHECK(call.ncarried == 2 && carried_is(1, "/usr/bin/cat", 12, 0), "readlink carried the target");
  T("readlink(\"/proc/self/exe\", \"/usr/bin\", 8) = 8", 8, __NR_readlink, P_SELFEXE, P_LINK, 8);
  T("readlinkat(AT_FDCWD, \"/tmp/notes.txt\", 0x16b00, 4096) = -1 EINVAL (Invalid argument)",
    ERR(EINVAL), __NR_readlinkat, FD_CWD, P_NOTES, P_LINK, 4096);
  T("getcwd(\"/tmp\", 4096) = 5", 5, __NR_getcwd, P_TMP, 4096);
}

static void test_readiness(void) {
  T("poll([{fd=7, events=POLLIN}, {fd=5, events=POLLIN|POLLOUT}], 2, 1000) = 1 ([{fd=7, "
    "revents=POLLIN}])",
    1, __NR_poll, P_POLL, 2, 1000);
  T("poll([{fd=7, events=POLLIN}, {fd=5, events=POLLIN|POLLOUT}], 2, 0) = 0 (Timeout)", 0,
    __NR_poll, P_POLL, 2, 0);
  T("poll(0xdead0000, 2, -1) = -1 EFAULT (Bad address)", ERR(EFAULT), __NR_poll, P_BAD, 2, NEG(-1));
  T("ppoll([{fd=7, events=POLLIN}, {fd=5, events=POLLIN|POLLOUT}], 2, {tv_sec=0, "
    "tv_nsec=2000000}, [INT TERM], 8) = 1 ([{fd=7, revents=POLLIN}])",
    1, __NR_ppoll, P_POLL, 2, P_TS, P_SET, 8);
  T("select(4, [0 3], NULL, NULL, {tv_sec=0, tv_usec=1000}) = 1 (in [0 3], left {tv_sec=0, "
    "tv_usec=1000})",
    1, __NR_select, 4, P_FDSET, 0, 0, P_TV);
  T("select(4, [0 3], NULL, NULL, NULL) = 0 (Timeout)", 0, __NR_select, 4, P_FDSET, 0, 0, 0);
  T("select(4, [0 3], [0 3], NULL, NULL) = 2 (in [0 3], out [0 3])", 2, __NR_select, 4, P_FDSET,
    P_FDSET, 0, 0);
  T("select(2000, 0xdead0000, NULL, NULL, NULL) = -1 EINVAL (Invalid argument)", ERR(EINVAL),
    __NR_select, 2000, P_BAD, 0, 0, 0);
  T("pselect6(4, [0 3], NULL, NULL, {tv_sec=0, tv_nsec=2000000}, NULL) = 0 (Timeout)", 0,
    __NR_pselect6, 4, P_FDSET, 0, 0, P_TS, 0);
  T("epoll_wait(fd=8<anon_inode:[eventpoll]>, [{events=EPOLLIN, data={u32=7, u64=7}}], 1023, 10) = "
    "1",
    1, __NR_epoll_wait, 8, P_EPEV, 1023, 10);
  T("epoll_wait(fd=8<anon_inode:[eventpoll]>, [], 16, 0) = 0", 0, __NR_epoll_wait, 8, P_EPEV, 16,
    0);
  T("epoll_wait(fd=8<anon_inode:[eventpoll]>, 0x16900, 16, -1) = -1 EINTR (Interrupted system "
    "call)",
    ERR(EINTR), __NR_epoll_wait, 8, P_EPEV, 16, NEG(-1));
  T("epoll_ctl(fd=8<anon_inode:[eventpoll]>, EPOLL_CTL_ADD, fd=7<TCP LISTEN 127.0.0.1:8080>, "
    "{events=EPOLLIN|EPOLLET, data={u32=7, u64=7}}) = 0",
    0, __NR_epoll_ctl, 8, EPOLL_CTL_ADD, 7, P_EPEVET);
  T("epoll_create1(EPOLL_CLOEXEC) = 8", 8, __NR_epoll_create1, 02000000);
}

static void test_unfinished_and_edges(void) {
  TU("exit_group(0) = ?", __NR_exit_group, 0);
  TU("exit(3) = ?", __NR_exit, 3);
  TU("execve(\"/usr/bin/cat\", 0x7ffd1000, 0x7ffd2000) = ?", __NR_execve, P_CAT, 0x7ffd1000,
     0x7ffd2000);
  TU("read(fd=0</dev/pts/0>, 64) = ?", __NR_read, 0, P_HELLO, 64);
  TU("newfstatat(AT_FDCWD, \"/tmp/notes.txt\", 0x12000, 0) = ?", __NR_newfstatat, FD_CWD, P_NOTES,
     P_STAT, 0);
  TU("futex(0x7f1ebd2dea4c, FUTEX_WAIT_PRIVATE, 2, NULL) = ?", __NR_futex, 0x7f1ebd2dea4c, 128, 2,
     0);

  /* no decoder: each argument by its kind (syscalls.in); an unknown number: six raw words */
  T("getxattr(\"/tmp/notes.txt\", \"/nope\", NULL, 64) = -1 ENODATA (No data available)",
    ERR(ENODATA), __NR_getxattr, P_NOTES, P_NOPE, 0, 64);
  T("syscall_0x270f(0, 0, 0, 0, 0, 0) = -1 ENOSYS (Function not implemented)", ERR(ENOSYS), 9999,
    0);
  T("syscall_0xffffffffffffffff(0x1, 0x2, 0x3, 0, 0, 0) = -1 ENOSYS (Function not implemented)",
    ERR(ENOSYS), -1, 1, 2, 3);

  /* an exit with no entry (attached mid-call): the caller set only nr */
  memset(&call, 0, sizeof call);
  call.nr = __NR_read;
  sc_exit(&env, &call, 5, got, sizeof got);
  CHECK(strcmp(got, "read(...) = 5") == 0, "exit without entry: %s", got);
  /* ... and a second exit for one entry does not reuse the old text */
  const uint64_t a[6] = {3, P_HELLO, 64};
  sc_enter(&env, &call, __NR_read, a);
  sc_exit(&env, &call, 20, got, sizeof got);
  sc_exit(&env, &call, 7, got, sizeof got);
  CHECK(strcmp(got, "read(...) = 7") == 0, "second exit: %s", got);
  sc_unfinished(&call, got, sizeof got);
  CHECK(strcmp(got, "read(...) = ?") == 0, "unfinished after exit: %s", got);

  /* an empty env: no memory, no fds, names from the library's own table */
  struct sc_env none = {0};
  const uint64_t oa[6] = {FD_CWD, P_NOTES, O_RDONLY};
  run(__LINE__, &none, __NR_openat, oa, 3, NULL, "openat(AT_FDCWD, 0x10000, O_RDONLY) = 3");
  const uint64_t wa[6] = {3, P_HELLO, 20};
  run(__LINE__, &none, __NR_write, wa, 20, NULL, "write(fd=3, 0x10100, 20) = 20");
  const uint64_t ua[6] = {1, 2, 3};
  run(__LINE__, &none, __NR_mincore, ua, 0, NULL, "mincore(0x1, 2, 0x3) = 0");
  run(__LINE__, NULL, __NR_getpid, ua, 42, NULL, "getpid() = 42");

  /* a hostile read_mem that claims more than it was asked for */
  CHECK(sc_nargs(__NR_openat) == 4 && sc_nargs(__NR_getpid) == 0 && sc_nargs(__NR_mincore) == 3 &&
            sc_nargs(-5) == -1 && sc_nargs(100000) == -1,
        "sc_nargs");
  CHECK(sc_is_error(-1) && sc_is_error(-4095) && !sc_is_error(-4096) && !sc_is_error(0),
        "sc_is_error");
  char nb[32];
  CHECK(strcmp(sc_name(&env, __NR_openat, nb, sizeof nb), "openat") == 0, "sc_name");
  CHECK(strcmp(sc_name(NULL, 9999, nb, sizeof nb), "syscall_0x270f") == 0, "sc_name unknown");
}

static ssize_t liar_read_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  (void)ctx;
  (void)addr;
  memset(buf, 'A', len);
  return (ssize_t)len * 1000; /* claims far more than the buffer */
}

static void test_hostile_env(void) {
  struct sc_env liar = {.read_mem = liar_read_mem};
  const uint64_t a[6] = {3, 0x1000, 1u << 30};
  char want[512];
  char a200[201];
  memset(a200, 'A', 200);
  a200[200] = '\0';
  snprintf(want, sizeof want, "write(fd=3, \"%s\"..., 1073741824) = 5", a200);
  run(__LINE__, &liar, __NR_write, a, 5, NULL, want);
  /* a path with no NUL anywhere */
  const uint64_t o[6] = {0x1000, O_RDONLY};
  snprintf(want, sizeof want, "open(\"%s\"..., O_RDONLY) = 3", a200);
  run(__LINE__, &liar, __NR_open, o, 3, NULL, want);
  /* iovec lengths of 2^64-1 */
  const uint64_t v[6] = {3, 0x1000, 2};
  sc_enter(&liar, &call, __NR_writev, v);
  sc_exit(&liar, &call, 5, got, sizeof got);
  checks++;
  if (strncmp(got, "writev(fd=3, [{iov_base=\"AAAA", 29) != 0 || strlen(got) > 1200) {
    failures++;
    fprintf(stderr, "FAIL %s:%d: hostile iovecs: %s\n", __FILE__, __LINE__, got);
  }
}

static void test_errno_names(void) {
  CHECK(strcmp(sc_errno_name(ENOENT), "ENOENT") == 0, "ENOENT");
  CHECK(strcmp(sc_errno_name(-EAGAIN), "EAGAIN") == 0, "-EAGAIN");
  CHECK(strcmp(sc_errno_name(EHWPOISON), "EHWPOISON") == 0, "EHWPOISON");
  CHECK(strcmp(sc_errno_name(512), "ERESTARTSYS") == 0, "ERESTARTSYS");
  CHECK(sc_errno_name(0) == NULL && sc_errno_name(9999) == NULL && sc_errno_name(520) == NULL,
        "unknown errnos");
  T("read(fd=3</tmp/notes.txt>, 64) = -1 ERRNO_300 (Unknown error 300)", -300, __NR_read, 3,
    P_HELLO, 64);
}

#ifdef HAVE_GENERATED_NAMES
static void test_generated_names(void) {
  CHECK(strcmp(asmspy_syscall_names[__NR_read], "read") == 0, "names[0]");
  CHECK(strcmp(asmspy_syscall_name_of(__NR_openat), "openat") == 0, "openat");
  CHECK(strcmp(asmspy_syscall_name_of(__NR_clone3), "clone3") == 0, "clone3");
  CHECK(asmspy_syscall_name_of(-1) == NULL && asmspy_syscall_name_of(ASMSPY_SYSCALL_MAX) == NULL,
        "bounds");
  CHECK(sizeof asmspy_syscall_names / sizeof asmspy_syscall_names[0] == ASMSPY_SYSCALL_MAX,
        "array length");
  CHECK(ASMSPY_SYSCALL_HIGHEST + 1 == ASMSPY_SYSCALL_MAX, "MAX is one past the highest");
  /* every modelled syscall's name agrees with the generated table */
  for (int64_t nr = 0; nr < ASMSPY_SYSCALL_MAX; nr++) {
    if (sc_nargs(nr) < 0) continue;
    char nb[32];
    struct sc_env bare = {0};
    const char *lib = sc_name(&bare, nr, nb, sizeof nb);
    CHECK(asmspy_syscall_names[nr] && strcmp(lib, asmspy_syscall_names[nr]) == 0,
          "nr %lld: library %s, header %s", (long long)nr, lib,
          asmspy_syscall_names[nr] ? asmspy_syscall_names[nr] : "(null)");
  }
}
#endif

int main(void) {
  setup_memory();
  test_seed_examples();
  test_file_io();
  test_oversized();
  test_open_family();
  test_stat_family();
  test_memory();
  test_processes();
  test_signals_time();
  test_fd_control();
  test_sockets();
  test_pipes_dup();
  test_paths();
  test_readiness();
  test_unfinished_and_edges();
  test_hostile_env();
  test_errno_names();
  test_issue26b();
  { /* the count the --log description and the docs quote */
    int decoded = 0;
    for (int64_t nr = 0; nr < 4096; nr++) decoded += sc_decoded(nr);
    if (decoded != SC_DECODED_COUNT) {
      fprintf(stderr, "FAIL: descs[] decodes %d syscalls, SC_DECODED_COUNT says %d\n", decoded,
              SC_DECODED_COUNT);
      return 1;
    }
  }
#ifdef HAVE_GENERATED_NAMES
  test_generated_names();
#else
  fprintf(stderr,
          "note: asmspy_syscall_names.h not on the include path; names from a local table\n");
#endif
  for (int i = 0; i < nregions; i++) free(regions[i].bytes);
  return check_summary("test_sc_decode");
}
