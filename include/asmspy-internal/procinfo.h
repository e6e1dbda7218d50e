/* procinfo: a no-attach snapshot of one process (asmspy --info), and the
 * per-process facts of the process list (asmspy --list).
 *
 * Everything here is read from /proc and from the ELF files the target has
 * mapped: nothing calls ptrace, nothing attaches, nothing stops the target.
 * So it is safe to run against anything readable, as often as you like (the
 * TUI's details pane and --serve re-run it on every selection).
 *
 * A field that cannot be read (another user's process: exe, cwd, fds, maps
 * and the per-thread syscall need ptrace-read permission) is marked unknown
 * with the errno that refused it, never guessed. The one hard failure is a
 * process that does not exist (ESRCH).
 *
 * Part of the application API (app_api.h; not installed): implemented in
 * libasmspy (host/procinfo.c), used by the CLI, --serve and the TUI.
 */
#ifndef ASMSPY_HOST_PROCINFO_H
#define ASMSPY_HOST_PROCINFO_H

#include <asmspy/asmspy.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- the attach verdict -------------------------------------------------- */

enum procinfo_verdict {
  PROCINFO_ATTACH_YES = 0,   /* every measured gate is open */
  PROCINFO_ATTACH_MAYBE = 1, /* depends on something /proc cannot show (PR_SET_PTRACER, ancestry) */
  PROCINFO_ATTACH_NO = 2,    /* a measured gate is closed */
};

/* Why NO / MAYBE (the first closed gate; PROCINFO_GATE_NONE for YES). */
enum procinfo_gate {
  PROCINFO_GATE_NONE = 0,
  PROCINFO_GATE_SELF,     /* the target is asmspy itself */
  PROCINFO_GATE_KTHREAD,  /* a kernel thread: no user space */
  PROCINFO_GATE_ZOMBIE,   /* exited, not yet reaped */
  PROCINFO_GATE_TRACED,   /* TracerPid != 0: one ptrace jack per task */
  PROCINFO_GATE_I386,     /* a 32-bit ELF: refused rather than mis-decoded */
  PROCINFO_GATE_UID,      /* other uid/gid and no CAP_SYS_PTRACE */
  PROCINFO_GATE_DUMPABLE, /* not dumpable (setuid, PR_SET_DUMPABLE 0), no CAP_SYS_PTRACE */
  PROCINFO_GATE_YAMA,     /* Yama ptrace_scope */
  PROCINFO_GATE_ACCESS,   /* every gate above open, yet the kernel's ptrace access check
                                refuses (measured): an LSM, a user namespace, capabilities */
};

struct procinfo_attach {
  enum procinfo_verdict verdict;
  enum procinfo_gate gate;
  char reason[320];      /* one line, the measured gate ("same uid 0 ...") */
  char hint[256];        /* "-> ..." what to do about it; "" when nothing to do */
  char short_reason[96]; /* compact form for the process list's `!` column */
  int yama;              /* /proc/sys/kernel/yama/ptrace_scope, -1 = no Yama */
  pid_t tracer_pid;      /* 0 = not traced */
  int cap_sys_ptrace;    /* asmspy's effective CAP_SYS_PTRACE */
};

/* Basic per-process facts: what the process list needs (cheap: stat +
 * status, one readlink). */
struct procinfo_brief {
  pid_t pid, ppid;
  char comm[32];
  char state;   /* R S D T t Z X I ... */
  uid_t uid[4]; /* real, effective, saved, fs */
  gid_t gid[4];
  char user[64]; /* name of the real uid, or the number */
  int threads;
  uint64_t utime, stime; /* clock ticks */
  unsigned long flags;   /* /proc/<pid>/stat flags (PF_KTHREAD ...) */
  pid_t tracer_pid;
  int kthread;
  int dumpable;  /* 1 yes, 0 no (/proc/<pid> owned by root for a non-root uid), -1 unknown */
  int elf_class; /* 32 or 64 from /proc/<pid>/exe; 0 unknown/unreadable */
};

/* Every pid /proc lists now, in directory order, into a malloc'd array
 * (*out; NULL when none). Returns the count, or -errno when /proc is
 * unreadable. --list and the TUI's process list both start from it. */
long procinfo_list_pids(pid_t **out);
/* Fill b for pid. 0, or ESRCH (gone) / another errno. */
int procinfo_brief_read(pid_t pid, struct procinfo_brief *b);
/* Judge whether asmspy (this process's credentials) could ptrace it. */
void procinfo_attach_assess(const struct procinfo_brief *b, struct procinfo_attach *a);

/* ---- the full snapshot ------------------------------------------------- */

#define PROCINFO_MAX_THREADS 4096 /* threads listed (the count is exact) */
#define PROCINFO_MAX_MODULES 512  /* module paths kept (the count is exact) */
#define PROCINFO_MAX_MODES 48     /* views judged (one per view in the registry) */

