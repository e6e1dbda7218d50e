/* proc_stat.h: a process's state and name from /proc/<pid>/stat
 * (proc_stat.c): is the target gone, is an agent's owner still an asmspy. */
#ifndef ASMSPY_ENTRYPATCH_PROC_STAT_H
#define ASMSPY_ENTRYPATCH_PROC_STAT_H

#include <stddef.h>
#include <sys/types.h>

/* 0 with *state (R, S, D, T, t, Z, X, ...) and comm[cap]; -1 when pid has
 * no /proc entry (gone and reaped). */
int ep_proc_stat(pid_t pid, char *state, char *comm, size_t cap);

/* Gone, or a zombie nobody reaped yet. */
int ep_proc_gone(pid_t pid);

#endif
