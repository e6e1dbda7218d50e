/* sc_ioctl.c — ioctl requests and their arguments: names (sc_ioctl_names.h,
 * resolved from the system headers), strace's _IOC(dir, type, nr, size) for
 * the others, termios, winsize and int arguments.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

#include <asm/termbits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <string.h>
#include <sys/ioctl.h>

/* ---- request names ---- */
#define I(n) {(uint32_t)(n), #n},
/* strace prints both names of a number two drivers share */
static const struct sc_xlat ioctl_names[] = {{0x5402, "SNDCTL_TMR_START or TCSETS"},
                                             {0x5403, "SNDCTL_TMR_STOP or TCSETSW"},
                                             {0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF"},
#include "sc_ioctl_names.h"
                                             {0, NULL}};
#undef I

/* TCGETS etc., else _IOC(_IOC_READ, 0x78, 0x55, 0x4) in strace mode (the
 * house style: the tty name of a shared number, the number in hex) */
static void put_ioctl_req(struct ob *o, uint32_t req) {
  const char *n = sc_xlat_name(ioctl_names, req);
  if (n) {
    const char *alt = strstr(n, " or ");
    ob_puts(o, !o->strace && alt ? alt + 4 : n);
    return;
  }
  if (!o->strace) {
    put_xnum(o, req);
    return;
  }
  static const char *const dirs[] = {"_IOC_NONE", "_IOC_WRITE", "_IOC_READ",
                                     "_IOC_READ|_IOC_WRITE"};
  unsigned dir = _IOC_DIR(req), size = _IOC_SIZE(req);
  ob_printf(o, "_IOC(%s, %#x, %#x, ", dirs[dir & 3], _IOC_TYPE(req), _IOC_NR(req));
  if (size)
    ob_printf(o, "%#x)", size);
  else
    ob_puts(o, "0)");
}

/* ---- termios ---- */
struct k_termios {
  uint32_t iflag, oflag, cflag, lflag;
  uint8_t line, cc[19];
};
#define F(v, n)                                                                                    \
  { v, n }
static const struct sc_xlat t_iflags[] = {
    F(01, "IGNBRK"),    F(02, "BRKINT"),      F(04, "IGNPAR"),    F(010, "PARMRK"),
    F(020, "INPCK"),    F(040, "ISTRIP"),     F(0100, "INLCR"),   F(0200, "IGNCR"),
    F(0400, "ICRNL"),   F(01000, "IUCLC"),    F(02000, "IXON"),   F(04000, "IXANY"),
    F(010000, "IXOFF"), F(020000, "IMAXBEL"), F(040000, "IUTF8"), {0, NULL}};
static const struct sc_xlat t_oflags[] = {F(01, "OPOST"),   F(02, "OLCUC"),   F(04, "ONLCR"),
                                          F(010, "OCRNL"),  F(020, "ONOCR"),  F(040, "ONLRET"),
                                          F(0100, "OFILL"), F(0200, "OFDEL"), {0, NULL}};
static const struct sc_xlat t_nldly[] = {F(0, "NL0"), F(0400, "NL1"), {0, NULL}};
static const struct sc_xlat t_crdly[] = {
    F(0, "CR0"), F(01000, "CR1"), F(02000, "CR2"), F(03000, "CR3"), {0, NULL}};
static const struct sc_xlat t_tabdly[] = {
    F(0, "TAB0"), F(04000, "TAB1"), F(010000, "TAB2"), F(014000, "TAB3"), {0, NULL}};
static const struct sc_xlat t_bsdly[] = {F(0, "BS0"), F(020000, "BS1"), {0, NULL}};
static const struct sc_xlat t_vtdly[] = {F(0, "VT0"), F(040000, "VT1"), {0, NULL}};
static const struct sc_xlat t_ffdly[] = {F(0, "FF0"), F(0100000, "FF1"), {0, NULL}};
static const struct sc_xlat t_bauds[] = {F(0, "B0"),
                                         F(01, "B50"),
                                         F(02, "B75"),
                                         F(03, "B110"),
                                         F(04, "B134"),
                                         F(05, "B150"),
                                         F(06, "B200"),
                                         F(07, "B300"),
                                         F(010, "B600"),
                                         F(011, "B1200"),
                                         F(012, "B1800"),
                                         F(013, "B2400"),
                                         F(014, "B4800"),
                                         F(015, "B9600"),
                                         F(016, "B19200"),
                                         F(017, "B38400"),
                                         F(010000, "BOTHER"),
                                         F(010001, "B57600"),
                                         F(010002, "B115200"),
                                         F(010003, "B230400"),
                                         F(010004, "B460800"),
                                         F(010005, "B500000"),
                                         F(010006, "B576000"),
                                         F(010007, "B921600"),
                                         F(010010, "B1000000"),
                                         F(010011, "B1152000"),
                                         F(010012, "B1500000"),
                                         F(010013, "B2000000"),
                                         F(010014, "B2500000"),
                                         F(010015, "B3000000"),
                                         F(010016, "B3500000"),
                                         F(010017, "B4000000"),
                                         {0, NULL}};
static const struct sc_xlat t_csize[] = {
    F(0, "CS5"), F(020, "CS6"), F(040, "CS7"), F(060, "CS8"), {0, NULL}};
static const struct sc_xlat t_cflags[] = {
    F(0100, "CSTOPB"),         F(0200, "CREAD"),           F(0400, "PARENB"),
    F(01000, "PARODD"),        F(02000, "HUPCL"),          F(04000, "CLOCAL"),
    F(010000000000, "CMSPAR"), F(020000000000, "CRTSCTS"), {0, NULL}};
static const struct sc_xlat t_lflags[] = {
    F(01, "ISIG"),      F(02, "ICANON"),      F(04, "XCASE"),      F(010, "ECHO"),
    F(020, "ECHOE"),    F(040, "ECHOK"),      F(0100, "ECHONL"),   F(0200, "NOFLSH"),
    F(0400, "TOSTOP"),  F(0100000, "IEXTEN"), F(01000, "ECHOCTL"), F(02000, "ECHOPRT"),
    F(04000, "ECHOKE"), F(010000, "FLUSHO"),  F(040000, "PENDIN"), F(0200000, "EXTPROC"),
    {0, NULL}};
static const char *const cc_names[] = {
    "VINTR", "VQUIT", "VERASE", "VKILL",    "VEOF",     "VTIME",   "VMIN",   "VSWTC", "VSTART",
    "VSTOP", "VSUSP", "VEOL",   "VREPRINT", "VDISCARD", "VWERASE", "VLNEXT", "VEOL2"};
#undef F

static void put_tflags(struct ob *o, const struct sc_xlat *x, uint32_t v) {
  put_flags(o, x, v, "0");
}

static void put_termios(struct dc *d, uint64_t addr) {
  struct k_termios t;
  struct ob *o = d->o;
  if (!addr || !mem_full(d, addr, &t, sizeof t)) {
    put_addr(o, addr);
    return;
  }
  ob_puts(o, "{c_iflag=");
  put_tflags(o, t_iflags, t.iflag);
  ob_puts(o, ", c_oflag=");
  uint32_t of = t.oflag;
  put_xval(o, t_nldly, of & 0400, XHEX);
  ob_putc(o, '|');
  put_xval(o, t_crdly, of & 03000, XHEX);
  ob_putc(o, '|');
  put_xval(o, t_tabdly, of & 014000, XHEX);
  ob_putc(o, '|');
  put_xval(o, t_bsdly, of & 020000, XHEX);
  ob_putc(o, '|');
  put_xval(o, t_vtdly, of & 040000, XHEX);
  ob_putc(o, '|');
  put_xval(o, t_ffdly, of & 0100000, XHEX);
  put_flags_tail(o, t_oflags, of & ~(uint32_t)0177400, 0);
  ob_puts(o, ", c_cflag=");
  uint32_t cf = t.cflag;
  put_xval(o, t_bauds, cf & 010017, XHEX);
  if (cf & 002003600000u) { /* CIBAUD: the input speed */
    ob_putc(o, '|');
    put_xval(o, t_bauds, (cf >> 16) & 010017, XHEX);
    ob_puts(o, "<<IBSHIFT");
  }
  ob_putc(o, '|');
  put_xval(o, t_csize, cf & 060, XHEX);
  put_flags_tail(o, t_cflags, cf & ~(uint32_t)(010017 | 060 | 002003600000u), 0);
  ob_puts(o, ", c_lflag=");
  put_tflags(o, t_lflags, t.lflag);
  if (!dc_strace(d) || !(d->c->priv_flags & SC_ENV_VERBOSE)) {
    ob_puts(o, ", ...}");
    return;
  }
  ob_printf(o, ", c_line=%u, c_cc=[", t.line);
  for (unsigned i = 0; i < 19; i++) {
    if (i) ob_puts(o, ", ");
    if (i < sizeof cc_names / sizeof cc_names[0])
      ob_printf(o, "[%s] = %#x", cc_names[i], t.cc[i]);
    else
      ob_printf(o, "[%u] = %#x", i, t.cc[i]);
  }
  ob_puts(o, "]}");
}

static void put_winsize(struct dc *d, uint64_t addr) {
  uint16_t ws[4];
  if (addr && mem_full(d, addr, ws, sizeof ws))
    ob_printf(d->o, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", ws[0], ws[1], ws[2],
              ws[3]);
  else
    put_addr(d->o, addr);
}

/* ---- the argument, by request ---- */
enum {
  IO_HEX,
  IO_NONE,
  IO_INT_IN,
  IO_INT_OUT,
  IO_WINSZ_IN,
  IO_WINSZ_OUT,
  IO_TERMIOS_IN,
  IO_TERMIOS_OUT,
  IO_ULONG,
  IO_FLUSH,
  IO_XONC,
  IO_ULONG64_OUT
};

static int ioctl_arg_kind(uint32_t req) {
  switch (req) {
  case FIONCLEX:
  case FIOCLEX:
  case TIOCNOTTY:
  case TIOCEXCL:
  case TIOCNXCL:
  case TIOCCONS:
  case TIOCSBRK:
  case TIOCCBRK:
  case TIOCVHANGUP: return IO_NONE;
  case FIONBIO:
  case FIOASYNC:
  case TIOCSPGRP:
  case TIOCSPTLCK:
  case TIOCMBIS:
  case TIOCMBIC:
  case TIOCMSET:
  case TIOCSETD:
  case TIOCPKT:
  case TIOCSSOFTCAR: return IO_INT_IN;
  case FIONREAD:
  case TIOCOUTQ:
  case TIOCGPGRP:
  case TIOCGPTN:
  case TIOCGSID:
  case TIOCMGET:
  case TIOCGETD:
  case TIOCGSOFTCAR:
  case TIOCGPKT:
  case TIOCGPTLCK:
  case TIOCGEXCL:
  case BLKSSZGET:
  case BLKROGET:
  case BLKIOMIN:
  case BLKIOOPT:
  case BLKPBSZGET:
  case BLKBSZGET: return IO_INT_OUT;
  case BLKGETSIZE64: return IO_ULONG64_OUT;
  case TIOCSWINSZ: return IO_WINSZ_IN;
  case TIOCGWINSZ: return IO_WINSZ_OUT;
  case TCGETS: return IO_TERMIOS_OUT;
  case TCSETS:
  case TCSETSW:
  case TCSETSF: return IO_TERMIOS_IN;
  case TCSBRK:
  case TCSBRKP:
  case TIOCSCTTY:
  case TIOCSIG:
  case TIOCGPTPEER: return IO_ULONG;
  case TCFLSH: return IO_FLUSH;
  case TCXONC: return IO_XONC;
  default: return IO_HEX;
  }
}

void en_ioctl(struct dc *d) { /* ioctl(fd, request, arg) */
  static const struct sc_xlat flush[] = {
      {0, "TCIFLUSH"}, {1, "TCOFLUSH"}, {2, "TCIOFLUSH"}, {0, NULL}};
  static const struct sc_xlat xonc[] = {
      {0, "TCOOFF"}, {1, "TCOON"}, {2, "TCIOFF"}, {3, "TCION"}, {0, NULL}};
  uint32_t req = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_ioctl_req(d->o, req);
  switch (ioctl_arg_kind(req)) {
  case IO_HEX:
    next(d);
    put_xnum(d->o, A(2));
    break;
  case IO_INT_IN:
    next(d);
    put_intptr(d, A(2));
    break;
  case IO_WINSZ_IN:
    next(d);
    put_winsize(d, A(2));
    break;
  case IO_TERMIOS_IN:
    next(d);
    put_termios(d, A(2));
    break;
  case IO_ULONG:
    next(d);
    put_ulong(d->o, A(2));
    break;
  case IO_FLUSH:
    next(d);
    put_xval(d->o, flush, A(2), XDEC);
    break;
  case IO_XONC:
    next(d);
    put_xval(d->o, xonc, A(2), XDEC);
    break;
  default: break;
  }
}
void ex_ioctl(struct dc *d) {
  int kind = ioctl_arg_kind((uint32_t)A(1));
  if (kind != IO_INT_OUT && kind != IO_WINSZ_OUT && kind != IO_TERMIOS_OUT &&
      kind != IO_ULONG64_OUT)
    return;
  next(d);
  uint64_t v;
  if (!OUT_OK(d))
    put_addr(d->o, A(2));
  else if (kind == IO_INT_OUT)
    put_intptr(d, A(2));
  else if (kind == IO_TERMIOS_OUT)
    put_termios(d, A(2));
  else if (kind == IO_ULONG64_OUT) {
    if (A(2) && mem_full(d, A(2), &v, sizeof v))
      ob_printf(d->o, "[%llu]", (unsigned long long)v);
    else
      put_addr(d->o, A(2));
  } else
    put_winsize(d, A(2));
}