enum procinfo_syscall_state {
  PROCINFO_SC_IN = 0,     /* blocked in syscall `nr` */
  PROCINFO_SC_USER,       /* not in a syscall (stopped/blocked in user space) */
  PROCINFO_SC_RUNNING,    /* on a CPU right now: the kernel will not say */
  PROCINFO_SC_UNREADABLE, /* /proc/<tid>/syscall refused (errno in syscall_errno) */
};

struct procinfo_thread {
  pid_t tid;
  char comm[32];
  char state;
  char wchan[64]; /* "" when none / hidden */
  enum procinfo_syscall_state sc_state;
  int64_t syscall_nr;
  int syscall_errno;
};

enum procinfo_mode_status { PROCINFO_MODE_OK = 0, PROCINFO_MODE_MAYBE, PROCINFO_MODE_NO };

struct procinfo_mode {
  const char *mode; /* "log", "stream", ... */
  char backend[32]; /* the backend that would serve it (or the one that refused) */
  enum procinfo_mode_status status;
  char reason[512];   /* "" when ok; the atoms joined with "; " */
  char atoms[4][256]; /* each independent reason (shared wording across modes) */
  int n_atoms;
};

struct procinfo_elf {
  int known;     /* 0: the executable could not be read */
  int err;       /* errno when !known */
  int elf_class; /* 32 / 64 */
  char machine[16];
  int pie;       /* ET_DYN executable */
  int is_static; /* no PT_INTERP */
  int stripped;  /* no .symtab */
  char interp[128];
  int go_buildinfo; /* has a .go.buildinfo section */
};

struct procinfo {
  struct procinfo_brief b;
  char *argv; /* /proc/<pid>/cmdline bytes (NUL-separated), heap */
  size_t argv_len;
  int argc;
  char exe[PATH_MAX]; /* "" + exe_err when unreadable */
  int exe_err;
  char cwd[PATH_MAX];
  int cwd_err;
  long rss_kb; /* -1 unknown */
  int fds;     /* -1 unknown (fds_err) */
  int fds_err;
  uint64_t cpu_jiffies; /* utime + stime */
  long hz;
  char runtime[32]; /* "native", "JVM", ".NET", "CPython", "Node·V8", "Go", ... */
  char runtime_evidence[160];
  struct procinfo_attach attach;
  char attach_explain[512];                       /* attach_diag.c's wording of the gates */
  struct procinfo_mode modes[PROCINFO_MAX_MODES]; /* procinfo_views() order */
  size_t n_modes;
  int have_modes;
  /* names */
  long symbols;     /* ELF function symbols; -1 unknown */
  long jit_methods; /* perf-map entries; -1 unknown */
  long modules;     /* distinct mapped ELF files; -1 unknown (maps_err) */
  int maps_err;
  long exec_anon;      /* anonymous executable mappings (JIT code lives there) */
  char **module_paths; /* heap, n_module_paths entries */
  size_t n_module_paths;
  struct procinfo_elf elf;
  struct procinfo_thread *threads; /* heap */
  size_t n_threads;
  int threads_truncated;
};

/* The view plugins of the registry in the order modes are presented (the
 * --info verdicts, the TUI's menu, serve's mode list): the views that take a
 * menu key ('1'..'9', their tui entry) by that key, then every other view in
 * registry order. Returns how many (at most cap). */
size_t procinfo_views(const struct asmspy_engine *e, const struct asmspy_plugin_info **out,
                      size_t cap);

/* What procinfo_read does. */
#define PROCINFO_NO_MODES (1u << 0)   /* skip the backend probes */
#define PROCINFO_NO_SYMBOLS (1u << 1) /* skip loading the symbol table (tens of ms) */

/* Snapshot pid. e: an engine for the mode verdicts (NULL = open one with
 * lazy probes for the call). Returns 0, or an errno (ESRCH: no such
 * process). procinfo_free releases the heap parts, also after an error. */
int procinfo_read(pid_t pid, struct asmspy_engine *e, unsigned flags, struct procinfo *pi);
void procinfo_free(struct procinfo *pi);

/* Renderings. Both return a heap string (NULL on ENOMEM). The JSON is the
 * member list of one `procinfo` event (no braces, no type/seq), for
 * out_emit; the text is the human snapshot, lines separated by '\n', no
 * trailing newline. */
char *procinfo_json_fields(const struct procinfo *pi);
char *procinfo_text(const struct procinfo *pi);

/* Names. */
const char *procinfo_verdict_name(enum procinfo_verdict v); /* "YES" "MAYBE" "NO" */
const char *procinfo_state_name(char state);                /* "sleeping" ... */

/* ---- the process list's samplers -------------------------------------- */

/* String density of pid's memory: read a few KB from a few readable,
 * non-executable, private mappings (heap, anonymous, stack; at most
 * PROCINFO_SCAN_BYTES in all) and return the share of bytes that are
 * alphanumeric inside runs of >= 4 printable characters, in per-mille
 * (0..1000). Returns -errno when nothing could be read. */
#define PROCINFO_SCAN_BYTES (16 * 1024)
int procinfo_string_density(pid_t pid);

#endif
