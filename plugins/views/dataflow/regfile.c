/* --steps: the full register file at every step — the state the step sees
 * before it runs, as gdb's `info registers` shows it at a breakpoint there:
 * every register the host's arch names (host->arch: x86-64's
 * user_regs_struct members, rip, rflags, fs_base, gs_base, the segment
 * selectors and orig_rax included; AArch64's x0-x30, sp, pc and nzcv), in
 * gdb's order. A call-out step sees the call's effects only (x86-64: rsp 8
 * lower; AArch64: x30 the return address; ip the callee). */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>

/* the `regs` object's members, in the arch's display order, named as it
 * names them; filled once at the plugin's entry (regfile_describe) */
struct asmspy_field df_regs_fields[DF_NREGS + 1];

void regfile_describe(const struct asmspy_arch *a) {
  uint32_t n = a->nregs < DF_NREGS ? a->nregs : DF_NREGS;
  for (uint32_t k = 0; k < n; k++) {
    unsigned g = a->reg_order[k];
    df_regs_fields[k] = (struct asmspy_field)RF_HEX(a->reg_names[g], 0, a->reg_meanings[g]);
  }
  df_regs_fields[n] = (struct asmspy_field)RF_END;
}

struct asmspy_value regfile_value(const struct df_trace *t, size_t i, struct df_arena *a) {
  if (!t->steps[i].regs_known) return rv_absent();
  uint32_t n = df_arch->nregs;
  struct asmspy_value *v = df_values(a, n);
  if (!v) return rv_absent();
  for (uint32_t k = 0; k < n; k++) v[k] = rv_hex(t->regs[i][df_arch->reg_order[k]]);
  return rv_object(v);
}

void regfile_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  if (!t->steps[i].regs_known) {
    strbuf_addf(text, "\n        regs: (not observed)");
    return;
  }
  strbuf_addf(text, "\n        regs:");
  for (uint32_t k = 0; k < df_arch->nregs; k++) {
    unsigned g = df_arch->reg_order[k];
    strbuf_addf(text, " %s=0x%" PRIx64, df_reg_name(g), t->regs[i][g]);
  }
}
