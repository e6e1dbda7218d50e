/* procinfo: the no-attach process snapshot (interface and rules in
 * procinfo.h). Reads /proc and the mapped ELF files; never calls ptrace. */
#define _GNU_SOURCE
#include "asmspy-internal/procinfo.h"
#include "host/attach_diag.h"
#include "host/host.h"
#include "host/json.h"
#include "common/strbuf.h"
#include "host/symbols.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define PF_KTHREAD_FLAG 0x00200000ul /* include/linux/sched.h PF_KTHREAD */

/* ------------------------------------------------------------------------- */
/* small helpers                                                              */
/* ------------------------------------------------------------------------- */

/* A JSON string, or null when s is empty. */
static void sb_json_str_or_null(struct strbuf *b, const char *s) {
  if (s && *s)
    strbuf_json_str(b, s);
  else
    strbuf_addf(b, "null");
}

static char *sb_take(struct strbuf *b) {
  if (b->oom) {
    free(b->s);
    return NULL;
  }
  if (!b->s) return strdup("");
  return b->s;
}

/* Read up to cap-1 bytes of a (proc) file; NUL-terminated. Returns the length
 * or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  size_t got = 0;
  while (got + 1 < cap) {
    ssize_t n = read(fd, buf + got, cap - 1 - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      return -e;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  close(fd);
  buf[got] = '\0';
  return (ssize_t)got;
}

static int cap_sys_ptrace_self(void) {
  char buf[4096];
  if (read_small("/proc/self/status", buf, sizeof buf) < 0) return 0;
  const char *p = strstr(buf, "\nCapEff:");
  if (!p) return 0;
  unsigned long long eff = strtoull(p + 8, NULL, 16);
  return (eff >> 19) & 1; /* CAP_SYS_PTRACE = 19 */
}

static int yama_scope(void) {
  char buf[32];
  if (read_small("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof buf) <= 0) return -1;
  return atoi(buf);
}

static void user_name(uid_t uid, char *out, size_t cap) {
  struct passwd pw, *res = NULL;
  char buf[2048];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res)
    snprintf(out, cap, "%s", res->pw_name);
  else
    snprintf(out, cap, "%u", (unsigned)uid);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The ELF class (32/64) of an open-able file, 0 when unreadable or not ELF. */
static int elf_class_of(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char ident[EI_NIDENT];
  ssize_t n = read(fd, ident, sizeof ident);
  close(fd);
  if (n != EI_NIDENT || memcmp(ident, ELFMAG, SELFMAG) != 0) return 0;
  return ident[EI_CLASS] == ELFCLASS32 ? 32 : ident[EI_CLASS] == ELFCLASS64 ? 64 : 0;
}

const char *procinfo_verdict_name(enum procinfo_verdict v) {
  switch (v) {
  case PROCINFO_ATTACH_YES: return "YES";
  case PROCINFO_ATTACH_MAYBE: return "MAYBE";
  default: return "NO";
  }
}

static const char *gate_name(enum procinfo_gate g) {
  switch (g) {
  case PROCINFO_GATE_SELF: return "self";
  case PROCINFO_GATE_KTHREAD: return "kernel_thread";
  case PROCINFO_GATE_ZOMBIE: return "zombie";
  case PROCINFO_GATE_TRACED: return "traced";
  case PROCINFO_GATE_I386: return "32bit";
  case PROCINFO_GATE_UID: return "uid";
  case PROCINFO_GATE_DUMPABLE: return "not_dumpable";
  case PROCINFO_GATE_YAMA: return "yama";
  case PROCINFO_GATE_ACCESS: return "access_check";
  default: return "none";
  }
}

const char *procinfo_state_name(char state) {
  switch (state) {
  case 'R': return "running";
  case 'S': return "sleeping";
  case 'D': return "disk sleep";
  case 'T': return "stopped";
  case 't': return "tracing stop";
  case 'Z': return "zombie";
  case 'X': return "dead";
  case 'I': return "idle";
  case 'P': return "parked";
  case 'W': return "waking";
  case 'K': return "wakekill";
  default: return "unknown";
  }
}

/* ------------------------------------------------------------------------- */
/* brief: stat + status                                                       */
/* ------------------------------------------------------------------------- */

/* Parse /proc/<path>/stat: comm, state, and fields after the comm. */
static int parse_stat(const char *path, char *comm, size_t comm_cap, char *state, pid_t *ppid,
                      unsigned long *flags, uint64_t *utime, uint64_t *stime, int *threads) {
  char buf[1024];
  ssize_t n = read_small(path, buf, sizeof buf);
  if (n < 0) return (int)-n;
  char *open_paren = strchr(buf, '(');
  char *close_paren = strrchr(buf, ')'); /* comm may itself contain ')' */
  if (!open_paren || !close_paren || close_paren < open_paren) return EINVAL;
  size_t clen = (size_t)(close_paren - open_paren - 1);
  if (clen >= comm_cap) clen = comm_cap - 1;
  memcpy(comm, open_paren + 1, clen);
  comm[clen] = '\0';
  /* fields 3.. : state ppid pgrp session tty tpgid flags minflt cminflt
   * majflt cmajflt utime stime cutime cstime priority nice num_threads */
  char *p = close_paren + 1;
  char *tok[20];
  int nt = 0;
  char *save = NULL;
  for (char *t = strtok_r(p, " \n", &save); t && nt < 20; t = strtok_r(NULL, " \n", &save))
    tok[nt++] = t;
  if (nt < 18) return EINVAL;
  if (state) *state = tok[0][0];
  if (ppid) *ppid = (pid_t)atoi(tok[1]);
  if (flags) *flags = strtoul(tok[6], NULL, 10);
  if (utime) *utime = strtoull(tok[11], NULL, 10);
  if (stime) *stime = strtoull(tok[12], NULL, 10);
  if (threads) *threads = atoi(tok[17]);
  return 0;
}

long procinfo_list_pids(pid_t **out) {
  *out = NULL;
  DIR *d = opendir("/proc");
  if (!d) return -errno;
  pid_t *pids = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!isdigit((unsigned char)de->d_name[0])) continue;
    char *end;
    long pid = strtol(de->d_name, &end, 10);
    if (*end || pid <= 0 || pid > INT32_MAX) continue;
    if (n == cap) {
      size_t nc = cap ? cap * 2 : 256;
      pid_t *np = realloc(pids, nc * sizeof *np);
      if (!np) break; /* out of memory: the pids read so far */
      pids = np;
      cap = nc;
    }
    pids[n++] = (pid_t)pid;
  }
  closedir(d);
  *out = pids;
  return (long)n;
}

int procinfo_brief_read(pid_t pid, struct procinfo_brief *b) {
  memset(b, 0, sizeof *b);
  b->pid = pid;
  b->dumpable = -1;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int err = parse_stat(path, b->comm, sizeof b->comm, &b->state, &b->ppid, &b->flags, &b->utime,
                       &b->stime, &b->threads);
  if (err) return err == ENOENT ? ESRCH : err;
  b->kthread = (b->flags & PF_KTHREAD_FLAG) != 0;

  char buf[4096];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  ssize_t n = read_small(path, buf, sizeof buf);
  if (n < 0) return (int)-n == ENOENT ? ESRCH : (int)-n;
  for (char *line = buf; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strncmp(line, "Uid:", 4) == 0)
      sscanf(line + 4, "%u %u %u %u", &b->uid[0], &b->uid[1], &b->uid[2], &b->uid[3]);
    else if (strncmp(line, "Gid:", 4) == 0)
      sscanf(line + 4, "%u %u %u %u", &b->gid[0], &b->gid[1], &b->gid[2], &b->gid[3]);
    else if (strncmp(line, "TracerPid:", 10) == 0)
      b->tracer_pid = (pid_t)atoi(line + 10);
    else if (strncmp(line, "Threads:", 8) == 0)
      b->threads = atoi(line + 8);
    line = nl ? nl + 1 : NULL;
  }
  user_name(b->uid[0], b->user, sizeof b->user);

  /* A non-dumpable process's /proc/<pid> is owned by root (the kernel's
   * task_dump_owner): for a non-root target that is the tell. */
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d", (int)pid);
  if (stat(path, &st) == 0 && b->uid[1] != 0 && !b->kthread) b->dumpable = st.st_uid == 0 ? 0 : 1;

  if (!b->kthread) {
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    b->elf_class = elf_class_of(path);
  }
  return 0;
}

