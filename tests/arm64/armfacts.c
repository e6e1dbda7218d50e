/* armfacts: what the (emulated) arm64 CPU and kernel give a ptrace tracer,
 * measured by behaviour on traced children of this program. Built with the
 * AArch64 cross compiler by ci.sh and run inside the emulated machine; it is
 * what proves the VM pipeline before (and independently of) asmspy's own
 * arm64 build, and its facts are what the arch shim must be written against.
 *
 * Output: `fact <key> <value>` lines, and `ok <name>` / `not ok <name>
 * <reason>` / `skip <name> <reason>` lines the suite runner counts.
 * Checks:
 *   regset_pc        PTRACE_GETREGSET NT_PRSTATUS: user_pt_regs, pc/sp sane
 *   set_pc           PTRACE_SETREGSET moves pc (the seam's set_ip)
 *   singlestep_count PTRACE_SINGLESTEP over a loop of known shape takes
 *                    exactly 2N+1 steps, every pc inside the loop
 *   brk_rewind       `brk #0` stops with pc AT the brk (no rewind needed,
 *                    resume by pc+4)
 *   hwwatch_*        NT_ARM_HW_WATCH slot count and a write watchpoint
 *                    firing once per store, with the writer's pc
 * Every child is resumed to its own _exit and reaped: none is left stopped. */
#define _GNU_SOURCE
#include <asm/ptrace.h>
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __aarch64__
#error "armfacts probes the AArch64 ptrace interface: build it with aarch64-linux-gnu-gcc"
#endif

#define LOOP_N 1000 /* iterations of af_loop: 2*LOOP_N+1 instructions */
#define STR_(x) #x
#define STR(x) STR_(x)

/* af_loop: `mov` then LOOP_N times (`subs`, `b.ne`): from af_loop to
 * af_loop_end is exactly 1 + 2*LOOP_N executed instructions.
 * af_brk: a breakpoint instruction at a known address. */
/* clang-format off */
__asm__(".text\n"
        ".global af_loop\n.type af_loop, %function\naf_loop:\n"
        "  mov x9, #" STR(LOOP_N) "\n"
        "1: subs x9, x9, #1\n"
        "  b.ne 1b\n"
        ".global af_loop_end\naf_loop_end:\n"
        "  ret\n"
        ".global af_brk\n.type af_brk, %function\naf_brk:\n"
        "  brk #0\n"
        "  ret\n");
/* clang-format on */
extern char af_loop[], af_loop_end[], af_brk[];
void af_loop_fn(void) __asm__("af_loop");
void af_brk_fn(void) __asm__("af_brk");

/* the watched variable; the child stores to it three times */
static volatile uint64_t af_target __attribute__((aligned(8)));
#define WATCH_WRITES 3

static int failures;

static void ok(const char *name) { printf("ok %s\n", name); }
static void notok(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notok(const char *name, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  printf("not ok %s %s\n", name, buf);
  failures++;
}

/* fork a child that stops itself under ptrace, then runs body() and exits
 * with code; returns its pid once it is in its SIGSTOP stop, or -1 */
static pid_t traced_child(void (*body)(void), int code) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(99);
    raise(SIGSTOP);
    body();
    _exit(code);
  }
  int st;
  if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
  }
  return pid;
}

/* resume pid (no signal) and reap it; 1 when it exited with code */
static int finish(pid_t pid, int code) {
  int st;
  for (int i = 0; i < 100; i++) {
    if (ptrace(PTRACE_CONT, pid, 0, 0) != 0) break;
    if (waitpid(pid, &st, 0) != pid) break;
    if (WIFEXITED(st)) return WEXITSTATUS(st) == code;
    if (WIFSIGNALED(st)) return 0;
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return 0;
}

static int get_regs(pid_t pid, struct user_pt_regs *r, size_t *len) {
  struct iovec iov = {r, sizeof *r};
  if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov) != 0) return -1;
  if (len) *len = iov.iov_len;
  return 0;
}

static int set_regs(pid_t pid, struct user_pt_regs *r) {
  struct iovec iov = {r, sizeof *r};
  return ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &iov);
}

static void nothing(void) {}

