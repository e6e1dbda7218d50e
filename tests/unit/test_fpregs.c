/* test_fpregs.c — host->read_fpregs / vreg_value / vreg_name.
 *
 * Live: a traced child loads known bytes into xmm/ymm/zmm registers, an
 * opmask register and the x87 stack, then stops at an int3; the parent reads
 * its state through the host table and compares every byte with the
 * patterns (the parts the CPU has: SSE always, AVX and AVX-512 when CPUID
 * says so). Offline: a synthesized XSAVE image decodes to its values, and a
 * component whose xstate_bv bit is clear reads as its initial (zero) state.
 * Standalone: exit 0 when every check passes, 1 otherwise. */
#define _GNU_SOURCE
#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>

#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "host/host.h"

static uint8_t pat[32][64] __attribute__((aligned(64)));
static const long double st_vals[2] = {1.5L, -2.25L};

static int cpu_has_avx512f(void) {
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, a, b, c, d);
  if (!(b & (1u << 16)) || !(b & (1u << 30))) return 0; /* AVX512F, AVX512BW (kmovq) */
  /* the OS must have enabled the opmask/ZMM state in XCR0 */
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0xe6) == 0xe6;
}

static int cpu_has_avx(void) {
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  if (!(c & (1u << 28)) || !(c & (1u << 27))) return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6) == 6;
}

static void child(int avx, int avx512) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(3);
  raise(SIGSTOP);
  __asm__ volatile("movdqu (%0), %%xmm0\n\tmovdqu 64(%0), %%xmm1\n\tmovdqu 960(%0), %%xmm15\n\t"
                   "fldt (%1)\n\tfldt 16(%1)\n\t" /* st(0) = -2.25, st(1) = 1.5 */
                   :
                   : "r"(pat), "r"(st_vals)
                   : "xmm0", "xmm1", "xmm15", "memory");
  if (avx) __asm__ volatile("vmovdqu 128(%0), %%ymm2" : : "r"(pat) : "xmm2", "memory");
  if (avx512)
    __asm__ volatile(
        ".byte 0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x88; .long 1088\n\t" /* vmovdqu64 zmm17, [rax+1088] */
        "mov $0x5a5a0f0f12345678, %%rcx\n\tkmovq %%rcx, %%k3"
        :
        : "a"(pat)
        : "rcx", "memory");
  __asm__ volatile("int3");
  _exit(0);
}

