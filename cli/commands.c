/* The CLI's command table (uftrace's idea: data, not a strcmp chain) and the
 * built-in commands. Any `--<mode>` that is not built in is looked up among
 * the view plugins, so a third-party view becomes a mode with no CLI change. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "asmspy-internal/app_api.h"
#include "common/option_parse.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int cli_stop_flag;

int cli_exit_code_for(int rc) {
  if (rc == 0 || rc == ASMSPY_RUN_SKIPPED) return CLI_EXIT_OK;
  if (rc == -ASMSPY_E_USAGE) return CLI_EXIT_USAGE;
  /* nothing captured: the region was never entered (the wait ran out, or
   * it cannot be entered at all); the lines above say which */
  if (rc == ASMSPY_FACT_NOT_REACHED) return CLI_EXIT_FAIL;
  if (rc > 0 && rc != ASMSPY_FACT_I386) return CLI_EXIT_OK; /* a fact is an answer */
  return CLI_EXIT_FAIL;
}

static const struct asmspy_option backends_options[] = {
    {"json", NULL, "one JSON object per plugin"},
    {NULL, NULL, NULL},
};

static int cmd_backends(int argc, char **argv) {
  struct asmspy_optval ov;
  if (cli_parse_options("backends", backends_options, argc, argv, &ov)) return CLI_EXIT_USAGE;
  if (ov.npos) return cli_usage_error("--backends: unexpected argument '%s'", ov.pos[0]);
  int json = ov.value[0] != NULL;
  struct asmspy_engine *e = asmspy_engine_open(0);
  if (!e) return CLI_EXIT_FAIL;
  asmspy_print_backends(e, stdout, json);
  asmspy_engine_close(e);
  return CLI_EXIT_OK;
}

static const struct asmspy_option syms_options[] = {
    {"json", NULL, "NDJSON symbol events on stdout"},
    {"record", "<f>", "also write the recording to <f>"},
    {NULL, NULL, NULL},
};

/* --syms <pid> [filter] [--json]: resolved function symbols. Reads /proc and
 * the mapped ELF files only; never attaches. */
static int cmd_syms(int argc, char **argv) {
  struct cli_mode_args a;
  if (cli_parse_mode_args("syms", argc, argv, 1, syms_options, NULL, 1, "<pid> [filter]", &a))
    return CLI_EXIT_USAGE;
  const char *filter = NULL;
  for (int i = 0; i < a.view_argc; i++) {
    if (filter) return cli_usage_error("--syms: unexpected argument '%s'", a.view_argv[i]);
    filter = a.view_argv[i];
  }
  int err = 0;
  struct asmspy_target *t = target_open(a.pid, &err);
  if (!t) {
    fprintf(stderr, "asmspy: pid %d: %s\n", (int)a.pid,
            err == ESRCH || err == ENOENT ? "no such process" : strerror(err));
    return CLI_EXIT_FAIL;
  }
  struct asmspy_symtab *st = target_symtab(t);
  char why[768];
  if ((!st || symtab_count(st) == 0) && attach_precheck(a.pid, why, sizeof why)) {
    /* no symbols because there is nothing to read (a kernel thread, a
     * zombie, a map we may not read): say why instead of an empty list */
    fprintf(stderr, "asmspy: %s\n", why);
    target_close(t);
    return CLI_EXIT_FAIL;
  }
  struct out_opts oo = {.mode = "syms", .pid = a.pid, .json = a.json, .record_path = a.record};
  struct asmspy_out *out = out_open(&oo, &err);
  if (!out) {
    target_close(t);
    fprintf(stderr, "asmspy: cannot open recording '%s': %s\n", a.record, strerror(err));
    return CLI_EXIT_FAIL;
  }
  for (size_t i = 0; st && i < symtab_count(st); i++) {
    const struct symtab_entry *s = symtab_at(st, i);
    if (filter && !strstr(s->name, filter)) continue;
    char text[512], name_e[1024], mod_e[512], fields[2048];
    snprintf(text, sizeof text, "0x%016" PRIx64 " %8" PRIu64 "  %-40s [%s]", s->start, s->size,
             s->name, s->module);
    json_escape(name_e, sizeof name_e, s->name, strlen(s->name));
    json_escape(mod_e, sizeof mod_e, s->module, strlen(s->module));
    snprintf(fields, sizeof fields,
             "\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"name\":\"%s\",\"module\":\"%s\","
             "\"kind\":\"%s\"",
             s->start, s->size, name_e, mod_e,
             s->kind == ASMSPY_SYM_INTERNAL ? "internal"
             : s->kind == ASMSPY_SYM_JIT    ? "jit"
                                            : "external");
    out_emit(out, "symbol", fields, text);
  }
  out_close(out, 0);
  target_close(t);
  return CLI_EXIT_OK;
}

