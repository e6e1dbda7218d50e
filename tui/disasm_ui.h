/* disasm_ui: the call tree's right pane, read live on the UI thread.
 *
 * The host's disassembler (host/disasm.c) keeps a cache and is single-
 * threaded by design (the tracer thread uses it for every step), so the UI
 * thread keeps a Capstone handle of its own. It disassembles one function
 * as it is in the target's memory now: the extent comes from a symbol table
 * the UI thread loaded itself, the bytes from /proc/<pid>/mem (no ptrace
 * call: the tracer thread owns those). Where memory differs from the file
 * mapped there (asmspy's own entry patch while a call mode runs), the
 * file's bytes are disassembled instead, under a line that says so. */
#ifndef ASMSPY_TUI_DISASM_UI_H
#define ASMSPY_TUI_DISASM_UI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TUI_DISASM_MAX_BYTES 4096 /* a longer function shows its first 4 KB */

/* Disassemble the function containing addr in pid into a heap string, one
 * instruction per line ("  +0x12  0x5555...  mov eax, 1"), under a title
 * line. NULL on ENOMEM; a failure to read is described in the text. */
char *tui_disasm_function(pid_t pid, uint64_t addr);
void tui_disasm_close(void);
/* The sized function symbol covering addr in pid (the UI thread's table):
 * 1 with *start and *name filled, or 0. */
int tui_function_at(pid_t pid, uint64_t addr, uint64_t *start, const char **name);

#endif
