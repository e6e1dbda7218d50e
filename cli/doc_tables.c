/* The tables behind `asmspy --help env` and the man page's ENVIRONMENT,
 * DEFAULTS, EXAMPLES and TUI KEYS sections (see doc_tables.h). README.md's
 * environment table is checked against cli_env_vars by tests/cli/test_docs.sh,
 * and the default counts against the view plugins' *_DEFAULT_N constants. */
#include "cli/doc_tables.h"

const struct cli_env_var cli_env_vars[] = {
    {"ASMSPY_PLUGIN_PATH", "<dirs>",
     "extra plugin directories (':'-separated), searched before the build tree and the "
     "installed plugins"},
    {"ASMSPY_PLUGIN_PATH_ONLY", "1",
     "search only ASMSPY_PLUGIN_PATH: exactly the plugins named there, or none"},
    {"ASMSPY_PROBE_TIMEOUT_MS", "<ms>", "time limit of one isolated plugin probe (default 10000)"},
    {"ASMSPY_ENTRY_WAIT_MS", "<ms>",
     "how long --trace/--dataflow wait for the region to be entered (default 10000)"},
    {"ASMSPY_NO_PIN", "1", "never move the tracer thread to the traced thread's CPU"},
    {"ASMSPY_PIN", "1|idle",
     "keep the tracer on the traced thread's CPU all session (default: decided by measurement); "
     "idle: pinned at SCHED_IDLE so the target is woken beside it (needs CAP_SYS_NICE)"},
    {"ASMSPY_DEBUG_PIN", "1", "print each tracer CPU placement decision on stderr"},
    {"ASMSPY_NO_SYSCALL_INFO", "1",
     "pair syscall entry and exit by toggling instead of PTRACE_GET_SYSCALL_INFO"},
    {"ASMSPY_NO_SUPERVISOR", "1",
     "run the session in the asmspy process itself, without the supervising parent "
     "(debugging; a SIGKILLed asmspy then cannot detach)"},
    {"ASMSPY_DEBUG_STOPS", "1", "print every ptrace stop the seam classifies on stderr"},
    {"ASMSPY_PTRACE_SAMPLER_BUDGET", "<percent>",
     "the most of a window the ptrace sampler may keep the target stopped (default 10)"},
    {"ASMSPY_CALLS_LOSSY", "1",
     "entrypatch: a full ring drops (and counts) the record instead of making the thread wait "
     "for the reader (ASMSPY_CALLS_NOWAIT=1 is the same)"},
    {"ASMSPY_CALLS_NOWAIT", "1", "entrypatch: the same as ASMSPY_CALLS_LOSSY=1 (its older name)"},
    {"ASMSPY_NO_FD_CACHE", "1", "--log: read every fd's path afresh instead of caching it"},
    {"ASMSPY_DEBUG_FD_CACHE", "1", "--log: print the fd path cache's hits, misses and clears"},
    {"ASMSPY_ENTRYPATCH_DEBUG", "1",
     "entrypatch: print each code region mapped, each refused function, each undo"},
    {"ASMSPY_CODECACHE_DEBUG", "1|2",
     "codecache (a running process): the session's accounting on stderr (instructions, blocks "
     "translated, requests, signals entered into handlers) and each thread's way out; 2: every "
     "stop and request too"},
    {"ASMSPY_CODECACHE_DISCARD", "1",
     "codecache (a running process): drop the block records instead of decoding them (the "
     "capture's own cost, for bench/run_codecache_bench.sh: the views see no instruction)"},
    {"ASMSPY_SERVE_CLIENT_BUFFER", "<bytes>",
     "--serve: unread output queued per client before events are dropped and counted "
     "(default 4194304)"},
    {"ASMSPY_SCOPE_EMIT", "0", "scopes: do not print the traced listing on stdout"},
    {"ASMSPY_SCOPE_MAX_INSNS", "<n>",
     "scopes: instructions recorded before the scope is truncated (default 1048576)"},
    {"ASMSPY_SCOPE_FILE", "1|<dir>",
     "scopes: also write each listing to a file (1: a private directory; default: no file)"},
    {"ASMSPY_SCOPE_DEBUG", "1",
     "scopes: the capture tier's own accounting on stderr (the stepping tier's traps per scope)"},
    {"ASMSPY_SCOPE_BACKEND", "<name>",
     "scopes: arm only this backend (e.g. singlestep; default: the best usable tier, codecache "
     "before singlestep)"},
    {"ASMSPY_LIB", "<path>",
     "scope bindings: the libasmspy.so to load (default: the library next to the binding's "
     "install, then the linker's search)"},
    {0, 0, 0},
};