/* ------------------------------------------------------------------------- */
/* the attach verdict                                                         */
/* ------------------------------------------------------------------------- */

/* asmspy's own credentials, against a target's ids. */
struct assess_self {
  uid_t uid;
  gid_t gid;
  char name[64];
  int same_ids; /* the target's real, effective and saved uid and gid are ours */
};

/* procinfo_attach_assess's gates, in the order the kernel meets them; each
 * returns 1 when it closed (a is filled: verdict, gate, reason, hint). */

/* What the process is: asmspy itself, a kernel thread, a zombie, already
 * traced, a 32-bit ELF. */
static int gate_process(const struct procinfo_brief *b, struct procinfo_attach *a) {
  if (b->pid == getpid()) {
    a->gate = PROCINFO_GATE_SELF;
    snprintf(a->reason, sizeof a->reason,
             "pid %d is asmspy itself (a process cannot ptrace itself)", (int)b->pid);
    snprintf(a->short_reason, sizeof a->short_reason, "asmspy itself");
    return 1;
  }
  if (b->kthread) {
    a->gate = PROCINFO_GATE_KTHREAD;
    snprintf(a->reason, sizeof a->reason,
             "kernel thread: no user-space memory or registers to trace");
    snprintf(a->hint, sizeof a->hint, "-> trace kernel work with perf/ftrace, not ptrace");
    snprintf(a->short_reason, sizeof a->short_reason, "kernel thread");
    return 1;
  }
  if (b->state == 'Z' || b->state == 'X') {
    a->gate = PROCINFO_GATE_ZOMBIE;
    snprintf(a->reason, sizeof a->reason, "exited (%s): nothing left to attach to",
             procinfo_state_name(b->state));
    snprintf(a->short_reason, sizeof a->short_reason, "zombie");
    return 1;
  }
  if (b->tracer_pid > 0) {
    a->gate = PROCINFO_GATE_TRACED;
    char tcomm[32] = "?", path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)b->tracer_pid);
    parse_stat(path, tcomm, sizeof tcomm, NULL, NULL, NULL, NULL, NULL, NULL);
    snprintf(a->reason, sizeof a->reason,
             "already traced by pid %d (%s): one ptrace jack per task (TracerPid)",
             (int)b->tracer_pid, tcomm);
    snprintf(a->hint, sizeof a->hint, "-> detach or stop pid %d (%s) first", (int)b->tracer_pid,
             tcomm);
    snprintf(a->short_reason, sizeof a->short_reason, "traced by %d (%s)", (int)b->tracer_pid,
             tcomm);
    return 1;
  }
  if (b->elf_class == 32) {
    a->gate = PROCINFO_GATE_I386;
    snprintf(a->reason, sizeof a->reason,
             "32-bit ELF: asmspy refuses a 32-bit tracee rather than decode it against the "
             "64-bit syscall table and registers");
    snprintf(a->hint, sizeof a->hint, "-> use a 32-bit-aware tracer (strace, gdb) for this one");
    snprintf(a->short_reason, sizeof a->short_reason, "32-bit");
    return 1;
  }
  return 0;
}

/* The kernel's __ptrace_may_access: the caller's real uid/gid must equal
 * the target's real, effective and saved ids, or the caller needs
 * CAP_SYS_PTRACE; a non-dumpable target wants CAP_SYS_PTRACE too. */
static int gate_credentials(const struct procinfo_brief *b, struct procinfo_attach *a,
                            const struct assess_self *me) {
  if (!me->same_ids && !a->cap_sys_ptrace) {
    a->gate = PROCINFO_GATE_UID;
    char tname[64];
    user_name(b->uid[1], tname, sizeof tname);
    if (b->uid[0] == b->uid[1] && b->uid[1] == b->uid[2] && b->uid[1] != me->uid)
      snprintf(a->reason, sizeof a->reason,
               "target uid %u (%s), asmspy uid %u (%s) without CAP_SYS_PTRACE", (unsigned)b->uid[1],
               tname, (unsigned)me->uid, me->name);
    else
      snprintf(a->reason, sizeof a->reason,
               "target uid %u/%u/%u gid %u/%u/%u (real/effective/saved), asmspy uid %u gid %u "
               "without CAP_SYS_PTRACE: all six must match",
               (unsigned)b->uid[0], (unsigned)b->uid[1], (unsigned)b->uid[2], (unsigned)b->gid[0],
               (unsigned)b->gid[1], (unsigned)b->gid[2], (unsigned)me->uid, (unsigned)me->gid);
    if (b->uid[1] == 0)
      snprintf(a->hint, sizeof a->hint, "-> run asmspy as root (sudo) or with CAP_SYS_PTRACE");
    else
      snprintf(a->hint, sizeof a->hint,
               "-> run asmspy as %s (uid %u), or as root / with CAP_SYS_PTRACE", tname,
               (unsigned)b->uid[1]);
    snprintf(a->short_reason, sizeof a->short_reason, "uid %u (%s), no CAP_SYS_PTRACE",
             (unsigned)b->uid[1], tname);
    return 1;
  }
  if (b->dumpable == 0 && !a->cap_sys_ptrace) {
    a->gate = PROCINFO_GATE_DUMPABLE;
    snprintf(a->reason, sizeof a->reason,
             "not dumpable (a set-id exec or prctl(PR_SET_DUMPABLE, 0)) and asmspy lacks "
             "CAP_SYS_PTRACE");
    snprintf(a->hint, sizeof a->hint, "-> only CAP_SYS_PTRACE (root) may attach to it");
    snprintf(a->short_reason, sizeof a->short_reason, "not dumpable");
    return 1;
  }
  return 0;
}

/* Yama's scopes 3 (nobody) and 2 (CAP_SYS_PTRACE only). */
static int gate_yama_strict(struct procinfo_attach *a) {
  if (a->yama == 3) {
    a->gate = PROCINFO_GATE_YAMA;
    snprintf(a->reason, sizeof a->reason,
             "Yama ptrace_scope=3: attaching is disabled for everyone, root included");
    snprintf(a->hint, sizeof a->hint,
             "-> ptrace_scope=3 cannot be lowered until reboot; use --launch-free modes "
             "(--info, --syms, --sample)");
    snprintf(a->short_reason, sizeof a->short_reason, "yama ptrace_scope=3");
    return 1;
  }
  if (a->yama == 2 && !a->cap_sys_ptrace) {
    a->gate = PROCINFO_GATE_YAMA;
    snprintf(a->reason, sizeof a->reason,
             "Yama ptrace_scope=2: only CAP_SYS_PTRACE may attach, asmspy has none");
    snprintf(a->hint, sizeof a->hint, "-> run asmspy as root (sudo) or grant it CAP_SYS_PTRACE");
    snprintf(a->short_reason, sizeof a->short_reason, "yama ptrace_scope=2");
    return 1;
  }
  return 0;
}

