/* fake_plugin.c: one source, many deliberately good and bad plugins (the
 * Vulkan loader's test_icd idea). tests/abi/meson.build compiles it once per
 * variant with -DFAKE_<VARIANT> into asmspy_fake_<variant>.so;
 * test_abi_loader.c then asserts the registry row the host recorded for each.
 *
 *   variant                 what it is                                  expected row
 *   FAKE_MINOR_FUTURE       ABI 1.9, bigger structs, NON-zero tail      usable
 *   FAKE_MINOR_FUTURE_ZERO  ABI 1.9, bigger structs, zero tail          usable
 *   FAKE_OLD_SMALL          ABI 1.0 descriptor ending at a PROT_NONE    usable, version ""
 *                           page
 *   FAKE_MAJOR_2            ABI 2.0: only the 8-byte header, also in    E_ABI 401
 *                           front of a PROT_NONE page
 *   FAKE_REFUSES            entry returns NULL                          E_ABI 401
 *   FAKE_NO_ENTRY           exports a misnamed entry only               E_NO_ENTRY 402
 *   FAKE_PROBE_CRASH        probe dereferences NULL                     E_PROBE_CRASH 405
 *   FAKE_PROBE_HANG         probe never returns                         E_PROBE_HANG 406
 *   FAKE_BAD_DESC           backend ops with run == NULL                E_BAD_DESCRIPTOR 403
 *   FAKE_NULL_PROBE         backend without probe()                     E_BAD_DESCRIPTOR 403
 *   FAKE_DUP_A, FAKE_DUP_B  the same name twice                         usable, E_DUP_NAME 404
 *   FAKE_PROBE_UNAVAIL      probe reports ASMSPY_E_NO_HW                E_NO_HW 301
 *   FAKE_NEEDS_NEWER        min_host_minor = host minor + 1 (1.12)     E_ABI 401
 *   FAKE_NEEDS_CURRENT      min_host_minor = host minor (1.12)         usable
 *
 * Names are all fake_*: never a real plugin's name. */
#define _GNU_SOURCE
#include <asmspy/plugin.h>

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNUSED __attribute__((unused))

/* ---- trivial ops shared by the variants -------------------------------- */

static UNUSED int fake_view_open(const struct asmspy_host_api *host, const struct asmspy_session *s,
                                 void **state) {
  (void)host;
  (void)s;
  *state = NULL;
  return 0;
}
static UNUSED int fake_view_consume(void *state, const struct asmspy_event *ev) {
  (void)state;
  (void)ev;
  return ASMSPY_CONSUME_DONE;
}
static UNUSED int fake_view_finish(void *state, int end_status) {
  (void)state;
  (void)end_status;
  return 0;
}
static UNUSED void fake_view_close(void *state) { (void)state; }

static UNUSED int fake_backend_run(const struct asmspy_host_api *host,
                                   const struct asmspy_session *s) {
  (void)host;
  (void)s;
  return ASMSPY_FACT_NO_EVENTS;
}

static UNUSED int fake_probe_ok(const struct asmspy_host_api *host,
                                struct asmspy_probe_result *res) {
  (void)host;
  ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0, "fake: probe ok");
  return 0;
}

/* A view ops table as the current header lays it out, stamped with the
 * version and struct_size its (pretend) writer had. */
#define FAKE_VIEW_OPS(ver, size, mode_name)                                                        \
  {                                                                                                \
    .abi_version = (ver), .struct_size = (uint32_t)(size), .mode = (mode_name),                    \
    .caps_required = 0, .usage = "<pid> [n]", .open = fake_view_open,                              \
    .consume = fake_view_consume, .finish = fake_view_finish, .close = fake_view_close,            \
  }

/* Copy the first n bytes of src to the END of a read-only page that is
 * followed by a PROT_NONE page: a reader that touches byte n (or beyond)
 * takes SIGSEGV instead of silently reading garbage. Done once, lazily. */
static UNUSED const void *guarded_copy(const void *src, size_t n) {
  static const void *cached;
  if (cached) return cached;
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0 || n == 0 || n > (size_t)pg) return NULL;
  unsigned char *m =
      mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    perror("fake plugin: mmap");
    return NULL;
  }
  if (mprotect(m + pg, (size_t)pg, PROT_NONE) != 0) {
    perror("fake plugin: mprotect PROT_NONE");
    return NULL;
  }
  unsigned char *dst = m + pg - n; /* ends exactly at the page boundary */
  memcpy(dst, src, n);
  if (mprotect(m, (size_t)pg, PROT_READ) != 0) { /* descriptors are const data */
    perror("fake plugin: mprotect PROT_READ");
    return NULL;
  }
  cached = dst;
  return cached;
}

/* ======================================================================== */
#if defined(FAKE_MINOR_FUTURE) || defined(FAKE_MINOR_FUTURE_ZERO)
/* Built against a (pretend) header 1.9: every struct grew members this host
 * has never heard of. The host must copy what it knows and ignore the rest. */
