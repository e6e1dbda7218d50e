/* runtime.h: programs whose runtime forbids patched entries (runtime.c).
 *
 * The agent hooks a patched function's return by replacing its return
 * address on the stack. A runtime that walks its stacks itself and knows
 * every return address must be its own code refuses that: Go's traceback
 * stops with "fatal error: unknown pc" at the hook, and its stack copying
 * (a goroutine's stack grows by moving) re-bases frames it cannot read,
 * which later runs garbage (SIGILL). Such a program is refused whole. */
#ifndef ASMSPY_ENTRYPATCH_RUNTIME_H
#define ASMSPY_ENTRYPATCH_RUNTIME_H

#include <stddef.h>
#include <sys/types.h>

/* 1 when the process must not be patched, with the reason in why (a
 * sentence naming the runtime and where it was found, and what to use
 * instead); 0 when no such runtime is mapped (or pid's maps cannot be
 * read: the session's attach reports a gone process). Reads every ELF file
 * the process has mapped as code, through /proc/<pid>/map_files (the file
 * the process has, even when its path was replaced or deleted), else its
 * path. Detected: Go (a `.go.buildinfo` section or a `runtime.buildVersion`
 * symbol: the main executable, or a Go library built -buildmode=c-shared). */
int ep_runtime_refusal(pid_t pid, char *why, size_t cap);

#endif
