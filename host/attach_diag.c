/* Why a pid cannot be traced, in words that name the real reason: what the
 * target is (a kernel thread, a zombie, exiting, already traced), then the
 * gates the kernel applies (the target's and our ids, CAP_SYS_PTRACE,
 * dumpability, Yama's ptrace_scope), each stated open or closed as measured.
 * When none of those is closed and the kernel still refuses, the message
 * says exactly that, with two further measurements (a fresh PTRACE_SEIZE's
 * errno, and whether the kernel's access check lets us read the target's
 * memory at all), instead of blaming a gate that is open. */
#define _GNU_SOURCE
#include "host/attach_diag.h"
#include "host/host.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define PF_EXITING_FLAG 0x00000004ul /* include/linux/sched.h */
#define PF_KTHREAD_FLAG 0x00200000ul

/* What /proc says about the target. */
struct facts {
  pid_t pid, ppid;
  char state; /* R S D T t Z X I ... */
  unsigned long flags;
  long uid[3], gid[3]; /* real, effective, saved */
  long tracer;
  int kthread;
  int live_threads; /* tasks under /proc/<pid>/task not in state Z/X */
  int dumpable;     /* 1, 0, -1 unknown (only visible for a non-root target) */
};

static int read_small(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  ssize_t n = read(fd, buf, cap - 1);
  int e = errno;
  close(fd);
  if (n < 0) return -e;
  buf[n] = '\0';
  return (int)n;
}

/* State letter and flags from a /proc/.../stat file (after the comm, which
 * may itself hold ')' or spaces). */
static int parse_stat(const char *path, char *state, pid_t *ppid, unsigned long *flags) {
  char buf[1024];
  int n = read_small(path, buf, sizeof buf);
  if (n < 0) return -n;
  char *p = strrchr(buf, ')');
  if (!p) return EINVAL;
  int pp = 0;
  unsigned long fl = 0;
  char st = 0;
  /* state ppid pgrp session tty_nr tpgid flags */
  if (sscanf(p + 1, " %c %d %*d %*d %*d %*d %lu", &st, &pp, &fl) != 3) return EINVAL;
  if (state) *state = st;
  if (ppid) *ppid = pp;
  if (flags) *flags = fl;
  return 0;
}

/* 0, or ESRCH when the pid is gone. */
static int read_facts(pid_t pid, struct facts *f) {
  memset(f, 0, sizeof *f);
  f->pid = pid;
  f->dumpable = -1;
  for (int i = 0; i < 3; i++) f->uid[i] = f->gid[i] = -1;
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int err = parse_stat(path, &f->state, &f->ppid, &f->flags);
  if (err) return err == ENOENT ? ESRCH : err;
  f->kthread = (f->flags & PF_KTHREAD_FLAG) != 0;
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  if (read_small(path, buf, sizeof buf) > 0) {
    for (char *line = buf; line && *line;) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      if (!strncmp(line, "Uid:", 4))
        sscanf(line + 4, "%ld %ld %ld", &f->uid[0], &f->uid[1], &f->uid[2]);
      else if (!strncmp(line, "Gid:", 4))
        sscanf(line + 4, "%ld %ld %ld", &f->gid[0], &f->gid[1], &f->gid[2]);
      else if (!strncmp(line, "TracerPid:", 10))
        f->tracer = strtol(line + 10, NULL, 10);
      else if (!strncmp(line, "Kthread:", 8) && strtol(line + 8, NULL, 10) == 1)
        f->kthread = 1;
      line = nl ? nl + 1 : NULL;
    }
  }
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.') continue;
      char tpath[320], st = 0;
      snprintf(tpath, sizeof tpath, "/proc/%d/task/%s/stat", (int)pid, de->d_name);
      if (parse_stat(tpath, &st, NULL, NULL) == 0 && st != 'Z' && st != 'X') f->live_threads++;
    }
    closedir(d);
  }
  /* A non-dumpable process's /proc/<pid> is owned by root (the kernel's
   * task_dump_owner): for a non-root target that is the tell. */
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d", (int)pid);
  if (f->uid[1] > 0 && !f->kthread && stat(path, &st) == 0) f->dumpable = st.st_uid == 0 ? 0 : 1;
  return 0;
}

static int have_cap_sys_ptrace(void) {
  char line[256];
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return 0;
  unsigned long long eff = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "CapEff:", 7) == 0) eff = strtoull(line + 7, NULL, 16);
  fclose(f);
  return (eff >> 19) & 1; /* CAP_SYS_PTRACE = 19 */
}

