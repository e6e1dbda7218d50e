/* asmspy_lua: scoped tracing for Lua 5.4, a thin C module over libasmspy's
 * asmspy/scope.h (Lua has no FFI, so this is the binding's only layer).
 *
 *   local asmspy = require "asmspy_lua"
 *   local tr = asmspy.HwTrace{ quiet = true }         -- HwBackend.Auto
 *   local work = asmspy.native("./libscope_victim.so", "work")
 *   local t, r = tr:scope(work, function() return work:call(3) end)
 *   print(t.insn_count, t.tier, t.path, r)
 *
 * tr:scope(code, fn, ...) begins a scope, calls fn(...) under pcall (a
 * continuation pcall: fn may yield when the scope runs in a coroutine),
 * ends the scope whether fn returned or raised, then either returns the
 * scope followed by fn's results, or re-raises fn's error unchanged.
 * code: nil = the whole window (the Lua VM included: faithful but noisy),
 * a native object or an integer address = the extent of the symbol covering
 * it, { addr, len } = exactly that range. Auto-named "file:line" from the
 * caller (the C equivalent of debug.getinfo(2, "Sl")).
 *
 * asmspy.native(libpath, symbol) is a TEST/EXAMPLE helper, not part of the
 * tracing surface: dlopen + dlsym, :addr() gives the address, :call(n)
 * calls it as `long f(long)`. Lua has no FFI to reach native code otherwise.
 */
#define _GNU_SOURCE
#include <asmspy/scope.h>

#include <lauxlib.h>
#include <lua.h>

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define SCOPE_MT "asmspy.Scope"
#define TRACE_MT "asmspy.HwTrace"
#define NATIVE_MT "asmspy.native"

/* ---- the scope object ----------------------------------------------------
 * A full userdata holding the native handle while open; one user value, the
 * results table, filled by finish (after which the handle is freed). */
typedef struct {
  asmspy_scope *s;
  int finished;
} lscope;

typedef struct {
  unsigned flags;
  int backend;
} ltrace;

typedef struct {
  void *lib;
  void *addr;
} lnative;

static void set_str(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v ? v : "");
  lua_setfield(L, -2, k);
}

/* End the scope (if open), read every result into the user value, free the
 * handle. Idempotent. idx: the scope userdata. */
static void finish_scope(lua_State *L, int idx, lscope *ls) {
  if (ls->finished) return;
  ls->finished = 1;
  asmspy_scope *s = ls->s;
  ls->s = NULL;
  if (s) asmspy_scope_end(s); /* first: the capture stops here */
  idx = lua_absindex(L, idx);
  lua_getiuservalue(L, idx, 1);
  if (s) {
    set_str(L, "text", asmspy_scope_text(s));
    set_str(L, "path", asmspy_scope_path(s));
    set_str(L, "tier", asmspy_scope_tier(s));
    set_str(L, "reason", asmspy_scope_reason(s));
    set_str(L, "name", asmspy_scope_name(s));
    lua_pushinteger(L, (lua_Integer)asmspy_scope_insn_count(s));
    lua_setfield(L, -2, "insn_count");
    lua_pushboolean(L, asmspy_scope_truncated(s));
    lua_setfield(L, -2, "truncated");
    lua_pushinteger(L, (lua_Integer)asmspy_scope_gaps(s));
    lua_setfield(L, -2, "gaps");
    asmspy_scope_free(s);
  } else { /* begin returned NULL (out of memory): a recorded no-op */
    set_str(L, "tier", "NONE");
    set_str(L, "reason", "asmspy_scope_begin returned NULL (out of memory)");
    set_str(L, "text", "");
    set_str(L, "path", "");
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "insn_count");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "truncated");
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "gaps");
  }
  lua_pop(L, 1);
}

static int scope_finish(lua_State *L) {
  lscope *ls = luaL_checkudata(L, 1, SCOPE_MT);
  finish_scope(L, 1, ls);
  lua_settop(L, 1);
  return 1;
}

