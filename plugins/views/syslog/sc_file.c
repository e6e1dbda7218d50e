/* sc_file.c — files and paths: open, stat family, access, rename, unlink, mkdir, readlink,
 * getcwd, lseek.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* ---- stat ---- */
static void put_mode(struct ob *o, uint32_t mode) {
  const char *type = sc_xlat_name(sc_file_types, mode & S_IFMT);
  if (!type) {
    ob_printf(o, "%#o", mode);
    return;
  }
  ob_puts(o, type);
  put_flags_tail(o, sc_mode_bits, mode & (S_ISUID | S_ISGID | S_ISVTX), 0);
  ob_printf(o, "|%#03o", mode & 0777);
}

static void put_stat(struct dc *d, uint64_t addr) {
  struct stat st;
  if (!addr)
    ob_puts(d->o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, addr, &st, sizeof st))
    put_addr(d->o, addr);
  else {
    int verbose = dc_strace(d) && (d->c->priv_flags & SC_ENV_VERBOSE);
    if (verbose)
      ob_printf(d->o, "{st_dev=makedev(%#x, %#x), st_ino=%llu, st_mode=", major(st.st_dev),
                minor(st.st_dev), (unsigned long long)st.st_ino);
    else
      ob_puts(d->o, "{st_mode=");
    put_mode(d->o, st.st_mode);
    if (verbose)
      ob_printf(d->o, ", st_nlink=%llu, st_uid=%u, st_gid=%u, st_blksize=%lld, st_blocks=%lld",
                (unsigned long long)st.st_nlink, st.st_uid, st.st_gid, (long long)st.st_blksize,
                (long long)st.st_blocks);
    ob_printf(d->o, ", st_size=%lld", (long long)st.st_size);
    /* strace abbreviates the rest (-v: the times too, not printed yet) */
    ob_puts(d->o, dc_strace(d) && !verbose ? ", ...}" : "}");
  }
}


/* ---- open / close ---- */
#define K_O_TMPFILE_BIT 020000000u /* __O_TMPFILE: O_TMPFILE minus O_DIRECTORY */

void put_open_flags(struct ob *o, uint64_t v) {
  put_field_flags(o, sc_open_accmode, O_ACCMODE, sc_open_flags, (uint32_t)v);
}
static int open_has_mode(uint64_t flags) {
  return (flags & O_CREAT) || (flags & K_O_TMPFILE_BIT);
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_open(struct dc *d) { /* open(path, flags[, mode]) */
  put_path(d, A(0));
  next(d);
  put_open_flags(d->o, A(1));
  if (open_has_mode(A(1))) {
    next(d);
    put_octmode(d->o, A(2));
  }
}
void en_openat(struct dc *d) { /* openat(dirfd, path, flags[, mode]) */
  put_dirfd(d, A(0));
  next(d);
  put_path(d, A(1));
  next(d);
  put_open_flags(d->o, A(2));
  if (open_has_mode(A(2))) {
    next(d);
    put_octmode(d->o, A(3));
  }
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_path_mode(struct dc *d) { /* creat, mkdir: (path, mode) */
  put_path(d, A(0));
  next(d);
  put_octmode(d->o, A(1));
}
void en_close(struct dc *d) {
  /* strace -y describes it too: at the entry stop it is still open */
  put_fd_as(d, A(0), (d->env && (d->env->flags & SC_ENV_DESCRIBE_CLOSED_FD)) ||
                         (dc_strace(d) && dc_fdpaths(d)));
}

/* ---- stat family ---- */
void en_path(struct dc *d) { put_path(d, A(0)); }
void ex_stat1(struct dc *d) { /* stat/lstat/fstat: statbuf is arg 1 */
  next(d);
  put_stat(d, A(1));
}
void en_dirfd_path(struct dc *d) {
  put_dirfd(d, A(0));
  next(d);
  put_path(d, A(1));
}
void ex_newfstatat(struct dc *d) { /* (dirfd, path, statbuf, flags) */
  next(d);
  put_stat(d, A(2));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(3), "0");
}

struct k_statx_head { /* the leading fields of struct statx */
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, pad0;
  uint64_t ino, size;
};

void en_statx(struct dc *d) { /* statx(dirfd, path, flags, mask, buf) */
  en_dirfd_path(d);
  next(d);
  put_field_flags(d->o, sc_statx_sync, 0x6000, sc_statx_flags, (uint32_t)A(2));
  next(d);
  put_flags(d->o, sc_statx_masks, (uint32_t)A(3), "0");
}
void ex_statx(struct dc *d) {
  struct k_statx_head sx;
  next(d);
  if (!A(4))
    ob_puts(d->o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, A(4), &sx, sizeof sx))
    put_addr(d->o, A(4));
  else {
    ob_puts(d->o, "{stx_mask=");
    put_flags(d->o, sc_statx_masks, sx.mask, "0");
    ob_puts(d->o, ", stx_mode=");
    put_mode(d->o, sx.mode);
    ob_printf(d->o, ", stx_size=%llu", (unsigned long long)sx.size);
    ob_puts(d->o, dc_strace(d) ? ", ...}" : "}");
  }
}

