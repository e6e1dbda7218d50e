/* proc_stat.c: see proc_stat.h. */
#include "plugins/entrypatch/proc_stat.h"

#include <stdio.h>
#include <string.h>

int ep_proc_stat(pid_t pid, char *state, char *comm, size_t cap) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  /* "pid (comm) S ...": the name may hold ')' itself, the last one ends it */
  const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
  if (!open || !close || close < open || close[1] != ' ') return -1;
  *state = close[2];
  if (cap) snprintf(comm, cap, "%.*s", (int)(close - open - 1), open + 1);
  return 0;
}

int ep_proc_gone(pid_t pid) {
  char state, comm[32];
  return ep_proc_stat(pid, &state, comm, sizeof comm) != 0 || state == 'Z' || state == 'X';
}