static int yama_scope(void) {
  int yama = -1;
  FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
  if (f) {
    if (fscanf(f, "%d", &yama) != 1) yama = -1;
    fclose(f);
  }
  return yama;
}

/* pid descends from this process (Yama ptrace_scope=1 lets an ancestor in). */
static int is_descendant(pid_t pid) {
  pid_t me = getpid();
  for (int hops = 0; pid > 1 && hops < 4096; hops++) {
    char path[64];
    pid_t pp = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (parse_stat(path, NULL, &pp, NULL)) return 0;
    if (pp == me) return 1;
    pid = pp;
  }
  return 0;
}

static const char *errname(int e) {
  const char *n = strerrorname_np(e);
  return n ? n : "an unknown errno";
}

/* Append to buf[cap] at *len. */
static void addf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void addf(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
  if (*len >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* What the target is, when that alone rules tracing out. */
static int state_reason(const struct facts *f, char *buf, size_t cap) {
  int pid = (int)f->pid;
  if (f->kthread) {
    snprintf(buf, cap, "pid %d is a kernel thread: no user space to trace", pid);
    return 1;
  }
  if (f->state == 'Z') {
    if (f->live_threads > 0)
      snprintf(buf, cap,
               "pid %d's main thread has exited (a zombie thread-group leader) while %d of its "
               "threads still run: ptrace cannot seize the exited leader",
               pid, f->live_threads);
    else
      snprintf(
          buf, cap,
          "pid %d is a zombie (exited, not yet reaped by its parent, pid %d): nothing to trace",
          pid, (int)f->ppid);
    return 1;
  }
  if (f->state == 'X' || (f->flags & PF_EXITING_FLAG)) {
    snprintf(buf, cap, "pid %d is exiting (state %c%s): nothing left to trace", pid, f->state,
             f->flags & PF_EXITING_FLAG ? ", PF_EXITING set" : "");
    return 1;
  }
  if (f->tracer > 0) {
    char comm[64] = "", path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", f->tracer);
    if (read_small(path, comm, sizeof comm) > 0) comm[strcspn(comm, "\n")] = '\0';
    snprintf(buf, cap,
             "pid %d is already traced by pid %ld%s%s%s (its TracerPid; one tracer per task): "
             "detach that one first",
             pid, f->tracer, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
    return 1;
  }
  return 0;
}

/* The kernel's ptrace access check (PTRACE_MODE_ATTACH_REALCREDS, the mode
 * of an attach, every LSM included) on its own: a one-byte process_vm_readv
 * of address 0. 0 allowed (EFAULT: the check passed, the address is not
 * mapped), else the errno. */
int attach_access_errno(pid_t pid) {
  char byte;
  struct iovec local = {&byte, 1}, remote = {NULL, 1};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) >= 0) return 0;
  return errno == EFAULT ? 0 : errno;
}

static int cap_prm(pid_t pid, unsigned long long *out) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    if (strncmp(line, "CapPrm:", 7) == 0) *out = strtoull(line + 7, NULL, 16), found = 1;
  fclose(f);
  return found ? 0 : -1;
}

void attach_caps_missing(pid_t pid, char *buf, size_t cap) {
  static const char *const names[] = {"CHOWN",
                                      "DAC_OVERRIDE",
                                      "DAC_READ_SEARCH",
                                      "FOWNER",
                                      "FSETID",
                                      "KILL",
                                      "SETGID",
                                      "SETUID",
                                      "SETPCAP",
                                      "LINUX_IMMUTABLE",
                                      "NET_BIND_SERVICE",
                                      "NET_BROADCAST",
                                      "NET_ADMIN",
                                      "NET_RAW",
                                      "IPC_LOCK",
                                      "IPC_OWNER",
                                      "SYS_MODULE",
                                      "SYS_RAWIO",
                                      "SYS_CHROOT",
                                      "SYS_PTRACE",
                                      "SYS_PACCT",
                                      "SYS_ADMIN",
                                      "SYS_BOOT",
                                      "SYS_NICE",
                                      "SYS_RESOURCE",
                                      "SYS_TIME",
                                      "SYS_TTY_CONFIG",
                                      "MKNOD",
                                      "LEASE",
                                      "AUDIT_WRITE",
                                      "AUDIT_CONTROL",
                                      "SETFCAP",
                                      "MAC_OVERRIDE",
                                      "MAC_ADMIN",
                                      "SYSLOG",
                                      "WAKE_ALARM",
                                      "BLOCK_SUSPEND",
                                      "AUDIT_READ",
                                      "PERFMON",
                                      "BPF",
                                      "CHECKPOINT_RESTORE"};
  unsigned long long theirs = 0, mine = 0;
  buf[0] = '\0';
  if (cap_prm(pid, &theirs) || cap_prm(getpid(), &mine)) return;
  unsigned long long lack = theirs & ~mine;
  if (!lack) return;
  size_t len = 0;
  addf(buf, cap, &len, "pid %d holds capabilities asmspy lacks:", (int)pid);
  for (int i = 0, n = 0; i < 64; i++) {
    if (!(lack >> i & 1)) continue;
    if (n++ == 4) {
      addf(buf, cap, &len, " ...");
      break;
    }
    if (i < (int)(sizeof names / sizeof names[0]))
      addf(buf, cap, &len, " CAP_%s", names[i]);
    else
      addf(buf, cap, &len, " capability %d", i);
  }
  addf(buf, cap, &len,
       " (the kernel lets a tracer in only with a superset, or CAP_SYS_PTRACE in "
       "the target's user namespace)");
}