const struct cli_mode_default cli_mode_defaults[] = {
    {"log", "20 syscalls"},
    {"stream", "20 instructions"},
    {"trace", "3 invocations"},
    {"dataflow", "one invocation (with --continuous: until stopped)"},
    {"calls", "200 calls"},
    {"graph", "200 calls"},
    {"tree", "40 printed calls"},
    {"procs", "200 counted syscalls or calls"},
    {"watch", "10 hits"},
    {"sample", "a 300 ms window"},
    {0, 0},
};

const struct cli_example cli_examples[] = {
    {"asmspy --backends", "what this machine can run, and why not"},
    {"asmspy --info 1234",
     "a snapshot of pid 1234 and the modes that would work on it (no attach)"},
    {"asmspy --log 1234 20", "20 system calls, decoded like strace"},
    {"asmspy --stream 1234 50", "50 executed instructions"},
    {"asmspy --trace 1234 work 1",
     "one invocation of work(): its assembly with counts and callees"},
    {"asmspy --dataflow 1234 work --blame", "every value one invocation of work() read and wrote"},
    {"asmspy --calls 1234 100", "100 calls with durations, at native speed"},
    {"asmspy --graph 1234 500 --dot | dot -Tsvg > g.svg", "the call graph as an SVG"},
    {"asmspy --sample 1234 500", "where pid 1234 spends its time, without stopping it"},
    {"asmspy --watch 1234 counter 5", "the next 5 writes to the variable counter"},
    {"asmspy --launch log -1 -- ls /", "every system call of a command, from its first"},
    {"asmspy --tree 1234 -1 --record=t.asmtrace", "record a call tree until Ctrl-C"},
    {"asmspy --export=perfetto t.asmtrace --output=t.json", "open the calls in ui.perfetto.dev"},
    {0, 0},
};

const struct cli_tui_key cli_tui_keys[] = {
    {"type, Backspace", "process and symbol pickers: filter the list (q too; ESC clears it)"},
    {"Enter", "select; in data flow, walk to the step that defined the selected read"},
    {"Tab", "picker: change the sort; live view: switch pane or the view's alternative"},
    {"F2", "process picker: tree view"},
    {"F3", "rescan the processes, reload the symbols, re-read the details"},
    {"1-9, a, c, ...", "mode select: start a mode"},
    {"m", "mode select: choose the modules the call modes patch (space, c, Enter)"},
    {"space", "live view: pause or resume"},
    {"Left, Right, h, l", "live view: scroll sideways (h, l in data flow)"},
    {"Up, Down, PgUp, PgDn, Home, End", "move; in a live view, scroll the last 2048 lines"},
    {"b", "live view: detach and go back to the modes"},
    {"q, ESC", "detach and go back to the process list; q there quits once no filter is typed"},
    {"Ctrl-C", "quit (the target is detached and runs on)"},
    {0, 0},
};

void cli_print_env(FILE *f) {
  fprintf(f, "environment variables asmspy reads:\n");
  for (const struct cli_env_var *v = cli_env_vars; v->name; v++)
    fprintf(f, "  %s=%s\n      %s\n", v->name, v->value, v->help);
}
