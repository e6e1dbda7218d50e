/* plugins/views/dataflow/streams.h — the opt-in recorded streams of
 * `asmspy --dataflow` (--steps --mem --blame --statediff --insns
 * --continuous), each a file of its own:
 *   regfile.c    --steps      the full register file each step saw (before it ran)
 *   memlog.c     --mem        every memory access of each step, implicit ones too
 *   statediff.c  --statediff  per step only what it changed
 *   insns.c      --insns      the instruction bytes as executed
 *   blame.c      --blame      the backward slice of each result of the invocation
 *   fpregs.c     --fpregs     x87/SSE/AVX(-512) operand values and def-use; with
 *                             --steps the whole FP/vector register file
 * (--continuous is orchestration: dataflow.c). A per-step stream gives its
 * step a JSON value (a member of the step object, absent when the stream is
 * off) and an indented human line under the step; the values and strings
 * it builds live in the render's arena (arena.c), freed at once after the
 * record is written. */
#ifndef ASMSPY_PLUGINS_VIEWS_DATAFLOW_STREAMS_H
#define ASMSPY_PLUGINS_VIEWS_DATAFLOW_STREAMS_H

#include <asmspy/plugin.h>

#include "common/strbuf.h"
#include "plugins/views/dataflow/df_trace.h"

/* which streams are armed */
struct df_streams {
  int steps, mem, blame, statediff, insns, fpregs, continuous;
};

/* ------------------------------- arena --------------------------------- */
/* Everything one record's values point at: allocated as the record is
 * built, freed together after it is written. An allocation failure sets
 * oom (the caller then writes nothing) instead of aborting the tracer. */
struct df_arena {
  struct df_chunk *head;
  int oom;
};
void *df_alloc(struct df_arena *a, size_t n); /* zeroed; NULL (and oom) on failure */
char *df_strdup(struct df_arena *a, const char *s);
struct asmspy_value *df_values(struct df_arena *a, size_t n);
void df_arena_free(struct df_arena *a);

/* ------------------------------ --steps -------------------------------- */
extern struct asmspy_field df_regs_fields[]; /* described from host->arch */
void regfile_describe(const struct asmspy_arch *a);
/* step i's `regs` object (rv_absent when its registers are unknown) */
struct asmspy_value regfile_value(const struct df_trace *t, size_t i, struct df_arena *a);
void regfile_text(const struct df_trace *t, size_t i, struct strbuf *text);

/* ------------------------------- --mem --------------------------------- */
extern const struct asmspy_field df_mem_fields[];
struct asmspy_value memlog_value(const struct df_trace *t, size_t i, struct df_arena *a);
void memlog_text(const struct df_trace *t, size_t i, struct strbuf *text);

/* ---------------------------- --statediff ------------------------------ */
extern const struct asmspy_field df_diff_fields[];
struct asmspy_value statediff_value(const struct df_trace *t, size_t i, struct df_arena *a);
void statediff_text(const struct df_trace *t, size_t i, struct strbuf *text);

/* ------------------------------ --insns -------------------------------- */
struct asmspy_value insns_value(const struct df_trace *t, size_t i);
void insns_text(const struct df_trace *t, size_t i, struct strbuf *text);

/* ------------------------------ --fpregs ------------------------------- */
#define DF_VKEYS 51 /* the physical registers vkey names */
/* The physical register a VREG id names in state fp (before the step):
 * xmm/ymm/zmm n are one register, st(i) is x87 register (TOP + i) & 7. */
uint8_t fp_vkey(uint16_t vreg, const struct asmspy_fpregs *fp);
/* r's value from fp (a state after the step for a write: st(i) of a write
 * is found by its physical register, the stack may have moved). */
void fp_value(const struct asmspy_host_api *h, const struct asmspy_fpregs *fp, struct rec *r,
              int after);
/* physical x87 register p holds a value after the step that it did not
 * hold before (loaded, or changed) */
int fp_x87_written(const struct asmspy_fpregs *pre, const struct asmspy_fpregs *post, unsigned p);
/* The FP/vector registers whose value differs from pre to post: their
 * number, and the k-th one's name and values (hex) when name is given.
 * Vector registers at the widest width the CPU has; x87 registers by
 * physical register, named as st(i) after the step ("empty" before a load
 * into a free one). */
size_t fp_diff(const struct asmspy_fpregs *pre, const struct asmspy_fpregs *post, size_t k,
               char *name, size_t ncap, char *before, char *after, size_t vcap);
extern const struct asmspy_field df_fpregs_fields[];
struct asmspy_value fpregs_value(const struct df_trace *t, size_t i, struct df_arena *a);
void fpregs_text(const struct df_trace *t, size_t i, struct strbuf *text);

/* ------------------------------ --blame -------------------------------- */
extern const struct asmspy_field df_blame_fields[];
/* What the slices start from, at the end of the invocation. */
struct df_blame_in {
  int ret_known; /* not truncated: rax at return is a result */
  uint64_t ret;
  int64_t ret_def;    /* the step that last wrote rax (-1: rax live-in) */
  int64_t invocation; /* --continuous: the invocation number, else 0 (absent) */
  /* the byte -> last defining step map (dataflow.c's memdef) */
  int64_t (*mem_def)(const void *ctx, uint64_t addr);
  const void *mem_ctx;
};
/* Emit one `blame` record per result (schema: the view's blame record). */
void blame_emit(const struct df_trace *t, const struct df_blame_in *in,
                const struct asmspy_host_api *h, struct asmspy_out *out,
                const struct asmspy_record_schema *schema);

#endif
