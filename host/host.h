/* Internal interfaces between the host's modules (not installed).
 * Each module owns one responsibility; this header is the map. The part the
 * applications (cli/, tui/, tools/) may use is asmspy-internal/app_api.h,
 * included here: a section below says when some of its module's calls are
 * declared there. */
#ifndef ASMSPY_HOST_HOST_H
#define ASMSPY_HOST_HOST_H

#include <asmspy/asmspy.h>
#include <asmspy/plugin.h>
#include "asmspy-internal/app_api.h"
#include <stdarg.h>
#include <stdio.h>

/* ---- probe_isolate.c: run a plugin's probe in a forked child ---------- */
/* Fills *res. A crash becomes ASMSPY_E_PROBE_CRASH, exceeding timeout_ms
 * ASMSPY_E_PROBE_HANG; the host survives both. */
void probe_isolated(const struct asmspy_plugin *p, const struct asmspy_host_api *host,
                    unsigned timeout_ms, struct asmspy_probe_result *res);

/* ---- target.c: one traced process -------------------------------------- */
/* (target_open, target_close, target_symtab, target_resolve_data and
 * target_data_symbols: app_api.h) */
pid_t target_pid(const struct asmspy_target *t);
/* Re-read symbols (after exec). */
void target_reload_symbols(struct asmspy_target *t);
ssize_t target_read_mem(struct asmspy_target *t, uint64_t addr, void *buf, size_t len);
ssize_t target_write_mem(struct asmspy_target *t, uint64_t addr, const void *buf, size_t len);
/* 1 when asmspy wrote an int3 at addr in this target (target_write_mem). */
int target_planted_breakpoint(const struct asmspy_target *t, uint64_t addr);
/* How many addresses asmspy planted an int3 at in this target. */
int target_breakpoint_count(const struct asmspy_target *t);
int target_symbolize(struct asmspy_target *t, uint64_t addr, struct asmspy_symbol *out);
int target_symbol_at(struct asmspy_target *t, size_t i, struct asmspy_symbol *out);
const char *target_describe(struct asmspy_target *t, uint64_t addr, char *buf, size_t cap);
/* region.c */
int target_resolve_region(struct asmspy_target *t, const char *spec, uint64_t *start, uint64_t *len,
                          char *err, size_t errcap);

/* ---- disasm.c: disasm_one (app_api.h) ----------------------------------- */

/* ---- insn_class.c: Capstone groups -> ASMSPY_INSN_* bits + length ------- */
uint32_t insn_class_one(uint64_t ip, const uint8_t *bytes, size_t len); /* native arch */
uint32_t insn_class_for(int arm64, uint64_t ip, const uint8_t *bytes, size_t len);
/* ---- operands.c: Capstone with detail: registers/memory an insn touches - */
int operands_one(uint64_t ip, const uint8_t *bytes, size_t len, const struct asmspy_regs *regs,
                 struct asmspy_operands *out);

/* ---- output.c: the one writer ------------------------------------------- */
/* (out_opts, out_open, out_end_reason, out_set_end_reason, out_emit, out_note,
 * out_close, out_wants_json/text: app_api.h) */
/* The target died of sig while traced: the footer's reason becomes
 * "target_killed" (when the session ended on the target's end). */
void out_set_target_death(struct asmspy_out *out, int sig);
int out_target_signal(const struct asmspy_out *out);
void out_add_lost(struct asmspy_out *out, uint64_t n);
/* out_emit for a typed record whose JSON body (json_fields, NULL when
 * out_needs_json_body() said no) was rendered from rec: the typed sink, when
 * there is one, receives rec itself. */
int out_emit_typed(struct asmspy_out *out, const char *json_fields,
                   const struct asmspy_record *rec);
/* Does anyone read a record's JSON body (a JSON channel, an untyped sink)? */
int out_needs_json_body(const struct asmspy_out *out);
/* record_writer.c: host->emit_record. */
int out_emit_record(struct asmspy_out *out, const struct asmspy_record *rec);
void out_vnote(struct asmspy_out *out, int level, const char *fmt, va_list ap);
/* Around a step whose failure ends the run (a view's configure): its last
 * warning is held off stderr until out_release_warning says whether it was
 * the error that ended the run ("asmspy: <text>", also in --json) or a note
 * ("# <text>"). The JSON channels get it as a note at once either way. */