/* The gates /proc shows are open (or only Yama's ancestry rule is in
 * doubt): the kernel's own check decides, measured as the attach path
 * meets it (attach_access_errno: PTRACE_MODE_ATTACH_REALCREDS, Yama and
 * every LSM included), never assumed from the gates. *acc: its errno. */
static int gate_kernel_access(const struct procinfo_brief *b, struct procinfo_attach *a, int *acc) {
  *acc = attach_access_errno(b->pid);
  if (*acc == EPERM || *acc == EACCES) {
    a->gate = PROCINFO_GATE_ACCESS;
    char missing[160];
    attach_caps_missing(b->pid, missing, sizeof missing);
    snprintf(a->reason, sizeof a->reason,
             "the kernel's ptrace access check refuses (process_vm_readv: %s) although uid, "
             "CAP_SYS_PTRACE and Yama allow it: %s",
             *acc == EPERM ? "EPERM" : "EACCES",
             missing[0] ? missing
                        : "a gate /proc does not show (a Linux security module, a user "
                          "namespace)");
    snprintf(a->hint, sizeof a->hint,
             "-> asmspy --launch <mode> -- <cmd> traces a program it starts");
    snprintf(a->short_reason, sizeof a->short_reason, "kernel access check: %s",
             *acc == EPERM ? "EPERM" : "EACCES");
    return 1;
  }
  return 0;
}

/* Every measured gate is open: YES, or MAYBE when only Yama's ancestry
 * rule (scope 1), which /proc cannot show, is in doubt. */
static void assess_open(const struct procinfo_brief *b, struct procinfo_attach *a,
                        const struct assess_self *me, int acc) {
  if (a->yama == 1 && !a->cap_sys_ptrace && acc == 0) {
    a->verdict = PROCINFO_ATTACH_YES;
    a->gate = PROCINFO_GATE_NONE;
    snprintf(a->reason, sizeof a->reason,
             "Yama ptrace_scope=1 lets asmspy in (measured: a descendant, or PR_SET_PTRACER) · "
             "not traced");
    return;
  }
  if (a->yama == 1 && !a->cap_sys_ptrace) {
    /* Ancestry and PR_SET_PTRACER are not visible in /proc: say so. */
    a->verdict = PROCINFO_ATTACH_MAYBE;
    a->gate = PROCINFO_GATE_YAMA;
    snprintf(a->reason, sizeof a->reason,
             "yama ptrace_scope=1 — only a descendant, or a target that called PR_SET_PTRACER");
    snprintf(a->hint, sizeof a->hint,
             "-> sudo sysctl kernel.yama.ptrace_scope=0, or launch the target from asmspy");
    snprintf(a->short_reason, sizeof a->short_reason, "yama=1: descendant/PR_SET_PTRACER only");
    return;
  }
  a->verdict = PROCINFO_ATTACH_YES;
  a->gate = PROCINFO_GATE_NONE;
  char yama_text[64];
  if (a->yama < 0)
    snprintf(yama_text, sizeof yama_text, "no Yama LSM");
  else
    snprintf(yama_text, sizeof yama_text, "Yama ptrace_scope=%d%s", a->yama,
             a->yama ? " (CAP_SYS_PTRACE passes it)" : "");
  if (me->same_ids)
    snprintf(a->reason, sizeof a->reason,
             "same uid %u (%s)%s · %s · not traced · the kernel's access check lets asmspy in "
             "(measured)",
             (unsigned)me->uid, me->name, a->cap_sys_ptrace ? " · CAP_SYS_PTRACE" : "", yama_text);
  else
    snprintf(a->reason, sizeof a->reason,
             "target uid %u, asmspy uid %u (%s) with CAP_SYS_PTRACE · %s · not traced · the "
             "kernel's access check lets asmspy in (measured)",
             (unsigned)b->uid[1], (unsigned)me->uid, me->name, yama_text);
}

void procinfo_attach_assess(const struct procinfo_brief *b, struct procinfo_attach *a) {
  memset(a, 0, sizeof *a);
  a->yama = yama_scope();
  a->tracer_pid = b->tracer_pid;
  a->cap_sys_ptrace = cap_sys_ptrace_self();
  struct assess_self me = {.uid = getuid(), .gid = getgid()};
  user_name(me.uid, me.name, sizeof me.name);
  me.same_ids = b->uid[0] == me.uid && b->uid[1] == me.uid && b->uid[2] == me.uid &&
                b->gid[0] == me.gid && b->gid[1] == me.gid && b->gid[2] == me.gid;
  a->verdict = PROCINFO_ATTACH_NO;
  int acc = 0;
  if (gate_process(b, a) || gate_credentials(b, a, &me) || gate_yama_strict(a) ||
      gate_kernel_access(b, a, &acc))
    return;
  assess_open(b, a, &me, acc);
}

/* ------------------------------------------------------------------------- */
/* the executable's ELF traits                                                */
/* ------------------------------------------------------------------------- */

/* Symbol names the runtime fingerprint looks for in the executable. */
enum { WANT_PYRUNTIME = 1u << 0, WANT_GO_MAIN = 1u << 1, WANT_JNI_CREATE = 1u << 2 };

static void elf_scan(const char *path, struct procinfo_elf *out, unsigned *found) {
  memset(out, 0, sizeof *out);
  *found = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out->err = errno;
    return;
  }
  if (elf_version(EV_CURRENT) == EV_NONE) {
    close(fd);
    out->err = ENOSYS;
    return;
  }
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
    if (elf) elf_end(elf);
    close(fd);
    out->err = ENOEXEC;
    return;
  }
  out->known = 1;
  out->elf_class = gelf_getclass(elf) == ELFCLASS32 ? 32 : 64;
  switch (eh.e_machine) {
  case EM_X86_64: snprintf(out->machine, sizeof out->machine, "x86-64"); break;
  case EM_386: snprintf(out->machine, sizeof out->machine, "i386"); break;
  case EM_AARCH64: snprintf(out->machine, sizeof out->machine, "aarch64"); break;
  case EM_ARM: snprintf(out->machine, sizeof out->machine, "arm"); break;
  case EM_RISCV: snprintf(out->machine, sizeof out->machine, "riscv"); break;
  default: snprintf(out->machine, sizeof out->machine, "machine %u", (unsigned)eh.e_machine);
  }
  out->pie = eh.e_type == ET_DYN;
  out->is_static = 1;
  size_t nph = 0;
  size_t raw_size = 0;
  const char *raw = elf_rawfile(elf, &raw_size);
  if (elf_getphdrnum(elf, &nph) == 0) {
    for (size_t i = 0; i < nph && i < 4096; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, (int)i, &ph)) continue;
      if (ph.p_type != PT_INTERP) continue;
      out->is_static = 0;
      if (raw && ph.p_offset < raw_size && ph.p_filesz > 0) {
        size_t len = ph.p_filesz;
        if (len > raw_size - ph.p_offset) len = raw_size - ph.p_offset;
        if (len >= sizeof out->interp) len = sizeof out->interp - 1;
        memcpy(out->interp, raw + ph.p_offset, len);
        out->interp[len] = '\0';
        out->interp[strnlen(out->interp, len)] = '\0';
      }
    }
  }
  out->stripped = 1;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
    Elf_Scn *scn = NULL;
    size_t nsyms_seen = 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (name && strcmp(name, ".go.buildinfo") == 0) out->go_buildinfo = 1;
      if (sh.sh_type == SHT_SYMTAB) out->stripped = 0;
      if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_entsize == 0) continue;
      Elf_Data *data = elf_getdata(scn, NULL);
      if (!data) continue;
      size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < n && nsyms_seen < 4000000; i++, nsyms_seen++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym) || sym.st_name == 0) continue;
        const char *s = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (!s) continue;
        if (s[0] == '_' && strcmp(s, "_PyRuntime") == 0)
          *found |= WANT_PYRUNTIME;
        else if (s[0] == 'r' && strcmp(s, "runtime.main") == 0)
          *found |= WANT_GO_MAIN;
        else if (s[0] == 'J' && strcmp(s, "JNI_CreateJavaVM") == 0)
          *found |= WANT_JNI_CREATE;
      }
    }
  }
  elf_end(elf);
  close(fd);
}

