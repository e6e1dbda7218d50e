/* probe.c: entrypatch's functional probe. It runs isolated in a forked
 * child (the host's probe_isolate), so it installs the agent for real in
 * its own process — the very blob, stubs, relocation and rings a capture
 * uses — patches two of its own functions, calls them and reads the ring:
 *   - the blob references nothing outside itself (ep_blob_self_check);
 *   - a memfd maps shared, MADV_WIPEONFORK is honoured;
 *   - 100 calls of outer() -> inner() come back as 200 entries and 200
 *     exits, nested, with the functions' results unchanged;
 *   - a forked child calls them too: it writes nothing into the ring, and
 *     its results are right;
 *   - every register survives: an assembly caller keeps values in every
 *     call-clobbered general and vector register across a call to a
 *     patched leaf that touches only rax (what gcc's -fipa-ra assumes of
 *     a local callee), and finds them all unchanged.
 * Only the remote half (mapping through the seam's injected system calls)
 * is not exercised here: that is the seam's own, and the live tests run it. */
#define _GNU_SOURCE
#include "plugins/entrypatch/probe.h"
#include "plugins/entrypatch/agent_layout.h"
#include "plugins/entrypatch/inject.h"
#include "plugins/entrypatch/plan.h"
#include "plugins/entrypatch/region.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PROBE_CALLS 100
#define NPATCHED 7 /* functions the probe patches in itself */

/* The two functions the probe patches in itself. */
__attribute__((noipa, visibility("hidden"))) long ep_probe_inner(long x) { return x * 3 + 1; }
__attribute__((noipa, visibility("hidden"))) long ep_probe_outer(long x) {
  long (*volatile f)(long) = ep_probe_inner;
  return f(x) + f(x + 1) - x;
}

/* The register check: ep_probe_leaf(x) = x + 7 touches rax and the flags
 * only; ep_probe_regcheck(out) loads a pattern into rcx, rdx, rsi, r8-r11
 * and xmm0-15, calls the leaf with rdi = 5, and stores what it finds after
 * the call into out[0..24] (rax, rdi, rcx, rdx, rsi, r8-r11, xmm0-15).
 * The same check runs through patched functions whose relocated prologue
 * holds what plan.c relocates (each touches rax and the flags only):
 *   ep_probe_callfirst  push rbp; mov rbp,rsp; call ep_probe_leaf   (-O0)
 *                       -> leaf + 1
 *   ep_probe_callptr    call *ep_probe_leaf_ptr(%rip)   (-fno-plt) -> leaf + 2
 *   ep_probe_callmem    push rbp; mov rbp,rsp; call *8(%rax) -> leaf + 3
 *                       (every check enters with rax = &ep_probe_leaf_ptr - 8)
 *   ep_probe_jcc        test rdi,rdi; je <past the patch> -> leaf, or 99 for 0
 * The callee's entry and exit nest inside the patched caller's. */
