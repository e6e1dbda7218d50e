/* plugins/views/dataflow/capture.h — the dataflow view's state and its
 * recording of one invocation, event by event (capture.c), and the render
 * of the `dataflow` record (render.c). Internal to the dataflow plugin;
 * dataflow.c is the orchestration (options, the session's ops, the
 * records table). */
#ifndef ASMSPY_PLUGINS_VIEWS_DATAFLOW_CAPTURE_H
#define ASMSPY_PLUGINS_VIEWS_DATAFLOW_CAPTURE_H

#include <asmspy/plugin.h>

#include "plugins/common/region_view.h"
#include "plugins/views/dataflow/auto.h"
#include "plugins/views/dataflow/df_trace.h"
#include "plugins/views/dataflow/streams.h"

/* byte address -> defining step (open addressing) */
struct memdef {
  uint64_t *keys; /* addr + 1 (0 = empty) */
  int64_t *vals;
  size_t cap, n;
};

struct df_state {
  const struct asmspy_host_api *host;
  const struct asmspy_session *s;
  struct rv_region rv; /* the region, its name and the entry wait */
  int64_t max;
  struct df_trace tr; /* the invocation being captured */
  int64_t reg_def[DF_NREGS];
  struct memdef md;
  int64_t pending; /* step whose written values await the post-execution state, -1 none */
  uint64_t executed, callouts;
  int entered, done;
  int32_t tid;                  /* the sampled thread */
  struct df_streams streams;    /* the opt-in streams armed */
  uint64_t last_regs[DF_NREGS]; /* the registers the latest instruction step saw */
  int last_regs_known;
  int64_t invocations;     /* --continuous: invocations rendered so far */
  struct asmspy_fpregs fp; /* --fpregs: the thread's FP/vector state at the current event */
  int fp_ok;
  struct asmspy_fpregs fp_prev; /* --fpregs: the state at the event before (the pending step's) */
  int fp_prev_ok;
  int64_t vdef[DF_VKEYS];        /* --fpregs: physical FP/vector register -> defining step */
  struct df_auto_opts auto_opts; /* --auto: the region is chosen by sampling */
  struct df_auto *autopick;
  const struct asmspy_record_schema *rec_dataflow, *rec_blame; /* the records it writes */
};

/* capture.c: the events of the invocation, in order */
void df_on_insn(struct df_state *st, const struct asmspy_event *ev);
void df_on_callout(struct df_state *st, const struct asmspy_event *ev);
/* The post-execution state of the pending step is visible now (at the next
 * event, or the REGION_EXIT): fill its written values. regs: the registers
 * now (NULL = unknown, except rax = retval when have_ret). */
void df_finish_pending(struct df_state *st, const struct asmspy_event *ev,
                       const struct asmspy_regs *regs, int have_ret, uint64_t retval,
                       int at_callout, uint64_t callee);
/* --fpregs: the FP/vector state of the event's thread now (idx < 0), or
 * step idx's copy of it (--steps). A no-op without --fpregs. */
void df_fp_read(struct df_state *st, const struct asmspy_event *ev, int64_t idx);
/* --continuous: forget the invocation just rendered (arrays kept). */
void df_reset_invocation(struct df_state *st);
/* the step that last wrote byte addr (-1: none); m is a struct memdef */
int64_t df_md_get(const void *m, uint64_t addr);

/* render.c: the `dataflow` record of the invocation (and --blame's) */
void df_render(struct df_state *st, const struct asmspy_event *ev);

#endif