/* ------------------------------------------------------------------------- */
/* maps: modules, anonymous code, runtime libraries                            */
/* ------------------------------------------------------------------------- */

static int has_path(char **paths, size_t n, const char *p) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(paths[i], p) == 0) return 1;
  return 0;
}

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

struct runtime_rule {
  const char *badge;
  const char *lib_prefix; /* a mapped module whose basename starts with this */
};

/* Runtime libraries, in priority order (a JVM may map libpython via JNI,
 * not the other way round). */
static const struct runtime_rule runtime_libs[] = {
    {"JVM", "libjvm.so"},       {".NET", "libcoreclr.so"},
    {"Node·V8", "libnode.so"},  {"Mono", "libmonosgen-2.0.so"},
    {"Mono", "libmono-2.0.so"}, {"CPython", "libpython"},
    {"Ruby", "libruby"},        {"Perl", "libperl.so"},
    {"LuaJIT", "libluajit"},    {"Lua", "liblua"},
    {"PHP", "libphp"},          {NULL, NULL},
};

/* Parse maps; fill modules / exec_anon / module_paths. Returns 0 or errno. */
static int read_maps(struct procinfo *pi) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pi->b.pid);
  FILE *f = fopen(path, "re");
  if (!f) return errno;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long modules = 0, exec_anon = 0;
  /* All executable file paths, to count distinct ones (bounded). */
  char **all = NULL;
  size_t n_all = 0, all_cap = 0;
  while ((len = getline(&line, &cap, f)) > 0) {
    if (line[len - 1] == '\n') line[--len] = '\0';
    char perms[8] = "";
    int pos = 0;
    if (sscanf(line, "%*x-%*x %7s %*x %*s %*u%n", perms, &pos) < 1 || pos == 0) continue;
    const char *p = line + pos;
    while (*p == ' ') p++;
    int exec = strchr(perms, 'x') != NULL;
    if (!exec) continue;
    if (*p != '/') {
      if (strcmp(p, "[vdso]") && strcmp(p, "[vsyscall]") && strcmp(p, "[uprobes]")) exec_anon++;
      continue;
    }
    if (has_path(all, n_all, p)) continue;
    if (n_all == all_cap) {
      size_t nc = all_cap ? all_cap * 2 : 64;
      char **na = realloc(all, nc * sizeof *na);
      if (!na) break;
      all = na;
      all_cap = nc;
    }
    char *dup = strdup(p);
    if (!dup) break;
    all[n_all++] = dup;
    modules++;
  }
  free(line);
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  fclose(f);
  pi->modules = modules;
  pi->exec_anon = exec_anon;
  /* Keep up to PROCINFO_MAX_MODULES paths. */
  size_t keep = n_all < PROCINFO_MAX_MODULES ? n_all : PROCINFO_MAX_MODULES;
  pi->module_paths = all;
  pi->n_module_paths = keep;
  for (size_t i = keep; i < n_all; i++) free(all[i]);
  return err;
}

static void set_runtime(struct procinfo *pi, const char *badge, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_runtime(struct procinfo *pi, const char *badge, const char *fmt, ...) {
  snprintf(pi->runtime, sizeof pi->runtime, "%s", badge);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pi->runtime_evidence, sizeof pi->runtime_evidence, fmt, ap);
  va_end(ap);
}

static void fingerprint_runtime(struct procinfo *pi, unsigned exe_found) {
  const char *exe_base = pi->exe[0] ? base_name(pi->exe) : pi->b.comm;
  for (const struct runtime_rule *r = runtime_libs; r->badge; r++)
    for (size_t i = 0; i < pi->n_module_paths; i++) {
      const char *b = base_name(pi->module_paths[i]);
      if (starts_with(b, r->lib_prefix)) {
        set_runtime(pi, r->badge, "%s mapped", b);
        return;
      }
    }
  if (exe_found & WANT_JNI_CREATE) {
    set_runtime(pi, "JVM", "JNI_CreateJavaVM in %s", exe_base);
    return;
  }
  if (strcmp(exe_base, "node") == 0 || strcmp(exe_base, "nodejs") == 0) {
    set_runtime(pi, "Node·V8", "node executable (%s)", exe_base);
    return;
  }
  if (exe_found & WANT_PYRUNTIME) {
    set_runtime(pi, "CPython", "_PyRuntime symbol in %s", exe_base);
    return;
  }
  if (pi->elf.go_buildinfo || (exe_found & WANT_GO_MAIN)) {
    set_runtime(pi, "Go", "%s in %s",
                pi->elf.go_buildinfo ? ".go.buildinfo section" : "runtime.main symbol", exe_base);
    return;
  }
  static const struct {
    const char *badge, *exe_prefix;
  } exe_rules[] = {{"Ruby", "ruby"}, {"Perl", "perl"},     {"Erlang/BEAM", "beam"}, {"PHP", "php"},
                   {"Mono", "mono"}, {"LuaJIT", "luajit"}, {"CPython", "python"},   {NULL, NULL}};
  for (int i = 0; exe_rules[i].badge; i++)
    if (starts_with(exe_base, exe_rules[i].exe_prefix)) {
      set_runtime(pi, exe_rules[i].badge, "executable named %s", exe_base);
      return;
    }
  if (pi->b.kthread) {
    set_runtime(pi, "kernel", "kernel thread (PF_KTHREAD)");
    return;
  }
  if (pi->maps_err && !pi->elf.known) {
    set_runtime(pi, "unknown", "maps and executable unreadable (%s)", strerror(pi->maps_err));
    return;
  }
  set_runtime(pi, "native", "no managed runtime in the mapped modules or the executable's symbols");
}

/* ------------------------------------------------------------------------- */
/* threads                                                                    */
/* ------------------------------------------------------------------------- */

static int cmp_thread(const void *a, const void *b) {
  const struct procinfo_thread *x = a, *y = b;
  return (x->tid > y->tid) - (x->tid < y->tid);
}

static void read_threads(struct procinfo *pi) {
  char path[96];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pi->b.pid);
  DIR *d = opendir(path);
  if (!d) return;
  size_t cap = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
    if (pi->n_threads >= PROCINFO_MAX_THREADS) {
      pi->threads_truncated = 1;
      break;
    }
    if (pi->n_threads == cap) {
      size_t nc = cap ? cap * 2 : 16;
      struct procinfo_thread *nt = realloc(pi->threads, nc * sizeof *nt);
      if (!nt) break;
      pi->threads = nt;
      cap = nc;
    }
    struct procinfo_thread *t = &pi->threads[pi->n_threads];
    memset(t, 0, sizeof *t);
    t->tid = (pid_t)atoi(de->d_name);
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pi->b.pid, (int)t->tid);
    if (parse_stat(path, t->comm, sizeof t->comm, &t->state, NULL, NULL, NULL, NULL, NULL) != 0)
      continue; /* exited meanwhile */
    char buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/wchan", (int)pi->b.pid, (int)t->tid);
    if (read_small(path, buf, sizeof buf) > 0 && strcmp(buf, "0") != 0)
      snprintf(t->wchan, sizeof t->wchan, "%.63s", buf);
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pi->b.pid, (int)t->tid);
    ssize_t n = read_small(path, buf, sizeof buf);
    if (n < 0) {
      t->sc_state = PROCINFO_SC_UNREADABLE;
      t->syscall_errno = (int)-n;
    } else if (strncmp(buf, "running", 7) == 0) {
      t->sc_state = PROCINFO_SC_RUNNING;
    } else {
      char *end;
      long long nr = strtoll(buf, &end, 10);
      if (end == buf) {
        t->sc_state = PROCINFO_SC_UNREADABLE;
        t->syscall_errno = EIO;
      } else if (nr < 0) {
        t->sc_state = PROCINFO_SC_USER;
      } else {
        t->sc_state = PROCINFO_SC_IN;
        t->syscall_nr = nr;
      }
    }
    pi->n_threads++;
  }
  closedir(d);
  if (pi->n_threads > 1) qsort(pi->threads, pi->n_threads, sizeof *pi->threads, cmp_thread);
}