extern long ep_probe_leaf(long x);
extern long ep_probe_jcc(long x);
extern void ep_probe_regcheck(uint64_t *out);
extern void ep_probe_regcheck_callfirst(uint64_t *out);
extern void ep_probe_regcheck_callptr(uint64_t *out);
extern void ep_probe_regcheck_callmem(uint64_t *out);
extern void ep_probe_regcheck_jcc(uint64_t *out);
extern long ep_probe_callfirst(long x), ep_probe_callptr(long x), ep_probe_callmem(long x);
#define REGCHECK_WORDS 25
#define REGCHECK_PATTERN(i) (0x5a5a000000000000ull | (uint64_t)(i)*0x0101010101ull)
#define REGCHECK_ASM(name, callee)                                                                 \
  ".balign 16\n"                                                                                   \
  ".type " name ", @function\n" name ":\n"                                                         \
  "  push %rbx\n"                                                                                  \
  "  mov %rdi, %rbx\n"                                                                             \
  "  movabs $0x5a5a000202020202, %rcx\n"                                                           \
  "  movabs $0x5a5a000303030303, %rdx\n"                                                           \
  "  movabs $0x5a5a000404040404, %rsi\n"                                                           \
  "  movabs $0x5a5a000505050505, %r8\n"                                                            \
  "  movabs $0x5a5a000606060606, %r9\n"                                                            \
  "  movabs $0x5a5a000707070707, %r10\n"                                                           \
  "  movabs $0x5a5a000808080808, %r11\n"                                                           \
  "  movq %rcx, %xmm0\n  movq %rdx, %xmm1\n  movq %rsi, %xmm2\n  movq %r8, %xmm3\n"                \
  "  movq %r9, %xmm4\n  movq %r10, %xmm5\n  movq %r11, %xmm6\n  movq %rcx, %xmm7\n"                \
  "  movq %rdx, %xmm8\n  movq %rsi, %xmm9\n  movq %r8, %xmm10\n  movq %r9, %xmm11\n"               \
  "  movq %r10, %xmm12\n  movq %r11, %xmm13\n  movq %rcx, %xmm14\n  movq %rdx, %xmm15\n"           \
  "  lea ep_probe_leaf_ptr-8(%rip), %rax\n"                                                        \
  "  mov $5, %edi\n"                                                                               \
  "  call " callee "\n"                                                                            \
  "  mov %rax, 0(%rbx)\n  mov %rdi, 8(%rbx)\n  mov %rcx, 16(%rbx)\n  mov %rdx, 24(%rbx)\n"         \
  "  mov %rsi, 32(%rbx)\n  mov %r8, 40(%rbx)\n  mov %r9, 48(%rbx)\n  mov %r10, 56(%rbx)\n"         \
  "  mov %r11, 64(%rbx)\n"                                                                         \
  "  movq %xmm0, 72(%rbx)\n  movq %xmm1, 80(%rbx)\n  movq %xmm2, 88(%rbx)\n"                       \
  "  movq %xmm3, 96(%rbx)\n  movq %xmm4, 104(%rbx)\n  movq %xmm5, 112(%rbx)\n"                     \
  "  movq %xmm6, 120(%rbx)\n  movq %xmm7, 128(%rbx)\n  movq %xmm8, 136(%rbx)\n"                    \
  "  movq %xmm9, 144(%rbx)\n  movq %xmm10, 152(%rbx)\n  movq %xmm11, 160(%rbx)\n"                  \
  "  movq %xmm12, 168(%rbx)\n  movq %xmm13, 176(%rbx)\n  movq %xmm14, 184(%rbx)\n"                 \
  "  movq %xmm15, 192(%rbx)\n"                                                                     \
  "  pop %rbx\n"                                                                                   \
  "  ret\n"                                                                                        \
  ".size " name ", .-" name "\n"
