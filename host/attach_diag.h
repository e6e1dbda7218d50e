/* attach_diag.h — why a pid cannot be traced, measured rather than guessed
 * (host/attach_diag.c). attach_explain and elf_file_is_32bit are declared in
 * host.h; these are the checks the engine and the CLI make around an attach. */
#ifndef ASMSPY_HOST_ATTACH_DIAG_H
#define ASMSPY_HOST_ATTACH_DIAG_H

#include <stddef.h>
#include <sys/types.h>

#include "asmspy-internal/app_api.h"

/* attach_precheck (before any attach: can pid be traced at all?) is declared
 * in asmspy-internal/app_api.h: the CLI calls it. */

/* After the kernel refused an attach (EPERM/EACCES): the real reason, with
 * the gates that are open and closed. Like attach_explain, plus two
 * measurements when no gate /proc shows is closed: the errno of a fresh
 * PTRACE_SEIZE (from a short-lived child, so nothing stays attached) and
 * whether the kernel's ptrace access check lets asmspy read the target's
 * memory at all (process_vm_readv). */
void attach_explain_refusal(pid_t pid, char *buf, size_t cap);
/* The kernel's ptrace access check as an attach meets it
 * (PTRACE_MODE_ATTACH_REALCREDS: uid, capabilities, Yama, every LSM), on
 * its own: a one-byte process_vm_readv. 0 allowed, else the errno (ESRCH:
 * gone). Never attaches, never stops the target. */
int attach_access_errno(pid_t pid);
/* When pid's permitted capabilities are not a subset of asmspy's (the
 * kernel then wants CAP_SYS_PTRACE in the target's user namespace): that,
 * named ("pid 1 holds capabilities asmspy lacks: CAP_SYS_MODULE"), else "". */
void attach_caps_missing(pid_t pid, char *buf, size_t cap);
/* The TracerPid of task tid (0: not traced), or -1 when it is gone. */
pid_t tracer_pid_of(pid_t tid);
/* 1 when thread tid of pid is gone or a zombie (it has exited: seizing it
 * says EPERM, and it needs no seizing). */
int thread_has_exited(pid_t pid, pid_t tid);

#endif
