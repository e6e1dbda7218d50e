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
  case 6:
  case 13: /* LOCK_PI, LOCK_PI2: timeout */
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
  case 4:
  case 12: /* CMP_REQUEUE(_PI): val, val2, uaddr2, val3 */
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
  case 1:
  case 2: /* WAKE, FD: val */ ob_printf(o, ", %u", val); break;
  case 7:
  case 8: /* UNLOCK_PI, TRYLOCK_PI */ break;
  default:
    ob_printf(o, ", %u, ", val);
    put_addr(o, A(3));
    next(d);
    put_addr(o, A(4));
    ob_printf(o, ", %#x", val3);
    break;
  }
}

/* ==== issue 26 part B: capabilities, seccomp, resuid ======================= */
#define K_CAP_V1 0x19980330u

static void put_cap_header(struct dc *d, uint64_t addr, uint32_t *version) {
  uint32_t h[2];
  *version = 0;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  if (!mem_full(d, addr, h, sizeof h)) {
    put_addr(d->o, addr);
    return;
  }
  *version = h[0];
  ob_puts(d->o, "{version=");
  put_xval_q(d->o, sc_cap_versions, h[0], "_LINUX_CAPABILITY_VERSION_???");
  ob_printf(d->o, ", pid=%d}", (int32_t)h[1]);
}

/* 1<<CAP_CHOWN|1<<CAP_KILL, 0 for none */
static void put_capset_bits(struct ob *o, uint64_t v) {
  if (!v) {
    ob_putc(o, '0');
    return;
  }
  int first = 1;
  for (unsigned b = 0; b < 64; b++) {
    if (!(v & (1ull << b))) continue;
    const char *n = sc_cap_name(b);
    if (!first) ob_putc(o, '|');
    first = 0;
    if (n)
      ob_printf(o, "1<<%s", n);
    else
      ob_printf(o, "1<<%u", b);
  }
}

static void put_cap_data(struct dc *d, uint64_t addr, uint32_t version) {
  uint32_t w[6] = {0};
  size_t n = version == K_CAP_V1 ? 3 : 6;
  if (!addr) {
    ob_puts(d->o, "NULL");
    return;
  }
  if (!mem_full(d, addr, w, n * sizeof w[0])) {
    put_addr(d->o, addr);
    return;
  }
  uint64_t e = w[0], p = w[1], i = w[2];
  if (n == 6) {
    e |= (uint64_t)w[3] << 32;
    p |= (uint64_t)w[4] << 32;
    i |= (uint64_t)w[5] << 32;
  }
  ob_puts(d->o, "{effective=");
  put_capset_bits(d->o, e);
  ob_puts(d->o, ", permitted=");
  put_capset_bits(d->o, p);
  ob_puts(d->o, ", inheritable=");
  put_capset_bits(d->o, i);
  ob_putc(d->o, '}');
}

void en_capget(struct dc *d) { /* capget(header, data): the data at the exit */
  uint32_t v;
  put_cap_header(d, A(0), &v);
  d->c->priv_saved[0] = v;
  d->c->priv_savedok |= 1;
}
void ex_capget(struct dc *d) {
  next(d);
  if (A(1) && !OUT_OK(d))
    put_addr(d->o, A(1));
  else
    put_cap_data(d, A(1), (uint32_t)d->c->priv_saved[0]);
}
void en_capset(struct dc *d) {
  uint32_t v;
  put_cap_header(d, A(0), &v);
  next(d);
  put_cap_data(d, A(1), v);
}

/* seccomp(op, flags, args) */
void en_seccomp(struct dc *d) {
  struct ob *o = d->o;
  uint32_t op = (uint32_t)A(0), flags = (uint32_t)A(1);
  put_xval_q(o, sc_seccomp_ops, op, "SECCOMP_SET_MODE_???");
  next(d);
  if (op == 1)
    put_flags_q(o, sc_seccomp_filter_flags, flags, "SECCOMP_FILTER_FLAG_???");
  else
    ob_printf(o, "%u", flags);
  next(d);
  if (op == 2) { /* GET_ACTION_AVAIL: [action] */
    uint32_t a;
    if (A(2) && mem_full(d, A(2), &a, sizeof a)) {
      ob_putc(o, '[');
      put_xval_q(o, sc_seccomp_ret_actions, a, "SECCOMP_RET_???");
      ob_putc(o, ']');
    } else {
      put_addr(o, A(2));
    }
  } else if (op == 1) { /* SET_MODE_FILTER: the program's length; the filter not decoded */
    struct {
      uint16_t len, pad[3];
      uint64_t filter;
    } prog;
    if (A(2) && mem_full(d, A(2), &prog, sizeof prog)) {
      ob_printf(o, "{len=%u, filter=", prog.len);
      put_addr(o, prog.filter);
      ob_putc(o, '}');
    } else {
      put_addr(o, A(2));
    }
  } else if (op != 3) {
    put_addr(o, A(2));
  }
}
void ex_seccomp(struct dc *d) {
  if ((uint32_t)A(0) != 3) return;
  uint16_t sz[3];
  if (A(2) && OUT_OK(d) && mem_full(d, A(2), sz, sizeof sz))
    ob_printf(d->o, "{seccomp_notif=%u, seccomp_notif_resp=%u, seccomp_data=%u}", sz[0], sz[1],
              sz[2]);
  else
    put_addr(d->o, A(2));
}

/* getresuid/getresgid([r], [e], [s]) at the exit */
void ex_getresid(struct dc *d) {
  for (int i = 0; i < 3; i++) {
    uint32_t v;
    next(d);
    if (A(i) && OUT_OK(d) && mem_full(d, A(i), &v, sizeof v))
      ob_printf(d->o, "[%u]", v);
    else
      put_addr(d->o, A(i));
  }
}
