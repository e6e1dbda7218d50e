/* select.c: the functions a call session patches (see select.h). */
#define _GNU_SOURCE
#include "plugins/entrypatch/select.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/choose.h"

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
  static const char *const glue[] = {"_start",
                                     "_init",
                                     "_fini",
                                     "__libc_csu_init",
                                     "__libc_csu_fini",
                                     "_dl_relocate_static_pie",
                                     "deregister_tm_clones",
                                     "register_tm_clones",
                                     "__do_global_dtors_aux",
                                     "frame_dummy",
                                     NULL};
  for (size_t i = 0; glue[i]; i++)
    if (strcmp(name, glue[i]) == 0) return 1;
  /* entered without a return address on the stack top (the signal
   * restorer, ld.so's lazy-binding trampoline), or under a convention that
   * keeps r11 (TLS descriptors): the stub may not touch them */
  static const char *const special[] = {"__restore_rt", "_dl_runtime_resolve*",
                                        "_dl_runtime_profile*", "_dl_tlsdesc_*",
                                        /* makecontext's trampoline: entered by
                                         * the coroutine function's ret */
                                        "__start_context", NULL};
  for (size_t i = 0; special[i]; i++)
    if (fnmatch(special[i], name, 0) == 0) return 1;
  return 0;
}

/* Functions that return twice save their own return address (setjmp keeps
 * it in the jmp_buf, a vfork child returns through the parent's frame),
 * and setcontext never returns but is of their family: hooking the return
 * would make the second return land in the return hook with no frame of
 * its own. They are traced entry only (AGENT_FN_NOEXIT: the entry recorded,
 * the return address never swapped), as uftrace's plthook setjmp/vfork
 * lists do. Matched with or without "@plt"/"@got". 2 for vfork (its hook
 * also marks the caller's slot: AGENT_FN_VFORK), 1 for the others. */