#ifdef FAKE_MINOR_FUTURE
#define FAKE_NAME "fake_future"
#define FAKE_TAIL(v) (v)
#else
#define FAKE_NAME "fake_future_zero"
#define FAKE_TAIL(v) 0
#endif

static UNUSED void future_fn(void) {}
static UNUSED int future_hook(void *state) { return state != NULL; }

struct fake_view_ops_1_9 {
  struct asmspy_view_ops base;
  /* --- ABI 1.2 .. 1.9 members (unknown to a 1.1 host) --- */
  uint64_t future_view_flags;
  int (*future_view_hook)(void *state);
};

struct fake_plugin_1_9 {
  struct asmspy_plugin base;
  /* --- ABI 1.2 .. 1.9 members (unknown to a 1.1 host) --- */
  uint64_t future_flags;
  const char *future_text;
  void (*future_fn)(void);
  uint32_t future_small;
};

static const struct fake_view_ops_1_9 future_view = {
    .base = FAKE_VIEW_OPS(ASMSPY_ABI_MAKE(1, 9), sizeof(struct fake_view_ops_1_9), FAKE_NAME),
    .future_view_flags = FAKE_TAIL(0xfeedfacecafebeefull),
    .future_view_hook = FAKE_TAIL(future_hook),
};

static const struct fake_plugin_1_9 future_plugin = {
    .base =
        {
            .abi_version = ASMSPY_ABI_MAKE(1, 9),
            .struct_size = sizeof(struct fake_plugin_1_9),
            .kind = ASMSPY_KIND_VIEW,
            .name = FAKE_NAME,
            .description = "fake: built against ABI 1.9 (bigger structs)",
            .caps = 0,
            .view = &future_view.base,
            .plugin_version = "9.9.9-future",
        },
    .future_flags = FAKE_TAIL(0xdeadbeefdeadbeefull),
    .future_text = FAKE_TAIL("a 1.1 host never reads this"),
    .future_fn = FAKE_TAIL(future_fn),
    .future_small = FAKE_TAIL(0xabcdu),
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != 1) return NULL;
  return &future_plugin.base; /* a newer plugin never refuses an older host minor */
}

/* ======================================================================== */
#elif defined(FAKE_OLD_SMALL)
/* Built against header 1.0: struct asmspy_plugin ended at `view`. The copy
 * handed to the host is exactly that long and ends at a PROT_NONE page, so
 * a host reading plugin_version (a 1.1 member) without ASMSPY_HAS crashes. */
#define OLD_SIZE offsetof(struct asmspy_plugin, plugin_version)

static const struct asmspy_view_ops old_view =
    FAKE_VIEW_OPS(ASMSPY_ABI_MAKE(1, 0),
                  offsetof(struct asmspy_view_ops, close) + sizeof(void (*)(void *)), "fake_old");

static const struct asmspy_plugin old_plugin_src = {
    .abi_version = ASMSPY_ABI_MAKE(1, 0),
    .struct_size = (uint32_t)OLD_SIZE,
    .kind = ASMSPY_KIND_VIEW,
    .name = "fake_old",
    .description = "fake: built against ABI 1.0 (smaller descriptor)",
    .view = &old_view,
    .plugin_version = "never copied: past the 1.0 struct_size",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != 1) return NULL;
  return guarded_copy(&old_plugin_src, OLD_SIZE);
}

/* ======================================================================== */
#elif defined(FAKE_MAJOR_2)
/* A plugin for ABI 2.0 that (wrongly) does not check the host's major. Only
 * the two header words are guaranteed to mean the same in every major, so
 * the handed-out descriptor is just those 8 bytes, followed by PROT_NONE: the
 * host may read abi_version (and struct_size), nothing else. */
struct fake_plugin_2_0 {
  uint32_t abi_version;
  uint32_t struct_size;
};

static const struct fake_plugin_2_0 major2_src = {
    .abi_version = ASMSPY_ABI_MAKE(2, 0),
    .struct_size = sizeof(struct fake_plugin_2_0),
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  (void)host_abi_version;
  return guarded_copy(&major2_src, sizeof major2_src);
}

/* ======================================================================== */
#elif defined(FAKE_REFUSES)
/* A plugin that cannot work with this host (it needs, say, ABI 3): it says
 * so by returning NULL. */
ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  (void)host_abi_version;
  return NULL;
}

/* ======================================================================== */
#elif defined(FAKE_NO_ENTRY)
/* A shared object named like a plugin but exporting the wrong symbol. */
ASMSPY_EXPORT int asmspy_plugin_entry_v2(void);
ASMSPY_EXPORT int asmspy_plugin_entry_v2(void) { return 42; }

/* ======================================================================== */
#elif defined(FAKE_PROBE_CRASH)
/* The store goes through a volatile pointer to volatile: GCC would otherwise
 * drop it as dead, or turn a literal NULL store into ud2 (SIGILL). The
 * function is kept away from UBSan's null check (and ASan), so this is a
 * plain SIGSEGV in every build. */
