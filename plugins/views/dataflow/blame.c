/* --blame: for each result of the invocation, the backward slice that
 * produced it. The results: the return value (rax at return, unless the
 * capture was truncated) and every memory range the invocation wrote that
 * outlives it — the last write of those bytes, outside the dead stack
 * (below the entry rsp, down to the lowest rsp seen less the 128-byte red
 * zone). The slice walks the def-use edges backwards from the step that
 * produced the result: every step reached, and every live-in value reached
 * (a read with no definition in the invocation: registers and memory as
 * they were at entry). A call-out is a black box whose inputs are taken to
 * be the six SysV argument registers (its callee's own reads ran natively
 * and are not seen), so a value it returned blames what it was handed. */
#include "plugins/common/record_emit.h"
#include "plugins/views/dataflow/streams.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RED_ZONE 128

static const struct asmspy_field live_in_fields[] = {
    RF_STR("loc", 0, "register or [0xaddr]"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("value", NUL, "its value at entry, hex (null: unreadable)"),
    RF_END,
};
const struct asmspy_field df_blame_fields[] = {
    RF_INT("invocation", 1, OPT, "--continuous: the invocation it belongs to"),
    RF_ENUM("result", "ret|mem", 0,
            "ret: the return value; mem: memory written that outlives the call"),
    RF_STR("loc", 0, "rax, or [0xaddr] of the range"),
    RF_INT("size", 0, 0, "bytes"),
    RF_STR("value", NUL, "its final value, hex (null: unknown)"),
    {.name = "def",
     .type = ASMSPY_FIELD_INT,
     .flags = NUL,
     .min = 0,
     .meaning = "the step that produced it (null: rax was never written: live-in)"},
    RF_ARRAY("slice", "int", NULL, 0, "the steps it depends on, transitively, ascending"),
    RF_ARRAY("live_in", "object", live_in_fields, 0,
             "the values from before the invocation it depends on"),
    RF_END,
};

struct slice {
  uint8_t *seen; /* per step */
  size_t *stack;
  const struct rec **ins; /* live-in reads, one per location */
  size_t nins;
};

static int same_loc(const struct rec *a, const struct rec *b) {
  return a->is_mem == b->is_mem &&
         (a->is_mem ? a->addr == b->addr && a->size == b->size : a->reg == b->reg);
}

static void take_read(struct slice *sl, const struct rec *r, size_t *sp) {
  if (r->def >= 0) {
    if (!sl->seen[r->def]) {
      sl->seen[r->def] = 1;
      sl->stack[(*sp)++] = (size_t)r->def;
    }
    return;
  }
  for (size_t k = 0; k < sl->nins; k++)
    if (same_loc(sl->ins[k], r)) return;
  sl->ins[sl->nins++] = r;
}

/* Walk back from root (a step index). */
static void walk(const struct df_trace *t, struct slice *sl, size_t root) {
  size_t sp = 0;
  sl->seen[root] = 1;
  sl->stack[sp++] = root;
  while (sp) {
    const struct step *s = &t->steps[sl->stack[--sp]];
    for (size_t k = 0; k < s->nr; k++) take_read(sl, &t->reads[s->r0 + k], &sp);
    for (size_t k = 0; k < s->nc; k++) take_read(sl, &t->cins[s->c0 + k], &sp);
  }
}

static void emit_one(const struct df_trace *t, const struct df_blame_in *in,
                     const struct asmspy_host_api *h, struct asmspy_out *out,
                     const struct asmspy_record_schema *schema, const struct rec *result,
                     int64_t def) {
  struct slice sl = {0};
  size_t n = t->nsteps ? t->nsteps : 1;
  sl.seen = calloc(n, 1);
  sl.stack = calloc(n, sizeof *sl.stack);
  sl.ins = calloc(t->nreads + t->ncins + 1, sizeof *sl.ins);
  struct df_arena a = {0};
  struct strbuf text = {0};
  if (!sl.seen || !sl.stack || !sl.ins) goto out;
  if (def >= 0)
    walk(t, &sl, (size_t)def);
  else
    take_read(&sl, result, NULL); /* rax live-in: itself */
  size_t nslice = 0;
  for (size_t i = 0; i < t->nsteps; i++) nslice += sl.seen[i];
  struct asmspy_value *steps = df_values(&a, nslice), *ins = df_values(&a, sl.nins);
  char loc[40], val[2 * VAL_MAX + 4];
  df_fmt_loc(result, loc, sizeof loc);
  df_fmt_bytes(result->val, df_rec_nbytes(result), val, sizeof val);
  strbuf_addf(&text, "blame %s %s=%s", result->is_mem ? "mem" : "ret", loc,
              result->known ? val : "?");
  if (def >= 0) strbuf_addf(&text, " <- #%" PRId64, def);
  strbuf_addf(&text, "   slice (%zu steps):", nslice);
  size_t m = 0;
  for (size_t i = 0; i < t->nsteps && steps; i++)
    if (sl.seen[i]) {
      steps[m++] = rv_int((int64_t)i);
      strbuf_addf(&text, " #%zu", i);
    }
  strbuf_addf(&text, "   live-in:");
  for (size_t k = 0; k < sl.nins && ins; k++) {
    const struct rec *r = sl.ins[k];
    char l[40], v[2 * VAL_MAX + 4];
    df_fmt_loc(r, l, sizeof l);
    df_fmt_bytes(r->val, df_rec_nbytes(r), v, sizeof v);
    struct asmspy_value *o = df_values(&a, 3);
    char *ls = df_strdup(&a, l), *vs = df_strdup(&a, v);
    if (!o || !ls || !vs) break;
    o[0] = rv_str(ls);
    o[1] = rv_int(r->size);
    o[2] = r->known ? rv_str(vs) : rv_null();
    ins[k] = rv_object(o);
    strbuf_addf(&text, " %s=%s", l, r->known ? v : "?");
  }
  if (!sl.nins) strbuf_addf(&text, " (none)");
  if (a.oom || text.oom) {
    h->note(out, ASMSPY_NOTE_WARN, "dataflow --blame: out of memory for %s", loc);
    goto out;
  }
  const struct asmspy_value v[] = {
      in->invocation > 0 ? rv_int(in->invocation) : rv_absent(),
      rv_str(result->is_mem ? "mem" : "ret"),
      rv_str(loc),
      rv_int(result->size),
      result->known ? rv_str(val) : rv_null(),
      def >= 0 ? rv_int(def) : rv_null(),
      rv_array(steps, nslice),
      rv_array(ins, sl.nins),
  };
  rec_emit(h, out, schema, v, text.s);
out:
  free(sl.seen);
  free(sl.stack);
  free(sl.ins);
  strbuf_free(&text);
  df_arena_free(&a);
}

void blame_emit(const struct df_trace *t, const struct df_blame_in *in,
                const struct asmspy_host_api *h, struct asmspy_out *out,
                const struct asmspy_record_schema *schema) {
  if (!t->nsteps) return;
  if (in->ret_known) {
    struct rec ret = {.reg = (uint8_t)df_arch->reg_ret, .size = 8, .known = 1, .def = -1};
    memcpy(ret.val, &in->ret, 8);
    emit_one(t, in, h, out, schema, &ret, in->ret_def);
  }
  uint64_t entry_rsp = t->steps[0].pre_rsp;
  uint64_t dead_lo = t->min_rsp > RED_ZONE ? t->min_rsp - RED_ZONE : 0;
  for (size_t i = 0; i < t->nsteps; i++) {
    const struct step *s = &t->steps[i];
    for (size_t k = 0; k < s->nw; k++) {
      const struct rec *w = &t->writes[s->w0 + k];
      if (!w->is_mem || (w->addr >= dead_lo && w->addr < entry_rsp)) continue;
      int last = 1; /* no later step overwrote any of its bytes */
      for (uint32_t b = 0; b < w->size && last; b++)
        last = in->mem_def(in->mem_ctx, w->addr + b) == (int64_t)i;
      if (last) emit_one(t, in, h, out, schema, w, (int64_t)i);
    }
  }
}