int ep_returns_twice(const char *name) {
  static const char *const twice[] = {"setjmp",      "_setjmp",      "__setjmp",    "sigsetjmp",
                                      "__sigsetjmp", "savectx",      "getcontext",  "__getcontext",
                                      "setcontext",  "__setcontext", "swapcontext", "__swapcontext",
                                      NULL};
  static const char *const vfork[] = {"vfork", "__vfork", "__libc_vfork", NULL};
  size_t n = strcspn(name, "@");
  for (size_t i = 0; vfork[i]; i++)
    if (strlen(vfork[i]) == n && strncmp(name, vfork[i], n) == 0) return 2;
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
  static const char *const walkers[] = {"_Unwind_RaiseException",    "_Unwind_ForcedUnwind",
                                        "_Unwind_Resume_or_Rethrow", "_Unwind_Resume",
                                        "_Unwind_Backtrace",         NULL};
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

/* Generated code of a managed runtime that lies in a file mapping: its
 * frames are walked by the runtime through their return addresses (a
 * hooked one points into the agent, where the runtime finds no code object
 * and aborts), so it is never patched, whatever was asked. The reason, or
 * NULL. */
const char *ep_runtime_unsafe(const char *name, const char *module) {
  /* V8's embedded builtins (node, libnode, chromium): JS frames. V8 maps
   * the pc of each frame to its builtin for safepoints, deoptimization and
   * exception handling; node died of SIGILL (a V8 CHECK) under --graph */
  if (!strncmp(name, "Builtins_", 9))
    return "a V8 embedded builtin (V8 walks its frames by their return addresses)";
  /* HotSpot's runtime entries, called straight from the interpreter, the
   * compiled code and the stubs (call_VM): the last Java frame's pc is
   * read from the slot under last_Java_sp, which is their return address;
   * hooked, frame::sender finds no code blob there and the JVM dies
   * (SIGSEGV in frame::sender, seen with java 17) */
  static const char *const hotspot[] = {"InterpreterRuntime::*",
                                        "SharedRuntime::*",
                                        "OptoRuntime::*",
                                        "Runtime1::*",
                                        "JVMCIRuntime::*",
                                        "*BarrierSetRuntime::*",
                                        "ShenandoahRuntime::*",
                                        "Deoptimization::*",
                                        "JvmtiExport::*",
                                        "BarrierSetNMethod::*",
                                        "SafepointSynchronize::*",
                                        "StubRoutines::*",
                                        "MacroAssembler::*",
                                        "JavaThread::check_special_condition*",
                                        NULL};
  if (module && !strncmp(module, "libjvm", 6))
    for (size_t i = 0; hotspot[i]; i++)
      if (fnmatch(hotspot[i], name, 0) == 0)
        return "a HotSpot runtime entry (the JVM reads the return address of a call from Java "
               "code)";
  return NULL;
}

/* A name matches a glob list as itself or, for a PLT stub or a GOT slot,
 * as the function it calls: "malloc" matches "malloc@plt" and "malloc@got". */
static int name_matches(const char *list, const char *name) {
  if (matches_any(list, name)) return 1;
  const char *at = strstr(name, "@plt");
  if (!at) at = strstr(name, "@got");
  if (!at || at[4]) return 0;
  char stem[256];
  size_t n = (size_t)(at - name);
  if (n >= sizeof stem) return 0;
  memcpy(stem, name, n);
  stem[n] = '\0';
  return matches_any(list, stem);
}

static int is_plt_stub(const char *name) {
  const char *at = strstr(name, "@plt");
  return at && !at[4];
}

/* `name@got`: the GOT slot of an imported function (host/symbols.c), data
 * that -fno-plt code calls through; planned by got.c, not as code. */
static int is_got_slot(const struct asmspy_symbol *sym) {
  const char *at = sym->name ? strstr(sym->name, "@got") : NULL;
  return at && !at[4] && sym->module && sym->kind != ASMSPY_SYM_JIT;
}

/* A symbol that can be code to be called: named, in a module, not JIT, in
 * an executable file mapping, not a fragment. */
static int usable(const struct ep_maps *maps, const struct asmspy_symbol *sym) {
  return sym->name && sym->module && sym->kind != ASMSPY_SYM_JIT &&
         in_exec_file(maps, sym->start, sym->size) && !ep_is_fragment(sym->name);
}

static int next_symbol(const struct asmspy_host_api *host, const struct asmspy_session *s, size_t i,
                       struct asmspy_symbol *sym) {
  memset(sym, 0, sizeof *sym);
  ASMSPY_INIT_HEADER(sym);
  return host->symbol_at(s->target, i, sym);
}

/* The module table: every module with a usable symbol, its function count. */
struct mod_table {
  struct ep_module *v;
  size_t n, cap;
};

static struct ep_module *mod_find(struct mod_table *t, const char *name) {
  /* symbols come module by module, mostly: the last one first */
  if (t->n && (t->v[t->n - 1].name == name || !strcmp(t->v[t->n - 1].name, name)))
    return &t->v[t->n - 1];
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].name == name || !strcmp(t->v[i].name, name)) return &t->v[i];
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 32;
    struct ep_module *nv = realloc(t->v, cap * sizeof *nv);
    if (!nv) return NULL;
    t->v = nv;
    t->cap = cap;
  }
  t->v[t->n] = (struct ep_module){name, 0, 0, EP_MOD_NO};
  return &t->v[t->n++];
}

/* Cap classes: what survives the cap first. */
enum { CLS_HOOK = 0, CLS_ASKED_NAME, CLS_EXE_PLT, CLS_EXE, CLS_MODULE, CLS_AUTO };

struct pick {
  struct ep_candidate c;
  uint32_t cls;
  uint32_t keep;
};

static int by_rank(const void *x, const void *y) {
  const struct pick *a = *(const struct pick *const *)x, *b = *(const struct pick *const *)y;
  if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
  if (a->c.size != b->c.size) return a->c.size > b->c.size ? -1 : 1; /* larger first */
  return a->c.addr < b->c.addr ? -1 : a->c.addr > b->c.addr;
}

/* What the session asks for (-m, -F, -N, --patch, --max-funcs); an empty
 * list is no list. */
struct ask {
  const char *module, *inc, *exc, *only;
  int asked_cap;
};

static void read_ask(const struct asmspy_session *s, struct ask *a) {
  a->module = ASMSPY_HAS(s, call_module) ? s->call_module : NULL;
  a->inc = ASMSPY_HAS(s, call_include) ? s->call_include : NULL;
  a->exc = ASMSPY_HAS(s, call_exclude) ? s->call_exclude : NULL;
  a->only = ASMSPY_HAS(s, call_patch) ? s->call_patch : NULL;
  if (a->inc && !*a->inc) a->inc = NULL;
  if (a->exc && !*a->exc) a->exc = NULL;
  if (a->only && !*a->only) a->only = NULL;
  a->asked_cap = ASMSPY_HAS(s, call_max_funcs) && s->call_max_funcs;
}

/* 1. the modules, and how much code each holds: choose.c weighs them by
 * their function count. -1 when out of memory (the table freed). */
