/* select.c: the functions a call session patches (see select.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/select.h"
#include "plugins/entrypatch/agent_layout.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fnmatch against each comma-separated pattern of list. */
static int matches_any(const char *list, const char *name) {
  char pat[256];
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n && n < sizeof pat) {
      memcpy(pat, p, n);
      pat[n] = '\0';
      if (fnmatch(pat, name, 0) == 0) return 1;
    }
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

static int never_patched(const char *name) {
  static const char *const glue[] = {"_start", "_init", "_fini", "__libc_csu_init",
                                     "__libc_csu_fini", "_dl_relocate_static_pie",
                                     "deregister_tm_clones", "register_tm_clones",
                                     "__do_global_dtors_aux", "frame_dummy", NULL};
  for (size_t i = 0; glue[i]; i++)
    if (strcmp(name, glue[i]) == 0) return 1;
  /* entered without a return address on the stack top (the signal
   * restorer, ld.so's lazy-binding trampoline), or under a convention that
   * keeps r11 (TLS descriptors): the stub may not touch them */
  static const char *const special[] = {"__restore_rt", "_dl_runtime_resolve*",
                                        "_dl_runtime_profile*", "_dl_tlsdesc_*", NULL};
  for (size_t i = 0; special[i]; i++)
    if (fnmatch(special[i], name, 0) == 0) return 1;
  return 0;
}

/* Functions that return twice save their own return address (setjmp keeps
 * it in the jmp_buf, a vfork child returns through the parent's frame):
 * hooking it would make the second return land in the return hook with no
 * frame of its own. Matched with or without "@plt". */
int ep_returns_twice(const char *name) {
  static const char *const twice[] = {"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp",
                                      "savectx", "getcontext", "__getcontext", "setcontext",
                                      "__setcontext", "swapcontext", "__swapcontext",
                                      "__start_context", "vfork", "__vfork", "__libc_vfork",
                                      NULL};
  size_t n = strcspn(name, "@");
  for (size_t i = 0; twice[i]; i++)
    if (strlen(twice[i]) == n && strncmp(name, twice[i], n) == 0) return 1;
  return 0;
}

/* gcc's split-off parts of a function: `foo.cold`, `foo.cold.0`,
 * `foo.part.0`, demangled `foo() [clone .cold]` / `[clone .part.0]` (the
 * host shows C++ names demangled). A .cold part is only jumped to from its
 * function or entered by the unwinder as a landing pad; patched, each entry
 * counts as a fake call and a landing pad's frame is not a frame. A .part is
 * the outlined body partial inlining leaves: its function's inlined head
 * enters it, often by a jump. Neither is a function of the program. */
int ep_is_fragment(const char *name) {
  static const char *const parts[] = {".cold", ".part", NULL};
  for (size_t i = 0; parts[i]; i++) {
    size_t n = strlen(parts[i]);
    for (const char *at = strstr(name, parts[i]); at; at = strstr(at + 1, parts[i])) {
      char next = at[n];
      if (at != name && (next == '\0' || next == '.' || next == ']' || next == ' ' || next == '@'))
        return 1;
    }
  }
  return 0;
}

static uint32_t unwinder_hook(const char *name) {
  /* every entry into libgcc's unwinder that walks the stack */
  static const char *const walkers[] = {"_Unwind_RaiseException", "_Unwind_ForcedUnwind",
                                        "_Unwind_Resume_or_Rethrow", "_Unwind_Resume",
                                        "_Unwind_Backtrace", NULL};
  for (size_t i = 0; walkers[i]; i++)
    if (!strcmp(name, walkers[i])) return AGENT_FN_UNWIND_RAISE;
  if (!strcmp(name, "__cxa_begin_catch")) return AGENT_FN_CATCH;
  return AGENT_FN_CALL;
}

/* The main executable's basename, from /proc/<pid>/exe. */
static void main_module(pid_t pid, char *out, size_t cap) {
  char path[64], buf[PATH_MAX];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, buf, sizeof buf - 1);
  out[0] = '\0';
  if (n <= 0) return;
  buf[n] = '\0';
  const char *slash = strrchr(buf, '/');
  const char *base = slash ? slash + 1 : buf;
  size_t len = strlen(base);
  if (len >= cap) len = cap - 1;
  memcpy(out, base, len);
  out[len] = '\0';
}

/* A symbol's first bytes lie in an executable mapping of a file: not a
 * symbol of a file mapped only to be read (a .debug file a Rust backtrace
 * maps; its addresses are data), nor of anonymous memory. */
static int in_exec_file(const struct ep_maps *maps, uint64_t addr, uint64_t size) {
  if (!maps) return 1;
  const struct ep_mapping *g = ep_maps_find(maps, addr);
  uint64_t head = size < 5 ? size : 5;
  return g && ep_mapping_is_exec_file(g) && addr + head <= g->hi;
}

long ep_select(const struct asmspy_host_api *host, const struct asmspy_session *s,
               const struct ep_maps *maps, struct ep_candidate **out, uint64_t *capped,
               uint64_t *twice) {
  char exe[256];
  main_module(s->pid, exe, sizeof exe);
  const char *module = ASMSPY_HAS(s, call_module) ? s->call_module : NULL;
  const char *inc = ASMSPY_HAS(s, call_include) ? s->call_include : NULL;
  const char *exc = ASMSPY_HAS(s, call_exclude) ? s->call_exclude : NULL;
  uint32_t cap = ASMSPY_HAS(s, call_max_funcs) && s->call_max_funcs ? s->call_max_funcs
                                                                     : EP_DEFAULT_MAX;
  if (cap > AGENT_MAX_FUNCS - 8) cap = AGENT_MAX_FUNCS - 8; /* room for the unwinder hooks */
  struct ep_candidate *v = NULL;
  size_t n = 0, vcap = 0;
  uint32_t chosen = 0;
  *capped = 0;
  *twice = 0;
  uint64_t last = 0;
  for (size_t i = 0;; i++) {
    struct asmspy_symbol sym;
    memset(&sym, 0, sizeof sym);
    ASMSPY_INIT_HEADER(&sym);
    if (host->symbol_at(s->target, i, &sym) != 0) break;
    if (!sym.name || !sym.module || sym.kind == ASMSPY_SYM_JIT || sym.start == last) continue;
    /* what is not code to be called is never a candidate, not even an
     * unwinder hook */
    if (!in_exec_file(maps, sym.start, sym.size) || ep_is_fragment(sym.name)) continue;
    uint32_t kind = unwinder_hook(sym.name);
    if (kind == AGENT_FN_CALL) {
      int in_module = strcmp(sym.module, exe) == 0 || (module && strstr(sym.module, module));
      /* ".plt" (PLT0) and other section-named stubs are jumped into with a
       * relocation index on the stack, never called: not functions */
      if (!in_module || never_patched(sym.name) || sym.name[0] == '.') continue;
      if (ep_returns_twice(sym.name)) {
        (*twice)++;
        continue;
      }
      if (inc && *inc && !matches_any(inc, sym.name)) continue;
      if (exc && *exc && matches_any(exc, sym.name)) continue;
      if (chosen >= cap) {
        (*capped)++;
        continue;
      }
      chosen++;
    }
    if (n == vcap) {
      vcap = vcap ? vcap * 2 : 256;
      struct ep_candidate *nv = realloc(v, vcap * sizeof *nv);
      if (!nv) {
        free(v);
        return -1;
      }
      v = nv;
    }
    v[n++] = (struct ep_candidate){sym.start, sym.size, sym.name, sym.module, kind};
    last = sym.start;
  }
  *out = v;
  return (long)n;
}
