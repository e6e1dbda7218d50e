/* cli_records.c — the schemas of the records the asmspy command itself
 * writes (--info, --list, --syms, --backends): no view owns them, so their
 * description lives next to the commands. docs/metrics.md is generated from
 * these, the host's and the views' tables (tools/metrics_md.c). */
#include "cli/cli_records.h"

#include "common/record_fields.h"

static const struct asmspy_field procinfo_mode_fields[] = {
    RF_STR("mode", 0, "the mode"),
    RF_ENUM("status", "ok|maybe|no", 0, "could it run on this process"),
    RF_STR("backend", NUL | OPT, "the backend that would serve it"),
    RF_STR("reason", NUL | OPT, "the closed gates"),
    RF_END,
};
static const struct asmspy_field procinfo_elf_fields[] = {
    RF_INT("class", 0, OPT, "32 or 64"),
    RF_STR("machine", OPT, "the ELF machine"),
    RF_BOOL("pie", OPT, "position independent"),
    RF_BOOL("static", OPT, "statically linked"),
    RF_BOOL("stripped", OPT, "no symbol table"),
    RF_STR("interp", NUL | OPT, "the program interpreter"),
    RF_BOOL("go_buildinfo", OPT, "carries Go build info"),
    RF_END,
};
static const struct asmspy_field procinfo_thread_fields[] = {
    RF_INT("tid", 0, OPT, "the thread"),
    RF_STR("comm", OPT, "its name"),
    RF_STR("state", OPT, "its state letter"),
    RF_STR("wchan", NUL | OPT, "its wait channel"),
    RF_ENUM("syscall_state", "in_syscall|user|running|unreadable", OPT, "where it is"),
    RF_INT("syscall_nr", ANY_INT, NUL | OPT, "the syscall it sits in"),
    RF_STR("syscall", NUL | OPT, "its name"),
    RF_END,
};
static const struct asmspy_field procinfo_fields[] = {
    RF_INT("pid", 0, OPT, "the process"),
    RF_INT("ppid", 0, OPT, "its parent"),
    RF_STR("comm", OPT, "its name"),
    RF_STR("state", OPT, "state letter"),
    RF_STR("state_name", OPT, "state name"),
    RF_STR("runtime", OPT, "runtime badge (native, jvm, ...)"),
    RF_STR("runtime_evidence", OPT, "what decided the runtime"),
    RF_ARRAY("argv", "string", NULL, OPT, "the command line"),
    RF_STR("exe", NUL | OPT, "the executable"),
    RF_STR("exe_error", OPT, "why exe is null"),
    RF_STR("cwd", NUL | OPT, "the working directory"),
    RF_INT("uid", ANY_INT, OPT, "real uid"),
    RF_INT("euid", ANY_INT, OPT, "effective uid"),
    RF_INT("gid", ANY_INT, OPT, "real gid"),
    RF_STR("user", NUL | OPT, "the uid's name"),
    RF_INT("thread_count", 0, OPT, "threads"),
    RF_INT("rss_kb", ANY_INT, OPT, "resident KiB"),
    RF_INT("fds", ANY_INT, OPT, "open fds"),
    RF_INT("cpu_jiffies", ANY_INT, OPT, "CPU time in ticks"),
    RF_INT("hz", 0, OPT, "ticks per second"),
    RF_STR("attach", OPT, "could asmspy ptrace it (yes / maybe / no)"),
    RF_STR("attach_gate", NUL | OPT, "the first closed gate"),
    RF_STR("attach_reason", NUL | OPT, "why"),
    RF_STR("attach_hint", NUL | OPT, "what to do"),
    RF_ARRAY("attach_explain", "string", NULL, OPT, "every gate"),
    RF_INT("tracer_pid", ANY_INT, OPT, "the current tracer (0: none)"),
    RF_INT("yama_ptrace_scope", ANY_INT, OPT, "Yama's ptrace_scope"),
    RF_BOOL("cap_sys_ptrace", OPT, "asmspy holds CAP_SYS_PTRACE"),
    RF_ARRAY("modes", "object", procinfo_mode_fields, OPT, "per mode: can it run here"),
    RF_INT("symbols", ANY_INT, OPT, "symbols known"),
    RF_INT("jit_methods", ANY_INT, OPT, "perf-map methods"),
    RF_INT("modules", ANY_INT, OPT, "mapped modules"),
    RF_INT("exec_anon_regions", ANY_INT, OPT, "anonymous executable mappings"),
    RF_ARRAY("module_paths", "string", NULL, OPT, "the modules' paths"),
    RF_OBJECT("elf", procinfo_elf_fields, NUL | OPT, "the executable's ELF facts"),
    RF_STR("elf_error", OPT, "why elf is null"),
    RF_ARRAY("threads", "object", procinfo_thread_fields, OPT, "per thread"),
    RF_BOOL("threads_truncated", OPT, "more than 4096 threads"),
    RF_END,
};
static const struct asmspy_field process_fields[] = {
    RF_INT("pid", 0, 0, "the process"),
    RF_INT("ppid", 0, OPT, "its parent"),
    RF_INT("uid", ANY_INT, OPT, "its uid"),
    RF_STR("user", OPT, "the uid's name"),
    RF_STR("comm", OPT, "its name"),
    RF_INT("threads", ANY_INT, OPT, "threads"),
    RF_STR("state", OPT, "state letter"),
    RF_BOOL("kernel_thread", OPT, "a kernel thread"),
    RF_STR("attach", OPT, "the attach verdict"),
    RF_BOOL("traceable", OPT, "asmspy could attach"),
    RF_STR("reason", NUL | OPT, "why not"),
    RF_INT("cpu_ticks", ANY_INT, OPT, "--list active: CPU gained over the window"),
    RF_INT("window_ms", ANY_INT, OPT, "--list active: the window"),
    RF_INT("hz", ANY_INT, OPT, "--list active: ticks per second"),
    RF_INT("str_permille", ANY_INT, NUL | OPT,
           "--list scan: alphanumeric density of sampled memory"),
    RF_STR("str_error", OPT, "--list scan: why it could not be read"),
    RF_END,
};
static const struct asmspy_field symbol_fields[] = {
    RF_HEX("addr", 0, "a function symbol's address"),
    RF_INT("size", 0, 0, "its size"),
    RF_STR("name", 0, "its name"),
    RF_STR("module", 0, "its module"),
    RF_ENUM("kind", "internal|external|jit", 0, "where it lives"),
    RF_END,
};
static const struct asmspy_field plugin_fields[] = {
    RF_STR("name", 0, "the plugin"),
    RF_STR("kind", 0, "backend or view"),
    RF_STR("abi", 0, "the ABI it was built against"),
    RF_STR("status", 0, "usable / unavailable / error"),
    RF_INT("code", ANY_INT, 0, "its status code"),
    RF_INT("errno", ANY_INT, 0, "the errno behind it"),
    RF_STR("reason", 0, "the probe's measured reason"),
    RF_STR("description", 0, "what it does"),
    RF_INT("caps", 0, 0, "its capability bits"),
    RF_STR("path", 0, "its .so"),
    RF_STR("version", 0, "its version"),
    RF_STR("mode", OPT, "a view: the mode it serves (--<mode>)"),
    RF_STR("sampler_rung", OPT, "a sampler backend: the --sampler=<rung> it serves"),
    RF_END,
};

static const struct asmspy_record_schema cli_records[] = {
    {"procinfo", "--info: the process snapshot (never attaches)", procinfo_fields, NULL},
    {"process", "--list: one row per process", process_fields, NULL},
    {"symbol", "--syms: one function symbol", symbol_fields, NULL},
    {"plugin", "--backends: one plugin and its probe's verdict", plugin_fields, NULL},
    {.type = NULL},
};

static const char *const cli_record_modes[] = {"info", "list", "syms", "backends", NULL};

const struct asmspy_record_schema *cli_record_schemas(const char *const **modes) {
  if (modes) *modes = cli_record_modes;
  return cli_records;
}