/* ------------------------------------------------------------------------- */
/* modes                                                                      */
/* ------------------------------------------------------------------------- */

/* The menu key a view asks for ('1'..'9'), or 0 (the host assigns one). */
static char menu_key(const struct asmspy_plugin_info *v) {
  const struct asmspy_view_ops *ops = v->desc->view;
  if (!ASMSPY_HAS(ops, tui) || !ops->tui) return 0;
  return ops->tui->key >= '1' && ops->tui->key <= '9' ? ops->tui->key : 0;
}

size_t procinfo_views(const struct asmspy_engine *e, const struct asmspy_plugin_info **out,
                      size_t cap) {
  size_t n = 0;
  /* the views that number themselves, by their key; then the others in
   * registry order (a key claimed twice: the first view loaded keeps it) */
  for (char key = '1'; key <= '9'; key++)
    for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
      const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
      if (p->desc && p->kind == ASMSPY_KIND_VIEW && menu_key(p) == key && n < cap) {
        out[n++] = p;
        break;
      }
    }
  for (size_t i = 0; e && i < asmspy_plugin_count(e); i++) {
    const struct asmspy_plugin_info *p = asmspy_plugin_at(e, i);
    if (!p->desc || p->kind != ASMSPY_KIND_VIEW) continue;
    int listed = 0;
    for (size_t k = 0; k < n && !listed; k++) listed = out[k] == p;
    if (!listed && n < cap) out[n++] = p;
  }
  return n;
}

