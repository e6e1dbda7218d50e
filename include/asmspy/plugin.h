/* asmspy plugin ABI — the whole contract between the host (libasmspy) and a
 * dlopen'd capture backend or view plugin.
 *
 * Rules (SQLite iVersion / Vulkan negotiation / kernel copy_struct_from_user):
 *   - A plugin exports exactly one symbol, ASMSPY_PLUGIN_ENTRY_NAME.
 *   - Every struct that crosses the boundary starts with
 *         uint32_t abi_version;  (ASMSPY_ABI_VERSION the writer was built with)
 *         uint32_t struct_size;  (sizeof as the writer compiled it)
 *     Members are only ever appended, under a "--- ABI 1.N ---" marker.
 *     A reader touches a member only when ASMSPY_HAS(ptr, member) says the
 *     writer's struct is big enough to contain it.
 *   - A different MAJOR is refused (with a recorded reason), never a crash.
 *     A newer MINOR is accepted; the reader simply ignores what it does not know.
 *   - The host owns every piece of shared machinery (ptrace seam, symbols,
 *     disassembly, target memory, output writer); plugins reach it only through
 *     the asmspy_host_api table handed to the entry point. Plugins never link
 *     host symbols.
 *
 * History of this header: docs/ABI.md.
 */
#ifndef ASMSPY_PLUGIN_H
#define ASMSPY_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASMSPY_ABI_MAJOR 1u
#define ASMSPY_ABI_MINOR 12u
#define ASMSPY_ABI_MAKE(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
#define ASMSPY_ABI_VERSION ASMSPY_ABI_MAKE(ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR)
#define ASMSPY_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define ASMSPY_ABI_MINOR_OF(v) ((uint32_t)(v)&0xffffu)

/* True when the struct behind p (whose writer declared p->struct_size) is big
 * enough to hold `member`. */
#define ASMSPY_HAS(p, member)                                                                      \
  ((p)->struct_size >= offsetof(__typeof__(*(p)), member) + sizeof((p)->member))

/* Fill the two header words of a boundary struct we are about to hand across. */
#define ASMSPY_INIT_HEADER(p)                                                                      \
  do {                                                                                             \
    (p)->abi_version = ASMSPY_ABI_VERSION;                                                         \
    (p)->struct_size = (uint32_t)sizeof(*(p));                                                     \
  } while (0)

#define ASMSPY_EXPORT __attribute__((visibility("default")))
#define ASMSPY_PLUGIN_ENTRY_NAME "asmspy_plugin_entry"

/* ------------------------------------------------------------------------- */
/* Status codes: three classes that must never be merged (numeric bands).     */
/*   0      clean                                                             */
/*   1xx    TARGET FACT: the tracer worked; this is the answer                */
/*   2xx    ATTACH: works on this host, could not attach to THIS target       */
/*   3xx    UNAVAILABLE: this backend cannot run on this host at all          */
/*   4xx    LOAD/ABI problems; 5xx internal errors                            */
/* Engine entry points return 0, a negative -ASMSPY_E_* for tracer failure,   */
/* or a positive ASMSPY_FACT_* skip. asmspy_strerror() renders any of them.   */
/* ------------------------------------------------------------------------- */
enum asmspy_status {
  ASMSPY_OK = 0,
  ASMSPY_USABLE = 0,

  ASMSPY_FACT_NOT_REACHED = 101, /* the region/function never ran */
  ASMSPY_FACT_EXITED = 102,      /* the target exited */
  ASMSPY_FACT_NO_EVENTS = 103,   /* it ran, but produced nothing of the requested kind */
  ASMSPY_FACT_I386 = 104,        /* 32-bit tracee: refused rather than mis-decoded */
  ASMSPY_FACT_UNSUITED = 105,    /* 1.11: this backend does not trace this target safely
                                    (it said why); one of another kind may */

  ASMSPY_E_ATTACH_PERM = 201, /* EPERM: ptrace_scope, uid, perf_event_paranoid */
  ASMSPY_E_ATTACH_BUSY = 202, /* already traced; slots taken */
  ASMSPY_E_ATTACH_GONE = 203, /* ESRCH: no such process */

  ASMSPY_E_NO_HW = 301,     /* CPU lacks the feature */
  ASMSPY_E_NO_KERNEL = 302, /* no PMU in sysfs, kernel too old, config off */
  ASMSPY_E_VIRT = 303,      /* a hypervisor hides or kills the feature */
  ASMSPY_E_NO_LIB = 304,    /* a runtime library is missing */
  ASMSPY_E_PERM = 305,      /* host policy forbids it (perf_event_paranoid, seccomp) */

  ASMSPY_E_ABI = 401,
  ASMSPY_E_NO_ENTRY = 402,
  ASMSPY_E_BAD_DESCRIPTOR = 403,
  ASMSPY_E_DUP_NAME = 404,
  ASMSPY_E_PROBE_CRASH = 405, /* probe died on a signal (isolated: host survives) */
  ASMSPY_E_PROBE_HANG = 406,  /* probe exceeded its time limit and was killed */

  ASMSPY_E_INTERNAL = 501,
  ASMSPY_E_NOMEM = 502,
  ASMSPY_E_USAGE = 503,
};
#define ASMSPY_STATUS_CLASS(s) ((s) < 0 ? -(s) / 100 : (s) / 100)

/* ------------------------------------------------------------------------- */
/* Capability flags (uint64 bitmask). Unknown bits are ignored, never refused. */
/* ------------------------------------------------------------------------- */
#define ASMSPY_CAP_INSN_STREAM (1ull << 0)    /* every executed instruction */
#define ASMSPY_CAP_BRANCH_SAMPLES (1ull << 1) /* statistical from->to edges */
#define ASMSPY_CAP_SYSCALLS (1ull << 2)       /* syscall enter/exit with args */
#define ASMSPY_CAP_DATA_VALUES (1ull << 3)    /* register/memory values per step */
#define ASMSPY_CAP_WATCHPOINTS (1ull << 4)    /* data watch hits */
#define ASMSPY_CAP_ATTACH_PID (1ull << 5)     /* can trace another process */
#define ASMSPY_CAP_INPROCESS (1ull << 6)      /* can trace the calling thread (scopes) */
#define ASMSPY_CAP_IP_SAMPLES (1ull << 7)     /* statistical IP samples */
#define ASMSPY_CAP_TASKS (1ull << 8)          /* clone/fork/exec/exit topology */
/* 1.3 */
#define ASMSPY_CAP_EXACT_SP (1ull << 9) /* every INSN event carries the exact sp and regs */
/* one code region per invocation: run to its entry,
   step it, step over call-outs at native speed */
#define ASMSPY_CAP_REGION (1ull << 10)

/* 1.5 */
#define ASMSPY_CAP_OUT_OF_BAND (1ull << 11) /* never ptraces or steps the target (perf only) */
/* 1.9: function entries/exits as ASMSPY_EV_CALL events
   (no instruction stream: the call views run on it) */
#define ASMSPY_CAP_CALLS (1ull << 12)

enum asmspy_kind { ASMSPY_KIND_BACKEND = 1, ASMSPY_KIND_VIEW = 2 };

/* Opaque host objects: plugins only pass these back into host services. */
struct asmspy_target; /* one traced process: symbols, memory, fds */
struct asmspy_seam;   /* the ptrace seam of one session */
struct asmspy_out;    /* the output writer of one session */
struct asmspy_record; /* 1.8: see "typed records" below */
struct asmspy_optval; /* 1.8: see "option parsing" below */
struct asmspy_option; /* 1.8: one option a mode accepts (its descriptor tables below) */
struct asmspy_arch;   /* 1.12: see "the architecture" below */

/* ------------------------------------------------------------------------- */
/* Probe result: host-owned memory, the plugin fills it, no allocation.        */
/* ------------------------------------------------------------------------- */
struct asmspy_probe_result {
  uint32_t abi_version;
  uint32_t struct_size; /* host-set; the plugin writes only within it */
  int32_t status;       /* ASMSPY_USABLE or an ASMSPY_E_* (3xx normally) */
  int32_t sys_errno;    /* the errno behind it, or 0 */
  uint64_t caps_available;
  char reason[256]; /* one line with the evidence (path, syscall+errno, sysctl) */
  /* --- ABI 1.0 ends here; append below --- */
};

/* ------------------------------------------------------------------------- */
/* Events: backend -> host -> view. Pointers inside are valid only during the  */
/* sink call (capstone's reused-insn idea).                                    */
/* ------------------------------------------------------------------------- */
enum asmspy_event_type {
  ASMSPY_EV_INSN = 1,   /* one executed instruction (ip, bytes) */
  ASMSPY_EV_BRANCH = 2, /* from -> to edge */
  ASMSPY_EV_SYSCALL_ENTER = 3,
  ASMSPY_EV_SYSCALL_EXIT = 4,
  ASMSPY_EV_TASK = 5,   /* clone / fork / exec / exit */
  ASMSPY_EV_NOTE = 6,   /* human note from the backend */
  ASMSPY_EV_LOST = 7,   /* data loss is a first-class event */
  ASMSPY_EV_SIGNAL = 8, /* a signal delivered to the target */
  /* 1.3: region sessions (--trace, --dataflow) */
  ASMSPY_EV_REGION_ENTER = 9, /* a thread entered the region (ip = entry); a sample begins */
  ASMSPY_EV_REGION_EXIT = 10, /* the invocation returned (u.region) */
  ASMSPY_EV_CALLOUT = 11,     /* the region called out (u.branch: call site -> callee);
                                 the callee ran at native speed, not stepped */
  /* 1.5: samplers, watchpoints, code images */
  ASMSPY_EV_SAMPLE = 12,     /* one statistical IP sample (ip, tid; u.sample) */
  ASMSPY_EV_WATCH_HIT = 13,  /* a data watchpoint fired (ip = the toucher; u.watch) */
  ASMSPY_EV_CODEIMAGE = 14,  /* the bytes of a code region at a logical time (u.code) */
  ASMSPY_EV_PROVENANCE = 15, /* a sampler's window summary (u.prov), once at the end */
  /* 1.9: call sessions (ASMSPY_CAP_CALLS) */
  ASMSPY_EV_CALL = 16, /* a function was entered or left (ip = its entry; u.call) */
};

