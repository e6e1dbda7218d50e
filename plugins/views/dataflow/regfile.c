/* --steps: the full register file at every step — the state the step sees
 * before it runs, as gdb's `info registers` shows it at a breakpoint there:
 * every user_regs_struct member by name (rip, rflags, fs_base, gs_base,
 * the segment selectors and orig_rax included), in gdb's order. A call-out
 * step sees the call's effects only (rsp 8 lower, rip the callee). */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>

/* gdb's `info registers` order, as user_regs_struct indexes */
static const uint8_t gdb_order[G_NREGS] = {
    G_RAX, G_RBX, G_RCX, G_RDX, G_RSI, G_RDI, G_RBP, G_RSP, G_R8, G_R9, G_R10, G_R11, G_R12, G_R13,
    G_R14, G_R15, G_RIP, G_EFLAGS, G_CS, G_SS, G_DS, G_ES, G_FS, G_GS, G_FS_BASE, G_GS_BASE,
    G_ORIG_RAX};

/* the `regs` object's members: gdb_order, named as user_regs_struct */
const struct asmspy_field df_regs_fields[] = {
    RF_HEX("rax", 0, "rax"), RF_HEX("rbx", 0, "rbx"), RF_HEX("rcx", 0, "rcx"),
    RF_HEX("rdx", 0, "rdx"), RF_HEX("rsi", 0, "rsi"), RF_HEX("rdi", 0, "rdi"),
    RF_HEX("rbp", 0, "rbp"), RF_HEX("rsp", 0, "rsp"), RF_HEX("r8", 0, "r8"),
    RF_HEX("r9", 0, "r9"), RF_HEX("r10", 0, "r10"), RF_HEX("r11", 0, "r11"),
    RF_HEX("r12", 0, "r12"), RF_HEX("r13", 0, "r13"), RF_HEX("r14", 0, "r14"),
    RF_HEX("r15", 0, "r15"), RF_HEX("rip", 0, "rip (the step's address)"),
    RF_HEX("rflags", 0, "rflags"), RF_HEX("cs", 0, "cs selector"), RF_HEX("ss", 0, "ss selector"),
    RF_HEX("ds", 0, "ds selector"), RF_HEX("es", 0, "es selector"),
    RF_HEX("fs", 0, "fs selector"), RF_HEX("gs", 0, "gs selector"),
    RF_HEX("fs_base", 0, "fs base (thread pointer)"), RF_HEX("gs_base", 0, "gs base"),
    RF_HEX("orig_rax", 0, "orig_rax (the syscall number of an interrupted syscall, else -1)"),
    RF_END,
};

struct asmspy_value regfile_value(const struct df_trace *t, size_t i, struct df_arena *a) {
  if (!t->steps[i].regs_known) return rv_absent();
  struct asmspy_value *v = df_values(a, G_NREGS);
  if (!v) return rv_absent();
  for (int k = 0; k < G_NREGS; k++) v[k] = rv_hex(t->regs[i][gdb_order[k]]);
  return rv_object(v);
}

void regfile_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  if (!t->steps[i].regs_known) {
    strbuf_addf(text, "\n        regs: (not observed)");
    return;
  }
  strbuf_addf(text, "\n        regs:");
  for (int k = 0; k < G_NREGS; k++)
    strbuf_addf(text, " %s=0x%" PRIx64, df_reg_names[gdb_order[k]], t->regs[i][gdb_order[k]]);
}
