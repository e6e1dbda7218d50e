/* asmspy_node: the Node-API addon under bindings/node/index.js. A thin
 * shim over <asmspy/scope.h>: libasmspy is dlopen'ed at first use
 * ($ASMSPY_LIB, else libasmspy.so.0 / libasmspy.so through the loader), so
 * the addon builds against node's own headers only (no node-gyp, no npm
 * package) and a missing libasmspy is a recorded no-op, not a load failure.
 *
 * Also three small FFI helpers so JavaScript can reach native code without
 * a registry package: dlopen(path), dlsym(handle, name) and callLong(addr, x)
 * (calls `long f(long)` at addr) — the tests and the example call work() and
 * helper() of libscope_victim.so through them.
 *
 * Handles cross into JavaScript as BigInt. Module state is process-wide and
 * read-only after the pthread_once below, so the addon is safe to load in
 * several worker_threads (NAPI_MODULE_INIT: one init per environment). */
#define NAPI_VERSION 8
#define _GNU_SOURCE /* dladdr: the shim finds libasmspy beside itself */
#include <node_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asmspy_scope_loader.h"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != napi_ok) {                                                                       \
      napi_throw_error(env, NULL, "asmspy_node: " #call " failed");                                \
      return NULL;                                                                                 \
    }                                                                                              \
  } while (0)

static napi_value str(napi_env env, const char *s) {
  napi_value v;
  if (napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &v) != napi_ok) return NULL;
  return v;
}

static napi_value big(napi_env env, uint64_t x) {
  napi_value v;
  if (napi_create_bigint_uint64(env, x, &v) != napi_ok) return NULL;
  return v;
}

/* A BigInt or a Number argument as uint64 (addresses, lengths, handles). */
static int arg_u64(napi_env env, napi_value v, uint64_t *out) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok) return -1;
  if (t == napi_bigint) {
    bool lossless;
    return napi_get_value_bigint_uint64(env, v, out, &lossless) == napi_ok ? 0 : -1;
  }
  if (t == napi_number) {
    int64_t x;
    if (napi_get_value_int64(env, v, &x) != napi_ok) return -1;
    *out = (uint64_t)x;
    return 0;
  }
  if (t == napi_undefined || t == napi_null) {
    *out = 0;
    return 0;
  }
  return -1;
}

/* loadStatus() -> { loaded: bool, from: string, error: string } */
static napi_value load_status(napi_env env, napi_callback_info info) {
  (void)info;
  pthread_once(&g_once, load_lib);
  napi_value o, b;
  CHECK(napi_create_object(env, &o));
  CHECK(napi_get_boolean(env, g.begin != NULL, &b));
  CHECK(napi_set_named_property(env, o, "loaded", b));
  CHECK(napi_set_named_property(env, o, "from", str(env, g.loaded_from)));
  CHECK(napi_set_named_property(env, o, "error", str(env, g.error)));
  return o;
}

/* begin(name, addr, len, flags) -> BigInt handle (0n: libasmspy not loaded). */
static napi_value begin(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  pthread_once(&g_once, load_lib);
  if (argc < 4) {
    napi_throw_type_error(env, NULL, "begin(name, addr, len, flags)");
    return NULL;
  }
  char name[1024];
  size_t nlen;
  uint64_t addr, len, flags;
  CHECK(napi_get_value_string_utf8(env, argv[0], name, sizeof name, &nlen));
  if (arg_u64(env, argv[1], &addr) || arg_u64(env, argv[2], &len) ||
      arg_u64(env, argv[3], &flags)) {
    napi_throw_type_error(env, NULL, "begin: addr/len/flags must be BigInt or Number");
    return NULL;
  }
  if (!g.begin) return big(env, 0);
  void *s = g.begin(name, (const void *)(uintptr_t)addr, (size_t)len, (unsigned)flags);
  return big(env, (uint64_t)(uintptr_t)s);
}

/* end(handle) -> { rc, text, path, insnCount, truncated, gaps, tier, reason,
 * name }; ends (idempotent in the core) and frees the scope. */