struct mode_session {
  const char *mode;
  struct cli_mode_args *args;
  char *const *launch_argv;
  int *launch_status; /* shared with the supervisor: the command's wait status, -1 none */
};

/* One tracing session, run inside the supervised child. */
static int run_mode_session(void *arg) {
  struct mode_session *ms = arg;
  const char *mode = ms->mode;
  struct cli_mode_args a = *ms->args;
  char *const *launch_argv = ms->launch_argv;
  /* --output=<f>: the writer's stream into f (close-on-exec: a --launch
   * command writes to the terminal, as under strace -o) */
  FILE *outf = NULL;
  if (a.output) {
    outf = fopen(a.output, "we");
    if (!outf) {
      fprintf(stderr, "asmspy: cannot open --output '%s': %s\n", a.output, strerror(errno));
      return CLI_EXIT_FAIL;
    }
  }
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_LAZY_PROBE);
  if (!e) {
    if (outf) fclose(outf);
    return CLI_EXIT_FAIL;
  }
  struct asmspy_run_opts o = {
      .abi_version = ASMSPY_ABI_VERSION,
      .struct_size = sizeof(struct asmspy_run_opts),
      .mode = mode,
      .backend = a.backend,
      .pid = a.pid,
      .tid = a.tid,
      .max = a.max,
      .flags = (a.follow ? ASMSPY_SESS_FOLLOW : 0) | (a.json ? ASMSPY_SESS_JSON : 0),
      .argc = a.view_argc,
      .argv = a.view_argv,
      .launch_argv = launch_argv,
      .record_path = a.record,
      .text_out = outf,
      .json_out = outf,
      .stop = &cli_stop_flag,
  };
  int rc = asmspy_run(e, &o);
  asmspy_engine_close(e);
  if (outf) fclose(outf);
  int st = launch_take_status();
  if (launch_argv && ms->launch_status) *ms->launch_status = st;
  return cli_exit_code_for(rc);
}

/* The launched command's end as asmspy's own, strace's rule: its exit code,
 * or, killed by a signal, asmspy ends by the same signal (no core dump of
 * asmspy's own). Only when asmspy itself answered (exit 0): a usage error
 * (2) or a failure (1) of asmspy's keeps its code. */
static int exit_like_launched(int rc, int st) {
  if (rc != CLI_EXIT_OK || st < 0) return rc;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (!WIFSIGNALED(st)) return rc;
  int sig = WTERMSIG(st);
  fflush(NULL);
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  sigprocmask(SIG_UNBLOCK, &one, NULL);
  raise(sig);
  return 128 + sig; /* a signal that does not end a process by default */
}

/* --tid=<t> names a thread of <pid>: one that is not there is refused at
 * once (nothing would ever be seen waiting for it). 0, or 1 with one line
 * said. A pid that is not there is left to the run's own message. */
static int check_tid(pid_t pid, pid_t tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (!d) return 0;
  char list[256] = "";
  size_t n = 0;
  int found = 0, count = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
    if (atoi(de->d_name) == tid) found = 1;
    if (count++ < 8 && n < sizeof list)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? " " : "", de->d_name);
  }
  closedir(d);
  if (found) return 0;
  cli_fail("--tid=%d: no thread %d in process %d (its threads: %s%s)", (int)tid, (int)tid, (int)pid,
           list, count > 8 ? " ..." : "");
  return 1;
}

int cli_run_mode(const char *mode, int argc, char **argv, char *const *launch_argv) {
  /* `asmspy --<mode> ... --help` is `asmspy --help <mode>` */
  for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0) return cli_cmd_help(1, (char *[]){(char *)mode, NULL});
  /* the mode's view names its options: parse them with the shared ones
   * here, before anything runs (the table lives in the plugin: the engine
   * stays open while it is read) */
  struct asmspy_engine *e = asmspy_engine_open(ASMSPY_ENGINE_NO_PROBE);
  if (!e) return CLI_EXIT_FAIL;
  const struct asmspy_plugin_info *v = asmspy_find_view_for_mode(e, mode);
  struct cli_mode_args a;
  int rc =
      v ? cli_parse_mode_args(mode, argc, argv, launch_argv == NULL, cli_shared_options,
                              cli_view_options(v), cli_view_has_table(v), v->desc->view->usage, &a)
      : launch_argv
          ? cli_usage_error("--launch: unknown mode '%s'", mode)
          : cli_usage_error("unknown option '--%s': no command or mode of that name", mode);
  asmspy_engine_close(e);
  if (rc) return CLI_EXIT_USAGE;
  if (a.tid && check_tid(a.pid, a.tid)) return CLI_EXIT_FAIL; /* like no such process */
  /* the launched command's status crosses from the supervised child in a
   * shared page */
  int *shared = MAP_FAILED;
  if (launch_argv)
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct mode_session ms = {mode, &a, launch_argv, shared == MAP_FAILED ? NULL : shared};
  if (ms.launch_status) *ms.launch_status = -1;
  /* a launched command shares the tracer's group: it stays in the
   * terminal's foreground when it may read the terminal */
  if (launch_argv && isatty(STDIN_FILENO))
    rc = cli_supervise(run_mode_session, &ms);
  else
    rc = cli_supervise_own_group(run_mode_session, &ms);
  return ms.launch_status ? exit_like_launched(rc, *ms.launch_status) : rc;
}