/* u.call.what (1.9). A view ignores a value it does not know.
 * 1.12: ASMSPY_CALL_REFUSED — the backend selected the function at
 * u.call.func but could not trace it (u.call.why says why, e.g. "a call in
 * its first 5 bytes"); sent once per function, before the session's first
 * ENTRY, with tid 0. A view lists such a function as not traced, never as
 * "called 0 times". */
enum asmspy_call_what { ASMSPY_CALL_ENTRY = 1, ASMSPY_CALL_EXIT = 2, ASMSPY_CALL_REFUSED = 3 };

enum asmspy_task_what {
  ASMSPY_TASK_CLONE = 1, /* new thread: u.task.child */
  ASMSPY_TASK_FORK = 2,  /* new process: u.task.child */
  ASMSPY_TASK_EXEC = 3,
  ASMSPY_TASK_EXIT = 4, /* u.task.code = exit status or -signal */
};

/* asmspy_event.flags */
#define ASMSPY_EVF_SP_UNKNOWN (1u << 0) /* INSN: u.insn.sp was not read for this step */
/* 1.5: BRANCH / SAMPLE qualifiers (a sampler sets what its hardware reports) */
#define ASMSPY_EVF_BR_TAKEN (1u << 1)   /* the branch was taken (u.branch.to is its target) */
#define ASMSPY_EVF_BR_MISP (1u << 2)    /* the branch was mispredicted */
#define ASMSPY_EVF_BR_RET (1u << 3)     /* the branch is a return */
#define ASMSPY_EVF_BR_CALL (1u << 4)    /* the branch is a call */
#define ASMSPY_EVF_SAMPLED (1u << 5)    /* statistical: one sample of many, not every instance */
#define ASMSPY_EVF_WATCH_READ (1u << 6) /* WATCH_HIT: a read (or read/write) access fired it */
/* 1.7 WATCH_HIT: when the value was read, another armed thread sat in an
 * unreported trap of its own (it had written too): new_value may be that
 * thread's write, not this one's. x86 traps AFTER the access, so the value
 * of a read-modify-write (add [m], 1) cannot be recovered exactly then. */
#define ASMSPY_EVF_WATCH_CONCURRENT (1u << 7)
/* 1.9 CALL qualifiers */
/* EXIT: the frame was left without returning
   (longjmp, an exception): ts is when it was seen gone */
#define ASMSPY_EVF_CALL_UNWOUND (1u << 8)
/* ENTRY: entered by a tail jump (the caller's
   frame was reused); its exit comes with the caller's */
#define ASMSPY_EVF_CALL_TAIL (1u << 9)
/* ENTRY: no exit will be recorded (too deep to
   hook, or a function that returns twice: setjmp,
   vfork, getcontext): the views show a leaf */
#define ASMSPY_EVF_CALL_NOEXIT (1u << 10)
/* ENTRY: not a call but a frame the thread inherited, open when it began (a
 * forked child's copy of its parent's frames, a vfork child's parent's
 * frames; they come first, outermost first): the views count and print it
 * not, they put it under the thread's calls (printed depth, filter state)
 * as the parent had it. Its exit, if the child returns through it, comes as
 * any exit. (bit 13: 11 and 12 are the SIGNAL qualifiers') */
#define ASMSPY_EVF_CALL_INHERITED (1u << 13)
/* 1.12 SIGNAL qualifiers */
#define ASMSPY_EVF_SIG_INFO (1u << 11) /* u.signal's 1.12 siginfo fields are filled */
/* not a delivery: the task entered a job-control
   group-stop by u.signal.signo (strace's
   `--- stopped by SIGSTOP ---`); no siginfo */
#define ASMSPY_EVF_SIG_GROUP_STOP (1u << 12)

struct asmspy_event {
  uint32_t abi_version;
  uint32_t struct_size;
  uint16_t type; /* enum asmspy_event_type */
  uint16_t flags;
  int32_t pid; /* thread group */
  int32_t tid;
  uint32_t nthreads; /* threads currently followed (views prefix [tid] when > 1) */
  uint64_t seq;      /* per-session sequence number (logical time) */
  uint64_t ip;
  struct asmspy_target *target; /* which process's symbols/memory this event belongs to */
  union {
    struct {
      uint8_t bytes[16];
      uint8_t len; /* bytes valid (the host fills up to 16, instruction may be shorter) */
      uint64_t sp;
    } insn;
    struct {
      uint64_t from, to;
    } branch;
    struct {
      int64_t nr;
      uint64_t args[6];
      int64_t ret; /* exit only */
      int32_t is_error;
    } sys;
    struct {
      uint32_t what;
      int32_t child;
      int32_t code;
    } task;
    struct {
      const char *text;
    } note;
    struct {
      uint64_t count;
    } lost;
    struct {               /* REGION_ENTER / REGION_EXIT */
      uint64_t start, len; /* the region */
      uint64_t retval;     /* EXIT: rax (the return register) at the return */
      uint64_t sample;     /* 1-based invocation number */
      uint32_t truncated;  /* EXIT: the sample was cut short (max steps, detach) */
      uint32_t reached;    /* EXIT: 0 = the region was never entered (entry wait ran out) */
    } region;
    struct {
      int32_t signo;
      int32_t code;
      /* --- 1.12 (inside the fixed union: the event's size is unchanged):
       * the rest of the kernel's siginfo, valid when flags has
       * ASMSPY_EVF_SIG_INFO. Which fields mean something follows si_code
       * and signo, as in siginfo_t: */
      int32_t err;          /* si_errno */
      int32_t pid;          /* si_pid: the sender (code <= 0) or the child (SIGCHLD) */
      uint32_t uid;         /* si_uid */
      int32_t status;       /* SIGCHLD: exit code (CLD_EXITED) or signal */
      int64_t utime, stime; /* SIGCHLD: the child's times, clock ticks */
      uint64_t addr;        /* SIGSEGV/BUS/ILL/FPE/TRAP si_addr; SIGSYS si_call_addr */
      uint64_t value;       /* SI_QUEUE/SI_MESGQ/SI_TIMER si_value (si_int = low 32 bits) */
      int64_t band;         /* SIGPOLL si_band */
      int32_t fd;           /* SIGPOLL si_fd */
      int32_t timerid;      /* SI_TIMER si_timerid */
      int32_t overrun;      /* SI_TIMER si_overrun */
      int32_t syscall;      /* SIGSYS si_syscall */
      uint32_t arch;        /* SIGSYS si_arch (AUDIT_ARCH_*) */
    } signal;
    /* --- members below arrived in 1.5 (the union's size never changes) --- */
    struct {           /* SAMPLE */
      uint64_t weight; /* samples this event stands for (normally 1) */
      uint64_t period; /* the sampling period (ns for a clock, ops for IBS) */
    } sample;
    struct {              /* WATCH_HIT */
      uint64_t addr;      /* the watched address */
      uint64_t old_value; /* little-endian, len bytes valid */
      uint64_t new_value;
      uint32_t len;  /* 1, 2, 4 or 8 */
      uint32_t slot; /* which hardware slot (DR0-3 / wvr index) */
    } watch;
    struct { /* CODEIMAGE */
      uint64_t base, len;
      uint64_t version;     /* 1, 2, ... per region: bumps only when the bytes changed */
      const uint8_t *bytes; /* len bytes, valid during the sink call */
    } code;
    struct {                   /* PROVENANCE */
      uint64_t samples;        /* every sample the kernel delivered */
      uint64_t branch_samples; /* those that carried a branch */
      uint64_t lost;           /* PERF_RECORD_LOST counts */
      uint64_t throttled;      /* PERF_RECORD_THROTTLE records */
      uint64_t window_ns;      /* how long the window really was */
      const char *sampler;     /* "ibs", "lbr", "sw-clock", "ptrace" */
    } prov;
    /* --- member below arrived in 1.9 --- */
    struct {          /* CALL */
      uint64_t func;  /* the function's entry address (== ip) */
      uint64_t ret;   /* ENTRY: the return address (in the caller); EXIT: where it
                                returned to */
      uint64_t slot;  /* the stack address of the return slot: frames nest by it */
      uint64_t ts_ns; /* CLOCK_MONOTONIC, ns */
      uint32_t what;  /* enum asmspy_call_what */
      uint32_t depth; /* recorded frames of this thread below this one */
      /* --- 1.12 (inside the fixed union: the event's size is unchanged) --- */
      const char *why; /* REFUSED: why it is not traced (valid during the sink call) */
    } call;
    uint8_t pad[128]; /* fixes the union's size for ABI 1.x */
  } u;
  /* --- ABI 1.0 ends here --- */
  /* INSN: the registers before the instruction ran, when the backend read
   * them (always under ASMSPY_SESS_EXACT_SP / region sessions); else NULL.
   * Valid only during the sink call. */
  const struct asmspy_regs *regs;
  /* --- ABI 1.3 ends here; append below --- */
};

/* Returns 0 to continue, non-zero to ask the backend to stop (n reached).
 * ptrace backends call the sink while the emitting thread is still stopped,
 * so a view may read target memory / fds for the event during the call
 * (the syscall log decodes buffers this way). */
typedef int (*asmspy_sink_fn)(void *sink_ctx, const struct asmspy_event *ev);

/* ------------------------------------------------------------------------- */
/* Session: what one run of a mode asks for. Host-owned, read-only to plugins. */
/* ------------------------------------------------------------------------- */
#define ASMSPY_SESS_FOLLOW (1u << 0)   /* trace forked children too (strace -f) */
#define ASMSPY_SESS_LAUNCHED (1u << 1) /* target was spawned by asmspy (kill on error) */
#define ASMSPY_SESS_JSON (1u << 2)     /* NDJSON on stdout instead of text */
#define ASMSPY_SESS_EXACT_SP (1u << 3) /* 1.3: the view needs exact sp/regs on every INSN */
/* 1.9: with ASMSPY_SESS_LAUNCHED, seam.attach runs the command through its
 * exec AND ld.so to the program's entry point (its libraries mapped) and
 * returns it stopped there, instead of stopping at the exec. */
#define ASMSPY_SESS_TO_ENTRY (1u << 4)
/* 1.5: asmspy_session.watch_access */
#define ASMSPY_WATCH_WRITE 1u
#define ASMSPY_WATCH_READ 2u