static napi_value end(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint64_t h;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || arg_u64(env, argv[0], &h) || !h || !g.begin) {
    napi_throw_type_error(env, NULL, "end(handle): not a live scope handle");
    return NULL;
  }
  void *s = (void *)(uintptr_t)h;
  int rc = g.end(s);
  napi_value o, v;
  CHECK(napi_create_object(env, &o));
  CHECK(napi_create_int32(env, rc, &v));
  CHECK(napi_set_named_property(env, o, "rc", v));
  CHECK(napi_set_named_property(env, o, "text", str(env, g.text(s))));
  CHECK(napi_set_named_property(env, o, "path", str(env, g.path(s))));
  CHECK(napi_set_named_property(env, o, "tier", str(env, g.tier(s))));
  CHECK(napi_set_named_property(env, o, "reason", str(env, g.reason(s))));
  CHECK(napi_set_named_property(env, o, "name", str(env, g.name(s))));
  CHECK(napi_create_double(env, (double)g.insn_count(s), &v));
  CHECK(napi_set_named_property(env, o, "insnCount", v));
  CHECK(napi_create_double(env, (double)g.gaps(s), &v));
  CHECK(napi_set_named_property(env, o, "gaps", v));
  CHECK(napi_get_boolean(env, g.truncated(s) != 0, &v));
  CHECK(napi_set_named_property(env, o, "truncated", v));
  g.free(s);
  return o;
}

/* dlopen(path) -> BigInt handle; throws with dlerror() on failure. */
static napi_value js_dlopen(napi_env env, napi_callback_info info) {
  size_t argc = 1, n;
  napi_value argv[1];
  char path[4096];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &n) != napi_ok) {
    napi_throw_type_error(env, NULL, "dlopen(path)");
    return NULL;
  }
  void *h = dlopen(path, RTLD_NOW);
  if (!h) {
    const char *e = dlerror();
    napi_throw_error(env, NULL, e ? e : "dlopen failed");
    return NULL;
  }
  return big(env, (uint64_t)(uintptr_t)h);
}

/* dlsym(handle, name) -> BigInt address; throws when absent. */
static napi_value js_dlsym(napi_env env, napi_callback_info info) {
  size_t argc = 2, n;
  napi_value argv[2];
  char name[512];
  uint64_t h;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2 || arg_u64(env, argv[0], &h) ||
      napi_get_value_string_utf8(env, argv[1], name, sizeof name, &n) != napi_ok) {
    napi_throw_type_error(env, NULL, "dlsym(handle, name)");
    return NULL;
  }
  dlerror();
  void *p = dlsym((void *)(uintptr_t)h, name);
  if (!p) {
    const char *e = dlerror();
    napi_throw_error(env, NULL, e ? e : "dlsym: symbol is NULL");
    return NULL;
  }
  return big(env, (uint64_t)(uintptr_t)p);
}

/* callLong(addr, x) -> Number: calls `long f(long)` at addr. */
static napi_value call_long(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  uint64_t addr, x;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2 || arg_u64(env, argv[0], &addr) || !addr || arg_u64(env, argv[1], &x)) {
    napi_throw_type_error(env, NULL, "callLong(addr, x)");
    return NULL;
  }
  long (*f)(long) = (long (*)(long))(uintptr_t)addr;
  long r = f((long)x);
  napi_value v;
  CHECK(napi_create_int64(env, r, &v));
  return v;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"loadStatus", NULL, load_status, NULL, NULL, NULL, napi_enumerable, NULL},
      {"begin", NULL, begin, NULL, NULL, NULL, napi_enumerable, NULL},
      {"end", NULL, end, NULL, NULL, NULL, napi_enumerable, NULL},
      {"dlopen", NULL, js_dlopen, NULL, NULL, NULL, napi_enumerable, NULL},
      {"dlsym", NULL, js_dlsym, NULL, NULL, NULL, napi_enumerable, NULL},
      {"callLong", NULL, call_long, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok)
    return NULL;
  return exports;
}
