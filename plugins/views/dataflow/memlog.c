/* --mem: every memory access of every step — address, size, direction and
 * the value read (before the step) or written (after it) — in the order
 * the step's operands list them, reads first. The implicit accesses are
 * there because the host's operands() reports them (push/call write
 * [rsp-8], pop/ret read [rsp], leave reads [rbp]); a call-out step reads
 * the return slot the callee's ret pops (the callee itself ran natively:
 * its own accesses are not seen). */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const struct asmspy_field df_mem_fields[] = {
    RF_HEX("addr", 0, "the address accessed"),
    RF_INT("size", 0, 0, "bytes"),
    RF_ENUM("dir", "read|write", 0, "read: the value before the step; write: after it"),
    RF_STR("value", NUL, "the value, hex (null: unreadable)"),
    RF_END,
};

/* the accesses of step i, reads then writes: n, and access k into *out */
struct access {
  uint64_t addr;
  uint32_t size;
  int write, known;
  const uint8_t *val;
  uint8_t slot[8];
};

static size_t accesses(const struct df_trace *t, size_t i, size_t k, struct access *out) {
  const struct step *s = &t->steps[i];
  size_t n = 0;
  if (s->callout) {
    if (k == n && out) {
      memset(out, 0, sizeof *out);
      out->addr = s->slot;
      out->size = 8;
      out->known = s->slot_known;
      memcpy(out->slot, &s->slot_val, 8);
      out->val = out->slot;
    }
    return 1;
  }
  for (int pass = 0; pass < 2; pass++) {
    const struct rec *arr = pass ? &t->writes[s->w0] : &t->reads[s->r0];
    size_t m = pass ? s->nw : s->nr;
    for (size_t j = 0; j < m; j++) {
      if (!arr[j].is_mem) continue;
      if (n == k && out) {
        memset(out, 0, sizeof *out);
        out->addr = arr[j].addr;
        out->size = arr[j].size;
        out->write = pass;
        out->known = arr[j].known;
        out->val = arr[j].val;
      }
      n++;
    }
  }
  return n;
}

struct asmspy_value memlog_value(const struct df_trace *t, size_t i, struct df_arena *a) {
  size_t n = accesses(t, i, 0, NULL);
  struct asmspy_value *items = df_values(a, n);
  if (!items) return rv_absent();
  for (size_t k = 0; k < n; k++) {
    struct access ac;
    accesses(t, i, k, &ac);
    struct asmspy_value *v = df_values(a, 4);
    char val[2 * VAL_MAX + 4];
    df_fmt_bytes(ac.val, ac.size < MEM_VAL_MAX ? ac.size : MEM_VAL_MAX, val, sizeof val);
    char *vs = ac.known ? df_strdup(a, val) : NULL;
    if (!v || (ac.known && !vs)) return rv_absent();
    v[0] = rv_hex(ac.addr);
    v[1] = rv_int(ac.size);
    v[2] = rv_str(ac.write ? "write" : "read");
    v[3] = ac.known ? rv_str(vs) : rv_null();
    items[k] = rv_object(v);
  }
  return rv_array(items, n);
}

void memlog_text(const struct df_trace *t, size_t i, struct strbuf *text) {
  size_t n = accesses(t, i, 0, NULL);
  if (!n) return;
  strbuf_addf(text, "\n        mem:");
  for (size_t k = 0; k < n; k++) {
    struct access ac;
    accesses(t, i, k, &ac);
    char val[2 * VAL_MAX + 4];
    df_fmt_bytes(ac.val, ac.size < MEM_VAL_MAX ? ac.size : MEM_VAL_MAX, val, sizeof val);
    strbuf_addf(text, " %c [0x%" PRIx64 "]:%" PRIu32 "=%s", ac.write ? 'W' : 'R', ac.addr, ac.size,
                ac.known ? val : "?");
  }
}
