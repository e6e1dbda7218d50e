/* test_layout: the ABI layout, pinned per minor, on x86-64.
 *
 * The test IS that this file compiles. It guards against SQLite's 3.6.0
 * mistake (sqlite3_vfs changed, iVersion not bumped): a member that moves, a
 * struct that grows while ASMSPY_ABI_MINOR stays the same, or a new member
 * squeezed into the tail padding of an older minor's struct all stop the
 * build here with a message saying what to do.
 *
 * Changing the ABI on purpose (appending members):
 *   1. bump ASMSPY_ABI_MINOR in include/asmspy/plugin.h, put the new members
 *      under a "--- ABI 1.N ends here ---" marker;
 *   2. add a "ABI 1.N" block below: PIN() each new member, and NEW() it
 *      against the previous minor's size (never inside its tail padding);
 *   3. record the sizes of minor N in SIZE_1_N and move the CURRENT block;
 *   4. add the row to the history table in docs/ABI.md.
 * A 1.0 member never moves: its PIN() stays forever.
 *
 * At run time main() checks ASMSPY_HAS on hand-built, deliberately short
 * structs (what a plugin built against an older header hands over). */
#include <asmspy/plugin.h>

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__x86_64__) || !defined(__LP64__)
int main(void) {
  printf("SKIP: the ABI layout is pinned for x86-64 only\n");
  return 77;
}
#else

/* offsetof(struct S, m) == off: the member is where every plugin expects it. */
#define PIN(S, m, off)                                                                             \
  _Static_assert(offsetof(struct S, m) == (off),                                                   \
                 "ABI BREAK: struct " #S "." #m " moved (pinned at offset " #off                   \
                 "); members are never moved, removed or retyped within a major")
/* The writer of minor N put sizeof(struct S) (as of N) in struct_size; a
 * member of a later minor must start at or after it, else ASMSPY_HAS would
 * claim a minor-N writer has it (it lies in that writer's tail padding). */
