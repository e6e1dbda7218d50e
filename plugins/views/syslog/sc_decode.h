/* sc_decode.h — syscall argument/return decoding for the syscall log view.
 *
 * A mini strace formatter that runs against a small environment of callbacks
 * (read target memory, describe an fd, name a syscall), so it works the same
 * on a live ptrace-stopped thread and in a unit test with a fake address
 * space. One `struct sc_call` per thread carries a syscall from its entry
 * stop to its exit stop:
 *
 *     sc_enter(env, &call, nr, args);        at the entry stop
 *     sc_exit(env, &call, ret, line, cap);   at the exit stop
 *     sc_unfinished(&call, line, cap);       the exit never came
 *
 * producing one strace-style line, e.g.
 *     openat(AT_FDCWD, "/tmp/notes.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
 *     write(fd=3</tmp/notes.txt>, "hello from pid 1234\n", 20) = 20
 *     read(fd=3</tmp/notes.txt>, 64) = "hello from pid 1234\n" [20]
 *
 * Everything the entry stop knows (paths, write buffers, fd descriptions,
 * flag words) is decoded at entry; out-parameters (stat buffers, read data,
 * sockaddrs filled by accept, pipe fds) at exit. A memory read that fails
 * prints the address in hex; every length is capped, so a hostile pointer or
 * a 1 GB write costs at most a few hundred bytes of reads.
 *
 * Syscall numbers, arities and argument kinds come from syscalls.in through
 * the generated sc_syscalls_gen.h (x86-64 and AArch64); the hand-written
 * decoders assume the 64-bit Linux struct layouts.
 */
#ifndef ASMSPY_SC_DECODE_H
#define ASMSPY_SC_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a decoder may use while the thread is stopped. Any callback may be
 * NULL (then: no memory — pointers print in hex; no fd descriptions; names
 * only for the syscalls this library models, else syscall_0x<nr>). */
struct sc_env {
  void *ctx;
  /* Bytes read (may be fewer than len) or -errno. */
  ssize_t (*read_mem)(void *ctx, uint64_t addr, void *buf, size_t len);
  /* "/tmp/x", "TCP 1.2.3.4:5->...", "pipe:[123]", or NULL when unknown. */
  const char *(*describe_fd)(void *ctx, int fd, char *buf, size_t cap);
  /* NULL if unknown. */
  const char *(*syscall_name)(void *ctx, int64_t nr);
  /* SC_ENV_* bits (0 = the documented defaults). */
  unsigned flags;
  /* Bytes of a string or buffer argument shown before "..." (strace -s):
   * 0 = the style's default (SC_STR_MAX, or SC_STRACE_STR_DEFAULT with
   * SC_ENV_STRACE). Paths are not cut by it. */
  unsigned string_limit;
};

/* close(fd=3</tmp/x>) instead of close(fd=3). Off by default: the seed's
 * documented line is `close(fd=3) = 0` ("by the time asmspy formats the
 * exit, the descriptor is already gone"). Every other fd argument is
 * described at entry. */
#define SC_ENV_DESCRIBE_CLOSED_FD (1u << 0)

/* strace's line format instead of asmspy's house style: fds print as plain
 * numbers, the data a read-style call returned prints in its argument
 * position (read(3, "hello\n", 64) = 6), strings stop at string_limit. */
#define SC_ENV_STRACE (1u << 1)
/* With SC_ENV_STRACE: fds as 3</tmp/x> (strace -y). */
#define SC_ENV_DECODE_FDS (1u << 2)
/* Unabbreviated structures (strace -v). */
#define SC_ENV_VERBOSE (1u << 3)
/* Strings in hex: the whole string when it holds a non-ASCII byte (strace
 * -x), or always (strace -xx). */
#define SC_ENV_HEX_NONASCII (1u << 4)
#define SC_ENV_HEX_ALL (1u << 5)
#define SC_STRACE_STR_DEFAULT 32
#define SC_PATH_MAX 4096 /* a path is shown whole up to this (strace: PATH_MAX) */

/* Caps (bytes): decoded string / buffer contents, fd descriptions. */
#define SC_STR_MAX 200
#define SC_FDDESC_MAX 256

#define SC_MAX_CARRIED 4
#define SC_CARRIED_CAP 256

/* One syscall in flight on one thread. Zero it (or just call sc_enter) per
 * syscall; it holds no pointers into the target or the env. */
struct sc_call {
  int64_t nr;
  uint64_t args[6];
  char text[4096]; /* "name(args" so far; completed at exit */
  /* Strings the call carried (paths, read/write data): raw bytes, not
   * escaped, NUL-terminated for convenience. Binary data may contain NULs,
   * so use carried_len for the true length; carried_more is 1 when the
   * original was longer than what was kept (SC_STR_MAX bytes). */
  char carried[SC_MAX_CARRIED][SC_CARRIED_CAP];
  int ncarried;
  uint16_t carried_len[SC_MAX_CARRIED];
  uint8_t carried_more[SC_MAX_CARRIED];