static void add_reason(struct procinfo_mode *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_reason(struct procinfo_mode *m, const char *fmt, ...) {
  char atom[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(atom, sizeof atom, fmt, ap);
  va_end(ap);
  if (m->n_atoms < 4) memcpy(m->atoms[m->n_atoms++], atom, sizeof atom);
  size_t len = strlen(m->reason);
  if (len && len + 2 < sizeof m->reason) {
    memcpy(m->reason + len, "; ", 3);
    len += 2;
  }
  snprintf(m->reason + len, sizeof m->reason - len, "%s", atom);
}

/* A sampling mode whose default rung is refused here: the first rung of the
 * ladder that works, as a hint (--sampler=<rung>). */
static void hint_other_rung(struct procinfo_mode *m, struct asmspy_engine *e,
                            const struct asmspy_plugin_info *refused) {
  const struct asmspy_plugin_info *rungs[32];
  size_t n = sampler_ladder(e, rungs, sizeof rungs / sizeof rungs[0]);
  for (size_t i = 0; i < n; i++) {
    if (rungs[i] == refused || !rungs[i]->desc->backend->sampler_order) continue;
    asmspy_probe_plugin(e, (struct asmspy_plugin_info *)rungs[i]);
    if (rungs[i]->status != ASMSPY_USABLE) continue;
    add_reason(m, "--sampler=%s works here (%s)", rungs[i]->desc->backend->sampler_rung,
               rungs[i]->name);
    return;
  }
}

/* One mode's verdict: the view's probe, the backend `asmspy --<mode>` would
 * run on (host/engine_choose.c: the descriptors decide) and its probe, then
 * the gates of how that backend reaches the target: ptrace, or perf from
 * outside (ASMSPY_CAP_OUT_OF_BAND). */
static void judge_mode(struct procinfo *pi, struct asmspy_engine *e,
                       const struct asmspy_plugin_info *view, struct procinfo_mode *m) {
  memset(m, 0, sizeof *m);
  m->mode = view->desc->view->mode;
  m->status = PROCINFO_MODE_OK;
  asmspy_probe_plugin(e, (struct asmspy_plugin_info *)view);
  int needs_ptrace = 1;
  if (view->status != ASMSPY_USABLE) {
    m->status = PROCINFO_MODE_NO;
    add_reason(m, "view %s unavailable: %s", view->name, view->reason);
  } else {
    struct engine_choice c;
    int rc = engine_choose(e, m->mode, NULL, 0, NULL, &c);
    const struct asmspy_plugin_info *b = c.backend;
    if (!b) {
      m->status = PROCINFO_MODE_NO;
      add_reason(m, "%s",
                 rc == -ASMSPY_E_INTERNAL &&
                         !(view->desc->view->caps_required & ASMSPY_CAP_IP_SAMPLES)
                     ? "no backend provides what this mode needs"
                     : c.error);
    } else {
      snprintf(m->backend, sizeof m->backend, "%s", b->name);
      needs_ptrace = !(b->caps & ASMSPY_CAP_OUT_OF_BAND);
      if (b->status != ASMSPY_USABLE) {
        m->status = PROCINFO_MODE_NO;
        add_reason(m, "%s unavailable: %s", b->name, b->reason);
        if (view->desc->view->caps_required & ASMSPY_CAP_IP_SAMPLES) hint_other_rung(m, e, b);
      }
    }
  }
  if (needs_ptrace) {
    if (pi->attach.verdict == PROCINFO_ATTACH_NO) {
      m->status = PROCINFO_MODE_NO;
      add_reason(m, "needs ptrace: %s", pi->attach.short_reason);
    } else if (pi->attach.verdict == PROCINFO_ATTACH_MAYBE) {
      if (m->status == PROCINFO_MODE_OK) m->status = PROCINFO_MODE_MAYBE;
      add_reason(m, "needs ptrace: %s", pi->attach.short_reason);
    }
  } else if (pi->b.kthread) {
    m->status = PROCINFO_MODE_NO;
    add_reason(m, "kernel thread: no user-space samples");
  } else if (pi->attach.gate == PROCINFO_GATE_UID || pi->attach.gate == PROCINFO_GATE_DUMPABLE) {
    /* perf_event_open on another process needs ptrace-read access: the
     * uid and dumpable gates apply, Yama does not. */
    m->status = PROCINFO_MODE_NO;
    add_reason(m, "perf_event_open needs ptrace-read access: %s", pi->attach.short_reason);
  }
}

static void judge_modes(struct procinfo *pi, struct asmspy_engine *e) {
  const struct asmspy_plugin_info *views[PROCINFO_MAX_MODES];
  size_t n = procinfo_views(e, views, PROCINFO_MAX_MODES);
  pi->n_modes = 0;
  for (size_t i = 0; i < n; i++) judge_mode(pi, e, views[i], &pi->modes[pi->n_modes++]);
  pi->have_modes = 1;
}

/* ------------------------------------------------------------------------- */
/* the snapshot                                                               */
/* ------------------------------------------------------------------------- */

void procinfo_free(struct procinfo *pi) {
  if (!pi) return;
  free(pi->argv);
  for (size_t i = 0; i < pi->n_module_paths; i++) free(pi->module_paths[i]);
  free(pi->module_paths);
  free(pi->threads);
  pi->argv = NULL;
  pi->module_paths = NULL;
  pi->threads = NULL;
  pi->n_module_paths = pi->n_threads = 0;
}

static void read_link(const char *path, char *out, size_t cap, int *err) {
  ssize_t n = readlink(path, out, cap - 1);
  if (n < 0) {
    *err = errno;
    out[0] = '\0';
    return;
  }
  out[n] = '\0';
  *err = 0;
}

int procinfo_read(pid_t pid, struct asmspy_engine *e, unsigned flags, struct procinfo *pi) {
  memset(pi, 0, sizeof *pi);
  int err = procinfo_brief_read(pid, &pi->b);
  if (err) return err;
  char path[96];

  /* argv */
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
  size_t cap = 65536;
  pi->argv = malloc(cap);
  if (pi->argv) {
    ssize_t n = read_small(path, pi->argv, cap);
    pi->argv_len = n > 0 ? (size_t)n : 0;
    if (pi->argv_len && pi->argv[pi->argv_len - 1] == '\0') pi->argv_len--;
    pi->argc = pi->argv_len ? 1 : 0;
    for (size_t i = 0; i < pi->argv_len; i++)
      if (pi->argv[i] == '\0') pi->argc++;
  }

  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  read_link(path, pi->exe, sizeof pi->exe, &pi->exe_err);
  snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
  read_link(path, pi->cwd, sizeof pi->cwd, &pi->cwd_err);

  /* rss */
  pi->rss_kb = -1;
  char status[4096];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  if (read_small(path, status, sizeof status) > 0) {
    const char *p = strstr(status, "\nVmRSS:");
    pi->rss_kb = p ? strtol(p + 7, NULL, 10) : 0;
  }

  /* fds */
  pi->fds = -1;
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(path);
  if (d) {
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
      if (de->d_name[0] != '.') n++;
    closedir(d);
    pi->fds = n;
  } else {
    pi->fds_err = errno;
  }

  pi->cpu_jiffies = pi->b.utime + pi->b.stime;
  pi->hz = sysconf(_SC_CLK_TCK);

  procinfo_attach_assess(&pi->b, &pi->attach);
  attach_explain(pid, pi->attach_explain, sizeof pi->attach_explain);

  /* maps, ELF, runtime */
  pi->maps_err = read_maps(pi);
  if (pi->maps_err) pi->modules = -1;
  unsigned exe_found = 0;
  if (pi->b.kthread) {
    pi->elf.err = ENOENT;
  } else {
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    elf_scan(path, &pi->elf, &exe_found);
  }
  fingerprint_runtime(pi, exe_found);

  /* names */
  pi->symbols = pi->jit_methods = -1;
  if (!(flags & PROCINFO_NO_SYMBOLS) && !pi->b.kthread && !pi->maps_err) {
    struct asmspy_symtab *st = symtab_load(pid);
    if (st) {
      long elf_syms = 0, jit = 0;
      for (size_t i = 0; i < symtab_count(st); i++) {
        if (symtab_at(st, i)->kind == ASMSPY_SYM_JIT)
          jit++;
        else
          elf_syms++;
      }
      pi->symbols = elf_syms;
      pi->jit_methods = jit;
      symtab_free(st);
    }
  }

  read_threads(pi);

  if (!(flags & PROCINFO_NO_MODES)) {
    struct asmspy_engine *own = NULL;
    if (!e) e = own = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
    if (e) judge_modes(pi, e);
    /* judge_modes copied every name it keeps: the engine may go. */
    if (own) asmspy_engine_close(own);
  }
  return 0;
}

/* ------------------------------------------------------------------------- */
/* renderings                                                                 */
/* ------------------------------------------------------------------------- */

static const char *mode_status_name(enum procinfo_mode_status s) {
  switch (s) {
  case PROCINFO_MODE_OK: return "ok";
  case PROCINFO_MODE_MAYBE: return "maybe";
  default: return "no";
  }
}

static const char *sc_state_name(enum procinfo_syscall_state s) {
  switch (s) {
  case PROCINFO_SC_IN: return "in_syscall";
  case PROCINFO_SC_USER: return "user";
  case PROCINFO_SC_RUNNING: return "running";
  default: return "unreadable";
  }
}

/* The thread's syscall column, as text. */
static void thread_syscall_text(const struct procinfo_thread *t, char *buf, size_t cap) {
  switch (t->sc_state) {
  case PROCINFO_SC_IN: {
    const char *name = host_syscall_name(t->syscall_nr);
    snprintf(buf, cap, "%s (%" PRId64 ")", name ? name : "?", t->syscall_nr);
    break;
  }
  case PROCINFO_SC_USER: snprintf(buf, cap, "- (user space)"); break;
  case PROCINFO_SC_RUNNING: snprintf(buf, cap, "running (on a CPU)"); break;
  default:
    if (t->syscall_errno == EACCES || t->syscall_errno == EPERM)
      snprintf(buf, cap, "needs ptrace permission (Yama ptrace_scope / uid)");
    else
      snprintf(buf, cap, "unreadable (%s)", strerror(t->syscall_errno));
  }
}

/* procinfo_json_fields: the process: ids, names, argv, exe, cwd, sizes. */
static void json_process(struct strbuf *b, const struct procinfo *pi) {
  const struct procinfo_brief *r = &pi->b;
  strbuf_addf(b, "\"pid\":%d,\"ppid\":%d,\"comm\":", (int)r->pid, (int)r->ppid);
  strbuf_json_str(b, r->comm);
  strbuf_addf(b, ",\"state\":\"%c\",\"state_name\":", r->state ? r->state : '?');
  strbuf_json_str(b, procinfo_state_name(r->state));
  strbuf_addf(b, ",\"runtime\":");
  strbuf_json_str(b, pi->runtime);
  strbuf_addf(b, ",\"runtime_evidence\":");
  strbuf_json_str(b, pi->runtime_evidence);
  strbuf_addf(b, ",\"argv\":[");
  for (size_t i = 0, start = 0, k = 0; pi->argv && i <= pi->argv_len && pi->argv_len; i++) {
    if (i == pi->argv_len || pi->argv[i] == '\0') {
      if (k++) strbuf_addf(b, ",");
      strbuf_json_strn(b, pi->argv + start, i - start);
      start = i + 1;
    }
  }
  strbuf_addf(b, "],\"exe\":");
  sb_json_str_or_null(b, pi->exe);
  if (!pi->exe[0]) {
    strbuf_addf(b, ",\"exe_error\":");
    strbuf_json_str(b, strerror(pi->exe_err));
  }
  strbuf_addf(b, ",\"cwd\":");
  sb_json_str_or_null(b, pi->cwd);
  strbuf_addf(b, ",\"uid\":%u,\"euid\":%u,\"gid\":%u,\"user\":", (unsigned)r->uid[0],
              (unsigned)r->uid[1], (unsigned)r->gid[0]);
  strbuf_json_str(b, r->user);
  strbuf_addf(b, ",\"thread_count\":%d", r->threads);
  if (pi->rss_kb >= 0)
    strbuf_addf(b, ",\"rss_kb\":%ld", pi->rss_kb);
  else
    strbuf_addf(b, ",\"rss_kb\":null");
  if (pi->fds >= 0)
    strbuf_addf(b, ",\"fds\":%d", pi->fds);
  else
    strbuf_addf(b, ",\"fds\":null");
  strbuf_addf(b, ",\"cpu_jiffies\":%" PRIu64 ",\"hz\":%ld", pi->cpu_jiffies, pi->hz);
}

/* procinfo_json_fields: the attach verdict and the gates behind it. */
static void json_attach(struct strbuf *b, const struct procinfo *pi) {
  strbuf_addf(b, ",\"attach\":\"%s\",\"attach_gate\":\"%s\",\"attach_reason\":",
              procinfo_verdict_name(pi->attach.verdict), gate_name(pi->attach.gate));
  strbuf_json_str(b, pi->attach.reason);
  strbuf_addf(b, ",\"attach_hint\":");
  sb_json_str_or_null(b, pi->attach.hint);
  /* attach_diag's wording of the gates: only meaningful for a refusal */
  strbuf_addf(b, ",\"attach_explain\":");
  sb_json_str_or_null(b, pi->attach.verdict == PROCINFO_ATTACH_YES ? "" : pi->attach_explain);
  strbuf_addf(b, ",\"tracer_pid\":%d", (int)pi->attach.tracer_pid);
  if (pi->attach.yama >= 0)
    strbuf_addf(b, ",\"yama_ptrace_scope\":%d", pi->attach.yama);
  else
    strbuf_addf(b, ",\"yama_ptrace_scope\":null");
  strbuf_addf(b, ",\"cap_sys_ptrace\":%s", pi->attach.cap_sys_ptrace ? "true" : "false");
}

/* procinfo_json_fields: each mode's verdict. */
static void json_modes(struct strbuf *b, const struct procinfo *pi) {
  strbuf_addf(b, ",\"modes\":[");
  for (size_t i = 0; pi->have_modes && i < pi->n_modes; i++) {
    const struct procinfo_mode *m = &pi->modes[i];
    strbuf_addf(b, "%s{\"mode\":\"%s\",\"status\":\"%s\",\"backend\":", i ? "," : "", m->mode,
                mode_status_name(m->status));
    sb_json_str_or_null(b, m->backend);
    strbuf_addf(b, ",\"reason\":");
    sb_json_str_or_null(b, m->reason);
    strbuf_addf(b, "}");
  }
  strbuf_addf(b, "]");
}

/* procinfo_json_fields: symbols, JIT methods, modules. */
static void json_names(struct strbuf *b, const struct procinfo *pi) {
  if (pi->symbols >= 0)
    strbuf_addf(b, ",\"symbols\":%ld,\"jit_methods\":%ld", pi->symbols, pi->jit_methods);
  else
    strbuf_addf(b, ",\"symbols\":null,\"jit_methods\":null");
  if (pi->modules >= 0)
    strbuf_addf(b, ",\"modules\":%ld,\"exec_anon_regions\":%ld", pi->modules, pi->exec_anon);
  else
    strbuf_addf(b, ",\"modules\":null,\"exec_anon_regions\":null");
  strbuf_addf(b, ",\"module_paths\":[");
  for (size_t i = 0; i < pi->n_module_paths; i++) {
    if (i) strbuf_addf(b, ",");
    strbuf_json_str(b, pi->module_paths[i]);
  }
  strbuf_addf(b, "]");
}

/* procinfo_json_fields: the executable's ELF facts. */
static void json_elf(struct strbuf *b, const struct procinfo *pi) {
  if (pi->elf.known) {
    strbuf_addf(b, ",\"elf\":{\"class\":%d,\"machine\":", pi->elf.elf_class);
    strbuf_json_str(b, pi->elf.machine);
    strbuf_addf(
        b, ",\"pie\":%s,\"static\":%s,\"stripped\":%s,\"interp\":", pi->elf.pie ? "true" : "false",
        pi->elf.is_static ? "true" : "false", pi->elf.stripped ? "true" : "false");
    sb_json_str_or_null(b, pi->elf.interp);
    strbuf_addf(b, ",\"go_buildinfo\":%s}", pi->elf.go_buildinfo ? "true" : "false");
  } else {
    strbuf_addf(b, ",\"elf\":null,\"elf_error\":");
    strbuf_json_str(b, strerror(pi->elf.err ? pi->elf.err : EIO));
  }
}

/* procinfo_json_fields: every thread and the syscall it is in. */
static void json_threads(struct strbuf *b, const struct procinfo *pi) {
  strbuf_addf(b, ",\"threads\":[");
  for (size_t i = 0; i < pi->n_threads; i++) {
    const struct procinfo_thread *t = &pi->threads[i];
    strbuf_addf(b, "%s{\"tid\":%d,\"comm\":", i ? "," : "", (int)t->tid);
    strbuf_json_str(b, t->comm);
    strbuf_addf(b, ",\"state\":\"%c\",\"wchan\":", t->state ? t->state : '?');
    sb_json_str_or_null(b, t->wchan);
    strbuf_addf(b, ",\"syscall_state\":\"%s\"", sc_state_name(t->sc_state));
    if (t->sc_state == PROCINFO_SC_IN) {
      const char *name = host_syscall_name(t->syscall_nr);
      strbuf_addf(b, ",\"syscall_nr\":%" PRId64 ",\"syscall\":", t->syscall_nr);
      strbuf_json_str(b, name ? name : "?");
    } else {
      strbuf_addf(b, ",\"syscall_nr\":null,\"syscall\":null");
    }
    strbuf_addf(b, "}");
  }
  strbuf_addf(b, "],\"threads_truncated\":%s", pi->threads_truncated ? "true" : "false");
}

char *procinfo_json_fields(const struct procinfo *pi) {
  struct strbuf b = {0};
  json_process(&b, pi);
  json_attach(&b, pi);
  json_modes(&b, pi);
  json_names(&b, pi);
  json_elf(&b, pi);
  json_threads(&b, pi);
  return sb_take(&b);
}

/* Text: bytes of argv with NULs as spaces, control bytes as '?'. */
static void sb_add_cmdline(struct strbuf *b, const struct procinfo *pi) {
  size_t n = pi->argv_len > 4000 ? 4000 : pi->argv_len;
  char *tmp = malloc(n + 1);
  if (!tmp) return;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)pi->argv[i];
    tmp[i] = c == '\0' ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
  }
  tmp[n] = '\0';
  strbuf_addf(b, "%s%s", tmp, n < pi->argv_len ? " ..." : "");
  free(tmp);
}