__attribute__((no_sanitize("undefined", "address"))) static int
crash_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  (void)res;
  volatile int *volatile p = NULL; /* both the pointer and the store are volatile */
  *p = 42;
  return 0;
}

static const struct asmspy_backend_ops crash_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = fake_backend_run,
};

static const struct asmspy_plugin crash_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "fake_crash",
    .description = "fake: probe dereferences NULL",
    .probe = crash_probe,
    .backend = &crash_ops,
    .plugin_version = "0.0.1",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &crash_plugin;
}

/* ======================================================================== */
#elif defined(FAKE_PROBE_HANG)
static int hang_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  (void)res;
  for (;;) pause(); /* only SIGKILL from the host ends this */
  return 0;
}

static const struct asmspy_backend_ops hang_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = fake_backend_run,
};

static const struct asmspy_plugin hang_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "fake_hang",
    .description = "fake: probe sleeps forever",
    .probe = hang_probe,
    .backend = &hang_ops,
    .plugin_version = "0.0.1",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &hang_plugin;
}

/* ======================================================================== */
#elif defined(FAKE_BAD_DESC) || defined(FAKE_NULL_PROBE)
#ifdef FAKE_BAD_DESC
#define FAKE_NAME "fake_bad_desc"
#define FAKE_RUN NULL /* the required op is missing */
#define FAKE_PROBE fake_probe_ok
#else
#define FAKE_NAME "fake_null_probe"
#define FAKE_RUN fake_backend_run
#define FAKE_PROBE NULL /* backends must have a probe */
#endif

static const struct asmspy_backend_ops bad_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = FAKE_RUN,
};

static const struct asmspy_plugin bad_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = FAKE_NAME,
    .description = "fake: malformed backend descriptor",
    .probe = FAKE_PROBE,
    .backend = &bad_ops,
    .plugin_version = "0.0.1",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &bad_plugin;
}

/* ======================================================================== */
#elif defined(FAKE_DUP_A) || defined(FAKE_DUP_B)
#ifdef FAKE_DUP_A
#define FAKE_MODE "fake_dup_a"
#else
#define FAKE_MODE "fake_dup_b"
#endif

static const struct asmspy_view_ops dup_view =
    FAKE_VIEW_OPS(ASMSPY_ABI_VERSION, sizeof(struct asmspy_view_ops), FAKE_MODE);

static const struct asmspy_plugin dup_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = "fake_dup", /* the same in both */
    .description = "fake: same name as another plugin (" FAKE_MODE ")",
    .view = &dup_view,
    .plugin_version = "0.0.1",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &dup_plugin;
}

/* ======================================================================== */
#elif defined(FAKE_PROBE_UNAVAIL)
static int unavail_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  ASMSPY_PROBE_SET(res, ASMSPY_E_NO_HW, 0, "fake: no such hardware");
  return 0;
}

static const struct asmspy_backend_ops unavail_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = fake_backend_run,
};

static const struct asmspy_plugin unavail_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "fake_unavail",
    .description = "fake: hardware backend on a host without the hardware",
    .caps = ASMSPY_CAP_IP_SAMPLES,
    .probe = unavail_probe,
    .backend = &unavail_ops,
    .plugin_version = "0.0.1",
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &unavail_plugin;
}

/* ======================================================================== */
#elif defined(FAKE_NEEDS_NEWER) || defined(FAKE_NEEDS_CURRENT)
/* 1.12: a descriptor that declares the oldest host minor it works with.
 * NEEDS_NEWER needs the minor after this host's (it is "from the future"
 * and uses a service this host does not have): refused with ASMSPY_E_ABI
 * and the reason. NEEDS_CURRENT needs exactly this host's: loaded. */
#ifdef FAKE_NEEDS_NEWER
#define FAKE_NAME "fake_needs_newer"
#define FAKE_MIN (ASMSPY_ABI_MINOR + 1)
#else
#define FAKE_NAME "fake_needs_current"
#define FAKE_MIN ASMSPY_ABI_MINOR
#endif
static const struct asmspy_view_ops needs_view =
    FAKE_VIEW_OPS(ASMSPY_ABI_VERSION, sizeof(struct asmspy_view_ops), FAKE_NAME);

static const struct asmspy_plugin needs_plugin = {
    .abi_version = ASMSPY_ABI_MAKE(ASMSPY_ABI_MAJOR, FAKE_MIN),
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_VIEW,
    .name = FAKE_NAME,
    .description = "fake: declares min_host_minor",
    .view = &needs_view,
    .plugin_version = "0.0.1",
    .min_host_minor = FAKE_MIN,
};

ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host) {
  (void)host;
  if (ASMSPY_ABI_MAJOR_OF(host_abi_version) != ASMSPY_ABI_MAJOR) return NULL;
  return &needs_plugin; /* the host decides from min_host_minor */
}

#else
#error "fake_plugin.c: build with one -DFAKE_<VARIANT> (see tests/abi/meson.build)"
#endif