/* clang-format off */
__asm__(".text\n"
        ".balign 16\n"
        ".type ep_probe_leaf, @function\n"
        "ep_probe_leaf:\n"
        "  mov %rdi, %rax\n"
        "  add $7, %rax\n"
        "  ret\n"
        ".size ep_probe_leaf, .-ep_probe_leaf\n"
        ".balign 16\n"
        ".type ep_probe_callfirst, @function\n"
        "ep_probe_callfirst:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  call ep_probe_leaf\n"
        "  add $1, %rax\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size ep_probe_callfirst, .-ep_probe_callfirst\n"
        ".balign 16\n"
        ".type ep_probe_callptr, @function\n"
        "ep_probe_callptr:\n"
        "  call *ep_probe_leaf_ptr(%rip)\n"
        "  add $2, %rax\n"
        "  ret\n"
        ".size ep_probe_callptr, .-ep_probe_callptr\n"
        ".balign 16\n"
        ".type ep_probe_callmem, @function\n"
        "ep_probe_callmem:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  call *8(%rax)\n"
        "  add $3, %rax\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size ep_probe_callmem, .-ep_probe_callmem\n"
        ".balign 16\n"
        ".type ep_probe_jcc, @function\n"
        "ep_probe_jcc:\n"
        "  test %rdi, %rdi\n"
        "  je 1f\n"
        "  lea 7(%rdi), %rax\n"
        "  ret\n"
        "1:\n"
        "  mov $99, %eax\n"
        "  ret\n"
        ".size ep_probe_jcc, .-ep_probe_jcc\n"
        REGCHECK_ASM("ep_probe_regcheck", "ep_probe_leaf")
        REGCHECK_ASM("ep_probe_regcheck_callfirst", "ep_probe_callfirst")
        REGCHECK_ASM("ep_probe_regcheck_callptr", "ep_probe_callptr")
        REGCHECK_ASM("ep_probe_regcheck_callmem", "ep_probe_callmem")
        REGCHECK_ASM("ep_probe_regcheck_jcc", "ep_probe_jcc")
        ".pushsection .data\n"
        ".balign 8\n"
        "ep_probe_leaf_ptr:\n"
        "  .quad ep_probe_leaf\n"
        ".popsection\n");
/* clang-format on */

/* What a register check must find (rax = 12 + plus): 0 when it did, else
 * the first word that differs (1-based). */
static int regcheck_mismatch(void (*check)(uint64_t *), uint64_t plus) {
  static const uint8_t xmm_src[16] = {2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 2, 3};
  uint64_t got[REGCHECK_WORDS], want[REGCHECK_WORDS];
  want[0] = 12 + plus, want[1] = 5;
  for (int i = 2; i <= 8; i++) want[i] = REGCHECK_PATTERN(i);
  for (int i = 0; i < 16; i++) want[9 + i] = REGCHECK_PATTERN(xmm_src[i]);
  check(got);
  for (int i = 0; i < REGCHECK_WORDS; i++)
    if (got[i] != want[i]) return i + 1;
  return 0;
}

static int fail(struct asmspy_probe_result *res, int status, int err, const char *what) {
  ASMSPY_PROBE_SET(res, status, err, "%s", what);
  return 0;
}