/* regset_pc, set_pc, singlestep_count: redirect a stopped child into
 * af_loop (lr = where it was), step to af_loop_end counting, restore. */
static void check_regs_and_step(void) {
  pid_t pid = traced_child(nothing, 7);
  if (pid < 0) {
    notok("regset_pc", "no traced child");
    return;
  }
  struct user_pt_regs saved, r;
  size_t len = 0;
  if (get_regs(pid, &saved, &len) != 0) {
    notok("regset_pc", "PTRACE_GETREGSET NT_PRSTATUS: %s", strerror(errno));
    finish(pid, 7);
    return;
  }
  printf("fact nt_prstatus_bytes %zu\n", len);
  printf("fact stopped_pc 0x%llx sp 0x%llx pstate 0x%llx\n", (unsigned long long)saved.pc,
         (unsigned long long)saved.sp, (unsigned long long)saved.pstate);
  if (len != sizeof(struct user_pt_regs) || saved.pc == 0 || saved.sp == 0 || (saved.pc & 3))
    notok("regset_pc", "len %zu (want %zu), pc 0x%llx", len, sizeof(struct user_pt_regs),
          (unsigned long long)saved.pc);
  else
    ok("regset_pc");

  r = saved;
  r.pc = (uintptr_t)af_loop;
  r.regs[30] = saved.pc;
  struct user_pt_regs back;
  if (set_regs(pid, &r) != 0 || get_regs(pid, &back, NULL) != 0 || back.pc != (uintptr_t)af_loop) {
    notok("set_pc", "PTRACE_SETREGSET pc did not stick: %s", strerror(errno));
    set_regs(pid, &saved);
    finish(pid, 7);
    return;
  }
  ok("set_pc");

  long steps = 0, outside = 0;
  int st, si_code = -1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long long pc = (uintptr_t)af_loop;
  while (pc != (uintptr_t)af_loop_end && steps < 10L * LOOP_N) {
    if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0 || waitpid(pid, &st, 0) != pid ||
        !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
      break;
    if (si_code < 0) {
      siginfo_t si;
      if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == 0) si_code = si.si_code;
    }
    if (get_regs(pid, &r, NULL) != 0) break;
    pc = r.pc;
    steps++;
    if (pc < (uintptr_t)af_loop || pc > (uintptr_t)af_loop_end) outside++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("fact singlestep_rate %.0f steps/s (%ld steps, each a PTRACE_SINGLESTEP + wait + "
         "GETREGSET)\n",
         secs > 0 ? (double)steps / secs : 0.0, steps);
  printf("fact singlestep_si_code %d (TRAP_TRACE=%d)\n", si_code, TRAP_TRACE);
  printf("fact singlestep_steps %ld expected %d\n", steps, 2 * LOOP_N + 1);
  if (steps == 2 * LOOP_N + 1 && outside == 0 && pc == (uintptr_t)af_loop_end)
    ok("singlestep_count");
  else
    notok("singlestep_count", "%ld steps (want %d), %ld pcs outside the loop, last pc 0x%llx",
          steps, 2 * LOOP_N + 1, outside, pc);
  if (set_regs(pid, &saved) != 0) notok("regs_restore", "PTRACE_SETREGSET: %s", strerror(errno));
  if (finish(pid, 7))
    ok("resume_after_restore");
  else
    notok("resume_after_restore",
          "child did not run on to exit(7) after its registers were restored");
}

/* brk_rewind: where pc is at a `brk #0` stop and how to resume past it */
static void check_brk(void) {
  pid_t pid = traced_child(af_brk_fn, 8);
  if (pid < 0) {
    notok("brk_rewind", "no traced child");
    return;
  }
  int st;
  struct user_pt_regs r;
  siginfo_t si = {0};
  if (ptrace(PTRACE_CONT, pid, 0, 0) != 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
      WSTOPSIG(st) != SIGTRAP || get_regs(pid, &r, NULL) != 0) {
    notok("brk_rewind", "no SIGTRAP stop at brk #0 (status 0x%x)", st);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return;
  }
  ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
  long off = (long)(r.pc - (uintptr_t)af_brk);
  printf("fact brk_stop_pc_minus_brk %ld si_code %d (TRAP_BRKPT=%d)\n", off, si.si_code,
         TRAP_BRKPT);
  r.pc = (uintptr_t)af_brk + 4;
  if (off == 0 && set_regs(pid, &r) == 0 && finish(pid, 8))
    ok("brk_rewind");
  else {
    notok("brk_rewind", "stop pc is brk%+ld (want +0), or resuming at brk+4 did not reach exit(8)",
          off);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
  }
}