static int count_modules(const struct asmspy_host_api *host, const struct asmspy_session *s,
                         const struct ep_maps *maps, const char *exe, struct mod_table *mt) {
  for (size_t i = 0;; i++) {
    struct asmspy_symbol sym;
    if (next_symbol(host, s, i, &sym) != 0) break;
    if (!usable(maps, &sym)) continue;
    struct ep_module *m = mod_find(mt, sym.module);
    if (!m) {
      free(mt->v);
      return -1;
    }
    m->is_exe = !strcmp(sym.module, exe);
    if (!is_plt_stub(sym.name) && !never_patched(sym.name) && sym.name[0] != '.') m->funcs++;
  }
  return 0;
}

/* The cap on patched functions: asked, or larger when an interpreter
 * library is in (all the agent takes, see select.h), always leaving room
 * for the unwinder hooks. */
static uint32_t function_cap(const struct asmspy_session *s, const struct ask *a,
                             const struct mod_table *mt) {
  int any_auto = 0;
  for (size_t i = 0; i < mt->n; i++)
    any_auto |= mt->v[i].chosen == EP_MOD_AUTO ||
                (mt->v[i].chosen == EP_MOD_ASKED && ep_interpreter_lib(mt->v[i].name));
  uint32_t cap = a->asked_cap ? s->call_max_funcs : any_auto ? EP_INTERP_MAX : EP_DEFAULT_MAX;
  if (cap > AGENT_MAX_FUNCS - 8) cap = AGENT_MAX_FUNCS - 8; /* room for the unwinder hooks */
  return cap;
}

/* The candidates so far, and what was never patched (for the note). */
struct pick_list {
  struct pick *v;
  size_t n, vcap, nfuncs, nunsafe;
  const char *unsafe_why, *unsafe_eg;
};

/* An ordinary function's cap class and agent kind (kind in/out), or -1
 * when it is not patched: not asked for, in no chosen module, or runtime
 * code that must never be (counted in l for the note). */
static int classify_call(const struct asmspy_symbol *sym, int got, const struct ask *a,
                         struct mod_table *mt, struct pick_list *l, uint32_t *kind,
                         uint64_t *twice) {
  uint32_t cls;
  /* ".plt" (PLT0) and other section-named stubs are jumped into with a
   * relocation index on the stack, never called: not functions */
  if (never_patched(sym->name) || sym->name[0] == '.') return -1;
  struct ep_module *m = mod_find(mt, sym->module);
  int chosen = m && m->chosen != EP_MOD_NO;
  /* -F / -N: the view needs their entries, wherever they are */
  int named =
      (a->inc && name_matches(a->inc, sym->name)) || (a->exc && name_matches(a->exc, sym->name));
  if (named)
    cls = CLS_ASKED_NAME;
  else if (!chosen || (a->only && !name_matches(a->only, sym->name)))
    return -1;
  else if (a->only)
    cls = CLS_ASKED_NAME;
  else if (m->chosen == EP_MOD_EXE)
    cls = is_plt_stub(sym->name) || got ? CLS_EXE_PLT : CLS_EXE;
  else
    cls = m->chosen == EP_MOD_ASKED ? CLS_MODULE : CLS_AUTO;
  const char *unsafe = ep_runtime_unsafe(sym->name, sym->module);
  if (unsafe) {
    if (!l->nunsafe++) {
      l->unsafe_why = unsafe;
      l->unsafe_eg = sym->name;
    }
    return -1;
  }
  l->nfuncs++;
  /* returns twice: entry only (vfork's also marks the caller's slot) */
  int twice_kind = ep_returns_twice(sym->name);
  if (twice_kind) {
    (*twice)++;
    *kind = (twice_kind == 2 ? AGENT_FN_VFORK : AGENT_FN_CALL) | AGENT_FN_NOEXIT;
  }
  if (got) *kind |= AGENT_FN_GOT;
  return (int)cls;
}

/* 2. the candidates, in address order: the unwinder hooks whatever was
 * asked (CLS_HOOK), then every function classify_call keeps. -1 when out
 * of memory (l->v freed). */
