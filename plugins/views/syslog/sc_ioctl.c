/* sc_ioctl.c — ioctl requests and their arguments.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

/* ---- ioctl ---- */
enum { IO_NONE, IO_HEX, IO_INT_IN, IO_INT_OUT, IO_WINSZ_IN, IO_WINSZ_OUT };

static int ioctl_arg_kind(uint32_t req) {
  switch (req) {
  case 0x5450: /* FIONCLEX */
  case 0x5451: /* FIOCLEX */
    return IO_NONE;
  case 0x5421: /* FIONBIO */
  case 0x5452: /* FIOASYNC */
  case 0x5410: /* TIOCSPGRP */
    return IO_INT_IN;
  case 0x541b: /* FIONREAD */
  case 0x540f: /* TIOCGPGRP */
  case 0x80045430: /* TIOCGPTN */
    return IO_INT_OUT;
  case 0x5414: return IO_WINSZ_IN;  /* TIOCSWINSZ */
  case 0x5413: return IO_WINSZ_OUT; /* TIOCGWINSZ */
  default: return IO_HEX;
  }
}

static void put_winsize(struct dc *d, uint64_t addr) {
  uint16_t ws[4];
  if (addr && mem_full(d, addr, ws, sizeof ws))
    ob_printf(d->o, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", ws[0], ws[1], ws[2], ws[3]);
  else
    put_addr(d->o, addr);
}

void en_ioctl(struct dc *d) { /* ioctl(fd, request, arg) */
  uint32_t req = (uint32_t)A(1);
  put_fd(d, A(0));
  next(d);
  put_xval(d->o, sc_ioctl_requests, req, XHEX);
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
  default:
    break;
  }
}
void ex_ioctl(struct dc *d) {
  int kind = ioctl_arg_kind((uint32_t)A(1));
  if (kind != IO_INT_OUT && kind != IO_WINSZ_OUT) return;
  next(d);
  if (!OUT_OK(d))
    put_addr(d->o, A(2));
  else if (kind == IO_INT_OUT)
    put_intptr(d, A(2));
  else
    put_winsize(d, A(2));
}