static int scope_finished(lua_State *L) {
  lscope *ls = luaL_checkudata(L, 1, SCOPE_MT);
  lua_pushboolean(L, ls->finished);
  return 1;
}

/* s.field: a method, else a result (nil until finished). */
static int scope_index(lua_State *L) {
  luaL_checkudata(L, 1, SCOPE_MT);
  luaL_getmetatable(L, SCOPE_MT);
  lua_getfield(L, -1, "__methods");
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 1;
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int scope_tostring(lua_State *L) {
  lscope *ls = luaL_checkudata(L, 1, SCOPE_MT);
  if (!ls->finished) {
    lua_pushstring(L, "asmspy.Scope (open)");
    return 1;
  }
  lua_getiuservalue(L, 1, 1);
  lua_getfield(L, -1, "name");
  lua_getfield(L, -2, "insn_count");
  lua_getfield(L, -3, "tier");
  lua_getfield(L, -4, "truncated");
  lua_pushfstring(L, "asmspy.Scope %s: %I insns, tier %s%s", lua_tostring(L, -4),
                  (LUAI_UACINT)lua_tointeger(L, -3), lua_tostring(L, -2),
                  lua_toboolean(L, -1) ? " TRUNCATED" : "");
  return 1;
}

/* A scope never finished (a forgotten tr:start()): end it at collection so
 * the handle is not leaked. On the thread that runs the collector: if that
 * is not the arming thread the core reports the hop, as for any end. */
static int scope_gc(lua_State *L) {
  lscope *ls = luaL_checkudata(L, 1, SCOPE_MT);
  if (ls->s) {
    asmspy_scope_end(ls->s);
    asmspy_scope_free(ls->s);
    ls->s = NULL;
  }
  ls->finished = 1;
  return 0;
}

/* ---- code argument -> (addr, len) ---------------------------------------- */
static void code_range(lua_State *L, int idx, const void **addr, size_t *len) {
  *addr = NULL;
  *len = 0;
  switch (lua_type(L, idx)) {
  case LUA_TNONE:
  case LUA_TNIL: return;
  case LUA_TNUMBER: *addr = (const void *)(uintptr_t)luaL_checkinteger(L, idx); return;
  case LUA_TTABLE:
    lua_geti(L, idx, 1);
    lua_geti(L, idx, 2);
    if (lua_type(L, -2) == LUA_TUSERDATA) {
      lnative *n = luaL_checkudata(L, -2, NATIVE_MT);
      *addr = n->addr;
    } else {
      *addr = (const void *)(uintptr_t)luaL_checkinteger(L, -2);
    }
    *len = (size_t)luaL_checkinteger(L, -1);
    lua_pop(L, 2);
    return;
  case LUA_TUSERDATA: {
    lnative *n = luaL_checkudata(L, idx, NATIVE_MT);
    *addr = n->addr;
    return;
  }
  default: luaL_argerror(L, idx, "code must be nil, an address, a native object or { addr, len }");
  }
}

/* The caller's "file:line" (level 1 from this C function = the Lua code
 * that called tr:scope, i.e. debug.getinfo(2, "Sl") seen from Lua). */
static void push_caller_name(lua_State *L) {
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
    const char *src = ar.source && ar.source[0] == '@' ? ar.source + 1 : ar.short_src;
    lua_pushfstring(L, "%s:%d", src, ar.currentline);
  } else {
    lua_pushliteral(L, "lua:?");
  }
}

/* Allocate the scope userdata (+ its results table) and begin. Everything
 * that allocates happens BEFORE asmspy_scope_begin: between begin and end
 * only the caller's work and the minimum of Lua VM glue run. Pushes the
 * scope. */
static lscope *begin_scope(lua_State *L, ltrace *tr, int code_idx, unsigned extra,
                           const char *name) {
  const void *addr;
  size_t len;
  code_range(L, code_idx, &addr, &len);
  lscope *ls = lua_newuserdatauv(L, sizeof *ls, 1);
  ls->s = NULL;
  ls->finished = 0;
  lua_newtable(L);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "name");
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, SCOPE_MT);
  ls->s = asmspy_scope_begin(name, addr, len, tr->flags | extra);
  return ls;
}

