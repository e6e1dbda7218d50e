/* The services table handed to every plugin (the sqlite3_api_routines
 * model): plugins never link host symbols, so this table IS their view of
 * the host. Append-only; see include/asmspy/plugin.h. */
#include "host/host.h"
#include "common/option_parse.h"
#include "host/undo_journal.h"
#include "host/arch/arch.h"

static void api_note(struct asmspy_out *out, int level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  out_vnote(out, level, fmt, ap);
  va_end(ap);
}

static const struct asmspy_host_api host_api = {
    .abi_version = ASMSPY_ABI_VERSION,
    .struct_size = sizeof(struct asmspy_host_api),
    .emit = out_emit,
    .note = api_note,
    .json_escape = json_escape,
    .read_mem = target_read_mem,
    .symbolize = target_symbolize,
    .disasm = disasm_one,
    .describe = target_describe,
    .seam = &seam_api,
    .strerror = asmspy_strerror,
    .wants_json = out_wants_json,
    .wants_text = out_wants_text,
    .wants_values = out_wants_values,
    .syscall_name = host_syscall_name,
    .describe_fd = target_describe_fd,
    .resolve_region = target_resolve_region,
    .write_mem = target_write_mem,
    .operands = operands_one,
    .run_sampler = host_run_sampler,
    .resolve_data = target_resolve_data,

    /* 1.8: typed records */
    .emit_record = out_emit_record,

    /* 1.8: instruction classes */
    .insn_class = insn_class_one,

    /* 1.8: option parsing */
    .parse_options = asmspy_option_parse,

    /* 1.9: the symbol list (call backends pick what to patch) */
    .symbol_at = target_symbol_at,
    .undo_push = undo_push,
    .undo_clear = undo_clear,

    /* 1.10: vector and x87 state (--dataflow --fpregs) */
    .read_fpregs = fpregs_read,
    .vreg_value = fpregs_vreg_value,
    .vreg_name = fpregs_vreg_name,

    /* 1.12: the arch's register identities; behaviour capabilities */
    .arch = &arch_info,
    .caps = ASMSPY_HOST_CAP_OPERANDS_ISA_ACCESS
#if defined(__aarch64__)
            | ASMSPY_HOST_CAP_OPERANDS_ARM64
#endif
    ,
};

const struct asmspy_host_api *asmspy_host_api(void) { return &host_api; }
