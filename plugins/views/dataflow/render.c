/* The `dataflow` record of one captured invocation (capture.h): the header
 * line, one line per step with its reads (and their defs) and writes, and
 * the typed values of the same; the armed streams add a member and an
 * indented line per step (streams.h); --blame's records follow. */
#include "plugins/views/dataflow/capture.h"

#include "common/strbuf.h"
#include "plugins/common/record_emit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0x.." of a little-endian value (most significant digit first, no
 * leading zeros). */
void df_fmt_bytes(const uint8_t *val, uint32_t size, char *out, size_t cap) {
  size_t n = size < VAL_MAX ? size : VAL_MAX;
  char hex[2 * VAL_MAX + 1];
  size_t k = 0;
  for (size_t i = n; i-- > 0;) k += (size_t)snprintf(hex + k, sizeof hex - k, "%02x", val[i]);
  hex[k] = 0;
  const char *p = hex;
  while (p[0] == '0' && p[1]) p++;
  snprintf(out, cap, "0x%s", k ? p : "0");
}

static void fmt_val(const struct rec *r, char *out, size_t cap) {
  df_fmt_bytes(r->val, df_rec_nbytes(r), out, cap);
}

void df_fmt_loc(const struct rec *r, char *out, size_t cap) {
  if (r->vreg)
    snprintf(out, cap, "%s", r->vname);
  else if (r->is_mem)
    snprintf(out, cap, "[0x%" PRIx64 "]", r->addr);
  else
    snprintf(out, cap, "%s", df_reg_name(r->reg));
}

/* Where the typed values of one `dataflow` record live while it is emitted:
 * per step its 13 members, per read 5, per write 3, and the loc / value
 * strings they point at. */
#define DF_STEP_MEMBERS 13 /* df_step_fields */
struct df_values {
  struct asmspy_value *steps, *step_items, *reads, *read_items, *writes, *write_items;
  char (*rloc)[40], (*rval)[136], (*wloc)[40], (*wval)[136];
};

static void df_values_free(struct df_values *v) {
  free(v->steps), free(v->step_items), free(v->reads), free(v->read_items);
  free(v->writes), free(v->write_items), free(v->rloc), free(v->rval), free(v->wloc), free(v->wval);
}

static int df_values_alloc(struct df_values *v, size_t nsteps, size_t nreads, size_t nwrites) {
  nsteps += !nsteps, nreads += !nreads, nwrites += !nwrites; /* never calloc(0) */
  v->steps = calloc(nsteps * DF_STEP_MEMBERS, sizeof *v->steps);
  v->step_items = calloc(nsteps, sizeof *v->step_items);
  v->reads = calloc(nreads * 5, sizeof *v->reads);
  v->read_items = calloc(nreads, sizeof *v->read_items);
  v->writes = calloc(nwrites * 3, sizeof *v->writes);
  v->write_items = calloc(nwrites, sizeof *v->write_items);
  v->rloc = calloc(nreads, sizeof *v->rloc);
  v->rval = calloc(nreads, sizeof *v->rval);
  v->wloc = calloc(nwrites, sizeof *v->wloc);
  v->wval = calloc(nwrites, sizeof *v->wval);
  return v->steps && v->step_items && v->reads && v->read_items && v->writes && v->write_items &&
                 v->rloc && v->rval && v->wloc && v->wval
             ? 0
             : -1;
}

/* The text line every record starts with: function, pid, return value,
 * counts. */
static void render_header(const struct df_state *st, const struct asmspy_event *ev, int truncated,
                          uint64_t records, struct strbuf *text) {
  char ret_s[32];
  if (truncated)
    snprintf(ret_s, sizeof ret_s, "?");
  else
    snprintf(ret_s, sizeof ret_s, "%" PRId64, (int64_t)ev->u.region.retval);
  strbuf_addf(text,
              "data flow \u2014 %s @ 0x%" PRIx64 " of pid %d   ret=%s   %" PRIu64 " steps, %" PRIu64
              " records%s",
              st->rv.name, st->rv.start, (int)st->s->pid, ret_s, st->executed, records,
              truncated ? "   (truncated)" : "");
  if (st->callouts) strbuf_addf(text, "   %" PRIu64 " call-outs", st->callouts);
  strbuf_addf(text, "\n");
}

