/* got.h: calls through a module's GOT (got.c; docs/entrypatch.md section 2,
 * "GOT calls (-fno-plt)").
 *
 * Code built -fno-plt calls an imported function as `call *f@GOTPCREL(%rip)`
 * (or tail-calls it with `jmp *...`): no PLT stub to patch. Such a call is
 * traced by writing the slot: it then holds the address of a stub
 * `push $index; jmp entry_thunk` whose resume is the slot's original value
 * (the resolved function). The host names the slot `f@got` (host/symbols.c,
 * GLOB_DAT relocations of undefined STT_FUNC symbols) and the slot's address
 * is the function's address in the records.
 *
 * A slot is only written when nothing but a call can ever see its value:
 * every instruction of the module's executable sections (decoded whole,
 * linearly, with Capstone) that refers to the slot must be `call *slot(%rip)`
 * or `jmp *slot(%rip)`, outside the PLT sections; and a byte-pattern pass
 * over the same code finds every position whose 4 bytes, read as a
 * displacement (rip-relative with 0, 1, 2 or 4 immediate bytes after it, or
 * absolute), would address the slot: any that is not one of those calls
 * refuses it too (code the sweep may have mis-decoded, data in the text).
 * A program that copies the value (`mov f@GOTPCREL(%rip), %rax`, &f, a
 * callback handed to qsort or atexit) would keep the stub's address, which
 * is unmapped when asmspy leaves: refused, "its address is taken". Also
 * refused: a module whose code does not decode to its end, a slot read by a
 * PLT stub (traced as f@plt), a slot a RELATIVE relocation points at, a
 * slot not called at all, one whose value is not in an executable file
 * mapping (not resolved yet: lazy binding; another tool's hook), or lies in
 * the module's own PLT. */
#ifndef ASMSPY_ENTRYPATCH_GOT_H
#define ASMSPY_ENTRYPATCH_GOT_H

#include "plugins/entrypatch/maps.h"
#include "plugins/entrypatch/plan.h"

#include <asmspy/plugin.h>
#include <stdint.h>

/* The name of a GOT slot symbol: "name@got". */
int ep_is_got_slot(const char *name);

struct ep_got;

/* A session's analyses, one per module (cached). NULL: out of memory. */
struct ep_got *ep_got_open(const struct ep_maps *maps);
void ep_got_close(struct ep_got *g);

/* Plan the GOT slot at runtime address `slot` (its symbol `name`): fills p
 * (addr = slot, len = 8, kind AGENT_FN_CALL | AGENT_FN_GOT, orig = its value
 * now, got_target = that value). 0, or -1 with the reason in why. */
int ep_got_plan(struct ep_got *g, const struct asmspy_host_api *host, struct asmspy_target *t,
                uint64_t slot, const char *name, struct ep_patch *p, char *why, size_t whycap);

#endif