void out_hold_warning(struct asmspy_out *out);
void out_release_warning(struct asmspy_out *out, int failed);
uint64_t out_event_count(const struct asmspy_out *out);
/* The fields the host writes itself (envelope, header, end, note,
 * codeimage): record "*" = every event line; nested members as "host.arch".
 * The metrics catalogue (docs/metrics.md) is checked against it. */
struct out_field {
  const char *record;
  const char *field;
};
const struct out_field *out_field_table(size_t *n);

/* ---- ptrace_seam.c --------------------------------------------------------- */
extern const struct asmspy_seam_api seam_api;
/* Spawn argv stopped at its exec (for --launch); returns the pid or -errno. */
pid_t seam_spawn_stopped(char *const *argv);
/* errno of a fresh PTRACE_SEIZE of pid from a short-lived child (0 = it
 * would succeed; -1 = the probe could not run): attach_diag.c's measure. */
int seam_seize_errno(pid_t pid);
/* ptrace_seam.c, syscall injection: one system call run inside a stopped
 * tracee (the seam's SIGTRAP-handler guard). x86-64 only; elsewhere -ENOSYS. */
struct seam_ksigaction { /* the kernel's struct sigaction (rt_sigaction) */
  uint64_t handler, flags, restorer, mask;
};
uint64_t seam_find_syscall_insn(struct asmspy_target *tg, pid_t pid);
int seam_inject_syscall(pid_t tid, uint64_t syscall_insn, long nr, const uint64_t args[6],
                        int64_t *ret, int *owed_sig);
int seam_read_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                        struct seam_ksigaction *out, int *owed_sig);
int seam_write_sigaction(struct asmspy_target *tg, pid_t tid, uint64_t syscall_insn, int sig,
                         const struct seam_ksigaction *act, int *owed_sig);
/* Run a seam_spawn_stopped command through its exec and detach (samplers). */
int seam_release_after_exec(const struct asmspy_session *s);
/* PTRACE_GETREGSET nt of tid, stopped under this tracer thread (any
 * session's): 0 with *len = bytes filled, or -errno. (host->read_fpregs) */
int seam_read_regset(pid_t tid, uint32_t nt, void *buf, size_t *len);

/* ---- fpregs.c -------------------------------------------------------------- */
int fpregs_read(struct asmspy_target *t, int32_t tid, struct asmspy_fpregs *out);
size_t fpregs_vreg_value(const struct asmspy_fpregs *fp, uint16_t vreg, uint8_t *buf, size_t cap);
const char *fpregs_vreg_name(uint16_t vreg, char *buf, size_t cap);
/* The XSAVE image's parts into *out (the whole struct): exposed for the
 * offline decode test. Returns the ASMSPY_FP_* parts filled. */
uint32_t fpregs_decode_xsave(const uint8_t *img, size_t len, struct asmspy_fpregs *out);

/* ---- syscall_names.c / fdinfo.c ------------------------------------------ */
const char *host_syscall_name(int64_t nr);
const char *target_describe_fd(struct asmspy_target *t, int fd, char *buf, size_t cap);

/* ---- attach_diag.c ----------------------------------------------------------- */
void attach_explain(pid_t pid, char *buf, size_t cap);
int elf_file_is_32bit(const char *path);

/* ---- engine_choose.c: the view and backend one run uses ------------------ */
struct engine_choice {
  const struct asmspy_plugin_info *view;
  const struct asmspy_plugin_info *backend; /* probed; may be unusable (skip_reason) */
  uint64_t caps_needed;                     /* caps_required | what the options ask for */
  uint64_t caps_wanted;                     /* used when the backend has them */
  const char *sampler_arg;                  /* --sampler=<rung>:<arg>: points into argv */
  int sampler_walked;      /* no --sampler: the backend is the ladder's first usable rung */
  const char *skip_reason; /* non-NULL: the backend cannot serve the mode here */
  char skip_why[160];
  char error[256]; /* when engine_choose fails: the one-line message */
  /* 1.11: the backend serves the view's caps_alternative, chosen by the
   * engine (not --backend): it is asked whether it suits the target, and
   * engine_choose_fallback() picks the instruction backend instead */
  int alternative;
  uint64_t caps_instr, caps_instr_wanted; /* what the instruction backend needs / wants */
};
/* Fill c for `asmspy --<mode> [--backend=<backend>] <argv>`. 0, or a
 * negative status with c->error set (usage: unknown mode/backend/rung). */