#define NEW(S, m, prev_size)                                                                       \
  _Static_assert(offsetof(struct S, m) >= (prev_size),                                             \
                 "ABI BREAK: struct " #S "." #m " starts inside the previous minor's "             \
                 "struct_size (" #prev_size "); ASMSPY_HAS would report it present for "           \
                 "older writers. Pad explicitly so it starts at or after " #prev_size)
/* The size a minor-N writer had: the end of its last member, rounded to the
 * struct's alignment (all boundary structs are 8-aligned on x86-64). */
#define ENDS(S, last_m, size)                                                                      \
  _Static_assert(((offsetof(struct S, last_m) + sizeof(((struct S *)0)->last_m) + 7u) &            \
                  ~(size_t)7u) == (size),                                                          \
                 "ABI history: struct " #S " as of this minor ended at " #last_m                   \
                 ", sizeof " #size)
/* The current size: changes only together with ASMSPY_ABI_MINOR. */
#define SIZE(S, size)                                                                              \
  _Static_assert(sizeof(struct S) == (size),                                                       \
                 "ABI CHANGE WITHOUT A VERSION BUMP: sizeof(struct " #S ") is no longer " #size    \
                 " while ASMSPY_ABI_MINOR is unchanged (SQLite 3.6.0). Bump "                      \
                 "ASMSPY_ABI_MINOR, add an 'ABI 1.N' block to tests/abi/test_layout.c "            \
                 "and a row to docs/ABI.md")

/* Every boundary struct begins with the same two header words, forever
 * (a reader of ANY major looks at these two to decide). */
#define HEADER(S)                                                                                  \
  PIN(S, abi_version, 0);                                                                          \
  PIN(S, struct_size, 4)

_Static_assert(ASMSPY_ABI_MAJOR == 1, "major changed: write a new layout test for ABI 2");
_Static_assert(ASMSPY_ABI_MAKE(2, 0) == 0x00020000u && ASMSPY_ABI_MAJOR_OF(0x00010009u) == 1 &&
                   ASMSPY_ABI_MINOR_OF(0x00010009u) == 9,
               "the version encoding (major << 16 | minor) is part of the ABI");

/* ========================== ABI 1.0 ========================== */
HEADER(asmspy_probe_result);
PIN(asmspy_probe_result, status, 8);
PIN(asmspy_probe_result, sys_errno, 12);
PIN(asmspy_probe_result, caps_available, 16);
PIN(asmspy_probe_result, reason, 24);
_Static_assert(sizeof(((struct asmspy_probe_result *)0)->reason) == 256, "reason[256] is ABI");
#define SIZE_1_0_asmspy_probe_result 280
ENDS(asmspy_probe_result, reason, SIZE_1_0_asmspy_probe_result);

HEADER(asmspy_event);
PIN(asmspy_event, type, 8);
PIN(asmspy_event, flags, 10);
PIN(asmspy_event, pid, 12);
PIN(asmspy_event, tid, 16);
PIN(asmspy_event, nthreads, 20);
PIN(asmspy_event, seq, 24);
PIN(asmspy_event, ip, 32);
PIN(asmspy_event, target, 40);
PIN(asmspy_event, u, 48);
PIN(asmspy_event, u.insn.bytes, 48);
PIN(asmspy_event, u.insn.len, 64);
PIN(asmspy_event, u.insn.sp, 72);
PIN(asmspy_event, u.branch.from, 48);
PIN(asmspy_event, u.branch.to, 56);
PIN(asmspy_event, u.sys.nr, 48);
PIN(asmspy_event, u.sys.args, 56);
PIN(asmspy_event, u.sys.ret, 104);
PIN(asmspy_event, u.sys.is_error, 112);
PIN(asmspy_event, u.task.what, 48);
PIN(asmspy_event, u.task.child, 52);
PIN(asmspy_event, u.task.code, 56);
PIN(asmspy_event, u.note.text, 48);
PIN(asmspy_event, u.lost.count, 48);
PIN(asmspy_event, u.signal.signo, 48);
PIN(asmspy_event, u.signal.code, 52);
PIN(asmspy_event, u.pad, 48);
_Static_assert(sizeof(((struct asmspy_event *)0)->u) == 128,
               "the event union is fixed at 128 bytes for ABI 1.x (u.pad)");
#define SIZE_1_0_asmspy_event 176
ENDS(asmspy_event, u, SIZE_1_0_asmspy_event);

HEADER(asmspy_session);
PIN(asmspy_session, mode, 8);
PIN(asmspy_session, pid, 16);
PIN(asmspy_session, tid, 20);
PIN(asmspy_session, flags, 24);
PIN(asmspy_session, max, 32);
PIN(asmspy_session, stop, 40);
PIN(asmspy_session, target, 48);
PIN(asmspy_session, out, 56);
PIN(asmspy_session, sink, 64);
PIN(asmspy_session, sink_ctx, 72);
PIN(asmspy_session, argc, 80);
PIN(asmspy_session, argv, 88);
PIN(asmspy_session, launch_argv, 96);
#define SIZE_1_0_asmspy_session 104
ENDS(asmspy_session, launch_argv, SIZE_1_0_asmspy_session);

HEADER(asmspy_regs);
PIN(asmspy_regs, ip, 8);
PIN(asmspy_regs, sp, 16);
PIN(asmspy_regs, fp, 24);
PIN(asmspy_regs, flags, 32);
PIN(asmspy_regs, retval, 40);
PIN(asmspy_regs, ngpr, 48);
PIN(asmspy_regs, gpr, 56);
_Static_assert(sizeof(((struct asmspy_regs *)0)->gpr) == 32 * 8, "gpr[32] is ABI");
#define SIZE_1_0_asmspy_regs 312
ENDS(asmspy_regs, gpr, SIZE_1_0_asmspy_regs);

HEADER(asmspy_stop);
PIN(asmspy_stop, kind, 8);
PIN(asmspy_stop, tid, 12);
PIN(asmspy_stop, pid, 16);
PIN(asmspy_stop, sig, 20);
PIN(asmspy_stop, new_tid, 24);
PIN(asmspy_stop, exit_code, 28);
PIN(asmspy_stop, is_process, 32);
PIN(asmspy_stop, nthreads, 36);
PIN(asmspy_stop, target, 40);
#define SIZE_1_0_asmspy_stop 48
ENDS(asmspy_stop, target, SIZE_1_0_asmspy_stop);

HEADER(asmspy_seam_api);
PIN(asmspy_seam_api, attach, 8);
PIN(asmspy_seam_api, next_stop, 16);
PIN(asmspy_seam_api, step, 24);
PIN(asmspy_seam_api, resume, 32);
PIN(asmspy_seam_api, resume_syscall, 40);
PIN(asmspy_seam_api, get_regs, 48);
PIN(asmspy_seam_api, detach, 56);
PIN(asmspy_seam_api, resume_all, 64);
PIN(asmspy_seam_api, thread_count, 72);
#define SIZE_1_0_asmspy_seam_api 80
ENDS(asmspy_seam_api, thread_count, SIZE_1_0_asmspy_seam_api);

HEADER(asmspy_symbol);
PIN(asmspy_symbol, name, 8);
PIN(asmspy_symbol, module, 16);
PIN(asmspy_symbol, module_path, 24);
PIN(asmspy_symbol, start, 32);
PIN(asmspy_symbol, size, 40);
PIN(asmspy_symbol, offset, 48);
PIN(asmspy_symbol, kind, 56);
#define SIZE_1_0_asmspy_symbol 64
ENDS(asmspy_symbol, kind, SIZE_1_0_asmspy_symbol);

HEADER(asmspy_host_api);
PIN(asmspy_host_api, emit, 8);
PIN(asmspy_host_api, note, 16);
PIN(asmspy_host_api, json_escape, 24);
PIN(asmspy_host_api, read_mem, 32);
PIN(asmspy_host_api, symbolize, 40);
PIN(asmspy_host_api, disasm, 48);
PIN(asmspy_host_api, describe, 56);
PIN(asmspy_host_api, seam, 64);
PIN(asmspy_host_api, strerror, 72);
#define SIZE_1_0_asmspy_host_api 80
ENDS(asmspy_host_api, strerror, SIZE_1_0_asmspy_host_api);

HEADER(asmspy_backend_ops);
PIN(asmspy_backend_ops, run, 8);
#define SIZE_1_0_asmspy_backend_ops 16
ENDS(asmspy_backend_ops, run, SIZE_1_0_asmspy_backend_ops);

HEADER(asmspy_view_ops);
PIN(asmspy_view_ops, mode, 8);
PIN(asmspy_view_ops, caps_required, 16);
PIN(asmspy_view_ops, usage, 24);
PIN(asmspy_view_ops, open, 32);
PIN(asmspy_view_ops, consume, 40);
PIN(asmspy_view_ops, finish, 48);
PIN(asmspy_view_ops, close, 56);
#define SIZE_1_0_asmspy_view_ops 64
ENDS(asmspy_view_ops, close, SIZE_1_0_asmspy_view_ops);

HEADER(asmspy_plugin);
PIN(asmspy_plugin, kind, 8);
PIN(asmspy_plugin, name, 16);
PIN(asmspy_plugin, description, 24);
PIN(asmspy_plugin, caps, 32);
PIN(asmspy_plugin, probe, 40);
PIN(asmspy_plugin, backend, 48);
PIN(asmspy_plugin, view, 56);
#define SIZE_1_0_asmspy_plugin 64
ENDS(asmspy_plugin, view, SIZE_1_0_asmspy_plugin);

/* ========================== ABI 1.1 ========================== */
/* struct asmspy_plugin: the plugin's own version string. */
PIN(asmspy_plugin, plugin_version, 64);
NEW(asmspy_plugin, plugin_version, SIZE_1_0_asmspy_plugin);
#define SIZE_1_1_asmspy_plugin 72
ENDS(asmspy_plugin, plugin_version, SIZE_1_1_asmspy_plugin);

/* struct asmspy_stop: the stop's siginfo si_code (step truthfulness). */
PIN(asmspy_stop, si_code, 48);
NEW(asmspy_stop, si_code, SIZE_1_0_asmspy_stop);
#define SIZE_1_1_asmspy_stop 56
ENDS(asmspy_stop, si_code, SIZE_1_1_asmspy_stop);

/* struct asmspy_seam_api: signal_blocked(), step_plain(). */
PIN(asmspy_seam_api, signal_blocked, 80);
NEW(asmspy_seam_api, signal_blocked, SIZE_1_0_asmspy_seam_api);
PIN(asmspy_seam_api, step_plain, 88);
NEW(asmspy_seam_api, step_plain, SIZE_1_0_asmspy_seam_api);
#define SIZE_1_1_asmspy_seam_api 96
ENDS(asmspy_seam_api, step_plain, SIZE_1_1_asmspy_seam_api);

/* struct asmspy_host_api: wants_json(), wants_text(). */
PIN(asmspy_host_api, wants_json, 80);
NEW(asmspy_host_api, wants_json, SIZE_1_0_asmspy_host_api);
PIN(asmspy_host_api, wants_text, 88);
NEW(asmspy_host_api, wants_text, SIZE_1_0_asmspy_host_api);
#define SIZE_1_1_asmspy_host_api 96
ENDS(asmspy_host_api, wants_text, SIZE_1_1_asmspy_host_api);

/* Unchanged in 1.1. */
#define SIZE_1_1_asmspy_probe_result SIZE_1_0_asmspy_probe_result
#define SIZE_1_1_asmspy_event SIZE_1_0_asmspy_event
#define SIZE_1_1_asmspy_session SIZE_1_0_asmspy_session
#define SIZE_1_1_asmspy_regs SIZE_1_0_asmspy_regs
#define SIZE_1_1_asmspy_symbol SIZE_1_0_asmspy_symbol
#define SIZE_1_1_asmspy_backend_ops SIZE_1_0_asmspy_backend_ops
#define SIZE_1_1_asmspy_view_ops SIZE_1_0_asmspy_view_ops

/* ========================== ABI 1.2 ========================== */
/* struct asmspy_syscall_info: new in 1.2 (syscall stops). */
HEADER(asmspy_syscall_info);
PIN(asmspy_syscall_info, op, 8);
PIN(asmspy_syscall_info, is_error, 12);
PIN(asmspy_syscall_info, nr, 16);
PIN(asmspy_syscall_info, args, 24);
PIN(asmspy_syscall_info, rval, 72);
PIN(asmspy_syscall_info, ip, 80);
PIN(asmspy_syscall_info, sp, 88);
PIN(asmspy_syscall_info, from_toggle, 96);
#define SIZE_1_2_asmspy_syscall_info 104
ENDS(asmspy_syscall_info, from_toggle, SIZE_1_2_asmspy_syscall_info);

/* struct asmspy_seam_api: syscall_info(). */
PIN(asmspy_seam_api, syscall_info, 96);
NEW(asmspy_seam_api, syscall_info, SIZE_1_1_asmspy_seam_api);
#define SIZE_1_2_asmspy_seam_api 104
ENDS(asmspy_seam_api, syscall_info, SIZE_1_2_asmspy_seam_api);

/* struct asmspy_host_api: syscall_name(), describe_fd(). */
PIN(asmspy_host_api, syscall_name, 96);
NEW(asmspy_host_api, syscall_name, SIZE_1_1_asmspy_host_api);
PIN(asmspy_host_api, describe_fd, 104);
NEW(asmspy_host_api, describe_fd, SIZE_1_1_asmspy_host_api);
#define SIZE_1_2_asmspy_host_api 112
ENDS(asmspy_host_api, describe_fd, SIZE_1_2_asmspy_host_api);

/* Unchanged in 1.2. */
#define SIZE_1_2_asmspy_probe_result SIZE_1_1_asmspy_probe_result
#define SIZE_1_2_asmspy_event SIZE_1_1_asmspy_event
#define SIZE_1_2_asmspy_session SIZE_1_1_asmspy_session
#define SIZE_1_2_asmspy_regs SIZE_1_1_asmspy_regs
#define SIZE_1_2_asmspy_symbol SIZE_1_1_asmspy_symbol
#define SIZE_1_2_asmspy_backend_ops SIZE_1_1_asmspy_backend_ops
#define SIZE_1_2_asmspy_view_ops SIZE_1_1_asmspy_view_ops
#define SIZE_1_2_asmspy_stop SIZE_1_1_asmspy_stop
#define SIZE_1_2_asmspy_plugin SIZE_1_1_asmspy_plugin

/* ========================== ABI 1.3 ========================== */
/* Region sessions (--trace, --dataflow): registers on INSN events, the
 * region in the session, the region resolver, the view's configure hook. */
PIN(asmspy_event, regs, 176);
NEW(asmspy_event, regs, SIZE_1_2_asmspy_event);
#define SIZE_1_3_asmspy_event 184
ENDS(asmspy_event, regs, SIZE_1_3_asmspy_event);
PIN(asmspy_session, region_start, 104);
NEW(asmspy_session, region_start, SIZE_1_2_asmspy_session);
PIN(asmspy_session, region_len, 112);
PIN(asmspy_session, entry_wait_ms, 120);
PIN(asmspy_session, max_steps, 128);
#define SIZE_1_3_asmspy_session 136
ENDS(asmspy_session, max_steps, SIZE_1_3_asmspy_session);
PIN(asmspy_host_api, resolve_region, 112);
NEW(asmspy_host_api, resolve_region, SIZE_1_2_asmspy_host_api);
PIN(asmspy_host_api, write_mem, 120);
NEW(asmspy_host_api, write_mem, SIZE_1_2_asmspy_host_api);
PIN(asmspy_host_api, operands, 128);
NEW(asmspy_host_api, operands, SIZE_1_2_asmspy_host_api);
#define SIZE_1_3_asmspy_host_api 136
ENDS(asmspy_host_api, operands, SIZE_1_3_asmspy_host_api);
/* struct asmspy_operands: new in 1.3 (host->operands, for --dataflow). */
HEADER(asmspy_operands);
PIN(asmspy_operands, nread, 8);
PIN(asmspy_operands, nwritten, 9);
PIN(asmspy_operands, nmem, 10);
PIN(asmspy_operands, pad, 11);
PIN(asmspy_operands, read, 12);
PIN(asmspy_operands, written, 28);
PIN(asmspy_operands, mem, 48);
PIN(asmspy_operands, mem[0].addr, 48);
PIN(asmspy_operands, mem[0].size, 56);
PIN(asmspy_operands, mem[0].access, 60);
PIN(asmspy_operands, mem[1], 64);
PIN(asmspy_operands, text, 112);
#define SIZE_1_3_asmspy_operands 208
ENDS(asmspy_operands, text, SIZE_1_3_asmspy_operands);
PIN(asmspy_seam_api, next_stop_timeout, 104);
NEW(asmspy_seam_api, next_stop_timeout, SIZE_1_2_asmspy_seam_api);
PIN(asmspy_seam_api, set_ip, 112);
PIN(asmspy_seam_api, interrupt_all, 120);
#define SIZE_1_3_asmspy_seam_api 128
ENDS(asmspy_seam_api, interrupt_all, SIZE_1_3_asmspy_seam_api);
PIN(asmspy_view_ops, configure, 64);
NEW(asmspy_view_ops, configure, SIZE_1_2_asmspy_view_ops);
#define SIZE_1_3_asmspy_view_ops 72
ENDS(asmspy_view_ops, configure, SIZE_1_3_asmspy_view_ops);

/* Unchanged in 1.3. */
#define SIZE_1_3_asmspy_probe_result SIZE_1_2_asmspy_probe_result
#define SIZE_1_3_asmspy_regs SIZE_1_2_asmspy_regs
#define SIZE_1_3_asmspy_symbol SIZE_1_2_asmspy_symbol
#define SIZE_1_3_asmspy_backend_ops SIZE_1_2_asmspy_backend_ops
#define SIZE_1_3_asmspy_stop SIZE_1_2_asmspy_stop
#define SIZE_1_3_asmspy_plugin SIZE_1_2_asmspy_plugin
#define SIZE_1_3_asmspy_syscall_info SIZE_1_2_asmspy_syscall_info

/* ========================== ABI 1.4 ========================== */
/* Scoped in-process tracing: inproc_begin()/inproc_end() appended to
 * struct asmspy_backend_ops, the new struct asmspy_inproc_req. */
PIN(asmspy_backend_ops, inproc_begin, 16);
NEW(asmspy_backend_ops, inproc_begin, SIZE_1_3_asmspy_backend_ops);
PIN(asmspy_backend_ops, inproc_end, 24);
NEW(asmspy_backend_ops, inproc_end, SIZE_1_3_asmspy_backend_ops);
#define SIZE_1_4_asmspy_backend_ops 32
ENDS(asmspy_backend_ops, inproc_end, SIZE_1_4_asmspy_backend_ops);
HEADER(asmspy_inproc_req);
PIN(asmspy_inproc_req, region_start, 8);
PIN(asmspy_inproc_req, region_len, 16);
PIN(asmspy_inproc_req, max_insns, 24);
PIN(asmspy_inproc_req, flags, 32);
#define SIZE_1_4_asmspy_inproc_req 40
ENDS(asmspy_inproc_req, flags, SIZE_1_4_asmspy_inproc_req);

/* Unchanged in 1.4. */
#define SIZE_1_4_asmspy_probe_result SIZE_1_3_asmspy_probe_result
#define SIZE_1_4_asmspy_event SIZE_1_3_asmspy_event
#define SIZE_1_4_asmspy_session SIZE_1_3_asmspy_session
#define SIZE_1_4_asmspy_regs SIZE_1_3_asmspy_regs
#define SIZE_1_4_asmspy_stop SIZE_1_3_asmspy_stop
#define SIZE_1_4_asmspy_seam_api SIZE_1_3_asmspy_seam_api
#define SIZE_1_4_asmspy_symbol SIZE_1_3_asmspy_symbol
#define SIZE_1_4_asmspy_host_api SIZE_1_3_asmspy_host_api
#define SIZE_1_4_asmspy_view_ops SIZE_1_3_asmspy_view_ops
#define SIZE_1_4_asmspy_plugin SIZE_1_3_asmspy_plugin
#define SIZE_1_4_asmspy_syscall_info SIZE_1_3_asmspy_syscall_info
#define SIZE_1_4_asmspy_operands SIZE_1_3_asmspy_operands

/* ========================== ABI 1.5 ========================== */
/* Samplers, watchpoints, code images: SAMPLE/WATCH_HIT/CODEIMAGE/PROVENANCE
 * events (new union members inside the fixed 128-byte union), session
 * window/watch fields, the debug-register seam calls, host->run_sampler,
 * view snapshot()/retry(). */
PIN(asmspy_event, u.sample.weight, 48);
PIN(asmspy_event, u.watch.addr, 48);
PIN(asmspy_event, u.watch.slot, 76);
PIN(asmspy_event, u.code.bytes, 72);
PIN(asmspy_event, u.prov.sampler, 88);
_Static_assert(sizeof(((struct asmspy_event *)0)->u) == 128, "the event union stays 128 bytes");
PIN(asmspy_session, window_ms, 136);
NEW(asmspy_session, window_ms, SIZE_1_4_asmspy_session);
PIN(asmspy_session, watch_addr, 144);
PIN(asmspy_session, watch_len, 152);
PIN(asmspy_session, watch_access, 156);
#define SIZE_1_5_asmspy_session 160
ENDS(asmspy_session, watch_access, SIZE_1_5_asmspy_session);
PIN(asmspy_seam_api, peek_user, 128);
NEW(asmspy_seam_api, peek_user, SIZE_1_4_asmspy_seam_api);
PIN(asmspy_seam_api, poke_user, 136);
PIN(asmspy_seam_api, get_regset, 144);
PIN(asmspy_seam_api, set_regset, 152);
PIN(asmspy_seam_api, list_threads, 160);
#define SIZE_1_5_asmspy_seam_api 168
ENDS(asmspy_seam_api, list_threads, SIZE_1_5_asmspy_seam_api);
PIN(asmspy_host_api, run_sampler, 136);
NEW(asmspy_host_api, run_sampler, SIZE_1_4_asmspy_host_api);
PIN(asmspy_host_api, resolve_data, 144);
#define SIZE_1_5_asmspy_host_api 152
ENDS(asmspy_host_api, resolve_data, SIZE_1_5_asmspy_host_api);
PIN(asmspy_view_ops, snapshot, 72);
NEW(asmspy_view_ops, snapshot, SIZE_1_4_asmspy_view_ops);
PIN(asmspy_view_ops, retry, 80);
#define SIZE_1_5_asmspy_view_ops 88
ENDS(asmspy_view_ops, retry, SIZE_1_5_asmspy_view_ops);

/* Unchanged in 1.5. */
#define SIZE_1_5_asmspy_probe_result SIZE_1_4_asmspy_probe_result
#define SIZE_1_5_asmspy_event SIZE_1_4_asmspy_event
#define SIZE_1_5_asmspy_regs SIZE_1_4_asmspy_regs
#define SIZE_1_5_asmspy_stop SIZE_1_4_asmspy_stop
#define SIZE_1_5_asmspy_symbol SIZE_1_4_asmspy_symbol
#define SIZE_1_5_asmspy_backend_ops SIZE_1_4_asmspy_backend_ops
#define SIZE_1_5_asmspy_plugin SIZE_1_4_asmspy_plugin
#define SIZE_1_5_asmspy_syscall_info SIZE_1_4_asmspy_syscall_info
#define SIZE_1_5_asmspy_operands SIZE_1_4_asmspy_operands
#define SIZE_1_5_asmspy_inproc_req SIZE_1_4_asmspy_inproc_req

/* ========================== ABI 1.6 ========================== */
/* View caps_wanted: capabilities used when present (the call views follow
 * control flow alone on a backend without exact sp). */
PIN(asmspy_view_ops, caps_wanted, 88);
NEW(asmspy_view_ops, caps_wanted, SIZE_1_5_asmspy_view_ops);
#define SIZE_1_6_asmspy_view_ops 96
ENDS(asmspy_view_ops, caps_wanted, SIZE_1_6_asmspy_view_ops);

/* Unchanged in 1.6. */
#define SIZE_1_6_asmspy_probe_result SIZE_1_5_asmspy_probe_result
#define SIZE_1_6_asmspy_event SIZE_1_5_asmspy_event
#define SIZE_1_6_asmspy_session SIZE_1_5_asmspy_session
#define SIZE_1_6_asmspy_regs SIZE_1_5_asmspy_regs
#define SIZE_1_6_asmspy_stop SIZE_1_5_asmspy_stop
#define SIZE_1_6_asmspy_seam_api SIZE_1_5_asmspy_seam_api
#define SIZE_1_6_asmspy_symbol SIZE_1_5_asmspy_symbol
#define SIZE_1_6_asmspy_host_api SIZE_1_5_asmspy_host_api
#define SIZE_1_6_asmspy_backend_ops SIZE_1_5_asmspy_backend_ops
#define SIZE_1_6_asmspy_plugin SIZE_1_5_asmspy_plugin
#define SIZE_1_6_asmspy_syscall_info SIZE_1_5_asmspy_syscall_info
#define SIZE_1_6_asmspy_operands SIZE_1_5_asmspy_operands
#define SIZE_1_6_asmspy_inproc_req SIZE_1_5_asmspy_inproc_req

/* ========================== ABI 1.7 ========================== */
/* struct asmspy_stop: flags (ASMSPY_STOPF_IN_TRAP_HANDLER) and addr (the
 * BREAKPOINT's address); new stop kinds BREAKPOINT and WATCH. */
PIN(asmspy_stop, addr, 56);
NEW(asmspy_stop, addr, SIZE_1_6_asmspy_stop);
PIN(asmspy_stop, flags, 64);
#define SIZE_1_7_asmspy_stop 72
ENDS(asmspy_stop, flags, SIZE_1_7_asmspy_stop);

/* Unchanged in 1.7. */
#define SIZE_1_7_asmspy_probe_result SIZE_1_6_asmspy_probe_result
#define SIZE_1_7_asmspy_event SIZE_1_6_asmspy_event
#define SIZE_1_7_asmspy_session SIZE_1_6_asmspy_session
#define SIZE_1_7_asmspy_regs SIZE_1_6_asmspy_regs
#define SIZE_1_7_asmspy_seam_api SIZE_1_6_asmspy_seam_api
#define SIZE_1_7_asmspy_symbol SIZE_1_6_asmspy_symbol
#define SIZE_1_7_asmspy_host_api SIZE_1_6_asmspy_host_api
#define SIZE_1_7_asmspy_backend_ops SIZE_1_6_asmspy_backend_ops
#define SIZE_1_7_asmspy_view_ops SIZE_1_6_asmspy_view_ops
#define SIZE_1_7_asmspy_plugin SIZE_1_6_asmspy_plugin
#define SIZE_1_7_asmspy_syscall_info SIZE_1_6_asmspy_syscall_info
#define SIZE_1_7_asmspy_operands SIZE_1_6_asmspy_operands
#define SIZE_1_7_asmspy_inproc_req SIZE_1_6_asmspy_inproc_req

/* ========================== ABI 1.8 ========================== */
/* The host learns its plugins from their descriptors: a backend's sampler
 * rung and in-process tier, a view's options, option caps, record
 * schemas and TUI entry; session.sampler_arg. */
PIN(asmspy_session, sampler_arg, 160);
NEW(asmspy_session, sampler_arg, SIZE_1_7_asmspy_session);
#define SIZE_1_8_asmspy_session 168
ENDS(asmspy_session, sampler_arg, SIZE_1_8_asmspy_session);
PIN(asmspy_backend_ops, sampler_rung, 32);
NEW(asmspy_backend_ops, sampler_rung, SIZE_1_7_asmspy_backend_ops);
PIN(asmspy_backend_ops, sampler_order, 40);
PIN(asmspy_backend_ops, inproc_tier, 44);
PIN(asmspy_backend_ops, inproc_order, 48);
#define SIZE_1_8_asmspy_backend_ops 56
ENDS(asmspy_backend_ops, inproc_order, SIZE_1_8_asmspy_backend_ops);
PIN(asmspy_view_ops, options, 96);
NEW(asmspy_view_ops, options, SIZE_1_7_asmspy_view_ops);
PIN(asmspy_view_ops, option_caps, 104);
PIN(asmspy_view_ops, records, 112);
PIN(asmspy_view_ops, tui, 120);
#define SIZE_1_8_asmspy_view_ops 128
ENDS(asmspy_view_ops, tui, SIZE_1_8_asmspy_view_ops);

/* host_api 1.8: three services (their structs are pinned in the sub-blocks below). */
PIN(asmspy_host_api, emit_record, 152);
NEW(asmspy_host_api, emit_record, SIZE_1_7_asmspy_host_api);
PIN(asmspy_host_api, insn_class, 160);
PIN(asmspy_host_api, parse_options, 168);
#define SIZE_1_8_asmspy_host_api 176
ENDS(asmspy_host_api, parse_options, SIZE_1_8_asmspy_host_api);

/* --- 1.8 sub-block: the seam's child driving (seam_api) --- */
/* struct asmspy_seam_api: spawn_child() (a probe's traced child). */
PIN(asmspy_seam_api, spawn_child, 168);
NEW(asmspy_seam_api, spawn_child, SIZE_1_7_asmspy_seam_api);
#define SIZE_1_8_asmspy_seam_api 176
ENDS(asmspy_seam_api, spawn_child, SIZE_1_8_asmspy_seam_api);

/* --- end seam sub-block --- */

/* --- 1.8 sub-block: typed records (struct asmspy_record, asmspy_value) --- */
/* Static tables (versioned by the view_ops that points at them) and the
 * values a record carries. */
PIN(asmspy_field, name, 0);
PIN(asmspy_field, type, 8);
PIN(asmspy_field, flags, 12);
PIN(asmspy_field, meaning, 16);
PIN(asmspy_field, values, 24);
PIN(asmspy_field, min, 32);
PIN(asmspy_field, max, 40);
PIN(asmspy_field, fields, 48);
SIZE(asmspy_field, 56);
PIN(asmspy_record_schema, type, 0);
PIN(asmspy_record_schema, meaning, 8);
PIN(asmspy_record_schema, fields, 16);
PIN(asmspy_record_schema, text, 24);
SIZE(asmspy_record_schema, 32);
PIN(asmspy_value, state, 0);
PIN(asmspy_value, pad, 4);
PIN(asmspy_value, u, 8);
PIN(asmspy_value, u.i, 8);
PIN(asmspy_value, u.str.s, 8);
PIN(asmspy_value, u.str.len, 16);
PIN(asmspy_value, u.u, 8);
PIN(asmspy_value, u.d, 8);
PIN(asmspy_value, u.b, 8);
PIN(asmspy_value, u.bytes.p, 8);
PIN(asmspy_value, u.bytes.len, 16);
PIN(asmspy_value, u.array.items, 8);
PIN(asmspy_value, u.array.n, 16);
PIN(asmspy_value, u.object.values, 8);
PIN(asmspy_value, u.json.s, 8);
SIZE(asmspy_value, 24);
PIN(asmspy_record, abi_version, 0);
PIN(asmspy_record, struct_size, 4);
PIN(asmspy_record, schema, 8);
PIN(asmspy_record, values, 16);
PIN(asmspy_record, text, 24);
#define SIZE_1_8_asmspy_record 32
ENDS(asmspy_record, text, SIZE_1_8_asmspy_record);
SIZE(asmspy_record, SIZE_1_8_asmspy_record);

/* --- end records sub-block --- */

/* --- 1.8 sub-block: insn_class bits --- */
/* host->insn_class() answers: a plugin built against 1.8 tests these bits
 * (and the length field) in every later host. */
#define PIN_INSN(name, value) _Static_assert(name == (value), #name " is ABI: it must stay " #value)
PIN_INSN(ASMSPY_INSN_DECODED, 0x1u);
PIN_INSN(ASMSPY_INSN_CALL, 0x2u);
PIN_INSN(ASMSPY_INSN_RET, 0x4u);
PIN_INSN(ASMSPY_INSN_JUMP, 0x8u);
PIN_INSN(ASMSPY_INSN_COND, 0x10u);
PIN_INSN(ASMSPY_INSN_RELATIVE, 0x20u);
PIN_INSN(ASMSPY_INSN_INDIRECT, 0x40u);
PIN_INSN(ASMSPY_INSN_SYSCALL, 0x80u);
PIN_INSN(ASMSPY_INSN_INT, 0x100u);
PIN_INSN(ASMSPY_INSN_IRET, 0x200u);
PIN_INSN(ASMSPY_INSN_PRIVILEGE, 0x400u);
PIN_INSN(ASMSPY_INSN_REP, 0x800u);
PIN_INSN(ASMSPY_INSN_LEN_SHIFT, 24);
PIN_INSN(ASMSPY_INSN_LEN(0x0f000023u), 15u);

/* --- end insn_class sub-block --- */

/* --- 1.8 sub-block: option parsing (struct asmspy_optval) --- */
_Static_assert(ASMSPY_OPT_MAX == 32 && ASMSPY_OPT_MAX_POS == 16,
               "the optval arrays are fixed for ABI 1.8");
PIN(asmspy_optval, npos, 8);
PIN(asmspy_optval, nopt, 12);
PIN(asmspy_optval, pos, 16);
PIN(asmspy_optval, value, 144);
PIN(asmspy_optval, count, 400);
#define SIZE_1_8_asmspy_optval 528
ENDS(asmspy_optval, count, SIZE_1_8_asmspy_optval);
SIZE(asmspy_optval, SIZE_1_8_asmspy_optval);
PIN(asmspy_option, name, 0);
PIN(asmspy_option, arg, 8);
PIN(asmspy_option, help, 16);
SIZE(asmspy_option, 24);

/* --- end options sub-block --- */

/* --- 1.8 sub-block: asmspy_run_opts --- */
/* The library's own boundary structs (asmspy.h, recording.h) follow the
 * plugin structs' rules from 1.8 on: the two header words first, members
 * only appended. asmspy_run refuses a run_opts shorter than SIZE_1_8 (a
 * caller built before the prefix); asmspy_recording_check likewise. */
#include <asmspy/asmspy.h>
#include <asmspy/recording.h>
HEADER(asmspy_run_opts);
PIN(asmspy_run_opts, mode, 8);
PIN(asmspy_run_opts, backend, 16);
PIN(asmspy_run_opts, pid, 24);
PIN(asmspy_run_opts, tid, 28);
PIN(asmspy_run_opts, max, 32);
PIN(asmspy_run_opts, flags, 40);
PIN(asmspy_run_opts, argc, 44);
PIN(asmspy_run_opts, argv, 48);
PIN(asmspy_run_opts, launch_argv, 56);
PIN(asmspy_run_opts, record_path, 64);
PIN(asmspy_run_opts, stop, 72);
PIN(asmspy_run_opts, text_out, 80);
PIN(asmspy_run_opts, json_out, 88);
PIN(asmspy_run_opts, on_record, 96);
PIN(asmspy_run_opts, record_ctx, 104);
PIN(asmspy_run_opts, snapshot_ms, 112);
PIN(asmspy_run_opts, on_frame, 120);
PIN(asmspy_run_opts, on_typed_record, 128);
#define SIZE_1_8_asmspy_run_opts 136
ENDS(asmspy_run_opts, on_typed_record, SIZE_1_8_asmspy_run_opts);
SIZE(asmspy_run_opts, SIZE_1_8_asmspy_run_opts);

HEADER(asmspy_recording_report);
PIN(asmspy_recording_report, verdict, 8);
PIN(asmspy_recording_report, have_header, 12);
PIN(asmspy_recording_report, backend_null, 16);
PIN(asmspy_recording_report, have_end, 20);
PIN(asmspy_recording_report, format_version, 24);
PIN(asmspy_recording_report, pid, 32);
PIN(asmspy_recording_report, tool, 40);
PIN(asmspy_recording_report, tool_version, 104);
PIN(asmspy_recording_report, mode, 168);
PIN(asmspy_recording_report, backend, 232);
PIN(asmspy_recording_report, kernel, 296);
PIN(asmspy_recording_report, arch, 424);
PIN(asmspy_recording_report, hostname, 488);
PIN(asmspy_recording_report, start_time, 744);
PIN(asmspy_recording_report, lines, 808);
PIN(asmspy_recording_report, events, 816);
PIN(asmspy_recording_report, lost_events, 824);
PIN(asmspy_recording_report, n_types, 832);
PIN(asmspy_recording_report, types, 840);
_Static_assert(sizeof(struct asmspy_recording_type_count) == 40 &&
                   ASMSPY_RECORDING_MAX_TYPES == 32 && ASMSPY_RECORDING_TYPE_NAME_MAX == 32,
               "ABI BREAK: the recording report's type table changed shape");
PIN(asmspy_recording_report, other_types, 2120);
PIN(asmspy_recording_report, end_events, 2128);
PIN(asmspy_recording_report, lost, 2136);
PIN(asmspy_recording_report, end_status, 2144);
PIN(asmspy_recording_report, end_reason, 2152);
PIN(asmspy_recording_report, error_line, 2184);
PIN(asmspy_recording_report, error, 2192);
PIN(asmspy_recording_report, warning, 2448);
PIN(asmspy_recording_report, raw_control_events, 2704);
PIN(asmspy_recording_report, raw_control_first_seq, 2712);
PIN(asmspy_recording_report, raw_control_byte, 2720);
PIN(asmspy_recording_report, raw_control_member, 2724);
#define SIZE_1_8_asmspy_recording_report 2736
ENDS(asmspy_recording_report, raw_control_member, SIZE_1_8_asmspy_recording_report);
SIZE(asmspy_recording_report, SIZE_1_8_asmspy_recording_report);
/* --- end asmspy_run_opts sub-block --- */

/* Unchanged in 1.8. */
#define SIZE_1_8_asmspy_probe_result SIZE_1_7_asmspy_probe_result
#define SIZE_1_8_asmspy_event SIZE_1_7_asmspy_event
#define SIZE_1_8_asmspy_regs SIZE_1_7_asmspy_regs
#define SIZE_1_8_asmspy_stop SIZE_1_7_asmspy_stop
#define SIZE_1_8_asmspy_symbol SIZE_1_7_asmspy_symbol
#define SIZE_1_8_asmspy_plugin SIZE_1_7_asmspy_plugin
#define SIZE_1_8_asmspy_syscall_info SIZE_1_7_asmspy_syscall_info
#define SIZE_1_8_asmspy_operands SIZE_1_7_asmspy_operands
#define SIZE_1_8_asmspy_inproc_req SIZE_1_7_asmspy_inproc_req

/* ========================== ABI 1.9 ========================== */
/* Call sessions: the CALL event (u.call inside the fixed union), session
 * call selection fields, seam inject_syscall(), host symbol_at(), view
 * caps_alternative. */
PIN(asmspy_event, u.call.func, 48);
PIN(asmspy_event, u.call.ret, 56);
PIN(asmspy_event, u.call.slot, 64);
PIN(asmspy_event, u.call.ts_ns, 72);
PIN(asmspy_event, u.call.what, 80);
PIN(asmspy_event, u.call.depth, 84);
PIN(asmspy_session, call_module, 168);
NEW(asmspy_session, call_module, SIZE_1_8_asmspy_session);
PIN(asmspy_session, call_include, 176);
PIN(asmspy_session, call_exclude, 184);
PIN(asmspy_session, call_max_funcs, 192);
#define SIZE_1_9_asmspy_session 200
ENDS(asmspy_session, call_pad_, SIZE_1_9_asmspy_session);
PIN(asmspy_seam_api, inject_syscall, 176);
NEW(asmspy_seam_api, inject_syscall, SIZE_1_8_asmspy_seam_api);
#define SIZE_1_9_asmspy_seam_api 184
ENDS(asmspy_seam_api, inject_syscall, SIZE_1_9_asmspy_seam_api);
PIN(asmspy_host_api, symbol_at, 176);
NEW(asmspy_host_api, symbol_at, SIZE_1_8_asmspy_host_api);
PIN(asmspy_host_api, undo_push, 184);
PIN(asmspy_host_api, undo_clear, 192);
#define SIZE_1_9_asmspy_host_api 200
ENDS(asmspy_host_api, undo_clear, SIZE_1_9_asmspy_host_api);
PIN(asmspy_view_ops, caps_alternative, 128);
NEW(asmspy_view_ops, caps_alternative, SIZE_1_8_asmspy_view_ops);
#define SIZE_1_9_asmspy_view_ops 136
ENDS(asmspy_view_ops, caps_alternative, SIZE_1_9_asmspy_view_ops);
/* Unchanged in 1.9. */
#define SIZE_1_9_asmspy_probe_result SIZE_1_8_asmspy_probe_result
#define SIZE_1_9_asmspy_event SIZE_1_8_asmspy_event
#define SIZE_1_9_asmspy_regs SIZE_1_8_asmspy_regs
#define SIZE_1_9_asmspy_stop SIZE_1_8_asmspy_stop
#define SIZE_1_9_asmspy_symbol SIZE_1_8_asmspy_symbol
#define SIZE_1_9_asmspy_plugin SIZE_1_8_asmspy_plugin
#define SIZE_1_9_asmspy_syscall_info SIZE_1_8_asmspy_syscall_info
#define SIZE_1_9_asmspy_operands SIZE_1_8_asmspy_operands
#define SIZE_1_9_asmspy_inproc_req SIZE_1_8_asmspy_inproc_req
#define SIZE_1_9_asmspy_backend_ops SIZE_1_8_asmspy_backend_ops

/* ========================== ABI 1.10 ========================== */
/* Data-flow streams: vector/x87 operands (ASMSPY_VREG ids) and the thread's
 * FP state (host read_fpregs / vreg_value / vreg_name). */
PIN(asmspy_operands, nvread, 208);
NEW(asmspy_operands, nvread, SIZE_1_9_asmspy_operands);
PIN(asmspy_operands, nvwritten, 209);
PIN(asmspy_operands, vpad, 210);
PIN(asmspy_operands, vread, 212);
PIN(asmspy_operands, vwritten, 228);
#define SIZE_1_10_asmspy_operands 248
ENDS(asmspy_operands, vwritten, SIZE_1_10_asmspy_operands);
PIN(asmspy_host_api, read_fpregs, 200);
NEW(asmspy_host_api, read_fpregs, SIZE_1_9_asmspy_host_api);
PIN(asmspy_host_api, vreg_value, 208);
PIN(asmspy_host_api, vreg_name, 216);
#define SIZE_1_10_asmspy_host_api 224
ENDS(asmspy_host_api, vreg_name, SIZE_1_10_asmspy_host_api);
/* struct asmspy_fpregs: new in 1.10. */
HEADER(asmspy_fpregs);
PIN(asmspy_fpregs, have, 8);
PIN(asmspy_fpregs, nvec, 12);
PIN(asmspy_fpregs, mxcsr, 16);
PIN(asmspy_fpregs, mxcsr_mask, 20);
PIN(asmspy_fpregs, fcw, 24);
PIN(asmspy_fpregs, fsw, 26);
PIN(asmspy_fpregs, ftw, 28);
PIN(asmspy_fpregs, fop, 30);
PIN(asmspy_fpregs, fip, 32);
PIN(asmspy_fpregs, fdp, 40);
PIN(asmspy_fpregs, st, 48);
PIN(asmspy_fpregs, zmm, 176);
PIN(asmspy_fpregs, k, 2224);
#define SIZE_1_10_asmspy_fpregs 2288
ENDS(asmspy_fpregs, k, SIZE_1_10_asmspy_fpregs);
_Static_assert(ASMSPY_VREG(ASMSPY_VREG_ZMM, 31) == 0x31f && ASMSPY_VREG_CLASS(0x31f) == 3 &&
                   ASMSPY_VREG_NUM(0x31f) == 31 && ASMSPY_VREG_XMM == 1 && ASMSPY_VREG_YMM == 2 &&
                   ASMSPY_VREG_ST == 4 && ASMSPY_VREG_MM == 5 && ASMSPY_VREG_K == 6 &&
                   ASMSPY_VREG_MXCSR == 7 && ASMSPY_VREG_FPSW == 8,
               "the ASMSPY_VREG encoding is ABI");
/* Unchanged in 1.10. */
#define SIZE_1_10_asmspy_probe_result SIZE_1_9_asmspy_probe_result
#define SIZE_1_10_asmspy_event SIZE_1_9_asmspy_event
#define SIZE_1_10_asmspy_session SIZE_1_9_asmspy_session
#define SIZE_1_10_asmspy_regs SIZE_1_9_asmspy_regs
#define SIZE_1_10_asmspy_stop SIZE_1_9_asmspy_stop
#define SIZE_1_10_asmspy_seam_api SIZE_1_9_asmspy_seam_api
#define SIZE_1_10_asmspy_symbol SIZE_1_9_asmspy_symbol
#define SIZE_1_10_asmspy_plugin SIZE_1_9_asmspy_plugin
#define SIZE_1_10_asmspy_syscall_info SIZE_1_9_asmspy_syscall_info
#define SIZE_1_10_asmspy_inproc_req SIZE_1_9_asmspy_inproc_req
#define SIZE_1_10_asmspy_backend_ops SIZE_1_9_asmspy_backend_ops
#define SIZE_1_10_asmspy_view_ops SIZE_1_9_asmspy_view_ops

/* ========================== ABI 1.11 ========================== */
/* struct asmspy_backend_ops gained suits() (a call backend refuses a target
 * it cannot trace safely; the engine falls back); ASMSPY_FACT_UNSUITED;
 * struct asmspy_seam_api gained emulate_step() (x86-64's popf). */
#define SIZE_1_11_asmspy_probe_result SIZE_1_10_asmspy_probe_result
#define SIZE_1_11_asmspy_event SIZE_1_10_asmspy_event
#define SIZE_1_11_asmspy_host_api SIZE_1_10_asmspy_host_api
#define SIZE_1_11_asmspy_operands SIZE_1_10_asmspy_operands
#define SIZE_1_11_asmspy_session SIZE_1_10_asmspy_session
#define SIZE_1_11_asmspy_regs SIZE_1_10_asmspy_regs
#define SIZE_1_11_asmspy_stop SIZE_1_10_asmspy_stop
PIN(asmspy_seam_api, emulate_step, 184);
NEW(asmspy_seam_api, emulate_step, SIZE_1_10_asmspy_seam_api);
#define SIZE_1_11_asmspy_seam_api 192
ENDS(asmspy_seam_api, emulate_step, SIZE_1_11_asmspy_seam_api);
#define SIZE_1_11_asmspy_symbol SIZE_1_10_asmspy_symbol
#define SIZE_1_11_asmspy_plugin SIZE_1_10_asmspy_plugin
#define SIZE_1_11_asmspy_syscall_info SIZE_1_10_asmspy_syscall_info
#define SIZE_1_11_asmspy_inproc_req SIZE_1_10_asmspy_inproc_req
#define SIZE_1_11_asmspy_view_ops SIZE_1_10_asmspy_view_ops
#define SIZE_1_11_asmspy_fpregs SIZE_1_10_asmspy_fpregs
PIN(asmspy_backend_ops, suits, 56);
NEW(asmspy_backend_ops, suits, SIZE_1_10_asmspy_backend_ops);
#define SIZE_1_11_asmspy_backend_ops 64
ENDS(asmspy_backend_ops, suits, SIZE_1_11_asmspy_backend_ops);
_Static_assert(ASMSPY_FACT_UNSUITED == 105, "a status code never changes");

/* ========================== ABI 1.12 ========================== */
/* Call tracing as uftrace does it: ASMSPY_CALL_REFUSED with u.call.why
 * (inside the fixed union), session call_patch (uftrace -P); call_include /
 * call_exclude became view-side -F / -N. */
PIN(asmspy_event, u.call.why, 88);
_Static_assert(ASMSPY_CALL_REFUSED == 3, "a call kind never changes");
_Static_assert(ASMSPY_EVF_CALL_INHERITED == (1u << 13) && ASMSPY_EVF_SIG_INFO == (1u << 11) &&
                   ASMSPY_EVF_SIG_GROUP_STOP == (1u << 12),
               "event flags are ABI");
PIN(asmspy_session, call_patch, 200);
NEW(asmspy_session, call_patch, SIZE_1_11_asmspy_session);
#define SIZE_1_12_asmspy_session 208
ENDS(asmspy_session, call_patch, SIZE_1_12_asmspy_session);
#define SIZE_1_12_asmspy_probe_result SIZE_1_11_asmspy_probe_result
#define SIZE_1_12_asmspy_event SIZE_1_11_asmspy_event
/* The arch shim owns the arch: host->arch (struct asmspy_arch, new) names
 * the register ids, flag bits and calling convention; host->caps carries
 * behaviour-change bits; the descriptor's min_host_minor makes an older
 * host refuse a plugin that needs more (ASMSPY_E_ABI). */
PIN(asmspy_host_api, arch, 224);
NEW(asmspy_host_api, arch, SIZE_1_11_asmspy_host_api);
PIN(asmspy_host_api, caps, 232);
PIN(asmspy_host_api, wants_values, 240);
#define SIZE_1_12_asmspy_host_api 248
ENDS(asmspy_host_api, wants_values, SIZE_1_12_asmspy_host_api);
_Static_assert(ASMSPY_HOST_CAP_OPERANDS_ISA_ACCESS == 1 && ASMSPY_HOST_CAP_OPERANDS_ARM64 == 2,
               "a host capability bit never changes");
PIN(asmspy_plugin, min_host_minor, 72);
NEW(asmspy_plugin, min_host_minor, SIZE_1_11_asmspy_plugin);
PIN(asmspy_plugin, min_pad_, 76);
#define SIZE_1_12_asmspy_plugin 80
ENDS(asmspy_plugin, min_pad_, SIZE_1_12_asmspy_plugin);
/* struct asmspy_arch: new in 1.12. */
HEADER(asmspy_arch);
PIN(asmspy_arch, name, 8);
PIN(asmspy_arch, nregs, 16);
PIN(asmspy_arch, ngpr, 20);
PIN(asmspy_arch, reg_ip, 24);
PIN(asmspy_arch, reg_sp, 28);
PIN(asmspy_arch, reg_fp, 32);
PIN(asmspy_arch, reg_ret, 36);
PIN(asmspy_arch, reg_flags, 40);
PIN(asmspy_arch, reg_link, 44);
PIN(asmspy_arch, call_push, 48);
PIN(asmspy_arch, insn_align, 52);
PIN(asmspy_arch, nargs, 56);
PIN(asmspy_arch, args, 60);
PIN(asmspy_arch, nclobber, 68);
PIN(asmspy_arch, clobber, 72);
PIN(asmspy_arch, reg_names, 104);
PIN(asmspy_arch, reg_meanings, 112);
PIN(asmspy_arch, reg_order, 120);
PIN(asmspy_arch, flag_carry, 128);
PIN(asmspy_arch, flag_zero, 136);
PIN(asmspy_arch, flag_sign, 144);
PIN(asmspy_arch, flag_overflow, 152);
PIN(asmspy_arch, flag_trap, 160);
PIN(asmspy_arch, syscall_regset, 168);
PIN(asmspy_arch, pad_, 172);
#define SIZE_1_12_asmspy_arch 176
ENDS(asmspy_arch, pad_, SIZE_1_12_asmspy_arch);
_Static_assert(ASMSPY_ARCH_MAX_REGS == 40, "ASMSPY_ARCH_MAX_REGS is ABI");
_Static_assert(ASMSPY_VREG_V == 9 && ASMSPY_FP_ASIMD == 16, "the AArch64 VREG class is ABI");
#define SIZE_1_12_asmspy_operands SIZE_1_11_asmspy_operands
#define SIZE_1_12_asmspy_regs SIZE_1_11_asmspy_regs
/* The whole siginfo of a signal (strace's `--- SIGCHLD {si_signo=..., si_pid=...} ---`):
 * u.signal's fields after code (inside the fixed union), the EVF_SIG_* bits;
 * struct asmspy_stop's group_sig and raw siginfo (ASMSPY_STOPF_SIGINFO). */
PIN(asmspy_event, u.signal.err, 56);
PIN(asmspy_event, u.signal.pid, 60);
PIN(asmspy_event, u.signal.uid, 64);
PIN(asmspy_event, u.signal.status, 68);
PIN(asmspy_event, u.signal.utime, 72);
PIN(asmspy_event, u.signal.stime, 80);
PIN(asmspy_event, u.signal.addr, 88);
PIN(asmspy_event, u.signal.value, 96);
PIN(asmspy_event, u.signal.band, 104);
PIN(asmspy_event, u.signal.fd, 112);
PIN(asmspy_event, u.signal.timerid, 116);
PIN(asmspy_event, u.signal.overrun, 120);
PIN(asmspy_event, u.signal.syscall, 124);
PIN(asmspy_event, u.signal.arch, 128);
_Static_assert(sizeof(((struct asmspy_event *)0)->u.signal) <= 128, "u.signal fits the union");
_Static_assert(ASMSPY_EVF_SIG_INFO == (1u << 11) && ASMSPY_EVF_SIG_GROUP_STOP == (1u << 12),
               "an event flag never changes");
PIN(asmspy_stop, pad_, 68); /* 1.7's tail padding, named; never read */
PIN(asmspy_stop, group_sig, 72);
NEW(asmspy_stop, group_sig, SIZE_1_11_asmspy_stop);
PIN(asmspy_stop, siginfo, 76);
NEW(asmspy_stop, siginfo, SIZE_1_11_asmspy_stop);
#define SIZE_1_12_asmspy_stop 208
ENDS(asmspy_stop, siginfo, SIZE_1_12_asmspy_stop);
_Static_assert(ASMSPY_STOPF_SIGINFO == 2u, "a stop flag never changes");
#define SIZE_1_12_asmspy_seam_api SIZE_1_11_asmspy_seam_api
#define SIZE_1_12_asmspy_symbol SIZE_1_11_asmspy_symbol
#define SIZE_1_12_asmspy_syscall_info SIZE_1_11_asmspy_syscall_info
PIN(asmspy_inproc_req, end_entry, 40);
NEW(asmspy_inproc_req, end_entry, SIZE_1_11_asmspy_inproc_req);
PIN(asmspy_inproc_req, end_arg, 48);
PIN(asmspy_inproc_req, arm_tail, 56);
#define SIZE_1_12_asmspy_inproc_req 64
ENDS(asmspy_inproc_req, arm_tail, SIZE_1_12_asmspy_inproc_req);
#define SIZE_1_12_asmspy_view_ops SIZE_1_11_asmspy_view_ops
#define SIZE_1_12_asmspy_fpregs SIZE_1_11_asmspy_fpregs
#define SIZE_1_12_asmspy_backend_ops SIZE_1_11_asmspy_backend_ops
/* 1.12, field roles (the TUI's screens from typed records, issue 28): new
 * ASMSPY_FIELDF_* bits after TITLE (32); a flag bit never changes. */
_Static_assert(ASMSPY_FIELDF_TITLE == 32u, "a field flag never changes");
_Static_assert(ASMSPY_FIELDF_SORT_KEY == 64u && ASMSPY_FIELDF_PANE == 128u &&
                   ASMSPY_FIELDF_DRILL_PID == 256u && ASMSPY_FIELDF_DRILL_ADDR == 512u &&
                   ASMSPY_FIELDF_DRILL_FUNC == 1024u && ASMSPY_FIELDF_HIGHLIGHT == 2048u &&
                   ASMSPY_FIELDF_CARRIED == 4096u,
               "a field role bit never changes");
_Static_assert(ASMSPY_FIELDF_ROLES == (64u | 128u | 256u | 512u | 1024u | 2048u | 4096u),
               "ROLES is every role bit");
_Static_assert(ASMSPY_TUI_FEED == 1 && ASMSPY_TUI_EDGES == 9, "the layouts stay (compatibility)");

/* ========================== CURRENT ========================== */
/* The header's minor must be one this file has a block for. */
#if ASMSPY_ABI_MINOR == 12
#define CUR(S) SIZE_1_12_##S
#else
#error "ASMSPY_ABI_MINOR changed: add an 'ABI 1.N' block to this file and a row to docs/ABI.md"
#endif
SIZE(asmspy_probe_result, CUR(asmspy_probe_result));
SIZE(asmspy_event, CUR(asmspy_event));
SIZE(asmspy_session, CUR(asmspy_session));
SIZE(asmspy_regs, CUR(asmspy_regs));
SIZE(asmspy_stop, CUR(asmspy_stop));
SIZE(asmspy_seam_api, CUR(asmspy_seam_api));
SIZE(asmspy_symbol, CUR(asmspy_symbol));
SIZE(asmspy_host_api, CUR(asmspy_host_api));
SIZE(asmspy_backend_ops, CUR(asmspy_backend_ops));
SIZE(asmspy_view_ops, CUR(asmspy_view_ops));
SIZE(asmspy_plugin, CUR(asmspy_plugin));
SIZE(asmspy_syscall_info, CUR(asmspy_syscall_info));
SIZE(asmspy_operands, CUR(asmspy_operands));
SIZE(asmspy_inproc_req, CUR(asmspy_inproc_req));
SIZE(asmspy_fpregs, CUR(asmspy_fpregs));
SIZE(asmspy_arch, CUR(asmspy_arch));

/* Boundary structs are 8-aligned (ENDS() rounds to 8). */
_Static_assert(alignof(struct asmspy_plugin) == 8 && alignof(struct asmspy_event) == 8 &&
                   alignof(struct asmspy_stop) == 8 && alignof(struct asmspy_probe_result) == 8,
               "boundary structs are 8-aligned on x86-64");

/* ---------------------------- run time ----------------------------------- */

static int failures;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

int main(void) {
  printf("# ABI %u.%u layout pinned at compile time (this binary exists, so it holds)\n",
         ASMSPY_ABI_MAJOR, ASMSPY_ABI_MINOR);

  /* A 1.0 writer's descriptor, in a heap block exactly as long as it was:
   * ASMSPY_HAS must answer from struct_size alone, without touching (or even
   * being able to touch, under ASan) the missing 1.1 member. */
  void *volatile block = malloc(SIZE_1_0_asmspy_plugin);
  /* (through a volatile: to the compiler, as to the host, it is just a
   * pointer to a plugin's descriptor of unknown extent) */
  struct asmspy_plugin *old = block;
  if (!old) return 1;
  memset(old, 0, SIZE_1_0_asmspy_plugin);
  old->abi_version = ASMSPY_ABI_MAKE(1, 0);
  old->struct_size = SIZE_1_0_asmspy_plugin;
  check(ASMSPY_HAS(old, view), "1.0 descriptor: ASMSPY_HAS(view)");
  check(ASMSPY_HAS(old, name), "1.0 descriptor: ASMSPY_HAS(name)");
  check(!ASMSPY_HAS(old, plugin_version), "1.0 descriptor: !ASMSPY_HAS(plugin_version)");
  free(old);

  /* Sizes around a member's boundary: present only when ALL its bytes are. */
  struct asmspy_plugin p;
  memset(&p, 0, sizeof p);
  ASMSPY_INIT_HEADER(&p);
  check(p.struct_size == sizeof p && p.abi_version == ASMSPY_ABI_VERSION,
        "ASMSPY_INIT_HEADER writes sizeof and ASMSPY_ABI_VERSION");
  check(ASMSPY_HAS(&p, plugin_version), "current descriptor: ASMSPY_HAS(plugin_version)");
  p.struct_size = (uint32_t)(offsetof(struct asmspy_plugin, plugin_version) + sizeof(char *) - 1);
  check(!ASMSPY_HAS(&p, plugin_version), "one byte short: !ASMSPY_HAS(plugin_version)");
  p.struct_size = (uint32_t)offsetof(struct asmspy_plugin, view);
  check(!ASMSPY_HAS(&p, view) && ASMSPY_HAS(&p, backend),
        "struct_size at view's offset: has backend, not view");
  p.struct_size = 8;
  check(!ASMSPY_HAS(&p, kind), "header only (8 bytes): !ASMSPY_HAS(kind)");
  p.struct_size = 0xffffffffu;
  check(ASMSPY_HAS(&p, plugin_version), "a much bigger (future) struct has every known member");

  /* A hand-built short stop (1.0 writer) and a short seam table. */
  struct asmspy_stop st;
  memset(&st, 0, sizeof st);
  st.struct_size = SIZE_1_0_asmspy_stop;
  check(ASMSPY_HAS(&st, target) && !ASMSPY_HAS(&st, si_code),
        "1.0 asmspy_stop: has target, not si_code");
  struct asmspy_seam_api seam;
  memset(&seam, 0, sizeof seam);
  seam.struct_size = SIZE_1_0_asmspy_seam_api;
  check(ASMSPY_HAS(&seam, thread_count) && !ASMSPY_HAS(&seam, signal_blocked) &&
            !ASMSPY_HAS(&seam, step_plain),
        "1.0 seam table: has thread_count, not signal_blocked/step_plain");

  printf("# %s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
#endif
