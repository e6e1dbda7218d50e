/* dataflow --auto: choose the function to capture by sampling first
 * (`asmspy --dataflow <pid> --auto [--module=<m>] [--sampler=ibs|lbr|sw|ptrace]
 * [--window=<ms>]`). See auto.c for the rules. */
#ifndef ASMSPY_PLUGINS_VIEWS_DATAFLOW_AUTO_H
#define ASMSPY_PLUGINS_VIEWS_DATAFLOW_AUTO_H

#include <asmspy/plugin.h>

#include "plugins/common/region_view.h"

#define DF_AUTO_USAGE "--auto [--module=<m>] [--sampler=ibs|lbr|sw|ptrace] [--window=<ms>]"

/* dataflow's option table (dataflow.c) holds these entries at these
 * indexes: open() and df_auto_take_opts read the parse result by them. */
enum {
  DF_OPT_MAX,
  DF_OPT_AUTO,
  DF_OPT_MODULE,
  DF_OPT_SAMPLER,
  DF_OPT_WINDOW,
  /* the opt-in streams (streams.h) */
  DF_OPT_STEPS,
  DF_OPT_MEM,
  DF_OPT_BLAME,
  DF_OPT_STATEDIFF,
  DF_OPT_INSNS,
  DF_OPT_FPREGS,
  DF_OPT_CONTINUOUS
};

struct df_auto_opts {
  int on;              /* --auto given */
  const char *module;  /* --module=<m>: substring of the module name */
  const char *sampler; /* --sampler=<rung>, NULL = the ladder */
  int64_t window_ms;   /* --window=<ms>, 0 = DF_AUTO_WINDOW_MS */
  const char *stray;   /* first --module/--sampler/--window seen (for "needs --auto") */
};

struct df_auto; /* the ranking and where the walk stands */

/* The members of the `auto` record (auto.c writes it). */
extern const struct asmspy_field df_auto_fields[];

/* open: take the --auto options from the parse result (DF_OPT_*). Returns
 * 0, or -ASMSPY_E_USAGE (malformed; noted). */
int df_auto_take_opts(const struct asmspy_host_api *host, const struct asmspy_session *s,
                      const struct asmspy_optval *ov, struct df_auto_opts *o);

/* open, after every argument: the combinations --auto refuses (with --tid,
 * with a region, its options without it). 0 or -ASMSPY_E_USAGE (noted). */
int df_auto_check(const struct asmspy_host_api *host, const struct asmspy_session *s,
                  const struct df_auto_opts *o, const struct rv_region *rv);

/* configure: sample, rank, and set the session (and rv) to the first
 * candidate. Returns 0, a negative status (tracer failure / usage), a
 * positive ASMSPY_FACT_NO_EVENTS (nothing observed: a refusal, emitted), or
 * ASMSPY_E_NO_* negated after a "# SKIP" note when every rung refused. */
int df_auto_configure(struct df_auto **out, const struct df_auto_opts *o,
                      const struct asmspy_host_api *host, struct asmspy_session *s,
                      struct rv_region *rv, const char *what);

/* consume, at a REGION_EXIT that was never reached: 1 when another candidate
 * remains (the view waits for retry), 0 when the walk is over (the caller
 * reports not_reached; df_auto_exhausted adds the --auto summary). */
int df_auto_missed(struct df_auto *a);
void df_auto_exhausted(struct df_auto *a);

/* retry: after the backend returned `status` for the current candidate,
 * move to the next one (announced), set the session and rv; 1 = run again. */
int df_auto_retry(struct df_auto *a, int status, struct asmspy_session *s, struct rv_region *rv);

void df_auto_free(struct df_auto *a);

#endif /* ASMSPY_PLUGINS_VIEWS_DATAFLOW_AUTO_H */