struct asmspy_session {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *mode;         /* "stream", "log", ... */
  int32_t pid;              /* target (after --launch: the spawned child) */
  int32_t tid;              /* --tid=<t>, or 0 for the whole process */
  uint32_t flags;           /* ASMSPY_SESS_* */
  int64_t max;              /* n; negative = until the target exits or interrupted */
  const volatile int *stop; /* set asynchronously (Ctrl-C, serve stop) */
  struct asmspy_target *target;
  struct asmspy_out *out;
  asmspy_sink_fn sink; /* backends emit through this */
  void *sink_ctx;
  int argc; /* mode arguments left after the pid / n (views parse them) */
  char *const *argv;
  char *const *launch_argv; /* --launch: the command (NULL-terminated), else NULL */
  /* --- ABI 1.0 ends here --- */
  /* Region sessions (--trace, --dataflow): region_len > 0 asks a backend
   * with ASMSPY_CAP_REGION to capture whole invocations of
   * [region_start, region_start + region_len) instead of a stream. */
  uint64_t region_start, region_len;
  int64_t entry_wait_ms; /* give up waiting for an entry after this (0 = forever) */
  int64_t max_steps;     /* per sample; 0 = unbounded (the sample is then truncated) */
  /* --- ABI 1.3 ends here --- */
  /* Samplers (--sample, --auto): how long to sample; 0 = the backend's default. */
  int64_t window_ms;
  /* Watch sessions (--watch): the address, width (1/2/4/8) and access
   * (ASMSPY_WATCH_WRITE, | ASMSPY_WATCH_READ for --rw). watch_len 0 = none. */
  uint64_t watch_addr;
  uint32_t watch_len;
  uint32_t watch_access;
  /* --- ABI 1.5 ends here --- */
  /* 1.8: the argument of a parameterised sampler rung: `--sampler=event:<name>`
   * runs the backend whose sampler_rung is "event" with sampler_arg
   * "<name>". NULL when the rung takes none. */
  const char *sampler_arg;
  /* --- ABI 1.8 ends here --- */
  /* 1.9: call sessions (ASMSPY_CAP_CALLS backends): which functions to
   * record. NULL / 0 = the backend's default (every function of the main
   * executable and its PLT entries, up to its cap). Set by the view's
   * configure(). */
  const char *call_module; /* comma-separated globs on module basenames ("libpython3*,libc.so*");
                               a pattern without * ? [ matches as a substring (e.g. "libc") */
  /* 1.12: call_include / call_exclude are uftrace's -F / -N, applied by the
   * view: the backend patches their matches in addition to what it patches
   * anyway (so the calls inside an -F function are seen), never only them. */
  const char *call_include; /* comma-separated globs: show only calls inside these (uftrace -F) */
  const char *call_exclude; /* comma-separated globs: hide these and their callees (uftrace -N) */
  uint32_t call_max_funcs;  /* patch at most this many functions (0 = the default cap) */
  uint32_t call_pad_;
  /* --- ABI 1.9 ends here --- */
  /* 1.12: comma-separated globs: patch only these (uftrace -P); NULL = the
   * backend's default selection. */
  const char *call_patch;
  /* --- ABI 1.12 ends here; append below --- */
};

/* ------------------------------------------------------------------------- */
/* Registers, arch-neutral view. gpr[] order on x86-64 = struct                */
/* user_regs_struct order (r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx   */
/* rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs).         */
/* ------------------------------------------------------------------------- */
struct asmspy_regs {
  uint32_t abi_version;
  uint32_t struct_size;
  uint64_t ip, sp, fp, flags;
  uint64_t retval;
  uint32_t ngpr;
  uint64_t gpr[32];
  /* --- ABI 1.0 ends here; append below --- */
};

/* A stop reported by the seam. */
enum asmspy_stop_kind {
  ASMSPY_STOP_STEP = 1,         /* a single-step we requested completed */
  ASMSPY_STOP_SIGNAL = 2,       /* signal-delivery stop (u.sig); resume with it to deliver */
  ASMSPY_STOP_SYSCALL = 3,      /* syscall entry/exit stop (PTRACE_O_TRACESYSGOOD) */
  ASMSPY_STOP_NEW_TASK = 4,     /* a new thread/process joined the session (new_tid) */
  ASMSPY_STOP_EXEC = 5,         /* the task exec'd; symbols were refreshed */
  ASMSPY_STOP_EXITED = 6,       /* a task is gone (exit_code) — no resume needed */
  ASMSPY_STOP_GROUP = 7,        /* group-stop or our own interrupt: just resume */
  ASMSPY_STOP_TARGET_TRAP = 8,  /* the target's own int3/trap: deliver SIGTRAP back */
  ASMSPY_STOP_NONE = 9,         /* nothing left to wait for (all tasks gone) */
  ASMSPY_STOP_INTERRUPTED = 10, /* the session's stop flag was raised */
  ASMSPY_STOP_TIMEOUT = 11,     /* 1.3: next_stop_timeout() ran out */
  /* 1.7: an int3 asmspy planted (host->write_mem of 0xcc) was executed. The
   * seam has already rewound ip onto the breakpoint's address (stop.addr),
   * so resuming re-executes whatever byte is there now: the breakpoint again
   * while it is planted (a held arrival comes back), the original
   * instruction once it is restored. No signal is owed: sig is 0. */
  ASMSPY_STOP_BREAKPOINT = 12,
  /* 1.7: a debug-register trap (TRAP_HWBKPT) in a thread whose debug
   * registers asmspy wrote (poke_user / set_regset): the backend reads DR6 /
   * the hit address. No signal is owed: sig is 0. */
  ASMSPY_STOP_WATCH = 13
};

/* asmspy_stop.flags (1.7). */
/* The trap was taken while the thread had SIGTRAP blocked (it runs inside
 * the target's own SIGTRAP handler). The kernel reset that handler to
 * SIG_DFL when it sent the trap; the seam has put the handler and the
 * thread's mask back. Another trap in this context (a step, a breakpoint)
 * would do the same again: do not step or trap here. */
#define ASMSPY_STOPF_IN_TRAP_HANDLER 0x1u
/* 1.12: siginfo holds the stop's siginfo_t. */
#define ASMSPY_STOPF_SIGINFO 0x2u

struct asmspy_stop {
  uint32_t abi_version;
  uint32_t struct_size;
  uint32_t kind; /* enum asmspy_stop_kind */
  int32_t tid;
  int32_t pid; /* thread group of tid */
  int32_t sig; /* signal to deliver on resume (SIGNAL, TARGET_TRAP) */
  int32_t new_tid;
  int32_t exit_code;            /* EXITED: exit status, or -signal when killed */
  uint32_t is_process;          /* NEW_TASK: a forked process (not a thread) */
  uint32_t nthreads;            /* tasks currently followed */
  struct asmspy_target *target; /* the process tid belongs to (per-process symbols) */
  /* --- ABI 1.0 ends here --- */
  /* STEP / SIGNAL / TARGET_TRAP: the stop's siginfo si_code. For STEP it says
   * what completed: TRAP_TRACE (1 instruction), TRAP_BRKPT (a syscall returned:
   * only a `syscall` instruction ran, or nothing if the step began inside the
   * syscall, e.g. at an exec or attach stop), SIGTRAP=5 (a signal handler
   * frame was set up: no instruction ran). */
  int32_t si_code;
  /* --- ABI 1.1 ends here --- */
  uint64_t addr;  /* 1.7: BREAKPOINT: the breakpoint's address (== ip) */
  uint32_t flags; /* 1.7: ASMSPY_STOPF_* */
  /* --- ABI 1.7 ends here --- */
  uint32_t pad_; /* 1.12: names 1.7's tail padding (never read) */
  /* 1.12: GROUP: the stop signal of a job-control group-stop (SIGSTOP,
   * SIGTSTP, SIGTTIN, SIGTTOU); 0 for our interrupt or a wake-up. */
  int32_t group_sig;
  /* 1.12: SIGNAL / TARGET_TRAP with ASMSPY_STOPF_SIGINFO: the kernel's
   * siginfo_t of the stop (PTRACE_GETSIGINFO), 128 bytes as the kernel lays
   * it out for the host's arch. */
  uint8_t siginfo[128];
  /* --- ABI 1.12 ends here; append below --- */
};

/* One syscall stop, as PTRACE_GET_SYSCALL_INFO describes it (or, on kernels
 * without it, as the seam reconstructs it from registers and an entry/exit
 * toggle). */
enum asmspy_syscall_op {
  ASMSPY_SYSCALL_NONE = 0,
  ASMSPY_SYSCALL_ENTRY = 1,
  ASMSPY_SYSCALL_EXIT = 2
};

struct asmspy_syscall_info {
  uint32_t abi_version;
  uint32_t struct_size;
  uint32_t op;      /* enum asmspy_syscall_op */
  int32_t is_error; /* EXIT: rval is -errno */
  int64_t nr;       /* ENTRY (and EXIT when known) */
  uint64_t args[6]; /* ENTRY */
  int64_t rval;     /* EXIT */
  uint64_t ip, sp;
  uint32_t from_toggle; /* 1: reconstructed by the fallback toggle, not the kernel */
  /* --- ABI 1.2 ends here; append below --- */
};