/* --launch <mode> [options] -- <cmd> [args...] */
static int cmd_launch(int argc, char **argv) {
  /* options may come before the mode (--launch --follow log -- cmd): the
   * mode is the first word that is neither an option nor a shared
   * option's value; it moves to the front */
  for (int i = 0; i < argc && argv[0][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
    const char *t = argv[i];
    if (t[0] == '-') {
      int sh = t[1] == '-' ? asmspy_option_index(cli_shared_options, t + 2) : -1;
      if (sh >= 0 && cli_shared_options[sh].arg && !strchr(t, '=')) i++;
      continue;
    }
    memmove(argv + 1, argv, (size_t)i * sizeof *argv);
    argv[0] = (char *)t;
  }
  if (argc < 1 || argv[0][0] == '-')
    return cli_usage_error("--launch needs a <mode>: --launch <mode> [options] -- <cmd> [args...]");
  const char *mode = argv[0];
  int dashdash = -1;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      dashdash = i;
      break;
    }
  if (cli_find_command(mode))
    return cli_usage_error("--launch: '%s' is a command, not a tracing mode (it reads a running "
                           "pid: start the command, then asmspy --%s <pid>)",
                           mode, mode);
  if (dashdash < 0 || dashdash == argc - 1)
    return cli_usage_error("--launch %s: give the command after '--'", mode);
  argv[argc] = NULL; /* main's argv is NULL-terminated; keep it so for execvp */
  return cli_run_mode(mode, dashdash - 1, argv + 1, argv + dashdash + 1);
}

static int cmd_version(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("asmspy %s (plugin ABI %u.%u)\n", ASMSPY_VERSION_STRING, ASMSPY_ABI_MAJOR,
         ASMSPY_ABI_MINOR);
  return CLI_EXIT_OK;
}

const struct cli_command cli_commands[] = {
    {"backends", cmd_backends, "", backends_options,
     "every backend and view plugin: kind, ABI, status, measured reason", 0, 0},
    {"syms", cmd_syms, "<pid> [filter]", syms_options,
     "resolved function symbols (addr size name module)", 0, 0},
    {"info", cli_cmd_info, "<pid>", cli_info_options,
     "process snapshot: identity, runtime, threads, attach verdict, usable modes (never attaches)",
     0, 0},
    {"list", cli_cmd_list, "[active|scan]", cli_list_options,
     "list processes (! = cannot trace); active = recent CPU, scan = string-rich memory first", 0,
     0},
    {"launch", cmd_launch, "<mode> [options] -- <cmd> [args...]", NULL,
     "spawn <cmd> already traced from its first instruction (trace/dataflow/watch resolve "
     "their symbol in <cmd>, once ld.so has mapped its libraries)",
     0, 0},
    {"serve", cli_cmd_serve, "[=<socket>]", NULL,
     "capture host: NDJSON commands in, recordings out (stdin/stdout, or a unix socket)", 1, 0},
    {"replay", cli_cmd_replay, "<f.asmtrace|->", cli_replay_options,
     "render a recording (or a --serve transcript's session) back to the live text", 0, 0},
    {"export", cli_cmd_export, "=<perfetto|folded|dot> <f.asmtrace|->", cli_export_options,
     "convert a recording's calls (call tree, instruction stream or call graph) to Perfetto "
     "trace-event JSON, folded stacks or a Graphviz digraph",
     1, 0},
    {"help", cli_cmd_help, "[<mode|command>]", NULL, "this text, or one mode's options", 0, 0},
    {"version", cmd_version, "", NULL, "version and plugin ABI", 0, 0},
    {"man", cli_cmd_man, "", NULL, "the asmspy(1) manual page in roff", 0, 1},
    {"complete", cli_cmd_complete, "<cword> <word>...", NULL,
     "shell completion candidates for a command line", 0, 1},
    {"completion", cli_cmd_completion, "bash|zsh", NULL, "the shell completion script", 0, 1},
    {NULL, NULL, NULL, NULL, NULL, 0, 0},
};

const struct cli_command *cli_find_command(const char *name) {
  for (const struct cli_command *c = cli_commands; c->name; c++)
    if (strcmp(c->name, name) == 0) return c;
  return NULL;
}