static int collect_candidates(const struct asmspy_host_api *host, const struct asmspy_session *s,
                              const struct ep_maps *maps, const struct ask *a, struct mod_table *mt,
                              struct pick_list *l, uint64_t *twice) {
  uint64_t last = 0;
  for (size_t i = 0;; i++) {
    struct asmspy_symbol sym;
    if (next_symbol(host, s, i, &sym) != 0) break;
    int got = is_got_slot(&sym);
    if ((!got && !usable(maps, &sym)) || sym.start == last) continue;
    uint32_t kind = got ? AGENT_FN_CALL : unwinder_hook(sym.name), cls = CLS_HOOK;
    if (kind == AGENT_FN_CALL) {
      int c = classify_call(&sym, got, a, mt, l, &kind, twice);
      if (c < 0) continue;
      cls = (uint32_t)c;
    }
    if (l->n == l->vcap) {
      l->vcap = l->vcap ? l->vcap * 2 : 256;
      struct pick *nv = realloc(l->v, l->vcap * sizeof *nv);
      if (!nv) {
        free(l->v);
        return -1;
      }
      l->v = nv;
    }
    l->v[l->n++] = (struct pick){{sym.start, sym.size, sym.name, sym.module, kind}, cls, 1};
    last = sym.start;
  }
  return 0;
}

/* 3. the cap: by class, then the larger functions (uftrace's
 * --size-filter): the tiny ones are the accessors called most often and
 * telling least. *min_size: the smallest kept. -1 when out of memory. */
static int apply_cap(struct pick_list *l, uint32_t cap, uint64_t *capped, uint64_t *min_size) {
  *min_size = 0;
  if (l->nfuncs <= cap) return 0;
  struct pick **rank = malloc(l->n * sizeof *rank);
  if (!rank) return -1;
  for (size_t i = 0; i < l->n; i++) rank[i] = &l->v[i];
  qsort(rank, l->n, sizeof *rank, by_rank);
  uint32_t kept = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (rank[i]->cls == CLS_HOOK) continue;
    if (kept < cap) {
      kept++;
      *min_size = rank[i]->c.size;
    } else {
      rank[i]->keep = 0;
      (*capped)++;
    }
  }
  free(rank);
  return 0;
}

/* The one line that says which modules were chosen and why, what -F/-N
 * added, what was never patched and what the cap dropped. */
static void note_choice(const struct asmspy_host_api *host, const struct asmspy_session *s,
                        const struct ask *a, const char *why, const struct pick_list *l,
                        uint32_t cap, uint64_t capped, uint64_t min_size) {
  if (!host->note || !s->out) return;
  char extra[320] = "";
  if (a->inc || a->exc)
    snprintf(extra, sizeof extra, "; plus what -F/-N name anywhere (%s%s%s)", a->inc ? a->inc : "",
             a->inc && a->exc ? "," : "", a->exc ? a->exc : "");
  if (l->nunsafe) {
    size_t n = strlen(extra);
    snprintf(extra + n, sizeof extra - n, "; never %zu: %s, e.g. %s", l->nunsafe, l->unsafe_why,
             l->unsafe_eg);
  }
  if (capped) {
    size_t n = strlen(extra);
    snprintf(extra + n, sizeof extra - n, "; over the cap of %u, kept those >= %llu bytes", cap,
             (unsigned long long)min_size);
  }
  host->note(s->out, ASMSPY_NOTE_INFO, "entrypatch: %s %s%s",
             a->only ? "patching only --patch matches in" : "patching", why, extra);
}

long ep_select(const struct asmspy_host_api *host, const struct asmspy_session *s,
               const struct ep_maps *maps, struct ep_candidate **out, uint64_t *capped,
               uint64_t *twice) {
  char exe[256];
  main_module(s->pid, exe, sizeof exe);
  struct ask a;
  read_ask(s, &a);
  *out = NULL;
  *capped = 0;
  *twice = 0;

  struct mod_table mt = {0};
  if (count_modules(host, s, maps, exe, &mt) != 0) return -1;
  char why[1024];
  ep_choose_modules(s->pid, mt.v, mt.n, a.module, why, sizeof why);
  uint32_t cap = function_cap(s, &a, &mt);

  struct pick_list l = {0};
  if (collect_candidates(host, s, maps, &a, &mt, &l, twice) != 0) {
    free(mt.v);
    return -1;
  }
  uint64_t min_size;
  struct ep_candidate *res = NULL;
  if (apply_cap(&l, cap, capped, &min_size) == 0) res = malloc((l.n ? l.n : 1) * sizeof *res);
  if (!res) {
    free(l.v);
    free(mt.v);
    return -1;
  }
  size_t k = 0;
  for (size_t i = 0; i < l.n; i++)
    if (l.v[i].keep) res[k++] = l.v[i].c;
  free(l.v);
  free(mt.v);
  note_choice(host, s, &a, why, &l, cap, *capped, min_size);
  *out = res;
  return (long)k;
}
