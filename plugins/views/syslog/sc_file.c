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
#include <time.h>

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

/* strace's time comment: / * 2024-01-02T03:04:05.123456789+0000 * / (local
 * time; no fraction when nsec is 0). */
static void put_time_comment(struct ob *o, int64_t sec, uint64_t nsec) {
  time_t t = (time_t)sec;
  struct tm tm;
  char buf[64], z[16];
  if (!localtime_r(&t, &tm)) return;
  strftime(buf, sizeof buf, "%FT%T", &tm);
  strftime(z, sizeof z, "%z", &tm);
  if (nsec)
    ob_printf(o, " /* %s.%09llu%s */", buf, (unsigned long long)nsec, z);
  else
    ob_printf(o, " /* %s%s */", buf, z);
}

static void put_stat_time(struct ob *o, const char *name, int64_t sec, uint64_t nsec) {
  ob_printf(o, ", %s=%lld", name, (long long)sec);
  put_time_comment(o, sec, nsec);
  ob_printf(o, ", %s_nsec=%llu", name, (unsigned long long)nsec);
}

static int is_dev(uint32_t mode) { return S_ISCHR(mode) || S_ISBLK(mode); }

/* strace: makedev(0x1, 0x3), a zero part as 0 */
static void put_makedev(struct ob *o, unsigned maj, unsigned min) {
  ob_puts(o, "makedev(");
  if (maj)
    ob_printf(o, "%#x", maj);
  else
    ob_putc(o, '0');
  ob_puts(o, ", ");
  if (min)
    ob_printf(o, "%#x", min);
  else
    ob_putc(o, '0');
  ob_putc(o, ')');
}

/* {st_mode=S_IFREG|0644, st_size=N, ...}; a device shows st_rdev in place
 * of st_size; --verbose every field and the times (strace -v). */
static void put_stat(struct dc *d, uint64_t addr) {
  struct stat st;
  struct ob *o = d->o;
  if (!addr)
    ob_puts(o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, addr, &st, sizeof st))
    put_addr(o, addr);
  else {
    int verbose = dc_strace(d) && (d->c->priv_flags & SC_ENV_VERBOSE);
    if (verbose) {
      ob_puts(o, "{st_dev=");
      put_makedev(o, major(st.st_dev), minor(st.st_dev));
      ob_printf(o, ", st_ino=%llu, st_mode=", (unsigned long long)st.st_ino);
    } else {
      ob_puts(o, "{st_mode=");
    }
    put_mode(o, st.st_mode);
    if (verbose)
      ob_printf(o, ", st_nlink=%llu, st_uid=%u, st_gid=%u, st_blksize=%lld, st_blocks=%lld",
                (unsigned long long)st.st_nlink, st.st_uid, st.st_gid, (long long)st.st_blksize,
                (long long)st.st_blocks);
    if (dc_strace(d) && is_dev(st.st_mode)) {
      ob_puts(o, ", st_rdev=");
      put_makedev(o, major(st.st_rdev), minor(st.st_rdev));
    } else {
      ob_printf(o, ", st_size=%lld", (long long)st.st_size);
    }
    if (!verbose) {
      ob_puts(o, dc_strace(d) ? ", ...}" : "}");
      return;
    }
    put_stat_time(o, "st_atime", st.st_atim.tv_sec, (uint64_t)st.st_atim.tv_nsec);
    put_stat_time(o, "st_mtime", st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec);
    put_stat_time(o, "st_ctime", st.st_ctim.tv_sec, (uint64_t)st.st_ctim.tv_nsec);
    ob_putc(o, '}');
  }
}

/* ---- open / close ---- */
#define K_O_TMPFILE_BIT 020000000u /* __O_TMPFILE: O_TMPFILE minus O_DIRECTORY */