/* tr:start(code [, name]) -> scope: the non-callback form; s:finish() ends
 * it. For ending a scope elsewhere (a coroutine resumed later); prefer
 * tr:scope, which cannot forget to finish. */
static int trace_start(lua_State *L) {
  ltrace *tr = luaL_checkudata(L, 1, TRACE_MT);
  if (lua_isnoneornil(L, 3))
    push_caller_name(L);
  else
    lua_pushstring(L, luaL_checkstring(L, 3));
  const char *name = lua_tostring(L, -1);
  begin_scope(L, tr, 2, 0, name);
  return 1;
}

/* Continuation of tr:scope: fn returned (LUA_OK / LUA_YIELD after a resume)
 * or raised. Stack: [1]=tr [2]=code [3]=fn [4..n]=args... replaced by
 * [ctx]=scope, then fn's results or the error object. */
static int scope_k(lua_State *L, int status, lua_KContext ctx) {
  int sidx = (int)ctx;
  lscope *ls = lua_touserdata(L, sidx);
  finish_scope(L, sidx, ls);
  if (status != LUA_OK && status != LUA_YIELD) return lua_error(L); /* re-raise as is */
  int nres = lua_gettop(L) - sidx;
  lua_pushvalue(L, sidx);
  lua_rotate(L, sidx + 1, 1); /* scope first, then fn's results */
  return nres + 1;
}

/* tr:scope(code, fn, ...) -> scope, fn(...)'s results */
static int trace_scope(lua_State *L) {
  ltrace *tr = luaL_checkudata(L, 1, TRACE_MT);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  int nargs = lua_gettop(L) - 3;
  push_caller_name(L);
  const char *name = lua_tostring(L, -1);
  /* stack: tr code fn args... name -> keep the name below the scope */
  lscope *ls = begin_scope(L, tr, 2, 0, name);
  (void)ls;
  int sidx = lua_gettop(L);
  lua_pushvalue(L, 3);
  for (int i = 0; i < nargs; i++) lua_pushvalue(L, 4 + i);
  int st = lua_pcallk(L, nargs, LUA_MULTRET, 0, (lua_KContext)sidx, scope_k);
  return scope_k(L, st, (lua_KContext)sidx);
}

static int new_trace(lua_State *L);

/* HwTrace(...) through the table's __call: drop the table itself */
static int trace_call(lua_State *L) {
  lua_remove(L, 1);
  return new_trace(L);
}

static int trace_tostring(lua_State *L) {
  ltrace *tr = luaL_checkudata(L, 1, TRACE_MT);
  lua_pushfstring(L, "asmspy.HwTrace(flags %d)", (int)tr->flags);
  return 1;
}

/* asmspy.HwTrace([backend | { backend = , quiet = , flags = }]) */
static int new_trace(lua_State *L) {
  unsigned flags = 0;
  int backend = 0;
  const int i = 1;
  if (lua_type(L, i) == LUA_TNUMBER) {
    backend = (int)lua_tointeger(L, i);
  } else if (lua_type(L, i) == LUA_TTABLE) {
    lua_getfield(L, i, "backend");
    backend = (int)luaL_optinteger(L, -1, 0);
    lua_getfield(L, i, "quiet");
    if (lua_toboolean(L, -1)) flags |= ASMSPY_SCOPE_QUIET;
    lua_getfield(L, i, "flags");
    flags |= (unsigned)luaL_optinteger(L, -1, 0);
    lua_pop(L, 3);
  }
  ltrace *tr = lua_newuserdatauv(L, sizeof *tr, 0);
  tr->backend = backend;
  tr->flags = flags | (unsigned)backend;
  luaL_setmetatable(L, TRACE_MT);
  return 1;
}