/* The ptrace seam: every ptrace call lives here, once. One tracer thread. */
struct asmspy_seam_api {
  uint32_t abi_version;
  uint32_t struct_size;
  /* Seize per the session: every thread (+clone following), or only s->tid,
   * plus fork following with ASMSPY_SESS_FOLLOW. All tasks are left stopped. */
  int (*attach)(const struct asmspy_session *s, struct asmspy_seam **out);
  /* Wait for the next stop of any followed task (waitpid(-1, __WALL)).
   * Returns 0 and fills *stop, or a negative status. Bookkeeping (clone
   * events, exits, group stops) is done here; the caller decides resumes. */
  int (*next_stop)(struct asmspy_seam *seam, struct asmspy_stop *stop);
  int (*step)(struct asmspy_seam *seam, pid_t tid, int sig);
  int (*resume)(struct asmspy_seam *seam, pid_t tid, int sig);
  int (*resume_syscall)(struct asmspy_seam *seam, pid_t tid, int sig);
  int (*get_regs)(struct asmspy_seam *seam, pid_t tid, struct asmspy_regs *regs);
  /* Two-phase detach: interrupt and stop all, clear any armed step, drain a
   * pending step trap, then release all. Frees the seam. */
  int (*detach)(struct asmspy_seam *seam);
  /* Resume every stopped task that is not `except` (used right after attach). */
  int (*resume_all)(struct asmspy_seam *seam, int how_step);
  uint32_t (*thread_count)(struct asmspy_seam *seam);
  /* --- ABI 1.0 ends here --- */
  /* 1 when `sig` is in tid's blocked mask. Stepping a thread that blocks
   * SIGTRAP (inside its own SIGTRAP handler) is unsafe: the kernel's forced
   * step trap would reset the target's SIGTRAP disposition to SIG_DFL. */
  int (*signal_blocked)(struct asmspy_seam *seam, pid_t tid, int sig);
  /* Like step(tid, 0), for the hot path: the caller promises that tid sits
   * between two user instructions (its last stop was a TRAP_TRACE step) and
   * that the instruction about to run cannot raise SIGTRAP itself (no int3 /
   * int n / int1 / syscall). The seam then classifies the next SIGTRAP as a
   * completed step without a PTRACE_GETSIGINFO round trip (one ptrace call
   * per step fewer; in a VM each costs microseconds). */
  int (*step_plain)(struct asmspy_seam *seam, pid_t tid);
  /* --- ABI 1.1 ends here --- */
  /* At an ASMSPY_STOP_SYSCALL stop: which syscall, entry or exit. */
  int (*syscall_info)(struct asmspy_seam *seam, pid_t tid, struct asmspy_syscall_info *out);
  /* --- ABI 1.2 ends here --- */
  /* next_stop(), but give up after timeout_ms (> 0) with ASMSPY_STOP_TIMEOUT. */
  int (*next_stop_timeout)(struct asmspy_seam *seam, struct asmspy_stop *stop, int64_t timeout_ms);
  /* Move a stopped thread's instruction pointer (after a breakpoint hit). */
  int (*set_ip)(struct asmspy_seam *seam, pid_t tid, uint64_t ip);
  /* Stop every running task except `except` (PTRACE_INTERRUPT); their
   * stops arrive through next_stop as GROUP stops. */
  int (*interrupt_all)(struct asmspy_seam *seam, pid_t except);
  /* --- ABI 1.3 ends here --- */
  /* The debug-register seam (hwwatch). peek/poke_user read and write one
   * word of the tracee's struct user at `offset` (x86-64: the debug
   * registers at offsetof(struct user, u_debugreg[i])). get/set_regset are
   * PTRACE_GETREGSET/SETREGSET of note type `nt` (AArch64: NT_ARM_HW_WATCH),
   * *len in/out. All return 0 or -errno. A test may hand a plugin a seam
   * table of its own whose stops and registers are scripted. */
  int (*peek_user)(struct asmspy_seam *seam, pid_t tid, uint64_t offset, uint64_t *value);
  int (*poke_user)(struct asmspy_seam *seam, pid_t tid, uint64_t offset, uint64_t value);
  int (*get_regset)(struct asmspy_seam *seam, pid_t tid, uint32_t nt, void *buf, size_t *len);
  int (*set_regset)(struct asmspy_seam *seam, pid_t tid, uint32_t nt, const void *buf, size_t len);
  /* Every thread currently followed, into tids[cap]; returns the count. */
  uint32_t (*list_threads)(struct asmspy_seam *seam, pid_t *tids, uint32_t cap);
  /* --- ABI 1.5 ends here --- */
  /* === 1.8: probes drive their children through the seam === */
  /* A probe's test subject, traced by a seam of its own, so that a probe
   * never calls ptrace(2) or waitpid(2) itself: every ptrace call stays in
   * the seam, and the child cannot outlive the probe.
   * Forks a child that dies with its parent (PR_SET_PDEATHSIG SIGKILL), asks
   * to be traced (PTRACE_TRACEME: allowed for one's own child where seizing
   * another process may not be) and stops itself (SIGSTOP); once resumed it
   * runs child(arg) and _exits with its return value. Returns when that
   * self-stop arrived, waiting at most timeout_ms: the stop is consumed
   * (resuming with sig 0 discards the SIGSTOP), the child sits stopped, *out
   * is its seam and *pid its pid. Options: PTRACE_O_TRACESYSGOOD and
   * PTRACE_O_EXITKILL.
   * Drive it with step / resume / resume_syscall / get_regs / syscall_info /
   * peek_user / poke_user / get_regset / set_regset on (*out, *pid), and
   * take its stops with next_stop / next_stop_timeout: they turn each wait
   * status into an asmspy_stop exactly as for an attached target (STEP,
   * SIGNAL, SYSCALL, WATCH after poke_user / set_regset, EXITED with its
   * exit status or -signal, ...) and wait for this child only, never for
   * another child of the caller.
   * detach() ends it: the child is SIGKILLed and reaped (never released),
   * whatever state it is in.
   * Returns 0 or -errno. *pid is 0 when no child was made (-errno of pipe /
   * fork); with *pid > 0 the child was made and is already reaped:
   * PTRACE_TRACEME's errno (EPERM: Yama ptrace_scope=3, seccomp, an LSM),
   * -ECHILD it ended before its stop, -ETIMEDOUT it did not stop in time. */
  int (*spawn_child)(int (*child)(void *arg), void *arg, int64_t timeout_ms,
                     struct asmspy_seam **out, pid_t *pid);
  /* --- ABI 1.8 ends here --- */
  /* 1.9: run one system call inside the stopped thread tid (gdb's `call`,
   * for a syscall): its registers are saved, rip is pointed at a `syscall`
   * instruction the target already has (code is never patched for this),
   * the call runs as one step, and the registers are put back. *ret gets
   * the raw return value (-errno on failure). A signal that arrives
   * meanwhile is kept and delivered on the thread's next resume. Memory the
   * call reads (a path, a struct) is the caller's to place (write_mem).
   * Returns 0, or -errno when the thread could not be driven. */
  int (*inject_syscall)(struct asmspy_seam *seam, pid_t tid, long nr, const uint64_t args[6],
                        int64_t *ret);
  /* --- ABI 1.9 ends here --- */
  /* 1.11: a step the seam may do without the kernel. The caller has read the
   * instruction at ip (bytes[len]) and is about to step(tid, 0) it. Returns
   * 1 when the seam emulated it instead: its effect is applied, and a STEP
   * stop for tid comes from next_stop exactly as after step(); 0 when the
   * caller must step it. x86-64's popf is emulated: the kernel, stepping a
   * popf, forgets that the trap flag is the tracer's and leaves it set
   * after the tracer is gone (a SIGTRAP the program never asked for). */
  int (*emulate_step)(struct asmspy_seam *seam, pid_t tid, uint64_t ip, const uint8_t *bytes,
                      size_t len);
  /* --- ABI 1.11 ends here; append below --- */
};

/* Resolved symbol for one address. Strings are host-owned, stable while the
 * target lives. */
enum asmspy_sym_kind {
  ASMSPY_SYM_INTERNAL = 1, /* the target's own executable */
  ASMSPY_SYM_EXTERNAL = 2, /* a shared library (or a PLT stub leaving to one) */
  ASMSPY_SYM_JIT = 3,      /* from the perf-map */
  ASMSPY_SYM_UNKNOWN = 4,  /* no symbol covers it */
};

struct asmspy_symbol {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *name;   /* "main", "puts@plt"; NULL when unknown */
  const char *module; /* basename: "libc.so.6", or "[jit]" / "?" */
  const char *module_path;
  uint64_t start; /* symbol start address (runtime) */
  uint64_t size;
  uint64_t offset; /* addr - start */
  uint32_t kind;   /* enum asmspy_sym_kind */
  /* --- ABI 1.0 ends here; append below --- */
};

enum asmspy_note_level { ASMSPY_NOTE_INFO = 0, ASMSPY_NOTE_WARN = 1, ASMSPY_NOTE_SKIP = 2 };

/* One instruction's operand semantics (host->operands): what it reads and
 * writes. Registers are gpr ids = indexes into asmspy_regs.gpr, always the
 * full 64-bit register (eax/ax/al/ah -> rax; w3 -> x3); flags are gpr 18
 * (eflags) on x86-64; registers with no gpr slot (xmm, x87, ...) are left
 * out. 1.12: which id is which register is host->arch's (register ids at
 * or past arch->ngpr are the arch's pseudo registers: AArch64's NZCV flags
 * and pc, whose values are asmspy_regs.flags / .ip); AArch64 operand
 * semantics exist when host->caps has ASMSPY_HOST_CAP_OPERANDS_ARM64. */
#define ASMSPY_MEM_READ 1u
#define ASMSPY_MEM_WRITE 2u

struct asmspy_operands {
  uint32_t abi_version;
  uint32_t struct_size;
  uint8_t nread, nwritten, nmem, pad;
  uint8_t read[16],
      written
          [16]; /* register ids = index into asmspy_regs.gpr (full 64-bit register; eax/ax/al map to rax) */
  struct {
    uint64_t addr;   /* effective address (base + index*scale + disp, segment base added) */
    uint32_t size;   /* bytes accessed */
    uint32_t access; /* ASMSPY_MEM_READ | ASMSPY_MEM_WRITE: 1 read, 2 write, 3 both */
  } mem[4];          /* explicit memory operands and implicit stack slots */
  char text[96];     /* the disassembly */
  /* --- ABI 1.3 ends here; append below --- */
  /* 1.10: the registers with no gpr slot (vector, x87, mmx, opmask,
   * mxcsr) that it reads and writes, as ASMSPY_VREG ids; their values come
   * from host->read_fpregs + vreg_value. */
  uint8_t nvread, nvwritten, vpad[2];
  uint16_t vread[8], vwritten[8];
  /* --- ABI 1.10 ends here; append below --- */
};

/* 1.10: a register outside the gpr file: class << 8 | number. */
#define ASMSPY_VREG_XMM 1u   /* xmm0-31: 16 bytes */
#define ASMSPY_VREG_YMM 2u   /* ymm0-31: 32 bytes */
#define ASMSPY_VREG_ZMM 3u   /* zmm0-31: 64 bytes */
#define ASMSPY_VREG_ST 4u    /* x87 st(0)-st(7), stack-relative: 10 bytes (80-bit extended) */
#define ASMSPY_VREG_MM 5u    /* mm0-7 (the low 8 bytes of x87 physical register n) */
#define ASMSPY_VREG_K 6u     /* AVX-512 opmask k0-7: 8 bytes */
#define ASMSPY_VREG_MXCSR 7u /* number 0: 4 bytes */
#define ASMSPY_VREG_FPSW 8u  /* x87 status word (number 0): 2 bytes */
#define ASMSPY_VREG_V 9u     /* 1.12: AArch64 v0-31 (b/h/s/d/q<n> are views of v<n>): 16 bytes */
#define ASMSPY_VREG(cls, n) ((uint16_t)(((unsigned)(cls) << 8) | ((unsigned)(n)&0xffu)))
#define ASMSPY_VREG_CLASS(v) ((unsigned)(v) >> 8)
#define ASMSPY_VREG_NUM(v) ((unsigned)(v)&0xffu)