static void live(void) {
  const struct asmspy_host_api *h = asmspy_host_api();
  CHECK(ASMSPY_HAS(h, read_fpregs) && h->read_fpregs && h->vreg_value && h->vreg_name,
        "host table has read_fpregs/vreg_value/vreg_name (1.10)");
  for (int r = 0; r < 32; r++)
    for (int i = 0; i < 64; i++) pat[r][i] = (uint8_t)(r * 7 + i * 13 + 1);
  int avx = cpu_has_avx(), avx512 = avx && cpu_has_avx512f();
  printf("# cpu: avx %d, avx-512 %d\n", avx, avx512);
  pid_t pid = fork();
  if (pid == 0) child(avx, avx512);
  int st = 0;
  waitpid(pid, &st, 0); /* the SIGSTOP */
  CHECK(WIFSTOPPED(st), "child stopped");
  ptrace(PTRACE_CONT, pid, 0, 0);
  waitpid(pid, &st, 0); /* the int3 */
  CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP, "child at its int3 (status %#x)", st);
  struct asmspy_fpregs fp;
  memset(&fp, 0, sizeof fp);
  ASMSPY_INIT_HEADER(&fp);
  int rc = h->read_fpregs(NULL, pid, &fp);
  CHECK(rc == 0, "read_fpregs: %d", rc);
  CHECK((fp.have & (ASMSPY_FP_X87 | ASMSPY_FP_SSE)) == (ASMSPY_FP_X87 | ASMSPY_FP_SSE),
        "x87 and SSE read (have %#x)", fp.have);
  uint8_t v[64];
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_XMM, 0), v, sizeof v) == 16 &&
            memcmp(v, pat[0], 16) == 0,
        "xmm0 holds the pattern");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_XMM, 1), v, sizeof v) == 16 &&
            memcmp(v, pat[1], 16) == 0,
        "xmm1 holds the pattern");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_XMM, 15), v, sizeof v) == 16 &&
            memcmp(v, pat[15], 16) == 0,
        "xmm15 holds the pattern");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_ST, 0), v, sizeof v) == 10 &&
            memcmp(v, &st_vals[1], 10) == 0,
        "st(0) = -2.25");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_ST, 1), v, sizeof v) == 10 &&
            memcmp(v, &st_vals[0], 10) == 0,
        "st(1) = 1.5");
  unsigned top = (fp.fsw >> 11) & 7;
  CHECK(top == 6, "two pushes: TOP = 6 (fsw %#x)", fp.fsw);
  /* mm6 is physical register 6 = st(0): its low 8 bytes */
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_MM, 6), v, sizeof v) == 8 &&
            memcmp(v, &st_vals[1], 8) == 0,
        "mm6 aliases st(0)'s mantissa");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_MXCSR, 0), v, sizeof v) == 4, "mxcsr");
  CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_XMM, 0), v, 8) == 0, "a short buffer: 0");
  if (avx) {
    CHECK(fp.have & ASMSPY_FP_AVX, "AVX read");
    CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_YMM, 2), v, sizeof v) == 32 &&
              memcmp(v, pat[2], 32) == 0,
          "ymm2 holds the pattern (upper half from YMM_Hi128)");
  }
  if (avx512) {
    CHECK(fp.have & ASMSPY_FP_AVX512 && fp.nvec == 32, "AVX-512 read, 32 registers");
    CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_ZMM, 17), v, sizeof v) == 64 &&
              memcmp(v, pat[17], 64) == 0,
          "zmm17 holds the pattern (Hi16_ZMM)");
    uint64_t k3 = 0;
    CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_K, 3), (uint8_t *)&k3, 8) == 8 &&
              k3 == 0x5a5a0f0f12345678ull,
          "k3 = %#llx", (unsigned long long)k3);
  } else {
    CHECK(h->vreg_value(&fp, ASMSPY_VREG(ASMSPY_VREG_ZMM, 17), v, sizeof v) == 0,
          "no AVX-512: zmm17 is not held");
  }
  char name[16];
  CHECK(strcmp(h->vreg_name(ASMSPY_VREG(ASMSPY_VREG_ST, 1), name, sizeof name), "st(1)") == 0 &&
            strcmp(h->vreg_name(ASMSPY_VREG(ASMSPY_VREG_ZMM, 31), name, sizeof name), "zmm31") == 0,
        "vreg_name");
  /* a thread that is not our tracee: ESRCH, nothing made up */
  CHECK(h->read_fpregs(NULL, getpid(), &fp) < 0, "our own pid (not traced): an error");
  ptrace(PTRACE_CONT, pid, 0, 0);
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child ran on and exited 0 (status %#x)", st);
}

/* A synthesized image: the legacy area and header only (what NT_PRFPREG or
 * a machine without AVX gives), then with xstate_bv clear for AVX. */
static void offline(void) {
  static uint8_t img[4096];
  memset(img, 0, sizeof img);
  img[0] = 0x7f, img[1] = 0x03;                                             /* fcw 0x37f */
  img[24] = 0x80, img[25] = 0x1f;                                           /* mxcsr 0x1f80 */
  for (int i = 0; i < 16; i++) img[160 + 16 * 3 + i] = (uint8_t)(0xa0 + i); /* xmm3 */
  struct asmspy_fpregs fp;
  memset(&fp, 0, sizeof fp);
  ASMSPY_INIT_HEADER(&fp);
  uint32_t have = fpregs_decode_xsave(img, 512, &fp);
  CHECK(have == (ASMSPY_FP_X87 | ASMSPY_FP_SSE), "512 bytes: x87 + SSE only (%#x)", have);
  CHECK(fp.fcw == 0x37f && fp.mxcsr == 0x1f80 && fp.zmm[3][0] == 0xa0 && fp.zmm[3][15] == 0xaf,
        "legacy fields decoded");
  /* the full image with YMM_Hi128 bytes present but its xstate_bv bit
   * clear: the component is in its initial state, zeros */
  memset(img + 576, 0xee, sizeof img - 576);
  img[512] = 3; /* x87 | SSE */
  fp.have = 0;
  have = fpregs_decode_xsave(img, sizeof img, &fp);
  if (have & ASMSPY_FP_AVX)
    CHECK(fp.zmm[3][16] == 0 && fp.zmm[3][31] == 0, "AVX in init state: upper halves zero");
  else
    printf("# offline: this CPU reports no AVX component offsets\n");
  CHECK(fpregs_decode_xsave(img, 100, &fp) == 0, "a truncated image: nothing decoded");
}

int main(void) {
  offline();
  live();
  return check_summary("fpregs");
}