static void write_target(void) {
  af_target = 1;
  af_target = 2;
  af_target = 3;
}

static int set_watch(pid_t pid, uint64_t addr, uint32_t ctrl) {
  struct user_hwdebug_state s;
  memset(&s, 0, sizeof s);
  s.dbg_regs[0].addr = addr;
  s.dbg_regs[0].ctrl = ctrl;
  struct iovec iov = {&s, offsetof(struct user_hwdebug_state, dbg_regs) + sizeof s.dbg_regs[0]};
  return ptrace(PTRACE_SETREGSET, pid, (void *)NT_ARM_HW_WATCH, &iov);
}

/* hwwatch_*: slots reported, a write watchpoint on af_target, one hit per
 * store; each hit is stepped over with the watchpoint disabled (measured:
 * whether that is needed, i.e. whether the hit re-fires on plain resume). */
static void check_hwwatch(void) {
  pid_t pid = traced_child(write_target, 9);
  if (pid < 0) {
    notok("hwwatch_slots", "no traced child");
    return;
  }
  struct user_hwdebug_state s;
  struct iovec iov = {&s, sizeof s};
  int st;
  memset(&s, 0, sizeof s);
  if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_ARM_HW_BREAK, &iov) == 0)
    printf("fact hw_break_slots %u debug_arch 0x%x\n", s.dbg_info & 0xff, (s.dbg_info >> 8) & 0xff);
  else
    printf("fact hw_break_slots unavailable (%s)\n", strerror(errno));
  iov.iov_len = sizeof s;
  memset(&s, 0, sizeof s);
  if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_ARM_HW_WATCH, &iov) != 0) {
    notok("hwwatch_slots", "PTRACE_GETREGSET NT_ARM_HW_WATCH: %s", strerror(errno));
    finish(pid, 9);
    return;
  }
  unsigned slots = s.dbg_info & 0xff;
  printf("fact hw_watch_slots %u debug_arch 0x%x\n", slots, (s.dbg_info >> 8) & 0xff);
  if (slots == 0) {
    printf("skip hwwatch_slots the CPU reports no watchpoint slots\n");
    finish(pid, 9);
    return;
  }
  ok("hwwatch_slots");
  /* ctrl: BAS 0xff (8 bytes) << 5 | store (2) << 3 | EL0 (2) << 1 | enable */
  const uint32_t ctrl = (0xffu << 5) | (2u << 3) | (2u << 1) | 1u;
  if (set_watch(pid, (uintptr_t)&af_target, ctrl) != 0) {
    notok("hwwatch_set", "PTRACE_SETREGSET NT_ARM_HW_WATCH: %s", strerror(errno));
    finish(pid, 9);
    return;
  }
  ok("hwwatch_set");
  int hits = 0, bad = 0, refire_probed = 0;
  for (int i = 0; i < 4 * WATCH_WRITES; i++) {
    if (ptrace(PTRACE_CONT, pid, 0, 0) != 0 || waitpid(pid, &st, 0) != pid) break;
    if (WIFEXITED(st) || WIFSIGNALED(st)) break;
    siginfo_t si = {0};
    struct user_pt_regs r;
    ptrace(PTRACE_GETSIGINFO, pid, 0, &si);
    get_regs(pid, &r, NULL);
    errno = 0;
    long val = ptrace(PTRACE_PEEKDATA, pid, (void *)&af_target, 0);
    printf("fact hwwatch_hit sig %d si_code %d (TRAP_HWBKPT=%d) si_addr %s pc 0x%llx value_at_stop "
           "%ld\n",
           WSTOPSIG(st), si.si_code, TRAP_HWBKPT,
           si.si_addr == (void *)&af_target ? "=watched" : "other", (unsigned long long)r.pc, val);
    if (WSTOPSIG(st) != SIGTRAP || si.si_code != TRAP_HWBKPT || si.si_addr != (void *)&af_target)
      bad++;
    if (!refire_probed) {
      /* resume with the watchpoint still armed: does it stop at the same
       * store again (report before the store, debugger must step over)? */
      refire_probed = 1;
      struct user_pt_regs r2;
      if (ptrace(PTRACE_CONT, pid, 0, 0) == 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) &&
          get_regs(pid, &r2, NULL) == 0) {
        long val2 = ptrace(PTRACE_PEEKDATA, pid, (void *)&af_target, 0);
        printf("fact hwwatch_refires_on_plain_resume %s (pc 0x%llx value %ld)\n",
               r2.pc == r.pc && val2 == val ? "yes" : "no", (unsigned long long)r2.pc, val2);
      } else if (WIFEXITED(st) || WIFSIGNALED(st)) {
        notok("hwwatch_count", "child ended after a plain resume from the first hit");
        return;
      }
    }
    /* step over the store with the watchpoint off, then re-arm */
    hits++;
    if (set_watch(pid, (uintptr_t)&af_target, 0) != 0 ||
        ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0 || waitpid(pid, &st, 0) != pid ||
        !WIFSTOPPED(st)) {
      notok("hwwatch_count", "could not step over the store with the watchpoint disabled");
      break;
    }
    long after = ptrace(PTRACE_PEEKDATA, pid, (void *)&af_target, 0);
    if (hits == 1) printf("fact hwwatch_value_after_step %ld (stop value %ld)\n", after, val);
    if (set_watch(pid, (uintptr_t)&af_target, ctrl) != 0) {
      notok("hwwatch_count", "could not re-arm the watchpoint");
      break;
    }
  }
  if (WIFSTOPPED(st)) {
    set_watch(pid, (uintptr_t)&af_target, 0);
    if (!finish(pid, 9)) bad++;
  } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 9) {
    bad++;
  }
  if (hits == WATCH_WRITES && bad == 0)
    ok("hwwatch_count");
  else
    notok("hwwatch_count", "%d hits for %d stores, %d bad stops/exits", hits, WATCH_WRITES, bad);
}