/* 1.10: one thread's x87 / SSE / AVX / AVX-512 state (host->read_fpregs),
 * read from the kernel's XSAVE image of a stopped thread. */
#define ASMSPY_FP_X87 1u    /* fcw..fdp, st[] */
#define ASMSPY_FP_SSE 2u    /* mxcsr, the low 16 bytes of zmm[0..15] */
#define ASMSPY_FP_AVX 4u    /* bytes 16..31 of zmm[0..15] */
#define ASMSPY_FP_AVX512 8u /* k[], bytes 32..63 of zmm[0..15], zmm[16..31] */
#define ASMSPY_FP_ASIMD 16u /* 1.12: AArch64 v0-v31 in bytes 0..15 of zmm[0..31] */
struct asmspy_fpregs {
  uint32_t abi_version;
  uint32_t struct_size;
  uint32_t have; /* ASMSPY_FP_*: the parts this CPU has and the read filled */
  uint32_t nvec; /* vector registers that exist: 16, or 32 with AVX-512 */
  uint32_t mxcsr, mxcsr_mask;
  uint16_t fcw, fsw;
  uint16_t ftw; /* the abridged tag (FXSAVE): bit i set = physical register i valid */
  uint16_t fop;
  uint64_t fip, fdp;
  uint8_t st[8][16];   /* st(0)..st(7) in stack order, 10 bytes used */
  uint8_t zmm[32][64]; /* register n: xmm = bytes 0..15, ymm = 0..31, zmm = 0..63 */
  uint64_t k[8];
  /* --- ABI 1.10 ends here; append below --- */
};

/* Host services, one append-only table (the sqlite3_api_routines model). */
struct asmspy_host_api {
  uint32_t abi_version;
  uint32_t struct_size;
  /* Output: one record through the host writer. `type` names the event
   * ("insn"); json_fields is the body of a JSON object without braces
   * (`"ip":"0x1",...`, may be NULL); text is the human line(s) without the
   * trailing newline (may be NULL = nothing in text mode). */
  int (*emit)(struct asmspy_out *out, const char *type, const char *json_fields, const char *text);
  /* A note (info/warn/skip) to stderr and the json channel. */
  void (*note)(struct asmspy_out *out, int level, const char *fmt, ...)
      __attribute__((format(printf, 3, 4)));
  /* JSON string escape of src[0..len) into dst (NUL-terminated, truncated to cap). */
  size_t (*json_escape)(char *dst, size_t cap, const char *src, size_t len);
  /* Read target memory; returns bytes read or -errno. */
  ssize_t (*read_mem)(struct asmspy_target *t, uint64_t addr, void *buf, size_t len);
  /* Resolve an address; returns 0 (out filled; kind UNKNOWN when no symbol covers it). */
  int (*symbolize)(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out);
  /* Disassemble one instruction (Intel syntax). Returns its length, 0 if invalid. */
  int (*disasm)(uint64_t addr, const uint8_t *bytes, size_t len, char *text, size_t cap);
  /* `function+0xoff [module]` for addr, cached per address. */
  const char *(*describe)(struct asmspy_target *t, uint64_t addr, char *buf, size_t cap);
  const struct asmspy_seam_api *seam;
  /* Render any status code as a human string. */
  const char *(*strerror)(int status);
  /* --- ABI 1.0 ends here --- */
  /* Which channels are open: lets a view skip formatting what nobody reads
   * (the JSON body of every instruction in text mode). */
  int (*wants_json)(const struct asmspy_out *out);
  int (*wants_text)(const struct asmspy_out *out);
  /* --- ABI 1.1 ends here --- */
  /* Syscall name from the table generated at build time from the system's
   * own headers; NULL for an unknown number. */
  const char *(*syscall_name)(int64_t nr);
  /* What fd points at, like strace -y: "/tmp/x", "TCP 127.0.0.1:1->...",
   * "unix:/path", "pipe:[123]". Read now, from the target's own /proc. */
  const char *(*describe_fd)(struct asmspy_target *t, int fd, char *buf, size_t cap);
  /* --- ABI 1.2 ends here --- */
  /* A region argument: `sym` (the symbol's extent), `0xADDR` (the extent of
   * the sized symbol covering it), `0xADDR:LEN` or `0xADDR+LEN` (explicit, no
   * symbol needed; LEN base 0). Returns 0, or -ASMSPY_E_USAGE with a
   * one-line reason in err. */
  int (*resolve_region)(struct asmspy_target *t, const char *spec, uint64_t *start, uint64_t *len,
                        char *err, size_t errcap);
  /* Write target memory (breakpoints) through /proc/<pid>/mem, which lets a
   * tracer write read-only text pages. Returns bytes written or -errno. */
  ssize_t (*write_mem)(struct asmspy_target *t, uint64_t addr, const void *buf, size_t len);
  /* Operands of one instruction with Capstone's detail: which registers it
   * reads and writes, and its memory operands with effective addresses
   * computed from regs. Returns the instruction length, 0 if undecodable. */
  int (*operands)(uint64_t ip, const uint8_t *bytes, size_t len, const struct asmspy_regs *regs,
                  struct asmspy_operands *out);
  /* --- ABI 1.3 ends here --- */
  /* Run a sampler backend over s->pid for window_ms (0 = its default) and
   * deliver its SAMPLE / BRANCH / PROVENANCE / NOTE events to sink (not to
   * the session's output). `sampler` is a --sampler rung ("ibs", "lbr",
   * "sw", "ptrace") or NULL for the ladder: the first usable rung in that
   * order; each refused rung is noted with its reason. The rung used is
   * copied to used[cap]. Returns 0, a negative status, or
   * -ASMSPY_E_NO_KERNEL etc. when every rung refused (reason noted). */
  int (*run_sampler)(const struct asmspy_session *s, const char *sampler, int64_t window_ms,
                     asmspy_sink_fn sink, void *sink_ctx, char *used, size_t cap);
  /* A data address argument (--watch): `sym` (a data symbol: STT_OBJECT /
   * STT_TLS), `sym+off`, or `0xADDR`. Fills *addr and *size (the symbol's
   * size, 0 for a raw address). Returns 0, or -ASMSPY_E_USAGE with a
   * one-line reason in err ("main is a function, not data"). */
  int (*resolve_data)(struct asmspy_target *t, const char *spec, uint64_t *addr, uint64_t *size,
                      char *err, size_t errcap);
  /* --- ABI 1.5 ends here --- */
  /* === 1.8: typed records (emit_record) === */
  /* One record the view describes in its `records` table, with typed field
   * values; the host's JSON writer, text writer and TUI all read it (the
   * TUI never parses JSON back). See struct asmspy_record. */
  int (*emit_record)(struct asmspy_out *out, const struct asmspy_record *rec);

  /* === 1.8: instruction classes (insn_class) === */
  /* What one instruction is, from Capstone's instruction groups (not from
   * its mnemonic text): ASMSPY_INSN_* bits; 0 = undecodable. */
  uint32_t (*insn_class)(uint64_t ip, const uint8_t *bytes, size_t len);
  /* The class bits (values pinned by tests/abi/test_layout.c). Prefixes do
   * not hide a class: `bnd call`, `notrack jmp`, `rep ret` are CALL, JUMP,
   * RET. A view that has an INSN event passes its u.insn.bytes / len.
   * Callers check ASMSPY_HAS(host, insn_class): a 1.7 host has none. Call it
   * from one thread at a time, like disasm (both keep an unlocked cache). */
#define ASMSPY_INSN_DECODED 0x1u   /* the bytes decode (every non-zero answer has it) */
#define ASMSPY_INSN_CALL 0x2u      /* pushes a return address and branches (call, bl, blr) */
#define ASMSPY_INSN_RET 0x4u       /* returns through the stack / link register (ret, retf) */
#define ASMSPY_INSN_JUMP 0x8u      /* any other branch: jmp, jcc, loop*, jrcxz; b, b.cond, br */
#define ASMSPY_INSN_COND 0x10u     /* with JUMP: may fall through (jcc, loop*, jrcxz, cbz, tbz) */
#define ASMSPY_INSN_RELATIVE 0x20u /* with CALL/JUMP: the target is ip-relative, in the bytes */
#define ASMSPY_INSN_INDIRECT 0x40u /* with CALL/JUMP: the target is in a register or memory */
#define ASMSPY_INSN_SYSCALL 0x80u  /* enters the kernel: syscall, sysenter; svc */
#define ASMSPY_INSN_INT 0x100u     /* raises a trap or interrupt: int n, int3, int1, into; brk */
#define ASMSPY_INSN_IRET 0x200u    /* returns from an interrupt / the kernel: iret*, sysret; eret */
#define ASMSPY_INSN_PRIVILEGE 0x400u /* Capstone's privileged group: hlt, sysret, iretq, mov ss */
#define ASMSPY_INSN_REP 0x800u /* x86 rep/repe/repne string op: one step per iteration, same ip */
  /* Bits 24-31 hold the instruction's length in bytes (0 when undecodable),
   * so a caller needs no second decode for the fall-through address. */
#define ASMSPY_INSN_LEN_SHIFT 24
#define ASMSPY_INSN_LEN(c) ((uint32_t)(c) >> ASMSPY_INSN_LEN_SHIFT)

  /* === 1.8: option parsing === */
  /* Parse a mode's arguments (s->argc/argv) against its `options` table
   * with getopt_long's rules: --name=value and --name value, --flag, "--"
   * ends the options; names must be spelled out (no abbreviations), a
   * choice value must be one of the table's "a|b|c". The positionals are
   * kept in their order (a negative number such as -1 is a positional).
   * out must carry its header (ASMSPY_INIT_HEADER). Returns 0, or
   * -ASMSPY_E_USAGE with one line in err ("unknown option '--x'") that the
   * view prefixes with its mode. Reentrant across calls (not threads). */
  int (*parse_options)(const struct asmspy_option *table, int argc, char *const *argv,
                       struct asmspy_optval *out, char *err, size_t errcap);