void put_open_flags(struct ob *o, uint64_t v) {
  put_field_flags(o, sc_open_accmode, O_ACCMODE, sc_open_flags, (uint32_t)v);
}
static int open_has_mode(uint64_t flags) { return (flags & O_CREAT) || (flags & K_O_TMPFILE_BIT); }

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
  put_fd_as(d, A(0),
            (d->env && (d->env->flags & SC_ENV_DESCRIBE_CLOSED_FD)) ||
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

struct k_statx_ts {
  int64_t sec;
  uint32_t nsec, pad;
};
struct k_statx { /* struct statx, the fields through stx_mnt_id */
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, pad0;
  uint64_t ino, size, blocks, attributes_mask;
  struct k_statx_ts atime, btime, ctime, mtime;
  uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
  uint64_t mnt_id;
};

static const struct sc_xlat statx_attrs[] = {
    {0x4, "STATX_ATTR_COMPRESSED"},    {0x10, "STATX_ATTR_IMMUTABLE"},
    {0x20, "STATX_ATTR_APPEND"},       {0x40, "STATX_ATTR_NODUMP"},
    {0x800, "STATX_ATTR_ENCRYPTED"},   {0x1000, "STATX_ATTR_AUTOMOUNT"},
    {0x2000, "STATX_ATTR_MOUNT_ROOT"}, {0x100000, "STATX_ATTR_VERITY"},
    {0x200000, "STATX_ATTR_DAX"},      {0, NULL}};

void en_statx(struct dc *d) { /* statx(dirfd, path, flags, mask, buf) */
  en_dirfd_path(d);
  next(d);
  put_field_flags(d->o, sc_statx_sync, 0x6000, sc_statx_flags, (uint32_t)A(2));
  next(d);
  put_flags(d->o, sc_statx_masks, (uint32_t)A(3), "0");
}
static void put_statx_time(struct ob *o, const char *name, const struct k_statx_ts *t) {
  ob_printf(o, ", %s={tv_sec=%lld, tv_nsec=%u}", name, (long long)t->sec, t->nsec);
  put_time_comment(o, t->sec, t->nsec);
}
void ex_statx(struct dc *d) {
  struct k_statx sx;
  struct ob *o = d->o;
  next(d);
  if (!A(4))
    ob_puts(o, "NULL");
  else if (!OUT_OK(d) || !mem_full(d, A(4), &sx, sizeof sx))
    put_addr(o, A(4));
  else {
    int verbose = dc_strace(d) && (d->c->priv_flags & SC_ENV_VERBOSE);
    ob_puts(o, "{stx_mask=");
    put_flags(o, sc_statx_masks, sx.mask, "0");
    if (verbose) ob_printf(o, ", stx_blksize=%u", sx.blksize);
    if (dc_strace(d)) {
      ob_puts(o, ", stx_attributes=");
      put_flags(o, statx_attrs, sx.attributes, "0");
    }
    if (verbose) ob_printf(o, ", stx_nlink=%u, stx_uid=%u, stx_gid=%u", sx.nlink, sx.uid, sx.gid);
    ob_puts(o, ", stx_mode=");
    put_mode(o, sx.mode);
    if (verbose) ob_printf(o, ", stx_ino=%llu", (unsigned long long)sx.ino);
    ob_printf(o, ", stx_size=%llu", (unsigned long long)sx.size);
    if (!verbose) {
      ob_puts(o, dc_strace(d) ? ", ...}" : "}");
      return;
    }
    ob_printf(o, ", stx_blocks=%llu, stx_attributes_mask=", (unsigned long long)sx.blocks);
    put_flags(o, statx_attrs, sx.attributes_mask, "0");
    put_statx_time(o, "stx_atime", &sx.atime);
    if (sx.mask & 0x800) put_statx_time(o, "stx_btime", &sx.btime);
    put_statx_time(o, "stx_ctime", &sx.ctime);
    put_statx_time(o, "stx_mtime", &sx.mtime);
    ob_printf(o, ", stx_rdev_major=%u, stx_rdev_minor=%u, stx_dev_major=%u, stx_dev_minor=%u",
              sx.rdev_major, sx.rdev_minor, sx.dev_major, sx.dev_minor);
    if (sx.mask & 0x1000) ob_printf(o, ", stx_mnt_id=%#llx", (unsigned long long)sx.mnt_id);
    ob_putc(o, '}');
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

void en_fadvise64(struct dc *d) { /* fadvise64(fd, offset, len, advice) */
  put_fd(d, A(0));
  next(d);
  put_long(d->o, A(1));
  next(d);
  put_ulong(d->o, A(2));
  next(d);
  put_xval(d->o, sc_fadvise_advice, (uint32_t)A(3), XDEC);
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

/* ---- utimensat ---- */
#define K_UTIME_NOW ((1l << 30) - 1l)
#define K_UTIME_OMIT ((1l << 30) - 2l)

/* [{tv_sec=1, tv_nsec=5} / * 1970-... * /, UTIME_NOW] */
static void put_utimes(struct dc *d, uint64_t addr) {
  int64_t ts[4];
  struct ob *o = d->o;
  if (!addr) {
    ob_puts(o, "NULL");
    return;
  }
  if (!mem_full(d, addr, ts, sizeof ts)) {
    put_addr(o, addr);
    return;
  }
  ob_putc(o, '[');
  for (int i = 0; i < 2; i++) {
    if (i) ob_puts(o, ", ");
    if (ts[2 * i + 1] == K_UTIME_NOW)
      ob_puts(o, "UTIME_NOW");
    else if (ts[2 * i + 1] == K_UTIME_OMIT)
      ob_puts(o, "UTIME_OMIT");
    else {
      ob_printf(o, "{tv_sec=%lld, tv_nsec=%lld}", (long long)ts[2 * i], (long long)ts[2 * i + 1]);
      if (dc_strace(d)) put_time_comment(o, ts[2 * i], (uint64_t)ts[2 * i + 1]);
    }
  }
  ob_putc(o, ']');
}
void en_utimensat(struct dc *d) { /* utimensat(dirfd, path, times[2], flags) */
  put_dirfd(d, A(0));
  next(d);
  put_path(d, A(1));
  next(d);
  put_utimes(d, A(2));
  next(d);
  put_flags(d->o, sc_at_flags, (uint32_t)A(3), "0");
}
