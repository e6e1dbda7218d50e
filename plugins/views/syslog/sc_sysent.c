/* sc_sysent.c — the syscall table generated from syscalls.in: every
 * syscall's name, arity, argument kinds and trace classes, and the generic
 * printer that shows a syscall no hand-written decoder knows, argument by
 * argument at its kernel type (int at 32 bits, mode at 16, fds, paths,
 * addresses, flags named from their table or in hex). */
#define _GNU_SOURCE
#include "sc_decode_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

static const struct sc_sysent sysents[] = {
#include "sc_syscalls_gen.h"
};
#define NSYSENTS ((int64_t)(sizeof sysents / sizeof sysents[0]))

const struct sc_sysent *sc_sysent_of(int64_t nr) {
  if (nr < 0 || nr >= NSYSENTS || !sysents[nr].name) return NULL;
  return &sysents[nr];
}

int64_t sc_nr_max(void) { return NSYSENTS; }

int64_t sc_nr_by_name(const char *name) {
  for (int64_t nr = 0; nr < NSYSENTS; nr++)
    if (sysents[nr].name && strcmp(sysents[nr].name, name) == 0) return nr;
  return -1;
}

unsigned sc_classes(int64_t nr) {
  const struct sc_sysent *e = sc_sysent_of(nr);
  return e ? e->cls : 0;
}

unsigned sc_class_by_name(const char *name) {
  static const struct {
    const char *name;
    unsigned bit;
  } cls[] = {{"desc", SC_CLS_DESC},     {"file", SC_CLS_FILE},       {"network", SC_CLS_NETWORK},
             {"net", SC_CLS_NETWORK},   {"process", SC_CLS_PROCESS}, {"signal", SC_CLS_SIGNAL},
             {"memory", SC_CLS_MEMORY}, {"ipc", SC_CLS_IPC},         {"creds", SC_CLS_CREDS},
             {"clock", SC_CLS_CLOCK}};
  for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++)
    if (strcmp(cls[i].name, name) == 0) return cls[i].bit;
  return 0;
}

/* One argument at its kind. */
void put_arg(struct dc *d, const struct sc_argspec *a, uint64_t v) {
  struct ob *o = d->o;
  switch (a->kind) {
  case SK_INT: put_int(o, v); break;
  case SK_UINT: put_uint(o, v); break;
  case SK_LONG:
  case SK_OFF: put_long(o, v); break;
  case SK_ULONG:
  case SK_SIZE: put_ulong(o, v); break;
  case SK_HEX: put_xnum(o, v); break;
  case SK_FD: put_fd(d, v); break;
  case SK_DIRFD: put_dirfd(d, v); break;
  case SK_PATH: put_path(d, v); break;
  case SK_STR: put_str(d, v); break;
  case SK_PTR: put_addr(o, v); break;
  case SK_MODE: put_octmode(o, (uint16_t)v); break;
  case SK_SIGNAL: put_signal(o, (uint32_t)v); break;
  case SK_PID: put_int(o, v); break;
  case SK_UID:
    if ((uint32_t)v == UINT32_MAX)
      ob_puts(o, "-1");
    else
      put_uint(o, v);
    break;
  case SK_CLOCKID: put_xval(o, sc_clocks, (uint32_t)v, XSDEC); break;
  case SK_FLAGS: put_flags(o, a->x, a->x ? (uint32_t)v : v, "0"); break;
  default: put_xnum(o, v); break;
  }
}

/* Every argument of a syscall without a hand-written decoder, at entry. */
void put_args_generic(struct dc *d, const struct sc_sysent *e) {
  for (int i = 0; i < e->nargs; i++) {
    next(d);
    put_arg(d, &e->a[i], A(i));
  }
}