/* A refusal ptrace itself does not repeat. */
#define NOT_PTRACE                                                                                 \
  "ptrace allows it now, so the refusal was transient or came from the backend's own interface "   \
  "(perf_event_open)"

/* The gates, open or closed. probe: measure the refusal (a fresh
 * PTRACE_SEIZE, the access check). Returns 1 when that seize succeeded
 * (ptrace would let asmspy in now), else 0. */
static int explain(pid_t pid, const struct facts *f, int probe, char *buf, size_t cap) {
  if (state_reason(f, buf, cap)) return 0;
  int cap_ptrace = have_cap_sys_ptrace();
  uid_t ruid = getuid(), euid = geteuid();
  gid_t rgid = getgid();
  int yama = yama_scope();
  /* __ptrace_may_access: our real uid/gid must equal the target's real,
   * effective and saved ids, or we need CAP_SYS_PTRACE */
  int same_ids = 1;
  for (int i = 0; i < 3; i++) same_ids &= f->uid[i] == (long)ruid && f->gid[i] == (long)rgid;
  int uid_closed = !same_ids && !cap_ptrace;
  int dump_closed = f->dumpable == 0 && !cap_ptrace;
  int yama_closed =
      yama == 3 || (yama == 2 && !cap_ptrace) || (yama == 1 && !cap_ptrace && !is_descendant(pid));

  char ids[160], yama_text[128];
  snprintf(ids, sizeof ids, "target uid %ld, asmspy uid %u %s CAP_SYS_PTRACE", f->uid[1],
           (unsigned)euid, cap_ptrace ? "with" : "without");
  static const char *const yama_rule[] = {"0: same uid may attach",
                                          "1: only a descendant or a PR_SET_PTRACER opt-in",
                                          "2: CAP_SYS_PTRACE only", "3: no attach at all"};
  if (yama >= 0 && yama <= 3)
    snprintf(yama_text, sizeof yama_text, "Yama ptrace_scope=%s", yama_rule[yama]);
  else
    snprintf(yama_text, sizeof yama_text, "no Yama");

  /* a refused attach's errno: measured when probing, else the kernel's
   * answer for a closed gate */
  int seize = probe ? seam_seize_errno(pid) : -1;
  const char *err = seize > 0 ? errname(seize) : "EPERM";
  size_t len = 0;
  buf[0] = '\0';
  if (uid_closed || dump_closed || yama_closed) {
    /* the closed gates are the cause; an open one is only said open */
    addf(buf, cap, &len, "permission: %s:", err);
    const char *sep = " ";
    if (uid_closed) {
      addf(buf, cap, &len, "%s%s (real/effective/saved ids differ)", sep, ids);
      sep = "; ";
    }
    if (dump_closed) {
      addf(buf, cap, &len,
           "%spid %d is not dumpable (a set-id exec or PR_SET_DUMPABLE 0), which only "
           "CAP_SYS_PTRACE passes",
           sep, (int)pid);
      sep = "; ";
    }
    if (yama_closed) {
      addf(buf, cap, &len, "%s%s", sep, yama_text);
      if (yama == 1) addf(buf, cap, &len, " (pid %d is not a descendant)", (int)pid);
    }
    if (!uid_closed && !yama_closed)
      addf(buf, cap, &len, " (open: %s; %s)", ids, yama_text);
    else if (!uid_closed || !yama_closed)
      addf(buf, cap, &len, " (open: %s)", uid_closed ? yama_text : ids);
    if (seize == 0)
      addf(buf, cap, &len, "; yet a PTRACE_SEIZE just now succeeded (%s)", NOT_PTRACE);
    return seize == 0;
  }
  /* every gate /proc shows is open: say so, and what still refuses */
  if (!probe) {
    addf(buf, cap, &len,
         "no gate /proc shows is closed (%s; %s; not traced): a refusal would come from one it "
         "does not show (a Linux security module, a user namespace)",
         ids, yama_text);
    return seize == 0;
  }
  if (seize == 0) {
    addf(buf, cap, &len, "refused, yet a PTRACE_SEIZE just now succeeded: %s (%s; %s)", NOT_PTRACE,
         ids, yama_text);
    return seize == 0;
  }
  if (seize == ESRCH) {
    addf(buf, cap, &len, "pid %d exited meanwhile (PTRACE_SEIZE now: ESRCH)", (int)pid);
    return seize == 0;
  }
  addf(buf, cap, &len, "%s although uid, capability and Yama all allow it (%s; %s; not traced)",
       seize > 0 ? err : "refused", ids, yama_text);
  int acc = attach_access_errno(pid);
  char missing[200];
  attach_caps_missing(pid, missing, sizeof missing);
  if (acc && missing[0])
    addf(buf, cap, &len,
         ": the kernel's ptrace access check itself refuses, even a read of its memory "
         "(process_vm_readv: %s): %s",
         errname(acc), missing);
  else if (acc)
    addf(buf, cap, &len,
         ": the kernel's ptrace access check itself refuses, even a read of its memory "
         "(process_vm_readv: %s), so the closed gate is one /proc does not show: a Linux "
         "security module (SELinux, AppArmor, Landlock, a BPF LSM) or a user namespace",
         errname(acc));
  else
    addf(buf, cap, &len,
         ": the kernel's access check lets asmspy read its memory (process_vm_readv), so the "
         "attach itself refused (state %c now)",
         f->state);
  return 0;
}