/* A step's reads: " loc=value(#def)" each in the text, and a typed object
 * each (loc, size, value, def, from the input) in dv. */
static void render_reads(const struct df_state *st, const struct step *s, struct df_values *dv,
                         int want_text, struct strbuf *text) {
  if (want_text && s->nr) strbuf_addf(text, "   r:");
  for (size_t k = 0; k < s->nr; k++) {
    size_t g = s->r0 + k;
    const struct rec *r = &st->tr.reads[g];
    df_fmt_loc(r, dv->rloc[g], sizeof dv->rloc[g]);
    fmt_val(r, dv->rval[g], sizeof dv->rval[g]);
    if (want_text) {
      strbuf_addf(text, " %s=%s", dv->rloc[g], r->known ? dv->rval[g] : "?");
      if (r->def >= 0)
        strbuf_addf(text, "(#%" PRId64 ")", r->def);
      else
        strbuf_addf(text, "(in)");
    }
    struct asmspy_value *rv = &dv->reads[5 * g];
    rv[0] = rv_str(dv->rloc[g]);
    rv[1] = rv_int(r->size);
    rv[2] = r->known ? rv_str(dv->rval[g]) : rv_null();
    rv[3] = r->def >= 0 ? rv_int(r->def) : rv_null();
    rv[4] = rv_bool(r->def < 0);
    dv->read_items[g] = rv_object(rv);
  }
}

/* A step's writes: " loc=value" each in the text, a typed object each
 * (loc, size, value) in dv. */
static void render_writes(const struct df_state *st, const struct step *s, struct df_values *dv,
                          int want_text, struct strbuf *text) {
  if (want_text && s->nw) strbuf_addf(text, "   w:");
  for (size_t k = 0; k < s->nw; k++) {
    size_t g = s->w0 + k;
    const struct rec *w = &st->tr.writes[g];
    df_fmt_loc(w, dv->wloc[g], sizeof dv->wloc[g]);
    fmt_val(w, dv->wval[g], sizeof dv->wval[g]);
    if (want_text) strbuf_addf(text, " %s=%s", dv->wloc[g], w->known ? dv->wval[g] : "?");
    struct asmspy_value *wv = &dv->writes[3 * g];
    wv[0] = rv_str(dv->wloc[g]);
    wv[1] = rv_int(w->size);
    wv[2] = w->known ? rv_str(dv->wval[g]) : rv_null();
    dv->write_items[g] = rv_object(wv);
  }
}

/* The opt-in streams of step i: a member each (sv[8..12], absent when the
 * stream is off), and an indented line under the step. */
static void render_streams(const struct df_state *st, size_t i, struct asmspy_value *sv,
                           struct df_arena *arena, int want_text, struct strbuf *text) {
  const struct df_streams *on = &st->streams;
  sv[8] = on->steps ? regfile_value(&st->tr, i, arena) : rv_absent();
  sv[9] = on->mem ? memlog_value(&st->tr, i, arena) : rv_absent();
  sv[10] = on->statediff ? statediff_value(&st->tr, i, arena) : rv_absent();
  sv[11] = on->insns ? insns_value(&st->tr, i) : rv_absent();
  sv[12] = on->steps && on->fpregs ? fpregs_value(&st->tr, i, arena) : rv_absent();
  if (want_text) {
    if (on->insns) insns_text(&st->tr, i, text);
    if (on->steps) regfile_text(&st->tr, i, text);
    if (on->steps && on->fpregs) fpregs_text(&st->tr, i, text);
    if (on->mem) memlog_text(&st->tr, i, text);
    if (on->statediff) statediff_text(&st->tr, i, text);
  }
}

