/* select.h: which functions a call session patches (select.c; the modules:
 * choose.c; docs/entrypatch.md "What is patched by default").
 *
 * Default: every function of the main executable and its PLT entries
 * (`name@plt`: calls into libraries, recorded where they leave) and GOT
 * slots (`name@got`, kind AGENT_FN_CALL | AGENT_FN_GOT: the calls -fno-plt
 * code makes through the GOT; got.h decides which may be hooked); when the
 * executable is a launcher, also the library its code is in (choose.h).
 * The session (asmspy_session 1.12): call_module (comma-separated globs on
 * module basenames: more modules; the executable stays, so calls into them
 * nest at their true depth), call_patch (uftrace -P: only its matches, in
 * those modules), call_include / call_exclude (uftrace -F / -N, applied by
 * the view: their matches in any module are patched on top) and
 * call_max_funcs (the cap: EP_DEFAULT_MAX, EP_INTERP_MAX when a launcher's
 * library was chosen; over it the -F/-N/-P matches, then the executable's
 * PLT stubs, its functions, --module's, the automatic ones, the larger
 * first within a class). One note line says what was chosen and why.
 * Never patched: the program's entry (_start,
 * whose stack top is argc, not a return address) and the ELF init/fini
 * glue; gcc's .cold / .part parts of a function (ep_is_fragment); any
 * symbol whose first bytes are not in an executable file mapping (a .debug
 * file mapped for reading, anonymous memory); what a managed runtime finds
 * by return address (ep_runtime_unsafe). The unwinder hooks (every
 * _Unwind_* entry that walks the stack, and __cxa_begin_catch) are added
 * whenever they are mapped as code, so C++ exceptions and thread
 * cancellation can unwind through patched frames. */
#ifndef ASMSPY_ENTRYPATCH_SELECT_H
#define ASMSPY_ENTRYPATCH_SELECT_H

#include "plugins/entrypatch/maps.h"

#include <asmspy/plugin.h>
#include <stdint.h>

#define EP_DEFAULT_MAX 4096u
/* The cap when a launcher's interpreter library is chosen (choose.h): all
 * the agent takes (AGENT_MAX_FUNCS less the unwinder hooks' room). */
#define EP_INTERP_MAX 8184u

struct ep_candidate {
  uint64_t addr, size;
  const char *name;   /* host-owned */
  const char *module; /* host-owned basename */
  uint32_t kind;      /* AGENT_FN_*; | AGENT_FN_GOT for a GOT slot (addr: the slot) */
};

/* Fills *out (malloc'd) with the candidates in address order, aliases
 * folded; maps: the target's, to keep only code (NULL: no such check). *capped: how many matching functions the cap left out; *twice:
 * how many of them return twice (setjmp, vfork: see ep_returns_twice), kept
 * entry only (kind | AGENT_FN_NOEXIT). Returns the count, or -1 (out of memory). */
long ep_select(const struct asmspy_host_api *host, const struct asmspy_session *s,
               const struct ep_maps *maps, struct ep_candidate **out, uint64_t *capped,
               uint64_t *twice);

/* gcc's split-off parts (`foo.cold`, `foo.part.0`, `foo() [clone .cold]`):
 * not functions, never patched. */
int ep_is_fragment(const char *name);

/* What a managed runtime finds by its return address, never patched: V8's
 * embedded Builtins_* (JS frames), HotSpot's runtime entries in libjvm
 * (InterpreterRuntime::, SharedRuntime::, OptoRuntime::, ...: called from
 * Java code, their return address is the last Java frame's pc). The
 * reason, or NULL. */
const char *ep_runtime_unsafe(const char *name, const char *module);

/* setjmp, sigsetjmp, getcontext, swapcontext, ... (1) or vfork (2), with
 * or without @plt / @got; 0 for any other name. */
int ep_returns_twice(const char *name);

#endif
