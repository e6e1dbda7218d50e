/* codecache — a capture backend whose in-process scope tier traces the
 * calling thread by dynamic binary translation (docs/codecache.md): each
 * basic block is copied once into a per-thread code cache with its branches
 * redirected and a record of its id prepended, so a scope costs a few
 * microseconds plus a few nanoseconds per block, not a debug trap per
 * instruction. The same WEAK tier as singlestep (every instruction, exact),
 * ordered before it; ASMSPY_SCOPE_BACKEND=singlestep forces the old one.
 *
 *   translate.c  one block, original -> cache
 *   cache.c      per-thread code memory near the code, hash, block table
 *   dispatch.S   the register-saving switch to C on the private stack
 *   fast.c       the hot lookup (general registers only)
 *   dispatch.c   misses, links, the end and syscall checks
 *   inproc.c     begin/end, arm_tail
 *   decode.c     block records -> instruction events
 *
 * The probe is functional: it runs a scope over a small loop in the
 * probe's (isolated) process, with this file standing in for the host's
 * begin shell, and requires the exact instruction count back. */
#define _GNU_SOURCE
#include "plugins/codecache/inproc.h"
#include "plugins/codecache/remote.h"

#include <cpuid.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static uint64_t g_probe_cookie;
static uint64_t g_probe_insns;
static int g_probe_trunc;

struct probe_ret {
  void *h;
  void (*tail)(void);
};

__attribute__((noinline, used, visibility("hidden"))) struct probe_ret cc_probe_begin_impl(void);
__attribute__((noinline, used, visibility("hidden"))) void cc_probe_end(uint64_t *cookie);
void *cc_probe_begin(void) __attribute__((visibility("hidden")));

/* The host's asmspy_scope_begin shell, in small (host/scope.c) */
/* clang-format off */
__asm__(".text\n"
        ".type cc_probe_begin, @function\n"
        "cc_probe_begin:\n"
        "  subq $8, %rsp\n"
        "  call cc_probe_begin_impl\n"
        "  addq $8, %rsp\n"
        "  testq %rdx, %rdx\n"
        "  jz 1f\n"
        "  jmp *%rdx\n"
        "1:ret\n"
        ".size cc_probe_begin, .-cc_probe_begin\n");
/* clang-format on */

static void *g_probe_handle;

struct probe_ret cc_probe_begin_impl(void) {
  struct probe_ret r = {NULL, NULL};
  struct asmspy_inproc_req req;
  memset(&req, 0, sizeof req);
  ASMSPY_INIT_HEADER(&req);
  req.max_insns = 4096;
  req.end_entry = (uint64_t)(uintptr_t)&cc_probe_end;
  req.end_arg = (uint64_t)(uintptr_t)&g_probe_cookie;
  req.arm_tail = &r.tail;
  if (cc_inproc_begin(NULL, &req, &g_probe_handle) != 0) r.tail = NULL;
  r.h = g_probe_handle;
  return r;
}

static int probe_sink(void *ctx, const struct asmspy_event *ev) {
  (void)ctx;
  if (ev->type == ASMSPY_EV_INSN) g_probe_insns++;
  if (ev->type == ASMSPY_EV_NOTE && ev->u.note.text && !strncmp(ev->u.note.text, "truncated", 9))
    g_probe_trunc = 1;
  return 0;
}

void cc_probe_end(uint64_t *cookie) {
  (void)cookie;
  if (g_probe_handle) cc_inproc_end(g_probe_handle, probe_sink, NULL);
  g_probe_handle = NULL;
}

/* 10 iterations of a 4-instruction loop plus its entry and exit */
__attribute__((noinline, noipa)) static unsigned long probe_work(unsigned long n) {
  unsigned long acc;
  __asm__ volatile("xorl %k0, %k0\n"
                   "1: addq %1, %0\n"
                   "   decq %1\n"
                   "   jnz 1b\n"
                   : "=&r"(acc), "+r"(n)
                   :
                   : "cc");
  return acc;
}

static int codecache_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_NO_HW, 0,
                     "no OSXSAVE: the dispatcher needs xsave to keep the vector state");
    return 0;
  }
  void *x =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (x == MAP_FAILED) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_PERM, errno,
                     "mmap of a writable+executable page refused (%s): no code cache",
                     strerror(errno));
    return 0;
  }
  munmap(x, 4096);
  g_probe_insns = 0;
  g_probe_trunc = 0;
  void *h = cc_probe_begin();
  unsigned long v = probe_work(10);
  cc_probe_end(&g_probe_cookie);
  (void)h;
  if (v != 55 || g_probe_trunc || g_probe_insns < 10 * 3) {
    ASMSPY_PROBE_SET(res, ASMSPY_E_INTERNAL, 0,
                     "self-test: a translated loop gave %lu (want 55), %llu instructions%s", v,
                     (unsigned long long)g_probe_insns, g_probe_trunc ? ", truncated" : "");
    return 0;
  }
  ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0,
                   "self-test: a translated loop ran exactly (%llu instructions recorded)",
                   (unsigned long long)g_probe_insns);
  return 0;
}

static const struct asmspy_backend_ops codecache_ops = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_backend_ops),
    .run = cc_remote_run, /* a running process (remote.c) */
    .inproc_begin = cc_inproc_begin,
    .inproc_end = cc_inproc_end,
    /* every instruction, exact, like singlestep: the same tier, tried first */
    .inproc_tier = ASMSPY_TIER_WEAK,
    .inproc_order = 5,
    /* no .suits: JIT code is traced too (checked blocks, remote_maps.c) */
};

static const struct asmspy_plugin codecache_plugin = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_plugin),
    .kind = ASMSPY_KIND_BACKEND,
    .name = "codecache",
    .description = "dynamic binary translation: every executed instruction at code-cache speed, "
                   "for a running process (--backend=codecache) and for scopes",
    .caps = ASMSPY_CAP_INPROCESS | ASMSPY_CAP_INSN_STREAM | ASMSPY_CAP_ATTACH_PID |
            ASMSPY_CAP_TASKS | ASMSPY_CAP_REGION,
    .probe = codecache_probe,
    .backend = &codecache_ops,
    .plugin_version = "0.1.0",
};

ASMSPY_PLUGIN_ENTRY_FOR(codecache_plugin)