char *procinfo_text(const struct procinfo *pi) {
  struct strbuf b = {0};
  const struct procinfo_brief *r = &pi->b;
  strbuf_addf(&b, "pid %d  %s  [%s]  %c\n", (int)r->pid, r->comm, pi->runtime,
              r->state ? r->state : '?');
  strbuf_addf(&b, "  cmd      ");
  if (pi->argv_len)
    sb_add_cmdline(&b, pi);
  else
    strbuf_addf(&b, "[%s]", r->comm);
  if (pi->exe[0])
    strbuf_addf(&b, "\n  exe      %s\n", pi->exe);
  else
    strbuf_addf(&b, "\n  exe      ? (%s)\n", strerror(pi->exe_err));
  if (pi->cwd[0])
    strbuf_addf(&b, "  cwd      %s\n", pi->cwd);
  else
    strbuf_addf(&b, "  cwd      ? (%s)\n", strerror(pi->cwd_err));
  strbuf_addf(&b, "  user     %s (uid %u)   ppid %d   threads %d\n", r->user, (unsigned)r->uid[0],
              (int)r->ppid, r->threads);
  char rss[32], fds[64];
  if (pi->rss_kb >= 0)
    snprintf(rss, sizeof rss, "%ld KB", pi->rss_kb);
  else
    snprintf(rss, sizeof rss, "?");
  if (pi->fds >= 0)
    snprintf(fds, sizeof fds, "%d", pi->fds);
  else
    snprintf(fds, sizeof fds, "? (%s)", strerror(pi->fds_err));
  strbuf_addf(&b, "  rss      %s   fds %s   cpu %" PRIu64 " jiffies @ %ld Hz\n", rss, fds,
              pi->cpu_jiffies, pi->hz);
  strbuf_addf(&b, "  runtime  %s — %s\n", pi->runtime, pi->runtime_evidence);
  strbuf_addf(&b, "  attach   %s — %s\n", procinfo_verdict_name(pi->attach.verdict),
              pi->attach.reason);
  if (pi->attach.hint[0]) strbuf_addf(&b, "           %s\n", pi->attach.hint);
  if (pi->have_modes) {
    strbuf_addf(&b, "  modes    ");
    for (size_t i = 0; i < pi->n_modes; i++)
      strbuf_addf(&b, "%s%s %s", i ? "  " : "", pi->modes[i].mode,
                  mode_status_name(pi->modes[i].status));
    strbuf_addf(&b, "\n");
    /* Each distinct reason once, with the modes it closes. */
    for (size_t i = 0; i < pi->n_modes; i++)
      for (int k = 0; k < pi->modes[i].n_atoms; k++) {
        const char *atom = pi->modes[i].atoms[k];
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
          for (int l = 0; l < pi->modes[j].n_atoms; l++)
            if (strcmp(pi->modes[j].atoms[l], atom) == 0) seen = 1;
        if (seen) continue;
        strbuf_addf(&b, "           ");
        int first = 1;
        for (size_t j = i; j < pi->n_modes; j++)
          for (int l = 0; l < pi->modes[j].n_atoms; l++)
            if (strcmp(pi->modes[j].atoms[l], atom) == 0) {
              strbuf_addf(&b, "%s%s", first ? "" : ",", pi->modes[j].mode);
              first = 0;
            }
        strbuf_addf(&b, ": %s\n", atom);
      }
  }
  strbuf_addf(&b, "  names    ");
  if (pi->symbols >= 0)
    strbuf_addf(&b, "%ld symbols", pi->symbols);
  else
    strbuf_addf(&b, "? symbols");
  if (pi->modules >= 0)
    strbuf_addf(&b, " · %ld modules", pi->modules);
  else
    strbuf_addf(&b, " · ? modules (maps: %s)", strerror(pi->maps_err));
  if (pi->jit_methods >= 0)
    strbuf_addf(&b, " · %ld JIT methods", pi->jit_methods);
  else
    strbuf_addf(&b, " · ? JIT methods");
  if (pi->exec_anon > 0)
    strbuf_addf(&b, " · %ld anonymous code region%s", pi->exec_anon, pi->exec_anon == 1 ? "" : "s");
  strbuf_addf(&b, "\n");
  if (pi->elf.known) {
    strbuf_addf(&b, "  elf      ELF%d %s · %s · %s", pi->elf.elf_class, pi->elf.machine,
                pi->elf.pie ? "PIE" : "non-PIE", pi->elf.is_static ? "static" : "dynamic");
    if (pi->elf.interp[0]) strbuf_addf(&b, " (%s)", pi->elf.interp);
    strbuf_addf(&b, " · %s\n",
                pi->elf.stripped ? "stripped (no .symtab)" : "not stripped (.symtab)");
  } else if (!r->kthread) {
    strbuf_addf(&b, "  elf      ? (%s)\n", strerror(pi->elf.err ? pi->elf.err : EIO));
  }
  strbuf_addf(&b, "  threads");
  for (size_t i = 0; i < pi->n_threads; i++) {
    const struct procinfo_thread *t = &pi->threads[i];
    char sc[128];
    thread_syscall_text(t, sc, sizeof sc);
    strbuf_addf(&b, "\n    %-8d %-16s %c  %-24s %s", (int)t->tid, t->comm,
                t->state ? t->state : '?', t->wchan[0] ? t->wchan : "-", sc);
  }
  if (pi->threads_truncated)
    strbuf_addf(&b, "\n    ... (%d threads, first %d listed)", r->threads, PROCINFO_MAX_THREADS);
  return sb_take(&b);
}