/* Write len bytes over our own code (the page is made writable meanwhile). */
static int patch_self(uint64_t addr, const void *bytes, size_t len) {
  uint64_t page = addr & ~4095ull, end = (addr + len + 4095) & ~4095ull;
  if (mprotect((void *)page, end - page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return -1;
  memcpy((void *)addr, bytes, len);
  __builtin___clear_cache((char *)addr, (char *)addr + len);
  return mprotect((void *)page, end - page, PROT_READ | PROT_EXEC);
}

static int plan_self(csh cs, long (*fn)(long), struct ep_patch *p, char *why, size_t cap) {
  uint64_t a = (uint64_t)(uintptr_t)fn;
  return ep_plan_function(cs, a, 64, (const uint8_t *)(uintptr_t)a, 64, p, why, cap);
}

/* What the probe installs in its own process: the patch plans and the
 * memory a capture maps into a target. */
struct probe_rig {
  struct ep_patch p[NPATCHED];
  struct agent_state *st;
  struct agent_gate *gate;
  struct ring_area *ring;
  uint64_t gap; /* the code region's address */
};

/* The blob must stand alone and every probe function must plan, else the
 * probe would not test what a capture installs. On failure the
 * disassembler is closed (before the verdict is set, as every failure
 * with cs open does) and -1 returned with res set. */
static int plan_probe_functions(csh *cs, struct ep_patch *p, char *why, size_t cap,
                                struct asmspy_probe_result *res) {
  if (ep_blob_self_check(*cs, why, cap) != 0) {
    cs_close(cs);
    fail(res, ASMSPY_E_INTERNAL, 0, why);
    return -1;
  }
  /* indexes: 0 outer, 1 inner, 2 leaf, then the relocation cases */
  long (*const self[NPATCHED])(long) = {ep_probe_outer,     ep_probe_inner,   ep_probe_leaf,
                                        ep_probe_callfirst, ep_probe_callptr, ep_probe_callmem,
                                        ep_probe_jcc};
  for (int i = 0; i < NPATCHED; i++) {
    if (plan_self(*cs, self[i], &p[i], why, cap) != 0) {
      size_t l = strlen(why);
      snprintf(why + l, cap - l, " (probe function %d)", i);
      cs_close(cs);
      fail(res, ASMSPY_E_INTERNAL, 0, why);
      return -1;
    }
    p[i].kind = AGENT_FN_CALL;
  }
  return 0;
}

/* The memory a capture maps into a target, mapped here: the agent state,
 * the gate (wiped in a forked child) and the ring on a shared memfd. A
 * kernel without them cannot host the agent at all: ASMSPY_E_NO_KERNEL. */
static int map_agent_memory(csh *cs, struct probe_rig *rig, struct asmspy_probe_result *res) {
  rig->st = mmap(NULL, sizeof *rig->st, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  rig->gate = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = memfd_create("asmspy-probe", MFD_CLOEXEC);
  if (rig->st == MAP_FAILED || rig->gate == MAP_FAILED || fd < 0 ||
      ftruncate(fd, (off_t)sizeof(struct ring_area)) != 0) {
    cs_close(cs);
    fail(res, ASMSPY_E_NO_KERNEL, errno, "mmap/memfd_create for the agent failed");
    return -1;
  }
  rig->ring = mmap(NULL, sizeof *rig->ring, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (rig->ring == MAP_FAILED || madvise(rig->gate, 4096, MADV_WIPEONFORK) != 0) {
    cs_close(cs);
    fail(res, ASMSPY_E_NO_KERNEL, errno,
         "a shared memfd ring or MADV_WIPEONFORK (kernel 4.14+) is unavailable");
    return -1;
  }
  return 0;
}

/* The stubs and the blob, in a region within rel32 reach of all the probe
 * functions, as a capture places them near a target's code. */
static int build_code_region(csh *cs, struct probe_rig *rig, char *why, size_t cap,
                             struct asmspy_probe_result *res) {
  const struct ep_patch *p = rig->p;
  uint64_t lo = p[0].addr, hi = p[0].addr;
  for (int i = 1; i < NPATCHED; i++) {
    if (p[i].addr < lo) lo = p[i].addr;
    if (p[i].addr > hi) hi = p[i].addr;
  }
  hi += 32;
  size_t rsize = ep_region_size(NPATCHED);
  uint64_t gap = ep_find_gap_near(getpid(), lo, hi, rsize);
  void *code = gap ? mmap((void *)(uintptr_t)gap, rsize, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
                   : MAP_FAILED;
  if (code == MAP_FAILED || (uint64_t)(uintptr_t)code != gap) {
    cs_close(cs);
    fail(res, ASMSPY_E_INTERNAL, errno, "no code region within reach of the probe's code");
    return -1;
  }
  uint32_t bad = 0;
  if (ep_region_build(*cs, code, rsize, gap, (uint64_t)(uintptr_t)rig->st, rig->p, NPATCHED, 0,
                      rig->st->funcs, &bad, why, cap) != 0 ||
      mprotect(code, rsize, PROT_READ | PROT_EXEC) != 0) {
    cs_close(cs);
    fail(res, ASMSPY_E_INTERNAL, 0, why[0] ? why : "mprotect of the code region");
    return -1;
  }
  rig->gap = gap;
  return 0;
}

/* Arm the agent as the seam does in a target, then write the entry jumps
 * over the probe's own functions: from here on they are traced. */
static int arm_and_patch(struct probe_rig *rig, struct asmspy_probe_result *res) {
  struct agent_state *st = rig->st;
  st->magic = AGENT_MAGIC;
  st->gate = rig->gate;
  st->ret_hook = rig->gap + ep_blob_return_off();
  st->nfuncs = NPATCHED;
  rig->gate->ring = rig->ring;
  rig->gate->armed = 1;
  for (int i = 0; i < NPATCHED; i++) {
    struct ep_patch *p = &rig->p[i];
    uint8_t bytes[sizeof p->orig];
    ep_entry_patch_bytes(p, bytes);
    if (patch_self(p->addr, bytes, p->len) != 0) {
      fail(res, ASMSPY_E_PERM, errno, "cannot write over the probe's own code");
      return -1;
    }
  }
  return 0;
}

/* The patched functions must compute what they did unpatched, here and in
 * a forked child (whose gate is wiped: its calls must not reach the ring,
 * and it must run on). */
static int run_patched_calls(struct asmspy_probe_result *res) {
  long (*volatile outer)(long) = ep_probe_outer;
  long sum = 0;
  for (long i = 0; i < PROBE_CALLS; i++) sum += outer(i);
  long want = 0;
  for (long i = 0; i < PROBE_CALLS; i++) want += (i * 3 + 1) + ((i + 1) * 3 + 1) - i;
  if (sum != want) {
    fail(res, ASMSPY_E_INTERNAL, 0, "patched functions returned wrong results");
    return -1;
  }
  pid_t child = fork();
  if (child == 0) {
    long s2 = 0;
    for (long i = 0; i < PROBE_CALLS; i++) s2 += outer(i);
    _exit(s2 == want ? 0 : 1);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fail(res, ASMSPY_E_INTERNAL, 0, "a forked child of a patched process did not run on");
    return -1;
  }
  return 0;
}

/* The ring: one thread (the child's records dropped), outer{ inner{}
 * inner{} } x 100, in sequence. *claimed: the ring the thread took. */
static int check_ring_nesting(const struct ring_area *ring, uint32_t *claimed, char *why,
                              size_t cap, struct asmspy_probe_result *res) {
  uint32_t k;
  for (k = 0; k < AGENT_THREADS && !ring->heads[k].used; k++) {
  }
  if (k == AGENT_THREADS) {
    fail(res, ASMSPY_E_INTERNAL, 0, "no thread claimed a ring");
    return -1;
  }
  *claimed = k;
  const struct ring_head *h = &ring->heads[k];
  if (h->head != 6 * PROBE_CALLS) {
    snprintf(why, cap, "%llu records for %d calls (want %d; a forked child's must be dropped)",
             (unsigned long long)h->head, 3 * PROBE_CALLS, 6 * PROBE_CALLS);
    fail(res, ASMSPY_E_INTERNAL, 0, why);
    return -1;
  }
  static const uint32_t shape[6][2] = {{0, REC_ENTRY}, {1, REC_ENTRY}, {1, REC_EXIT},
                                       {1, REC_ENTRY}, {1, REC_EXIT},  {0, REC_EXIT}};
  for (uint64_t i = 0; i < h->head; i++) {
    const struct ring_rec *r = &ring->recs[k][i];
    if (r->seq != (uint32_t)(i + 1) || REC_FUNC(r->word) != shape[i % 6][0] ||
        REC_WHAT(r->word) != shape[i % 6][1]) {
      snprintf(why, cap, "record %llu is not the expected nesting", (unsigned long long)i);
      fail(res, ASMSPY_E_INTERNAL, 0, why);
      return -1;
    }
  }
  return 0;
}

/* The register check, through the leaf and through each relocated
 * prologue (a stub that clobbered a register gcc's -fipa-ra assumes kept
 * would corrupt the caller silently); the records: the patched function's
 * entry, its callee's entry and exit nested inside, its own exit. */
static int check_registers(const struct ring_area *ring, uint32_t k, char *why, size_t cap,
                           struct asmspy_probe_result *res) {
  static const struct {
    void (*check)(uint64_t *);
    uint64_t plus;
    uint32_t fn, callee; /* callee 0: none */
    const char *what;
  } cases[] = {
      {ep_probe_regcheck, 0, 2, 0, "a patched leaf"},
      {ep_probe_regcheck_callfirst, 1, 3, 2, "push rbp; mov rbp,rsp; call (relocated)"},
      {ep_probe_regcheck_callptr, 2, 4, 2, "call *disp(%rip) (relocated)"},
      {ep_probe_regcheck_callmem, 3, 5, 2, "call *8(%rax) (relocated)"},
      {ep_probe_regcheck_jcc, 0, 6, 0, "test; je past the patch (relocated)"},
  };
  const struct ring_head *h = &ring->heads[k];
  uint64_t at = h->head;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int bad_reg = regcheck_mismatch(cases[c].check, cases[c].plus);
    if (bad_reg) {
      snprintf(why, cap,
               "a register the caller kept across a call to a patched function changed (word %d "
               "of rax, rdi, rcx, rdx, rsi, r8-r11, xmm0-15; through %s)",
               bad_reg, cases[c].what);
      fail(res, ASMSPY_E_INTERNAL, 0, why);
      return -1;
    }
    uint32_t want[4][2] = {{cases[c].fn, REC_ENTRY},
                           {cases[c].callee, REC_ENTRY},
                           {cases[c].callee, REC_EXIT},
                           {cases[c].fn, REC_EXIT}};
    uint32_t nwant = cases[c].callee ? 4 : 2;
    if (!cases[c].callee) want[1][0] = cases[c].fn, want[1][1] = REC_EXIT;
    int ok = h->head == at + nwant;
    for (uint32_t i = 0; ok && i < nwant; i++) {
      const struct ring_rec *r = &ring->recs[k][at + i];
      ok = r->seq == (uint32_t)(at + i + 1) && REC_FUNC(r->word) == want[i][0] &&
           REC_WHAT(r->word) == want[i][1];
    }
    if (!ok) {
      snprintf(why, cap, "the calls through %s were not recorded nested (%llu records)",
               cases[c].what, (unsigned long long)(h->head - at));
      fail(res, ASMSPY_E_INTERNAL, 0, why);
      return -1;
    }
    at = h->head;
  }
  return 0;
}

/* Each step sets res itself when it fails (0 is returned either way: the
 * verdict is in res). The steps that hold the disassembler close it. */
int ep_probe(const struct asmspy_host_api *host, struct asmspy_probe_result *res) {
  (void)host;
  csh cs;
  char why[256] = "";
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
    return fail(res, ASMSPY_E_NO_LIB, 0, "capstone cannot open x86-64");
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  struct probe_rig rig;
  if (plan_probe_functions(&cs, rig.p, why, sizeof why, res) != 0 ||
      map_agent_memory(&cs, &rig, res) != 0 ||
      build_code_region(&cs, &rig, why, sizeof why, res) != 0)
    return 0;
  cs_close(&cs);
  uint32_t k;
  if (arm_and_patch(&rig, res) != 0 || run_patched_calls(res) != 0 ||
      check_ring_nesting(rig.ring, &k, why, sizeof why, res) != 0 ||
      check_registers(rig.ring, k, why, sizeof why, res) != 0)
    return 0;
  if (ep_probe_jcc(0) != 99 || ep_probe_callfirst(1) != 9 || ep_probe_callptr(1) != 10)
    return fail(res, ASMSPY_E_INTERNAL, 0, "a relocated prologue computed a wrong result");
  ASMSPY_PROBE_SET(res, ASMSPY_USABLE, 0,
                   "patched %d functions in the probe: %d calls recorded entry/exit, nested; "
                   "every register kept across a patched call, a relocated call in a prologue "
                   "too; a forked child ran on, its events dropped",
                   NPATCHED, 3 * PROBE_CALLS);
  return 0;
}
