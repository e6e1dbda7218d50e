/* sc_misc.c — futex and whatever fits no other family yet.
 *
 * Part of the syslog view's decoder (see sc_decode_int.h for the shared
 * context and primitives, sc_decode.c for the dispatch). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

/* ---- futex ---- */
#define K_FUTEX_PRIVATE 128u
#define K_FUTEX_CLOCK_RT 256u
#define K_FUTEX_CMD_MASK 127u

static void put_futex_op(struct ob *o, uint32_t op) {
  const char *name = sc_xlat_name(sc_futex_cmds, op & K_FUTEX_CMD_MASK);
  uint32_t rest = op & ~(K_FUTEX_CMD_MASK | K_FUTEX_PRIVATE | K_FUTEX_CLOCK_RT);
  if (!name) {
    put_xnum(o, op);
    return;
  }
  ob_puts(o, name);
  if (op & K_FUTEX_PRIVATE) ob_puts(o, "_PRIVATE");
  if (op & K_FUTEX_CLOCK_RT) ob_puts(o, "|FUTEX_CLOCK_REALTIME");
  if (rest) ob_printf(o, "|%#x", rest);
}

static void put_futex_bitset(struct ob *o, uint32_t v) {
  if (v == 0xffffffffu)
    ob_puts(o, "FUTEX_BITSET_MATCH_ANY");
  else
    put_xnum(o, v);
}

/* FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1, as strace spells it. */
static void put_futex_wake_op(struct ob *o, uint32_t v) {
  if ((v >> 28) & 8) ob_puts(o, "FUTEX_OP_OPARG_SHIFT<<28|");
  put_xval(o, sc_futex_wake_ops, (v >> 28) & 7, XDEC);
  ob_printf(o, "<<28|%#x<<12|", (v >> 12) & 0xfff);
  put_xval(o, sc_futex_wake_cmps, (v >> 24) & 0xf, XDEC);
  ob_printf(o, "<<24|%#x", v & 0xfff);
}

void en_futex(struct dc *d) { /* futex(uaddr, op, val, timeout|val2, uaddr2, val3) */
  struct ob *o = d->o;
  uint32_t op = (uint32_t)A(1), val = (uint32_t)A(2), val2 = (uint32_t)A(3);
  uint32_t val3 = (uint32_t)A(5);
  put_addr(o, A(0));
  next(d);
  put_futex_op(o, op);
  switch (op & K_FUTEX_CMD_MASK) {
  case 0: /* WAIT: val, timeout */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    break;
  case 6: case 13: /* LOCK_PI, LOCK_PI2: timeout */
    next(d);
    put_timespec(d, A(3));
    break;
  case 9: /* WAIT_BITSET: val, timeout, bitset */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    next(d);
    put_futex_bitset(o, val3);
    break;
  case 10: /* WAKE_BITSET: val, bitset */
    ob_printf(o, ", %u, ", val);
    put_futex_bitset(o, val3);
    break;
  case 3: /* REQUEUE: val, val2, uaddr2 */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    break;
  case 4: case 12: /* CMP_REQUEUE(_PI): val, val2, uaddr2, val3 */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    ob_printf(o, ", %u", val3);
    break;
  case 5: /* WAKE_OP: val, val2, uaddr2, encoded op */
    ob_printf(o, ", %u, %u, ", val, val2);
    put_addr(o, A(4));
    next(d);
    put_futex_wake_op(o, val3);
    break;
  case 11: /* WAIT_REQUEUE_PI: val, timeout, uaddr2 */
    ob_printf(o, ", %u, ", val);
    put_timespec(d, A(3));
    next(d);
    put_addr(o, A(4));
    break;
  case 1: case 2: /* WAKE, FD: val */
    ob_printf(o, ", %u", val);
    break;
  case 7: case 8: /* UNLOCK_PI, TRYLOCK_PI */
    break;
  default:
    ob_printf(o, ", %u, ", val);
    put_addr(o, A(3));
    next(d);
    put_addr(o, A(4));
    ob_printf(o, ", %#x", val3);
    break;
  }
}