/* Step i: its text line(s) and its DF_STEP_MEMBERS typed members. */
static void render_step(const struct df_state *st, size_t i, struct df_values *dv,
                        struct df_arena *arena, int want_text, struct strbuf *text) {
  const struct step *s = &st->tr.steps[i];
  if (want_text)
    strbuf_addf(text, "#%-4zu +0x%-5" PRIx64 " %-34s", i, s->addr - st->rv.start, s->text);
  render_reads(st, s, dv, want_text, text);
  render_writes(st, s, dv, want_text, text);
  struct asmspy_value *sv = &dv->steps[DF_STEP_MEMBERS * i];
  sv[0] = rv_int((int64_t)i);
  sv[1] = rv_str(s->callout ? "callout" : "insn");
  sv[2] = rv_int((int64_t)(s->addr - st->rv.start));
  sv[3] = rv_hex(s->addr);
  sv[4] = rv_str(s->text);
  sv[5] = s->callout ? rv_hex(s->callee) : rv_absent();
  sv[6] = rv_array(&dv->read_items[s->r0], s->nr);
  sv[7] = rv_array(&dv->write_items[s->w0], s->nw);
  render_streams(st, i, sv, arena, want_text, text);
  dv->step_items[i] = rv_object(sv);
  if (want_text) strbuf_addf(text, "\n");
}

/* --blame: the records explaining the return value, after the dataflow
 * record they refer to. */
static void render_blame(struct df_state *st, const struct asmspy_event *ev, int truncated) {
  struct df_blame_in in = {
      .ret_known = !truncated,
      .ret = ev->u.region.retval,
      .ret_def = st->reg_def[df_arch->reg_ret],
      .invocation = st->streams.continuous ? st->invocations + 1 : 0,
      .mem_def = df_md_get,
      .mem_ctx = &st->md,
  };
  blame_emit(&st->tr, &in, st->host, st->s->out, st->rec_blame);
}

void df_render(struct df_state *st, const struct asmspy_event *ev) {
  const struct asmspy_host_api *h = st->host;
  int truncated = ev->u.region.truncated != 0;
  int want_text = !ASMSPY_HAS(h, wants_text) || h->wants_text(st->s->out);
  uint64_t records = st->tr.nreads + st->tr.nwrites;
  struct strbuf text = {0};
  struct df_values dv = {0};
  struct df_arena arena = {0}; /* the streams' values */
  if (df_values_alloc(&dv, st->tr.nsteps, st->tr.nreads, st->tr.nwrites) != 0) {
    df_values_free(&dv);
    h->note(st->s->out, ASMSPY_NOTE_WARN, "dataflow: out of memory rendering %zu steps",
            st->tr.nsteps);
    return;
  }
  render_header(st, ev, truncated, records, &text);
  for (size_t i = 0; i < st->tr.nsteps; i++) render_step(st, i, &dv, &arena, want_text, &text);
  if (arena.oom) {
    h->note(st->s->out, ASMSPY_NOTE_WARN, "dataflow: out of memory rendering the streams");
    df_arena_free(&arena);
    df_values_free(&dv);
    free(text.s);
    return;
  }
  if (text.len && text.s[text.len - 1] == '\n') text.s[--text.len] = 0;
  const struct asmspy_value v[] = {
      rv_str(st->rv.name),
      rv_hex(st->rv.start),
      rv_int((int64_t)st->rv.len),
      rv_int(ev->tid),
      st->streams.continuous ? rv_int(st->invocations + 1) : rv_absent(),
      truncated ? rv_null() : rv_int((int64_t)ev->u.region.retval),
      rv_int((int64_t)st->executed),
      rv_int((int64_t)st->callouts),
      rv_bool(truncated),
      rv_int((int64_t)records),
      rv_array(dv.step_items, st->tr.nsteps),
  };
  rec_emit(h, st->s->out, st->rec_dataflow, v, text.s);
  free(text.s);
  df_values_free(&dv);
  df_arena_free(&arena);
  if (st->streams.blame) render_blame(st, ev, truncated);
}