  /* --- ABI 1.8 ends here --- */
  /* 1.9: the target's function symbols in address order, one by index
   * (i = 0, 1, ...): fills out (start, size, name, module, kind) and returns
   * 0, or -1 past the last one. Names stay valid while the target lives. */
  int (*symbol_at)(struct asmspy_target *t, size_t i, struct asmspy_symbol *out);
  /* 1.9: the undo journal. Before a write that changes how the target runs
   * (a patched function entry, an armed flag), a backend records it: the
   * len (<= 32) bytes at addr are now_bytes and were old_bytes. If the
   * tracer process dies before it undid them (SIGKILL, a crash), asmspy's
   * supervisor stops the target and writes old_bytes back wherever
   * now_bytes still are. undo_clear: the backend undid all of its own.
   * 0, or -errno (the journal is full: ENOSPC; do not make the write). */
  int (*undo_push)(struct asmspy_target *t, uint64_t addr, const void *old_bytes,
                   const void *now_bytes, size_t len);
  void (*undo_clear)(struct asmspy_target *t);
  /* --- ABI 1.9 ends here; append below --- */
  /* 1.10: the x87/SSE/AVX state of thread tid of t, which must be stopped
   * under this tracer (during a sink call for an event of tid). Fills
   * within out->struct_size; 0, or -errno (ESRCH: not stopped under us;
   * EIO/ENODEV: the kernel gives no such register set). */
  int (*read_fpregs)(struct asmspy_target *t, int32_t tid, struct asmspy_fpregs *out);
  /* 1.10: the value of ASMSPY_VREG id `vreg` in fp, little-endian, into
   * buf (at most cap bytes): the register's size in bytes, 0 when fp does
   * not hold it (the part is not in fp->have, or no such register). */
  size_t (*vreg_value)(const struct asmspy_fpregs *fp, uint16_t vreg, uint8_t *buf, size_t cap);
  /* 1.10: its name ("xmm3", "st(1)", "mm2", "k1", "mxcsr"), into buf. */
  const char *(*vreg_name)(uint16_t vreg, char *buf, size_t cap);
  /* --- ABI 1.10 ends here --- */
  /* 1.12: the machine the host runs on and traces (struct asmspy_arch):
   * which register id is sp, fp, the instruction pointer, the return value,
   * the flags, the arguments; what a call clobbers; the flag bits. Static
   * data: the pointer stays valid for the process's life. */
  const struct asmspy_arch *arch;
  /* 1.12: behaviour changes a plugin may depend on (ASMSPY_HOST_CAP_*):
   * unknown bits are ignored. A plugin that needs one checks
   * ASMSPY_HAS(host, caps) && (host->caps & bit). */
  uint64_t caps;
  /* 1.12: does any channel read a record's typed values (the JSON body, a
   * recording, an embedder's typed sink such as the TUI)? When not, a view
   * may emit its text alone with emit() and skip building the values: a
   * call log printing millions of lines to a terminal or a file. */
  int (*wants_values)(const struct asmspy_out *out);
  /* --- ABI 1.12 ends here; append below --- */
};

/* host->caps bits (1.12; values pinned by tests/abi/test_layout.c). */
/* operands() corrects Capstone 4's operand access with the ISA's (the 1.10
 * change: `test [m], imm` reads, `fstp [m]` writes; host/operand_access.c) */
#define ASMSPY_HOST_CAP_OPERANDS_ISA_ACCESS (1ull << 0)
/* operands() decodes AArch64: loads/stores (pairs, pre/post-index
 * writeback), register reads/writes, NZCV as arch->reg_flags, SIMD/FP as
 * ASMSPY_VREG_V ids (host/arch/operands_arm64.c) */
#define ASMSPY_HOST_CAP_OPERANDS_ARM64 (1ull << 1)

/* 1.12: the architecture, as host->arch describes it. Register ids are the
 * ids host->operands() uses: below ngpr an index into asmspy_regs.gpr,
 * from ngpr to nregs - 1 a pseudo register (its value: asmspy_regs.flags
 * when it is reg_flags, asmspy_regs.ip when it is reg_ip). -1: the arch
 * has none. */
#define ASMSPY_ARCH_MAX_REGS 40
struct asmspy_arch {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *name;    /* "x86_64", "aarch64" */
  uint32_t nregs;      /* register ids 0 .. nregs-1 (<= ASMSPY_ARCH_MAX_REGS) */
  uint32_t ngpr;       /* of these, the asmspy_regs.gpr slots */
  int32_t reg_ip;      /* the instruction pointer (x86-64 rip 16; AArch64 pc, pseudo 33) */
  int32_t reg_sp;      /* rsp 19; sp 31 */
  int32_t reg_fp;      /* rbp 4; x29 */
  int32_t reg_ret;     /* the integer return value: rax 10; x0 */
  int32_t reg_flags;   /* the condition flags: eflags 18; NZCV, pseudo 32 */
  int32_t reg_link;    /* where a call leaves its return address: -1 (the stack); x30 */
  uint32_t call_push;  /* bytes a call pushes (the return slot): 8; 0 */
  uint32_t insn_align; /* 1; 4 (every instruction is 4 bytes) */
  uint32_t nargs;
  uint8_t args[8]; /* the integer argument registers, in order (SysV; AAPCS64) */
  uint32_t nclobber;
  uint8_t clobber[32];             /* what a call may change: caller-saved, return, sp, flags */
  const char *const *reg_names;    /* [nregs]: "rax", "x0", "nzcv" */
  const char *const *reg_meanings; /* [nregs]: one line each, for record schemas */
  const uint8_t *reg_order;        /* [nregs]: display order (gdb's `info registers`) */
  /* bits of asmspy_regs.flags (0: the arch has no such flag) */
  uint64_t flag_carry, flag_zero, flag_sign, flag_overflow;
  uint64_t flag_trap; /* the single-step trap flag a program can set (x86 TF; AArch64: 0) */
  /* the regset (NT_*) whose first int is the system call a restart would
   * re-run (-1: none): AArch64 NT_ARM_SYSTEM_CALL; 0 when the arch keeps
   * it in the registers (x86-64 orig_rax) */
  uint32_t syscall_regset;
  uint32_t pad_;
  /* --- ABI 1.12 ends here; append below --- */
};

/* The value of register id `id` in regs as arch describes it: 1 and *v, or
 * 0 when regs does not hold it. */