/* ------------------------------------------------------------------------- */
/* string density (the process list's `scan` sort)                            */
/* ------------------------------------------------------------------------- */

#define SCAN_CHUNK 4096
#define SCAN_MAPPINGS 4

struct scan_region {
  uint64_t start, end;
  int rank; /* 0 heap, 1 anonymous, 2 stack */
};

static size_t alnum_run_bytes(const unsigned char *p, size_t n) {
  size_t counted = 0, run = 0, run_alnum = 0;
  for (size_t i = 0; i <= n; i++) {
    int printable = i < n && p[i] >= 0x20 && p[i] < 0x7f;
    if (printable) {
      run++;
      if (isalnum(p[i])) run_alnum++;
      continue;
    }
    if (run >= 4) counted += run_alnum;
    run = run_alnum = 0;
  }
  return counted;
}

int procinfo_string_density(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -errno;
  struct scan_region regs[64];
  size_t nregs = 0;
  char line[512];
  while (fgets(line, sizeof line, f) && nregs < 64) {
    unsigned long long s, e;
    char perms[8];
    int pos = 0;
    if (sscanf(line, "%llx-%llx %7s %*x %*s %*u%n", &s, &e, perms, &pos) < 3 || pos == 0) continue;
    if (perms[0] != 'r' || strchr(perms, 'x') || perms[3] != 'p') continue;
    const char *name = line + pos;
    while (*name == ' ') name++;
    int rank;
    if (strncmp(name, "[heap]", 6) == 0)
      rank = 0;
    else if (*name == '\n' || *name == '\0' || strncmp(name, "[anon", 5) == 0)
      rank = perms[1] == 'w' ? 1 : 3;
    else if (strncmp(name, "[stack]", 7) == 0)
      rank = 2;
    else
      continue; /* file-backed data (shared constants) and the [vvar] page */
    if (rank == 3) continue;
    regs[nregs++] = (struct scan_region){s, e, rank};
  }
  fclose(f);
  /* heap first, then anonymous, then the stack; stable within a rank */
  struct scan_region pick[SCAN_MAPPINGS];
  size_t npick = 0;
  for (int rank = 0; rank <= 2 && npick < SCAN_MAPPINGS; rank++)
    for (size_t i = 0; i < nregs && npick < SCAN_MAPPINGS; i++)
      if (regs[i].rank == rank) pick[npick++] = regs[i];
  if (!npick) return -ENODATA;
  unsigned char buf[SCAN_CHUNK]; /* on the stack: callable from any thread */
  size_t total = 0, counted = 0;
  int last_err = 0;
  for (size_t i = 0; i < npick && total < PROCINFO_SCAN_BYTES; i++) {
    /* a chunk from the middle of the mapping: past allocator headers and
     * the stack's environment block */
    uint64_t len = pick[i].end - pick[i].start;
    uint64_t at = pick[i].start + (len > SCAN_CHUNK ? ((len / 2) & ~(uint64_t)0xfff) : 0);
    size_t want = len < SCAN_CHUNK ? (size_t)len : SCAN_CHUNK;
    if (at + want > pick[i].end) at = pick[i].end - want;
    struct iovec local = {buf, want}, remote = {(void *)(uintptr_t)at, want};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
      last_err = n < 0 ? errno : EIO;
      if (last_err == EPERM || last_err == ESRCH) break;
      continue;
    }
    total += (size_t)n;
    counted += alnum_run_bytes(buf, (size_t)n);
  }
  if (!total) return -(last_err ? last_err : EIO);
  return (int)(counted * 1000 / total);
}