/* ---- asmspy.native: the test/example helper ------------------------------ */
static int native_new(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  const char *sym = luaL_checkstring(L, 2);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return luaL_error(L, "asmspy.native: %s", dlerror());
  void *addr = dlsym(lib, sym);
  if (!addr) {
    const char *e = dlerror();
    lua_pushfstring(L, "asmspy.native: %s: %s", sym, e ? e : "not found");
    dlclose(lib);
    return lua_error(L);
  }
  lnative *n = lua_newuserdatauv(L, sizeof *n, 0);
  n->lib = lib; /* kept open for the process: the address must stay valid */
  n->addr = addr;
  luaL_setmetatable(L, NATIVE_MT);
  return 1;
}

static int native_addr(lua_State *L) {
  lnative *n = luaL_checkudata(L, 1, NATIVE_MT);
  lua_pushinteger(L, (lua_Integer)(uintptr_t)n->addr);
  return 1;
}

static int native_call(lua_State *L) {
  lnative *n = luaL_checkudata(L, 1, NATIVE_MT);
  long (*f)(long);
  void *a = n->addr;
  memcpy(&f, &a, sizeof f);
  lua_pushinteger(L, (lua_Integer)f((long)luaL_checkinteger(L, 2)));
  return 1;
}

/* asmspy.monotonic(): CLOCK_MONOTONIC seconds (a float). A test helper:
 * standard Lua has only os.clock (CPU time) and os.time (whole seconds). */
static int monotonic(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec / 1e9);
  return 1;
}

static const luaL_Reg scope_methods[] = {
    {"finish", scope_finish}, {"close", scope_finish}, {"finished", scope_finished}, {NULL, NULL}};
static const luaL_Reg trace_methods[] = {
    {"scope", trace_scope}, {"start", trace_start}, {NULL, NULL}};
static const luaL_Reg native_methods[] = {
    {"addr", native_addr}, {"call", native_call}, {NULL, NULL}};

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static int open_module(lua_State *L) {
  /* Scope */
  luaL_newmetatable(L, SCOPE_MT);
  luaL_newlib(L, scope_methods);
  lua_setfield(L, -2, "__methods");
  lua_pushcfunction(L, scope_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, scope_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, scope_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  /* HwTrace objects */
  luaL_newmetatable(L, TRACE_MT);
  luaL_newlib(L, trace_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, trace_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  /* native */
  luaL_newmetatable(L, NATIVE_MT);
  luaL_newlib(L, native_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  lua_newtable(L);
  /* flag values mirror include/asmspy/scope.h */
  set_int(L, "QUIET", ASMSPY_SCOPE_QUIET);
  set_int(L, "STRONG", ASMSPY_SCOPE_STRONG);
  set_int(L, "CEILING", ASMSPY_SCOPE_CEILING);
  set_int(L, "INTEL_PT", ASMSPY_SCOPE_INTEL_PT);
  set_int(L, "AMD_LBR", ASMSPY_SCOPE_AMD_LBR);
  lua_newtable(L); /* HwBackend */
  set_int(L, "Auto", 0);
  set_int(L, "IntelPt", ASMSPY_SCOPE_STRONG);
  set_int(L, "AmdLbr", ASMSPY_SCOPE_CEILING);
  lua_setfield(L, -2, "HwBackend");
  /* HwTrace: callable table, HwTrace(...) and HwTrace.new(...) */
  lua_newtable(L);
  lua_pushcfunction(L, new_trace);
  lua_setfield(L, -2, "new");
  lua_newtable(L);
  lua_pushcfunction(L, trace_call);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "HwTrace");
  lua_pushcfunction(L, native_new);
  lua_setfield(L, -2, "native");
  lua_pushcfunction(L, monotonic);
  lua_setfield(L, -2, "monotonic");
  lua_pushcfunction(L, new_trace); /* asmspy.trace(...) = HwTrace(...) */
  lua_setfield(L, -2, "trace");
  return 1;
}

/* require "asmspy_lua" (the built file), or "asmspy" if installed under that name */
LUALIB_API int luaopen_asmspy_lua(lua_State *L) { return open_module(L); }
LUALIB_API int luaopen_asmspy(lua_State *L) { return open_module(L); }