/* facts only: pointer authentication (PAC bits in saved lr), SVE, perf */
static void report_cpu(void) {
  unsigned long hw = getauxval(AT_HWCAP);
#ifdef HWCAP_PACA
  printf("fact hwcap_paca %d\n", !!(hw & HWCAP_PACA));
#endif
#ifdef HWCAP_SVE
  printf("fact hwcap_sve %d\n", !!(hw & HWCAP_SVE));
#endif
  printf("fact hwcap 0x%lx hwcap2 0x%lx\n", hw, getauxval(AT_HWCAP2));
  pid_t pid = traced_child(nothing, 6);
  if (pid >= 0) {
    struct user_pac_mask m = {0};
    struct iovec iov = {&m, sizeof m};
    if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_ARM_PAC_MASK, &iov) == 0)
      printf("fact pac_mask data 0x%llx insn 0x%llx\n", (unsigned long long)m.data_mask,
             (unsigned long long)m.insn_mask);
    else
      printf("fact pac_mask unavailable (%s)\n", strerror(errno));
    finish(pid, 6);
  }
  static const struct {
    uint32_t type;
    uint64_t config;
    const char *name;
  } ev[] = {
      {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "perf_hw_instructions"},
      {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "perf_hw_cycles"},
      {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "perf_sw_cpu_clock"},
  };
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = ev[i].type;
    a.config = ev[i].config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
      printf("fact %s unavailable (%s)\n", ev[i].name, strerror(errno));
      continue;
    }
    af_loop_fn();
    uint64_t n = 0;
    if (read(fd, &n, sizeof n) != (ssize_t)sizeof n) n = 0;
    printf("fact %s opened, %llu counted over af_loop (%d instructions)\n", ev[i].name,
           (unsigned long long)n, 2 * LOOP_N + 2);
    close(fd);
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  check_regs_and_step();
  check_brk();
  check_hwwatch();
  report_cpu();
  return failures ? 1 : 0;
}