void attach_explain(pid_t pid, char *buf, size_t cap) {
  struct facts f;
  if (read_facts(pid, &f)) {
    snprintf(buf, cap, "pid %d no longer exists", (int)pid);
    return;
  }
  explain(pid, &f, 0, buf, cap);
}

void attach_explain_refusal(pid_t pid, char *buf, size_t cap) {
  struct facts f;
  if (read_facts(pid, &f)) {
    snprintf(buf, cap, "pid %d no longer exists (it exited)", (int)pid);
    return;
  }
  explain(pid, &f, 1, buf, cap);
}

int attach_precheck(pid_t pid, char *why, size_t cap) {
  struct facts f;
  if (read_facts(pid, &f)) return 0; /* gone: the caller says so */
  if (state_reason(&f, why, cap) && f.tracer <= 0) return 1;
  /* Its memory map is what every mode reads first (symbols, regions); a
   * map asmspy may not read means the kernel's ptrace access check refuses
   * us, and the attach would be refused for the same reason. */
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  if (errno != EACCES && errno != EPERM) return 0;
  char gates[640];
  if (explain(pid, &f, 1, gates, sizeof gates))
    return 0; /* ptrace lets us in: let the attach judge */
  snprintf(why, cap, "pid %d: cannot trace: %s", (int)pid, gates);
  return 1;
}

/* 1 when path is an ELFCLASS32 file (a 32-bit tracee: its syscall numbers
 * and registers differ, so asmspy refuses it at attach). */
int elf_file_is_32bit(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char ident[EI_NIDENT];
  ssize_t n = read(fd, ident, sizeof ident);
  close(fd);
  return n == EI_NIDENT && memcmp(ident, ELFMAG, SELFMAG) == 0 && ident[EI_CLASS] == ELFCLASS32;
}

int thread_has_exited(pid_t pid, pid_t tid) {
  char path[64], st = 0;
  snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
  return parse_stat(path, &st, NULL, NULL) != 0 || st == 'Z' || st == 'X';
}

pid_t tracer_pid_of(pid_t tid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  pid_t tracer = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "TracerPid:", 10) == 0) {
      tracer = (pid_t)atoi(line + 10);
      break;
    }
  fclose(f);
  return tracer;
}