static inline int asmspy_reg_value(const struct asmspy_arch *arch, const struct asmspy_regs *regs,
                                   int id, uint64_t *v) {
  if (!arch || !regs || id < 0) return 0;
  if ((uint32_t)id < arch->ngpr) {
    if ((uint32_t)id >= regs->ngpr || (uint32_t)id >= 32) return 0;
    *v = regs->gpr[id];
    return 1;
  }
  if (id == arch->reg_flags) return *v = regs->flags, 1;
  if (id == arch->reg_ip) return *v = regs->ip, 1;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* 1.4: one in-process capture request (scopes). Caller-owned, read-only to   */
/* the backend during inproc_begin.                                           */
/* ------------------------------------------------------------------------- */
struct asmspy_inproc_req {
  uint32_t abi_version;
  uint32_t struct_size;
  uint64_t region_start, region_len; /* region_len 0 = the whole window */
  uint64_t max_insns;                /* recording buffer; exceeding it truncates */
  uint32_t flags;                    /* none defined yet (0) */
  /* --- ABI 1.4 ends here --- */
  /* 1.12: keeping the host's own code out of the capture without stepping
   * it. end_entry is the host's public end function and end_arg the first
   * argument it will be called with for this scope: a stepping backend
   * stops at the trap on that entry (before any host code of the end runs).
   * arm_tail (out, may be NULL): a backend that stores a function there
   * has NOT started capturing yet; the host jumps to it as the very last
   * thing of its begin, in place of its own return, with the begin's
   * return value in place (x86-64: rax), and that function starts the
   * capture as it returns to the host's caller (the singlestep tier: TF set
   * by popfq before ret, so the first trap is in the caller's code). */
  uint64_t end_entry;
  uint64_t end_arg;
  void (**arm_tail)(void);
  /* --- ABI 1.12 ends here; append below --- */
};

/* ------------------------------------------------------------------------- */
/* 1.8: what the host needs to know about a plugin, read from its descriptor. */
/* The host builds --help, the usage lines, the man page, shell completion,   */
/* serve's argument checks, --info's verdicts, the TUI's mode menu, the       */
/* recording validator, replay and docs/metrics.md from these tables: it      */
/* keeps no list of plugins of its own. The tables are static data; their     */
/* layout is versioned by the descriptor that points at them (a table is only */
/* read when ASMSPY_HAS(ops, <its pointer>)). Arrays end with a NULL name.    */
/* ------------------------------------------------------------------------- */

/* One option a mode accepts after its positional arguments. */
struct asmspy_option {
  const char *name; /* without the dashes: "count" is --count */
  const char *arg;  /* the value: "syscalls|calls" (choices), "<ms>"; NULL = a flag */
  const char *help; /* one line */
};

/* What host->parse_options found: one slot per entry of the table (in table
 * order), the positionals in command-line order. Caller-owned; the strings
 * point into the argv that was parsed. A table holds at most
 * ASMSPY_OPT_MAX options, a mode at most ASMSPY_OPT_MAX_POS positionals
 * (more is a usage error). */
#define ASMSPY_OPT_MAX 32
#define ASMSPY_OPT_MAX_POS 16
struct asmspy_optval {
  uint32_t abi_version;
  uint32_t struct_size;
  uint32_t npos;                       /* positionals found */
  uint32_t nopt;                       /* entries in the table */
  const char *pos[ASMSPY_OPT_MAX_POS]; /* the positionals, in order */
  const char *value[ASMSPY_OPT_MAX];   /* the last value given; "" for a flag; NULL = absent */
  uint32_t count[ASMSPY_OPT_MAX];      /* how many times the option was given */
  /* --- ABI 1.8 ends here; append below --- */
};

/* A backend capability an option's value needs beyond the view's
 * caps_required: --procs --count=calls needs an instruction stream,
 * --count=syscalls (the default) the syscall stops. */
struct asmspy_option_caps {
  const char *option; /* "count" */
  const char *value;  /* "calls"; NULL = whenever the option is given */
  uint64_t caps;
  uint32_t is_default; /* 1: also applies when the option is absent */
};

/* One field of a record a view writes (the JSON member `name`). */
enum asmspy_field_type {
  ASMSPY_FIELD_INT = 1, /* a JSON integer (min applies) */
  ASMSPY_FIELD_STR = 2, /* a JSON string */
  ASMSPY_FIELD_HEX = 3, /* a "0x..." hex string (addresses) */
  ASMSPY_FIELD_BOOL = 4,
  ASMSPY_FIELD_ENUM = 5,  /* a string, one of `values` ("write|rw|read") */
  ASMSPY_FIELD_ARRAY = 6, /* `values` names the element: "object", "string", "int" */
  ASMSPY_FIELD_OBJECT = 7,
  ASMSPY_FIELD_BYTES = 8, /* a hex string of whole bytes, no 0x ("4889e5") */
  ASMSPY_FIELD_NUMBER = 9 /* a JSON number (integer or fraction) */
};
#define ASMSPY_FIELDF_OPTIONAL 1u /* may be absent */
#define ASMSPY_FIELDF_NULLABLE 2u /* may be null ("ret": null: never returned) */
/* What a field means to `asmspy --replay --disasm` (which knows no view): */
/* HEX: an executed instruction's address (disassembled
   from the recording's codeimage at the record's time) */
#define ASMSPY_FIELDF_INSN_ADDR 4u
#define ASMSPY_FIELDF_INSN_TEXT 8u /* STR: that instruction's recorded disassembly */
/* ENUM: the object is an executed instruction only when
   this holds the first of `values` ("insn|callout") */
#define ASMSPY_FIELDF_INSN_KIND 16u
/* names the record in a --disasm heading
   ("sample #3 (seq 40) ret=35") */
#define ASMSPY_FIELDF_TITLE 32u
/* 1.12: roles — what a field means to an interactive front end (the TUI),
 * which builds its screens from them and never from a view's name, layout
 * or text. A front end that does not know a role ignores it. Rows: a
 * record whose own fields carry SORT_KEY / DRILL_* is one row; a record
 * with an ARRAY of objects whose members carry them has one row per
 * element, element k drawn by line k + 1 of the record's text (line 0 is
 * its heading; lines past the last element follow it unsorted). */
/* INT / NUMBER: a column the rows can be sorted by
   (largest first; the TUI's Tab cycles the keys) */
#define ASMSPY_FIELDF_SORT_KEY 64u
/* ARRAY: shown in a second pane. The record's text
   ends with it: a heading line, then one line per
   element (one line when it is empty) */
#define ASMSPY_FIELDF_PANE 128u
/* INT: a process: Enter opens the first table mode
   that needs no pick on it */
#define ASMSPY_FIELDF_DRILL_PID 256u
/* HEX: a code address: Enter opens the last mode that
   starts by picking a function, on the function
   containing it (several: the last one in schema
   order that lies in a known function) */
#define ASMSPY_FIELDF_DRILL_ADDR 512u
/* HEX: a function's entry: in a table, as DRILL_ADDR;
   in a feed, the selected record's function is
   disassembled (read live) in a second pane */
#define ASMSPY_FIELDF_DRILL_FUNC 1024u
/* its rendering is kept visible when the line is cut
   (a return value; old and new of `old -> new`): the
   line's tail from it is kept, the middle elided */
#define ASMSPY_FIELDF_HIGHLIGHT 2048u
/* ARRAY of "string": shown beside the line (paths,
   buffers a call carried) */
#define ASMSPY_FIELDF_CARRIED 4096u
#define ASMSPY_FIELDF_ROLES 0x1fc0u /* every role bit above */

struct asmspy_field {
  const char *name;
  uint32_t type;       /* enum asmspy_field_type */
  uint32_t flags;      /* ASMSPY_FIELDF_* */
  const char *meaning; /* one line for docs/metrics.md */
  const char *values;  /* ENUM: choices "a|b|c"; ARRAY: element type ("object",
                          "string", "int", "hex"); INT: the only valid values
                          ("1|2|4|8"), else any in [min, max]; else NULL */
  int64_t min;         /* INT: the smallest valid value (INT64_MIN: any);
                          BYTES: the fewest bytes */
  int64_t max;         /* INT: the largest valid value; BYTES: the most bytes;
                          0 = no bound */
  /* OBJECT, or ARRAY of "object": the members of the object (each element),
   * ending with a NULL name; NULL = not described (any object). */
  const struct asmspy_field *fields;
};

/* One record type a view writes ("call", "graph", ...). */
struct asmspy_record_schema {
  const char *type;                  /* the record's "type" */
  const char *meaning;               /* one line for docs/metrics.md */
  const struct asmspy_field *fields; /* ends with a NULL name */
  /* The human line rebuilt from the fields, for a replay of a recording
   * made before event lines carried "human" (NULL: such a record prints
   * nothing). {name} is a member's value ({name:x}: an integer in hex),
   * {?name:A|B} is A when the member is present and not null, else B,
   * {-N:A} is A left-aligned in N columns, {*name:A} is A repeated `name`
   * times (at most 64). "{-20:{?sym:{sym}+0x{off:x}|{ip}}} {disasm}" */
  const char *text;
};

/* ------------------------------------------------------------------------- */
/* 1.8: typed records. A view hands the host one record as typed values       */
/* (host->emit_record) instead of a hand-formatted JSON body: the host renders */
/* the JSON channels from the values (in schema order, so the record's schema */
/* is also its documentation and its validator) and hands in-process          */
/* consumers (the TUI) the values themselves. Everything is caller-owned and  */
/* valid only during the call.                                                */
/* ------------------------------------------------------------------------- */
enum asmspy_value_state {
  ASMSPY_VALUE_ABSENT = 0, /* an OPTIONAL field not written (the JSON has no member) */
  ASMSPY_VALUE_SET = 1,    /* u holds the value, typed by the field */
  ASMSPY_VALUE_NULL = 2,   /* a NULLABLE field written as null */
  ASMSPY_VALUE_JSON = 3    /* u.json.s is the member's JSON text, rendered by the view
                              (a nested part no consumer reads typed: the graph's rows) */
};

/* One value of a typed record. Which member of u is meaningful follows the
 * field's type (for an array's elements: the field's `values`):
 *   INT i; HEX u (rendered "0x%llx"); NUMBER d; BOOL b; STR / ENUM str;
 *   BYTES bytes (rendered as hex digits); ARRAY array (elements are values:
 *   "object" elements use u.object over the field's `fields`, "string"
 *   u.str, "int" u.i, "hex" u.u); OBJECT object. */
struct asmspy_value {
  uint32_t state; /* enum asmspy_value_state */
  uint32_t pad;
  union {
    int64_t i;
    uint64_t u;
    double d;
    uint32_t b;
    struct {
      const char *s;
      uint64_t len; /* bytes of s (may hold NULs: a syscall's buffer) */
    } str;
    struct {
      const uint8_t *p;
      uint64_t len;
    } bytes;
    struct {
      const struct asmspy_value *items;
      uint64_t n;
    } array;
    struct {
      const struct asmspy_value *values; /* parallel to the field's `fields` */
      uint64_t unused;
    } object;
    struct {
      const char *s; /* ASMSPY_VALUE_JSON: one JSON value, NUL-terminated */
      uint64_t unused;
    } json;
  } u;
};

/* One record: values[i] is the value of schema->fields[i]. text is the
 * human line(s) without the trailing newline (NULL: nothing in text mode). */
struct asmspy_record {
  uint32_t abi_version;
  uint32_t struct_size;
  const struct asmspy_record_schema *schema; /* one of the view's `records` */
  const struct asmspy_value *values;
  const char *text;
  /* --- ABI 1.8 ends here; append below --- */
};

/* The view's entry in the interactive TUI's mode menu. `layout` names one of
 * the host's screen layouts (not a plugin). Since 1.12 the TUI draws three
 * generic screens — a feed, a table, two panes — chosen from the roles of
 * the view's record fields (ASMSPY_FIELDF_SORT_KEY ...); a view without
 * roles is mapped by its layout: FEED, SNAPSHOT, FEED_CARRIED, DATAFLOW ->
 * feed; RANKED, TOPOLOGY, EDGES -> table; REGION, CALLS -> two panes. The
 * glosses below are the in-tree views that first used each layout. */
enum asmspy_tui_layout {
  ASMSPY_TUI_FEED = 1,         /* the emitted lines scroll by (stream) */
  ASMSPY_TUI_SNAPSHOT = 2,     /* snapshot() redrawn periodically */
  ASMSPY_TUI_REGION = 3,       /* a chosen function per invocation: the latest record split
                              at its "  functions called:" line, assembly | callees (trace) */
  ASMSPY_TUI_DATAFLOW = 4,     /* a chosen function's data-flow steps, walkable: each record's
                              JSON body has the steps in ASMSPY_TUI_DATAFLOW_STEPS, each
                              with its "reads" (dataflow) */
  ASMSPY_TUI_TOPOLOGY = 5,     /* processes and threads, selectable: Enter opens the RANKED
                              mode on the selected record's "tgid"; Tab cycles the values
                              of the first option in the view's option_caps (procs) */
  ASMSPY_TUI_FEED_CARRIED = 6, /* a feed; each record's "carried" strings are shown in
                                  a column beside it (log) */
  ASMSPY_TUI_CALLS = 7,        /* a feed of calls, selectable; the function at the selected
                              record's "addr" is disassembled in a second pane (tree) */
  ASMSPY_TUI_RANKED = 8,       /* a snapshot whose rows carry fanout=/calls=/inv=: Tab re-sorts
                              them by fanout (graph) */
  ASMSPY_TUI_EDGES = 9         /* a snapshot of sampled edges, selectable, n = the window in
                              ms: Enter opens the DATAFLOW mode on the function at the
                              selected record's "to" (else "from") (sample) */
};
/* The JSON member of a DATAFLOW record that holds its steps. */
#define ASMSPY_TUI_DATAFLOW_STEPS "trace"
#define ASMSPY_TUIF_PICK_SYMBOL 1u /* the mode starts by choosing a function */
#define ASMSPY_TUIF_HIDDEN 2u      /* not in the menu: needs arguments it cannot ask for */
/* 1.10: the mode starts by asking for a data address (a data symbol, sym+off
 * or 0xADDR, completed from the target's data symbols), then --len=1|2|4|8
 * and --rw; it then runs until stopped (watch). A host without it shows
 * such a mode only when it is not also HIDDEN. */
#define ASMSPY_TUIF_PICK_DATA 4u

struct asmspy_tui_entry {
  char key;          /* the menu key ('1'..'9'); 0 = the host assigns a letter */
  uint32_t layout;   /* enum asmspy_tui_layout */
  uint32_t flags;    /* ASMSPY_TUIF_* */
  const char *title; /* "call graph" */
};

/* A backend's in-process (scope) tier: how much of the truth it records. */
enum asmspy_tier {
  ASMSPY_TIER_NONE = 0,
  ASMSPY_TIER_WEAK = 1,   /* every instruction, by single-step (slow) */
  ASMSPY_TIER_STRONG = 2, /* every branch, in hardware (Intel PT) */
  ASMSPY_TIER_CEILING = 3 /* sampled branch edges: what ran, not all of it */
};

/* ------------------------------------------------------------------------- */
/* Plugin operation tables.                                                   */
/* ------------------------------------------------------------------------- */
struct asmspy_backend_ops {
  uint32_t abi_version;
  uint32_t struct_size;
  /* Capture for a pid: attach through host->seam, emit events through
   * s->sink until the sink asks to stop, s->max is reached, *s->stop is
   * raised or the target is gone; always detach. Returns 0, -ASMSPY_E_* or
   * a positive ASMSPY_FACT_*. */
  int (*run)(const struct asmspy_host_api *host, const struct asmspy_session *s);
  /* --- ABI 1.0 ends here --- */
  /* In-process capture of the CALLING thread (scopes). begin arms it and
   * returns a handle; end disarms it and delivers the recorded instructions
   * as ASMSPY_EV_INSN events (target = NULL) through sink, then frees it.
   * Both optional (NULL: the backend has no in-process mode). begin returns
   * 0 or a negative -ASMSPY_E_* with nothing armed (singlestep:
   * ATTACH_BUSY = a scope is already open on this thread, ATTACH_PERM = the
   * program owns SIGTRAP, PERM = SIGTRAP is blocked). end returns 0 or a
   * negative status, and frees the handle either way; a capture cut short
   * is reported as an ASMSPY_EV_NOTE whose text starts "truncated: ".
   * 1.12: begin may also return ASMSPY_FACT_UNSUITED, nothing armed: this
   * backend declines this scope here (codecache in a process with JIT
   * code); the host's ladder then tries the next backend. */
  int (*inproc_begin)(const struct asmspy_host_api *host, const struct asmspy_inproc_req *req,
                      void **handle);
  int (*inproc_end)(void *handle, asmspy_sink_fn sink, void *sink_ctx);
  /* --- ABI 1.4 ends here --- */
  /* 1.8: a sampler backend serves --sampler=<sampler_rung> ("ibs", "sw");
   * NULL = not a sampler. The ladder is the rungs in ascending
   * sampler_order (0 = only when named): --auto / host->run_sampler walk it
   * to the first usable rung, --sample without --sampler runs its first
   * rung (the default). A rung written
   * "<rung>:<arg>" on the command line hands <arg> over as
   * session.sampler_arg. */
  const char *sampler_rung;
  uint32_t sampler_order;
  /* 1.8: what the in-process ops record (scopes): the scope ladder tries the
   * strongest tier first, inproc_order breaking ties (ascending). */
  uint32_t inproc_tier; /* enum asmspy_tier */
  uint32_t inproc_order;
  /* --- ABI 1.8 ends here --- */
  /* 1.11: can this backend trace this target without harming it? Asked
   * before the capture (the target is acquired, not yet attached) when the
   * engine chose the backend itself, as a view's caps_alternative. 0: yes;
   * ASMSPY_FACT_UNSUITED with the reason in why: the engine runs the
   * view's instruction backend instead and says why in one note. Optional
   * (NULL: every target). */
  int (*suits)(const struct asmspy_host_api *host, const struct asmspy_session *s, char *why,
               size_t whycap);
  /* --- ABI 1.11 ends here; append below --- */
};

enum asmspy_consume { ASMSPY_CONSUME_MORE = 0, ASMSPY_CONSUME_DONE = 1 };

struct asmspy_view_ops {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *mode;       /* CLI mode name: "stream" => asmspy --stream */
  uint64_t caps_required; /* the backend must provide these */
  /* one line: "<pid> [n]". Since 1.8 its positional arguments only: the
   * host prints "--<mode> <usage> [--opt=<arg>]..." from this and `options`
   * (a view from before 1.8 may still spell its options here). */
  const char *usage;
  /* Parse s->argc/argv (mode options; 1.8: with host->parse_options against
   * `options`). Return 0, or ASMSPY_E_USAGE with a message already written
   * via host->note. */
  int (*open)(const struct asmspy_host_api *host, const struct asmspy_session *s, void **state);
  /* One event; returns ASMSPY_CONSUME_DONE when the view has what it asked for. */
  int (*consume)(void *state, const struct asmspy_event *ev);
  /* End of capture: final render (graphs, tables). */
  int (*finish)(void *state, int end_status);
  void (*close)(void *state);
  /* --- ABI 1.0 ends here --- */
  /* Optional. Called once the target is known (after open, before the
   * backend runs): a view may resolve symbols and fill the session's region
   * fields. Returns 0, or -ASMSPY_E_USAGE (bad symbol / range: message
   * already noted) / another status, and the run stops there. */
  int (*configure)(void *state, const struct asmspy_host_api *host, struct asmspy_session *s);
  /* --- ABI 1.3 ends here --- */
  /* Optional. Snapshot views (graph, tree, sample, ...): render the current
   * state now through host->emit, exactly as finish() would, without ending
   * the capture. The TUI calls it periodically and draws what was emitted;
   * a view without it is a feed (its emitted lines are the feed). */
  int (*snapshot)(void *state);
  /* Optional. After the backend returned `status`, the view may change the
   * session (another candidate region for --auto) and return 1 to have the
   * host run the backend again; 0 ends the run with `status`. */
  int (*retry)(void *state, int status, struct asmspy_session *s);
  /* --- ABI 1.5 ends here --- */
  /* Capabilities the view uses when the backend has them, without
   * requiring them: the default backend is picked with them when one is
   * usable, and the session flags follow what the chosen backend has (for
   * ASMSPY_CAP_EXACT_SP: ASMSPY_SESS_EXACT_SP set only when it has it). The
   * call views want EXACT_SP and follow control flow alone without it
   * (Intel PT: every branch, no registers). */
  uint64_t caps_wanted;
  /* --- ABI 1.6 ends here --- */
  /* 1.8: the view describes itself (see "what the host needs to know");
   * its one-line summary is the descriptor's `description`. */
  const struct asmspy_option *options;          /* its mode options; NULL = none (the
                                                    CLI then refuses every option but the
                                                    shared --json/--record/--backend/
                                                    --tid/--follow) */
  const struct asmspy_option_caps *option_caps; /* replaces the engine's rules */
  const struct asmspy_record_schema *records;   /* the records it writes */
  const struct asmspy_tui_entry *tui;           /* NULL: a feed with a host-assigned key */
  /* --- ABI 1.8 ends here --- */
  /* 1.9: another way to serve the view: a backend providing all of these
   * (instead of caps_required) serves it too, and is preferred when usable
   * and neither --backend nor an option asks for more (the call views
   * take ASMSPY_CAP_CALLS: function entries/exits instead of every
   * instruction). 0 = none. */
  uint64_t caps_alternative;
  /* --- ABI 1.9 ends here; append below --- */
};

/* The descriptor a plugin's entry returns: static const data. */
struct asmspy_plugin {
  uint32_t abi_version; /* ASMSPY_ABI_VERSION the plugin was built against */
  uint32_t struct_size;
  uint32_t kind;    /* enum asmspy_kind */
  const char *name; /* [a-z0-9_]+, unique */
  const char *description;
  uint64_t caps; /* ASMSPY_CAP_* provided (backends) or consumed (views) */
  /* Functional self-test. Runs isolated in a forked child with a time limit:
   * it may crash or hang without harming the host. */
  int (*probe)(const struct asmspy_host_api *host, struct asmspy_probe_result *res);
  const struct asmspy_backend_ops *backend; /* non-NULL iff kind == BACKEND */
  const struct asmspy_view_ops *view;       /* non-NULL iff kind == VIEW */
  /* --- ABI 1.0 ends here --- */
  const char *plugin_version; /* informational, e.g. "0.1.0"; shown by --backends */
  /* --- ABI 1.1 ends here --- */
  /* 1.12: the oldest host minor this plugin works with (it uses a host
   * service or behaviour that minor brought). A host of a lower minor
   * refuses it with ASMSPY_E_ABI "plugin needs host ABI 1.N, host speaks
   * 1.M" instead of handing it a table it would read past. 0 = any. */
  uint32_t min_host_minor;
  uint32_t min_pad_;
  /* --- ABI 1.12 ends here; append below --- */
};

/* The one exported symbol. The plugin returns NULL when it cannot speak the
 * host's major; it never refuses a newer host minor. */
typedef const struct asmspy_plugin *(*asmspy_plugin_entry_fn)(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host);
ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(uint32_t host_abi_version,
                                                              const struct asmspy_host_api *host);

/* Convenience for plugins: the entry point of a plugin whose descriptor is
 * static data. It refuses a host of another major (returns NULL) and never
 * a newer minor. A plugin needing the host table at entry writes its own. */
#define ASMSPY_PLUGIN_ENTRY_FOR(descriptor)                                                        \
  ASMSPY_EXPORT const struct asmspy_plugin *asmspy_plugin_entry(                                   \
      uint32_t host_abi_version, const struct asmspy_host_api *host) {                             \
    (void)host;                                                                                    \
    return ASMSPY_ABI_MAJOR_OF(host_abi_version) == ASMSPY_ABI_MAJOR ? &(descriptor) : NULL;       \
  }

/* Convenience for plugins: write a probe verdict. */
#define ASMSPY_PROBE_SET(res, st, err, ...)                                                        \
  do {                                                                                             \
    (res)->status = (st);                                                                          \
    (res)->sys_errno = (err);                                                                      \
    snprintf((res)->reason, sizeof((res)->reason), __VA_ARGS__);                                   \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif /* ASMSPY_PLUGIN_H */