  /* --- private to sc_decode.c --------------------------------------------- */
  uint32_t priv_magic;   /* set by sc_enter: an exit without an entry is detectable */
  uint32_t priv_textlen; /* strlen(text) */
  int64_t priv_saved[2]; /* values captured at entry for the exit (e.g. addrlen in) */
  uint32_t priv_savedok; /* bit i: priv_saved[i] is valid */
  uint32_t eq_at;        /* after sc_exit/sc_unfinished: offset of " = " in the line
                          * (strace mode aligns it to column 40) */
  uint32_t priv_flags;   /* env->flags at entry (sc_unfinished has no env) */
  uint32_t priv_strlim;  /* the string limit in force at entry */
};

void sc_enter(const struct sc_env *env, struct sc_call *c, int64_t nr, const uint64_t args[6]);

/* Writes the complete line, e.g. `read(fd=3</tmp/notes.txt>, 64) = "hello\n" [6]`,
 * into line (always NUL-terminated; a line longer than cap ends in "...").
 * Called without a matching sc_enter (attached mid-syscall), it prints
 * `name(...) = ret` from c->nr, which the caller then must have set. */
void sc_exit(const struct sc_env *env, struct sc_call *c, int64_t ret, char *line, size_t cap);

/* The exit never came (exit_group, execve replaced the image, thread died):
 * `exit_group(0) = ?`. Out-parameters that would have been read at the exit
 * print as their addresses. */
void sc_unfinished(struct sc_call *c, char *line, size_t cap);

/* A siginfo, arch-neutral (the signal event's u.signal, or a siginfo_t read
 * from the target): only the members signo and code make live are read. */
struct sc_siginfo {
  int32_t signo, err, code;
  int32_t pid;
  uint32_t uid;
  int32_t status;
  int64_t utime, stime;
  uint64_t addr; /* si_addr; SIGSYS si_call_addr */
  uint64_t value;
  int64_t band;
  int32_t fd, timerid, overrun, syscall;
  uint32_t arch;
};

/* strace's siginfo struct, `{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1,
 * ...}`, into buf (always NUL-terminated). env_flags: SC_ENV_*. */
void sc_siginfo_text(unsigned env_flags, const struct sc_siginfo *si, char *buf, size_t cap);

/* "ENOENT" for ENOENT (either sign); kernel-internal codes too
 * ("ERESTARTSYS"). NULL for a number with no name. */
const char *sc_errno_name(int err);

/* --- additions -------------------------------------------------------------- */

/* 1 when ret is an error return (-4095..-1), as the line will show it. */
int sc_is_error(int64_t ret);

/* The kernel's arity of nr (syscalls.in): 0..6, or -1 for a number the
 * table does not know (the line then shows six raw words). */
int sc_nargs(int64_t nr);

/* 1 when a hand-written decoder (descs[] in sc_decode.c) knows nr; the
 * others print their arguments by kind from syscalls.in. */
int sc_decoded(int64_t nr);

/* Trace classes (syscalls.in; strace's -e trace=%class). */
#define SC_CLS_DESC (1u << 0)
#define SC_CLS_FILE (1u << 1)
#define SC_CLS_NETWORK (1u << 2)
#define SC_CLS_PROCESS (1u << 3)
#define SC_CLS_SIGNAL (1u << 4)
#define SC_CLS_MEMORY (1u << 5)
#define SC_CLS_IPC (1u << 6)
#define SC_CLS_CREDS (1u << 7)
#define SC_CLS_CLOCK (1u << 8)
/* SC_CLS_* bits of nr (0 when unknown); the class of a name ("file"), 0 if none. */
unsigned sc_classes(int64_t nr);
unsigned sc_class_by_name(const char *name);
/* The number of the syscall called name on this arch, or -1. */
int64_t sc_nr_by_name(const char *name);
/* One past the highest number the table knows. */
int64_t sc_nr_max(void);

/* How many syscalls sc_decode.c decodes argument by argument (its descs[]
 * table; every other one prints three raw words and "..."). The --log
 * description prints it, README.md and docs/cli-reference.md quote the
 * x86-64 number, and test_sc_decode counts the table against it. */
#if defined(__x86_64__)
#define SC_DECODED_COUNT 173
#else /* AArch64: the asm-generic table, without open, stat, poll, ... */
#define SC_DECODED_COUNT 149
#endif

/* Name this library would print for nr (env->syscall_name first, then its own
 * table, else "syscall_0x<nr>" formatted into buf). Never NULL. */
const char *sc_name(const struct sc_env *env, int64_t nr, char *buf, size_t cap);

#endif /* ASMSPY_SC_DECODE_H */