int engine_choose(struct asmspy_engine *e, const char *mode, const char *backend, int argc,
                  char *const *argv, struct engine_choice *c);
/* The same, knowing the session's flags and --tid: a call backend (a view's
 * caps_alternative) is not chosen for --follow or --tid. */
int engine_choose_for(struct asmspy_engine *e, const char *mode, const char *backend, int argc,
                      char *const *argv, uint32_t sess_flags, int32_t tid, struct engine_choice *c);
/* The backend chosen as a view's caps_alternative does not suit the target:
 * choose the backend for the view's instruction capabilities instead, as if
 * no alternative existed. 0, or a negative status with c->error set. */
int engine_choose_fallback(struct asmspy_engine *e, struct engine_choice *c);
/* The capabilities a view's options ask for (view_ops.option_caps). */
uint64_t engine_option_caps(const struct asmspy_view_ops *view, int argc, char *const *argv);
/* row, probed now if the engine probes lazily. */
const struct asmspy_plugin_info *engine_probed(struct asmspy_engine *e,
                                               const struct asmspy_plugin_info *row);

/* ---- engine_launch.c: --launch of a mode that names a symbol ------------- */
/* The host table a launched session's view and backend use: a resolve on
 * the launched target first runs the command through its exec and ld.so to
 * its entry point and holds it there (so the symbol is the program's); the
 * backend's seam.attach of that pid adopts the held seam. s not launched:
 * base itself. Call once s->target and s->out are set. */
const struct asmspy_host_api *launch_host_api(const struct asmspy_host_api *base,
                                              struct asmspy_session *s);
/* pid is held at its entry point (no backend has taken it over yet). */
int launch_held(pid_t pid);
/* Detach a hold nobody took over (kill_held: SIGKILL the command first,
 * so it never runs) and forget the launch. */
void launch_hold_end(int kill_held);
/* --launch: like strace, the command runs to completion after the capture;
 * wait for it (a stop flag raised meanwhile sends it SIGTERM) and note an
 * end that is not a plain exit 0. Its wait status is kept for the caller. */
void launch_wait(pid_t launched, const char *cmd, const volatile int *stop);
/* launch_take_status (app_api.h): the wait status launch_wait collected. */
/* The launched pid (0: none), and a wait status the seam collected for a
 * pid it reaped (kept when it is the launched one). */
void launch_track(pid_t pid);
void launch_reaped(pid_t pid, int status);

/* ---- sampler_ladder.c: host->run_sampler -------------------------------- */
/* (sampler_ladder_set_engine, sampler_default, host_run_sampler: app_api.h) */
/* The --launch'ed pid the ladder let go (it is a running pid from then on). */
int sampler_ladder_released(pid_t pid);
/* The ladder: every loaded backend declaring a sampler_rung, by ascending
 * sampler_order, then the rungs of order 0 (only when named: the walk skips
 * them). Returns how many, at most cap. */
size_t sampler_ladder(const struct asmspy_engine *e, const struct asmspy_plugin_info **out,
                      size_t cap);
/* The backend serving --sampler=<spec>: "<rung>" or "<rung>:<arg>" (*arg
 * then points at <arg> inside spec, else NULL). NULL: no such rung. */
const struct asmspy_plugin_info *sampler_backend_for(const struct asmspy_engine *e,
                                                     const char *spec, const char **arg);
/* The rung --sample runs when none is named: the first of the walk whose
 * probe says usable here (the same walk --dataflow --auto takes), else the
 * ladder's first (unusable: its reason is the SKIP). Probes as it walks. */
const struct asmspy_plugin_info *sampler_first_usable(struct asmspy_engine *e);
/* The rungs the walk passed over before `used` (refused by their probes),
 * each as an INFO note "sampler <rung> refused: <reason>" (the notes
 * host->run_sampler writes), so the user sees why a weaker rung runs. */
void sampler_note_refused(struct asmspy_engine *e, struct asmspy_out *out,
                          const struct asmspy_plugin_info *used);
/* "ibs|lbr|..." for usage messages, into buf. */
const char *sampler_rung_names(const struct asmspy_engine *e, char *buf, size_t cap);

/* ---- json.c ----------------------------------------------------------------- */
size_t json_escape(char *dst, size_t cap, const char *src, size_t len);

#endif