/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_access(struct dc *d) { /* access(path, mode) */
  put_path(d, A(0));
  next(d);
  put_flags(d->o, sc_access_modes, (uint32_t)A(1), "F_OK");
}
void en_faccessat(struct dc *d) { /* faccessat(dirfd, path, mode) */
  en_dirfd_path(d);
  next(d);
  put_flags(d->o, sc_access_modes, (uint32_t)A(2), "F_OK");
}
void en_faccessat2(struct dc *d) { /* faccessat2(dirfd, path, mode, flags) */
  en_faccessat(d);
  next(d);
  put_flags(d->o, sc_faccessat_flags, (uint32_t)A(3), "0");
}

void en_lseek(struct dc *d) { /* lseek(fd, offset, whence) */
  put_fd(d, A(0));
  next(d);
  put_long(d->o, A(1));
  next(d);
  put_xval(d->o, sc_seek_whence, (uint32_t)A(2), XDEC);
}


/* ---- paths ---- */
void en_unlinkat(struct dc *d) {
  en_dirfd_path(d);
  next(d);
  put_flags(d->o, sc_at_removedir, (uint32_t)A(2), "0");
}
void en_mkdirat(struct dc *d) {
  en_dirfd_path(d);
  next(d);
  put_octmode(d->o, A(2));
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) en_rename(struct dc *d) {
  put_path(d, A(0));
  next(d);
  put_path(d, A(1));
}
void en_renameat(struct dc *d) { /* renameat(olddirfd, old, newdirfd, new) */
  en_dirfd_path(d);
  next(d);
  put_dirfd(d, A(2));
  next(d);
  put_path(d, A(3));
}
void en_renameat2(struct dc *d) {
  en_renameat(d);
  next(d);
  put_flags(d->o, sc_rename_flags, (uint32_t)A(4), "0");
}

/* readlink's buffer: ret bytes, not NUL-terminated. */
static void put_link_result(struct dc *d, uint64_t buf, uint64_t size) {
  next(d);
  if (OUT_OK(d) && d->ret >= 0) {
    uint64_t n = (uint64_t)d->ret < size ? (uint64_t)d->ret : size;
    put_buf(d, buf, n, PUT_CARRY);
  } else {
    put_addr(d->o, buf);
  }
  next(d);
  put_ulong(d->o, size);
}
/* used by a syscall some arches lack (AArch64: only the *at forms) */
void __attribute__((unused)) ex_readlink(struct dc *d) { put_link_result(d, A(1), A(2)); }
void ex_readlinkat(struct dc *d) { put_link_result(d, A(2), A(3)); }

void ex_getcwd(struct dc *d) { /* getcwd(buf, size): all at exit */
  if (OUT_OK(d))
    put_path(d, A(0));
  else
    put_addr(d->o, A(0));
  next(d);
  put_ulong(d->o, A(1));
}

/* umask(mask) = old mask, both octal */
void en_umask(struct dc *d) { put_octmode(d->o, A(0)); }
void rt_octal(struct dc *d) { put_octmode(d->o, (uint64_t)d->ret); }
