/* --insns: the bytes of each step's instruction as executed — read from
 * the target at that step, not from the ELF file, so a recording holds the
 * code that ran even when it was JIT'd or patched since, and a replay needs
 * no target. The text beside them is the step's disassembly of those very
 * bytes. A call-out step is not an instruction (its call is the step
 * before it): it has none. */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

struct asmspy_value insns_value(const struct df_trace *t, size_t i) {
  const struct step *s = &t->steps[i];
  if (s->callout || !s->len) return rv_absent();
  return rv_bytes(s->bytes, s->len);
}

void insns_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  const struct step *s = &t->steps[i];
  if (s->callout) return;
  strbuf_addf(text, "\n        insn:");
  if (!s->len) {
    strbuf_addf(text, " (bytes unreadable)");
    return;
  }
  for (size_t k = 0; k < s->len; k++) strbuf_addf(text, " %02x", s->bytes[k]);
  strbuf_addf(text, "  %s", s->text);
}
