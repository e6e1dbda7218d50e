/* Why an attach was refused, in words that name the real gate: the target's
 * and our uids, CAP_SYS_PTRACE, Yama's ptrace_scope, dumpability, an
 * existing tracer. Read from /proc only, after the refusal, so the message
 * says what asmspy measured rather than guessing. */
#define _GNU_SOURCE
#include "host/host.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value after `key` in /proc/<pid>/status, or -1. */
static long status_field(pid_t pid, const char *key, int column) {
  char path[64], line[256];
  snprintf(path, sizeof path, pid ? "/proc/%d/status" : "/proc/self/status", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  long v = -1;
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) != 0) continue;
    char *p = line + klen;
    for (int c = 0; c <= column && p; c++) {
      char *end;
      v = strtol(p, &end, 10);
      p = end;
    }
    break;
  }
  fclose(f);
  return v;
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

void attach_explain(pid_t pid, char *buf, size_t cap) {
  long target_uid = status_field(pid, "Uid:", 1); /* effective uid */
  long tracer = status_field(pid, "TracerPid:", 0);
  uid_t me = geteuid();
  int yama = -1;
  FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
  if (f) {
    if (fscanf(f, "%d", &yama) != 1) yama = -1;
    fclose(f);
  }
  static const char *const yama_rule[] = {
      "0: same uid may attach", "1: only a descendant or a PR_SET_PTRACER opt-in",
      "2: CAP_SYS_PTRACE only", "3: no attach at all"};
  char yama_text[96];
  if (yama >= 0 && yama <= 3)
    snprintf(yama_text, sizeof yama_text, "Yama ptrace_scope=%s", yama_rule[yama]);
  else
    snprintf(yama_text, sizeof yama_text, "no Yama");
  if (tracer > 0)
    snprintf(buf, cap, "pid %d is already traced by pid %ld (one ptrace jack per task)", (int)pid,
             tracer);
  else
    snprintf(buf, cap, "EPERM: target uid %ld, asmspy uid %u %s CAP_SYS_PTRACE; %s", target_uid,
             (unsigned)me, have_cap_sys_ptrace() ? "with" : "without", yama_text);
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
