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
 * x86-64 only (syscall numbers and struct layouts are the x86-64 ABI).
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
};

/* close(fd=3</tmp/x>) instead of close(fd=3). Off by default: the seed's
 * documented line is `close(fd=3) = 0` ("by the time asmspy formats the
 * exit, the descriptor is already gone"). Every other fd argument is
 * described at entry. */
#define SC_ENV_DESCRIBE_CLOSED_FD (1u << 0)

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

/* "ENOENT" for ENOENT (either sign); kernel-internal codes too
 * ("ERESTARTSYS"). NULL for a number with no name. */
const char *sc_errno_name(int err);

/* --- additions -------------------------------------------------------------- */

/* 1 when ret is an error return (-4095..-1), as the line will show it. */
int sc_is_error(int64_t ret);

/* How many arguments the library decodes for nr: 0..6, or -1 when nr is not
 * modelled (the line then shows three raw words and "..."). */
int sc_nargs(int64_t nr);

/* How many syscalls sc_decode.c decodes argument by argument (its descs[]
 * table; every other one prints three raw words and "..."). The --log
 * description prints it, README.md and docs/cli-reference.md quote the
 * x86-64 number, and test_sc_decode counts the table against it. */
#if defined(__x86_64__)
#define SC_DECODED_COUNT 108
#else /* AArch64: the asm-generic table, without open, stat, poll, ... */
#define SC_DECODED_COUNT 86
#endif

/* Name this library would print for nr (env->syscall_name first, then its own
 * table, else "syscall_0x<nr>" formatted into buf). Never NULL. */
const char *sc_name(const struct sc_env *env, int64_t nr, char *buf, size_t cap);

#endif /* ASMSPY_SC_DECODE_H */
